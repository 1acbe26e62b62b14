#include "sim/integrator/energy_momentum.hpp"

namespace maxsim {

Mat3 em_cayley_jacobian(const Vec3& omega, double dt) {
  const double s = omega_scalar(omega, dt);
  return (2.0 / s) * Mat3::Identity() + (2.0 / (s * s * s)) * (omega * omega.transpose());
}

Vec6 em_body_residual(const Body& body, const Vec3& u2, const Vec3& rate2, const Vec3& vbar,
                      const Vec3& omega, const Vec3& gravity, const Vec3& force, const Vec3& torque,
                      double dt, double theta) {
  const Mat3& J = body.inertia;
  const Vec3 w = em_cayley(omega, dt);
  const Vec3 rate3 = em_angular_velocity(rate2, omega, dt, theta);
  Vec6 r;
  r.head<3>() = body.mass * (em_linear_velocity(u2, vbar, theta) - u2) - dt * (body.mass * gravity + force);
  // J(Ω3 − Ω2) = Δt (JΩ̄) × Ω̄ + Δt τ with Ω̄ = w/Δt: its product with Ω̄ is the kinetic energy's
  // change, and the gyroscopic term does no work (docs/computation.md (66); Kinon & Betsch 2024,
  // eq. 89)
  r.tail<3>() = J * (rate3 - rate2) - (J * w).cross(w) / dt - dt * torque;
  return r;
}

Mat6 em_body_jacobian(const Body& body, const Vec3& omega, const Vec3& row_torque, double dt, double theta) {
  const Mat3& J = body.inertia;
  const Vec3 w = em_cayley(omega, dt);
  const double gain = em_knot_gain(theta);
  Mat6 M = Mat6::Zero();
  M.block<3, 3>(0, 0) = gain * body.mass * Mat3::Identity();
  // ∂/∂w of J(w/(θΔt)) − (Jw)×w/Δt, and of −(I − ŵ/2) y at fixed y = R2ᵀ T (the rows' torques)
  const Mat3 dw = (gain / dt) * J - (skew(J * w) - skew(w) * J) / dt - 0.5 * skew(row_torque);
  M.block<3, 3>(3, 3) = dw * em_cayley_jacobian(omega, dt);
  return M;
}

EmInterval em_interval(const Vec3& x2, const Vec4& q2, const Vec3& x3, const Vec4& q3, const Vec3& omega, double dt) {
  EmInterval iv;
  iv.R = quat_to_rot(q2);
  iv.Rbar = 0.5 * (iv.R + quat_to_rot(q3));
  iv.w = em_cayley(omega, dt);
  iv.x2 = x2;
  iv.x3 = x3;
  iv.dtheta = dtheta3_domega(omega, dt);
  return iv;
}

namespace {

// (world force, body torque) of a world force f and a spatial torque T on one body
Vec6 wrench(const EmInterval& iv, const Vec3& f, const Vec3& T) {
  Vec6 out;
  out.head<3>() = f;
  out.tail<3>() = em_torque_map(iv.w) * (iv.R.transpose() * T);
  return out;
}

// A joint's geometry over the step, as its force maps and their derivatives read it: the joint
// frames, the rotations at z3, the averaged anchors R̄ p and joint axes R̄ Rf (columns), and the
// mean joint offset r̄ = ½(r2 + r3), r = xb + Rb pb − xa − Ra pa.
struct JointGeometry {
  Mat3 Rpf, Rcf, R3a, R3b, A, B;
  Vec3 pa_bar, pb_bar, r_bar;
};

JointGeometry joint_geometry(const Joint& j, const EmInterval& a, const EmInterval& b) {
  JointGeometry g;
  g.Rpf = quat_to_rot(j.parent_frame);
  g.Rcf = quat_to_rot(j.child_frame);
  g.R3a = 2.0 * a.Rbar - a.R;
  g.R3b = 2.0 * b.Rbar - b.R;
  g.A = a.Rbar * g.Rpf;
  g.B = b.Rbar * g.Rcf;
  g.pa_bar = a.Rbar * j.parent_anchor;
  g.pb_bar = b.Rbar * j.child_anchor;
  const Vec3 r2 = b.x2 + b.R * j.child_anchor - a.x2 - a.R * j.parent_anchor;
  const Vec3 r3 = b.x3 + g.R3b * j.child_anchor - a.x3 - g.R3a * j.parent_anchor;
  g.r_bar = 0.5 * (r2 + r3);
  return g;
}

}  // namespace

void em_joint_force_maps(const Joint& j, const EmInterval& a, const EmInterval& b, const JointRows& rows2,
                         const JointRows& rows3, Mat6* Ma, Mat6* Mb) {
  const JointGeometry g = joint_geometry(j, a, b);
  // translational rows c_k = (Ra ja_k)·r (the engine's d, written in the world):
  // Δc_k = (ΔRa ja_k)·r̄ + (R̄a ja_k)·Δr, with ΔR p = (R2 w) × (R̄ p)
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = g.A.col(k);
    Ma->row(k) = wrench(a, -e, e.cross(g.r_bar) - g.pa_bar.cross(e)).transpose();
    Mb->row(k) = wrench(b, e, g.pb_bar.cross(e)).transpose();
  }
  // rotational rows
  for (int k = 0; k < 3; ++k) {
    const int r = 3 + k;
    if (!j.row_constrained(r)) {
      // free rotation: the mean of the engine's maps (dampers, actuation and springs act there)
      Ma->row(r) = 0.5 * (rows2.Ja.row(r) + rows3.Ja.row(r));
      Mb->row(r) = 0.5 * (rows2.Jb.row(r) + rows3.Jb.row(r));
      continue;
    }
    // c = Σ sign (Ra ja_p)·(Rb jb_q) (rotation_row_terms): per term the couple
    // T_a = sign (R̄a ja_p) × (R̄b jb_q), T_b = −T_a
    const RotationRowTerms t = rotation_row_terms(j, k);
    Vec3 Ta = Vec3::Zero();
    for (int n = 0; n < t.count; ++n) Ta += t.sign[n] * g.A.col(t.p[n]).cross(g.B.col(t.q[n]));
    Ma->row(r) = wrench(a, Vec3::Zero(), Ta).transpose();
    Mb->row(r) = wrench(b, Vec3::Zero(), -Ta).transpose();
  }
}

void em_joint_force_jacobian(const Joint& j, const EmInterval& a, const EmInterval& b, const Vec6& u, double dt,
                             EmForceJacobian* out) {
  const JointGeometry geo = joint_geometry(j, a, b);
  const Mat3 &Rpf = geo.Rpf, &Rcf = geo.Rcf, &A = geo.A, &B = geo.B;
  // δ(R̄ p) = ½ δR3 p = −½ R3 p̂ ∂θ3/∂ω δω
  auto Pa = [&](const Vec3& p) -> Mat3 { return -0.5 * geo.R3a * skew(p) * a.dtheta; };
  auto Pb = [&](const Vec3& p) -> Mat3 { return -0.5 * geo.R3b * skew(p) * b.dtheta; };
  // spatial torques' derivatives, by body and unknown (ω; the v̄ terms are written directly)
  Mat3 Ta_wa = Mat3::Zero(), Ta_wb = Mat3::Zero(), Tb_wa = Mat3::Zero(), Tb_wb = Mat3::Zero();
  // translational rows: f = R̄a Rpf U (the force on b), T_b = (R̄b pb) × f,
  // T_a = f × r̄ − (R̄a pa) × f (em_joint_force_maps)
  const Vec3 g = Rpf * u.head<3>();
  const Vec3 f = a.Rbar * g;
  const Mat3 df_wa = Pa(g);
  Tb_wb += -skew(f) * Pb(j.child_anchor);
  Tb_wa += skew(geo.pb_bar) * df_wa;
  Ta_wa += -(skew(geo.r_bar) + skew(geo.pa_bar)) * df_wa;  // (f × δr̄ and −δ(R̄a pa) × f cancel in ω_a)
  Ta_wb += skew(f) * Pb(j.child_anchor);
  // rotation rows: T_a = Σ sign U_k A_p × B_q (A = R̄a Rpf, B = R̄b Rcf), T_b = −T_a
  for (int k = 0; k < 3; ++k) {
    if (!j.row_constrained(3 + k)) continue;
    const RotationRowTerms t = rotation_row_terms(j, k);
    for (int n = 0; n < t.count; ++n) {
      const double su = t.sign[n] * u(3 + k);
      const Mat3 d_wa = su * (-skew(B.col(t.q[n])) * Pa(Rpf.col(t.p[n])));
      const Mat3 d_wb = su * (skew(A.col(t.p[n])) * Pb(Rcf.col(t.q[n])));
      Ta_wa += d_wa;
      Ta_wb += d_wb;
      Tb_wa -= d_wa;
      Tb_wb -= d_wb;
    }
  }
  // wrenches: (F, (I − ŵ/2) R2ᵀ T)
  const Mat3 Ma = em_torque_map(a.w) * a.R.transpose(), Mb = em_torque_map(b.w) * b.R.transpose();
  out->aa.setZero();
  out->ab.setZero();
  out->ba.setZero();
  out->bb.setZero();
  out->aa.block<3, 3>(0, 3) = -df_wa;  // F_a = −f
  out->ba.block<3, 3>(0, 3) = df_wa;   // F_b = f
  // T_a's r̄ term: f × δr̄, δr̄ = ½Δt (δv̄_b − δv̄_a) + ... (the ω parts are in Ta_w*)
  out->aa.block<3, 3>(3, 0) = Ma * (-0.5 * dt * skew(f));
  out->ab.block<3, 3>(3, 0) = Ma * (0.5 * dt * skew(f));
  out->aa.block<3, 3>(3, 3) = Ma * Ta_wa;
  out->ab.block<3, 3>(3, 3) = Ma * Ta_wb;
  out->ba.block<3, 3>(3, 3) = Mb * Tb_wa;
  out->bb.block<3, 3>(3, 3) = Mb * Tb_wb;
}

}  // namespace maxsim
