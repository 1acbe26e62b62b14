// Hard contacts with friction (docs/computation.md (30)–(39); Brüdigam et al. 2023, §3.3–3.4;
// Dojo's nonlinear contact).
//
// A contact between body a (kWorld: the ground or a world geom) and body b keeps, from the
// candidate search at z2, its witness points in the two body frames and the world normal n (a→b)
// with a tangent basis T. Its gap at the next knot is exact in the unknowns:
//     φ(z3) = nᵀ(C_b(z3) − C_a(z3)) − offset,    C = x + Rot(q) core
// (core = witness point for flat features; sphere centre / capsule axis point with offset = the
// radii for rounded ones). Impulses act at the witness points P = x + Rot(q) p.
// and the relative tangential velocity over the step
//   v_t = Tᵀ[(P_b(z3) − P_b(z2)) − (P_a(z3) − P_a(z2))]/Δt.
//
// Variables (interior-point): normal impulse γ ≥ 0 with slack s = φ(z3) ≥ 0, γ s = 0; friction
// impulse b ∈ R² in the second-order cone β = (μγ, b) ∈ K with dual η = (η0, v_t) ∈ K, β∘η = 0
// (maximum dissipation: sliding gives b = −μγ v_t/‖v_t‖, sticking v_t = 0, ‖b‖ ≤ μγ).
// In the Newton system the slack s and η_t are eliminated through their linear equations
// (Δs = Jφ Δν − r_s, Δη_t = J_vt Δν − r_η), so a contact is a graph leaf with 4 unknowns
// (γ, b1, b2, η0) that touches only its bodies.
#pragma once

#include <Eigen/Core>

#include "sim/constraints/joint.hpp"
#include "sim/model.hpp"

namespace maxsim {

using Vec2 = Eigen::Vector2d;                  // a tangential vector
using Mat32 = Eigen::Matrix<double, 3, 2>;     // a tangent basis (two world columns)
using Row6 = Eigen::Matrix<double, 1, 6>;      // a gap's Jacobian row
using Mat26 = Eigen::Matrix<double, 2, 6>;     // a tangential velocity's Jacobian

// Contact::row of a ball joint's cone limit: the angle of its relative rotation, past the six rows
constexpr int kJointConeRow = 6;

// One inequality of a step: a contact between two bodies (or a body and the world), a joint
// limit, or dry friction on a joint row; its geometry and its interior-point variables.
struct Contact {
  // geometry, fixed over the step
  int body_a = kWorld;
  int body_b = 0;
  Vec3 point_a = Vec3::Zero();  // in body a's frame (world frame for kWorld)
  Vec3 point_b = Vec3::Zero();  // in body b's frame
  // gap: φ = nᵀ(C_b − C_a) − offset with body-fixed "core" points (sphere centres, capsule axis
  // points: exact while a ball rolls); for flat features core == point and offset = 0
  Vec3 core_a = Vec3::Zero(), core_b = Vec3::Zero();
  double offset = 0;            // the gap's offset o [m]
  Vec3 normal = Vec3::UnitZ();  // world, from a to b
  Mat32 tangent = Mat32::Zero();
  double friction = 0.8;        // μ; 0: frictionless (the friction rows become identity rows)
  // Restitution e (Newton's impact law on the normal speed): the step after an impact at normal
  // speed v⁻ (recorded in impact_speed) requires the gap to open at e·v⁻: φ(z3) ≥ e v⁻ Δt, when
  // e v⁻ exceeds bounce_threshold (slower impacts stay inelastic, so resting contacts settle).
  double restitution = 0, bounce_threshold = 0.05;
  double impact_speed = 0;      // set by step() for a contact that closed in this step
  // A joint limit is the same inequality on a joint's free row r instead of two surfaces:
  // φ = side·(coordinate_r(z3) − bound) ≥ 0, impulse along the row (body_a = parent,
  // body_b = child, frictionless). joint < 0 for a surface contact. Row kJointConeRow: a ball
  // joint's cone limit, the coordinate being its rotation's angle (Joint::cone_limit).
  int joint = -1, row = -1;
  double bound = 0, side = 1;   // the limit's bound and side (+1 lower, −1 upper)
  // A row limit eliminated into its joint's free row, as dry joint friction is (FoldedJointLimit,
  // SolverOptions::fold_joint_limits): no node of the solver's graph, no fill-in
  bool folded = false;
  // A tendon limit: the same on tendon t's length, φ = side·(ℓ − bound) with ℓ the tendon node's
  // length unknown (body_a = kWorld, body_b = the tendon's graph node; sim/constraints/tendon.hpp).
  int tendon = -1;
  // Dry joint friction on a joint's free row (URDF <dynamics friction>, MJCF frictionloss): no
  // normal part; the friction impulse b1 along the row lies in the 1-D cone |b1| ≤ dry_limit
  // (= friction force × Δt) with the row rate as its dual — maximum dissipation again.
  double dry_limit = 0;
  // Torsional friction (MJCF condim 4 and 6; docs/computation.md (117)): the impulse's moment
  // about the normal, `spin`, in the 1-D cone |spin| ≤ torsion·γ whose dual is the bodies'
  // relative spin rate about the normal, ω_n = nᵀ(R_b ω_b − R_a ω_a) — maximum dissipation again.
  double torsion = 0;           // μ_τ [m]; 0: none
  // interior-point variables (impulses over the step, N·s; s in m; η in m/s); with the pyramid's
  // below, the only fields a solve changes (copy_contact_variables copies them: add a new one there)
  double gamma = 0, slack = 0;
  Vec2 b = Vec2::Zero();        // the friction impulse in the tangent basis
  Vec3 eta = Vec3::Zero();      // (η0, η_t)
  double spin = 0;              // the torsional impulse [N·m·s]
  Vec2 spin_eta = Vec2::Zero(); // its dual (η_τ0, ω_n) [rad/s]
  // Linearized friction cone (docs/computation.md (38)), the pyramid of n_f = 4 directions
  // d_i = ±t1, ±t2: b = Σ β_i d_i with β_i ≥ 0 and Σ β_i ≤ μ γ; the duals are
  // η_i = ψ + d_iᵀ v_t ≥ 0 (eliminated like s) and ζ = μγ − Σ β_i (explicit), ψ ≥ 0 the
  // sliding-speed multiplier, with β_i η_i = 0 and ψ ζ = 0. Node unknowns (γ, β1..β4, ψ); b above
  // is kept equal to Σ β_i d_i for reports.
  bool linear_cone = false;
  // Anitescu's relaxed cone instead (RelaxedContact; ContactOptions::cone, or the failure
  // policy's last attempt: InteriorPointOptions::relaxed_fallback)
  bool relaxed_cone = false;
  // the pyramid's β_i and their duals η_i
  Eigen::Vector4d lin_beta = Eigen::Vector4d::Zero(), lin_eta = Eigen::Vector4d::Zero();
  double lin_psi = 0;           // the pyramid's sliding-speed multiplier ψ
};

// The pyramid's directions in the tangent basis and the friction impulse they add up to.
inline Vec2 pyramid_direction(int i) {
  return i == 0 ? Vec2(1, 0) : i == 1 ? Vec2(0, 1) : i == 2 ? Vec2(-1, 0) : Vec2(0, -1);
}
// b = Σ β_i d_i
inline Vec2 pyramid_impulse(const Eigen::Vector4d& beta) { return Vec2(beta(0) - beta(2), beta(1) - beta(3)); }
// ζ = μγ − Σ β_i, the pyramid's slack
inline double pyramid_zeta(const Contact& c) { return c.friction * c.gamma - c.lin_beta.sum(); }

// A contact has a normal (orthant) part unless it is dry joint friction; it has a friction cone
// when μ > 0 or it is dry friction (the solver's kinds: sim/solver/inequality.hpp).
inline bool has_normal(const Contact& c) { return c.dry_limit <= 0; }
inline bool has_cone(const Contact& c) { return c.friction > 0 || c.dry_limit > 0; }
inline double cone_slope(const Contact& c) { return c.dry_limit > 0 ? 0.0 : c.friction; }  // ∂β0/∂γ
// A gap between two bodies' surfaces: not a joint's or a tendon's limit, not joint friction.
inline bool is_surface_contact(const Contact& c) { return c.joint < 0 && c.tendon < 0 && has_normal(c); }

// Fills the tangent basis of a contact from its normal.
void contact_set_normal(Contact* c, const Vec3& normal);

// Gap and tangential velocity at z3 and their Jacobians with respect to each body's unknowns
// (v, ω) over the step (zero rows for the world).
struct ContactKinematics {
  double phi = 0;                                        // gap φ(z3) [m]
  Vec2 vt = Vec2::Zero();                                // tangential velocity v_t [m/s]
  Row6 Jphi_a = Row6::Zero(), Jphi_b = Row6::Zero();     // ∂φ/∂(v, ω) of body a, b
  Mat26 Jvt_a = Mat26::Zero(), Jvt_b = Mat26::Zero();    // ∂v_t/∂(v, ω) of body a, b
  double wn = 0;  // with torsional friction: the relative spin rate ω_n [rad/s]
  Row6 Jwn_a = Row6::Zero(), Jwn_b = Row6::Zero();  // ∂ω_n/∂(v, ω) of body a, b (constant)
};

// The gap and tangential velocity (a2/b2: poses at z2; a3/b3 at z3).
void contact_kinematics(const Contact& c, const Pose& a2, const Pose& b2, const Pose& a3,
                        const Pose& b3, double dt, ContactKinematics* out);
// Their Jacobians at the same z3 (wa/wb: the bodies' angular velocity unknowns, for ∂θ3/∂ω);
// the solver computes them only at the iterates whose Newton matrix it assembles.
void contact_kinematics_jacobian(const Contact& c, const Pose& a3, const Pose& b3, const Vec3& wa,
                                 const Vec3& wb, double dt, ContactKinematics* out);

// ∂(body residual)/∂(γ, b1, b2) for body b (sign +1) or a (sign −1): −sign·[I; [p]× Rot(q2)ᵀ][n T]
// (the impulse acts at the witness point, mapped at z2 like every other impulse).
Eigen::Matrix<double, 6, 3> contact_impulse_map(const Contact& c, const Vec4& q2, bool body_b);

// ---- second-order cone helpers (Jordan algebra on R × R²) ------------------------------------
// u ∘ v = (uᵀv, u0 v1 + v0 u1)
inline Vec3 cone_product(const Vec3& u, const Vec3& v) {
  return Vec3(u.dot(v), u(0) * v(1) + v(0) * u(1), u(0) * v(2) + v(0) * u(2));
}
// Arw(u), the matrix of v ↦ u ∘ v
inline Mat3 cone_arrow(const Vec3& u) {
  Mat3 A;
  A << u(0), u(1), u(2), u(1), u(0), 0, u(2), 0, u(0);
  return A;
}
// Nesterov–Todd scaling of a pair (β, η) strictly inside the cone: the symmetric W with
// W η = W⁻¹ β = λ (Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", §4).
// The complementarity β∘η = κe is linearized as λ∘(W Δη + W⁻¹ Δβ) = κe − λ∘λ − (corrector):
// unlike the unscaled Arw(η)Δβ + Arw(β)Δη, this stays well conditioned when both members
// approach the boundary together, which is what a sliding contact does (β on the edge of the
// friction cone, η = (|v_t|, v_t) on the edge of its dual). Returns false if a member is not
// strictly inside (the caller keeps the unscaled form then).
struct ConeScaling {
  Mat3 W, W_inv;  // the scaling W and its inverse
  Vec3 lambda;    // λ = W η = W⁻¹ β
};
// The scaling of (β, η); false if a member is not strictly inside.
bool cone_nt_scaling(const Vec3& beta, const Vec3& eta, ConeScaling* out);

// A cone's linearized complementarity at the current iterate: the coefficients of Δβ and Δη
// (Arw(λ)W⁻¹, Arw(λ)W when `scaled`, else Arw(η), Arw(β)) and the scaling itself. Computed once
// per interior-point iteration, with the Newton matrix, and reused by its right-hand sides.
struct ConeLinearization {
  Mat3 coef_beta = Mat3::Zero(), coef_eta = Mat3::Zero();  // coefficients of Δβ, Δη
  ConeScaling nt;        // the scaling, when `scaled`
  bool scaled = false;   // the Nesterov–Todd form (else the unscaled one)
  // scaled: the right-hand side's λ∘λ evaluated as (W⁻¹β)∘(Wη) at the current (β, η) — the
  // derivatives' parameter columns, which move β (a friction coefficient) at a fixed factorization
  bool evaluated = false;
};
// Largest α in [0, 1] keeping u + α du in the cone (u strictly inside).
double cone_max_step(const Vec3& u, const Vec3& du);
// Largest α in [0, 1] keeping x + α dx ≥ 0 (x > 0).
inline double orthant_max_step(double x, double dx) { return dx < 0 ? std::min(1.0, -x / dx) : 1.0; }

}  // namespace maxsim
