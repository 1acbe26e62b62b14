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

// The gap to the bound: the row's coordinate at z3 (unwrapped for rotations).
void JointLimit::residual(const Model&, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  Workspace& ws = workspace(d);
  add_impulse(d, c, inequality_unknowns(d, s, c).head<3>(), F);
  const JointRows& r2 = ws.rows2[ct.joint];
  const JointRows& r3 = ws.rows3[ct.joint];
  const int r = ct.row;
  const double coord = r < 3 ? r3.c(r) : d.joint_angle[ct.joint](r - 3) + wrap_angle(r3.c(r) - r2.c(r));
  ContactKinematics& k = ws.contact_kin[c];
  k.phi = ct.side * (coord - ct.bound);
  // a compliant limit gives way by ε γ (docs/computation.md (114))
  if (const double eps = compliance_epsilon(d, c); eps > 0) k.phi += eps * inequality_unknowns(d, s, c)(0);
  k.vt.setZero();
}

// The row's Jacobian at z3 (a limit has no tangential part).
void JointLimit::linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const {
  const Contact& ct = d.contacts[c];
  ContactKinematics& k = workspace(d).contact_kin[c];
  Row6 child, parent;
  joint_row_jacobian(model, d, s, ct, &child, &parent);
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
