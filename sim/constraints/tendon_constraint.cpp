// A tendon as an equality node of two rows (docs/computation.md (83)–(85), (88)): its impulse u over the
// step balances damper, spring (with MuJoCo's dead band), armature and actuators like a joint's free
// row, and its length ℓ is held equal to L(z3), so that a tendon limit is an inequality on ℓ alone.
// u acts on the bodies through the length's gradient at z2 (the variational scheme's impulse maps).
#include <algorithm>

#include "sim/constraints/equality.hpp"
#include "sim/constraints/tendon.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/solver/inequality.hpp"
#include "sim/tendon/spatial.hpp"

namespace maxsim {

namespace {

// index of `body` in `bodies` (it is there: tendon_bodies lists every body of the gradient)
int slot(const std::vector<int>& bodies, int body) {
  return static_cast<int>(std::find(bodies.begin(), bodies.end(), body) - bodies.begin());
}

// the spring's stretch beyond its dead band [lower, upper] (MuJoCo's springlength pair), or beyond
// the length at the zero configuration
double stretch(const Tendon& t, double zero_length, double length) {
  const double lo = t.spring_from_zero ? zero_length : t.spring_lower;
  const double hi = t.spring_from_zero ? zero_length : t.spring_upper;
  return length > hi ? length - hi : length < lo ? length - lo : 0.0;
}

}  // namespace

void tendon_at_knot(const Model& model, const Data& d, Workspace& ws, const IntegratorScheme& scheme, int t, bool z3) {
  const Tendon& tendon = model.tendons[t];
  const std::vector<int>& bodies = ws.tendon_bodies[t];
  std::vector<Vec6>& grad = z3 ? ws.tendon_grad3[t] : ws.tendon_grad2[t];
  for (Vec6& g : grad) g.setZero();
  double length = 0;
  if (tendon.kind == Tendon::Kind::Fixed) {
    for (const TendonJointTerm& term : tendon.joints) {
      const int j = term.joint;
      const Joint& jt = model.joints[j];
      if (z3 && ws.passive[j]) joint_rows_at_z3(model, ws, scheme, j);  // (the solve skips them)
      const JointRows& rows = z3 ? ws.rows3[j] : ws.rows2[j];
      const double angle = term.row >= 3 ? d.joint_angle[j](term.row - 3) : 0.0;
      length += term.coef * (joint_row_value(rows, term.row, angle) + (jt.dof() == 1 ? jt.ref : 0.0));
      if (jt.parent != kWorld) grad[slot(bodies, jt.parent)] += term.coef * rows.Ja.row(term.row).transpose();
      grad[slot(bodies, jt.child)] += term.coef * rows.Jb.row(term.row).transpose();
    }
  } else {
    for (size_t i = 0; i < ws.tendon_poses.size(); ++i)
      ws.tendon_poses[i] = z3 ? Pose{ws.x3[i], ws.q3[i]} : Pose{d.x[i], d.q[i]};
    length = spatial_tendon_length(model, tendon, ws.tendon_poses, &ws.tendon_scratch);
    for (const auto& [b, g] : ws.tendon_scratch)
      if (b != kWorld) grad[slot(bodies, b)] += g;
  }
  (z3 ? ws.tendon_length3 : ws.tendon_length2)[t] = length;
}

namespace {

class TendonConstraint final : public EqualityKind {
 public:
  const char* name() const override { return "tendon"; }
  int count(const Model& model) const override { return static_cast<int>(model.tendons.size()); }
  int node(const SystemLayout& layout, int t) const override { return layout.tendon_node(t); }
  // an inert tendon's rows hold their unknowns at 0 (padding)
  RowKind row_kind(const Model&, int, int r) const override {
    return r == 0 ? RowKind::Impulse : r == 1 ? RowKind::Position : RowKind::Padding;
  }

  void prepare(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, int t) const override {
    tendon_at_knot(model, d, ws, scheme, t, false);
    double rate = 0;  // the length's rate over [t1, t2] (the armature's previous rate)
    const std::vector<int>& bodies = ws.tendon_bodies[t];
    for (size_t i = 0; i < bodies.size(); ++i)
      rate += ws.tendon_grad2[t][i].head<3>().dot(d.v[bodies[i]]) + ws.tendon_grad2[t][i].tail<3>().dot(d.w[bodies[i]]);
    ws.tendon_rate2[t] = rate;
    ws.tendon_servo[t] = tendon_servo(model, d, t);
  }

  void knot(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, int t) const override {
    tendon_at_knot(model, d, ws, scheme, t, true);
  }

  void residual(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, const Eigen::VectorXd& s,
                int t, Eigen::VectorXd* F) const override {
    tendon_at_knot(model, d, ws, scheme, t, true);
    const SystemLayout& layout = ws.layout;
    const int n = layout.tendon_node(t);
    auto u = SystemLayout::node(s, n);
    auto row = SystemLayout::node(*F, n);
    row = u;  // padding (and an inert tendon's rows)
    if (!ws.tendon_active[t]) return;
    const Tendon& tendon = model.tendons[t];
    const double dt = ws.dt, length2 = ws.tendon_length2[t], dl = u(1) - length2;
    const double spring = stretch(tendon, ws.tendon_zero_length[t], scheme.spring_coordinate(length2, dl));
    const TendonServo& servo = ws.tendon_servo[t];  // (88): at the new state
    row(0) = u(0) + (tendon.damping + servo.damping) * dl +
             tendon.armature * scheme.armature_term(dl, ws.tendon_rate2[t], 0.0, ws) + dt * tendon.stiffness * spring -
             dt * (d.tendon_force[t] + servo.force - servo.stiffness * u(1));
    row(1) = u(1) - ws.tendon_length3[t];
    const std::vector<int>& bodies = ws.tendon_bodies[t];
    for (size_t i = 0; i < bodies.size(); ++i) SystemLayout::body(*F, bodies[i]).noalias() -= ws.tendon_grad2[t][i] * u(0);
  }

  void jacobian(const Model& model, Workspace& ws, const IntegratorScheme& scheme, const Eigen::VectorXd& s,
                int t) const override {
    BlockLdu& A = ws.ldu;
    Block& D = A.diag(ws.layout.tendon_node(t));
    D.setIdentity();
    if (!ws.tendon_active[t]) return;  // no edges (build_graph)
    const Tendon& tendon = model.tendons[t];
    const double dt = ws.dt, length2 = ws.tendon_length2[t], dl = s(6 * ws.layout.tendon_node(t) + 1) - length2;
    // ∂(row 0)/∂ℓ: the terms are linear in dl, the spring's slope 0 inside its dead band
    const double arm = scheme.armature_term(1.0, 0.0, 0.0, ws) - scheme.armature_term(0.0, 0.0, 0.0, ws);
    const double coordinate = scheme.spring_coordinate(length2, dl);
    const double spring_slope = scheme.spring_coordinate(0.0, 1.0) - scheme.spring_coordinate(0.0, 0.0);
    const double spring_active = stretch(tendon, ws.tendon_zero_length[t], coordinate) != 0 ? 1.0 : 0.0;
    const TendonServo& servo = ws.tendon_servo[t];
    D(0, 1) = tendon.damping + servo.damping + tendon.armature * arm + dt * tendon.stiffness * spring_slope * spring_active +
              dt * servo.stiffness;
    const std::vector<int>& bodies = ws.tendon_bodies[t];
    for (size_t i = 0; i < bodies.size(); ++i) {
      const int e = ws.tendon_edges[t][i];
      Mat6 J = Mat6::Zero();
      J.row(1) = -ws.tendon_grad3[t][i].transpose();  // row 1: ℓ − L(z3)
      A.block(A.upper_id(e)) = joint_body_block_unscaled(J, SystemLayout::angular(s, bodies[i]), dt);
      Block& lower = A.block(A.lower_id(e));
      lower.setZero();
      lower.col(0) = -ws.tendon_grad2[t][i];
    }
  }

  // no rows of its own: identity rows without multiplier (the edges stay zero)
  void projection_matrix(const Model&, const Data&, Workspace& ws, int t, bool) const override {
    ws.ldu.diag(ws.layout.tendon_node(t)).setIdentity();
  }
  double position_rhs(const Model&, const Workspace&, int, Eigen::VectorXd*, int* worst_row) const override {
    *worst_row = -1;
    return 0.0;
  }
  void velocity_rhs(const Model&, const Data&, const Workspace&, int, Eigen::VectorXd*) const override {}

  void warm_start(const Model&, const Data& d, const Workspace& ws, int t, Eigen::VectorXd* s) const override {
    auto u = SystemLayout::node(*s, ws.layout.tendon_node(t));
    u.setZero();
    if (!ws.tendon_active[t]) return;
    u(0) = t < static_cast<int>(d.tendon_impulse.size()) ? d.tendon_impulse[t] : 0.0;
    u(1) = ws.tendon_length2[t];
  }

  void store(const Model& model, Data& d, Workspace& ws, const Eigen::VectorXd& s, int t) const override {
    d.tendon_impulse.resize(model.tendons.size(), 0.0);
    d.tendon_length.resize(model.tendons.size(), 0.0);
    d.tendon_impulse[t] = s(6 * ws.layout.tendon_node(t));
    d.tendon_length[t] = ws.tendon_length3[t];
  }
};

}  // namespace

const EqualityKind& tendon_constraint() {
  static const TendonConstraint kind;
  return kind;
}

}  // namespace maxsim
