#include "sim/step.hpp"

#include <algorithm>
#include <cmath>

#include "sim/body_dynamics.hpp"

namespace maxsim {

namespace {

// ω̄ needs |ω| < 2/Δt (DESIGN §3); keep a margin so s stays well away from zero.
bool velocities_admissible(int nb, const Eigen::VectorXd& s, double dt) {
  const double limit2 = 0.99 * 4.0 / (dt * dt);
  for (int i = 0; i < nb; ++i)
    if (!(s.segment<3>(6 * i + 3).squaredNorm() < limit2)) return false;
  return true;
}

// Newton-matrix block of a joint with respect to one body's unknowns: the row Jacobian at z3
// times ∂z3/∂(v, ω) = diag(Δt I, ∂θ3/∂ω); free rows enter through their damper only.
Mat6 joint_body_block(const Joint& jt, const Mat6& J3, const Vec3& w, double dt) {
  Mat6 M;
  M.leftCols<3>() = dt * J3.leftCols<3>();
  M.rightCols<3>() = J3.rightCols<3>() * dtheta3_domega(w, dt);
  for (int r = 0; r < 6; ++r)
    if (!jt.row_constrained(r)) M.row(r) *= jt.damping[r];
  return M;
}

}  // namespace

void step_prepare(const Model& model, Data& d) {
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &d.ws.rows2[j]);
  }
}

void step_residual(const Model& model, Data& d, const Eigen::VectorXd& s, Eigen::VectorXd* F) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = model.dt;
  auto& ws = d.ws;

  // bodies: next knot and discrete Euler–Lagrange residual (seed 003 eqs. 29a–b)
  for (int i = 0; i < nb; ++i) {
    const Vec3 v = s.segment<3>(6 * i), w = s.segment<3>(6 * i + 3);
    next_pose(d.x[i], d.q[i], v, w, dt, &ws.x3[i], &ws.q3[i]);
    F->segment<6>(6 * i) = body_residual(model.bodies[i], d.v[i], d.w[i], v, w, model.gravity,
                                          d.body_force[i], d.body_torque[i], dt);
  }

  // joints: constrained rows c(z3) = 0 (seed 003 eq. 29c); free rows balance the row impulse
  // against damper (implicit), spring (at z2, a potential) and actuation
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    const int o = 6 * (nb + static_cast<int>(j));
    const Pose a = jt.parent == kWorld ? Pose{} : Pose{ws.x3[jt.parent], ws.q3[jt.parent]};
    joint_rows(jt, a, Pose{ws.x3[jt.child], ws.q3[jt.child]}, &ws.rows3[j]);
    const JointRows& r2 = ws.rows2[j];
    const JointRows& r3 = ws.rows3[j];
    const Vec6 u = s.segment<6>(o);
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r)) {
        (*F)(o + r) = r3.c(r);
      } else {
        const double dc = r < 3 ? r3.c(r) - r2.c(r) : wrap_angle(r3.c(r) - r2.c(r));
        const double coord = r < 3 ? r2.c(r) : d.joint_angle[j](r - 3);
        (*F)(o + r) = u(r) + jt.damping[r] * dc + dt * jt.stiffness[r] * (coord - jt.spring_ref[r]) -
                      dt * d.joint_force[j](r);
      }
    }
    // the row impulses act on the bodies through the maps at z2 (seed 003 eq. 29a–b)
    if (jt.parent != kWorld) F->segment<6>(6 * jt.parent).noalias() -= r2.Ja.transpose() * u;
    F->segment<6>(6 * jt.child).noalias() -= r2.Jb.transpose() * u;
  }
}

void step_jacobian(const Model& model, Data& d, const Eigen::VectorXd& s) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = model.dt;
  auto& ws = d.ws;
  BlockLdu& A = ws.ldu;
  A.set_zero();
  for (int i = 0; i < nb; ++i) A.diag(i) = body_jacobian(model.bodies[i], s.segment<3>(6 * i + 3), dt);

  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    // constrained rows: zero diagonal (the LDU regularizes a pivot made singular by redundant
    // constraints, see BlockLdu::set_regularized_rows); free rows: the row impulse itself
    Block& D = A.diag(nb + static_cast<int>(j));
    for (int r = 0; r < 6; ++r) D(r, r) = jt.row_constrained(r) ? 0.0 : 1.0;
    const int c = jt.child;
    A.block(A.upper_id(ws.child_edge[j])) = joint_body_block(jt, ws.rows3[j].Jb, s.segment<3>(6 * c + 3), dt);
    A.block(A.lower_id(ws.child_edge[j])) = -ws.rows2[j].Jb.transpose();
    if (jt.parent != kWorld) {
      const int p = jt.parent;
      A.block(A.upper_id(ws.parent_edge[j])) = joint_body_block(jt, ws.rows3[j].Ja, s.segment<3>(6 * p + 3), dt);
      A.block(A.lower_id(ws.parent_edge[j])) = -ws.rows2[j].Ja.transpose();
    }
  }
}

StepReport step(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  const double dt = model.dt;
  auto& ws = d.ws;
  Eigen::VectorXd& s = ws.unknowns;
  Eigen::VectorXd& F = ws.residual;
  StepReport rep;

  // knot quantities of z2
  step_prepare(model, d);

  // warm start: the previous velocities and row impulses
  for (int i = 0; i < nb; ++i) {
    s.segment<3>(6 * i) = d.v[i];
    s.segment<3>(6 * i + 3) = d.w[i];
  }
  for (int j = 0; j < nj; ++j) s.segment<6>(6 * (nb + j)) = d.joint_impulse[j];
  step_residual(model, d, s, &F);

  // Convergence: constraint rows (m, rad) to the tolerance itself; momentum and free rows (N·s)
  // to the tolerance relative to the step's impulse scale, since round-off in a long chain's
  // momentum balance grows with the impulses it carries (a 200-link chain: ~20 N·s).
  double impulse_scale = 1.0;
  for (int i = 0; i < nb; ++i)
    impulse_scale = std::max(impulse_scale, model.bodies[i].mass * (d.v[i].norm() + dt * model.gravity.norm()));
  for (int j = 0; j < nj; ++j) impulse_scale = std::max(impulse_scale, d.joint_impulse[j].lpNorm<Eigen::Infinity>());
  auto converged = [&](const Eigen::VectorXd& r) {
    const double tol_impulse = d.solver.tolerance * impulse_scale;
    for (int i = 0; i < 6 * nb; ++i)
      if (!(std::abs(r(i)) < tol_impulse)) return false;
    for (int j = 0; j < nj; ++j)
      for (int k = 0; k < 6; ++k) {
        const double tol = model.joints[j].row_constrained(k) ? d.solver.tolerance : tol_impulse;
        if (!(std::abs(r(6 * (nb + j) + k)) < tol)) return false;
      }
    return true;
  };

  // Newton's method with a backtracking line search on ‖F‖₂
  bool rows_at_s = true;  // ws.x3/q3/rows3 were last evaluated at s
  for (rep.iterations = 0;; ++rep.iterations) {
    rep.residual = F.lpNorm<Eigen::Infinity>();
    if (!std::isfinite(rep.residual)) {
      rep.status = StepStatus::Failed;
      break;
    }
    if (converged(F)) break;
    if (rep.iterations == d.solver.max_iterations) {
      rep.status = StepStatus::NotConverged;
      break;
    }
    if (!rows_at_s) step_residual(model, d, s, &F);
    step_jacobian(model, d, s);
    if (!ws.ldu.factor()) {
      rep.status = StepStatus::Failed;
      break;
    }
    ws.delta = -F;
    ws.ldu.solve(ws.delta);
    if (!ws.delta.allFinite()) {
      rep.status = StepStatus::Failed;
      break;
    }
    const double f0 = F.norm();
    double alpha = 1.0;
    bool accepted = false;
    for (int ls = 0; ls <= d.solver.line_search_steps && !accepted; ++ls, alpha *= 0.5) {
      ws.trial = s + alpha * ws.delta;
      if (!velocities_admissible(nb, ws.trial, dt)) continue;
      step_residual(model, d, ws.trial, &ws.trial_residual);
      rows_at_s = false;
      const double f1 = ws.trial_residual.norm();
      accepted = std::isfinite(f1) && f1 < (1.0 - 1e-4 * alpha) * f0;
    }
    if (!accepted) {
      rep.status = StepStatus::NotConverged;
      break;
    }
    s.swap(ws.trial);
    F.swap(ws.trial_residual);
    rows_at_s = true;
  }
  d.report = rep;
  if (rep.status == StepStatus::Failed) return rep;
  if (!rows_at_s) step_residual(model, d, s, &F);

  // update: z3 becomes the current knot, (v, ω) over [t2, t3] the current velocities
  for (int i = 0; i < nb; ++i) {
    d.x[i] = ws.x3[i];
    d.q[i] = ws.q3[i];
    d.v[i] = s.segment<3>(6 * i);
    d.w[i] = s.segment<3>(6 * i + 3);
  }
  for (int j = 0; j < nj; ++j) {
    d.joint_impulse[j] = s.segment<6>(6 * (nb + j));
    for (int k = 0; k < 3; ++k)
      d.joint_angle[j](k) += wrap_angle(ws.rows3[j].c(3 + k) - ws.rows2[j].c(3 + k));
  }
  d.time += dt;
  return rep;
}

}  // namespace maxsim
