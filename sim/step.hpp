// One time step of the variational integrator (docs/computation.md §2–§8; Brüdigam et al.
// 2023, §3):
//
//   knot quantities at z2 (impulse maps, coordinates)  →  Newton on the velocities over [t2, t3]
//   and all joint row impulses: assemble residual and Jacobian → factor (graph LDU) → solve →
//   line search  →  update z3 and the velocities.
//
// Constraints are imposed on z3, so they hold to solver tolerance after every step (no drift).
#pragma once

#include <string>

#include "sim/data.hpp"
#include "sim/model.hpp"
#include "sim/step_summary.hpp"

namespace maxsim {

// Advances `data` by model.opt.timestep (running data.controller first, if set). On success (Ok)
// the state moves to t + dt. NotConverged means the iteration limit was reached with a finite
// iterate: the state still advances (so a run can go on) and the report says by how much the
// residual missed. Failed means the solve produced no usable iterate (singular matrix, non-finite
// numbers): the state is left unchanged.
StepReport step(const Model& model, Data& data);

// n steps (n >= 0, else std::invalid_argument), stopping after a Failed one (it leaves the state
// unchanged, so the following would fail alike). The summary counts every step's outcome;
// StepSummary::last is the last step's report (Data::report before the first step when n is 0).
StepSummary step(const Model& model, Data& data, long long n);

// Whether step() can advance this model and Data with model.opt.integrator: an empty string, or a
// message naming what the integrator does not handle. The energy–momentum integrator takes
// equalities only: no contact search (Data::contact_search), joint limits or joint friction. step()
// itself refuses such a step (StepStatus::Failed with StepReport::reason) when its collide stage
// produces an inequality.
std::string integrator_support(const Model& model, const Data& data);

}  // namespace maxsim
