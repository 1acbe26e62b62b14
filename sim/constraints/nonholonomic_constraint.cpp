// A nonholonomic constraint as an equality node of 1–4 rows on one body (sim/constraints/nonholonomic.hpp):
// its velocity rows and the position rows its kind implies; padding rows hold their unknown at 0.
#include <algorithm>
#include <cmath>

#include "sim/constraints/equality.hpp"
#include "sim/constraints/nonholonomic.hpp"

namespace maxsim {

namespace {

// The step's quantities of body i for its nonholonomic constraints.
NonholonomicStep nonholonomic_step(const Data& d, const Workspace& ws, const Eigen::VectorXd& s, int i) {
  return NonholonomicStep{d.x[i], d.v[i], d.w[i], SystemLayout::velocity(s, i), SystemLayout::angular(s, i),
                          ws.x3[i], d.q[i], ws.q3[i], ws.dt, ws.knot_weight};
}

class NonholonomicConstraintKind final : public EqualityKind {
 public:
  const char* name() const override { return "nonholonomic"; }
  int count(const Model& model) const override { return static_cast<int>(model.nonholonomic.size()); }
  int node(const SystemLayout& layout, int k) const override { return layout.nonholonomic_node(k); }
  // positions (m, rad) and rates (m/s, rad/s) both against the constraint tolerance
  RowKind row_kind(const Model& model, int k, int r) const override {
    return r < model.nonholonomic[k].rows() ? RowKind::Position : RowKind::Padding;
  }

  void prepare(const Model&, Data&, Workspace&, const IntegratorScheme&, int) const override {}

  void residual(const Model& model, Data& d, Workspace& ws, const IntegratorScheme&, const Eigen::VectorXd& s, int k,
                Eigen::VectorXd* F) const override {
    const NonholonomicConstraint& c = model.nonholonomic[k];
    const SystemLayout& layout = ws.layout;
    NonholonomicRows& rows = ws.nonholonomic_rows[k];
    nonholonomic_rows(c, model.bodies[c.body], model.opt.integrator, nonholonomic_step(d, ws, s, c.body), &rows);
    const int n = layout.nonholonomic_node(k);
    const Vec6 u = layout.nonholonomic_rows(s, k);
    for (int r = 0; r < 6; ++r) layout.entry(*F, n, r) = r < rows.n ? rows.c(r) : u(r);
    layout.body(*F, c.body).noalias() -= rows.M.transpose() * u;
  }

  // zero diagonal on its rows (multipliers), identity padding
  void jacobian(const Model&, Workspace& ws, const IntegratorScheme&, const Eigen::VectorXd&, int k) const override {
    BlockLdu& A = ws.ldu;
    const NonholonomicRows& rows = ws.nonholonomic_rows[k];
    Block& D = A.diag(ws.layout.nonholonomic_node(k));
    D.setZero();
    for (int r = rows.n; r < 6; ++r) D(r, r) = 1.0;
    A.block(A.upper_id(ws.nonholonomic_edge[k])) = rows.J;
    A.block(A.lower_id(ws.nonholonomic_edge[k])) = -rows.M.transpose();
  }

  // position rows always, velocity rows with `velocities`
  void projection_matrix(const Model& model, const Data& d, Workspace& ws, int k, bool velocities) const override {
    const NonholonomicConstraint& c = model.nonholonomic[k];
    BlockLdu& A = ws.ldu;
    NonholonomicRows& rows = ws.nonholonomic_rows[k];
    nonholonomic_rows_at(c, d.x[c.body], d.q[c.body], &rows);
    Block& D = A.diag(ws.layout.nonholonomic_node(k));
    D.setIdentity();
    for (int r = 0; r < rows.n; ++r) {
      if (velocities || (rows.position >> r) & 1u)
        D(r, r) = 0.0;
      else
        rows.J.row(r).setZero();
    }
    A.block(A.upper_id(ws.nonholonomic_edge[k])) = rows.J;
    A.block(A.lower_id(ws.nonholonomic_edge[k])) = -rows.J.transpose();
  }

  double position_rhs(const Model&, const Workspace& ws, int k, Eigen::VectorXd* rhs, int* worst_row) const override {
    const NonholonomicRows& rows = ws.nonholonomic_rows[k];
    double violation = 0;
    *worst_row = -1;  // (no worst joint: not a joint)
    for (int r = 0; r < rows.n; ++r) {
      violation = std::max(violation, std::abs(rows.c(r)));
      ws.layout.entry(*rhs, ws.layout.nonholonomic_node(k), r) = -rows.c(r);
    }
    return violation;
  }

  void warm_start(const Model&, const Data& d, const Workspace& ws, int k, Eigen::VectorXd* s) const override {
    ws.layout.nonholonomic_rows(*s, k) = d.nonholonomic_impulse[k];
  }
  void store(const Model&, Data& d, Workspace& ws, const Eigen::VectorXd& s, int k) const override {
    d.nonholonomic_impulse[k] = ws.layout.nonholonomic_rows(s, k);
  }

  void velocity_rhs(const Model& model, const Data& d, const Workspace& ws, int k, Eigen::VectorXd* rhs) const override {
    const int body = model.nonholonomic[k].body;
    ws.layout.nonholonomic_rows(*rhs, k) = -ws.nonholonomic_rows[k].J * (Vec6() << d.v[body], d.w[body]).finished();
  }
};

}  // namespace

const EqualityKind& nonholonomic_constraint() {
  static const NonholonomicConstraintKind kind;
  return kind;
}

const std::vector<const EqualityKind*>& equality_kinds() {
  static const std::vector<const EqualityKind*> kinds{&joint_constraint(), &nonholonomic_constraint(),
                                                      &tendon_constraint(), &coupling_constraint()};
  return kinds;
}

}  // namespace maxsim
