// Discrete Euler–Lagrange equations of one free rigid body (docs/computation.md (12)–(16)).
//
// Unknowns are the velocities (v, ω) over [t2, t3]; (v_prev, ω_prev) are those over [t1, t2].
// The residual is in impulse units (N·s, N·m·s), angular part in the body frame at q2:
//   linear:   m (v − v_prev) − Δt (m g + F)
//   angular:  (Δt/2)[(s I + [ω]×) J ω − (s_prev I − [ω_prev]×) J ω_prev] − Δt τ,
//             s = sqrt(4/Δt² − ωᵀω)
// which is Dojo's D1 + D2 written out (docs/computation.md (13)). Constraint and joint impulses
// are added by the caller ((14)).
#pragma once

#include "sim/constraints/joint.hpp"
#include "sim/model.hpp"

namespace maxsim {

Vec6 body_residual(const Body& body, const Vec3& v_prev, const Vec3& w_prev, const Vec3& v,
                   const Vec3& w, const Vec3& gravity, const Vec3& force, const Vec3& torque,
                   double dt);

// ∂(body_residual)/∂(v, ω).
Mat6 body_jacobian(const Body& body, const Vec3& w, double dt);

// Next knot from the unknowns: x3 = x2 + Δt v, q3 = q2 ⊗ ω̄(ω) Δt/2 (unit norm by construction).
inline void next_pose(const Vec3& x2, const Vec4& q2, const Vec3& v, const Vec3& w, double dt,
                      Vec3* x3, Vec4* q3) {
  *x3 = x2 + dt * v;
  *q3 = quat_mul(q2, omega_step_quat(w, dt));
}

// Body angular momentum over [t1, t2] seen at q2, world frame: the quantity the angular residual
// balances, so it is conserved exactly (to solver tolerance) without external torques.
Vec3 body_angular_momentum(const Body& body, const Vec4& q2, const Vec3& w_prev, double dt);

}  // namespace maxsim
