// Consistent initial states (seed 003 §3.5): a state set by hand or by forward kinematics through
// a spanning tree generally violates loop-closing joints, and velocities may not be tangent to the
// constraints. project_state moves positions by a mass-weighted Gauss–Newton projection and then
// velocities by a mass-weighted projection onto the constraint tangent space, both solved with the
// step's own graph LDU (same sparsity: body blocks hold the mass matrix, joint blocks the
// constraint Jacobian).
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct ProjectionReport {
  bool converged = false;
  int iterations = 0;
  double violation = 0;  // max |c| over constrained rows after the projection
};

ProjectionReport project_state(const Model& model, Data& data, double tolerance = 1e-12,
                               int max_iterations = 50);

}  // namespace maxsim
