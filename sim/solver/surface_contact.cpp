// Surface contact: the gap's orthant pair (γ, s) and the second-order friction cone (β, η)
// (docs/computation.md (31)–(37), (55)–(57); Dojo's nonlinear contact).
#include <algorithm>
#include <cmath>

#include "sim/solver/kinds.hpp"

namespace maxsim {

void SurfaceContact::prepare(const Model&, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  workspace(d).contact_map_b[c] = contact_impulse_map(ct, d.q[ct.body_b], true);
  if (ct.body_a != kWorld) workspace(d).contact_map_a[c] = contact_impulse_map(ct, d.q[ct.body_a], false);
}

double SurfaceContact::compliance(const Model& model, const Contact& ct, const InteriorPointOptions& opt,
                                  double dt) const {
  return opt.contact_compliance * dt / lighter_mass(model, ct);
}

void SurfaceContact::add_impulse(Data& d, int c, const Vec3& impulse, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  inequality_unknowns(d, *F, c).setZero();
  SystemLayout::body(*F, ct.body_b).noalias() += workspace(d).contact_map_b[c] * impulse;
  if (ct.body_a != kWorld) SystemLayout::body(*F, ct.body_a).noalias() += workspace(d).contact_map_a[c] * impulse;
}

// The normal and friction impulses act on the bodies through the maps at z2; the gap and the
// tangential velocity at z3 are what the interior point balances against its slacks.
void SurfaceContact::residual(const Model&, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  add_impulse(d, c, inequality_unknowns(d, s, c).head<3>(), F);  // (γ, b1, b2)
  kinematics(d, c);
  // a compliant contact sinks by ε γ (docs/computation.md (114))
  if (const double eps = compliance_epsilon(d, c); eps > 0)
    workspace(d).contact_kin[c].phi += eps * inequality_unknowns(d, s, c)(0);
}

void SurfaceContact::kinematics(Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  Pose a2, a3;
  if (ct.body_a != kWorld) {
    a2 = body_pose(d, ct.body_a);
    a3 = Pose{ws.x3[ct.body_a], ws.q3[ct.body_a]};
  }
  contact_kinematics(ct, a2, body_pose(d, ct.body_b), a3, Pose{ws.x3[ct.body_b], ws.q3[ct.body_b]}, ws.dt,
                     &ws.contact_kin[c]);
}

void SurfaceContact::linearize(const Model&, Data& d, const Eigen::VectorXd& s, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  Pose a3;
  Vec3 wa = Vec3::Zero();
  if (ct.body_a != kWorld) {
    a3 = Pose{ws.x3[ct.body_a], ws.q3[ct.body_a]};
    wa = SystemLayout::angular(s, ct.body_a);
  }
  contact_kinematics_jacobian(ct, a3, Pose{ws.x3[ct.body_b], ws.q3[ct.body_b]}, wa, SystemLayout::angular(s, ct.body_b),
                              ws.dt, &ws.contact_kin[c]);
}

void SurfaceContact::impulse_jacobian(const Model&, Data& d, int c) const {
  Workspace& ws = workspace(d);
  BlockLdu& A = ws.ldu;
  // (whole blocks: the assembly does not zero the matrix first, see BlockLdu::zero_fill)
  Block& b = A.block(A.lower_id(ws.contact_edge_b[c]));
  b.leftCols<3>() = ws.contact_map_b[c];
  b.rightCols<3>().setZero();
  if (ws.contact_edge_a[c] >= 0) {
    Block& a = A.block(A.lower_id(ws.contact_edge_a[c]));
    a.leftCols<3>() = ws.contact_map_a[c];
    a.rightCols<3>().setZero();
  }
}

double SurfaceContact::gap_pivot(const Model& model, const Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  const Workspace& ws = workspace(d);
  double pivot = ct.slack;
  if (ws.proximal > 0 && ct.tendon < 0)  // (InteriorPointOptions::proximal; not on a tendon: no body)
    pivot += ct.gamma * ws.proximal * ws.dt / lighter_mass(model, ct);
  if (const double eps = compliance_epsilon(d, c); eps > 0) pivot += ct.gamma * eps;  // Δs carries ε Δγ (114)
  return pivot;
}

double SurfaceContact::gap_rhs(const Data& d, int c, double kappa, const Vec6* affine_a) const {
  const Contact& ct = d.contacts[c];
  const double r_s = ct.slack - workspace(d).contact_kin[c].phi;
  const double second = affine_a != nullptr ? (*affine_a)(0) * (*affine_a)(4) : 0.0;
  return -(ct.gamma * ct.slack + second - kappa) + ct.gamma * r_s;
}

// C1 (γ s = κ) and C2 (β∘η = κ e) linearized with Δs = Jφ Δν − r_s and Δη_t = J_vt Δν − r_η
// substituted; unknowns (γ, b1, b2, η0). Without friction the rows of (b1, b2, η0) are identity.
void SurfaceContact::jacobian(const Model& model, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const ContactKinematics& k = ws.contact_kin[c];
  BlockLdu& A = ws.ldu;
  Block& D = A.diag(ws.contact_node[c]);
  D.setIdentity();
  Eigen::Matrix<double, 4, 6> rows_b = Eigen::Matrix<double, 4, 6>::Zero(), rows_a = rows_b;
  D(0, 0) = gap_pivot(model, d, c);
  rows_b.row(0) = ct.gamma * k.Jphi_b;
  rows_a.row(0) = ct.gamma * k.Jphi_a;
  if (has_cone(ct)) {
    ConeLinearization& lin = ws.cone_lin[c];
    cone_linearization(ct, &lin);
    D.block<3, 1>(1, 0) = cone_slope(ct) * lin.coef_beta.col(0);
    D.block<3, 2>(1, 1) = lin.coef_beta.rightCols<2>();
    D.block<3, 1>(1, 3) = lin.coef_eta.col(0);
    rows_b.bottomRows<3>() = lin.coef_eta.rightCols<2>() * k.Jvt_b;
    rows_a.bottomRows<3>() = lin.coef_eta.rightCols<2>() * k.Jvt_a;
  }
  Block& b = A.block(A.upper_id(ws.contact_edge_b[c]));
  b.topRows<4>() = rows_b;
  b.bottomRows<2>().setZero();
  if (ws.contact_edge_a[c] >= 0) {
    Block& a = A.block(A.upper_id(ws.contact_edge_a[c]));
    a.topRows<4>() = rows_a;
    a.bottomRows<2>().setZero();
  }
}

int SurfaceContact::row_map(const Data& d, int c, Eigen::Matrix4d* R, Eigen::Matrix<double, 4, 6>* Kb,
                            Eigen::Matrix<double, 4, 6>* Ka) const {
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  R->setIdentity();
  (*R)(0, 0) = ct.gamma;
  Kb->setZero();
  Ka->setZero();
  Kb->row(0) = k.Jphi_b;
  Ka->row(0) = k.Jphi_a;
  if (has_cone(ct)) {
    R->bottomRightCorner<3, 3>() = workspace(d).cone_lin[c].coef_eta;
    Kb->bottomRows<2>() = k.Jvt_b;
    Ka->bottomRows<2>() = k.Jvt_a;
    return 4;
  }
  return 1;  // (without a cone rows 1–3 are identity rows)
}

// affine steps (recover): a = (Δγ, Δb1, Δb2, Δη0, Δs, ·), e = (Δη_t, ·)
void SurfaceContact::rhs(const Model&, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
                         Eigen::VectorXd* rhs) const {
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  Vec6 out = Vec6::Zero();
  Vec3 dbeta_aff = Vec3::Zero(), deta_aff = Vec3::Zero();
  if (affine_a != nullptr) {
    const Vec6& a = *affine_a;
    const Vec6& e = *affine_e;
    dbeta_aff = Vec3(cone_slope(ct) * a(0), a(1), a(2));
    deta_aff = Vec3(a(3), e(0), e(1));
  }
  out(0) = gap_rhs(d, c, kappa, affine_a);
  if (has_cone(ct))
    out.segment<3>(1) = cone_rhs(ct, workspace(d).cone_lin[c], kappa / workspace(d).cone_weight, dbeta_aff, deta_aff,
                                 ct.eta.tail<2>() - k.vt);
  inequality_unknowns(d, *rhs, c) = out;
}

// The node's own steps, and the eliminated Δs and Δη_t.
void SurfaceContact::recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const {
  const Contact& ct = d.contacts[c];
  double ds;
  Vec2 deta;
  eliminated_steps(d, c, delta, ct.eta.tail<2>() - workspace(d).contact_kin[c].vt, &ds, &deta);
  a->head<4>() = inequality_unknowns(d, delta, c).head<4>();
  if (const double eps = compliance_epsilon(d, c); eps > 0) ds += eps * (*a)(0);
  (*a)(4) = ds;
  (*a)(5) = 0;
  set_friction_dual_step(deta, e);
}

double SurfaceContact::max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const {
  alpha = std::min(alpha, orthant_max_step(ct.gamma, a(0)));
  alpha = std::min(alpha, orthant_max_step(ct.slack, a(4)));
  if (has_cone(ct)) {
    alpha = std::min(alpha, cone_max_step(friction_beta(ct, ct.gamma, ct.b), Vec3(cone_slope(ct) * a(0), a(1), a(2))));
    alpha = std::min(alpha, cone_max_step(ct.eta, Vec3(a(3), e(0), e(1))));
  }
  return alpha;
}

void SurfaceContact::apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const {
  ct->gamma += alpha * a(0);
  ct->b += alpha * a.segment<2>(1);
  ct->slack += alpha * a(4);
  if (has_cone(*ct)) ct->eta += alpha * Vec3(a(3), e(0), e(1));
}

void SurfaceContact::start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const {
  auto node = inequality_unknowns(d, *s, c);
  node.head<3>() = warm != nullptr ? Vec3(warm->gamma, warm->b(0), warm->b(1)) : Vec3(cold, 0, 0);
  node.tail<3>().setZero();
}

// Strictly inside: γ and s at least `floor`, b within 90 % of the cone, η well inside (a sliding
// start near the boundary jams).
void SurfaceContact::start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  auto node = inequality_unknowns(d, *s, c);
  ct.slack = std::max(k.phi, floor);
  ct.gamma = std::max(node(0), floor);
  ct.b = node.segment<2>(1);
  const double radius = 0.9 * friction_beta(ct, ct.gamma, ct.b)(0);
  if (ct.b.norm() > radius) ct.b *= radius / ct.b.norm();
  ct.eta = Vec3(2.0 * k.vt.norm() + initial_slack, k.vt(0), k.vt(1));
  node << ct.gamma, ct.b, ct.eta(0), 0, 0;
}

void SurfaceContact::recentre(Data& d, int c, double push, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  ct.gamma = std::max(ct.gamma, push);
  ct.slack = std::max(ct.slack, push);
  if (has_cone(ct)) {
    ct.eta(0) = std::max(ct.eta(0), ct.eta.tail<2>().norm() + push);
    const double radius = friction_beta(ct, ct.gamma, ct.b)(0);
    if (ct.b.norm() > radius - push && radius > push) ct.b *= (radius - push) / ct.b.norm();
  }
  inequality_unknowns(d, *s, c).head<4>() << ct.gamma, ct.b, ct.eta(0);
}

// γ = κ/s; with a cone β = (μγ, b) and η_t = v_t held, docs/computation.md (112).
void SurfaceContact::place_open_on_path(Data& d, int c, double kappa, double cone_weight, Eigen::VectorXd* s) const {
  Contact& ct = d.contacts[c];
  if (!(ct.slack > 1e-6 && ct.gamma * ct.slack < kappa)) return;
  ct.gamma = kappa / ct.slack;
  if (has_cone(ct) && ct.dry_limit <= 0 && ct.friction > 0) {
    const double k = kappa / (cone_weight * ct.friction * ct.gamma);
    const Vec2 eta_t = ct.eta.tail<2>();
    ct.eta(0) = 0.5 * (k + std::sqrt(k * k + 4 * eta_t.squaredNorm()));
    ct.b = -ct.friction * ct.gamma * eta_t / ct.eta(0);
  }
  inequality_unknowns(d, *s, c).head<4>() << ct.gamma, ct.b, ct.eta(0);
}

void SurfaceContact::add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const {
  *sum += ct.gamma * ct.slack;
  ++*pairs;
  if (has_cone(ct)) {
    *sum += cone_weight * cone_pair_dot(ct);
    ++*pairs;
  }
}

double SurfaceContact::max_complementarity(const Contact& ct, const ConeTest& cone_test) const {
  double m = std::abs(ct.gamma * ct.slack);
  if (has_cone(ct)) m = std::max(m, cone_pair_test(friction_beta(ct, ct.gamma, ct.b), ct.eta, cone_test));
  return m;
}

void SurfaceContact::add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const {
  *m += std::abs(ct.slack - k.phi) + (has_cone(ct) ? dt * (ct.eta.tail<2>() - k.vt).norm() : 0.0);
}

void SurfaceContact::add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const {
  *m += std::abs(ct.gamma * ct.slack - kappa);
  if (has_cone(ct)) *m += cone_weight * cone_pair_central_distance(ct, kappa / cone_weight);
}

bool SurfaceContact::converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const {
  if (!(std::abs(ct.slack - k.phi) < tol)) return false;
  return !has_cone(ct) || (ct.eta.tail<2>() - k.vt).lpNorm<Eigen::Infinity>() < tol / dt;
}

// A plain surface contact with friction sliding faster than `speed`: what the trap's test and the
// sticking start look at.
static bool sliding_frictional(const Contact& ct, const ContactKinematics& k, double speed) {
  return plain_surface_contact(ct) && ct.friction > 0 && k.vt.norm() > speed;
}

// A contact sliding into its surface whose slack has run to the boundary before its gap closed:
// raising γ has not lifted it, which is Painlevé's configuration (docs/computation.md (120)).
bool sliding_into_surface(const Data& d, double tol, double speed) {
  const Workspace& ws = workspace(d);
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    const ContactKinematics& k = ws.contact_kin[c];
    if (sliding_frictional(ct, k, speed) && k.phi < -tol && ct.slack < -k.phi) return true;
  }
  return false;
}

// The impulsive stop's start (docs/computation.md (120)): sticking, with the impulse scale of the
// stop, so that Newton's first direction is the sticking mode's.
int sliding_contacts(const Data& d, double speed) {
  const Workspace& ws = workspace(d);
  int sliding = 0;
  for (size_t c = 0; c < d.contacts.size(); ++c)
    if (sliding_frictional(d.contacts[c], ws.contact_kin[c], speed)) ++sliding;
  return sliding;
}

void start_sticking(const Model& model, Data& d, double speed, double initial_slack, Eigen::VectorXd* s) {
  const Workspace& ws = workspace(d);
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    if (!sliding_frictional(ct, ws.contact_kin[c], speed)) continue;
    const Vec2 vt = ws.contact_kin[c].vt;
    ct.gamma = std::max(ct.gamma, lighter_mass(model, ct) * vt.norm());
    ct.b = -0.5 * ct.friction * ct.gamma * vt.normalized();
    ct.eta = Vec3(initial_slack, 0, 0);
    inequality_unknowns(d, *s, static_cast<int>(c)).head<4>() << ct.gamma, ct.b, ct.eta(0);
  }
}

}  // namespace maxsim
