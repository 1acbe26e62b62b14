// Derivatives of one step (issue-level plan: docs/roadmap.md, "Derivatives").
//
// The state is MuJoCo's: x = (δqpos, qvel) with δqpos in the tangent space of qpos (nv entries: a
// ball or free joint's quaternion perturbed by a rotation vector in its body frame, q ⊗ exp(δ),
// as MuJoCo's mj_integratePos), u = Data::ctrl. One step maps (x, u) to x'; its Jacobians are
// A = ∂x'/∂x (2nv × 2nv) and B = ∂x'/∂u (2nv × nu), MuJoCo's mjd_transitionFD layout.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// A number of the Model a user tunes or identifies: a parameter column of the step's derivatives.
struct ModelParameter {
  // actuator kp, kv, gear; a body's mass (its centre of mass and inertia tensor kept); a joint
  // row's spring stiffness, damping, armature, dry friction; a geom's sliding friction coefficient
  // (a contact takes the larger of its two geoms')
  enum class Kind {
    ActuatorKp, ActuatorKv, ActuatorGear, BodyMass, JointStiffness, JointDamping, JointArmature, JointFriction,
    GeomFriction
  };
  Kind kind = Kind::ActuatorKp;
  int index = 0;  // the actuator, body or joint; GeomFriction: the geom's body (kWorld: Model::world_geoms)
  int row = 0;    // the joint's row (joint kinds); GeomFriction: the geom's index among its body's geoms
};

// A joint's free row whose applied force Data::joint_force[joint](row) is an input column of the
// step's derivatives, F = ∂x'/∂f: a controller's torque, for derivatives through a feedback law.
struct JointForceInput {
  int joint = 0;
  int row = 0;
};
// The parameter's value in `model` (a reference into it). Throws std::invalid_argument for an
// index or row out of range, or a geom whose friction is the world default (Geom::friction < 0).
double& parameter_value(Model& model, const ModelParameter& p);
// "actuator_kp", "actuator_kv", "actuator_gear", "body_mass", "joint_stiffness", "joint_damping",
// "joint_armature", "joint_friction", "geom_friction"; parameter_kind_from_name returns false for
// another name.
const char* parameter_kind_name(ModelParameter::Kind kind);
bool parameter_kind_from_name(const std::string& name, ModelParameter::Kind* out);

struct TransitionDerivatives {
  Eigen::MatrixXd A;  // ∂x'/∂x, 2nv × 2nv
  Eigen::MatrixXd B;  // ∂x'/∂u, 2nv × nu
  Eigen::MatrixXd P;  // ∂x'/∂p for the parameters asked, 2nv × np
  Eigen::MatrixXd F;  // ∂x'/∂f for the applied joint forces asked, 2nv × nf
  // Models with loops (closing joints, couplings, nonholonomic rows): an orthonormal basis (nv × r)
  // of the positions' tangent space at the start, in qpos-tangent coordinates, where r is nv less
  // the loops' numerical rank (singular values of their rows' Jacobian above 1e-8 of the largest).
  // A perturbed start is placed onto the loops by the least change of its coordinates, so the qpos
  // column k of A is the derivative along T Tᵀ e_k, and the qvel columns along the velocity
  // constraints' projection of e_k (docs/computation.md (119)); for a tangent perturbation δ
  // (δ = T a) A (δ, δv) is the derivative along it. Empty on trees.
  Eigen::MatrixXd tangent;
  // transition_derivatives only: whether A and B come from the implicit function theorem (false:
  // the step needed substeps or did not converge, and they are transition_fd's), the step
  // differentiated, the pivots its factorization regularized (redundant rows: the directions
  // are then those of the regularized matrix), and the columns whose perturbed start found
  // another set of inequalities (their contact geometry is the unperturbed one).
  bool implicit = false;
  double smoothing = 0;  // the central path's κ the derivatives were taken at [N·s·m]
  StepReport report;
  int regularized_pivots = 0;
  int contact_set_changes = 0;
  // transition_derivatives only: per column of A and of B, whether a perturbed start (±eps) found
  // another set of inequalities — a contact mode change within the perturbation, which the
  // column holds at the converged set and finite differences take. Only the qpos columns search
  // again: a velocity or a command moves no contact point (its columns reuse the start's geometry
  // and are never flagged).
  std::vector<bool> A_set_changed, B_set_changed;
  // transition_fd with smoothing only: columns (of A, B, F and P) taken from the steps' plain
  // answers because one of their perturbed steps could not be put on the path
  int uncentred = 0;
};

// A and B by finite differences of step(): each column perturbs the state (placed through the
// spanning tree and, on a model with loops, onto them by the least change of its coordinates:
// `TransitionDerivatives::tangent`) or one command by ±eps (central) or +eps (forward) and steps a copy of the Data (its
// contact search, warm starts and controller-free inputs as they are; the controller is not
// called). The Data is unchanged. A step across a contact mode change within ±eps differentiates
// the jump. Throws std::invalid_argument for eps not finite and > 0.
// `parameters` and `forces` add the columns P and F (as transition_derivatives). `smoothing` ≠ 0:
// each perturbed step's answer is put on the central path at κ (as transition_derivatives'
// `smoothing`: negative, a thousandth of the complementarity tolerance) before x' is read — the
// finite differences of the answer transition_derivatives differentiates, without the interior
// point's stopping point in them (a joint held by dry friction creeps at η = κ/slack, so at the
// stopping complementarity 1e-8 it moves with the perturbation over a few 1e-6); a column one of
// whose steps cannot be put there is the difference of the plain answers of both (`uncentred`
// counts them: never one answer on the path and one off it, whose stopping points differ by
// ~1e-6 over eps). Throws std::invalid_argument for smoothing not finite.
TransitionDerivatives transition_fd(const Model& model, const Data& data, double eps = 1e-6, bool centered = true,
                                    const std::vector<ModelParameter>& parameters = {},
                                    const std::vector<JointForceInput>& forces = {}, double smoothing = 0.0);

// A and B by the implicit function theorem on the converged step (docs/computation.md §17): the
// step at (x, u) is solved once; its equations F(s; p) = 0 (unknowns s, start and commands p) are
// factored at the answer s*, and each column of p is one back-substitution,
// ds/dp = −(∂F/∂s)⁻¹ ∂F/∂p, with ∂F/∂p and the map from (s, p) to x' by differences of `eps`
// (smooth functions: no contact search, solve or failure policy inside them): central for the
// qpos columns, the parameters and (with loops) the rates, forward for the commands, the forces
// and (on trees) the rates, in which the linearized step is affine or nearly so. With
// inequalities this is the derivative of the converged interior-point answer: a touching contact
// is held (its gap's derivative is 0), a sliding one slides, an open one stays open — the
// derivative within the present contact mode. A step that needed substeps or did not converge
// falls back to transition_fd (`implicit` false). The Data is unchanged; the controller is not
// called. `smoothing` is the κ [N·s·m] of the central path γ s = κ, w β∘η = κe (w: the cone
// weight, docs/computation.md (111)) on which every complementarity pair is held while
// differentiating: negative (the default), a thousandth of the interior point's
// complementarity tolerance (1e-11) — the derivative of the converged answer, at
// a point the interior point accepts, where redundant contacts' load sharing stays determined (if
// that point cannot be reached, κ = 0); 0, the limit of exactly held contact modes (singular
// where contacts share a load); > 0, Dojo's smoothed derivatives, where contact forces
// act before touch and fade with the gap, so A and B see the contact modes nearby (the step
// itself is unchanged). Throws std::invalid_argument for eps not finite and > 0, or smoothing
// not finite.
// `parameters` adds the columns P = ∂x'/∂p, each from a copy of the model with that parameter
// moved by ±eps·max(1, |p|) (finite differences fill P too when they are the fallback); `forces`
// adds the columns F = ∂x'/∂f of those rows' applied forces Data::joint_force (each moved by
// ±eps), with which a feedback law's derivatives follow by the chain rule (∂x'/∂x + F ∂f/∂x).
// Throws std::invalid_argument for a force row that is not a free row of an actuated joint.
TransitionDerivatives transition_derivatives(const Model& model, const Data& data, double eps = 1e-6,
                                             double smoothing = -1.0,
                                             const std::vector<ModelParameter>& parameters = {},
                                             const std::vector<JointForceInput>& forces = {});

// An orthonormal basis (nv × r) of the tangent space of the loops' constraints at the Data's qpos,
// in qpos-tangent coordinates (the one TransitionDerivatives::tangent reports; the identity on
// trees): with S = diag(T, T), Sᵀ A S and Sᵀ B are the step's Jacobians in the loops' own
// coordinates where every loop is holonomic (docs/computation.md (119)). The basis is that of the
// Data's own state; transition_derivatives reports the one of its placed start.
Eigen::MatrixXd loop_tangent(const Model& model, const Data& data);

// qpos moved along a tangent vector (nv entries) by h: scalar coordinates add, quaternions turn by
// q ⊗ exp(h δ) (MuJoCo's mj_integratePos).
std::vector<double> integrate_qpos(const Model& model, std::vector<double> qpos, const Eigen::VectorXd& dq, double h);

// The tangent vector from qpos a to qpos b (nv entries): b − a, and log(a⁻¹ ⊗ b) for quaternions
// (MuJoCo's mj_differentiatePos with dt = 1).
Eigen::VectorXd difference_qpos(const Model& model, const std::vector<double>& a, const std::vector<double>& b);

}  // namespace maxsim
