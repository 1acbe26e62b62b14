// The exoskeleton's gains objective (exoskeleton.hpp, gains_objective_value) differentiated through
// its rollouts, and a gradient search over the gains (issue-level plan: docs/roadmap.md, "Derivatives").
//
// Each routine is run once; at every step the controller's forces are set, then the step's
// transition derivatives (sim/derivatives/transition.hpp) with the force columns of the five
// controlled rows give the closed-loop map of the state, Φ = A + F ∂f/∂x, and of the gains,
// G = F ∂f/∂g (ExoController::law_derivatives). The adjoint (backward) pass
// λ_k = ∂J/∂x_k + Φ_kᵀ λ_{k+1}, ∇J = Σ_k G_kᵀ λ_{k+1} + ∂J/∂g (docs/computation.md (104)) sums the
// objective's direct terms: the RMS tracking errors after every step and, when the elbow torque's
// largest value is above the target, its value at that step (a subgradient of the max).
#pragma once

#include <array>
#include <vector>

#include "controllers/search.hpp"
#include "robots/exoskeleton/exoskeleton.hpp"

namespace maxsim::exo {

struct GainsGradient {
  double value = 0;                  // gains_objective_value of the two runs (maximized)
  std::array<double, 4> gradient{};  // ∂value/∂gains, Gains order (0 when a step failed: value −∞)
  Summary healthy, spastic;
  int steps = 0;           // steps differentiated
  int implicit_steps = 0;  // ... of them by the implicit function theorem (else finite differences)
};

// The objective and its gradient at gains g (the full routine for both patients, as GainsObjective).
GainsGradient gains_gradient(const Exoskeleton& healthy, const Exoskeleton& spastic, const Gains& g,
                             const Routine& r = {});

// A projected gradient ascent on the gains in the units of their sampling scales (searched_gains):
// from the initial gains, each iteration takes the gradient, tries the step α ∇ clipped to the
// bounds, halves α until the objective rises by Armijo's 1e-4 α|∇|², and grows it by 1.5 after an
// accepted step. Stops after `iterations` gradients, or when α falls below 1e-6.
struct GradientSearchResult {
  Gains best;
  double best_value = 0;
  std::vector<double> history;  // best value after each gradient (the first: the initial gains)
  int gradients = 0;            // gradient evaluations (each runs both routines and differentiates them)
  int evaluations = 0;          // objective evaluations of the line search (both routines each)
  double gradient_time = 0, evaluation_time = 0;  // s, wall time of each kind
};
GradientSearchResult gradient_search(const Exoskeleton& healthy, const Exoskeleton& spastic, const Gains& initial,
                                     int iterations, const Routine& r = {});

}  // namespace maxsim::exo
