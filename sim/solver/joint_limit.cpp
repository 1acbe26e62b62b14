// Joint limit (docs/computation.md (43)): the surface contact's frictionless rows on one free joint
// row, or on a ball joint's rotation angle ((115)); the limits of a step are found by
// append_joint_limits (sim/constraints/joint_limits.hpp).
#include "sim/solver/kinds.hpp"

#include <algorithm>

#include "sim/constraints/joint.hpp"

namespace maxsim {

// The limit's impulse γ pushes along the joint row's own map at z2.
// Open for a settled start beyond 1e-4 of its coordinate (rad or m), if the contacts' margin is
// larger: a joint resting near its stop does not reach it within a step the way a body falls onto
// its floor (settled_open_gap's margin). The collapsed A1 MJCF lying with a limit 0.73 mrad from
// its bound: 12.6 → 1.9 iterations per step on the same states.
double JointLimit::settled_open_gap(double contact_gap) const { return std::min(contact_gap, 1e-4); }

double JointLimit::compliance(const Model& model, const Contact& ct, const InteriorPointOptions& opt, double dt) const {
  return opt.limit_compliance * dt / model.bodies[ct.body_b].mass;
}

void JointLimit::prepare(const Model&, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  const JointRows& r2 = workspace(d).rows2[ct.joint];
  workspace(d).contact_map_b[c].setZero();
  workspace(d).contact_map_b[c].col(0) = -ct.side * r2.Jb.row(ct.row).transpose();
  workspace(d).contact_map_a[c].setZero();
  workspace(d).contact_map_a[c].col(0) = -ct.side * r2.Ja.row(ct.row).transpose();
}

// The gap to the bound: the row's coordinate at z3 (unwrapped for rotations); a compliant limit
// gives way by ε γ (docs/computation.md (114)).
void JointLimit::row_gap(Data& d, int c, double gamma) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const JointRows& r2 = ws.rows2[ct.joint];
  const JointRows& r3 = ws.rows3[ct.joint];
  const int r = ct.row;
  const double coord = r < 3 ? r3.c(r) : d.joint_angle[ct.joint](r - 3) + wrap_angle(r3.c(r) - r2.c(r));
  ContactKinematics& k = ws.contact_kin[c];
  k.phi = ct.side * (coord - ct.bound);
  if (const double eps = compliance_epsilon(d, c); eps > 0) k.phi += eps * gamma;
  k.vt.setZero();
}

void JointLimit::residual(const Model&, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  add_impulse(d, c, inequality_unknowns(d, s, c).head<3>(), F);
  row_gap(d, c, inequality_unknowns(d, s, c)(0));
}

// The row's Jacobian at z3 (a limit has no tangential part).
void JointLimit::linearize(const Model& model, Data& d, const Eigen::VectorXd&, int c) const {
  const Contact& ct = d.contacts[c];
  ContactKinematics& k = workspace(d).contact_kin[c];
  Row6 child, parent;
  joint_row_jacobian(model, d, ct, &child, &parent);
  k.Jphi_b = ct.side * child;
  k.Jphi_a = ct.side * parent;
  k.Jvt_a.setZero();
  k.Jvt_b.setZero();
}

// The cone limit's impulse γ pushes along the angle's gradient over the step (joint_cone_map_row):
// at the start, z3 = z2; each residual moves it with the iterate.
void JointConeLimit::prepare(const Model& model, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const Vec4& q2 = ws.rows2[ct.joint].q_rel;
  const JointConeRow map = joint_cone_map_row(model.joints[ct.joint], q2, q2);
  ws.contact_map_b[c].setZero();
  ws.contact_map_b[c].col(0) = -ct.side * map.Jb.transpose();
  ws.contact_map_a[c].setZero();
  ws.contact_map_a[c].col(0) = -ct.side * map.Ja.transpose();
}

// The gap to the bound: the relative rotation's angle at z3; the impulse's map at the iterate.
void JointConeLimit::residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const Joint& jt = model.joints[ct.joint];
  const JointConeRow map = joint_cone_map_row(jt, ws.rows2[ct.joint].q_rel, ws.rows3[ct.joint].q_rel);
  ws.contact_map_b[c].col(0) = -ct.side * map.Jb.transpose();
  ws.contact_map_a[c].col(0) = -ct.side * map.Ja.transpose();
  add_impulse(d, c, inequality_unknowns(d, s, c).head<3>(), F);
  ContactKinematics& k = ws.contact_kin[c];
  k.phi = ct.side * (joint_cone_row(jt, ws.rows3[ct.joint].q_rel).angle - ct.bound);
  if (const double eps = compliance_epsilon(d, c); eps > 0) k.phi += eps * inequality_unknowns(d, s, c)(0);
  k.vt.setZero();
}

// The angle's Jacobian at z3 with respect to the bodies' unknowns (joint_row_unscaled).
void JointConeLimit::linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const Joint& jt = model.joints[ct.joint];
  const JointConeRow row = joint_cone_row(jt, ws.rows3[ct.joint].q_rel);
  ContactKinematics& k = ws.contact_kin[c];
  k.Jphi_b = ct.side * joint_row_unscaled(row.Jb, SystemLayout::angular(s, jt.child), ws.dt);
  k.Jphi_a = jt.parent != kWorld ? Row6(ct.side * joint_row_unscaled(row.Ja, SystemLayout::angular(s, jt.parent), ws.dt))
                                 : Row6(Row6::Zero());
  k.Jvt_a.setZero();
  k.Jvt_b.setZero();
}

}  // namespace maxsim

// ---- a row limit folded into its joint's row (docs/computation.md (127)) ----------------------

namespace maxsim {

void FoldedJointLimit::prepare(const Model&, Data&, int) const {}  // acts through its joint's row impulse

// The joint's row unknown is the row's whole impulse, the limit's included: the row balances γ
// (the Contact's, not an unknown of s), as joint friction's b1. The gap is JointLimit's.
void FoldedJointLimit::residual(const Model&, Data& d, const Eigen::VectorXd&, int c, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  joint_row_entry(workspace(d), ct, *F) -= ct.side * ct.gamma;
  row_gap(d, c, ct.gamma);
}

void FoldedJointLimit::impulse_jacobian(const Model&, Data&, int) const {}  // (in the joint's row)

// The pair's row of a limit node, d Δγ + γ Jφ Δν = r (SurfaceContact::gap_pivot, gap_rhs), solved
// for Δγ = r/d − (γ/d) Jφ Δν and put into the row U − side·γ + … = 0: ΔU + side·(γ/d)·Jφ Δν + … =
// −F + side·r/d, a damper of conductance γ/d (Jφ is side times the row's Jacobian). The row is
// divided by 1 + its damping and conductance, as joint friction's (fold_into_joint_row): an active
// limit's row becomes a constrained row with the compliance d/γ.
void FoldedJointLimit::jacobian(const Model& model, Data& d, int c) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  const ContactKinematics& k = ws.contact_kin[c];
  const double den = gap_pivot(model, d, c);
  const double g = ct.gamma / den;
  // (the row may already be divided by an earlier fold's scale — joint friction's, or the other
  // side's limit — which its diagonal, 1 before any fold, holds: the terms added here get it too)
  const double earlier = ws.ldu.diag(ws.layout.joint_node(ct.joint))(ct.row, ct.row);
  ws.fold_gain[c] = Vec3(g, 1.0 / den, earlier);  // (conductance, 1/d, the row's earlier scale)
  ws.fold_row_scale[c] = fold_into_joint_row(model, ws, ct, g, earlier * ct.side * g, k.Jphi_b, k.Jphi_a);
}

// The pair's right-hand side r (SurfaceContact::rhs), folded into the joint row's (see jacobian).
void FoldedJointLimit::rhs(const Model&, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6*,
                           Eigen::VectorXd* rhs) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  ws.fold_offset[c](0) = ws.fold_gain[c](1) * gap_rhs(d, c, kappa, affine_a);
  double& row = joint_row_entry(ws, ct, *rhs);
  row = ws.fold_row_scale[c] * (row + ws.fold_gain[c](2) * ct.side * ws.fold_offset[c](0));
}

// Δγ = r/d − (γ/d) Jφ Δν and Δs = Jφ Δν − r_s (+ ε Δγ) from the bodies' steps (see jacobian).
void FoldedJointLimit::recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const {
  const Contact& ct = d.contacts[c];
  const Workspace& ws = workspace(d);
  double ds;
  Vec2 deta;
  eliminated_steps(d, c, delta, Vec2::Zero(), &ds, &deta);
  const double dphi = ds + (ct.slack - ws.contact_kin[c].phi);  // Jφ Δν
  const double dgamma = ws.fold_offset[c](0) - ws.fold_gain[c](0) * dphi;
  if (const double eps = compliance_epsilon(d, c); eps > 0) ds += eps * dgamma;
  *a << dgamma, 0, 0, 0, ds, 0;
  e->setZero();
}

// its impulse lives in the contact only
void FoldedJointLimit::start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd*) const {
  d.contacts[c].gamma = warm != nullptr ? warm->gamma : cold;
}

// SurfaceContact::start without a node: γ and s at least `floor`
void FoldedJointLimit::start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd*) const {
  Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  ct.slack = std::max(k.phi, floor);
  ct.gamma = std::max(ct.gamma, floor);
  ct.b.setZero();
  ct.eta = Vec3(initial_slack, 0, 0);
}

void FoldedJointLimit::recentre(Data& d, int c, double push, Eigen::VectorXd*) const {
  Contact& ct = d.contacts[c];
  ct.gamma = std::max(ct.gamma, push);
  ct.slack = std::max(ct.slack, push);
}

// γ = κ/s (docs/computation.md (112))
void FoldedJointLimit::place_open_on_path(Data& d, int c, double kappa, double, Eigen::VectorXd*) const {
  Contact& ct = d.contacts[c];
  if (ct.slack > 1e-6 && ct.gamma * ct.slack < kappa) ct.gamma = kappa / ct.slack;
}

}  // namespace maxsim
