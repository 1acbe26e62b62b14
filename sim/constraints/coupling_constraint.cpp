// A coupling as an equality node of one constrained row (docs/computation.md (86)):
// c = (a − a0) − Σ_k polycoef[k]·(b − b0)^k held at z3 like a joint's constrained row, a and b
// joint-row coordinates or tendon lengths; its multiplier acts on the bodies through ∇c at z2.
#include <algorithm>
#include <cmath>

#include "sim/constraints/equality.hpp"
#include "sim/constraints/tendon.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/solver/inequality.hpp"

namespace maxsim {

namespace {

int slot(const std::vector<int>& bodies, int body) {
  return static_cast<int>(std::find(bodies.begin(), bodies.end(), body) - bodies.begin());
}

// One side of coupling c at z2 or z3 (within a step): its value from its zero configuration's,
// and scale × its gradient added to `grad` (per body of ws.coupling_bodies[k]).
double side_at_knot(const Model& model, const Data& d, Workspace& ws, const IntegratorScheme& scheme, int k,
                    bool a, bool z3, double scale_of_gradient, bool with_gradient) {
  const Coupling& c = model.couplings[k];
  const int index = a ? c.a : c.b, row = a ? c.a_row : c.b_row;
  std::vector<Vec6>& grad = z3 ? ws.coupling_grad3[k] : ws.coupling_grad2[k];
  const std::vector<int>& bodies = ws.coupling_bodies[k];
  if (c.kind == Coupling::Kind::Tendon) {
    if (with_gradient) {
      const std::vector<Vec6>& g = z3 ? ws.tendon_grad3[index] : ws.tendon_grad2[index];
      for (size_t i = 0; i < g.size(); ++i) grad[slot(bodies, ws.tendon_bodies[index][i])] += scale_of_gradient * g[i];
    }
    return (z3 ? ws.tendon_length3 : ws.tendon_length2)[index] - ws.tendon_zero_length[index];
  }
  const Joint& jt = model.joints[index];
  if (z3 && ws.passive[index]) joint_rows_at_z3(model, ws, scheme, index);  // (the solve skips them)
  const JointRows& rows = z3 ? ws.rows3[index] : ws.rows2[index];
  if (with_gradient) {
    if (jt.parent != kWorld) grad[slot(bodies, jt.parent)] += scale_of_gradient * rows.Ja.row(row).transpose();
    grad[slot(bodies, jt.child)] += scale_of_gradient * rows.Jb.row(row).transpose();
  }
  return joint_row_value(rows, row, row >= 3 ? d.joint_angle[index](row - 3) : 0.0);
}

// c at z2 or z3 and its gradient (ws.coupling_grad2/3[k])
double coupling_at_knot(const Model& model, const Data& d, Workspace& ws, const IntegratorScheme& scheme, int k,
                        bool z3) {
  const Coupling& c = model.couplings[k];
  for (Vec6& g : z3 ? ws.coupling_grad3[k] : ws.coupling_grad2[k]) g.setZero();
  double b = 0, slope = 0;
  if (c.b >= 0) b = side_at_knot(model, d, ws, scheme, k, false, z3, 0.0, false);
  const double p = coupling_polynomial(c, b, &slope);
  if (c.b >= 0 && slope != 0) side_at_knot(model, d, ws, scheme, k, false, z3, -slope, true);
  return side_at_knot(model, d, ws, scheme, k, true, z3, 1.0, true) - p;
}

class CouplingConstraint final : public EqualityKind {
 public:
  const char* name() const override { return "coupling"; }
  int count(const Model& model) const override { return static_cast<int>(model.couplings.size()); }
  int node(const SystemLayout& layout, int k) const override { return layout.coupling_node(k); }
  RowKind row_kind(const Model&, int, int r) const override { return r == 0 ? RowKind::Position : RowKind::Padding; }

  void prepare(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, int k) const override {
    coupling_at_knot(model, d, ws, scheme, k, false);
  }

  void residual(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, const Eigen::VectorXd& s,
                int k, Eigen::VectorXd* F) const override {
    const int n = ws.layout.coupling_node(k);
    auto u = SystemLayout::node(s, n);
    auto row = SystemLayout::node(*F, n);
    row = u;  // padding
    row(0) = coupling_at_knot(model, d, ws, scheme, k, true);
    const std::vector<int>& bodies = ws.coupling_bodies[k];
    for (size_t i = 0; i < bodies.size(); ++i) SystemLayout::body(*F, bodies[i]).noalias() -= ws.coupling_grad2[k][i] * u(0);
  }

  // zero diagonal on its row (a multiplier), identity padding
  void jacobian(const Model&, Workspace& ws, const IntegratorScheme&, const Eigen::VectorXd& s, int k) const override {
    BlockLdu& A = ws.ldu;
    Block& D = A.diag(ws.layout.coupling_node(k));
    D.setIdentity();
    D(0, 0) = 0.0;
    const std::vector<int>& bodies = ws.coupling_bodies[k];
    for (size_t i = 0; i < bodies.size(); ++i) {
      const int e = ws.coupling_edges[k][i];
      Mat6 J = Mat6::Zero();
      J.row(0) = ws.coupling_grad3[k][i].transpose();
      A.block(A.upper_id(e)) = joint_body_block_unscaled(J, SystemLayout::angular(s, bodies[i]), ws.dt);
      Block& lower = A.block(A.lower_id(e));
      lower.setZero();
      lower.col(0) = -ws.coupling_grad2[k][i];
    }
  }

  // its row at the current poses: c and ∇c (into coupling_value and coupling_grad2)
  void projection_matrix(const Model& model, const Data& d, Workspace& ws, int k, bool) const override {
    const Coupling& c = model.couplings[k];
    const std::vector<int>& bodies = ws.coupling_bodies[k];
    std::vector<Vec6>& grad = ws.coupling_grad2[k];
    for (Vec6& g : grad) g.setZero();
    BodyGradient& side = ws.tendon_scratch;
    double b = 0, slope = 0;
    if (c.b >= 0) b = coupling_coordinate(model, d, c, false, &side);
    const double p = coupling_polynomial(c, b, &slope);
    if (c.b >= 0)
      for (const auto& [body, g] : side) grad[slot(bodies, body)] -= slope * g;
    ws.coupling_value[k] = coupling_coordinate(model, d, c, true, &side) - p;
    for (const auto& [body, g] : side) grad[slot(bodies, body)] += g;
    BlockLdu& A = ws.ldu;
    Block& D = A.diag(ws.layout.coupling_node(k));
    D.setIdentity();
    D(0, 0) = 0.0;
    for (size_t i = 0; i < bodies.size(); ++i) {
      const int e = ws.coupling_edges[k][i];
      A.block(A.upper_id(e)).row(0) = grad[i].transpose();
      A.block(A.lower_id(e)).col(0) = -grad[i];
    }
  }

  double position_rhs(const Model&, const Workspace& ws, int k, Eigen::VectorXd* rhs, int* worst_row) const override {
    *worst_row = -1;
    ws.layout.entry(*rhs, ws.layout.coupling_node(k), 0) = -ws.coupling_value[k];
    return std::abs(ws.coupling_value[k]);
  }

  void velocity_rhs(const Model&, const Data& d, const Workspace& ws, int k, Eigen::VectorXd* rhs) const override {
    double rate = 0;
    const std::vector<int>& bodies = ws.coupling_bodies[k];
    for (size_t i = 0; i < bodies.size(); ++i)
      rate += ws.coupling_grad2[k][i].head<3>().dot(d.v[bodies[i]]) + ws.coupling_grad2[k][i].tail<3>().dot(d.w[bodies[i]]);
    ws.layout.entry(*rhs, ws.layout.coupling_node(k), 0) = -rate;
  }

  void warm_start(const Model&, const Data& d, const Workspace& ws, int k, Eigen::VectorXd* s) const override {
    auto u = SystemLayout::node(*s, ws.layout.coupling_node(k));
    u.setZero();
    u(0) = k < static_cast<int>(d.coupling_impulse.size()) ? d.coupling_impulse[k] : 0.0;
  }

  void store(const Model& model, Data& d, Workspace& ws, const Eigen::VectorXd& s, int k) const override {
    d.coupling_impulse.resize(model.couplings.size(), 0.0);
    d.coupling_impulse[k] = s(6 * ws.layout.coupling_node(k));
  }
};

}  // namespace

const EqualityKind& coupling_constraint() {
  static const CouplingConstraint kind;
  return kind;
}

}  // namespace maxsim
