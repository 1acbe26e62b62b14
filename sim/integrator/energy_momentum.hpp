// The energy–momentum integrator (Model::integrator = Integrator::EnergyMomentum): the step
// equations of one body and the force maps of joint rows (docs/computation.md (64)–(75)).
//
// It is the Livens-type energy–momentum scheme of Kinon & Betsch (2024), §4, written on the
// rotation group: the midpoint rule for the body's momenta (their eqs. 72a–d, 86b–c) with the
// discrete gradient of the kinetic energy taken in the body angular velocity Ω (eqs. 87–88; T is
// quadratic in Ω, so the Gonzalez correction vanishes) and the orientation updated by the Cayley
// map instead of the unit-quaternion constraint (Remark 4.11's null-space form, eq. 105, with the
// Cayley map as the parametrization). In this form the *physical* energy Σ ½m|u|² + ½ΩᵀJΩ + V and
// the momentum maps are conserved exactly; their quaternion-coordinate version conserves a
// generalized energy (their eq. 74) that differs from it (docs/computation.md §9).
//
// Unknowns per body are the engine's: the midpoint linear velocity v̄ = (x3 − x2)/Δt and ω with
// q3 = q2 ⊗ ω̄(ω)Δt/2 (sim/integrator/body_dynamics.hpp). Their Cayley parameter is w = 2ω/s,
// s = √(4/Δt² − |ω|²): q3 = q2 ⊗ (1, w/2)/√(1 + |w|²/4), Rot(q3) = Rot(q2) cay(w), and the
// midpoint body angular velocity is Ω̄ = w/Δt. The state holds knot velocities (u, Ω):
//   u3 = 2 v̄ − u2,   Ω3 = 2 w/Δt − Ω2                                (docs/computation.md (65))
//   linear:  m (u3 − u2) − Δt (m g + F) − Σ forces = 0
//   angular: J (Ω3 − Ω2) − (J Ω̄) × w − Δt τ − Σ torques = 0           (midpoint Lie–Poisson)
// Row forces act through averaged geometry: a spatial torque T becomes the body torque
// τ = R̄⁻¹T with R̄ = ½(R2 + R3) = R2 (I − ŵ/2)⁻¹, which does the work w·τ = (R2 w)·T. Every
// constrained row is written with terms linear in each body's rotation matrix, so its discrete
// gradient is exact by the product rule Δ(a·b) = Δa·b̄ + ā·Δb (no Gonzalez correction).
#pragma once

#include <cmath>

#include "sim/constraints/joint.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Cayley parameter w of the engine's ω, and ∂w/∂ω = (2/s) I + (2/s³) ω ωᵀ.
inline Vec3 em_cayley(const Vec3& omega, double dt) { return (2.0 / omega_scalar(omega, dt)) * omega; }
Mat3 em_cayley_jacobian(const Vec3& omega, double dt);

// The ω whose Cayley parameter is Δt·Ω (the warm start: the knot rate held over the step).
inline Vec3 em_omega_from_rate(const Vec3& rate, double dt) {
  return rate / std::sqrt(1.0 + 0.25 * dt * dt * rate.squaredNorm());
}

// (I − ŵ/2): maps R2ᵀ T (a spatial torque seen in the body frame at z2) to the body torque R̄⁻¹T.
inline Mat3 em_torque_map(const Vec3& w) { return Mat3::Identity() - 0.5 * skew(w); }

// The body's step residual (impulse units, body-frame angular part), without row forces; θ the
// knot weight (em_linear_velocity).
Vec6 em_body_residual(const Body& body, const Vec3& u2, const Vec3& rate2, const Vec3& vbar,
                      const Vec3& omega, const Vec3& gravity, const Vec3& force, const Vec3& torque,
                      double dt, double theta);

// ∂(em_body_residual)/∂(v̄, ω), plus the change of the row torques' map (I − ŵ/2) with ω at fixed
// spatial row torque; `row_torque` is R2ᵀ Σ T over the body's rows.
Mat6 em_body_jacobian(const Body& body, const Vec3& omega, const Vec3& row_torque, double dt, double theta);

// ∂u3/∂v̄ = 1/θ for the knot weight θ = ½ + ν of the numerical damping ν (2 for the conservative
// scheme); also ∂Ω3/∂(w/Δt) and the armature's factor.
inline double em_knot_gain(double theta) { return 1.0 / theta; }
// Knot velocities at z3 from the unknowns: v̄ = (1 − θ) u2 + θ u3, i.e. u3 = g v̄ − (g − 1) u2 with
// g = 1/θ (docs/computation.md (65), (105); for θ = ½ exactly u3 = 2v̄ − u2, the products by 2 and
// 1 being exact).
inline Vec3 em_linear_velocity(const Vec3& u2, const Vec3& vbar, double theta) {
  const double g = em_knot_gain(theta);
  return g * vbar - (g - 1.0) * u2;
}
// Ω3 from the angular unknown ω (Cayley parameter w): w/Δt = (1 − θ) Ω2 + θ Ω3.
inline Vec3 em_angular_velocity(const Vec3& rate2, const Vec3& omega, double dt, double theta) {
  const double g = em_knot_gain(theta);
  return (g / dt) * em_cayley(omega, dt) - (g - 1.0) * rate2;
}

// One body's interval as the row forces see it: rotation at z2, the averaged rotation R̄, the
// Cayley parameter (world parent: identities, w = 0).
struct EmInterval {
  Mat3 R = Mat3::Identity();     // Rot(q2)
  Mat3 Rbar = Mat3::Identity();  // ½ (Rot(q2) + Rot(q3))
  Vec3 w = Vec3::Zero();         // the Cayley parameter w = 2ω/s
  Vec3 x2 = Vec3::Zero(), x3 = Vec3::Zero();  // CoM positions at z2 and z3
  Mat3 dtheta = Mat3::Zero();    // ∂θ3/∂ω (zero for the world: nothing moves)
};

// The interval of a body that moves from (x2, q2) to (x3, q3) with the unknown ω.
EmInterval em_interval(const Vec3& x2, const Vec4& q2, const Vec3& x3, const Vec4& q3, const Vec3& omega, double dt);

// Force maps of a joint's six rows: row r of *Ma / *Mb is the (world force, body torque) one unit
// of row r's impulse applies to the parent / child. Constrained and translational rows use their
// exact discrete gradients (above); free rotation rows, which carry dampers, actuation and
// springs, act through the mean ½(J2 + J3) of the engine's row Jacobians.
void em_joint_force_maps(const Joint& joint, const EmInterval& a, const EmInterval& b,
                         const JointRows& rows2, const JointRows& rows3, Mat6* Ma, Mat6* Mb);

// Derivatives of the wrenches (world force, body torque) that a joint's row impulses u apply to
// its bodies through em_joint_force_maps, with respect to the bodies' unknowns (v̄, ω) at fixed u:
// xy = ∂(wrench on x)/∂(unknowns of y). Left out: the change of the torque map (I − ŵ/2) with
// the body's own w (em_body_jacobian has it) and of the free rotation rows' mean maps (their
// impulses are dampers and actuation, small beside the constraint impulses).
struct EmForceJacobian {
  Mat6 aa, ab, ba, bb;  // ∂(wrench on a or b)/∂(unknowns of a or b)
};
// The four blocks for row impulses u.
void em_joint_force_jacobian(const Joint& joint, const EmInterval& a, const EmInterval& b, const Vec6& u, double dt,
                             EmForceJacobian* out);

// The body torque τ = (I − ŵ/2) R2ᵀ T of a spatial torque T, inverted: R2ᵀ T = R2ᵀ R̄ τ (what
// em_body_jacobian's `row_torque` sums).
inline Vec3 em_row_torque(const EmInterval& iv, const Vec3& body_torque) {
  return iv.R.transpose() * (iv.Rbar * body_torque);
}

}  // namespace maxsim
