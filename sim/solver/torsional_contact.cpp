// Surface contact with torsional friction (MJCF condim 4 and 6; docs/computation.md (117)): the
// surface contact's gap pair and friction cone, and a second cone on the moment about the normal,
// β_τ = (μ_τ γ, spin) with dual η_τ = (η_τ0, ω_n), ω_n = nᵀ(R_b ω_b − R_a ω_a) the relative spin
// rate over the step. A 1-D cone is held as the 3-D one with an empty third direction (the
// Nesterov–Todd scaling of two such vectors leaves that direction apart), so the surface contact's
// cone algebra serves it; the node's rows 4 and 5 are its first two complementarity rows.
#include <algorithm>
#include <cmath>

#include "sim/solver/kinds.hpp"

namespace maxsim {

namespace {

Vec3 spin_beta(const Contact& ct, double gamma, double spin) { return Vec3(ct.torsion * gamma, spin, 0.0); }
Vec3 spin_eta(const Vec2& eta) { return Vec3(eta(0), eta(1), 0.0); }

}  // namespace

// The torque's map at z2: −spin · [0; R_bᵀ n] on body b, +spin · [0; R_aᵀ n] on body a.
void TorsionalContact::prepare(const Model& model, Data& d, int c) const {
  SurfaceContact::prepare(model, d, c);
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  ws.spin_axis_b[c] = quat_to_rot(d.q[ct.body_b]).transpose() * ct.normal;
  ws.spin_axis_a[c] = ct.body_a != kWorld ? Vec3(quat_to_rot(d.q[ct.body_a]).transpose() * ct.normal) : Vec3::Zero();
}

void TorsionalContact::residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  SurfaceContact::residual(model, d, s, c, F);
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const double spin = inequality_unknowns(d, s, c)(4);
  SystemLayout::body(*F, ct.body_b).tail<3>() -= spin * ws.spin_axis_b[c];
  ContactKinematics& k = ws.contact_kin[c];
  k.wn = ws.spin_axis_b[c].dot(SystemLayout::angular(s, ct.body_b));
  k.Jwn_b.setZero();
  k.Jwn_b.tail<3>() = ws.spin_axis_b[c].transpose();
  k.Jwn_a.setZero();
  if (ct.body_a != kWorld) {
    SystemLayout::body(*F, ct.body_a).tail<3>() += spin * ws.spin_axis_a[c];
    k.wn -= ws.spin_axis_a[c].dot(SystemLayout::angular(s, ct.body_a));
    k.Jwn_a.tail<3>() = -ws.spin_axis_a[c].transpose();
  }
}

void TorsionalContact::impulse_jacobian(const Model& model, Data& d, int c) const {
  SurfaceContact::impulse_jacobian(model, d, c);
  Workspace& ws = workspace(d);
  BlockLdu& A = ws.ldu;
  A.block(A.lower_id(ws.contact_edge_b[c])).col(4).tail<3>() = -ws.spin_axis_b[c];
  if (ws.contact_edge_a[c] >= 0) A.block(A.lower_id(ws.contact_edge_a[c])).col(4).tail<3>() = ws.spin_axis_a[c];
}

// Rows 4 and 5: the torsional cone's complementarity with Δω_n = J_wn Δν − r_wn substituted,
// in (Δγ, Δspin, Δη_τ0).
void TorsionalContact::jacobian(const Model& model, Data& d, int c) const {
  SurfaceContact::jacobian(model, d, c);
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const ContactKinematics& k = ws.contact_kin[c];
  ConeLinearization& lin = ws.spin_lin[c];
  cone_linearization(spin_beta(ct, ct.gamma, ct.spin), spin_eta(ct.spin_eta), &lin);
  BlockLdu& A = ws.ldu;
  Block& D = A.diag(ws.contact_node[c]);
  D.bottomRows<2>().setZero();
  D.block<2, 1>(4, 0) = ct.torsion * lin.coef_beta.block<2, 1>(0, 0);
  D.block<2, 1>(4, 4) = lin.coef_beta.block<2, 1>(0, 1);
  D.block<2, 1>(4, 5) = lin.coef_eta.block<2, 1>(0, 0);
  Block& b = A.block(A.upper_id(ws.contact_edge_b[c]));
  b.bottomRows<2>() = lin.coef_eta.block<2, 1>(0, 1) * k.Jwn_b;
  if (ws.contact_edge_a[c] >= 0) {
    Block& a = A.block(A.upper_id(ws.contact_edge_a[c]));
    a.bottomRows<2>() = lin.coef_eta.block<2, 1>(0, 1) * k.Jwn_a;
  }
}

void TorsionalContact::rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
                           Eigen::VectorXd* rhs) const {
  SurfaceContact::rhs(model, d, c, kappa, affine_a, affine_e, rhs);
  const Contact& ct = d.contacts[c];
  const Workspace& ws = workspace(d);
  Vec3 dbeta_aff = Vec3::Zero(), deta_aff = Vec3::Zero();
  if (affine_a != nullptr) {
    dbeta_aff = Vec3(ct.torsion * (*affine_a)(0), (*affine_a)(5), 0.0);
    deta_aff = Vec3((*affine_e)(2), (*affine_e)(3), 0.0);
  }
  const Vec3 out = cone_rhs(spin_beta(ct, ct.gamma, ct.spin), spin_eta(ct.spin_eta), ws.spin_lin[c],
                            kappa / ws.cone_weight, dbeta_aff, deta_aff, Vec2(ct.spin_eta(1) - ws.contact_kin[c].wn, 0.0));
  inequality_unknowns(d, *rhs, c).tail<2>() = out.head<2>();
}

void TorsionalContact::recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const {
  SurfaceContact::recover(d, c, delta, a, e);
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  const auto node = inequality_unknowns(d, delta, c);
  (*a)(5) = node(4);
  (*e)(2) = node(5);
  double dwn = k.Jwn_b.dot(SystemLayout::body(delta, ct.body_b)) - (ct.spin_eta(1) - k.wn);
  if (ct.body_a != kWorld) dwn += k.Jwn_a.dot(SystemLayout::body(delta, ct.body_a));
  (*e)(3) = dwn;
}

double TorsionalContact::max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const {
  alpha = SurfaceContact::max_step(ct, a, e, alpha);
  alpha = std::min(alpha, cone_max_step(spin_beta(ct, ct.gamma, ct.spin), Vec3(ct.torsion * a(0), a(5), 0.0)));
  return std::min(alpha, cone_max_step(spin_eta(ct.spin_eta), Vec3(e(2), e(3), 0.0)));
}

void TorsionalContact::apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const {
  SurfaceContact::apply_step(ct, a, e, alpha);
  ct->spin += alpha * a(5);
  ct->spin_eta += alpha * Vec2(e(2), e(3));
}

void TorsionalContact::start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const {
  SurfaceContact::start_impulse(d, c, warm, cold, s);
  inequality_unknowns(d, *s, c)(4) = warm != nullptr ? warm->spin : 0.0;
}

// As the surface contact's: the spin within 90 % of its cone, its dual well inside.
void TorsionalContact::start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const {
  const double spin = inequality_unknowns(d, *s, c)(4);
  SurfaceContact::start(d, c, floor, initial_slack, s);
  Contact& ct = d.contacts[c];
  const double wn = workspace(d).contact_kin[c].wn;
  const double radius = 0.9 * ct.torsion * ct.gamma;
  ct.spin = std::clamp(spin, -radius, radius);
  ct.spin_eta = Vec2(2.0 * std::abs(wn) + initial_slack, wn);
  inequality_unknowns(d, *s, c).tail<2>() << ct.spin, ct.spin_eta(0);
}

void TorsionalContact::recentre(Data& d, int c, double push, Eigen::VectorXd* s) const {
  SurfaceContact::recentre(d, c, push, s);
  Contact& ct = d.contacts[c];
  ct.spin_eta(0) = std::max(ct.spin_eta(0), std::abs(ct.spin_eta(1)) + push);
  const double radius = ct.torsion * ct.gamma;
  if (std::abs(ct.spin) > radius - push && radius > push) ct.spin *= (radius - push) / std::abs(ct.spin);
  inequality_unknowns(d, *s, c).tail<2>() << ct.spin, ct.spin_eta(0);
}

// (112) for the torsional cone too: spin = −μ_τ γ ω_n / η_τ0 on the path of κ.
void TorsionalContact::place_open_on_path(Data& d, int c, double kappa, double cone_weight, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  const bool open = ct.slack > 1e-6 && ct.gamma * ct.slack < kappa;
  SurfaceContact::place_open_on_path(d, c, kappa, cone_weight, s);
  if (!open) return;
  const double k = kappa / (cone_weight * ct.torsion * ct.gamma);
  const double wn = ct.spin_eta(1);
  ct.spin_eta(0) = 0.5 * (k + std::sqrt(k * k + 4 * wn * wn));
  ct.spin = -ct.torsion * ct.gamma * wn / ct.spin_eta(0);
  inequality_unknowns(d, *s, c).tail<2>() << ct.spin, ct.spin_eta(0);
}

void TorsionalContact::add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const {
  SurfaceContact::add_complementarity(ct, cone_weight, sum, pairs);
  *sum += cone_weight * spin_beta(ct, ct.gamma, ct.spin).dot(spin_eta(ct.spin_eta));
  ++*pairs;
}

double TorsionalContact::max_complementarity(const Contact& ct, const ConeTest& cone_test) const {
  return std::max(SurfaceContact::max_complementarity(ct, cone_test),
                  cone_pair_test(spin_beta(ct, ct.gamma, ct.spin), spin_eta(ct.spin_eta), cone_test));
}

void TorsionalContact::add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const {
  SurfaceContact::add_equality_merit(ct, k, dt, m);
  *m += dt * std::abs(ct.spin_eta(1) - k.wn);
}

void TorsionalContact::add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const {
  SurfaceContact::add_central_distance(ct, kappa, cone_weight, m);
  Vec3 p = cone_product(spin_beta(ct, ct.gamma, ct.spin), spin_eta(ct.spin_eta));
  p(0) -= kappa / cone_weight;
  *m += cone_weight * p.norm();
}

bool TorsionalContact::converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const {
  return SurfaceContact::converged(ct, k, tol, dt) && std::abs(ct.spin_eta(1) - k.wn) < tol / dt;
}

}  // namespace maxsim
