// The energy–momentum step (Kinon & Betsch's Livens scheme in the midpoint Lie–Poisson form of
// Simo & Wong 1991; sim/integrator/energy_momentum.hpp): knot velocities, the Cayley map, and joint impulses
// through force maps at the iterate, whose derivatives couple each joint's two bodies.
#include "sim/integrator/energy_momentum.hpp"
#include "sim/integrator/integrator.hpp"

namespace maxsim {

namespace {

// A body's interval of the energy–momentum step at the iterate (the world's: nothing moves).
const EmInterval& interval_of(const Workspace& ws, int body) {
  static const EmInterval world;
  return body == kWorld ? world : ws.em_interval[body];
}

class EnergyMomentumScheme final : public IntegratorScheme {
 public:
  Integrator kind() const override { return Integrator::EnergyMomentum; }

  // the knot velocities held over the step
  Vec3 warm_angular(const Vec3& w, double dt) const override { return em_omega_from_rate(w, dt); }
  // the unknowns weight the knots (1 − θ, θ): v̄ = u2 + θ (u3 − u2)
  double warm_extrapolation(const Workspace& ws) const override { return ws.knot_weight; }

  Vec6 body_residual(const Model& model, const Data& d, Workspace& ws, int i, const Vec3& v,
                     const Vec3& w) const override {
    const Vec6 F = em_body_residual(model.bodies[i], d.v[i], d.w[i], v, w, model.opt.gravity, d.body_force[i],
                                    d.body_torque[i], ws.dt, ws.knot_weight);
    ws.em_interval[i] = em_interval(d.x[i], d.q[i], ws.x3[i], ws.q3[i], w, ws.dt);
    ws.em_row_torque[i].setZero();
    return F;
  }

  Mat6 body_jacobian(const Model& model, const Workspace& ws, int i, const Vec3& w) const override {
    return em_body_jacobian(model.bodies[i], w, ws.em_row_torque[i], ws.dt, ws.knot_weight);
  }

  // the knot velocities at z3
  void advance(const Model&, Data& d, const Workspace& ws, int i, const Vec3& v, const Vec3& w) const override {
    d.v[i] = em_linear_velocity(d.v[i], v, ws.knot_weight);
    d.w[i] = em_angular_velocity(d.w[i], w, ws.dt, ws.knot_weight);
  }

  bool bilinear_rows() const override { return true; }

  // a·(knot rate at t3 − at t2), the knot rate (Δc/Δt − (1 − θ) rate at t2)/θ (2Δc/Δt − rate at t2
  // for θ = ½); the spring at the midpoint (its discrete gradient)
  double damper_term(double dc, double, double, const Workspace&) const override { return dc; }
  double armature_term(double dc, double rate2, double, const Workspace& ws) const override {
    return em_knot_gain(ws.knot_weight) * (dc / ws.dt - rate2);
  }
  double spring_coordinate(double coord, double dc) const override { return coord + 0.5 * dc; }
  double free_row_gain(const Joint& jt, int r, double servo_damping, const Workspace& ws) const override {
    const double dt = ws.dt;
    return jt.damping[r] + servo_damping + em_knot_gain(ws.knot_weight) * jt.armature[r] / dt + 0.5 * dt * jt.stiffness[r];
  }

  bool impulse_needs_rows3() const override { return true; }

  // A passive joint's force map averages its rows' maps at z2 and z3; with no impulse (a
  // free-floating base without input) it acts on nothing and is not needed.
  void apply_joint_impulse(const Model& model, const Data&, Workspace& ws, int j, const Vec6& u,
                           Eigen::VectorXd* F) const override {
    if (ws.passive[j] && u.isZero()) return;
    const Joint& jt = model.joints[j];
    const EmInterval& a = interval_of(ws, jt.parent);
    const EmInterval& b = interval_of(ws, jt.child);
    em_joint_force_maps(jt, a, b, ws.rows2[j], ws.rows3[j], &ws.em_map_a[j], &ws.em_map_b[j]);
    const Vec6 fb = ws.em_map_b[j].transpose() * u;
    SystemLayout::body(*F, jt.child) -= fb;
    ws.em_row_torque[jt.child] += em_row_torque(b, fb.tail<3>());
    if (jt.parent != kWorld) {
      const Vec6 fa = ws.em_map_a[j].transpose() * u;
      SystemLayout::body(*F, jt.parent) -= fa;
      ws.em_row_torque[jt.parent] += em_row_torque(a, fa.tail<3>());
    }
  }

  Mat6 impulse_block(const Workspace& ws, int j, bool child) const override {
    return child ? Mat6(-ws.em_map_b[j].transpose()) : Mat6(-ws.em_map_a[j].transpose());
  }

  bool couples_bodies() const override { return true; }

  void begin_coupling(const Model& model, Workspace& ws) const override { zero_body_edges(model, ws); }

  // The change of joint j's force maps with its bodies' unknowns at the iterate's impulses
  // (em_joint_force_jacobian): into the bodies' diagonal blocks and their edge.
  void add_joint_coupling(const Model& model, Workspace& ws, const Eigen::VectorXd& s, int j) const override {
    if (ws.passive[j]) return;
    const Joint& jt = model.joints[j];
    BlockLdu& A = ws.ldu;
    EmForceJacobian K;
    em_joint_force_jacobian(jt, interval_of(ws, jt.parent), interval_of(ws, jt.child), ws.layout.joint(s, j), ws.dt,
                            &K);
    // the residual holds −(wrench); ∂/∂ω through ω's own unknown: the blocks act on (v̄, ω) directly
    A.diag(jt.child) -= K.bb;
    if (jt.parent == kWorld) return;
    A.diag(jt.parent) -= K.aa;
    const int e = ws.body_edge[j];
    // edge (p, c): upper = ∂(residual of p)/∂(unknowns of c); (c, p) the other way round
    A.block(ws.body_edge_forward[j] ? A.upper_id(e) : A.lower_id(e)) -= K.ab;
    A.block(ws.body_edge_forward[j] ? A.lower_id(e) : A.upper_id(e)) -= K.ba;
  }
};

}  // namespace

const IntegratorScheme& energy_momentum_scheme() {
  static const EnergyMomentumScheme scheme;
  return scheme;
}

}  // namespace maxsim
