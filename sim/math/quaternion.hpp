// Unit quaternions (docs/computation.md (1)–(6); Brüdigam et al. 2023, Appendix A):
// Hamilton product, scalar first, q = [w, x, y, z], body -> world.
//
//   q ⊗ p = L(q) p = R(p) q,   H = [0; I3] (4x3),   V = Hᵀ,   T = diag(1, -1, -1, -1)
//   Rot(q) = V L(q) R(q)ᵀ H,   G(q) = L(q) H
//
// Perturbations throughout the engine are *right* (body-frame) rotation vectors:
// q ⊕ δθ = q ⊗ exp(δθ), so that a Jacobian with respect to δθ maps impulses to body-frame
// torques by plain transposition (virtual work).
#pragma once

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace maxsim {

using Vec3 = Eigen::Vector3d;  // a point, vector or rotation vector
using Vec4 = Eigen::Vector4d;  // quaternion [w, x, y, z]
using Mat3 = Eigen::Matrix3d;  // a rotation or inertia matrix
using Mat4 = Eigen::Matrix4d;  // a quaternion product matrix
using Mat43 = Eigen::Matrix<double, 4, 3>;  // a quaternion's derivative by a rotation vector
using Mat34 = Eigen::Matrix<double, 3, 4>;  // its transpose

inline Vec4 quat_identity() { return Vec4(1, 0, 0, 0); }  // no rotation

// [v]×, the matrix of the cross product v × ·
inline Mat3 skew(const Vec3& v) {
  Mat3 S;
  S << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return S;
}

// L(q): q ⊗ p = L(q) p (docs/computation.md (2))
inline Mat4 Lmat(const Vec4& q) {
  Mat4 M;
  M(0, 0) = q(0);
  M.block<1, 3>(0, 1) = -q.tail<3>().transpose();
  M.block<3, 1>(1, 0) = q.tail<3>();
  M.block<3, 3>(1, 1) = q(0) * Mat3::Identity() + skew(q.tail<3>());
  return M;
}

// R(q): p ⊗ q = R(q) p (docs/computation.md (2))
inline Mat4 Rmat(const Vec4& q) {
  Mat4 M;
  M(0, 0) = q(0);
  M.block<1, 3>(0, 1) = -q.tail<3>().transpose();
  M.block<3, 1>(1, 0) = q.tail<3>();
  M.block<3, 3>(1, 1) = q(0) * Mat3::Identity() - skew(q.tail<3>());
  return M;
}

// H = [0; I], which embeds a vector as a pure quaternion (docs/computation.md (3))
inline Mat43 Hmat() {
  Mat43 H = Mat43::Zero();
  H.block<3, 3>(1, 0).setIdentity();
  return H;
}

// 0.5 L(q) H: the last three columns of L(q), halved — the derivative of q ⊗ exp(θ/2) at θ = 0
// (a joint's relative rotation against its child's right perturbation)
inline Mat43 half_left_h(const Vec4& q) {
  const double w = 0.5 * q(0), x = 0.5 * q(1), y = 0.5 * q(2), z = 0.5 * q(3);
  Mat43 M;
  M << -x, -y, -z,
        w, -z,  y,
        z,  w, -x,
       -y,  x,  w;
  return M;
}
// −0.5 R(q) H: the last three columns of R(q), halved and negated — the derivative of
// exp(−θ/2) ⊗ q at θ = 0 (a joint's relative rotation against its parent's left perturbation)
inline Mat43 minus_half_right_h(const Vec4& q) {
  const double w = -0.5 * q(0), x = -0.5 * q(1), y = -0.5 * q(2), z = -0.5 * q(3);
  Mat43 M;
  M << -x, -y, -z,
        w,  z, -y,
       -z,  w,  x,
        y, -x,  w;
  return M;
}

// The Hamilton product a ⊗ b.
inline Vec4 quat_mul(const Vec4& a, const Vec4& b) {
  const double aw = a(0), bw = b(0);
  const Vec3 av = a.tail<3>(), bv = b.tail<3>();
  Vec4 r;
  r(0) = aw * bw - av.dot(bv);
  r.tail<3>() = aw * bv + bw * av + av.cross(bv);
  return r;
}

// The conjugate, q⁻¹ for a unit quaternion.
inline Vec4 quat_conj(const Vec4& q) { return Vec4(q(0), -q(1), -q(2), -q(3)); }

// q scaled to unit length.
inline Vec4 quat_normalize(const Vec4& q) { return q / q.norm(); }

// Rot(q) = V L(q) R(q)ᵀ H, written out.
inline Mat3 quat_to_rot(const Vec4& q) {
  const double w = q(0), x = q(1), y = q(2), z = q(3);
  Mat3 R;
  R << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
      2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
      2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return R;
}

// Rot(q) p
inline Vec3 quat_rotate(const Vec4& q, const Vec3& p) { return quat_to_rot(q) * p; }

// The unit quaternion of a rotation matrix, with w ≥ 0.
inline Vec4 rot_to_quat(const Mat3& R) {
  Eigen::Quaterniond e(R);
  e.normalize();
  Vec4 q(e.w(), e.x(), e.y(), e.z());
  if (q(0) < 0) q = -q;
  return q;
}

// exp map of a rotation vector (angle = |θ|).
inline Vec4 quat_exp(const Vec3& theta) {
  const double a = theta.norm();
  if (a < 1e-12) {
    Vec4 q(1.0, 0.5 * theta.x(), 0.5 * theta.y(), 0.5 * theta.z());
    return q / q.norm();
  }
  const double s = std::sin(0.5 * a) / a;
  return Vec4(std::cos(0.5 * a), s * theta.x(), s * theta.y(), s * theta.z());
}

// Rotation vector of q (shortest: q and -q give the same result).
inline Vec3 quat_log(const Vec4& q_in) {
  Vec4 q = q_in(0) < 0 ? Vec4(-q_in) : q_in;
  const Vec3 v = q.tail<3>();
  const double n = v.norm();
  if (n < 1e-12) return 2.0 * v;
  return (2.0 * std::atan2(n, q(0)) / n) * v;
}

// Rotation by `angle` [rad] about `axis` (normalized here).
inline Vec4 quat_axis_angle(const Vec3& axis, double angle) {
  return quat_exp(axis.normalized() * angle);
}

// Rotation that takes e_z onto the unit vector `a` (used to align joint frames with axes).
inline Vec4 quat_z_to(const Vec3& a_in) {
  const Vec3 a = a_in.normalized();
  const Vec3 z(0, 0, 1);
  const double c = z.dot(a);
  if (c > 1 - 1e-12) return quat_identity();
  if (c < -1 + 1e-12) return Vec4(0, 1, 0, 0);  // half turn about x
  const Vec3 axis = z.cross(a).normalized();
  return quat_axis_angle(axis, std::acos(std::clamp(c, -1.0, 1.0)));
}

// Discrete angular velocity of the integrator (docs/computation.md (7)):
//   q3 = q2 ⊗ ω̄(ω) Δt/2,  ω̄(ω) = [sqrt(4/Δt² − ωᵀω); ω]   (requires |ω| < 2/Δt)
inline double omega_scalar(const Vec3& w, double dt) {
  const double s2 = 4.0 / (dt * dt) - w.squaredNorm();
  return s2 > 0 ? std::sqrt(s2) : 0.0;
}

// ω̄(ω) Δt/2, the step's rotation: q3 = q2 ⊗ omega_step_quat(ω, Δt).
inline Vec4 omega_step_quat(const Vec3& w, double dt) {
  const double s = omega_scalar(w, dt);
  return Vec4(0.5 * dt * s, 0.5 * dt * w.x(), 0.5 * dt * w.y(), 0.5 * dt * w.z());
}

// Inverse of omega_step_quat: the ω with q2 ⊗ ω̄(ω)Δt/2 = q3 (q3 on the same hemisphere;
// docs/computation.md (9)).
inline Vec3 omega_from_quats(const Vec4& q2, const Vec4& q3, double dt) {
  Vec4 d = quat_mul(quat_conj(q2), q3);
  if (d(0) < 0) d = -d;
  return (2.0 / dt) * d.tail<3>();
}

// ∂θ3/∂ω: how the body-frame rotation vector at the new knot (q3 ⊕ δθ3) moves with ω25.
//   = (Δt²/2)(s I − [ω]× + ω ωᵀ / s)   (docs/computation.md (10); equals Δt I at ω = 0)
inline Mat3 dtheta3_domega(const Vec3& w, double dt) {
  const double s = omega_scalar(w, dt);
  return 0.5 * dt * dt * (s * Mat3::Identity() - skew(w) + (w * w.transpose()) / s);
}

}  // namespace maxsim
