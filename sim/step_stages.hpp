// Stages of one step (sim/step.cpp) that other algorithms replay: the step's derivatives
// (sim/derivatives/transition.cpp) evaluate the converged step again at perturbed starts.
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Appends the inequalities of the current knot to d.contacts: the contact search's surface
// contacts (within its margins for a step of `dt`; pair_margins: ContactSearch::collide's), then
// joint and tendon limits.
void find_inequalities(const Model& model, Data& d, double dt, bool pair_margins = true);

// The end of a solved step: z3 (ws.x3, ws.q3 of the last residual) becomes the current knot, the
// velocities become the integrator's at its end from the unknowns ws.unknowns, the equality
// constraints store their impulses, and the time advances by the step's Δt.
void advance_knot(const Model& model, Data& d);

}  // namespace maxsim
