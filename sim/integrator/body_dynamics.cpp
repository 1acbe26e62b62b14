#include "sim/integrator/body_dynamics.hpp"

namespace maxsim {

Vec6 body_residual(const Body& body, const Vec3& v_prev, const Vec3& w_prev, const Vec3& v,
                   const Vec3& w, const Vec3& gravity, const Vec3& force, const Vec3& torque,
                   double dt) {
  const Mat3& J = body.inertia;
  const double s = omega_scalar(w, dt);
  const double sp = omega_scalar(w_prev, dt);
  Vec6 r;
  r.head<3>() = body.mass * (v - v_prev) - dt * (body.mass * gravity + force);
  r.tail<3>() = 0.5 * dt * (s * (J * w) + w.cross(J * w) - sp * (J * w_prev) + w_prev.cross(J * w_prev)) -
                dt * torque;
  return r;
}

Mat6 body_jacobian(const Body& body, const Vec3& w, double dt) {
  const Mat3& J = body.inertia;
  const double s = omega_scalar(w, dt);
  const Vec3 Jw = J * w;
  Mat6 M = Mat6::Zero();
  M.block<3, 3>(0, 0) = body.mass * Mat3::Identity();
  M.block<3, 3>(3, 3) = 0.5 * dt * (s * J - (Jw * w.transpose()) / s + skew(w) * J - skew(Jw));
  return M;
}

Vec3 body_angular_momentum(const Body& body, const Vec4& q2, const Vec3& w_prev, double dt) {
  const double sp = omega_scalar(w_prev, dt);
  const Vec3 Jw = body.inertia * w_prev;
  return quat_to_rot(q2) * (0.5 * dt * (sp * Jw - w_prev.cross(Jw)));
}

}  // namespace maxsim
