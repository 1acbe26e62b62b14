// A joint as an equality constraint node: six rows, constrained rows held at z3, free rows
// balancing the row impulse against damper, spring, armature and actuation (docs/computation.md
// (13)–(20)); its impulse acts on its bodies as the integrator says (maps at z2, or force maps).
#include "sim/constraints/equality.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/constraints/joint.hpp"
#include "sim/solver/projection.hpp"
#include "sim/solver/inequality.hpp"

namespace maxsim {

void joint_rows_at_z3(const Model& model, Workspace& ws, const IntegratorScheme& scheme, int j) {
  const Joint& jt = model.joints[j];
  const Pose a = jt.parent == kWorld ? Pose{} : Pose{ws.x3[jt.parent], ws.q3[jt.parent]};
  joint_rows(jt, a, Pose{ws.x3[jt.child], ws.q3[jt.child]}, ws.joint_frame_a[j], ws.joint_frame_b[j], &ws.rows3[j],
             &ws.rows2[j].q_rel, scheme.bilinear_rows());
}

namespace {

// Newton-matrix block `out` of a joint with respect to one body's unknowns, from its unscaled
// block (kept in the workspace for the limits and friction folded into the joint's rows,
// joint_row_jacobian); free rows enter through their damper, armature and spring only
// (IntegratorScheme::free_row_gain).
void joint_body_block(const IntegratorScheme& scheme, const Joint& jt, const Vec6& servo_damping, const Mat6& unscaled,
                      const Workspace& ws, Block* out) {
  *out = unscaled;
  for (int r = 0; r < 6; ++r)
    if (!jt.row_constrained(r)) out->row(r) *= scheme.free_row_gain(jt, r, servo_damping(r), ws);
}

class JointConstraint final : public EqualityKind {
 public:
  const char* name() const override { return "joint"; }
  int count(const Model& model) const override { return static_cast<int>(model.joints.size()); }
  int node(const SystemLayout& layout, int j) const override { return layout.joint_node(j); }
  RowKind row_kind(const Model& model, int j, int r) const override {
    return model.joints[j].row_constrained(r) ? RowKind::Position : RowKind::Impulse;
  }

  void prepare(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, int j) const override {
    const Joint& jt = model.joints[j];
    JointRows& r2 = ws.rows2[j];
    const Pose a = body_pose(d, jt.parent), b = body_pose(d, jt.child);
    ws.joint_frame_a[j] = quat_to_rot(jt.parent_frame);  // (the same for every row evaluation of the step)
    ws.joint_frame_b[j] = quat_to_rot(jt.child_frame);
    // three free rotations are measured from this knot (see joint_rows): z2 reads 0 on them
    const Vec4 reference = joint_relative_rotation(jt, a.q, b.q);
    joint_rows(jt, a, b, ws.joint_frame_a[j], ws.joint_frame_b[j], &r2, &reference, scheme.bilinear_rows());
    // row rates over [t1, t2] (the armature's previous rate)
    Vec6 rate = r2.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += r2.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    ws.joint_rate2[j] = rate;
    ws.row_damping[j] = d.row_damping[j];
  }

  void residual(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, const Eigen::VectorXd& s,
                int j, Eigen::VectorXd* F) const override {
    const Joint& jt = model.joints[j];
    const SystemLayout& layout = ws.layout;
    const double dt = ws.dt;
    const int n = layout.joint_node(j);
    const Vec6 u = layout.joint(s, j);
    const JointRows& r2 = ws.rows2[j];
    if (ws.passive[j]) {  // free rows with nothing but actuation: U = Δt·force (z3 not needed)
      layout.joint(*F, j) = u - dt * d.row_force[j];
      if (scheme.impulse_needs_rows3() && !u.isZero()) joint_rows_at_z3(model, ws, scheme, j);
    } else {
      if (!ws.reuse_rows3) joint_rows_at_z3(model, ws, scheme, j);  // (step_residual's knot)
      const JointRows& r3 = ws.rows3[j];
      for (int r = 0; r < 6; ++r) {
        if (jt.row_constrained(r)) {
          layout.entry(*F, n, r) = r3.c(r);
          if (!ws.loop_compliance.empty()) layout.entry(*F, n, r) += ws.loop_compliance[j] * u(r);
        } else {
          const double dc = r < 3 ? r3.c(r) - r2.c(r) : wrap_angle(r3.c(r) - r2.c(r));
          const double coord = r < 3 ? r2.c(r) : d.joint_angle[j](r - 3);
          // armature: reflected rotor inertia on the row times the change of its rate
          const double rate2 = ws.joint_rate2[j](r), accel2 = d.row_acceleration[j](r);
          const double arm = scheme.armature_term(dc, rate2, accel2, ws);
          const double damped = scheme.damper_term(dc, rate2, accel2, ws);
          const double spring = scheme.spring_coordinate(coord, dc);
          layout.entry(*F, n, r) = u(r) + (jt.damping[r] + d.row_damping[j](r)) * damped + jt.armature[r] * arm +
                                   dt * jt.stiffness[r] * (spring - jt.spring_ref[r]) - dt * d.row_force[j](r);
        }
      }
    }
    scheme.apply_joint_impulse(model, d, ws, j, u, F);
  }

  void jacobian(const Model& model, Workspace& ws, const IntegratorScheme& scheme, const Eigen::VectorXd& s,
                int j) const override {
    const Joint& jt = model.joints[j];
    BlockLdu& A = ws.ldu;
    scheme.add_joint_coupling(model, ws, s, j);
    // constrained rows: zero diagonal (the LDU regularizes a pivot made singular by redundant
    // constraints, see BlockLdu::set_regularized_rows); free rows: the row impulse itself
    Block& D = A.diag(ws.layout.joint_node(j));
    D.setZero();
    const double compliance = ws.loop_compliance.empty() ? 0.0 : ws.loop_compliance[j];
    for (int r = 0; r < 6; ++r) D(r, r) = jt.row_constrained(r) ? compliance : 1.0;
    if (ws.passive[j]) return;  // no edges (build_graph)
    const int c = jt.child;
    ws.joint_block_b[j] = joint_body_block_unscaled(ws.rows3[j].Jb, SystemLayout::angular(s, c), ws.dt);
    joint_body_block(scheme, jt, ws.row_damping[j], ws.joint_block_b[j], ws, &A.block(A.upper_id(ws.child_edge[j])));
    A.block(A.lower_id(ws.child_edge[j])) = scheme.impulse_block(ws, j, true);
    if (jt.parent != kWorld) {
      const int p = jt.parent;
      ws.joint_block_a[j] = joint_body_block_unscaled(ws.rows3[j].Ja, SystemLayout::angular(s, p), ws.dt);
      joint_body_block(scheme, jt, ws.row_damping[j], ws.joint_block_a[j], ws, &A.block(A.upper_id(ws.parent_edge[j])));
      A.block(A.lower_id(ws.parent_edge[j])) = scheme.impulse_block(ws, j, false);
    }
  }

  // constrained rows at the current poses; free rows are identity rows with zero right-hand side
  // (no multiplier)
  void projection_matrix(const Model& model, const Data& d, Workspace& ws, int j, bool) const override {
    const Joint& jt = model.joints[j];
    BlockLdu& A = ws.ldu;
    JointRows& rows = ws.rows2[j];
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    Block& D = A.diag(ws.layout.joint_node(j));
    for (int r = 0; r < 6; ++r) {
      D(r, r) = jt.row_constrained(r) ? 0.0 : 1.0;
      if (!jt.row_constrained(r)) {
        rows.Ja.row(r).setZero();
        rows.Jb.row(r).setZero();
      }
    }
    if (ws.passive[j]) return;  // no edges (build_graph) and no constrained rows
    A.block(A.upper_id(ws.child_edge[j])) = rows.Jb;
    A.block(A.lower_id(ws.child_edge[j])) = -rows.Jb.transpose();
    if (jt.parent != kWorld) {
      A.block(A.upper_id(ws.parent_edge[j])) = rows.Ja;
      A.block(A.lower_id(ws.parent_edge[j])) = -rows.Ja.transpose();
    }
  }

  double position_rhs(const Model& model, const Workspace& ws, int j, Eigen::VectorXd* rhs, int* worst_row) const override {
    double violation = 0;
    *worst_row = -1;
    for (int r = 0; r < 6; ++r)
      if (model.joints[j].row_constrained(r)) {
        const double c = ws.rows2[j].c(r);
        if (std::abs(c) > violation) {
          violation = std::abs(c);
          *worst_row = r;
        }
        ws.layout.entry(*rhs, ws.layout.joint_node(j), r) = -c;
      }
    return violation;
  }

  // (a passive joint's impulses are known: Δt·force)
  void warm_start(const Model&, const Data& d, const Workspace& ws, int j, Eigen::VectorXd* s) const override {
    ws.layout.joint(*s, j) = ws.passive[j] ? Vec6(ws.dt * d.row_force[j]) : d.joint_impulse[j];
  }

  // the impulses, and the unwrapped angles following the rows ((25))
  void knot(const Model& model, Data&, Workspace& ws, const IntegratorScheme& scheme, int j) const override {
    if (!ws.passive[j]) joint_rows_at_z3(model, ws, scheme, j);  // (store computes a passive joint's)
  }

  void store(const Model& model, Data& d, Workspace& ws, const Eigen::VectorXd& s, int j) const override {
    d.joint_impulse[j] = ws.layout.joint(s, j);
    if (ws.passive[j]) joint_rows_at_z3(model, ws, integrator_scheme(model.opt.integrator), j);  // the solve did not need them
    for (int k = 0; k < 3; ++k) d.joint_angle[j](k) += wrap_angle(ws.rows3[j].c(3 + k) - ws.rows2[j].c(3 + k));
  }

  void velocity_rhs(const Model& model, const Data& d, const Workspace& ws, int j, Eigen::VectorXd* rhs) const override {
    const Joint& jt = model.joints[j];
    Vec6 rate = ws.rows2[j].Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += ws.rows2[j].Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    ws.layout.joint(*rhs, j) = -rate;  // free rows of J are zero
  }
};

}  // namespace

const EqualityKind& joint_constraint() {
  static const JointConstraint kind;
  return kind;
}

}  // namespace maxsim
