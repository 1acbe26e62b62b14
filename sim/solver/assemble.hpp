// The step equations of the variational integrator (docs/computation.md (12)–(14), (23)–(26), (46))
// as a residual and its Newton matrix over the system graph: bodies' discrete Euler–Lagrange rows,
// joints' constraint and free rows, and the inequalities' impulses on their bodies (their own rows
// come from the interior point, sim/solver/inequality.hpp).
#pragma once

#include <Eigen/Core>

#include "sim/data.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Fills the knot quantities of z2 (call once before step_residual / step_jacobian).
void step_prepare(const Model& model, Data& data);

// The residual of the step equations at `unknowns` (velocities over [t2, t3], joint row impulses,
// inequality node unknowns); also the joint rows and the inequalities' gaps and rates at z3 (not
// the inequalities' Jacobians: step_jacobian).
void step_residual(const Model& model, Data& data, const Eigen::VectorXd& unknowns,
                   Eigen::VectorXd* residual);

// The knot z3 of `unknowns` and what advance_knot stores from it (the joints' rows, the tendons'
// lengths): step_residual's knot, without the rows and impulses (reading a replayed step's end,
// sim/derivatives/transition.cpp).
void step_knot(const Model& model, Data& data, const Eigen::VectorXd& unknowns);

// Assembles the Newton matrix at `unknowns` into the workspace's LDU (after step_residual at the
// same point): first the Jacobians of the inequalities' kinematics at z3, then the blocks of
// bodies, joints and the inequalities' impulse columns. The interior point adds
// the inequality rows.
void step_jacobian(const Model& model, Data& data, const Eigen::VectorXd& unknowns);

}  // namespace maxsim
