// Pyramid contact (docs/computation.md (38)): the gap's orthant pair and the linearized friction
// cone: b = Σ β_i d_i over the 4 directions d_i = ±t1, ±t2 with β_i ≥ 0 and ζ = μγ − Σ β_i ≥ 0;
// the duals η_i = ψ + d_iᵀ v_t ≥ 0 (eliminated like s), ψ ≥ 0 the sliding-speed multiplier;
// β_i η_i = 0 and ψ ζ = 0. Node unknowns (γ, β1..β4, ψ).
#include <algorithm>
#include <cmath>

#include "sim/solver/kinds.hpp"

namespace maxsim {

namespace {
// η_i − (ψ + d_iᵀ v_t(z3)), the eliminated duals' residuals
Eigen::Vector4d pyramid_residuals(const Contact& ct, const ContactKinematics& k) {
  Eigen::Vector4d r;
  for (int i = 0; i < 4; ++i) r(i) = ct.lin_eta(i) - ct.lin_psi - pyramid_direction(i).dot(k.vt);
  return r;
}
}  // namespace

void PyramidContact::residual(const Model&, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  const auto node = inequality_unknowns(d, s, c);
  Vec3 impulse;
  impulse << node(0), pyramid_impulse(node.segment<4>(1));  // (γ, Σ β_i d_i)
  add_impulse(d, c, impulse, F);
  kinematics(d, c);
}

// (γ, b) = P (γ, β, ψ): the derivative of (γ, pyramid_impulse(β))
void PyramidContact::impulse_jacobian(const Model&, Data& d, int c) const {
  Workspace& ws = workspace(d);
  BlockLdu& A = ws.ldu;
  Eigen::Matrix<double, 3, 6> P;
  P << 1, 0, 0, 0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1, 0, -1, 0;
  A.block(A.lower_id(ws.contact_edge_b[c])) = ws.contact_map_b[c] * P;
  if (ws.contact_edge_a[c] >= 0) A.block(A.lower_id(ws.contact_edge_a[c])) = ws.contact_map_a[c] * P;
}

// rows: γ s = κ; β_i η_i = κ with Δη_i = Δψ + d_iᵀ J_vt Δν − r_i; ψ ζ = κ with Δζ = μ Δγ − Σ Δβ_i
void PyramidContact::jacobian(const Model&, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const ContactKinematics& k = ws.contact_kin[c];
  BlockLdu& A = ws.ldu;
  Block& D = A.diag(ws.contact_node[c]);
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
}

// affine steps (recover): a = (Δγ, Δβ1..Δβ4, Δψ), e = (Δs, Δη1..Δη4, ·)
void PyramidContact::rhs(const Model&, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
                         Eigen::VectorXd* rhs) const {
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  const Eigen::Vector4d r_lin = pyramid_residuals(ct, k);
  Vec6 a = Vec6::Zero(), e = Vec6::Zero();
  if (affine_a != nullptr) {
    a = *affine_a;
    e = *affine_e;
  }
  Vec6 out;
  out(0) = -(ct.gamma * ct.slack + a(0) * e(0) - kappa) + ct.gamma * (ct.slack - k.phi);
  for (int i = 0; i < 4; ++i)
    out(1 + i) = -(ct.lin_beta(i) * ct.lin_eta(i) + a(1 + i) * e(1 + i) - kappa) + ct.lin_beta(i) * r_lin(i);
  const double dzeta = ct.friction * a(0) - a.segment<4>(1).sum();
  out(5) = -(ct.lin_psi * pyramid_zeta(ct) + a(5) * dzeta - kappa);
  inequality_unknowns(d, *rhs, c) = out;
}

// Δs = Jφ Δν − r_s; Δη_i = Δψ + d_iᵀ J_vt Δν − r_i
void PyramidContact::recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const {
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  double ds;
  Vec2 dvt;
  eliminated_steps(d, c, delta, Vec2::Zero(), &ds, &dvt);
  const Eigen::Vector4d r_lin = pyramid_residuals(ct, k);
  *a = inequality_unknowns(d, delta, c);
  (*e)(0) = ds;
  for (int i = 0; i < 4; ++i) (*e)(1 + i) = (*a)(5) + pyramid_direction(i).dot(dvt) - r_lin(i);
  (*e)(5) = 0;
}

double PyramidContact::max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const {
  alpha = std::min(alpha, orthant_max_step(ct.gamma, a(0)));
  alpha = std::min(alpha, orthant_max_step(ct.slack, e(0)));
  for (int i = 0; i < 4; ++i) {
    alpha = std::min(alpha, orthant_max_step(ct.lin_beta(i), a(1 + i)));
    alpha = std::min(alpha, orthant_max_step(ct.lin_eta(i), e(1 + i)));
  }
  alpha = std::min(alpha, orthant_max_step(ct.lin_psi, a(5)));
  return std::min(alpha, orthant_max_step(pyramid_zeta(ct), ct.friction * a(0) - a.segment<4>(1).sum()));
}

void PyramidContact::apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const {
  ct->gamma += alpha * a(0);
  ct->lin_beta += alpha * a.segment<4>(1);
  ct->lin_psi += alpha * a(5);
  ct->slack += alpha * e(0);
  ct->lin_eta += alpha * e.segment<4>(1);
  ct->b = pyramid_impulse(ct->lin_beta);
}

// a persisting pyramid starts from its last β as well
void PyramidContact::start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const {
  inequality_unknowns(d, *s, c) << (warm != nullptr ? warm->gamma : cold),
      warm != nullptr ? warm->lin_beta : Eigen::Vector4d::Zero(), 0;
}

// strictly inside: β_i ≥ 5 % of μγ, ζ ≥ μγ/2, η_i ≥ ‖v_t‖∞ + s0
void PyramidContact::start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  auto node = inequality_unknowns(d, *s, c);
  ct.slack = std::max(k.phi, floor);
  ct.gamma = std::max(node(0), floor);
  const double mu_gamma = ct.friction * ct.gamma;
  ct.lin_beta = node.segment<4>(1).cwiseMax(0.05 * mu_gamma);
  if (ct.lin_beta.sum() > 0.9 * mu_gamma) ct.lin_beta *= 0.5 * mu_gamma / ct.lin_beta.sum();
  ct.lin_psi = 2.0 * k.vt.lpNorm<Eigen::Infinity>() + initial_slack;
  for (int i = 0; i < 4; ++i) ct.lin_eta(i) = ct.lin_psi + pyramid_direction(i).dot(k.vt);
  ct.b = pyramid_impulse(ct.lin_beta);
  node << ct.gamma, ct.lin_beta, ct.lin_psi;
}

void PyramidContact::recentre(Data& d, int c, double push, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  ct.gamma = std::max(ct.gamma, push);
  ct.slack = std::max(ct.slack, push);
  const double mu_gamma = ct.friction * ct.gamma;
  ct.lin_beta = ct.lin_beta.cwiseMax(std::min(push, 0.1 * mu_gamma));
  if (pyramid_zeta(ct) < std::min(push, 0.5 * mu_gamma)) ct.lin_beta *= 0.5 * mu_gamma / ct.lin_beta.sum();
  ct.lin_eta = ct.lin_eta.cwiseMax(push);
  ct.lin_psi = std::max(ct.lin_psi, push);
  ct.b = pyramid_impulse(ct.lin_beta);
  inequality_unknowns(d, *s, c) << ct.gamma, ct.lin_beta, ct.lin_psi;
}

void PyramidContact::add_complementarity(const Contact& ct, double, double* sum, int* pairs) const {
  *sum += ct.gamma * ct.slack;
  ++*pairs;
  *sum += ct.lin_beta.dot(ct.lin_eta) + ct.lin_psi * pyramid_zeta(ct);
  *pairs += 5;
}

double PyramidContact::max_complementarity(const Contact& ct, const ConeTest&) const {
  double m = std::abs(ct.gamma * ct.slack);
  m = std::max(m, ct.lin_beta.cwiseProduct(ct.lin_eta).cwiseAbs().maxCoeff());
  return std::max(m, std::abs(ct.lin_psi * pyramid_zeta(ct)));
}

void PyramidContact::add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const {
  *m += std::abs(ct.slack - k.phi) + dt * pyramid_residuals(ct, k).norm();
}

void PyramidContact::add_central_distance(const Contact& ct, double kappa, double, double* m) const {
  *m += std::abs(ct.gamma * ct.slack - kappa);
  *m += (ct.lin_beta.cwiseProduct(ct.lin_eta).array() - kappa).matrix().norm() +
        std::abs(ct.lin_psi * pyramid_zeta(ct) - kappa);
}

bool PyramidContact::converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const {
  return std::abs(ct.slack - k.phi) < tol && pyramid_residuals(ct, k).lpNorm<Eigen::Infinity>() < tol / dt;
}

}  // namespace maxsim
