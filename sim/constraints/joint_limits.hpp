// Joint limits as inequality constraints (docs/computation.md (43)): a limited free row of a joint
// whose coordinate comes near a bound gets a frictionless unilateral constraint
//     side·(coordinate(z3) − bound) ≥ 0,   impulse γ ≥ 0 along the row,   γ·φ = 0,
// solved by the same interior point as contacts (so a limit is never penetrated beyond solver
// tolerance, and its impulse is reported in the Contact's gamma). A row that starts beyond a bound
// (some descriptions' zero pose violates their own limits) is moved back towards its range by a
// fraction of the violation per step (ModelOptions::limit_recovery_time); on a joint of a closed
// loop it has no limit until it is back within its range (see the .cpp).
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Appends to data.contacts the dry friction of every free row that has it, and the limits of every
// joint row within `margin` (plus the distance the row moved over the last step, twice) of a
// bound, at the current knot, for a step of length dt; a ball joint's cone limit likewise
// (Joint::cone_limit, the rotation's angle within margin plus twice the relative angular speed
// times dt of it).
void append_joint_limits(const Model& model, Data& data, double dt, double margin = 0.05);

// The bound a step gives a limit whose coordinate starts at `coord`, `side`·(coord − bound) < 0
// beyond `bound`: the coordinate moved back by min(1, Δt/τ) of the violation (τ =
// ModelOptions::limit_recovery_time; infinity: the coordinate itself, held where it is).
double recovering_bound(double coord, double bound, double dt, double recovery_time);

}  // namespace maxsim
