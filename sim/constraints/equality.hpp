// One interface for every equality constraint of a step, as InequalityKind is for the inequalities
// (Dojo's shape: each kind supplies its rows, their Jacobians and the impulses they apply, and the
// assembly loops over nodes without asking what they are). The kinds (sim/constraints/*.cpp):
//
//   joint          the six rows of a joint: constrained rows c(z3) = 0, free rows the balance of
//                  the row impulse against damper, spring, armature and actuation
//                  (docs/computation.md (13)–(20))
//   nonholonomic   a body's velocity rows and the position rows its kind implies (Model::nonholonomic)
//   tendon         a tendon's impulse u balancing its damper, spring, armature and actuators, and
//                  its length ℓ at z3 (docs/computation.md (83)–(85); sim/constraints/tendon.hpp)
//   coupling       one constrained row a − P(b) = 0 between two scalar coordinates (joint rows or
//                  tendon lengths) at z3 (docs/computation.md (86))
//
// Each constraint is one graph node (SystemLayout); equality_kinds() lists the kinds in the order
// their nodes and their contributions to the bodies' rows are assembled.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"
#include "sim/solver/workspace.hpp"

namespace maxsim {

class IntegratorScheme;  // sim/integrator/integrator.hpp

// What a row of a constraint node is, for the convergence test: a position row (m, rad, against
// the constraint tolerance), an impulse row (N·s, against the tolerance relative to the step's
// impulse scale), or padding (not tested).
enum class RowKind { Position, Impulse, Padding };

class EqualityKind {
 public:
  virtual ~EqualityKind() = default;
  virtual const char* name() const = 0;
  virtual int count(const Model& model) const = 0;
  virtual int node(const SystemLayout& layout, int k) const = 0;
  virtual RowKind row_kind(const Model& model, int k, int r) const = 0;

  // ---- the step ----
  // The knot quantities of z2 (before the first residual).
  virtual void prepare(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme, int k) const = 0;
  // Its node's rows of the residual at the unknowns s and its impulses on its bodies' rows (ws.x3,
  // ws.q3 are z3 at s).
  virtual void residual(const Model& model, Data& d, Workspace& ws, const IntegratorScheme& scheme,
                        const Eigen::VectorXd& s, int k, Eigen::VectorXd* F) const = 0;
  // What residual computes at z3 (ws.x3, ws.q3 set) that store reads, without its rows (step_knot).
  virtual void knot(const Model&, Data&, Workspace&, const IntegratorScheme&, int) const {}
  // Its blocks of the Newton matrix at s (after the residual at s): its diagonal, its edges to its
  // bodies both ways.
  virtual void jacobian(const Model& model, Workspace& ws, const IntegratorScheme& scheme, const Eigen::VectorXd& s,
                        int k) const = 0;

  // ---- the projection onto the constraints (project_state) ----
  // Its rows in the matrix [M −Jᵀ; J 0] at the current poses: position rows, and with
  // `velocities` its velocity rows.
  virtual void projection_matrix(const Model& model, const Data& d, Workspace& ws, int k, bool velocities) const = 0;
  // −c of its position rows into rhs; returns the largest |c| (and the row, for joints' reports).
  virtual double position_rhs(const Model& model, const Workspace& ws, int k, Eigen::VectorXd* rhs, int* worst_row) const = 0;
  // −J ν of its velocity rows into rhs at the current velocities.
  virtual void velocity_rhs(const Model& model, const Data& d, const Workspace& ws, int k, Eigen::VectorXd* rhs) const = 0;

  // ---- around the solve ----
  // Its unknowns' first guess into s (after prepare).
  virtual void warm_start(const Model& model, const Data& d, const Workspace& ws, int k, Eigen::VectorXd* s) const = 0;
  // Its results at the solution s into Data (before the knot advances).
  virtual void store(const Model& model, Data& d, Workspace& ws, const Eigen::VectorXd& s, int k) const = 0;
};

// The kinds, in assembly order: joints, nonholonomic constraints, tendons, couplings (a coupling
// of tendons reads the lengths the tendons' rows computed before it).
const std::vector<const EqualityKind*>& equality_kinds();
const EqualityKind& joint_constraint();
const EqualityKind& nonholonomic_constraint();
const EqualityKind& tendon_constraint();
const EqualityKind& coupling_constraint();

// Joint j's rows at z3 (ws.x3/q3) into ws.rows3[j], its free rotations measured from z2 as in the
// residual (a passive joint's are computed only where they are needed).
void joint_rows_at_z3(const Model& model, Workspace& ws, const IntegratorScheme& scheme, int j);

// Tendon t's length and gradient at z2 (ws.tendon_length2/grad2, after the joints' prepare) or at
// z3 (ws.tendon_length3/grad3, after the joints' rows at z3), the gradient per body of
// ws.tendon_bodies[t].
void tendon_at_knot(const Model& model, const Data& d, Workspace& ws, const IntegratorScheme& scheme, int t, bool z3);

}  // namespace maxsim
