// The state as flat vectors in MuJoCo's layout, and starting over.
//
// qpos / qvel: the minimal coordinates of the joints of the spanning tree
// (sim/state/kinematics.hpp), joint after joint in model order, each joint's Joint::nq / Joint::dof
// values — for a file loaded from MJCF this is MuJoCo's qpos / qvel of the same file: a free
// joint's x y z qw qx qy qz and its linear (world) and angular (body) velocity, a ball joint's
// quaternion, a hinge or slide measured from its `ref` (Joint::ref, and Joint::row_ref for the
// rows of a body's merged joints, is added here; maxsim's own coordinates start at the file's pose). Joints that close loops (MJCF <connect>) have no entries:
// they follow from the others.
// The state itself stays the maximal coordinates of the bodies (Data::x, q, v, w): qpos and qvel
// are computed from it and turned back into it.
#pragma once

#include <span>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

int qpos_size(const Model& model);  // MuJoCo's nq
int qvel_size(const Model& model);  // MuJoCo's nv

// Per joint, the index of its first qpos / qvel entry (MuJoCo's jnt_qposadr, jnt_dofadr); -1 for
// a joint without entries (a loop-closing joint; a fixed joint has nq = 0 and gets the next one).
std::vector<int> qpos_addresses(const Model& model);
std::vector<int> qvel_addresses(const Model& model);

// The current qpos / qvel (the spans must have qpos_size / qvel_size entries).
void get_qpos(const Model& model, const Data& data, std::span<double> qpos);
void get_qvel(const Model& model, const Data& data, std::span<double> qvel);
std::vector<double> get_qpos(const Model& model, const Data& data);
std::vector<double> get_qvel(const Model& model, const Data& data);
// Both in one pass (each joint's coordinates and rates are read once).
void get_qpos_qvel(const Model& model, const Data& data, std::span<double> qpos, std::span<double> qvel);
struct JointRows;  // (sim/constraints/joint.hpp)
// The same from every joint's rows at the Data's poses (one per joint: a step's rows at z3 after
// advance_knot), read instead of evaluated again.
void get_qpos_qvel(const Model& model, const Data& data, const std::vector<JointRows>& rows, std::span<double> qpos,
                   std::span<double> qvel);

// qpos split into per-joint coordinate vectors as set_coordinates takes them (Joint::ref taken
// off; loop joints get empty vectors); the same for qvel with split_qvel. Throws
// std::invalid_argument on a wrong number of values.
std::vector<std::vector<double>> split_qpos(const Model& model, std::span<const double> qpos);
std::vector<std::vector<double>> split_qvel(const Model& model, std::span<const double> qvel);

// Places every body from qpos and qvel (forward kinematics through the spanning tree) and closes
// the loops (project_state). The time, the inputs and the last step's contacts are kept; a limit
// the new state is beyond is pulled in over ModelOptions::limit_recovery_time, as at a run's start
// (sim/constraints/joint_limits.hpp; a loop's limits released at the start stay so). Throws
// std::invalid_argument on a wrong number of values or a non-finite value (the Data unchanged),
// and when the projection does not converge (a loop that cannot close from qpos, or a singular
// system; the Data then holds the tree's placement, off the loops).
void set_qpos_qvel(const Model& model, Data& data, std::span<const double> qpos, std::span<const double> qvel);

// The Data as a fresh Data(model) would be — time 0, the model's pose at rest, ctrl and every
// input zero, no contacts, warm starts and limit memory gone — keeping its controller, its solver
// options and its contact search (set up anew with the same options, so a run after a reset is
// the run of a new Data to the last bit); its arrays stay where they are. With a keyframe (index
// into Model::keyframes): its time, joint coordinates and rates (loops closed by project_state) and
// its ctrl (MJCF <key ctrl>). Throws std::invalid_argument for a keyframe index out of range.
void reset_data(const Model& model, Data& data);
void reset_data(const Model& model, Data& data, int keyframe);

}  // namespace maxsim
