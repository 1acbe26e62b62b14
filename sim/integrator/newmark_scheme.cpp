// The Newmark step in the constraints' tangent space (seed 004, Meccanica 2021,
// doi:10.1007/s11012-021-01433-0; docs/computation.md §18, (107)–(110)). Per body, with the
// knot velocities u and accelerations a (linear world, angular body frame) and the unknowns
// (v̄, ω̄) of the step's displacement, x3 = x2 + Δt v̄:
//   v̄ = u2 + Δt((½ − β) a2 + β a3),   u3 = u2 + Δt((1 − γ) a2 + γ a3),
// and the equations of motion hold at z3 with the constraint impulses through the rows' maps at
// z3 (index 3: the positions' rows); the knot velocities and accelerations are then projected
// onto the rows' velocity and acceleration levels (finish_knot). Those choices make it the seed's
// null-space integration of the tangential coordinates: at convergence the state satisfies the
// rows at all three levels, and Newmark's relations hold on the tangential components.
#include <cmath>

#include "sim/integrator/body_dynamics.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/solver/inequality.hpp"
#include "sim/solver/projection.hpp"

namespace maxsim {

namespace {

// Body i's accelerations at z2 as the step reads them: none without a valid record (then the
// step runs with β = ½, γ = 1, whose relations do not read them).
Vec6 start_acceleration(const Data& d, const Workspace& ws, int i) {
  return ws.newmark_gamma == 1.0 && ws.newmark_beta == 0.5 ? Vec6::Zero() : d.acceleration[i];
}

// The accelerations a3 and velocities u3 at z3 from the unknown ū of one body (three rows).
struct KnotEnd {
  Vec3 a, u;
};
KnotEnd knot_end(const Vec3& u2, const Vec3& a2, const Vec3& unknown, const Workspace& ws) {
  const double h = ws.dt, beta = ws.newmark_beta, gamma = ws.newmark_gamma;
  KnotEnd e;
  e.a = (unknown - u2 - h * (0.5 - beta) * a2) / (beta * h);
  e.u = u2 + h * ((1 - gamma) * a2 + gamma * e.a);
  return e;
}

// A free row's acceleration and rate at z3 from its change dc over the step and its rate and
// acceleration at z2, (107) on the row.
struct RowEnd {
  double accel, rate;
};
RowEnd row_end(double dc, double rate2, double accel2, const Workspace& ws) {
  const double h = ws.dt, beta = ws.newmark_beta, gamma = ws.newmark_gamma;
  RowEnd e;
  e.accel = (dc / h - rate2 - h * (0.5 - beta) * accel2) / (beta * h);
  e.rate = rate2 + h * ((1 - gamma) * accel2 + gamma * e.accel);
  return e;
}

class NewmarkScheme final : public IntegratorScheme {
 public:
  Integrator kind() const override { return Integrator::Newmark; }

  // the knot's angular velocity as the step's mean rate
  Vec3 warm_angular(const Vec3& w, double) const override { return w; }
  double warm_extrapolation(const Workspace&) const override { return 0.0; }
  // the last step's mean rates (x3 − x2)/Δt: on a stiff system the knot velocities ring from step
  // to step (the trapezoidal rule's undamped mode at ωΔt ≫ 1) while the mean rates follow the
  // motion; Newton from the knot velocities reached the other equilibrium of seed 004's pendulum
  // at Δt = 6 s (docs/computation.md (110))
  bool recorded_start(const Data& d, const Workspace&, int i, Vec3* v, Vec3* w) const override {
    if (d.acceleration_time != d.time) return false;
    *v = d.newmark_mean[i].head<3>();
    *w = d.newmark_mean[i].tail<3>();
    return true;
  }
  // a step of seconds has the unstable equilibrium within reach of a full Newton step from a
  // poor start (zero impulses: no geometric stiffness)
  double newton_turn_limit() const override { return 0.5; }

  // Δt (M a3 − forces at z3) in impulse units, the angular rows Euler's equations in the body
  // frame (docs/computation.md (108)); the joints' impulses are added by the joints.
  Vec6 body_residual(const Model& model, const Data& d, Workspace& ws, int i, const Vec3& v,
                     const Vec3& w) const override {
    const Body& b = model.bodies[i];
    const Vec6 a2 = start_acceleration(d, ws, i);
    const KnotEnd lin = knot_end(d.v[i], a2.head<3>(), v, ws);
    const KnotEnd ang = knot_end(d.w[i], a2.tail<3>(), w, ws);
    const double h = ws.dt;
    Vec6 r;
    r.head<3>() = h * (b.mass * lin.a - b.mass * model.opt.gravity - d.body_force[i]);
    r.tail<3>() = h * (b.inertia * ang.a + ang.u.cross(b.inertia * ang.u) - d.body_torque[i]);
    ws.newmark_w3[i] = ang.u;
    return r;
  }

  Mat6 body_jacobian(const Model& model, const Workspace& ws, int i, const Vec3&) const override {
    // ∂/∂ū: Δt M/(βΔt) on both; the gyroscopic term through u3 = … + (γ/β)(ū − …), at the
    // residual's u3
    const Body& b = model.bodies[i];
    const double beta = ws.newmark_beta, gamma = ws.newmark_gamma, h = ws.dt;
    const Mat3& J = b.inertia;
    const Vec3& w3 = ws.newmark_w3[i];
    Mat6 M = Mat6::Zero();
    M.block<3, 3>(0, 0) = (b.mass / beta) * Mat3::Identity();
    M.block<3, 3>(3, 3) = J / beta + h * (gamma / beta) * (skew(w3) * J - skew(J * w3));
    return M;
  }

  void advance(const Model&, Data& d, const Workspace& ws, int i, const Vec3& v, const Vec3& w) const override {
    const Vec6 a2 = start_acceleration(d, ws, i);
    const KnotEnd lin = knot_end(d.v[i], a2.head<3>(), v, ws);
    const KnotEnd ang = knot_end(d.w[i], a2.tail<3>(), w, ws);
    d.v[i] = lin.u;
    d.w[i] = ang.u;
    d.acceleration[i] << lin.a, ang.a;
    d.newmark_mean[i] << v, w;
  }

  // the knot velocities and accelerations onto the rows' velocity and acceleration constraints at
  // z3 (mass-weighted, on the step's graph LDU): with the positions' rows of the step, every row
  // holds at all three levels, as on the seed's linearized manifold (109)
  void finish_knot(const Model& model, Data& d) const override {
    const bool ok = project_velocities(model, d) && project_accelerations(model, d);
    d.acceleration_time = ok ? d.time : std::numeric_limits<double>::quiet_NaN();
    if (!ok) return;
    // the free rows' accelerations at the knot, c̈ = J a + J̇ u, by central differences along
    // x + εu + ε²a/2 (as (109)): the rows' records agree with the bodies'
    constexpr double eps = 1e-4;
    auto moved = [&d](int body, double e) { return pose_along_motion(d, body, e); };
    for (size_t j = 0; j < model.joints.size(); ++j) {
      const Joint& jt = model.joints[j];
      const Pose a = moved(jt.parent, 0), b = moved(jt.child, 0);
      const Vec4 reference = joint_relative_rotation(jt, a.q, b.q);
      JointRows r0, rp, rm;
      joint_rows(jt, a, b, &r0, &reference);
      joint_rows(jt, moved(jt.parent, eps), moved(jt.child, eps), &rp, &reference);
      joint_rows(jt, moved(jt.parent, -eps), moved(jt.child, -eps), &rm, &reference);
      for (int r = 0; r < 6; ++r) {
        if (jt.row_constrained(r)) continue;
        const double up = rp.c(r) - r0.c(r), down = rm.c(r) - r0.c(r);
        d.row_acceleration[j](r) = (r < 3 ? up + down : wrap_angle(up) + wrap_angle(down)) / (eps * eps);
      }
    }
  }

  bool bilinear_rows() const override { return false; }

  // A free row is a Newmark coordinate of its own (its acceleration record Data::row_acceleration):
  // its damper and spring act at z3 with (107) on the row, Δt ċ3 and c3. (Armature is refused:
  // its Δt a c̈3 from the row's displacement relation is first order, the row's Newmark missing the
  // bodies' by O(Δt³) per step.)
  double armature_term(double dc, double rate2, double accel2, const Workspace& ws) const override {
    return ws.dt * row_end(dc, rate2, accel2, ws).accel;
  }
  double damper_term(double dc, double rate2, double accel2, const Workspace& ws) const override {
    return ws.dt * row_end(dc, rate2, accel2, ws).rate;
  }
  double spring_coordinate(double coord, double dc) const override { return coord + dc; }
  double free_row_gain(const Joint& jt, int r, double servo_damping, const Workspace& ws) const override {
    const double beta = ws.newmark_beta, gamma = ws.newmark_gamma;
    return (jt.damping[r] + servo_damping) * gamma / beta + jt.armature[r] / (beta * ws.dt) + ws.dt * jt.stiffness[r];
  }

  bool impulse_needs_rows3() const override { return true; }

  void apply_joint_impulse(const Model& model, const Data&, Workspace& ws, int j, const Vec6& u,
                           Eigen::VectorXd* F) const override {
    if (u.isZero()) return;
    const Joint& jt = model.joints[j];
    const JointRows& r3 = ws.rows3[j];
    if (jt.parent != kWorld) SystemLayout::body(*F, jt.parent).noalias() -= r3.Ja.transpose() * u;
    SystemLayout::body(*F, jt.child).noalias() -= r3.Jb.transpose() * u;
  }

  Mat6 impulse_block(const Workspace& ws, int j, bool child) const override {
    return child ? Mat6(-ws.rows3[j].Jb.transpose()) : Mat6(-ws.rows3[j].Ja.transpose());
  }

  // The maps at z3 turn with the bodies: ∂(J3ᵀ u)/∂(unknowns), the rows' second derivatives
  // times the impulses (the geometric stiffness that a large step's Newton needs), by forward
  // differences of the rows at z3 (a Jacobian only: its error slows Newton, never moves the root).
  bool couples_bodies() const override { return true; }

  void begin_coupling(const Model& model, Workspace& ws) const override { zero_body_edges(model, ws); }

  void add_joint_coupling(const Model& model, Workspace& ws, const Eigen::VectorXd& s, int j) const override {
    if (ws.passive[j]) return;
    const Vec6 u = ws.layout.joint(s, j);
    if (u.isZero()) return;
    const Joint& jt = model.joints[j];
    const int bodies[2] = {jt.parent, jt.child};
    auto pose3 = [&](int body) { return body == kWorld ? Pose{} : Pose{ws.x3[body], ws.q3[body]}; };
    // K[x][y] = ∂(wrench Jᵀu on x)/∂(δx, δθ of y at z3), x, y ∈ {parent, child}
    const JointRows& r3 = ws.rows3[j];
    const Vec6 base[2] = {r3.Ja.transpose() * u, r3.Jb.transpose() * u};
    Mat6 K[2][2];
    for (int y = 0; y < 2; ++y) {
      if (bodies[y] == kWorld) continue;
      for (int k = 0; k < 6; ++k) {
        constexpr double eps = 1e-7;
        Pose p[2] = {pose3(bodies[0]), pose3(bodies[1])};
        if (k < 3) p[y].x(k) += eps;
        else p[y].q = quat_mul(p[y].q, quat_exp(eps * Vec3::Unit(k - 3)));
        JointRows rows;
        joint_rows(jt, p[0], p[1], &rows, &ws.rows2[j].q_rel, false);
        K[0][y].col(k) = (rows.Ja.transpose() * u - base[0]) / eps;
        K[1][y].col(k) = (rows.Jb.transpose() * u - base[1]) / eps;
      }
      // onto the unknowns (v̄, ω̄) of y
      const Mat6 chain = joint_body_block_unscaled(Mat6::Identity(), SystemLayout::angular(s, bodies[y]), ws.dt);
      for (int x = 0; x < 2; ++x) K[x][y] = K[x][y] * chain;
    }
    // the residual holds −(wrench)
    BlockLdu& A = ws.ldu;
    A.diag(jt.child) -= K[1][1];
    if (jt.parent == kWorld) return;
    A.diag(jt.parent) -= K[0][0];
    const int e = ws.body_edge[j];
    // edge (p, c): upper = ∂(residual of p)/∂(unknowns of c); (c, p) the other way round
    A.block(ws.body_edge_forward[j] ? A.upper_id(e) : A.lower_id(e)) -= K[0][1];
    A.block(ws.body_edge_forward[j] ? A.lower_id(e) : A.upper_id(e)) -= K[1][0];
  }
};

}  // namespace

const IntegratorScheme& newmark_scheme() {
  static const NewmarkScheme scheme;
  return scheme;
}

}  // namespace maxsim
