// Per-simulation state and workspace (Pinocchio's "Data", MuJoCo's mjData): everything a step
// reads and writes, allocated once by the constructor from a Model. A Model can serve any number
// of Data (one per thread in parallel rollouts).
#pragma once

#include <vector>

#include "sim/joint.hpp"
#include "sim/ldu.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Newton solver settings (DESIGN §6 defaults where they apply).
struct SolverOptions {
  // Convergence: every constrained joint row |c(z3)| < tolerance (m, rad); every momentum and
  // free joint row < tolerance × the step's impulse scale (N·s, at least 1).
  double tolerance = 1e-10;
  int max_iterations = 50;
  int line_search_steps = 12;    // halvings of the Newton step before giving up on a decrease
  // Redundant constraints are regularized inside the LDU, on the matrix only (never in the
  // residual), and only at pivots they make singular: see BlockLdu::regularization.
};

enum class StepStatus { Ok, NotConverged, Failed };
const char* step_status_name(StepStatus s);

struct StepReport {
  StepStatus status = StepStatus::Ok;
  int iterations = 0;
  double residual = 0;  // ‖residual‖∞ at the end of the solve
};

struct Data {
  explicit Data(const Model& model);

  // ---- state: the current knot z2 = (x, q) and the velocities (v, w) over [t1, t2] --------
  double time = 0;
  std::vector<Vec3> x;   // CoM positions (world)
  std::vector<Vec4> q;   // orientations (body -> world)
  std::vector<Vec3> v;   // linear velocities (world)
  std::vector<Vec3> w;   // angular velocities (body frame)

  // ---- inputs, held until changed ---------------------------------------------------------
  std::vector<Vec3> body_force;   // external force at the CoM (world)
  std::vector<Vec3> body_torque;  // external torque (body frame)
  std::vector<Vec6> joint_force;  // actuation per joint row (free rows only): N or N·m

  // ---- outputs of the last step ------------------------------------------------------------
  std::vector<Vec6> joint_impulse;  // row impulses over the step: constraint multipliers on
                                    // constrained rows, spring+damper+actuation on free rows
  std::vector<Vec3> joint_angle;    // unwrapped free rotation-row angles (rows 3..5)
  StepReport report;
  SolverOptions solver;

  // ---- workspace (allocated here, reused every step) ---------------------------------------
  struct Workspace {
    BlockLdu ldu;
    std::vector<std::pair<int, int>> edges;  // (joint node, body node)
    std::vector<int> parent_edge, child_edge;  // per joint: its edge ids (-1: world parent)
    std::vector<JointRows> rows2, rows3;     // joint rows at z2 (impulse maps) and at z3
    std::vector<Vec3> x3;
    std::vector<Vec4> q3;
    Eigen::VectorXd unknowns, trial, residual, trial_residual, delta;
  } ws;

  int num_nodes() const { return static_cast<int>(x.size() + joint_impulse.size()); }
};

// Pose of body `i`, or of the world for kWorld.
inline Pose body_pose(const Data& d, int i) {
  return i == kWorld ? Pose{} : Pose{d.x[i], d.q[i]};
}

}  // namespace maxsim
