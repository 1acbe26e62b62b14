#include "sim/step.hpp"

#include <algorithm>
#include <cmath>

#include "sim/body_dynamics.hpp"
#include "sim/joint_limits.hpp"

namespace maxsim {

namespace {

// ω̄ needs |ω| < 2/Δt (DESIGN §3); keep a margin so s stays well away from zero.
bool velocities_admissible(int nb, const Eigen::VectorXd& s, double dt) {
  const double limit2 = 0.99 * 4.0 / (dt * dt);
  for (int i = 0; i < nb; ++i)
    if (!(s.segment<3>(6 * i + 3).squaredNorm() < limit2)) return false;
  return true;
}

// A joint's row Jacobian at z3 with respect to one body's unknowns: times ∂z3/∂(v, ω) = diag(Δt I, ∂θ3/∂ω).
Mat6 joint_body_block_unscaled(const Mat6& J3, const Vec3& w, double dt) {
  Mat6 M;
  M.leftCols<3>() = dt * J3.leftCols<3>();
  M.rightCols<3>() = J3.rightCols<3>() * dtheta3_domega(w, dt);
  return M;
}

// Newton-matrix block of a joint with respect to one body's unknowns; free rows enter through
// their damper only.
Mat6 joint_body_block(const Joint& jt, const Mat6& J3, const Vec3& w, double dt) {
  Mat6 M = joint_body_block_unscaled(J3, w, dt);
  for (int r = 0; r < 6; ++r)
    if (!jt.row_constrained(r)) M.row(r) *= jt.damping[r] + jt.armature[r] / dt;
  return M;
}

}  // namespace

void step_prepare(const Model& model, Data& d) {
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    JointRows& r2 = d.ws.rows2[j];
    const Pose a = body_pose(d, jt.parent), b = body_pose(d, jt.child);
    // three free rotations are measured from this knot (see joint_rows): z2 reads 0 on them
    const Vec4 reference = joint_relative_rotation(jt, a.q, b.q);
    joint_rows(jt, a, b, &r2, &reference);
    // row rates over [t1, t2] (the armature's previous rate)
    Vec6 rate = r2.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += r2.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    d.ws.joint_rate2[j] = rate;
  }
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    if (is_joint_friction(ct)) continue;  // acts through its joint's row impulse
    if (ct.joint >= 0) {  // limits (γ) push along the joint row's own map
      const JointRows& r2 = d.ws.rows2[ct.joint];
      const int col = has_normal(ct) ? 0 : 1;
      d.ws.contact_map_b[c].setZero();
      d.ws.contact_map_b[c].col(col) = -ct.side * r2.Jb.row(ct.row).transpose();
      d.ws.contact_map_a[c].setZero();
      d.ws.contact_map_a[c].col(col) = -ct.side * r2.Ja.row(ct.row).transpose();
      continue;
    }
    d.ws.contact_map_b[c] = contact_impulse_map(ct, d.q[ct.body_b], true);
    if (ct.body_a != kWorld) d.ws.contact_map_a[c] = contact_impulse_map(ct, d.q[ct.body_a], false);
  }
}

void step_residual(const Model& model, Data& d, const Eigen::VectorXd& s, Eigen::VectorXd* F) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = d.ws.dt;
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
    joint_rows(jt, a, Pose{ws.x3[jt.child], ws.q3[jt.child]}, &ws.rows3[j], &ws.rows2[j].q_rel);
    const JointRows& r2 = ws.rows2[j];
    const JointRows& r3 = ws.rows3[j];
    const Vec6 u = s.segment<6>(o);
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r)) {
        (*F)(o + r) = r3.c(r);
      } else {
        const double dc = r < 3 ? r3.c(r) - r2.c(r) : wrap_angle(r3.c(r) - r2.c(r));
        const double coord = r < 3 ? r2.c(r) : d.joint_angle[j](r - 3);
        // armature: reflected rotor inertia on the row, a·(rate over [t2,t3] − rate over [t1,t2])
        (*F)(o + r) = u(r) + jt.damping[r] * dc + jt.armature[r] * (dc / dt - ws.joint_rate2[j](r)) +
                      dt * jt.stiffness[r] * (coord - jt.spring_ref[r]) - dt * d.joint_force[j](r);
      }
    }
    // the row impulses act on the bodies through the maps at z2 (seed 003 eq. 29a–b)
    if (jt.parent != kWorld) F->segment<6>(6 * jt.parent).noalias() -= r2.Ja.transpose() * u;
    F->segment<6>(6 * jt.child).noalias() -= r2.Jb.transpose() * u;
  }

  // contacts: their normal and friction impulses act on the bodies (maps at z2); the gap and
  // tangential velocity at z3 are what the interior point balances against its slacks
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    const int node = ws.contact_node[c];
    if (node < 0) {
      // joint friction: the joint's row unknown is the row's whole impulse, friction included,
      // so its row balances the friction impulse b1 (the contact's, not an unknown of s)
      (*F)(6 * (nb + ct.joint) + ct.row) -= ct.side * ct.b(0);
    } else {
      const int o = 6 * node;
      Vec3 impulse = s.segment<3>(o);  // (γ, b1, b2)
      if (ct.linear_cone) impulse << s(o), pyramid_impulse(s.segment<4>(o + 1));  // (γ, Σ β_i d_i)
      F->segment<6>(o).setZero();
      F->segment<6>(6 * ct.body_b).noalias() += ws.contact_map_b[c] * impulse;
      if (ct.body_a != kWorld) F->segment<6>(6 * ct.body_a).noalias() += ws.contact_map_a[c] * impulse;
    }
    Pose a2, a3;
    Vec3 wa = Vec3::Zero();
    if (ct.body_a != kWorld) {
      a2 = body_pose(d, ct.body_a);
      a3 = Pose{ws.x3[ct.body_a], ws.q3[ct.body_a]};
      wa = s.segment<3>(6 * ct.body_a + 3);
    }
    if (ct.joint >= 0) {  // joint limit: the row's coordinate at z3 (unwrapped for rotations)
      const JointRows& r2 = ws.rows2[ct.joint];
      const JointRows& r3 = ws.rows3[ct.joint];
      const Joint& jt = model.joints[ct.joint];
      const int r = ct.row;
      const double coord = r < 3 ? r3.c(r) : d.joint_angle[ct.joint](r - 3) + wrap_angle(r3.c(r) - r2.c(r));
      ContactKinematics& k = ws.contact_kin[c];
      k = ContactKinematics{};
      const Mat6 Jb = joint_body_block_unscaled(r3.Jb, s.segment<3>(6 * jt.child + 3), dt);
      if (has_normal(ct)) {  // limit: the gap to the bound
        k.phi = ct.side * (coord - ct.bound);
        k.Jphi_b = ct.side * Jb.row(r);
        if (jt.parent != kWorld) k.Jphi_a = ct.side * joint_body_block_unscaled(r3.Ja, wa, dt).row(r);
      } else {  // dry friction: the row rate over the step is the cone's dual
        k.vt(0) = (r < 3 ? r3.c(r) - r2.c(r) : wrap_angle(r3.c(r) - r2.c(r))) / dt;
        k.Jvt_b.row(0) = Jb.row(r) / dt;
        if (jt.parent != kWorld) k.Jvt_a.row(0) = joint_body_block_unscaled(r3.Ja, wa, dt).row(r) / dt;
      }
      continue;
    }
    contact_kinematics(ct, a2, body_pose(d, ct.body_b), a3, Pose{ws.x3[ct.body_b], ws.q3[ct.body_b]}, wa,
                       s.segment<3>(6 * ct.body_b + 3), dt, &ws.contact_kin[c]);
  }
}

void step_jacobian(const Model& model, Data& d, const Eigen::VectorXd& s) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = d.ws.dt;
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
  // bodies ← contact impulses (γ, b1, b2); the contact rows themselves depend on the
  // interior-point variables and are filled by the contact solve
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    if (ws.contact_node[c] < 0) continue;  // joint friction: filled by contact_jacobian
    if (d.contacts[c].linear_cone) {  // unknowns (γ, β1..β4, ψ): (γ, b) = P (γ, β, ψ), the
                                      // derivative of (γ, pyramid_impulse(β))
      Eigen::Matrix<double, 3, 6> P;
      P << 1, 0, 0, 0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1, 0, -1, 0;
      A.block(A.lower_id(ws.contact_edge_b[c])) = ws.contact_map_b[c] * P;
      if (ws.contact_edge_a[c] >= 0) A.block(A.lower_id(ws.contact_edge_a[c])) = ws.contact_map_a[c] * P;
      continue;
    }
    A.block(A.lower_id(ws.contact_edge_b[c])).leftCols<3>() = ws.contact_map_b[c];
    if (ws.contact_edge_a[c] >= 0) A.block(A.lower_id(ws.contact_edge_a[c])).leftCols<3>() = ws.contact_map_a[c];
  }
}

namespace {

// Convergence of the equality rows: constraint rows (m, rad) to the tolerance itself; momentum
// and free rows (N·s) to the tolerance relative to the step's impulse scale, since round-off in a
// long chain's momentum balance grows with the impulses it carries (a 200-link chain: ~20 N·s).
struct EqualityTest {
  double tol_impulse, tol_position;
  int nb, nj;
  const Model* model;
  bool operator()(const Eigen::VectorXd& r) const {
    for (int i = 0; i < 6 * nb; ++i)
      if (!(std::abs(r(i)) < tol_impulse)) return false;
    for (int j = 0; j < nj; ++j)
      for (int k = 0; k < 6; ++k) {
        const double tol = model->joints[j].row_constrained(k) ? tol_position : tol_impulse;
        if (!(std::abs(r(6 * (nb + j) + k)) < tol)) return false;
      }
    return true;
  }
};

EqualityTest equality_test(const Model& model, const Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  double scale = 1.0;
  for (int i = 0; i < nb; ++i)
    scale = std::max(scale, model.bodies[i].mass * (d.v[i].norm() + d.ws.dt * model.gravity.norm()));
  for (int j = 0; j < nj; ++j) scale = std::max(scale, d.joint_impulse[j].lpNorm<Eigen::Infinity>());
  return EqualityTest{d.solver.tolerance * scale, d.solver.tolerance, nb, nj, &model};
}

// Newton's method with a backtracking line search on ‖F‖₂ (no inequalities in the step).
StepReport solve_newton(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = d.ws.dt;
  auto& ws = d.ws;
  Eigen::VectorXd& s = ws.unknowns;
  Eigen::VectorXd& F = ws.residual;
  const EqualityTest converged = equality_test(model, d);
  EqualityTest stalled = converged;
  stalled.tol_impulse *= d.solver.stall_factor;
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
    if (rep.iterations == d.solver.max_iterations) {
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
    ws.ldu.solve(ws.delta, d.solver.refinement_sweeps);
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

// ---- interior point (steps with contacts; DESIGN §6, Mehrotra predictor–corrector) ----------

// Whether contact c of this step continues contact c of the last one (same pair, same joint row
// or witness point within 1 mm), so its impulse is a good first guess.
bool persisting_contact(const std::vector<Contact>& previous, size_t c, const Contact& now) {
  if (c >= previous.size()) return false;
  const Contact& p = previous[c];
  return p.body_a == now.body_a && p.body_b == now.body_b && p.joint == now.joint && p.row == now.row &&
         p.side == now.side && (p.point_b - now.point_b).norm() < 1e-3;
}

// Per-contact quantities of the current iterate (the eliminated slack s and η_t live in Contact).
struct ContactResiduals {
  double r_s;   // s − φ(z3)
  Vec2 r_eta;   // η_t − v_t(z3)
  Eigen::Vector4d r_lin = Eigen::Vector4d::Zero();  // linearized cone: η_i − (ψ + d_iᵀ v_t(z3))
};

ContactResiduals contact_residuals(const Contact& c, const ContactKinematics& k) {
  if (c.linear_cone) {
    ContactResiduals r{c.slack - k.phi, Vec2::Zero()};
    for (int i = 0; i < 4; ++i) r.r_lin(i) = c.lin_eta(i) - c.lin_psi - pyramid_direction(i).dot(k.vt);
    return r;
  }
  return {c.slack - k.phi, c.eta.tail<2>() - k.vt};
}

// Norm of a contact's friction-dual residual (velocity units): the cone's η_t − v_t or the
// pyramid's η_i − ψ − d_iᵀ v_t.
double friction_residual_norm(const Contact& c, const ContactResiduals& r) {
  return c.linear_cone ? r.r_lin.norm() : r.r_eta.norm();
}

Vec3 friction_beta(const Contact& c, double gamma, const Vec2& b) {
  return Vec3(c.dry_limit > 0 ? c.dry_limit : c.friction * gamma, b(0), b(1));
}

// Average complementarity μ = (Σ γ s + Σ βᵀη) / ν over the orthant pairs and friction cones.
double complementarity_mean(const std::vector<Contact>& cs) {
  double sum = 0;
  int n = 0;
  for (const Contact& c : cs) {
    if (has_normal(c)) {
      sum += c.gamma * c.slack;
      ++n;
    }
    if (c.linear_cone) {
      sum += c.lin_beta.dot(c.lin_eta) + c.lin_psi * pyramid_zeta(c);
      n += 5;
    } else if (has_cone(c)) {
      sum += friction_beta(c, c.gamma, c.b).dot(c.eta);
      ++n;
    }
  }
  return n > 0 ? sum / n : 0.0;
}

double complementarity_max(const std::vector<Contact>& cs) {
  double m = 0;
  for (const Contact& c : cs) {
    if (has_normal(c)) m = std::max(m, std::abs(c.gamma * c.slack));
    if (c.linear_cone) {
      m = std::max(m, c.lin_beta.cwiseProduct(c.lin_eta).cwiseAbs().maxCoeff());
      m = std::max(m, std::abs(c.lin_psi * pyramid_zeta(c)));
    } else if (has_cone(c)) {
      m = std::max(m, cone_product(friction_beta(c, c.gamma, c.b), c.eta).lpNorm<Eigen::Infinity>());
    }
  }
  return m;
}

// Coefficients of Δβ and Δη in the linearized complementarity of a contact's cone: the
// Nesterov–Todd form Arw(λ)W⁻¹, Arw(λ)W (seed 003 eq. 29 with symmetric scaling; see
// cone_nt_scaling), or the unscaled Arw(η), Arw(β) if the pair is not strictly inside.
void cone_linearization(const Contact& ct, ConeLinearization* out) {
  const Vec3 beta = friction_beta(ct, ct.gamma, ct.b);
  out->scaled = cone_nt_scaling(beta, ct.eta, &out->nt);
  if (out->scaled) {
    const Mat3 arrow = cone_arrow(out->nt.lambda);
    out->coef_beta = arrow * out->nt.W_inv;
    out->coef_eta = arrow * out->nt.W;
  } else {
    out->coef_beta = cone_arrow(ct.eta);
    out->coef_eta = cone_arrow(beta);
  }
}

// Fills the contact rows of the Newton matrix: C1 (γ s = κ) and C2 (β∘η = κ e) linearized with
// Δs = Jφ Δν − r_s and Δη_t = J_vt Δν − r_η substituted; unknowns (γ, b1, b2, η0) — or, for
// the linearized cone, (γ, β1..β4, ψ). Stores each cone's linearization for contact_rhs.
void contact_jacobian(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  auto& ws = d.ws;
  BlockLdu& A = ws.ldu;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    const ContactKinematics& k = ws.contact_kin[c];
    if (ws.contact_node[c] < 0) {
      // Joint friction, eliminated into its joint's row. Its cone rows D3 (Δb1, Δb2, Δη0) +
      // E J_vt Δν = rhs give Δb = offset − gain·Δv_t with gain = D3⁻¹E (E's first column: the
      // row rate is the only tangential velocity). The row U − side·b1 + damper(Δc) = 0 then
      // reads ΔU + side·gain₀ Δv_t + ... = −F + side·offset₀: the friction is a damper of
      // conductance gain₀ (> 0: for NT scaling it is a Schur complement of W², positive).
      ConeLinearization& lin = ws.cone_lin[c];
      cone_linearization(ct, &lin);
      Mat3 D3;
      D3 << lin.coef_beta.col(1), lin.coef_beta.col(2), lin.coef_eta.col(0);
      // (the columns' scales differ by W²: column scaling, which the cofactor inverse carries
      // exactly into the rows of D3⁻¹)
      ws.fold_inverse[c] = D3.inverse();
      ws.fold_gain[c] = ws.fold_inverse[c] * lin.coef_eta.col(1);
      const Joint& jt = model.joints[ct.joint];
      const int r = ct.row;
      const double g = ct.side * ws.fold_gain[c](0);
      // A sticking joint has a huge conductance: the row is then divided by 1 + its damping,
      // becoming a constrained row with a small compliance on the diagonal (same solution; a
      // well-scaled pivot — unscaled, the Newton steps stalled at ~1e-8 on the A1).
      const double scale = 1.0 / (1.0 + jt.damping[r] + jt.armature[r] / ws.dt + g / ws.dt);
      ws.fold_row_scale[c] = scale;
      A.diag(nb + ct.joint)(r, r) *= scale;
      Block& child = A.block(A.upper_id(ws.child_edge[ct.joint]));
      child.row(r) = scale * (child.row(r) + g * k.Jvt_b.row(0));
      if (jt.parent != kWorld) {
        Block& parent = A.block(A.upper_id(ws.parent_edge[ct.joint]));
        parent.row(r) = scale * (parent.row(r) + g * k.Jvt_a.row(0));
      }
      continue;
    }
    Block& D = A.diag(ws.contact_node[c]);
    if (ct.linear_cone) {
      // rows: γ s = κ; β_i η_i = κ with Δη_i = Δψ + d_iᵀ J_vt Δν − r_i; ψ ζ = κ with
      // Δζ = μ Δγ − Σ Δβ_i; unknowns (γ, β1..β4, ψ)
      Mat6 rb = Mat6::Zero(), ra = Mat6::Zero();
      D.setZero();
      D(0, 0) = ct.slack;
      rb.row(0) = ct.gamma * k.Jphi_b;
      ra.row(0) = ct.gamma * k.Jphi_a;
      const double zeta = pyramid_zeta(ct);
      for (int i = 0; i < 4; ++i) {
        const Vec2 di = pyramid_direction(i);
        D(1 + i, 1 + i) = ct.lin_eta(i);
        D(1 + i, 5) = ct.lin_beta(i);
        rb.row(1 + i) = ct.lin_beta(i) * di.transpose() * k.Jvt_b;
        ra.row(1 + i) = ct.lin_beta(i) * di.transpose() * k.Jvt_a;
        D(5, 1 + i) = -ct.lin_psi;
      }
      D(5, 0) = ct.lin_psi * ct.friction;
      D(5, 5) = zeta;
      A.block(A.upper_id(ws.contact_edge_b[c])) = rb;
      if (ws.contact_edge_a[c] >= 0) A.block(A.upper_id(ws.contact_edge_a[c])) = ra;
      continue;
    }
    D.setIdentity();
    Eigen::Matrix<double, 4, 6> rows_b = Eigen::Matrix<double, 4, 6>::Zero(), rows_a = rows_b;
    if (has_normal(ct)) {  // (dry friction: an identity row keeps the unused γ at zero)
      D(0, 0) = ct.slack;
      rows_b.row(0) = ct.gamma * k.Jphi_b;
      rows_a.row(0) = ct.gamma * k.Jphi_a;
    }
    if (has_cone(ct)) {
      ConeLinearization& lin = ws.cone_lin[c];
      cone_linearization(ct, &lin);
      D.block<3, 1>(1, 0) = cone_slope(ct) * lin.coef_beta.col(0);
      D.block<3, 2>(1, 1) = lin.coef_beta.rightCols<2>();
      D.block<3, 1>(1, 3) = lin.coef_eta.col(0);
      rows_b.bottomRows<3>() = lin.coef_eta.rightCols<2>() * k.Jvt_b;
      rows_a.bottomRows<3>() = lin.coef_eta.rightCols<2>() * k.Jvt_a;
    }
    A.block(A.upper_id(ws.contact_edge_b[c])).topRows<4>() = rows_b;
    if (ws.contact_edge_a[c] >= 0) A.block(A.upper_id(ws.contact_edge_a[c])).topRows<4>() = rows_a;
  }
}

// Right-hand side of the contact rows for target κ with second-order terms (Mehrotra corrector).
// (Δγa, Δsa, Δβa, Δηa) are zero for the predictor.
void contact_rhs(const Model& model, Data& d, double kappa, const std::vector<Vec6>* affine,
                 Eigen::VectorXd* rhs) {
  const int nb = static_cast<int>(model.bodies.size());
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    const ContactResiduals r = contact_residuals(ct, d.ws.contact_kin[c]);
    const int node = d.ws.contact_node[c];
    Vec6 out = Vec6::Zero();  // the contact's rows (joint friction: before its elimination)
    if (ct.linear_cone) {  // affine steps: [2c] = (Δγ, Δβ1..Δβ4, Δψ), [2c+1] = (Δs, Δη1..Δη4, ·)
      Vec6 a = Vec6::Zero(), e = Vec6::Zero();
      if (affine != nullptr) {
        a = (*affine)[2 * c];
        e = (*affine)[2 * c + 1];
      }
      out(0) = -(ct.gamma * ct.slack + a(0) * e(0) - kappa) + ct.gamma * r.r_s;
      for (int i = 0; i < 4; ++i)
        out(1 + i) = -(ct.lin_beta(i) * ct.lin_eta(i) + a(1 + i) * e(1 + i) - kappa) + ct.lin_beta(i) * r.r_lin(i);
      const double dzeta = ct.friction * a(0) - a.segment<4>(1).sum();
      out(5) = -(ct.lin_psi * pyramid_zeta(ct) + a(5) * dzeta - kappa);
      rhs->segment<6>(6 * node) = out;
      continue;
    }
    // affine steps (recover_eliminated): [2c] = (Δγ, Δb1, Δb2, Δη0, Δs, ·), [2c+1] = (Δη_t, ·)
    double second_c1 = 0;
    Vec3 dbeta_aff = Vec3::Zero(), deta_aff = Vec3::Zero();
    if (affine != nullptr) {
      const Vec6& a = (*affine)[2 * c];
      const Vec6& e = (*affine)[2 * c + 1];  // (Δη_t1, Δη_t2, ...)
      second_c1 = a(0) * a(4);
      dbeta_aff = Vec3(cone_slope(ct) * a(0), a(1), a(2));
      deta_aff = Vec3(a(3), e(0), e(1));
    }
    if (has_normal(ct)) out(0) = -(ct.gamma * ct.slack + second_c1 - kappa) + ct.gamma * r.r_s;
    if (has_cone(ct)) {
      const ConeLinearization& lin = d.ws.cone_lin[c];  // (from contact_jacobian, same iterate)
      const ConeScaling& nt = lin.nt;
      const Vec3 e0(1, 0, 0);
      // λ∘λ and the corrector (W⁻¹Δβ_aff)∘(WΔη_aff) in the scaled form; β∘η and Δβ_aff∘Δη_aff
      // in the unscaled one
      const Vec3 product = lin.scaled ? cone_product(nt.lambda, nt.lambda)
                                      : cone_product(friction_beta(ct, ct.gamma, ct.b), ct.eta);
      const Vec3 second = lin.scaled ? cone_product(nt.W_inv * dbeta_aff, nt.W * deta_aff)
                                     : cone_product(dbeta_aff, deta_aff);
      out.segment<3>(1) = -(product + second - kappa * e0) + lin.coef_eta.rightCols<2>() * r.r_eta;
    }
    if (node >= 0) {
      rhs->segment<6>(6 * node) = out;
    } else {
      d.ws.fold_offset[c] = d.ws.fold_inverse[c] * out.segment<3>(1);
      double& row = (*rhs)(6 * (nb + ct.joint) + ct.row);
      row = d.ws.fold_row_scale[c] * (row + ct.side * d.ws.fold_offset[c](0));
    }
  }
}

// The eliminated variables' steps from the solved Δν: Δs = Jφ Δν − r_s, Δη_t = J_vt Δν − r_η.
// (Δη_t, 0, 0, 0, 0). Not a comma initializer: GCC 12 with AVX reports a false out-of-bounds
// read of the Vec2 inside Eigen's runtime-sized block copy.
void set_friction_dual_step(const Vec2& deta, Vec6* e) {
  e->head<2>() = deta;
  e->tail<4>().setZero();
}

void recover_eliminated(const Data& d, const Eigen::VectorXd& delta, std::vector<Vec6>* out) {
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    const ContactKinematics& k = d.ws.contact_kin[c];
    const ContactResiduals r = contact_residuals(ct, k);
    const Vec6 dnu_b = delta.segment<6>(6 * ct.body_b);
    double ds = k.Jphi_b.dot(dnu_b) - r.r_s;
    Vec2 deta = k.Jvt_b * dnu_b - r.r_eta;
    if (ct.body_a != kWorld) {
      const Vec6 dnu_a = delta.segment<6>(6 * ct.body_a);
      ds += k.Jphi_a.dot(dnu_a);
      deta += k.Jvt_a * dnu_a;
    }
    Vec6& a = (*out)[2 * c];
    const int node = d.ws.contact_node[c];
    if (node < 0) {  // joint friction: (Δb1, Δb2, Δη0) = offset − gain·Δv_t (see contact_jacobian)
      const double dvt = deta(0) + r.r_eta(0);
      a << 0, d.ws.fold_offset[c] - d.ws.fold_gain[c] * dvt, ds, 0;
      set_friction_dual_step(deta, &(*out)[2 * c + 1]);
      continue;
    }
    if (ct.linear_cone) {
      a = delta.segment<6>(6 * node);
      Vec6& e = (*out)[2 * c + 1];
      e(0) = ds;
      // (r_eta is zero for the pyramid, so deta = J_vt Δν): Δη_i = Δψ + d_iᵀ J_vt Δν − r_i
      for (int i = 0; i < 4; ++i) e(1 + i) = a(5) + pyramid_direction(i).dot(deta) - r.r_lin(i);
      e(5) = 0;
      continue;
    }
    a.head<4>() = delta.segment<4>(6 * node);
    a(4) = ds;
    a(5) = 0;
    set_friction_dual_step(deta, &(*out)[2 * c + 1]);
  }
}

// Largest step in [0, 1] keeping (γ, s) and the friction cones (β, η) feasible.
double max_feasible_step(const std::vector<Contact>& cs, const std::vector<Vec6>& steps) {
  double alpha = 1.0;
  for (size_t c = 0; c < cs.size(); ++c) {
    const Contact& ct = cs[c];
    const Vec6& a = steps[2 * c];
    const Vec6& e = steps[2 * c + 1];
    if (ct.linear_cone) {
      alpha = std::min(alpha, orthant_max_step(ct.gamma, a(0)));
      alpha = std::min(alpha, orthant_max_step(ct.slack, e(0)));
      for (int i = 0; i < 4; ++i) {
        alpha = std::min(alpha, orthant_max_step(ct.lin_beta(i), a(1 + i)));
        alpha = std::min(alpha, orthant_max_step(ct.lin_eta(i), e(1 + i)));
      }
      alpha = std::min(alpha, orthant_max_step(ct.lin_psi, a(5)));
      alpha = std::min(alpha, orthant_max_step(pyramid_zeta(ct), ct.friction * a(0) - a.segment<4>(1).sum()));
      continue;
    }
    if (has_normal(ct)) {
      alpha = std::min(alpha, orthant_max_step(ct.gamma, a(0)));
      alpha = std::min(alpha, orthant_max_step(ct.slack, a(4)));
    }
    if (has_cone(ct)) {
      alpha = std::min(alpha, cone_max_step(friction_beta(ct, ct.gamma, ct.b), Vec3(cone_slope(ct) * a(0), a(1), a(2))));
      alpha = std::min(alpha, cone_max_step(ct.eta, Vec3(a(3), e(0), e(1))));
    }
  }
  return alpha;
}

void apply_contact_step(std::vector<Contact>* cs, const std::vector<Vec6>& steps, double alpha) {
  for (size_t c = 0; c < cs->size(); ++c) {
    Contact& ct = (*cs)[c];
    const Vec6& a = steps[2 * c];
    const Vec6& e = steps[2 * c + 1];
    if (ct.linear_cone) {
      ct.gamma += alpha * a(0);
      ct.lin_beta += alpha * a.segment<4>(1);
      ct.lin_psi += alpha * a(5);
      ct.slack += alpha * e(0);
      ct.lin_eta += alpha * e.segment<4>(1);
      ct.b = pyramid_impulse(ct.lin_beta);
      continue;
    }
    ct.gamma += alpha * a(0);
    ct.b += alpha * a.segment<2>(1);
    ct.slack += alpha * a(4);
    if (has_cone(ct)) ct.eta += alpha * Vec3(a(3), e(0), e(1));
  }
}

StepReport solve_interior_point(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  const double dt = d.ws.dt;
  auto& ws = d.ws;
  const auto& opt = d.interior_point;
  Eigen::VectorXd& s = ws.unknowns;
  Eigen::VectorXd& F = ws.residual;
  const EqualityTest converged = equality_test(model, d);
  std::vector<Vec6>& affine = ws.contact_affine;
  std::vector<Vec6>& steps = ws.contact_steps;
  affine.resize(2 * d.contacts.size());
  steps.resize(2 * d.contacts.size());

  // start of the contact variables, strictly inside their cones, from the predicted gap; a
  // contact that persists from the last step (same pair, same point) starts from its impulse
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    const Vec3 impulse = persisting_contact(ws.previous_contacts, c, ct) && opt.warm_start
                             ? Vec3(ws.previous_contacts[c].gamma, ws.previous_contacts[c].b(0), ws.previous_contacts[c].b(1))
                             : Vec3(opt.initial_slack * std::max(1.0, model.gravity.norm() * dt), 0, 0);
    if (ws.contact_node[c] < 0) {  // joint friction: its impulse lives in the contact only
      ct.b = impulse.tail<2>();
      continue;
    }
    s.segment<3>(6 * ws.contact_node[c]) = impulse;
    s.segment<3>(6 * ws.contact_node[c] + 3).setZero();
    if (ct.linear_cone) {  // (γ, β1..β4, ψ): the pyramid starts from its last β if it persists
      const bool warm = persisting_contact(ws.previous_contacts, c, ct) && opt.warm_start;
      s.segment<6>(6 * ws.contact_node[c])
          << impulse(0), warm ? ws.previous_contacts[c].lin_beta : Eigen::Vector4d::Zero(), 0;
    }
  }
  step_residual(model, d, s, &F);
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    const ContactKinematics& k = ws.contact_kin[c];
    const int node = ws.contact_node[c];
    const int o = 6 * node;
    const bool warm = opt.warm_start && persisting_contact(ws.previous_contacts, c, ct);
    const double floor = warm ? opt.warm_slack : opt.initial_slack;
    ct.slack = has_normal(ct) ? std::max(k.phi, floor) : 1.0;
    ct.gamma = has_normal(ct) ? std::max(s(o), floor) : 0.0;  // (joint friction: no normal)
    if (ct.linear_cone) {  // strictly inside: β_i ≥ 5 % of μγ, ζ ≥ μγ/2, η_i ≥ ‖v_t‖∞ + s0
      const double mu_gamma = ct.friction * ct.gamma;
      ct.lin_beta = s.segment<4>(o + 1).cwiseMax(0.05 * mu_gamma);
      if (ct.lin_beta.sum() > 0.9 * mu_gamma) ct.lin_beta *= 0.5 * mu_gamma / ct.lin_beta.sum();
      ct.lin_psi = 2.0 * k.vt.lpNorm<Eigen::Infinity>() + opt.initial_slack;
      for (int i = 0; i < 4; ++i) ct.lin_eta(i) = ct.lin_psi + pyramid_direction(i).dot(k.vt);
      ct.b = pyramid_impulse(ct.lin_beta);
      s.segment<6>(o) << ct.gamma, ct.lin_beta, ct.lin_psi;
      continue;
    }
    if (node >= 0) ct.b = s.segment<2>(o + 1);
    const double radius = 0.9 * friction_beta(ct, ct.gamma, ct.b)(0);
    if (ct.b.norm() > radius) ct.b *= radius / ct.b.norm();
    ct.eta = Vec3(2.0 * k.vt.norm() + opt.initial_slack, k.vt(0), k.vt(1));  // well inside: a sliding start near the boundary jams
    if (node >= 0) s.segment<6>(o) << ct.gamma, ct.b, ct.eta(0), 0, 0;
  }

  // (factor > 1: the looser test of a stalled iteration, see SolverOptions::stall_factor)
  auto contact_ok = [&](double factor) {
    const double tol = factor * d.solver.tolerance;
    for (size_t c = 0; c < d.contacts.size(); ++c) {
      const ContactResiduals r = contact_residuals(d.contacts[c], ws.contact_kin[c]);
      if (has_normal(d.contacts[c]) && !(std::abs(r.r_s) < tol)) return false;
      if (d.contacts[c].linear_cone && !(r.r_lin.lpNorm<Eigen::Infinity>() < tol / dt)) return false;
      if (has_cone(d.contacts[c]) && !(r.r_eta.lpNorm<Eigen::Infinity>() < tol / dt)) return false;
    }
    return complementarity_max(d.contacts) < factor * opt.complementarity_tolerance;
  };
  EqualityTest stalled = converged;
  stalled.tol_impulse *= d.solver.stall_factor;
  double last_alpha = 1.0;
  // Merits of the line search. merit_eq: the equality residuals (momentum, joint rows, s − φ,
  // η_t − v_t). merit(κ): the same plus the distance from the central path γ s = κ,
  // β∘η = κ e (κ = σμ), i.e. the residual of the system the direction solves. A trial step is
  // taken if it lowers either: Newton's direction lowers both to first order, but Mehrotra's
  // corrector is not a descent direction for the complementarity part, and accepting steps
  // that only lowered μ (the earlier rule) let iterates walk off to large equality residuals on
  // robots with many contacts.
  auto merit_eq = [&]() {
    double m = F.head(6 * (nb + nj)).norm();
    for (size_t c = 0; c < d.contacts.size(); ++c) {
      const ContactResiduals r = contact_residuals(d.contacts[c], ws.contact_kin[c]);
      m += (has_normal(d.contacts[c]) ? std::abs(r.r_s) : 0.0) +
           (has_cone(d.contacts[c]) ? dt * friction_residual_norm(d.contacts[c], r) : 0.0);
    }
    return m;
  };
  auto merit = [&](double kappa) {
    double m = merit_eq();
    for (const Contact& ct : d.contacts) {
      if (has_normal(ct)) m += std::abs(ct.gamma * ct.slack - kappa);
      if (ct.linear_cone) {
        m += (ct.lin_beta.cwiseProduct(ct.lin_eta).array() - kappa).matrix().norm() +
             std::abs(ct.lin_psi * pyramid_zeta(ct) - kappa);
      } else if (has_cone(ct)) {
        Vec3 p = cone_product(friction_beta(ct, ct.gamma, ct.b), ct.eta);
        p(0) -= kappa;
        m += p.norm();
      }
    }
    return m;
  };
  // Moves every pair back inside its cone by √μ and lets the equality residuals absorb the
  // change (the iteration then continues from a centred point). Used when the iteration jams
  // against a boundary (the step there is ~0) and when no step along the direction lowers the
  // merit. (A push that scales each pair to γs ≥ 0.1μ keeping its own scale was tried: more
  // unconverged steps on the A1 drop suite.)
  auto recentre = [&](double mu) {
    const double push = std::sqrt(std::max(mu, opt.complementarity_tolerance));
    for (Contact& ct : d.contacts) {
      if (has_normal(ct)) {
        ct.gamma = std::max(ct.gamma, push);
        ct.slack = std::max(ct.slack, push);
      }
      if (ct.linear_cone) {
        const double mu_gamma = ct.friction * ct.gamma;
        ct.lin_beta = ct.lin_beta.cwiseMax(std::min(push, 0.1 * mu_gamma));
        if (pyramid_zeta(ct) < std::min(push, 0.5 * mu_gamma)) ct.lin_beta *= 0.5 * mu_gamma / ct.lin_beta.sum();
        ct.lin_eta = ct.lin_eta.cwiseMax(push);
        ct.lin_psi = std::max(ct.lin_psi, push);
        ct.b = pyramid_impulse(ct.lin_beta);
      } else if (has_cone(ct)) {
        ct.eta(0) = std::max(ct.eta(0), ct.eta.tail<2>().norm() + push);
        const double radius = friction_beta(ct, ct.gamma, ct.b)(0);
        if (ct.b.norm() > radius - push && radius > push) ct.b *= (radius - push) / ct.b.norm();
      }
    }
    for (size_t c = 0; c < d.contacts.size(); ++c) {
      const Contact& ct = d.contacts[c];
      const int node = ws.contact_node[c];
      if (node < 0) continue;  // joint friction: not in s
      if (ct.linear_cone) s.segment<6>(6 * node) << ct.gamma, ct.lin_beta, ct.lin_psi;
      else s.segment<4>(6 * node) << ct.gamma, ct.b, ct.eta(0);
    }
  };

  StepReport rep;
  bool residual_at_s = false;  // F and the contact kinematics were last evaluated at s
  for (rep.iterations = 0;; ++rep.iterations) {
    if (!residual_at_s) step_residual(model, d, s, &F);
    residual_at_s = true;
    rep.residual = std::max(F.lpNorm<Eigen::Infinity>(), complementarity_max(d.contacts));
    if (!std::isfinite(rep.residual)) {
      rep.status = StepStatus::Failed;
      break;
    }
    if (converged(F) && contact_ok(1.0)) break;
    if (rep.iterations == opt.max_iterations) {
      rep.status = StepStatus::NotConverged;
      break;
    }
    // one factorization, two back-substitutions
    step_jacobian(model, d, s);
    contact_jacobian(model, d);
    if (!ws.ldu.factor()) {
      // a Newton matrix too ill-conditioned to factor at an iterate already at the round-off
      // floor (see SolverOptions::stall_factor): that iterate is the answer
      if (stalled(F) && contact_ok(d.solver.stall_factor)) break;
      rep.status = StepStatus::Failed;
      break;
    }
    const double mu = complementarity_mean(d.contacts);
    // predictor (affine scaling, κ = 0)
    ws.delta = -F;
    contact_rhs(model, d, 0.0, nullptr, &ws.delta);
    ws.ldu.solve(ws.delta);
    recover_eliminated(d, ws.delta, &affine);
    const double alpha_aff = max_feasible_step(d.contacts, affine);
    std::vector<Contact>& trial_contacts = ws.trial_contacts;
    trial_contacts = d.contacts;
    apply_contact_step(&trial_contacts, affine, alpha_aff);
    const double mu_aff = complementarity_mean(trial_contacts);
    double sigma = mu > 0 ? std::pow(std::clamp(mu_aff / mu, 0.0, 1.0), 3) : 0.0;
    // safeguard against jamming: after a short step, centre more (a boundary-hugging iterate
    // needs centring before the affine direction is usable again)
    if (last_alpha < opt.short_step) sigma = std::max(sigma, opt.sigma_after_short_step);
    // corrector (centering + second-order terms), same factorization
    ws.delta = -F;
    contact_rhs(model, d, sigma * mu, opt.mehrotra_corrector ? &affine : nullptr, &ws.delta);
    ws.ldu.solve(ws.delta);
    if (!ws.delta.allFinite()) {
      rep.status = StepStatus::Failed;
      break;
    }
    recover_eliminated(d, ws.delta, &steps);
    // fraction to boundary, then halve while the merit does not decrease
    double alpha = std::min(1.0, opt.fraction_to_boundary * max_feasible_step(d.contacts, steps));
    if (alpha < 0.9 * opt.fraction_to_boundary * alpha_aff) {
      // Mehrotra's second-order term overshoots where strict complementarity fails: a contact
      // touching without force (γ → 0 and s → 0 together, e.g. the redundant corners of a box at
      // rest) gets twice its affine step, which caps α at 1/2 in every iteration and makes the
      // convergence linear. Then the plain centred direction (same factorization) is taken if it
      // goes farther — the usual safeguard of Mehrotra-type codes.
      ws.trial = -F;
      contact_rhs(model, d, sigma * mu, nullptr, &ws.trial);
      ws.ldu.solve(ws.trial);
      recover_eliminated(d, ws.trial, &affine);
      const double alpha_c = std::min(1.0, opt.fraction_to_boundary * max_feasible_step(d.contacts, affine));
      if (ws.trial.allFinite() && alpha_c > alpha) {
        alpha = alpha_c;
        ws.delta.swap(ws.trial);
        steps.swap(affine);
      }
    }
    last_alpha = alpha;
    if (alpha < opt.jam_step) {
      recentre(mu);
      residual_at_s = false;
      continue;
    }
    const double kappa = sigma * mu;
    const double merit0 = merit(kappa), eq0 = merit_eq();
    bool accepted = false;
    for (int ls = 0; ls <= d.solver.line_search_steps && !accepted; ++ls, alpha *= 0.5) {
      ws.trial = s + alpha * ws.delta;
      if (!velocities_admissible(nb, ws.trial, dt)) continue;
      trial_contacts = d.contacts;
      apply_contact_step(&trial_contacts, steps, alpha);
      trial_contacts.swap(d.contacts);
      step_residual(model, d, ws.trial, &ws.trial_residual);
      residual_at_s = false;
      ws.trial_residual.swap(F);
      const double merit1 = merit(kappa), eq1 = merit_eq();
      ws.trial_residual.swap(F);
      trial_contacts.swap(d.contacts);
      accepted = std::isfinite(merit1) && (merit1 < merit0 || eq1 < eq0);
      if (accepted) {  // the trial's residual and kinematics are now those of s
        d.contacts.swap(trial_contacts);
        s.swap(ws.trial);
        F.swap(ws.trial_residual);
        residual_at_s = true;
      }
    }
    if (!accepted) {
      // no point along the direction is better: at the round-off floor, done; otherwise re-centre
      if (stalled(F) && contact_ok(d.solver.stall_factor)) break;
      recentre(mu);
      residual_at_s = false;
      last_alpha = 0;
    }
  }
  if (rep.status != StepStatus::Failed && !residual_at_s) step_residual(model, d, s, &F);
  return rep;
}

// z3 becomes the current knot, (v, ω) over [t2, t3] the current velocities.
void advance(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  const auto& ws = d.ws;
  const Eigen::VectorXd& s = ws.unknowns;
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
  d.time += d.ws.dt;
}

// Restitution, step after an impact: a contact that continues one which closed in the last step
// at normal speed v⁻ must open at e v⁻ over this step, φ(z3) ≥ e v⁻ Δt (Newton's law on the
// interval velocities; the impact step itself ends at φ = 0 like every hard contact).
void apply_restitution(double dt, Data& d) {
  const auto& prev = d.ws.previous_contacts;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    if (ct.restitution <= 0 || !persisting_contact(prev, c, ct)) continue;
    const double bounce = ct.restitution * prev[c].impact_speed;
    if (bounce > ct.bounce_threshold) ct.offset += bounce * dt;
  }
}

// Records the normal approach speed (over the previous interval, at the witness points) of
// restitution contacts that closed in this step: active at z3 (gap within 10 µm) and not
// continuing a contact that was already closed.
void record_impacts(Data& d) {
  const auto& prev = d.ws.previous_contacts;
  auto point_velocity = [&d](int body, const Vec3& p) -> Vec3 {
    if (body == kWorld) return Vec3::Zero();
    return d.v[body] + quat_rotate(d.q[body], d.w[body].cross(p));
  };
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    ct.impact_speed = 0;
    if (ct.restitution <= 0 || ct.joint >= 0 || ct.slack > 1e-5) continue;
    if (persisting_contact(prev, c, ct) && prev[c].slack <= 1e-5) continue;  // already closed
    const double vn = ct.normal.dot(point_velocity(ct.body_b, ct.point_b) - point_velocity(ct.body_a, ct.point_a));
    if (vn < 0) ct.impact_speed = -vn;
  }
}

bool same_contact_bodies(const Data& d) {
  if (d.ws.contact_bodies.size() != d.contacts.size()) return false;
  for (size_t c = 0; c < d.contacts.size(); ++c)
    if (d.ws.contact_bodies[c] != std::make_pair(d.contacts[c].body_a, d.contacts[c].body_b) ||
        (d.ws.contact_node[c] < 0) != is_joint_friction(d.contacts[c]))
      return false;
  return true;
}

}  // namespace

namespace {
StepReport step_once(const Model& model, Data& d);

void save_state(const Data& d, Data::SavedState* s) {  // copy-assignments: no allocation after the first
  s->time = d.time;
  s->x = d.x;
  s->v = d.v;
  s->w = d.w;
  s->q = d.q;
  s->joint_impulse = d.joint_impulse;
  s->joint_angle = d.joint_angle;
}

void restore_state(const Data::SavedState& s, Data& d) {
  d.time = s.time;
  d.x = s.x;
  d.v = s.v;
  d.w = s.w;
  d.q = s.q;
  d.joint_impulse = s.joint_impulse;
  d.joint_angle = s.joint_angle;
}

// Failure policy: a step with contacts that does not converge is tried again cold (without its
// warm start), then cold with the conservative interior point (no Mehrotra corrector), then once
// more from where that stopped, and only then as two half steps, recursively to max_retry_depth
// (the shortest substeps make the same attempts and a last warm one) before it is reported. A
// contact-free step goes straight to the half steps: the rotation update (omega_step_quat) needs
// |ω|Δt < 2, which a whipping chain tip can exceed; half steps double that bound.
StepReport step_with_retry(const Model& model, Data& d, int depth) {
  if (d.saved.size() < static_cast<size_t>(depth + 1)) d.saved.resize(depth + 1);  // once
  Data::SavedState& saved = d.saved[depth];
  save_state(d, &saved);
  StepReport rep = step_once(model, d);
  if (rep.status == StepStatus::Ok) return rep;
  // The retries below change only the interior point's start and settings: a step without
  // contacts (Newton's method) would repeat itself exactly, so it goes straight to the half steps,
  // and at the shortest substep it is reported as it ended.
  const bool interior_point = !d.contacts.empty();  // (the attempt's contact set)
  if (!interior_point && depth <= 0) return rep;
  restore_state(saved, d);
  if (interior_point) {
    if (d.interior_point.warm_start && !d.ws.previous_contacts.empty()) {
      // the warm start (last impulses, small floors) may have misled it: the same step cold first
      // (step_once takes d.contacts as the previous step's contacts)
      d.contacts.clear();
      const int iterations = rep.iterations;
      rep = step_once(model, d);
      rep.iterations += iterations;
      if (rep.status == StepStatus::Ok) return rep;
      restore_state(saved, d);
    }
    if (d.interior_point.mehrotra_corrector) {
      // then cold and conservative: Mehrotra's second-order correction off, steps kept farther
      // from the cone boundaries (InteriorPointOptions::conservative_fraction_to_boundary)
      const InteriorPointOptions usual = d.interior_point;
      d.interior_point.mehrotra_corrector = false;
      d.interior_point.fraction_to_boundary = usual.conservative_fraction_to_boundary;
      d.contacts.clear();
      const int iterations = rep.iterations;
      rep = step_once(model, d);
      rep.iterations += iterations;
      d.interior_point = usual;
      if (rep.status == StepStatus::Ok) return rep;
      restore_state(saved, d);
      if (rep.status == StepStatus::NotConverged) {
        // and once more with the usual iteration, started from where the conservative one
        // stopped (d.contacts keeps its impulses: step_once warm-starts persisting contacts)
        const int more = rep.iterations;
        rep = step_once(model, d);
        rep.iterations += more;
        if (rep.status == StepStatus::Ok) return rep;
        restore_state(saved, d);
      }
    }
    // the shortest substep: a last attempt, warm from where the previous one stopped, is
    // reported as it ends
    if (depth <= 0) return step_once(model, d);
  }
  d.contacts.clear();  // substeps start cold (step_once takes d.contacts as the last step's)
  const double dt = d.ws.dt;
  d.ws.dt = 0.5 * dt;  // the substeps' length (no copy of the model: it can hold mesh data)
  StepReport total;
  for (int k = 0; k < 2; ++k) {
    const StepReport r = step_with_retry(model, d, depth - 1);
    total.iterations += r.iterations;
    total.residual = std::max(total.residual, r.residual);
    if (r.status != StepStatus::Ok) total.status = r.status;
    if (r.status == StepStatus::Failed) break;
  }
  d.ws.dt = dt;
  total.substeps = true;
  d.report = total;
  return total;
}
}  // namespace

StepReport step(const Model& model, Data& d) {
  // control: the controller reads the state at t and sets the inputs held over [t, t + dt]
  // (once per step, also when the failure policy splits the step into substeps)
  if (d.controller) d.controller(model, d);
  d.ws.dt = model.dt;
  return step_with_retry(model, d, d.solver.max_retry_depth);
}

namespace {
StepReport step_once(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  auto& ws = d.ws;

  // collide: the contact set of this step, surfaces then joint limits (the graph is rebuilt only
  // when the set changes shape)
  ws.previous_contacts.swap(d.contacts);  // kept for warm starts
  d.contacts.clear();
  if (d.collide) d.collide(model, d);
  append_joint_limits(model, d);
  if (!same_contact_bodies(d)) build_graph(model, d);
  apply_restitution(d.ws.dt, d);

  // knot quantities of z2
  step_prepare(model, d);

  // warm start: the previous velocities and row impulses
  Eigen::VectorXd& s = ws.unknowns;
  for (int i = 0; i < nb; ++i) {
    s.segment<3>(6 * i) = d.v[i];
    s.segment<3>(6 * i + 3) = d.w[i];
  }
  for (int j = 0; j < nj; ++j) s.segment<6>(6 * (nb + j)) = d.joint_impulse[j];

  // solve
  const StepReport rep = d.contacts.empty() ? solve_newton(model, d) : solve_interior_point(model, d);
  d.report = rep;

  // update
  if (rep.status != StepStatus::Failed) {
    record_impacts(d);
    advance(model, d);
  }
  return rep;
}
}  // namespace

}  // namespace maxsim
