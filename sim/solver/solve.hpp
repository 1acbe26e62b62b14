// The two solvers of a step's equations (docs/computation.md §7 and §8), on the unknowns and
// workspace that step() has prepared (sim/step.cpp):
//
//   solve_newton          no inequalities: Newton's method with a backtracking line search
//   solve_interior_point  with inequalities: a primal–dual interior point (Mehrotra
//                         predictor–corrector) whose Newton systems are factored on the graph LDU
//
// Both leave the converged unknowns in ws.unknowns and the residual at them in ws.residual.
#pragma once

#include <Eigen/Core>

#include "sim/data.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/model.hpp"

namespace maxsim {

StepReport solve_newton(const Model& model, Data& data);
// `options`: the interior point's settings for this attempt (the failure policy varies them).
StepReport solve_interior_point(const Model& model, Data& data, const InteriorPointOptions& options);

// Convergence of the equality rows: constraint rows (m, rad) to the tolerance itself; momentum
// and free rows (N·s) to the tolerance relative to the step's impulse scale, since round-off in a
// long chain's momentum balance grows with the impulses it carries (a 200-link chain: ~20 N·s).
struct EqualityTest {
  double tol_impulse, tol_position;
  const SystemLayout* layout;
  const Model* model;
  bool operator()(const Eigen::VectorXd& r) const;
};
EqualityTest equality_test(const Model& model, const Data& d);

// Whether every body's angular unknown is admissible at step length dt from the velocities d.w at
// the step's start (docs/computation.md (8), IntegratorScheme::admissible_rate2).
bool velocities_admissible(const Model& model, const Data& d, const Eigen::VectorXd& unknowns, double dt);

}  // namespace maxsim
