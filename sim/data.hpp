// Per-simulation state and workspace (Pinocchio's "Data", MuJoCo's mjData): everything a step
// reads and writes, allocated once by the constructor from a Model. A Model can serve any number
// of Data (one per thread in parallel rollouts).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/contact.hpp"
#include "sim/contact_search.hpp"
#include "sim/energy_momentum.hpp"
#include "sim/joint.hpp"
#include "sim/ldu.hpp"
#include "sim/model.hpp"
#include "sim/nonholonomic.hpp"

namespace maxsim {

class InequalityKind;  // sim/solver/inequality.hpp

// Newton solver settings (DESIGN §6 defaults where they apply).
struct SolverOptions {
  // Convergence: every constrained joint row |c(z3)| < tolerance (m, rad); every momentum and
  // free joint row < tolerance × the step's impulse scale (N·s, at least 1).
  // 1e-9 m keeps loops 10× inside the 1e-8 the tests demand while staying above the round-off
  // floor of redundant loops solved through the regularized pivots (~1e-10).
  double tolerance = 1e-9;
  int max_iterations = 50;
  // An iteration whose line search finds no better point while its residual is within
  // stall_factor × the tolerance — momentum and free rows, contact gaps, tangential velocities and
  // complementarity; the constraint rows (m, rad) must meet the tolerance itself — has reached the
  // round-off floor of its Newton matrix and counts as converged. Stiff contact sets near the end
  // of an interior point have condition numbers ~1e8, so their momentum rows cannot be solved
  // below ~1e-8 relative: a dropped humanoid (Dojo's) stalled at 2e-7 N·s against 1e-9 × its
  // impulse scale and, re-centred, went round that loop until the iteration limit.
  double stall_factor = 100;
  int line_search_steps = 12;    // halvings of the Newton step before giving up on a decrease
  // A step with contacts that does not converge is retried as two half steps, recursively up to
  // this depth (Δt/8 at 3), before it is reported as not converged.
  int max_retry_depth = 3;
  // Redundant constraints are regularized inside the LDU, on the matrix only (never in the
  // residual), and only at pivots they make singular: see BlockLdu::regularization.
  // Steps without contacts refine each Newton direction through those regularized pivots by up
  // to this many proximal sweeps (BlockLdu::solve): a double four-bar passing its flat positions
  // needs 3 Newton iterations per step instead of 7. The interior point does not refine: the
  // exact direction near singular loops lengthened its steps and a collapsing Cassie (scene.xml)
  // failed at 0.44 s instead of leaving 8 unconverged steps after 1.07 s.
  int refinement_sweeps = 8;
  // The failure policy's last resort for a step without contacts on a model with closed loops: a
  // substep of the shortest length that still does not converge is solved once more with its loop
  // joints' constrained rows compliant, c(z3) + ε·u = 0 with ε = loop_compliance × Δt / (the
  // child body's mass) (StepReport::relaxed). A loop that starts exactly at a bifurcation (a
  // four-bar stretched straight) has maps at z2 that lost a rank: the impulses cannot act along
  // the lost direction while c(z3) = 0 asks for it, so the step equations have no solution (their
  // least-squares residual is O(Δt⁴)); the compliant rows give the nearest answer, the loop open
  // by that residual for one substep, and the following steps close it.
  bool compliant_loop_fallback = true;
  double loop_compliance = 1e-6;
};

// Interior-point settings for steps with contacts (DESIGN §6 defaults).
struct InteriorPointOptions {
  double complementarity_tolerance = 1e-8;  // γ s and βᵀη at convergence (N·s·m)
  // 100, not DESIGN's 50: the A1 drop suite (dt 0.001–0.005, with and without self-collision)
  // has 0 unconverged steps with 100 and 0–2 with 50 (impacts of the trunk); easy steps stop at
  // 5–15 iterations either way
  int max_iterations = 100;
  double fraction_to_boundary = 0.99;       // τ: a step keeps (1 − τ) of the distance to the boundary
  double initial_slack = 1e-3;              // cold-start slack and impulse scale
  // persisting contacts start from their last impulse: with the re-centring below, the humanoid
  // fall takes 5.3 instead of 16 iterations per step (0 instead of 3 unconverged of 600)
  bool warm_start = true;
  // A persisting contact's slack and normal impulse start no lower than this (a new contact's:
  // initial_slack). Smaller floors start closer to the solution — 3.2 instead of 4.05 iterations
  // per step of the A1 standing — and a step that then fails is retried cold before it is split.
  double warm_slack = 1e-4;
  // ... or from this lower floor when the step starts settled: the previous step converged at
  // full length within settled_iterations, and every inequality of this one persists and is
  // either closed and at rest (|φ| < settled_gap, |v_t| < settled_speed, at the z3 predicted
  // from the last velocities) or predicted open by more than settled_open_gap. A resting
  // contact's answer is its last impulse with s → 0, which a floor of 1e-4 keeps ~3 iterations
  // away; a contact about to slide or lift wants the centred start of warm_slack (a floor of 1e-6
  // for every persisting contact made the A1 collapse and the humanoid fall 25 % slower). 3, the
  // iterations of a resting step from warm_slack: with 4, gym's humanoid under PD (7 per step)
  // took the low floor in some steps and its trajectory met an unconverged step at 1.8 s.
  double settled_slack = 1e-6;
  // A settled step first tries its last answer itself: every impulse as it was, the slacks and
  // duals of its closed, resting inequalities at this floor; if that passes the convergence test
  // the step takes no Newton iteration (cube at rest 2.02 → 0.06 iterations per step, A1
  // standing under PD 2.75 → 1.40, ant 2.88 → 2.25). Small against the tolerances (gap 1e-9 m,
  // complementarity 1e-8), so that an answer that still holds passes them.
  double settled_answer_floor = 1e-10;
  int settled_iterations = 3;  // (−1: no step starts settled)
  double settled_speed = 1e-3;     // m/s (rad/s on joint rows)
  double settled_gap = 1e-5;       // m
  double settled_open_gap = 1e-3;  // m
  // Mehrotra's corrector (DESIGN §6). A step whose interior point did not converge is retried
  // (after a cold start) without it and with conservative_fraction_to_boundary: on contacts that
  // slide while penetration is recovered (gym's humanoidstandup, which starts 3.6 cm inside its
  // floor) the second-order term drove the iterates onto the cone boundaries and the steps
  // stayed short; plain centred Newton steps converge there. Used alone it needs more iterations
  // and fails elsewhere (the humanoids' impacts), hence a retry, not the default.
  bool mehrotra_corrector = true;
  double conservative_fraction_to_boundary = 0.95;
  double jam_step = 1e-6;                   // a step this short re-centres all contact pairs
  double short_step = 0.1;                  // a step length below this ...
  double sigma_after_short_step = 0.5;      // ... makes the next iteration centre at least this much
  // The failure policy's last resort: a substep of the shortest length that still does not
  // converge is solved once more with Anitescu's relaxed cone on its frictional contacts
  // (FrictionCone::Relaxed: the same Coulomb friction, the gap of a sliding contact held open
  // by μΔt|v_t| over that substep). Where the exact cone stalls, the iterate oscillates between
  // nearby contact modes (two ends of a foot each loaded in turn, a contact at its stick–slip
  // transition); the relaxed problem is convex for a fixed linearization, so it has one answer.
  // StepReport::relaxed tells such a step.
  bool relaxed_fallback = true;
};

enum class StepStatus { Ok, NotConverged, Failed };
const char* step_status_name(StepStatus s);

struct StepReport {
  StepStatus status = StepStatus::Ok;
  int iterations = 0;   // every Newton / interior-point iteration the step took: all attempts, all substeps
  double residual = 0;  // ‖residual‖∞ at the end of the solve
  bool substeps = false; // the step was retried as smaller substeps
  bool relaxed = false;  // (a substep of) it was solved with the relaxed cone (relaxed_fallback)
  const char* reason = nullptr;  // a Failed step the integrator refused: why (integrator_support)
};

struct Data {
  explicit Data(const Model& model);

  // ---- state: the current knot z2 = (x, q) and the velocities (v, w) over [t1, t2] --------
  // (Integrator::EnergyMomentum: v, w are the velocities at the knot z2 itself)
  double time = 0;
  std::vector<Vec3> x;   // CoM positions (world)
  std::vector<Vec4> q;   // orientations (body -> world)
  std::vector<Vec3> v;   // linear velocities (world)
  std::vector<Vec3> w;   // angular velocities (body frame)

  // ---- inputs, held until changed ---------------------------------------------------------
  std::vector<Vec3> body_force;   // external force at the CoM (world)
  std::vector<Vec3> body_torque;  // external torque (body frame)
  std::vector<Vec6> joint_force;  // force per joint row (free rows only): N or N·m, besides the actuators
  // One command per actuator (Model::actuators, same order): a force, a position or a velocity
  // by the actuator's kind; the step applies them (sim/actuation.hpp). Zero at the start.
  std::vector<double> ctrl;
  // Called by step() first, before collide and solve: reads the state (time, maximal and minimal
  // coordinates, the last step's contacts) and writes the inputs above. Empty: inputs are held.
  std::function<void(const Model&, Data&)> controller;

  // ---- outputs of the last step ------------------------------------------------------------
  std::vector<Vec6> joint_impulse;  // row impulses over the step: constraint multipliers on
                                    // constrained rows, spring+damper+actuation+dry friction on
                                    // free rows
  std::vector<Vec3> joint_angle;    // unwrapped free rotation-row angles (rows 3..5)
  // per nonholonomic constraint (Model::nonholonomic): its row impulses over the step, in the
  // order of its rows (sim/nonholonomic.hpp); entries beyond NonholonomicConstraint::rows() are 0
  std::vector<Vec6> nonholonomic_impulse;
  std::vector<double> actuator_force;  // per actuator: its force f over the last step (actuator space)
  std::vector<Contact> contacts;     // the active contacts of the last step (with their impulses)
  // Per joint of a closed loop, the limit sides (bit 2·row + (side < 0)) its coordinate was
  // beyond at the start and has not come back within since: no inequality for them
  // (sim/joint_limits.cpp). Filled by the first step (limits_started).
  std::vector<std::uint16_t> limits_released;
  bool limits_started = false;
  // The contact search of step()'s collide stage (enable_contacts sets it; empty: no surface
  // contacts). A copy of the Data gets its own, in the same state (sim/contact_search.hpp).
  std::optional<ContactSearch> contact_search;
  double min_candidate_distance = 0;  // smallest signed distance the last search found (≤ 0)
  StepReport report;
  SolverOptions solver;
  InteriorPointOptions interior_point;

  // ---- workspace (allocated here, reused every step) ---------------------------------------
  struct Workspace {
    std::vector<Vec6> applied;  // per joint: joint_force plus the actuators, held over the step
    // the length of the step being solved: model.dt, or a fraction of it in the failure
    // policy's substeps (everything inside a step reads this, never model.dt)
    double dt = 0;
    bool relaxed_attempt = false;  // the failure policy's relaxed-cone attempt is being solved
    // the failure policy's compliant-loop attempt: ε per joint (0: rigid), see
    // SolverOptions::compliant_loop_fallback; empty otherwise
    std::vector<double> loop_compliance;
    BlockLdu ldu;
    std::vector<std::pair<int, int>> edges;  // (joint node, body node)
    std::vector<int> parent_edge, child_edge;  // per joint: its edge ids (-1: world parent)
    // per joint: a passive floating joint (all six rows free, no spring, damper, armature, dry
    // friction or limits). Its row impulses are Δt·joint_force whatever the bodies do, so the
    // step sets them so and the joint is no edge of the graph (a free-floating body or robot
    // base costs no joint pivot); see build_graph.
    std::vector<char> passive;
    std::vector<JointRows> rows2, rows3;     // joint rows at z2 (impulse maps) and at z3
    std::vector<Vec6> joint_rate2;           // joint row rates over [t1, t2]
    // energy–momentum integrator: per body its interval at the iterate and R2ᵀ Σ T of its rows'
    // spatial torques (em_body_jacobian), per joint its force maps (em_joint_force_maps)
    std::vector<EmInterval> em_interval;
    std::vector<Vec3> em_row_torque;
    std::vector<Mat6> em_map_a, em_map_b;
    // energy–momentum: per joint between two bodies, the graph edge between its bodies that
    // carries the force maps' cross derivatives (-1: none), and whether that edge runs
    // (parent, child); joints between the same two bodies share one edge
    std::vector<int> body_edge;
    std::vector<char> body_edge_forward;
    Integrator graph_integrator = Integrator::Variational;  // the integrator the graph was built for
    // nonholonomic constraints: graph edge to their body, rows at the iterate
    std::vector<int> nonholonomic_edge;
    std::vector<NonholonomicRows> nonholonomic_rows;
    // contacts: graph edges, impulse maps at z2, kinematics at z3, eliminated variables' steps
    std::vector<const InequalityKind*> kinds;          // per contact: its kind (set by collide)
    std::vector<std::pair<int, int>> contact_bodies;  // (a, b) of the contacts the graph was built for
    std::vector<int> contact_node;                    // graph node of each contact (-1: joint friction)
    std::vector<int> contact_edge_a, contact_edge_b;
    // joint friction (folded into its joint's row): the inverse of its cone block D3 over (Δb1, Δb2, Δη0),
    // D3⁻¹ times the cone's velocity column (the row's friction conductance), and D3⁻¹ times the
    // right-hand side of the last contact_rhs call (the step's velocity-free part)
    std::vector<Mat3> fold_inverse;
    std::vector<Vec3> fold_gain, fold_offset;
    std::vector<double> fold_row_scale;  // the joint row's scaling (see contact_jacobian)
    std::vector<Eigen::Matrix<double, 6, 3>, Eigen::aligned_allocator<Eigen::Matrix<double, 6, 3>>> contact_map_a, contact_map_b;
    std::vector<ContactKinematics, Eigen::aligned_allocator<ContactKinematics>> contact_kin;
    std::vector<ConeLinearization, Eigen::aligned_allocator<ConeLinearization>> cone_lin;  // per contact
    std::vector<Vec6> contact_affine, contact_steps;  // per contact: (Δγ, Δb, Δη0, Δs, ·), (Δη_t, ·)
    std::vector<Contact> trial_contacts, previous_contacts;
    std::vector<char> warm;  // per inequality: it continues one of the last step (warm-started)
    std::vector<Vec3> x3;
    std::vector<Vec4> q3;
    Eigen::VectorXd unknowns, trial, residual, trial_residual, delta;
  } ws;

  // states the failure policy restarts from, one per retry depth (allocated once)
  struct SavedState {
    double time = 0;
    std::vector<Vec3> x, v, w;
    std::vector<Vec4> q;
    std::vector<Vec6> joint_impulse, nonholonomic_impulse;
    std::vector<Vec3> joint_angle;
  };
  std::vector<SavedState> saved;
  // the end of the last exact attempt of a substep that then tries the relaxed cone, kept in case
  // the relaxed attempt ends farther from a solution (InteriorPointOptions::relaxed_fallback)
  SavedState exact_end;
  std::vector<Contact> exact_end_contacts;

  int num_nodes() const { return ws.ldu.num_nodes(); }  // of the system graph (bodies, joints, contacts)
};

// Graph node of nonholonomic constraint k (after the bodies and joints, before the contacts).
inline int nonholonomic_node(const Model& model, int k) {
  return static_cast<int>(model.bodies.size() + model.joints.size()) + k;
}
// (Re)builds the system graph and its symbolic LDU for the model's bodies and joints and the
// data's current contacts, whose kinds ws.kinds holds (called by the constructor, and by step()
// after its collide stage when graph_matches is false).
void build_graph(const Model& model, Data& data);
// Whether the graph built last still fits: the same contact pairs with the same kinds of node,
// the same number of nonholonomic constraints, the same integrator, and the same passive floating joints (a damper, spring, armature, friction or limit set on the
// Model after the Data was made turns a passive joint into a graph edge, and back).
bool graph_matches(const Model& model, const Data& data);

// Pose of body `i`, or of the world for kWorld.
inline Pose body_pose(const Data& d, int i) {
  return i == kWorld ? Pose{} : Pose{d.x[i], d.q[i]};
}

}  // namespace maxsim
