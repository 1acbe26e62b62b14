// Surface contact with Anitescu's relaxed cone (kinds.hpp): one second-order cone pair per
// contact, x = (μγ, b) with dual w = (s/μ, Δt·η_t), s = φ(z3) and η_t = v_t eliminated as in the
// exact kind. x∘w = 0 says: either the contact is open (γ = 0) or s = μΔt|v_t| with b = −μγ v̂_t,
// i.e. Coulomb's sliding friction with the gap held open by μΔt|v_t| (M. Anitescu, "Optimization-
// based simulation of nonsmooth rigid multibody dynamics", Math. Program. 2006). For a fixed
// linearization of the kinematics this is the optimality system of a convex program, so the
// interior point has no nearby contact modes to oscillate between.
//
// Stored in the Contact: γ, b, slack = s, and eta = w (η0 = s/μ kept in step with s, η_t scaled
// by Δt). The eliminated step e carries Δw_t = Δt·Δη_t.
#include <algorithm>
#include <cmath>

#include "sim/solver/kinds.hpp"

namespace maxsim {

namespace {
// w_t's residual Δt·(η_t − v_t)
Vec2 scaled_dual_residual(const Contact& ct, const ContactKinematics& k, double dt) {
  return ct.eta.tail<2>() - dt * k.vt;
}
}  // namespace

// The pair's linearization x∘w = κe with Δx = diag(μ, 1, 1)·(Δγ, Δb) and
// Δw = (Δs/μ, Δt·Δη_t), Δs = Jφ Δν − r_s, Δη_t = J_vt Δν − r_η substituted; unknowns (γ, b1, b2),
// row 3 identity.
void RelaxedContact::jacobian(const Model&, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const ContactKinematics& k = ws.contact_kin[c];
  const double mu = ct.friction, dt = ws.dt;
  ConeLinearization& lin = ws.cone_lin[c];
  cone_linearization(ct, &lin);
  BlockLdu& A = ws.ldu;
  Block& D = A.diag(ws.contact_node[c]);
  D.setIdentity();
  D.block<3, 1>(0, 0) = mu * lin.coef_beta.col(0);
  D.block<3, 2>(0, 1) = lin.coef_beta.rightCols<2>();
  Block& b = A.block(A.upper_id(ws.contact_edge_b[c]));
  b.topRows<3>() = lin.coef_eta.col(0) * (k.Jphi_b / mu) + dt * lin.coef_eta.rightCols<2>() * k.Jvt_b;
  b.bottomRows<3>().setZero();
  if (ws.contact_edge_a[c] >= 0) {
    Block& a = A.block(A.upper_id(ws.contact_edge_a[c]));
    a.topRows<3>() = lin.coef_eta.col(0) * (k.Jphi_a / mu) + dt * lin.coef_eta.rightCols<2>() * k.Jvt_a;
    a.bottomRows<3>().setZero();
  }
}

// steps: a = (Δγ, Δb1, Δb2, ·, Δs, ·), e = (Δt·Δη_t, ·)
void RelaxedContact::rhs(const Model&, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
                         Eigen::VectorXd* rhs) const {
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  const ConeLinearization& lin = workspace(d).cone_lin[c];
  const double mu = ct.friction;
  Vec3 dx_aff = Vec3::Zero(), dw_aff = Vec3::Zero();
  if (affine_a != nullptr) {
    dx_aff = Vec3(mu * (*affine_a)(0), (*affine_a)(1), (*affine_a)(2));
    dw_aff = Vec3((*affine_a)(4) / mu, (*affine_e)(0), (*affine_e)(1));
  }
  Vec6 out = Vec6::Zero();
  out.head<3>() = cone_rhs(ct, lin, kappa, dx_aff, dw_aff, scaled_dual_residual(ct, k, workspace(d).dt)) +
                  lin.coef_eta.col(0) * ((ct.slack - k.phi) / mu);
  inequality_unknowns(d, *rhs, c) = out;
}

void RelaxedContact::recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const {
  const Contact& ct = d.contacts[c];
  const double dt = workspace(d).dt;
  double ds;
  Vec2 deta;
  eliminated_steps(d, c, delta, scaled_dual_residual(ct, workspace(d).contact_kin[c], dt) / dt, &ds, &deta);
  a->head<3>() = inequality_unknowns(d, delta, c).head<3>();
  (*a)(3) = 0;
  (*a)(4) = ds;
  (*a)(5) = 0;
  set_friction_dual_step(dt * deta, e);
}

double RelaxedContact::max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const {
  const double mu = ct.friction;
  alpha = std::min(alpha, cone_max_step(friction_beta(ct, ct.gamma, ct.b), Vec3(mu * a(0), a(1), a(2))));
  return std::min(alpha, cone_max_step(ct.eta, Vec3(a(4) / mu, e(0), e(1))));
}

void RelaxedContact::apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const {
  ct->gamma += alpha * a(0);
  ct->b += alpha * a.segment<2>(1);
  ct->slack += alpha * a(4);
  ct->eta(0) = ct->slack / ct->friction;
  ct->eta.tail<2>() += alpha * e.head<2>();
}

// Strictly inside both cones: γ ≥ floor, b within 90 % of μγ, s above μΔt|v_t| by `floor`.
void RelaxedContact::start(Data& d, int c, double floor, double, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  auto node = inequality_unknowns(d, *s, c);
  const double dt = workspace(d).dt;
  ct.gamma = std::max(node(0), floor);
  ct.b = node.segment<2>(1);
  const double radius = 0.9 * ct.friction * ct.gamma;
  if (ct.b.norm() > radius) ct.b *= radius / ct.b.norm();
  ct.slack = std::max(k.phi, ct.friction * dt * k.vt.norm() + floor);
  ct.eta = Vec3(ct.slack / ct.friction, dt * k.vt(0), dt * k.vt(1));
  node << ct.gamma, ct.b, 0, 0, 0;
}

void RelaxedContact::recentre(Data& d, int c, double push, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  ct.gamma = std::max(ct.gamma, push);
  const double radius = ct.friction * ct.gamma;
  if (ct.b.norm() > radius - push && radius > push) ct.b *= (radius - push) / ct.b.norm();
  ct.slack = std::max(ct.slack, ct.friction * (ct.eta.tail<2>().norm() + push));
  ct.eta(0) = ct.slack / ct.friction;
  inequality_unknowns(d, *s, c).head<4>() << ct.gamma, ct.b, 0;
}

// x·w = γ s + Δt b·η_t (N·s·m, like the gap pair of the exact kind)
void RelaxedContact::add_complementarity(const Contact& ct, double, double* sum, int* pairs) const {
  *sum += cone_pair_dot(ct);
  ++*pairs;
}

double RelaxedContact::max_complementarity(const Contact& ct, const ConeTest&) const { return cone_pair_max(ct); }

void RelaxedContact::add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const {
  *m += std::abs(ct.slack - k.phi) + scaled_dual_residual(ct, k, dt).norm();
}

void RelaxedContact::add_central_distance(const Contact& ct, double kappa, double, double* m) const {
  *m += cone_pair_central_distance(ct, kappa);
}

bool RelaxedContact::converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const {
  return std::abs(ct.slack - k.phi) < tol && scaled_dual_residual(ct, k, dt).lpNorm<Eigen::Infinity>() < tol;
}

}  // namespace maxsim
