#include "sim/solver/projection.hpp"

#include <algorithm>
#include <cmath>

#include "sim/constraints/equality.hpp"
#include "sim/solver/workspace.hpp"

namespace maxsim {

namespace {

// [M  −Jᵀ; J  0] with J the rows of every equality constraint at the current poses: a joint's
// constrained rows (its free rows are identity rows with zero right-hand side, i.e. no
// multiplier), a nonholonomic constraint's position rows always and its velocity rows with
// `velocities`.
void assemble_projection(const Model& model, Data& d, bool velocities) {
  Workspace& ws = workspace(d);
  BlockLdu& A = ws.ldu;
  A.set_zero();
  for (int i = 0; i < ws.layout.bodies; ++i) {
    A.diag(i).topLeftCorner<3, 3>() = model.bodies[i].mass * Mat3::Identity();
    A.diag(i).bottomRightCorner<3, 3>() = model.bodies[i].inertia;
  }
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->projection_matrix(model, d, ws, k, velocities);
}

}  // namespace


ProjectionReport project_state(const Model& model, Data& d, double tolerance, int max_iterations) {
  const int nb = static_cast<int>(model.bodies.size());
  Workspace& ws = workspace(model, d);  // the graph of the last step (built if there is none)
  const SystemLayout& layout = ws.layout;
  Eigen::VectorXd& rhs = ws.delta;
  ProjectionReport rep;

  // positions: minimal mass-weighted correction onto c(z) = 0, Gauss–Newton
  for (rep.iterations = 0; rep.iterations <= max_iterations; ++rep.iterations) {
    assemble_projection(model, d, false);
    rep.violation = 0;
    rep.worst_joint = rep.worst_row = -1;
    rhs.setZero();
    for (const EqualityKind* kind : equality_kinds())
      for (int k = 0; k < kind->count(model); ++k) {
        int row = -1;
        const double violation = kind->position_rhs(model, ws, k, &rhs, &row);
        if (row >= 0 && violation > rep.violation) {  // (a joint's row: the report names it)
          rep.worst_joint = k;
          rep.worst_row = row;
        }
        rep.violation = std::max(rep.violation, violation);
      }
    if (rep.violation < tolerance) {
      rep.converged = true;
      break;
    }
    if (rep.iterations == max_iterations) {
      rep.failure = ProjectionReport::Failure::IterationLimit;
      break;
    }
    if (!ws.ldu.factor()) {
      rep.failure = ProjectionReport::Failure::Singular;
      break;
    }
    ws.ldu.solve(rhs);
    if (!rhs.allFinite()) {
      rep.failure = ProjectionReport::Failure::NonFinite;
      break;
    }
    for (int i = 0; i < nb; ++i) {
      d.x[i] += layout.velocity(rhs, i);
      d.q[i] = quat_normalize(quat_mul(d.q[i], quat_exp(layout.angular(rhs, i))));
    }
  }
  if (!rep.converged) return rep;

  // velocities: minimal mass-weighted change onto J ν = 0, the nonholonomic rows included
  if (!model.nonholonomic.empty()) assemble_projection(model, d, true);
  rhs.setZero();
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->velocity_rhs(model, d, ws, k, &rhs);
  if (!ws.ldu.factor()) {
    rep.converged = false;
    rep.failure = ProjectionReport::Failure::VelocitySingular;
    return rep;
  }
  ws.ldu.solve(rhs);
  for (int i = 0; i < nb; ++i) {
    d.v[i] += layout.velocity(rhs, i);
    d.w[i] += layout.angular(rhs, i);
  }
  // the unwrapped angles follow the projected configuration
  for (size_t j = 0; j < model.joints.size(); ++j)
    for (int k = 0; k < 3; ++k)
      d.joint_angle[j](k) += wrap_angle(ws.rows2[j].c(3 + k) - d.joint_angle[j](k));
  return rep;
}

}  // namespace maxsim
