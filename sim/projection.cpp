#include "sim/projection.hpp"

#include <cmath>

namespace maxsim {

namespace {

// [M  −Jᵀ; J  0] with J the constrained rows of every joint at the current poses
// (free rows are identity rows with zero right-hand side, i.e. no multiplier), and the rows of the
// nonholonomic constraints: their position rows always, their velocity rows with `velocities`.
void assemble_projection(const Model& model, Data& d, bool velocities) {
  const int nb = static_cast<int>(model.bodies.size());
  auto& ws = d.ws;
  BlockLdu& A = ws.ldu;
  A.set_zero();
  for (int i = 0; i < nb; ++i) {
    A.diag(i).topLeftCorner<3, 3>() = model.bodies[i].mass * Mat3::Identity();
    A.diag(i).bottomRightCorner<3, 3>() = model.bodies[i].inertia;
  }
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    JointRows& rows = ws.rows2[j];
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    Block& D = A.diag(nb + static_cast<int>(j));
    for (int r = 0; r < 6; ++r) {
      D(r, r) = jt.row_constrained(r) ? 0.0 : 1.0;
      if (!jt.row_constrained(r)) {
        rows.Ja.row(r).setZero();
        rows.Jb.row(r).setZero();
      }
    }
    if (ws.passive[j]) continue;  // no edges (build_graph) and no constrained rows
    A.block(A.upper_id(ws.child_edge[j])) = rows.Jb;
    A.block(A.lower_id(ws.child_edge[j])) = -rows.Jb.transpose();
    if (jt.parent != kWorld) {
      A.block(A.upper_id(ws.parent_edge[j])) = rows.Ja;
      A.block(A.lower_id(ws.parent_edge[j])) = -rows.Ja.transpose();
    }
  }
  for (size_t k = 0; k < model.nonholonomic.size(); ++k) {
    const NonholonomicConstraint& c = model.nonholonomic[k];
    NonholonomicRows& rows = ws.nonholonomic_rows[k];
    nonholonomic_rows_at(c, d.x[c.body], d.q[c.body], &rows);
    Block& D = A.diag(nonholonomic_node(model, static_cast<int>(k)));
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
}

}  // namespace

ProjectionReport project_state(const Model& model, Data& d, double tolerance, int max_iterations) {
  const int nb = static_cast<int>(model.bodies.size());
  auto& ws = d.ws;
  Eigen::VectorXd& rhs = ws.delta;
  ProjectionReport rep;

  // positions: minimal mass-weighted correction onto c(z) = 0, Gauss–Newton
  for (rep.iterations = 0; rep.iterations <= max_iterations; ++rep.iterations) {
    assemble_projection(model, d, false);
    rep.violation = 0;
    rep.worst_joint = rep.worst_row = -1;
    rhs.setZero();
    for (size_t j = 0; j < model.joints.size(); ++j)
      for (int r = 0; r < 6; ++r)
        if (model.joints[j].row_constrained(r)) {
          const double c = ws.rows2[j].c(r);
          if (std::abs(c) > rep.violation) {
            rep.violation = std::abs(c);
            rep.worst_joint = static_cast<int>(j);
            rep.worst_row = r;
          }
          rhs(6 * (nb + static_cast<int>(j)) + r) = -c;
        }
    for (size_t k = 0; k < model.nonholonomic.size(); ++k) {  // (no worst joint: not a joint)
      const NonholonomicRows& rows = ws.nonholonomic_rows[k];
      for (int r = 0; r < rows.n; ++r) {
        rep.violation = std::max(rep.violation, std::abs(rows.c(r)));
        rhs(6 * nonholonomic_node(model, static_cast<int>(k)) + r) = -rows.c(r);
      }
    }
    if (rep.violation < tolerance) {
      rep.converged = true;
      break;
    }
    if (rep.iterations == max_iterations) {
      rep.failure = ProjectionReport::Failure::IterationLimit;
      break;
    }
    if (!ws.ldu.factor()) {
      rep.failure = ProjectionReport::Failure::Singular;
      break;
    }
    ws.ldu.solve(rhs);
    if (!rhs.allFinite()) {
      rep.failure = ProjectionReport::Failure::NonFinite;
      break;
    }
    for (int i = 0; i < nb; ++i) {
      d.x[i] += rhs.segment<3>(6 * i);
      d.q[i] = quat_normalize(quat_mul(d.q[i], quat_exp(rhs.segment<3>(6 * i + 3))));
    }
  }
  if (!rep.converged) return rep;

  // velocities: minimal mass-weighted change onto J ν = 0, the nonholonomic rows included
  if (!model.nonholonomic.empty()) assemble_projection(model, d, true);
  rhs.setZero();
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    Vec6 rate = ws.rows2[j].Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += ws.rows2[j].Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    rhs.segment<6>(6 * (nb + static_cast<int>(j))) = -rate;  // free rows of J are zero
  }
  for (size_t k = 0; k < model.nonholonomic.size(); ++k) {
    const int body = model.nonholonomic[k].body;
    rhs.segment<6>(6 * nonholonomic_node(model, static_cast<int>(k))) =
        -ws.nonholonomic_rows[k].J * (Vec6() << d.v[body], d.w[body]).finished();
  }
  if (!ws.ldu.factor()) {
    rep.converged = false;
    rep.failure = ProjectionReport::Failure::VelocitySingular;
    return rep;
  }
  ws.ldu.solve(rhs);
  for (int i = 0; i < nb; ++i) {
    d.v[i] += rhs.segment<3>(6 * i);
    d.w[i] += rhs.segment<3>(6 * i + 3);
  }
  // the unwrapped angles follow the projected configuration
  for (size_t j = 0; j < model.joints.size(); ++j)
    for (int k = 0; k < 3; ++k)
      d.joint_angle[j](k) += wrap_angle(ws.rows2[j].c(3 + k) - d.joint_angle[j](k));
  return rep;
}

}  // namespace maxsim
