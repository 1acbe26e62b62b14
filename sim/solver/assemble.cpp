#include "sim/solver/assemble.hpp"

#include "sim/integrator/body_dynamics.hpp"
#include "sim/constraints/equality.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/solver/inequality.hpp"

#include <cstring>

namespace maxsim {

namespace {

// The bodies' next knot z3 at the unknowns s (ws.x3, ws.q3).
void knot_poses(const Data& d, Workspace& ws, const Eigen::VectorXd& s) {
  const SystemLayout& layout = ws.layout;
  for (int i = 0; i < layout.bodies; ++i)
    next_pose(d.x[i], d.q[i], layout.velocity(s, i), layout.angular(s, i), ws.dt, &ws.x3[i], &ws.q3[i]);
}

}  // namespace

void step_prepare(const Model& model, Data& d) {
  Workspace& ws = workspace(d);
  ws.knot_current = false;  // (z2, Δt and the rows at z2 are new)
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->prepare(model, d, ws, scheme, k);
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->prepare(model, d, static_cast<int>(c));
}

void step_residual(const Model& model, Data& d, const Eigen::VectorXd& s, Eigen::VectorXd* F) {
  Workspace& ws = workspace(d);
  const SystemLayout& layout = ws.layout;
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);

  // bodies: next knot and the integrator's rows of each body (the knot and the joints' rows at it
  // kept where the bodies' unknowns are bit for bit those they were computed at)
  const int nbody = 6 * layout.bodies;
  ws.reuse_rows3 = ws.knot_current && ws.knot_unknowns.size() == nbody &&
                   std::memcmp(ws.knot_unknowns.data(), s.data(), sizeof(double) * nbody) == 0;
  if (!ws.reuse_rows3) knot_poses(d, ws, s);
  for (int i = 0; i < layout.bodies; ++i)
    layout.body(*F, i) = scheme.body_residual(model, d, ws, i, layout.velocity(s, i), layout.angular(s, i));
  // equality constraints: their rows, and their impulses on the bodies
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->residual(model, d, ws, scheme, s, k, F);
  if (!ws.reuse_rows3) ws.knot_unknowns = s.head(nbody);
  ws.reuse_rows3 = false;
  ws.knot_current = true;
  // inequalities: their impulses on the bodies, their kinematics at z3
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->residual(model, d, s, static_cast<int>(c), F);
}

void step_knot(const Model& model, Data& d, const Eigen::VectorXd& s) {
  Workspace& ws = workspace(d);
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);
  knot_poses(d, ws, s);
  ws.knot_current = false;  // (step_residual's knot is not this one)
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->knot(model, d, ws, scheme, k);
}

void step_jacobian(const Model& model, Data& d, const Eigen::VectorXd& s) {
  Workspace& ws = workspace(d);
  const SystemLayout& layout = ws.layout;
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);
  BlockLdu& A = ws.ldu;
  A.zero_fill();  // every other block is written whole below
  for (int i = 0; i < layout.bodies; ++i) A.diag(i) = scheme.body_jacobian(model, ws, i, layout.angular(s, i));
  scheme.begin_coupling(model, ws);  // the bodies' coupling through the joints, summed over joints below
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->jacobian(model, ws, scheme, s, k);
  // the inequalities' kinematic Jacobians, only here: the line search's trial points need their
  // gaps and rates alone (the joint rows keep theirs in the residual: computing values and
  // Jacobians in two passes repeats the frames' rotations and costs more than it saves); after
  // the joints', whose blocks the limits and friction on their rows read (joint_row_jacobian)
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->linearize(model, d, s, static_cast<int>(c));
  // bodies ← inequality impulses; the inequality rows themselves depend on the interior-point
  // variables and are filled by the interior point
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->impulse_jacobian(model, d, static_cast<int>(c));
}

}  // namespace maxsim
