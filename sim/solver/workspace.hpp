// The solver's state of one Data: the system graph and its LDU, the layout of the step's unknowns
// on it, the scratch of the assembly and of the interior point, and the states the failure policy
// restarts from. Data holds it behind a handle (Data::solver_state) so that Data itself is state,
// inputs and outputs; a copied Data copies it and steps exactly like the original.
#pragma once

#include <Eigen/Core>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/constraints/contact.hpp"
#include "sim/data.hpp"
#include "sim/integrator/energy_momentum.hpp"
#include "sim/constraints/joint.hpp"
#include "sim/solver/ldu.hpp"
#include "sim/solver/schur_reuse.hpp"
#include "sim/sensor/sensors.hpp"
#include "sim/model.hpp"
#include "sim/constraints/nonholonomic.hpp"
#include "sim/constraints/tendon.hpp"

namespace maxsim {

// How the convergence test measures a surface contact's friction or torsion cone pair (β, η)
// (docs/computation.md (63)): `weight` × |β∘η|∞ (InteriorPointOptions::cone_weight, or 1 with
// weighted_cone_test off), or `weight` × |βᵀη| alone once the product's vector part is within
// `direction` of β0 η0: the friction then opposes the sliding to within that many radians
// (InteriorPointOptions::cone_direction_tolerance; 0: never).
struct ConeTest {
  double weight = 1.0;
  double direction = 0.0;
};

class InequalityKind;  // sim/solver/inequality.hpp

// The unknowns of a step, block by block: graph node n owns the six entries from 6n (bodies, then
// joints, then nonholonomic constraints, then the inequality nodes). The one place that knows the
// offsets: everything else asks for a block by what it is.
struct SystemLayout {
  int bodies = 0, joints = 0, nonholonomic = 0, nodes = 0;
  int tendons = 0, couplings = 0;  // (after the nonholonomic constraints, in this order)

  int body_node(int i) const { return i; }
  int joint_node(int j) const { return bodies + j; }
  int nonholonomic_node(int k) const { return bodies + joints + k; }
  int tendon_node(int t) const { return bodies + joints + nonholonomic + t; }
  int coupling_node(int k) const { return bodies + joints + nonholonomic + tendons + k; }
  int size() const { return 6 * nodes; }
  // entries of the equality nodes (bodies, joints, nonholonomic constraints, tendons, couplings),
  // first in the vector
  int equality_size() const { return 6 * (bodies + joints + nonholonomic + tendons + couplings); }

  // a node's six entries
  template <class V>
  static auto node(V&& s, int n) { return s.template segment<6>(6 * n); }
  // body i: its linear (v or v̄) and angular (ω) velocity unknowns
  template <class V>
  static auto velocity(V&& s, int i) { return s.template segment<3>(6 * i); }
  template <class V>
  static auto angular(V&& s, int i) { return s.template segment<3>(6 * i + 3); }
  template <class V>
  static auto body(V&& s, int i) { return s.template segment<6>(6 * i); }
  // joint j's six row impulses; nonholonomic constraint k's impulses
  template <class V>
  auto joint(V&& s, int j) const { return s.template segment<6>(6 * joint_node(j)); }
  template <class V>
  auto nonholonomic_rows(V&& s, int k) const { return s.template segment<6>(6 * nonholonomic_node(k)); }
  // one entry: row r of node n
  template <class V>
  static auto& entry(V&& s, int n, int r) { return s(6 * n + r); }
};

// A state the failure policy restarts from (one per retry depth, allocated once).
// (every Data field that advance() writes, so that a restored state — a step's start, or the best
// unconverged attempt's end — is one attempt's throughout)
struct SavedState {
  double time = 0;
  std::vector<Vec3> x, v, w;
  std::vector<Vec4> q;
  std::vector<Vec6> acceleration, newmark_mean, row_acceleration;
  double acceleration_time = 0;
  std::vector<Vec6> joint_impulse, nonholonomic_impulse;
  std::vector<Vec3> joint_angle;
  std::vector<double> tendon_impulse, tendon_length, coupling_impulse;
  double min_candidate_distance = 0;  // the search's, so that a step left as it was reports its start
};

// The scratch of match_inequalities (sim/solver/inequality.hpp), kept by its caller: a step
// allocates nothing once warm.
struct InequalityMatchScratch {
  using Key = std::tuple<int, int, int, int, int, double, bool>;  // (inequality_identity's)
  std::vector<char> used;
  std::vector<std::pair<Key, int>> order;
};

struct Workspace {
  bool built = false;  // the graph has been built (build_graph)
  SystemLayout layout;
  // the length of the step being solved: the model's, or a fraction of it in the failure
  // policy's substeps (everything inside a step reads this, never the model's)
  double dt = 0;
  // the energy–momentum step's knot weight θ = ½ + ModelOptions::numerical_damping, set with dt
  double knot_weight = 0.5;
  // the Newmark step's (β, γ): the model's, or (½, 1) when the knot has no accelerations
  // (Data::acceleration_time), set with dt
  double newmark_beta = 0.25, newmark_gamma = 0.5;
  std::vector<Vec3> newmark_w3;  // per body: the Newmark step's Ω3 at the iterate (its gyroscopic term)
  // the interior point's weight of the friction cones' products (InteriorPointOptions::cone_weight),
  // set per solve and by the derivatives' central path (docs/computation.md (111))
  double cone_weight = 1.0;
  ConeTest cone_test;  // the convergence test of the surface contacts' cones, set per solve
  double proximal = 0.0;  // InteriorPointOptions::proximal, set per solve
  double joint_friction_rate = 0.0;  // InteriorPointOptions::joint_friction_rate, set per solve (0: exact matrix)
  // the dry friction dual's starting distance from its cone's edge (InteriorPointOptions::
  // joint_friction_start_rate), set per solve: 0 for a settled start and the last answer's try
  double joint_friction_start_rate = 0.0;
  // per inequality: a compliant joint limit's or contact's ε (InteriorPointOptions::
  // limit_compliance, contact_compliance), set per solve; empty when every inequality is rigid
  std::vector<double> compliance;
  // what gave way in the last step if one of the failure policy's compliant attempts ended it
  // (SolverOptions::compliant_limit_fallback, compliant_last_resort): 0 nothing, 1 the joint
  // limits, 2 the limits and contacts; the next step's rigid attempts are then short
  int gave_way = 0;
  int last_step_gave_way = 0;  // gave_way as the step before this one left it
  // whether the last interior-point solve started settled (InteriorPointOptions::settled_slack);
  // after a settled first attempt that failed, how many steps, this one included, may not start
  // settled (the failure policy's unsettled retry, sim/step.cpp)
  bool started_settled = false;
  int unsettled_steps = 0;
  // steps, this one included, whose first attempt is the nearly rigid one after a step that it
  // ended (SolverOptions::compliant_retry: a wedge lasts many steps)
  int nearly_rigid_steps = 0;
  // frictional contacts sliding at the last attempt's start (sliding_contacts): those a sticking
  // start would stop; with none the failure policy's sticking attempt would repeat a cold one
  int sliding_at_start = 0;
  // the failure policy's compliant-loop attempt: ε per joint (0: rigid), see
  // SolverOptions::compliant_loop_fallback; empty otherwise
  std::vector<double> loop_compliance;
  // whether the model's joints close a kinematic loop (loop_joints): -1 not yet asked
  int joints_close_loops = -1;
  BlockLdu ldu;
  // The analyses of the last graphs build_graph laid out (BlockLdu::symbolic_copy), by their
  // inputs: a contact set takes the same few shapes again and again (a foot lifts and lands), and
  // analyzing a graph costs as much as an interior-point iteration. The oldest is replaced first.
  struct GraphAnalysis {
    int nodes = 0, bodies = 0, root = -1;
    bool bodies_first = false;
    std::vector<std::pair<int, int>> edges;
    std::vector<char> placement;
    BlockLdu symbolic;
  };
  std::vector<GraphAnalysis> analyses;
  int analyses_next = 0;  // the entry replaced next
  // A placed state's velocity projection (project_state) where equality constraints close a loop:
  // the same graph with the bodies eliminated first (analyze_velocity_ldu, before its first use
  // after build_graph: a step does not need it); otherwise `ldu` serves.
  BlockLdu velocity_ldu;
  bool velocity_ldu_separate = false;
  bool velocity_ldu_stale = false;  // velocity_ldu to analyze for the graph built last
  int graph_root = -1;              // the root build_graph gave ldu's analysis
  std::vector<std::pair<int, int>> edges;  // (joint node, body node)
  std::vector<int> parent_edge, child_edge;  // per joint: its edge ids (-1: world parent)
  // per joint: a passive floating joint (all six rows free, no spring, damper, armature, dry
  // friction or limits). Its row impulses are Δt·joint_force whatever the bodies do, so the
  // step sets them so and the joint is no edge of the graph (a free-floating body or robot
  // base costs no joint pivot); see build_graph.
  std::vector<char> passive;
  std::vector<JointRows> rows2, rows3;     // joint rows at z2 (impulse maps) and at z3
  // per non-passive joint: its Newton-matrix blocks with respect to its child (b) and parent (a)
  // before the free rows' gains, as step_jacobian last computed them (joint_row_jacobian reads
  // them for the limits and friction folded into the joint's rows)
  std::vector<Mat6> joint_block_a, joint_block_b;
  // per joint: its frames' rotations R(parent_frame), R(child_frame), set by its prepare
  std::vector<Mat3> joint_frame_a, joint_frame_b;
  std::vector<Vec6> joint_rate2;           // joint row rates over [t1, t2]
  std::vector<Vec6> row_damping;           // the actuators' implicit damping (Data::row_damping)
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
  bool graph_bodies_first = false;  // SolverOptions::bodies_first when the graph was built
  double graph_open_gap = 0;        // SolverOptions::open_candidate_gap when the graph was built
  bool graph_closed_last = false;   // SolverOptions::closed_contacts_last when the graph was built
  bool graph_fill_root = false;     // SolverOptions::fill_least_root when the graph was built
  bool graph_all_last = false;      // SolverOptions::reuse_iterations > 0 when the graph was built
  SchurReuse reuse;                 // the interior point's reuse of the smooth part's factors
  // nonholonomic constraints: graph edge to their body, rows at the iterate
  std::vector<int> nonholonomic_edge;
  std::vector<NonholonomicRows> nonholonomic_rows;
  // tendons (sim/constraints/tendon.hpp): per tendon whether it is a node with edges, the bodies
  // its length depends on and its edges to them (same order), its length and gradient per body
  // at z2 and z3, its rate over [t1, t2], its length at the zero configuration; per coupling its
  // bodies, edges and gradient at z2 and z3 (the same layout)
  std::vector<char> tendon_active;
  std::vector<std::vector<int>> tendon_bodies, tendon_edges;
  std::vector<std::vector<Vec6>> tendon_grad2, tendon_grad3;
  std::vector<double> tendon_length2, tendon_length3, tendon_rate2, tendon_zero_length;
  std::vector<TendonServo> tendon_servo;  // per tendon: its implicit servos over this step
  std::vector<std::vector<int>> coupling_bodies, coupling_edges;
  std::vector<std::vector<Vec6>> coupling_grad2, coupling_grad3;
  std::vector<double> coupling_value;  // at the current poses (the projection's)
  std::vector<Pose> tendon_poses;      // scratch: the poses a spatial tendon's length reads
  std::vector<std::pair<int, Vec6>> tendon_scratch;  // scratch: one scalar's gradient
  // contacts: graph edges, impulse maps at z2, kinematics at z3, eliminated variables' steps
  std::vector<const InequalityKind*> kinds;          // per contact: its kind (set by collide)
  std::vector<std::pair<int, int>> contact_bodies;  // (a, b) of the contacts the graph was built for
  std::vector<int> contact_node;                    // graph node of each contact (-1: joint friction)
  std::vector<char> contact_first;                  // per contact: predicted open, eliminated first
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
  // torsional friction (TorsionalContact): its cone's linearization, and the normal in each
  // body's frame at z2 (the torque's map and the spin rate's Jacobian)
  std::vector<ConeLinearization, Eigen::aligned_allocator<ConeLinearization>> spin_lin;
  std::vector<Vec3> spin_axis_a, spin_axis_b;
  std::vector<Vec6> contact_affine, contact_steps;  // per contact: (Δγ, Δb, Δη0, Δs, ·), (Δη_t, ·)
  std::vector<Contact> trial_contacts, previous_contacts;
  std::vector<char> warm;  // per inequality: it continues one of the last step (warm-started)
  // per inequality: the one of previous_contacts it continues, or −1 (match_inequalities, at collide)
  std::vector<int> previous_match;
  InequalityMatchScratch previous_scratch;  // (match_inequalities')
  std::vector<Vec3> x3;
  std::vector<Vec4> q3;
  // step_residual's knot: the bodies' unknowns (v̄, ω̄) that x3, q3 and the rows3 of every
  // non-passive joint were last computed at, valid while `knot_current` (cleared by step_prepare
  // and build_graph, which change z2, Δt or the sizes). A residual at the same bodies' unknowns —
  // the interior point's first iteration after its start moved only the inequalities' variables —
  // keeps them rather than recomputing the same numbers (`reuse_rows3`, read by the joints).
  Eigen::VectorXd knot_unknowns;
  bool knot_current = false;
  bool reuse_rows3 = false;
  Eigen::VectorXd unknowns, trial, residual, trial_residual, delta;

  // the failure policy: states it restarts from, one per retry depth, and the end of the
  // unconverged attempt of the shortest substep with the smallest residual so far (the one that
  // stands if no attempt converges)
  std::vector<SavedState> saved;
  // the state at the start of the step being taken (its sensors' accelerations, the velocity
  // change Data::velocity_change records)
  StepStart start;
  SavedState best_end;
  std::vector<Contact> best_end_contacts;
};

// The solver state of a Data (created empty on first use; build_graph fills it). Inline: the
// interior point's loops over the inequalities ask for it per inequality and per iteration.
extern const Workspace kEmptyWorkspace;  // a Data's before its first use
inline Workspace& workspace(Data& data) {
  const Workspace* ws = data.solver_state.find();
  return ws != nullptr ? const_cast<Workspace&>(*ws) : data.solver_state.get();
}
inline const Workspace& workspace(const Data& data) {
  const Workspace* ws = data.solver_state.find();
  return ws != nullptr ? *ws : kEmptyWorkspace;
}
// ... with its graph built for the model and the Data's current contacts if it is not (and, the
// first time, the step length the model's), for the assembly's functions called outside a step.
Workspace& workspace(const Model& model, Data& data);

// (Re)builds the system graph and its symbolic LDU for the model's bodies and joints and the
// data's current contacts, whose kinds ws.kinds holds (called by step() after its collide stage
// when graph_matches is false).
void build_graph(const Model& model, Data& data);
// Whether the graph built last still fits: the same contact pairs with the same kinds of node,
// the same number of nonholonomic constraints, the same integrator, and the same passive floating
// joints (a damper, spring, armature, friction or limit set on the Model after the Data was made
// turns a passive joint into a graph edge, and back).
bool graph_matches(const Model& model, const Data& data);
// Analyzes ws.velocity_ldu for the graph built last if it has not been yet (where
// ws.velocity_ldu_separate; the placed velocity projection calls it).
void analyze_velocity_ldu(const Model& model, Workspace& ws);

}  // namespace maxsim
