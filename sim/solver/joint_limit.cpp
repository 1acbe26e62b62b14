// Joint limit (docs/computation.md (43)): the surface contact's frictionless rows on one free joint
// row (the limits of a step are found by append_joint_limits, sim/constraints/joint_limits.hpp).
#include "sim/solver/kinds.hpp"

namespace maxsim {

// The limit's impulse γ pushes along the joint row's own map at z2.
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

}  // namespace maxsim
