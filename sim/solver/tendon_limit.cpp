// Tendon limit (docs/computation.md (87)): the joint limit's frictionless rows on a tendon node's
// length ℓ (the limits of a step are found by append_tendon_limits, sim/constraints/tendon.hpp).
#include "sim/solver/kinds.hpp"

namespace maxsim {

// The impulse side·γ joins the tendon's impulse u (row 0 of the node: u − side·γ + … = 0).
void TendonLimit::prepare(const Model&, Data& d, int c) const {
  Workspace& ws = workspace(d);
  ws.contact_map_b[c].setZero();
  ws.contact_map_b[c](0, 0) = -d.contacts[c].side;
  ws.contact_map_a[c].setZero();
}

// The gap to the bound on the node's length unknown ℓ (row 1), held equal to L(z3) by the node.
void TendonLimit::residual(const Model&, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const {
  const Contact& ct = d.contacts[c];
  add_impulse(d, c, inequality_unknowns(d, s, c).head<3>(), F);
  ContactKinematics& k = workspace(d).contact_kin[c];
  k.phi = ct.side * (SystemLayout::node(s, ct.body_b)(1) - ct.bound);
  k.vt.setZero();
}

void TendonLimit::linearize(const Model&, Data& d, const Eigen::VectorXd&, int c) const {
  ContactKinematics& k = workspace(d).contact_kin[c];
  k.Jphi_b.setZero();
  k.Jphi_b(1) = d.contacts[c].side;
  k.Jphi_a.setZero();
  k.Jvt_a.setZero();
  k.Jvt_b.setZero();
}

}  // namespace maxsim
