// Minimal coordinates of joints, in and out (docs/computation.md (29); Brüdigam et al. 2023,
// Appendix B).
//
// Position coordinates of a joint (Joint::nq entries): its free translational rows (the child
// anchor relative to the parent anchor along the parent joint frame's axes), then its rotation:
//   revolute: the angle about the joint z axis (unwrapped, so continuous joints keep counting);
//   orbital:  two angles (a, b) with q_rel ∝ (1, tan(a/2), tan(b/2), 0);
//   free rotation (spherical, floating): the relative quaternion (w, x, y, z), as MuJoCo's qpos;
//   Davenport joints (Joint::hinge_sequence): the hinges' angles by joint-frame axis (rates alike).
// Rate coordinates (Joint::dof entries): the translational rates, then the rotation's: for a
// revolute the joint rate; for an orbital joint the rates of its two angles (the relative angular
// velocity then also has a part about the joint axis); for a free rotation (spherical, floating)
// the relative angular velocity of the child joint frame in that frame (MuJoCo's body-frame
// angular velocity of a ball/free joint). For a floating joint to
// the world built with identity frames the coordinates are MuJoCo's free-joint qpos/qvel.
#pragma once

#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct JointRows;  // (sim/constraints/joint.hpp)

// Coordinates of joint j in the current state: q gets nq values, qd gets dof values. `rows`, when
// given, are the joint's rows at the Data's poses (joint_rows of its bodies' poses, any free-rotation
// reference: a step's rows at z3 after advance_knot), read instead of evaluated again.
void joint_coordinates(const Model& model, const Data& data, int j, double* q, double* qd,
                       const JointRows* rows = nullptr);

// All joints' coordinates (per joint vectors).
void get_coordinates(const Model& model, const Data& data, std::vector<std::vector<double>>* q,
                     std::vector<std::vector<double>>* qd);

// Places every body by forward kinematics from joint coordinates, through a spanning tree of the
// joints grown from the world (joints are followed in either direction). Joints not in the tree
// close loops and are left to project_state. Bodies not connected to the world keep their pose.
// An empty per-joint vector means the model's own pose for that joint (the zero configuration:
// bodies at x0, q0, which for a floating base is where the description puts it) / zero rate. Throws
// std::invalid_argument on a wrong number of values or a non-finite value.
void set_coordinates(const Model& model, Data& data, const std::vector<std::vector<double>>& q,
                     const std::vector<std::vector<double>>& qd);

// The velocity half of set_coordinates: every body's velocity from the joints' rates qd, its pose
// as it is — the one set_coordinates placed from the same q (the values are then those
// set_coordinates gives, without placing the bodies and their unwrapped angles again).
void set_coordinate_rates(const Model& model, Data& data, const std::vector<std::vector<double>>& q,
                          const std::vector<std::vector<double>>& qd);

// set_coordinates where d holds set_coordinates' placement of the same q and qd but on the joints
// marked `changed` (one flag per joint): only the bodies past those joints, and the unwrapped
// angles of the joints that touch them, are placed again — the values the whole walk gives.
void set_changed_coordinates(const Model& model, Data& data, const std::vector<std::vector<double>>& q,
                             const std::vector<std::vector<double>>& qd, const std::vector<bool>& changed);

// Sets one joint's coordinates, keeping the others, and re-runs forward kinematics.
void set_joint_coordinates(const Model& model, Data& data, int j, const std::vector<double>& q,
                           const std::vector<double>& qd);

// The minimal coordinate of one free joint row and its rate: the position along a free
// translational row (m) or the angle about a revolute/orbital rotation row (rad, unwrapped for
// revolute joints), as in sim/state/kinematics.hpp. Throws std::invalid_argument for a constrained
// row or a row of a free rotation (ball/floating: a quaternion, no scalar angle).
struct RowCoordinate {
  double q = 0, qd = 0;  // the coordinate and its rate
};
// The coordinate and rate of joint `joint`'s free row `row` (0-2 translation, 3-5 rotation).
RowCoordinate row_coordinate(const Model& model, const Data& data, int joint, int row);

// Whether row_coordinate accepts this joint row.
bool row_has_coordinate(const Joint& joint, int row);

// The index of a free row's coordinate among its joint's coordinates (Joint::coordinate_order, or
// ascending rows); for a row with a scalar coordinate (row_has_coordinate).
int row_coordinate_index(const Joint& joint, int row);

// Joints of the spanning tree used by set_coordinates (true) and loop-closing joints (false).
std::vector<bool> spanning_tree_joints(const Model& model);

// Joints on a closed kinematic loop: those whose two bodies (or body and world) stay connected
// through the other joints — every joint that is not a bridge of the body graph.
std::vector<bool> loop_joints(const Model& model);

}  // namespace maxsim
