// Consistent initial states (docs/computation.md (79)–(80); Brüdigam et al. 2023, §3.5): a state
// set by hand or by forward kinematics through a spanning tree generally violates loop-closing
// joints, and velocities may not be tangent to the constraints. project_state moves positions by a
// mass-weighted Gauss–Newton projection and then velocities by a mass-weighted projection onto the
// constraint tangent space, both solved with the step's own graph LDU (same sparsity: body blocks
// hold the mass matrix, joint blocks the constraint Jacobian).
#pragma once

#include <string>

#include "sim/constraints/joint.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// What project_state did: whether it converged, how far, and why not.
struct ProjectionReport {
  bool converged = false;  // the state satisfies the constraints to the tolerance
  int iterations = 0;      // Gauss–Newton iterations on the positions
  double violation = 0;  // max |c| over constrained rows after the projection
  // Why it did not converge, for a message a user can act on.
  enum class Failure {
    None,
    IterationLimit,  // positions: max_iterations Gauss–Newton steps left `violation`
    Singular,        // positions: the system could not be factored (see BlockLdu::factor)
    NonFinite,       // positions: a correction was not finite
    VelocitySingular,  // velocities: the system at the projected pose could not be factored
  } failure = Failure::None;  // why it did not converge
  int worst_joint = -1;  // the joint with the largest violation (-1: none violated)
  int worst_row = -1;    // its row: 0-2 translation, 3-5 rotation (joint frame)
};

// Where a projection ended worst, for a message: "joint 'NAME' (TYPE, PARENT -> CHILD) is off by
// V m along its frame's x axis" (rad about, for a rotation row); empty when no joint row is named.
std::string worst_row_description(const Model& model, const ProjectionReport& report);

// Makes the velocities consistent with the constraints at the current poses: the minimal
// mass-weighted change onto J ν = 0 (docs/computation.md (80)). Velocities whose every residual is
// at most `below` (> 0; m/s, rad/s) are left as they are, without a factorization. false: the
// system could not be factored (the velocities are unchanged).
bool project_velocities(const Model& model, Data& data, double below = 0);

// A body's pose at time ε along its motion, x + εv + ε²a/2, q ⊗ exp(εω + ε²α/2) (velocities and
// Data::acceleration at the knot; exact to ε²): the rows' second derivatives by central differences.
Pose pose_along_motion(const Data& data, int body, double eps);

// Makes Data::acceleration consistent with the joints' constrained rows at acceleration level
// (J a + J̇ ν = 0 at the current poses and velocities): the minimal mass-weighted change. Joints
// only (the Newmark step, which keeps accelerations, refuses every other constraint kind).
bool project_accelerations(const Model& model, Data& data);

// The equality rows at the current poses in the layout of the step's unknowns (SystemLayout): with
// `rates` false, c of every position row project_state measures (m, rad), NaN elsewhere; with
// `rates`, J ν of every velocity row at the current velocities (a joint's free rows 0, other
// entries NaN). Leaves every joint's rows at these poses in Workspace::rows2 (follow_joint_angles).
Eigen::VectorXd equality_rows(const Model& model, Data& data, bool rates);

// The unwrapped angles of every joint's rotation rows made to follow the poses of the last
// equality_rows (as project_state leaves them).
void follow_joint_angles(const Model& model, Data& data);

// Moves the bodies onto the joints' constraints and makes their velocities consistent
// (project_velocities with `velocity_below`).
ProjectionReport project_state(const Model& model, Data& data, double tolerance = 1e-12,
                               int max_iterations = 50, double velocity_below = 0);

}  // namespace maxsim
