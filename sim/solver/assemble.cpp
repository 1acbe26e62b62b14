#include "sim/solver/assemble.hpp"

#include "sim/body_dynamics.hpp"
#include "sim/energy_momentum.hpp"
#include "sim/nonholonomic.hpp"
#include "sim/solver/inequality.hpp"

namespace maxsim {

namespace {

bool energy_momentum(const Model& model) { return model.integrator == Integrator::EnergyMomentum; }

// Newton-matrix block of a joint with respect to one body's unknowns; free rows enter through
// their damper and armature (and, energy–momentum, their spring at the midpoint) only.
Mat6 joint_body_block(const Model& model, const Joint& jt, const Mat6& J3, const Vec3& w, double dt) {
  Mat6 M = joint_body_block_unscaled(J3, w, dt);
  const bool em = energy_momentum(model);
  for (int r = 0; r < 6; ++r)
    if (!jt.row_constrained(r))
      M.row(r) *= em ? jt.damping[r] + 2.0 * jt.armature[r] / dt + 0.5 * dt * jt.stiffness[r]
                     : jt.damping[r] + jt.armature[r] / dt;
  return M;
}

// A body's interval of the energy–momentum step at the iterate (the world's: nothing moves).
const EmInterval& em_interval_of(const Data& d, int body) {
  static const EmInterval world;
  return body == kWorld ? world : d.ws.em_interval[body];
}

// The step's quantities of body i for its nonholonomic constraints.
NonholonomicStep nonholonomic_step(const Data& d, const Eigen::VectorXd& s, int i) {
  return NonholonomicStep{d.x[i], d.v[i], d.w[i], s.segment<3>(6 * i), s.segment<3>(6 * i + 3),
                          d.ws.x3[i], d.q[i], d.ws.q3[i], d.ws.dt};
}

// Energy–momentum: the change of joint j's force maps with its bodies' unknowns at the iterate's
// impulses (em_joint_force_jacobian): into the bodies' diagonal blocks and their edge.
void add_force_jacobian(const Model& model, Data& d, const Eigen::VectorXd& s, int j) {
  const Joint& jt = model.joints[j];
  auto& ws = d.ws;
  BlockLdu& A = ws.ldu;
  const int nb = static_cast<int>(model.bodies.size());
  EmForceJacobian K;
  em_joint_force_jacobian(jt, em_interval_of(d, jt.parent), em_interval_of(d, jt.child), s.segment<6>(6 * (nb + j)),
                          ws.dt, &K);
  // the residual holds −(wrench); ∂/∂ω through ω's own unknown: the blocks act on (v̄, ω) directly
  A.diag(jt.child) -= K.bb;
  if (jt.parent == kWorld) return;
  A.diag(jt.parent) -= K.aa;
  const int e = ws.body_edge[j];
  // edge (p, c): upper = ∂(residual of p)/∂(unknowns of c); (c, p) the other way round
  A.block(ws.body_edge_forward[j] ? A.upper_id(e) : A.lower_id(e)) -= K.ab;
  A.block(ws.body_edge_forward[j] ? A.lower_id(e) : A.upper_id(e)) -= K.ba;
}

}  // namespace

void step_prepare(const Model& model, Data& d) {
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    JointRows& r2 = d.ws.rows2[j];
    const Pose a = body_pose(d, jt.parent), b = body_pose(d, jt.child);
    // three free rotations are measured from this knot (see joint_rows): z2 reads 0 on them
    const Vec4 reference = joint_relative_rotation(jt, a.q, b.q);
    joint_rows(jt, a, b, &r2, &reference, energy_momentum(model));
    // row rates over [t1, t2] (the armature's previous rate)
    Vec6 rate = r2.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += r2.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    d.ws.joint_rate2[j] = rate;
  }
  for (size_t c = 0; c < d.contacts.size(); ++c) d.ws.kinds[c]->prepare(model, d, static_cast<int>(c));
}

void joint_rows_at_z3(const Model& model, Data& d, int j) {
  const Joint& jt = model.joints[j];
  auto& ws = d.ws;
  const Pose a = jt.parent == kWorld ? Pose{} : Pose{ws.x3[jt.parent], ws.q3[jt.parent]};
  joint_rows(jt, a, Pose{ws.x3[jt.child], ws.q3[jt.child]}, &ws.rows3[j], &ws.rows2[j].q_rel, energy_momentum(model));
}

void step_residual(const Model& model, Data& d, const Eigen::VectorXd& s, Eigen::VectorXd* F) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  const double dt = d.ws.dt;
  auto& ws = d.ws;
  const bool em = energy_momentum(model);

  // bodies: next knot and discrete Euler–Lagrange residual (seed 003 eqs. 29a–b), or the
  // energy–momentum integrator's midpoint equations (sim/energy_momentum.hpp)
  for (int i = 0; i < nb; ++i) {
    const Vec3 v = s.segment<3>(6 * i), w = s.segment<3>(6 * i + 3);
    next_pose(d.x[i], d.q[i], v, w, dt, &ws.x3[i], &ws.q3[i]);
    if (em) {
      F->segment<6>(6 * i) = em_body_residual(model.bodies[i], d.v[i], d.w[i], v, w, model.gravity,
                                               d.body_force[i], d.body_torque[i], dt);
      ws.em_interval[i] = em_interval(d.x[i], d.q[i], ws.x3[i], ws.q3[i], w, dt);
      ws.em_row_torque[i].setZero();
    } else {
      F->segment<6>(6 * i) = body_residual(model.bodies[i], d.v[i], d.w[i], v, w, model.gravity,
                                            d.body_force[i], d.body_torque[i], dt);
    }
  }

  // joints: constrained rows c(z3) = 0 (seed 003 eq. 29c); free rows balance the row impulse
  // against damper (implicit), spring (at z2, a potential; energy–momentum: at the midpoint, its
  // discrete gradient) and actuation
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = model.joints[j];
    const int o = 6 * (nb + j);
    const Vec6 u = s.segment<6>(o);
    const JointRows& r2 = ws.rows2[j];
    // (energy–momentum: a passive joint's force map averages its rows' maps at z2 and z3; with no
    // impulse, as on a free-floating base without input, it acts on nothing and is not needed)
    const bool unloaded = ws.passive[j] && u.isZero();
    if (ws.passive[j]) {  // free rows with nothing but actuation: U = Δt·force (z3 not needed)
      F->segment<6>(o) = u - dt * ws.applied[j];
      if (em && !unloaded) joint_rows_at_z3(model, d, j);
    } else {
      joint_rows_at_z3(model, d, j);
      const JointRows& r3 = ws.rows3[j];
      for (int r = 0; r < 6; ++r) {
        if (jt.row_constrained(r)) {
          (*F)(o + r) = r3.c(r);
          if (!ws.loop_compliance.empty()) (*F)(o + r) += ws.loop_compliance[j] * u(r);
        } else {
          const double dc = r < 3 ? r3.c(r) - r2.c(r) : wrap_angle(r3.c(r) - r2.c(r));
          const double coord = r < 3 ? r2.c(r) : d.joint_angle[j](r - 3);
          // armature: reflected rotor inertia on the row, a·(rate over [t2,t3] − rate over [t1,t2]);
          // energy–momentum: a·(knot rate at t3 − at t2) with the knot rate 2Δc/Δt − rate at t2
          const double arm = em ? 2.0 * (dc / dt - ws.joint_rate2[j](r)) : dc / dt - ws.joint_rate2[j](r);
          const double spring = em ? coord + 0.5 * dc : coord;
          (*F)(o + r) = u(r) + jt.damping[r] * dc + jt.armature[r] * arm +
                        dt * jt.stiffness[r] * (spring - jt.spring_ref[r]) - dt * ws.applied[j](r);
        }
      }
    }
    // the row impulses act on the bodies through the maps at z2 (seed 003 eq. 29a–b), or the
    // energy–momentum force maps at the iterate
    if (em && unloaded) continue;
    if (em) {
      const EmInterval& a = em_interval_of(d, jt.parent);
      const EmInterval& b = em_interval_of(d, jt.child);
      em_joint_force_maps(jt, a, b, r2, ws.rows3[j], &ws.em_map_a[j], &ws.em_map_b[j]);
      const Vec6 fb = ws.em_map_b[j].transpose() * u;
      F->segment<6>(6 * jt.child) -= fb;
      ws.em_row_torque[jt.child] += em_row_torque(b, fb.tail<3>());
      if (jt.parent != kWorld) {
        const Vec6 fa = ws.em_map_a[j].transpose() * u;
        F->segment<6>(6 * jt.parent) -= fa;
        ws.em_row_torque[jt.parent] += em_row_torque(a, fa.tail<3>());
      }
    } else {
      if (jt.parent != kWorld) F->segment<6>(6 * jt.parent).noalias() -= r2.Ja.transpose() * u;
      F->segment<6>(6 * jt.child).noalias() -= r2.Jb.transpose() * u;
    }
  }

  // nonholonomic constraints: their rows (padding rows: the unknown itself, which stays 0) and
  // their impulses on the body (sim/nonholonomic.hpp)
  for (size_t k = 0; k < model.nonholonomic.size(); ++k) {
    const NonholonomicConstraint& c = model.nonholonomic[k];
    NonholonomicRows& rows = ws.nonholonomic_rows[k];
    nonholonomic_rows(c, model.bodies[c.body], model.integrator, nonholonomic_step(d, s, c.body), &rows);
    const int o = 6 * nonholonomic_node(model, static_cast<int>(k));
    const Vec6 u = s.segment<6>(o);
    for (int r = 0; r < 6; ++r) (*F)(o + r) = r < rows.n ? rows.c(r) : u(r);
    F->segment<6>(6 * c.body).noalias() -= rows.M.transpose() * u;
  }

  // inequalities: their impulses on the bodies, their kinematics at z3
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->residual(model, d, s, static_cast<int>(c), F);
}

void step_jacobian(const Model& model, Data& d, const Eigen::VectorXd& s) {
  const int nb = static_cast<int>(model.bodies.size());
  const double dt = d.ws.dt;
  auto& ws = d.ws;
  BlockLdu& A = ws.ldu;
  // the inequalities' kinematic Jacobians, only here: the line search's trial points need their
  // gaps and rates alone (the joint rows keep theirs in the residual: computing values and
  // Jacobians in two passes repeats the frames' rotations and costs more than it saves)
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->linearize(model, d, s, static_cast<int>(c));

  A.zero_fill();  // every other block is written whole below
  const bool em = energy_momentum(model);
  for (int i = 0; i < nb; ++i)
    A.diag(i) = em ? em_body_jacobian(model.bodies[i], s.segment<3>(6 * i + 3), ws.em_row_torque[i], dt)
                   : body_jacobian(model.bodies[i], s.segment<3>(6 * i + 3), dt);

  if (em)  // the bodies' coupling through the joints' force maps, summed over joints below
    for (size_t j = 0; j < model.joints.size(); ++j)
      if (ws.body_edge[j] >= 0) {
        A.block(A.upper_id(ws.body_edge[j])).setZero();
        A.block(A.lower_id(ws.body_edge[j])).setZero();
      }
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    if (em && !ws.passive[j]) add_force_jacobian(model, d, s, static_cast<int>(j));
    // constrained rows: zero diagonal (the LDU regularizes a pivot made singular by redundant
    // constraints, see BlockLdu::set_regularized_rows); free rows: the row impulse itself
    Block& D = A.diag(nb + static_cast<int>(j));
    D.setZero();
    const double compliance = ws.loop_compliance.empty() ? 0.0 : ws.loop_compliance[j];
    for (int r = 0; r < 6; ++r) D(r, r) = jt.row_constrained(r) ? compliance : 1.0;
    if (ws.passive[j]) continue;  // no edges (build_graph)
    const int c = jt.child;
    A.block(A.upper_id(ws.child_edge[j])) = joint_body_block(model, jt, ws.rows3[j].Jb, s.segment<3>(6 * c + 3), dt);
    A.block(A.lower_id(ws.child_edge[j])) = em ? Mat6(-ws.em_map_b[j].transpose()) : Mat6(-ws.rows2[j].Jb.transpose());
    if (jt.parent != kWorld) {
      const int p = jt.parent;
      A.block(A.upper_id(ws.parent_edge[j])) = joint_body_block(model, jt, ws.rows3[j].Ja, s.segment<3>(6 * p + 3), dt);
      A.block(A.lower_id(ws.parent_edge[j])) = em ? Mat6(-ws.em_map_a[j].transpose()) : Mat6(-ws.rows2[j].Ja.transpose());
    }
  }
  // nonholonomic constraints: zero diagonal on their rows (multipliers), identity padding
  for (size_t k = 0; k < model.nonholonomic.size(); ++k) {
    const NonholonomicRows& rows = ws.nonholonomic_rows[k];
    Block& D = A.diag(nonholonomic_node(model, static_cast<int>(k)));
    D.setZero();
    for (int r = rows.n; r < 6; ++r) D(r, r) = 1.0;
    A.block(A.upper_id(ws.nonholonomic_edge[k])) = rows.J;
    A.block(A.lower_id(ws.nonholonomic_edge[k])) = -rows.M.transpose();
  }
  // bodies ← inequality impulses; the inequality rows themselves depend on the interior-point
  // variables and are filled by the interior point
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c]->impulse_jacobian(model, d, static_cast<int>(c));
}

}  // namespace maxsim
