// Physical diagnostics of a state: energies, momenta, constraint violation.
//
// Variational integrator: velocities in Data are those over the last interval [t1, t2] and
// positions are the knot z2; energies combine them as the discrete Lagrangian does: kinetic
// energy of the interval's velocity, gravity's potential averaged over the interval's two knots
// (springs at the knot). Momenta are the discrete momentum maps the integrator conserves exactly
// without external wrenches.
// Energy–momentum integrator: velocities and positions are both the knot's, and these are the
// physical energy and momenta, which it conserves exactly.
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

double kinetic_energy(const Model& model, const Data& data);  // of the last interval's velocities [J]
double potential_energy(const Model& model, const Data& data);  // gravity + joint and tendon springs
// Kinetic plus potential energy [J].
inline double total_energy(const Model& model, const Data& data) {
  return kinetic_energy(model, data) + potential_energy(model, data);
}
Vec3 linear_momentum(const Model& model, const Data& data);  // [N s]
Vec3 angular_momentum(const Model& model, const Data& data);  // about the world origin
// Largest |c_r| over the constrained rows of all joints and the couplings' rows (m for
// translation, rad for rotation; docs/computation.md (86)).
double max_constraint_violation(const Model& model, const Data& data);
// Largest |row| of the nonholonomic constraints (m, rad, m/s, rad/s; sim/constraints/nonholonomic.hpp).
double max_nonholonomic_violation(const Model& model, const Data& data);

}  // namespace maxsim
