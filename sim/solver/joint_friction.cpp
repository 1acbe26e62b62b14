// Dry joint friction (URDF <dynamics friction>, MJCF frictionloss): the 1-D cone |b1| ≤ dry_limit
// (= friction force × Δt) on a free joint row with the row rate as its dual (maximum
// dissipation). Not a node of the system graph: its cone rows are eliminated into the joint's
// own free row, where the friction acts as an iterate-dependent damper, so a joint with friction
// on every free row (a floating base under MJCF frictionloss) adds no nodes and no fill-in.
#include <algorithm>
#include <cmath>

#include "sim/solver/kinds.hpp"

namespace maxsim {

namespace {

// ν/F of the proximal rate (InteriorPointOptions::joint_friction_rate); 0 without friction
double proximal_rate(const Workspace& ws, const Contact& ct) {
  return ws.joint_friction_rate > 0 && ct.dry_limit > 0 ? ws.joint_friction_rate / ct.dry_limit : 0.0;
}

}  // namespace

void JointFriction::prepare(const Model&, Data&, int) const {}  // acts through its joint's row impulse

// The joint's row unknown is the row's whole impulse, friction included, so the row balances the
// friction impulse b1 (the contact's, not an unknown of s). The cone's dual is the row rate over
// the step.
void JointFriction::residual(const Model&, Data& d, const Eigen::VectorXd&, int c, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  folded_row(ws, ct, *F) -= ct.side * ct.b(0);
  const JointRows& r2 = ws.rows2[ct.joint];
  const JointRows& r3 = ws.rows3[ct.joint];
  const int r = ct.row;
  ContactKinematics& k = ws.contact_kin[c];
  k.phi = 0;
  k.vt = Vec2((r < 3 ? r3.c(r) - r2.c(r) : wrap_angle(r3.c(r) - r2.c(r))) / ws.dt, 0.0);
}

// The row rate's Jacobian at z3 (one tangential direction, no gap).
void JointFriction::linearize(const Model& model, Data& d, const Eigen::VectorXd&, int c) const {
  ContactKinematics& k = workspace(d).contact_kin[c];
  Row6 child, parent;
  joint_row_jacobian(model, d, d.contacts[c], &child, &parent);
  k.Jphi_a.setZero();
  k.Jphi_b.setZero();
  k.Jvt_a.setZero();
  k.Jvt_b.setZero();
  k.Jvt_b.row(0) = child / workspace(d).dt;
  k.Jvt_a.row(0) = parent / workspace(d).dt;
}

void JointFriction::impulse_jacobian(const Model&, Data&, int) const {}  // (in the joint's row)

// Its cone rows D3 (Δb1, Δb2, Δη0) + E J_vt Δν = rhs give Δb = offset − gain·Δv_t with
// gain = D3⁻¹E (E's first column: the row rate is the only tangential velocity). The row
// U − side·b1 + damper(Δc) = 0 then reads ΔU + side·gain₀ Δv_t + ... = −F + side·offset₀: the
// friction is a damper of conductance gain₀ (> 0: for NT scaling it is a Schur complement of W²,
// positive).
double JointFriction::fold_cone(Workspace& ws, const Contact& ct, int c) const {
  ConeLinearization& lin = ws.cone_lin[c];
  cone_linearization(ct, &lin);
  Mat3 D3;
  D3 << lin.coef_beta.col(1), lin.coef_beta.col(2), lin.coef_eta.col(0);
  // the proximal rate (InteriorPointOptions::joint_friction_rate): Δη_t carries (ν/F)Δb₁
  // (docs/computation.md (113)), the matrix only
  const double rate = proximal_rate(ws, ct);
  D3.col(0) += rate * lin.coef_eta.col(1);
  // (the columns' scales differ by W²: column scaling, which the cofactor inverse carries
  // exactly into the rows of D3⁻¹)
  ws.fold_inverse[c] = D3.inverse();
  ws.fold_gain[c] = ws.fold_inverse[c] * lin.coef_eta.col(1);
  return ct.side * ws.fold_gain[c](0);
}

double& JointFriction::folded_row(const Workspace& ws, const Contact& ct, Eigen::VectorXd& v) const {
  return joint_row_entry(ws, ct, v);
}

void JointFriction::jacobian(const Model& model, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const ContactKinematics& k = ws.contact_kin[c];
  const double g = fold_cone(ws, ct, c);
  // A sticking joint has a huge conductance: its row becomes a constrained row with a small
  // compliance on the diagonal (docs/computation.md (45): the same solution with a well-scaled
  // pivot).
  ws.fold_row_scale[c] = fold_into_joint_row(model, ws, ct, g / ws.dt, g, k.Jvt_b.row(0), k.Jvt_a.row(0));
}

// The cone's right-hand side, folded into the joint row's (see jacobian).
void JointFriction::rhs(const Model&, Data& d, int c, double kappa, const Vec6* affine_a,
                        const Vec6* affine_e, Eigen::VectorXd* rhs) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  Vec3 dbeta_aff = Vec3::Zero(), deta_aff = Vec3::Zero();
  if (affine_a != nullptr) {
    const Vec6& a = *affine_a;
    const Vec6& e = *affine_e;
    dbeta_aff = Vec3(cone_slope(ct) * a(0), a(1), a(2));
    deta_aff = Vec3(a(3), e(0), e(1));
  }
  const Vec3 out = cone_rhs(ct, ws.cone_lin[c], kappa, dbeta_aff, deta_aff, ct.eta.tail<2>() - ws.contact_kin[c].vt);
  ws.fold_offset[c] = ws.fold_inverse[c] * out;
  double& row = folded_row(ws, ct, *rhs);
  row = ws.fold_row_scale[c] * (row + ct.side * ws.fold_offset[c](0));
}

// (Δb1, Δb2, Δη0) = offset − gain·Δv_t (see jacobian)
void JointFriction::recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const {
  const Vec2 r_eta = d.contacts[c].eta.tail<2>() - workspace(d).contact_kin[c].vt;
  double ds;
  Vec2 deta;
  eliminated_steps(d, c, delta, r_eta, &ds, &deta);
  const double dvt = deta(0) + r_eta(0);
  *a << 0, workspace(d).fold_offset[c] - workspace(d).fold_gain[c] * dvt, ds, 0;
  deta(0) += proximal_rate(workspace(d), d.contacts[c]) * (*a)(1);  // (see jacobian)
  set_friction_dual_step(deta, e);
}

double JointFriction::max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const {
  alpha = std::min(alpha, cone_max_step(friction_beta(ct, ct.gamma, ct.b), Vec3(cone_slope(ct) * a(0), a(1), a(2))));
  return std::min(alpha, cone_max_step(ct.eta, Vec3(a(3), e(0), e(1))));
}

void JointFriction::apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const {
  ct->gamma += alpha * a(0);
  ct->b += alpha * a.segment<2>(1);
  ct->slack += alpha * a(4);
  ct->eta += alpha * Vec3(a(3), e(0), e(1));
}

// its impulse lives in the contact only
void JointFriction::start_impulse(Data& d, int c, const Contact* warm, double, Eigen::VectorXd*) const {
  d.contacts[c].b = warm != nullptr ? warm->b : Vec2::Zero();
}

void JointFriction::start(Data& d, int c, double, double initial_slack, Eigen::VectorXd*) const {
  Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  ct.slack = 1.0;  // (no normal part)
  ct.gamma = 0.0;
  const double radius = 0.9 * friction_beta(ct, ct.gamma, ct.b)(0);
  if (ct.b.norm() > radius) ct.b *= radius / ct.b.norm();
  // the dual's distance from its cone's edge: at least the rate a step may change the row by
  // (InteriorPointOptions::joint_friction_start_rate, docs/computation.md (44))
  const double rate = k.vt.norm();
  ct.eta = Vec3(std::max(2.0 * rate + initial_slack, rate + workspace(d).joint_friction_start_rate), k.vt(0), k.vt(1));
}

void JointFriction::recentre(Data& d, int c, double push, Eigen::VectorXd*) const {
  Contact& ct = d.contacts[c];
  ct.eta(0) = std::max(ct.eta(0), ct.eta.tail<2>().norm() + push);
  const double radius = friction_beta(ct, ct.gamma, ct.b)(0);
  if (ct.b.norm() > radius - push && radius > push) ct.b *= (radius - push) / ct.b.norm();
}

void JointFriction::add_complementarity(const Contact& ct, double, double* sum, int* pairs) const {
  *sum += cone_pair_dot(ct);
  ++*pairs;
}

double JointFriction::max_complementarity(const Contact& ct, const ConeTest&) const { return cone_pair_max(ct); }

void JointFriction::add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const {
  *m += dt * (ct.eta.tail<2>() - k.vt).norm();
}

void JointFriction::add_central_distance(const Contact& ct, double kappa, double, double* m) const {
  *m += cone_pair_central_distance(ct, kappa);
}

bool JointFriction::converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const {
  return (ct.eta.tail<2>() - k.vt).lpNorm<Eigen::Infinity>() < tol / dt;
}

// ---- dry friction on a tendon's length (docs/computation.md (116)) -------------------------------

// The tendon node's impulse u balances the friction impulse b1 (row 0: u − side·b1 + damper(Δℓ) +
// … = 0, as a joint's row); the cone's dual is the length's rate over the step.
void TendonFriction::residual(const Model&, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  folded_row(ws, ct, *F) -= ct.side * ct.b(0);
  ContactKinematics& k = ws.contact_kin[c];
  k.phi = 0;
  k.vt = Vec2((SystemLayout::node(s, ct.body_b)(1) - ws.tendon_length2[ct.tendon]) / ws.dt, 0.0);
}

void TendonFriction::linearize(const Model&, Data& d, const Eigen::VectorXd&, int c) const {
  ContactKinematics& k = workspace(d).contact_kin[c];
  k.Jphi_a.setZero();
  k.Jphi_b.setZero();
  k.Jvt_a.setZero();
  k.Jvt_b.setZero();
  k.Jvt_b(0, 1) = 1.0 / workspace(d).dt;  // ∂(ℓ − L(z2))/Δt / ∂ℓ
}

// The rate depends on the node's own length ℓ only: the fold is within the node's diagonal block.
// The row is not rescaled as a joint's (a tendon limit's impulse enters it through the limit's own
// block, assembled apart); the pivots' equilibrated test sees through the row's scale.
void TendonFriction::jacobian(const Model&, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const double g = fold_cone(ws, ct, c);
  ws.fold_row_scale[c] = 1.0;
  ws.ldu.diag(ct.body_b).row(0) += g * ws.contact_kin[c].Jvt_b.row(0);
}

double& TendonFriction::folded_row(const Workspace&, const Contact& ct, Eigen::VectorXd& v) const {
  return v(6 * ct.body_b);  // the tendon node's impulse row
}

}  // namespace maxsim
