#include "sim/energy_momentum.hpp"

namespace maxsim {

Mat3 em_cayley_jacobian(const Vec3& omega, double dt) {
  const double s = omega_scalar(omega, dt);
  return (2.0 / s) * Mat3::Identity() + (2.0 / (s * s * s)) * (omega * omega.transpose());
}

Vec6 em_body_residual(const Body& body, const Vec3& u2, const Vec3& rate2, const Vec3& vbar,
                      const Vec3& omega, const Vec3& gravity, const Vec3& force, const Vec3& torque,
                      double dt) {
  const Mat3& J = body.inertia;
  const Vec3 w = em_cayley(omega, dt);
  const Vec3 rate3 = (2.0 / dt) * w - rate2;
  Vec6 r;
  r.head<3>() = body.mass * (em_linear_velocity(u2, vbar) - u2) - dt * (body.mass * gravity + force);
  // J(Ω3 − Ω2) = Δt (JΩ̄) × Ω̄ + Δt τ with Ω̄ = w/Δt: its product with Ω̄ is the kinetic energy's
  // change, and the gyroscopic term does no work (seed 001 eq. 89 for T quadratic in Ω)
  r.tail<3>() = J * (rate3 - rate2) - (J * w).cross(w) / dt - dt * torque;
  return r;
}

Mat6 em_body_jacobian(const Body& body, const Vec3& omega, const Vec3& row_torque, double dt) {
  const Mat3& J = body.inertia;
  const Vec3 w = em_cayley(omega, dt);
  Mat6 M = Mat6::Zero();
  M.block<3, 3>(0, 0) = 2.0 * body.mass * Mat3::Identity();
  // ∂/∂w of J(2w/Δt) − (Jw)×w/Δt, and of −(I − ŵ/2) y at fixed y = R2ᵀ T (the rows' torques)
  const Mat3 dw = (2.0 / dt) * J - (skew(J * w) - skew(w) * J) / dt - 0.5 * skew(row_torque);
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

}  // namespace

void em_joint_force_maps(const Joint& j, const EmInterval& a, const EmInterval& b, const JointRows& rows2,
                         const JointRows& rows3, Mat6* Ma, Mat6* Mb) {
  const Mat3 Rpf = quat_to_rot(j.parent_frame);
  const Mat3 Rcf = quat_to_rot(j.child_frame);
  // translational rows c_k = (Ra ja_k)·r, r = xb + Rb pb − xa − Ra pa (the engine's d, written
  // in the world): Δc_k = (ΔRa ja_k)·r̄ + (R̄a ja_k)·Δr, with ΔR p = (R2 w) × (R̄ p)
  const Vec3 pa_bar = a.Rbar * j.parent_anchor, pb_bar = b.Rbar * j.child_anchor;
  const Vec3 r2 = b.x2 + b.R * j.child_anchor - a.x2 - a.R * j.parent_anchor;
  const Vec3 r3 = b.x3 + (2.0 * b.Rbar - b.R) * j.child_anchor - a.x3 - (2.0 * a.Rbar - a.R) * j.parent_anchor;
  const Vec3 r_bar = 0.5 * (r2 + r3);
  const Mat3 ja_bar = a.Rbar * Rpf, jb_bar = b.Rbar * Rcf;  // columns: the joint frames' axes, averaged
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = ja_bar.col(k);
    Ma->row(k) = wrench(a, -e, e.cross(r_bar) - pa_bar.cross(e)).transpose();
    Mb->row(k) = wrench(b, e, pb_bar.cross(e)).transpose();
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
    // c_k = ½[(Ra ja_j)·(Rb jb_i) − (Ra ja_i)·(Rb jb_j)], (i, j, k) cyclic: 2 q0 v_k of q_rel
    const int i = (k + 1) % 3, jj = (k + 2) % 3;
    const Vec3 Ta = 0.5 * (ja_bar.col(jj).cross(jb_bar.col(i)) - ja_bar.col(i).cross(jb_bar.col(jj)));
    Ma->row(r) = wrench(a, Vec3::Zero(), Ta).transpose();
    Mb->row(r) = wrench(b, Vec3::Zero(), -Ta).transpose();
  }
}

}  // namespace maxsim
