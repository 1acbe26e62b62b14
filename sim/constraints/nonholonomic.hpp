// Nonholonomic constraints (docs/computation.md (76)–(78); Model::nonholonomic): their rows in the
// step equations of either integrator.
//
// A constraint acts on one body through up to four rows: its velocity rows (no slip, no sideways
// motion of a blade, a blocked rotation axis) and the position rows its kind implies (a rolling
// body's height, an upright disk's horizontal axis), which are held at z3 like joint rows.
//
// Variational integrator (discrete Lagrange–d'Alembert, first order): a velocity row is
// μ(z2) ν = 0 on the interval velocity ν = (v, ω) and its force is μ(z2)ᵀ U, constant over the
// step like the joints' maps at z2.
//
// Energy–momentum integrator: a velocity row holds at the new knot, μ(z3) ν3 = 0 with the knot
// velocities ν3 = (u3, Ω3) (sim/integrator/energy_momentum.hpp), so the constraint never drifts.
// Its force is the row's direction evaluated with the averaged geometry of the step (R̄, as the
// joints' rows) made W-orthogonal to the midpoint velocity ν̄ = (v̄, Ω̄), W = diag(m I, J):
//   f ← f − (f·ν̄ / ν̄ᵀWν̄) W ν̄,
// so that it does no work over the step and the energy is conserved exactly (the discrete
// gradient idea of Celledoni et al. (2019, §3) applied to the constraint force: their eq. 15 keeps
// the energy with midpoint rows, but those let the knot constraint drift). The correction is O(Δt²)
// once the knot rows hold (μ̄ν̄ = O(Δt²)), so the scheme stays second order. Position rows use
// their exact discrete gradients (no correction).
#pragma once

#include "sim/constraints/joint.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The rows of one nonholonomic constraint, their Jacobian and force map.
struct NonholonomicRows {
  int n = 0;             // rows in use (NonholonomicConstraint::rows())
  unsigned position = 0; // bit r: row r is a position row (m or rad), else a rate (m/s, rad/s)
  Vec6 c = Vec6::Zero(); // row values
  Mat6 J = Mat6::Zero(); // ∂c/∂(the body's unknowns: v or v̄, ω); rows ≥ n zero
  Mat6 M = Mat6::Zero(); // force map: row r = (world force, body torque) per unit impulse of row r
};

// The step's quantities of one body for a constraint's rows: the knot z2 with its velocities
// (Data::v, Data::w: interval velocities for the variational integrator, knot velocities for the
// energy–momentum one), the unknowns (v, ω) and the z3 they give.
struct NonholonomicStep {
  Vec3 x2, u2, rate2, v, omega, x3;  // z2's position and velocities, the unknowns, z3's position
  Vec4 q2, q3;  // orientations at z2 and z3
  double dt;    // the step's length [s]
  double knot_weight = 0.5;  // the energy–momentum step's θ (em_linear_velocity)
};

// The rows of constraint `c` on `body` at the unknowns of `s`, for the model's integrator.
void nonholonomic_rows(const NonholonomicConstraint& c, const Body& body, Integrator integrator,
                       const NonholonomicStep& s, NonholonomicRows* out);

// The rows of constraint `c` at one pose z = (x, q), for consistent initial states
// (sim/solver/projection.hpp): position rows give c(z) and ∂c/∂(δx, δθ); velocity rows give c = 0
// and their map μ(z) of the body velocity ν = (v world, ω body). `position` marks the position
// rows. M is left zero.
void nonholonomic_rows_at(const NonholonomicConstraint& c, const Vec3& x, const Vec4& q, NonholonomicRows* out);

// Largest |row| of the model's nonholonomic constraints in the state of `data` (for the
// variational integrator: the interval velocities with the orientation at the interval's start,
// as the step imposed them).
double nonholonomic_violation(const Model& model, const std::vector<Vec3>& x, const std::vector<Vec4>& q,
                              const std::vector<Vec3>& v, const std::vector<Vec3>& w, double dt);

}  // namespace maxsim
