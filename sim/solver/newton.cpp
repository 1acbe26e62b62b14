// Newton's method with a backtracking line search on ‖F‖₂, for steps without inequalities, and
// the convergence tests both solvers share.
#include <algorithm>
#include <cmath>

#include "sim/constraints/equality.hpp"
#include "sim/solver/assemble.hpp"
#include "sim/solver/solve.hpp"
#include "sim/integrator/integrator.hpp"

namespace maxsim {

bool velocities_admissible(const Model& model, const Data& d, const Eigen::VectorXd& s, double dt) {
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);
  for (int i = 0; i < static_cast<int>(model.bodies.size()); ++i)
    if (!(SystemLayout::angular(s, i).squaredNorm() < scheme.admissible_rate2(d.w[i], dt))) return false;
  return true;
}

bool EqualityTest::operator()(const Eigen::VectorXd& r) const {
  for (int i = 0; i < layout->bodies; ++i)
    for (int k = 0; k < 6; ++k)
      if (!(std::abs(layout->body(r, i)(k)) < tol_impulse)) return false;
  for (const EqualityKind* kind : equality_kinds())
    for (int c = 0; c < kind->count(*model); ++c)
      for (int k = 0; k < 6; ++k) {
        const RowKind row = kind->row_kind(*model, c, k);
        if (row == RowKind::Padding) continue;
        const double tol = row == RowKind::Position ? tol_position : tol_impulse;
        if (!(std::abs(layout->node(r, kind->node(*layout, c))(k)) < tol)) return false;
      }
  return true;
}

EqualityTest equality_test(const Model& model, const Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  const Workspace& ws = workspace(d);
  double scale = 1.0;
  for (int i = 0; i < nb; ++i)
    scale = std::max(scale, model.bodies[i].mass * (d.v[i].norm() + ws.dt * model.opt.gravity.norm()));
  for (int j = 0; j < nj; ++j) scale = std::max(scale, d.joint_impulse[j].lpNorm<Eigen::Infinity>());
  // a row's armature carries momentum as a body does, its rotor's at the step's start; the rows
  // it enters have their round-off floor relative to it (docs/computation.md (54))
  for (int j = 0; j < nj; ++j)
    for (int r = 0; r < 6; ++r)
      if (model.joints[j].armature[r] > 0)
        scale = std::max(scale, model.joints[j].armature[r] * std::abs(ws.joint_rate2[j](r)));
  for (size_t t = 0; t < model.tendons.size(); ++t)
    if (model.tendons[t].armature > 0)
      scale = std::max(scale, model.tendons[t].armature * std::abs(ws.tendon_rate2[t]));
  return EqualityTest{model.opt.solver.tolerance * scale, model.opt.solver.tolerance, &ws.layout, &model};
}

StepReport solve_newton(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = workspace(d).dt;
  Workspace& ws = workspace(d);
  Eigen::VectorXd& s = ws.unknowns;
  Eigen::VectorXd& F = ws.residual;
  const EqualityTest converged = equality_test(model, d);
  EqualityTest stalled = converged;
  stalled.tol_impulse *= model.opt.solver.stall_factor;
  StepReport rep;
  step_residual(model, d, s, &F);
  bool rows_at_s = true;  // ws.x3/q3/rows3 were last evaluated at s
  for (rep.iterations = 0;; ++rep.iterations) {
    rep.residual = F.lpNorm<Eigen::Infinity>();
    if (!std::isfinite(rep.residual)) {
      rep.status = StepStatus::Failed;
      break;
    }
    if (converged(F)) break;
    if (rep.iterations == model.opt.solver.max_iterations) {
      rep.status = StepStatus::NotConverged;
      break;
    }
    if (!rows_at_s) step_residual(model, d, s, &F);
    step_jacobian(model, d, s);
    if (!ws.ldu.factor()) {
      if (stalled(F)) break;  // at the round-off floor already (as in the interior point)
      rep.status = StepStatus::Failed;
      break;
    }
    ws.delta = -F;
    ws.ldu.solve(ws.delta, model.opt.solver.refinement_sweeps);
    if (!ws.delta.allFinite()) {
      rep.status = StepStatus::Failed;
      break;
    }
    const double f0 = F.norm();
    double alpha = 1.0;
    // a trust region on the bodies' rotation per iteration, where the integrator sets one
    const double turn_limit = integrator_scheme(model.opt.integrator).newton_turn_limit();
    if (std::isfinite(turn_limit)) {
      double turn = 0;
      for (int i = 0; i < nb; ++i) turn = std::max(turn, dt * SystemLayout::angular(ws.delta, i).norm());
      if (turn > turn_limit) alpha = turn_limit / turn;
    }
    bool accepted = false;
    for (int ls = 0; ls <= model.opt.solver.line_search_steps && !accepted; ++ls, alpha *= 0.5) {
      ws.trial = s + alpha * ws.delta;
      if (!velocities_admissible(model, d, ws.trial, dt)) continue;
      step_residual(model, d, ws.trial, &ws.trial_residual);
      rows_at_s = false;
      const double f1 = ws.trial_residual.norm();
      accepted = std::isfinite(f1) && f1 < (1.0 - 1e-4 * alpha) * f0;
    }
    if (!accepted) {
      // no better point along Newton's direction: at the round-off floor this is convergence
      if (!stalled(F)) rep.status = StepStatus::NotConverged;
      break;
    }
    s.swap(ws.trial);
    F.swap(ws.trial_residual);
    rows_at_s = true;
  }
  if (rep.status != StepStatus::Failed && !rows_at_s) step_residual(model, d, s, &F);
  return rep;
}

}  // namespace maxsim
