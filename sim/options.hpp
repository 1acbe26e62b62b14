// The options of a simulation (MuJoCo's mjOption): one struct on the Model, Model::opt, read by
// every stage of the step; the Data carries none. Loaders, the `maxsim` command and Python write it.
#pragma once

#include <limits>
#include <string>

#include "sim/math/quaternion.hpp"

namespace maxsim {

// ---- integrators ------------------------------------------------------------------------------
// How a step advances the state. Both solve their step equations with the same Newton method over
// the same system graph.
enum class Integrator {
  // first-order variational integrator: Data::v, Data::w are the velocities over the last
  // interval. Contacts, joint limits and joint friction are its inequalities.
  Variational,
  // second-order energy–momentum scheme (sim/integrator/energy_momentum.hpp): Data::v, Data::w are
  // the velocities at the knot; conservative systems keep their energy and the momentum maps of
  // their symmetries to solver tolerance. Equalities only: a model or Data with contacts, joint
  // limits or joint friction is refused (integrator_support).
  EnergyMomentum,
  // Newmark's method in the constraints' tangent space (seed 004; docs/computation.md §18,
  // sim/integrator/newmark_scheme.cpp): Data::v, Data::w are the velocities at the knot and
  // Data::acceleration the accelerations; the step's equations of motion hold at its end with the
  // joints' positions, and the knot velocities and accelerations are projected onto the joints'
  // rows. β = ¼, γ = ½ (the trapezoidal rule) is unconditionally stable on stiff constrained
  // systems. Joints with springs, dampers and actuation only: anything else is refused
  // (integrator_support).
  Newmark,
};

const char* integrator_name(Integrator i);  // "variational", "energy-momentum", "newmark"
// The integrator of that name (integrator_name's); false: no such integrator.
bool integrator_from_name(const std::string& name, Integrator* out);

// Newton solver settings.
struct SolverOptions {
  // Convergence: every constrained joint row |c(z3)| < tolerance (m, rad); every momentum and
  // free joint row < tolerance × the step's impulse scale (N·s, at least 1: the largest body
  // momentum, joint impulse or armature's rotor momentum at the step's start). 1e-9 m keeps closed
  // loops well inside 1e-8 m and above the round-off floor of redundant loops (~1e-10).
  double tolerance = 1e-9;
  int max_iterations = 50;  // Newton iterations per attempt
  // An iteration whose line search finds no better point while its residual is within
  // stall_factor × the tolerance (momentum and free rows, contact gaps, tangential velocities and
  // complementarity; constraint rows must meet the tolerance itself) counts as converged: stiff
  // contact sets reach the round-off floor of their Newton matrix above the tolerance.
  double stall_factor = 100;
  int line_search_steps = 12;    // halvings of the Newton step before giving up on a decrease
  // A step with contacts that does not converge is retried as two half steps, recursively up to
  // this depth (Δt/8 at 3), before it is reported as not converged.
  int max_retry_depth = 3;
  // Steps without contacts refine each Newton direction through the LDU's regularized pivots
  // (BlockLdu::solve) by up to this many proximal sweeps: loops passing singular positions then
  // converge in fewer iterations. The interior point does not refine (longer, worse steps there).
  int refinement_sweeps = 8;
  // The failure policy's last resort for a step without contacts on a model with closed loops: a
  // substep of the shortest length that still does not converge is solved once more with its loop
  // joints' constrained rows compliant, c(z3) + ε·u = 0 with ε = loop_compliance × Δt / (the child
  // body's mass) (StepReport::relaxed): a loop at a bifurcation has no exact solution.
  bool compliant_loop_fallback = true;
  double loop_compliance = 1e-6;  // ε of compliant_loop_fallback, per Δt and child mass
  // The failure policy's attempt for a wedge: a step with joint limits whose first attempt and
  // cold retry do not converge is solved again, cold, with its joint limits compliant
  // (InteriorPointOptions::limit_compliance = limit_fallback_compliance, at most 40 iterations;
  // StepReport::relaxed), and the next step tries it again after its first two attempts. A contact
  // that self-locks against limits (a leg pressed on another while its joints sit on their
  // stops) carries a squeeze the rigid equations leave free and unbounded; the compliance
  // chooses the least (docs/computation.md (114)). An unconverged compliant end is never the
  // one that stands. Off by default: on the A1 file under fast commands it cuts the wedge
  // stretches' iterations 1.3–3.7×, but judged across the benchmark in pairs it pays nowhere else
  // and costs 0–8 % on the robots whose steps go through the failure policy (docs/performance.md,
  // "a compliant-limit attempt"); compliant_last_resort below is the default instead.
  bool compliant_limit_fallback = false;
  double limit_fallback_compliance = 1e-3;
  // The shortest substep's last resort before the relaxed cone: where no rigid attempt converges
  // and the step has joint limits, one cold attempt with the limits compliant (InteriorPointOptions::
  // limit_compliance = limit_fallback_compliance, at most 40 iterations; StepReport::relaxed). A
  // wedge — a contact self-locking against joint limits — leaves a squeeze the rigid equations do
  // not fix; the compliance chooses the least (docs/computation.md (114)), and a converged answer
  // with limits giving by ε γ stands instead of an unconverged end. The step after one that needed
  // it tries the same attempt after its first two attempts, at full length and in each substep, as
  // do the later substeps of a step in which one gave way (a wedge lasts many steps: the shortest
  // substeps' six rigid attempts were most of its cost). Steps that converge rigidly are untouched (docs/performance.md, "a compliant-limit
  // attempt").
  bool compliant_last_resort = true;
  // With compliant_last_resort: if the limits alone do not converge, one more attempt with the
  // surface contacts compliant too (InteriorPointOptions::contact_compliance, the same c), for a
  // contact that self-locks against other contacts through the joints that carry it (the servo
  // arm's link pressed onto its floor: 30 unconverged steps → 0, penetration 5e-7 m). Judged in
  // pairs (docs/performance.md, "compliant contacts in pairs"): no step it reaches converges
  // rigidly, and elsewhere nothing changes; a robot that stays wedged pays the failure policy's
  // cascade at every step of the wedge (the A1 URDF under full random torques: 10× the iterations
  // as a run, where the rigid solve leaves 25 of those steps unconverged).
  bool compliant_contacts_last_resort = true;
  // A wedge's answer within the contracts: where a step's first attempt and its cold retry do
  // not converge, the first attempt again, warm, with its joint limits and surface contacts
  // compliant by this much (the c of limit_fallback_compliance: ε = c Δt / the lighter body's
  // mass, docs/computation.md (114)), at most compliant_retry_iterations. Its answer stands, not
  // reported relaxed, when no inequality gives by more than compliant_retry_give (ε γ); after
  // such a step the next compliant_retry_steps steps start with that attempt (a wedge lasts),
  // falling back to the rigid first attempt where it does not end them so. At c = 1e-5 (the
  // default since 2026-12-07) it ends the servo arm's wedge under the strict stall test (give
  // 1.2e-7 m), and over six seeds of the control benchmark 44 of the 46 steps the rest of the
  // cascade ended relaxed, at the cost of its iterations on the worst steps it does not end
  // (docs/performance.md, "six seeds"). 0: no such attempt.
  double compliant_retry = 1e-5;
  int compliant_retry_iterations = 40;
  int compliant_retry_steps = 20;
  double compliant_retry_give = 1e-6;  // m (rad on a joint's rotation row)
  // Painlevé's trap: where an attempt ends with a frictional contact sliding into its surface —
  // its gap still violated while its slack has reached its boundary (s < −φ) — the next
  // attempt starts the step's sliding contacts sticking (InteriorPointOptions::sticking_start),
  // before the cold retry, at full length, if a contact slid at the step's start (otherwise it
  // would repeat a cold attempt). Sliding with μ above the critical value pushes the foot
  // further in as γ grows (a Painlevé configuration, Stewart 2000): the step has no sliding
  // answer, only an impulsive stop, which an iteration started sliding does not reach
  // (docs/computation.md §12, (120)). Steps that converge are untouched.
  bool sticking_retry = true;
  // The conservative retry: after the cold retry, the same step cold with Mehrotra's corrector
  // off and InteriorPointOptions::conservative_fraction_to_boundary, then warm from where it
  // stopped. Off by default since 2026-12-07: over six schedules of the control benchmark the
  // steps it was tried on converge without it, by the half steps or the attempts after them, and
  // the steps over 60 iterations fall 107 → 93 (the largest steps of ANYmal C 525 → 245, the car
  // 686 → 345, Cassie 755 → 411); in the corpus sweep one step that it had ended rigid ends
  // relaxed (the ANYmal C URDF under PD; docs/performance.md, "the conservative retry dropped").
  bool conservative_retry = false;
  // The graph LDU's elimination order for steps with inequalities on models without a loop of
  // equality constraints (docs/computation.md §6): true eliminates every body first, so that no
  // joint or contact pivot is singular (far fewer iterations on robots whose contacts join two
  // branches: the A1 under random commands 50.5 → 31.7 per step), at the price of fill-in (each
  // body's constraints become a clique: 1.6–7× the cost of an iteration on the quadrupeds).
  // Off: the depth-first post-order. docs/performance.md has the measurements.
  bool bodies_first = false;
  // Where the graph LDU puts the contact candidates of a step (docs/computation.md §6; measured in
  // docs/performance.md, "open first, closed last"). A candidate predicted open — its gap at the
  // step's start above open_candidate_gap [m], also after its bodies' centres of mass approach for
  // two steps at their velocities — is eliminated before every other node: its pivot γ/s is small
  // and regular on its own, so it adds no fill-in and barely changes its bodies' blocks.
  // Negative: none.
  double open_candidate_gap = 1e-3;
  // Every other surface contact (touching, or about to) is eliminated after every other node, as
  // the constraint that closes a loop (through the world, or between two branches): the bodies and
  // joints keep Baraff's tree order, in which a joint's pivot always has its child body's degrees
  // of freedom, and the contact's pivot sees the inverse mass of the whole chain to the root. In the
  // depth-first post-order (false) a touching contact goes right after its body and takes the
  // degrees of freedom its body's joint then lacks (a singular, regularized joint pivot and a wrong
  // Newton direction), and a contact between two legs makes the order climb a leg from its foot.
  bool closed_contacts_last = true;
  // With closed_contacts_last, the root of a floating robot's elimination (its last body) is the
  // body that keeps the touching contacts' fill least — each node between a contact's body and the
  // root carries that contact as a later neighbour — instead of the floating body itself: the
  // weighted median of the joints' tree (a humanoid on both feet: its pelvis; lying on its back:
  // its torso). Any root of a tree is an exact elimination order; robots held by the world, and
  // loops of joints and connections, keep theirs. docs/performance.md, "the root where the
  // contacts are".
  bool fill_least_root = true;
  // A joint's row limit eliminated into the joint's own free row, as dry joint friction is: the
  // limit's impulse is part of the row's impulse and its complementarity pair (γ, s) a damper of
  // conductance γ/s on the row (docs/computation.md (127)), so a limit adds no node and no fill-in.
  // The same Newton direction as a limit node's; not on joints of a kinematic loop, whose limits
  // may be redundant with the loop's rows (a node's pivot is regularized, a free row's is not),
  // nor with the energy–momentum and Newmark integrators or reuse_iterations > 0.
  bool fold_joint_limits = true;
  // (Prototype, docs/performance.md "reusing the smooth part's factors".) Up to this many
  // interior-point iterations in a row keep the last full factorization of the bodies, joints and
  // open candidates and refactor only the Schur complement onto the touching inequalities, which
  // are then all eliminated last (sim/solver/schur_reuse.hpp). 0: every iteration factors the
  // whole system.
  int reuse_iterations = 0;
};

// Interior-point settings for steps with contacts, joint limits or joint friction.
struct InteriorPointOptions {
  double complementarity_tolerance = 1e-8;  // γ s and βᵀη at convergence (N·s·m)
  int max_iterations = 100;                 // iterations per attempt (impacts need more than 50)
  // Iterations of the failure policy's compliant attempts (SolverOptions::compliant_last_resort,
  // and the attempts after a give-way), at most max_iterations: a wedge converges in ~25 (the A1
  // file); 80 lets the slower ones finish, since the next attempt would start over
  // (docs/performance.md, "the compliant attempt's budget").
  int compliant_iterations = 80;
  double fraction_to_boundary = 0.99;       // τ: a step keeps (1 − τ) of the distance to the boundary
  // τ after a nearly full predictor step (α_aff ≥ 0.99), when > 0 (docs/computation.md (121)):
  // near the answer the predictor reaches the boundaries its pairs converge to, and with τ = 0.99
  // every iteration leaves 1 % of the equality residuals — a step at rest took four iterations
  // to fall 1e-2 → 1e-10. 0.9999: 14–40 % fewer iterations on the robots with few contacts, the
  // others 0–7 % (docs/performance.md, "τ toward 1"); 0: τ always.
  double full_predictor_fraction = 0.9999;
  double initial_slack = 1e-3;              // cold-start slack and impulse scale
  // Weight [s] of a surface contact's friction-cone product βᵀη (N·m: an impulse times a
  // velocity) against the gap products γ s (N·s·m) in the complementarity mean μ and the
  // central path (docs/computation.md (111)): the cone pairs are targeted at β∘η = σμ/w. With
  // w = 1 the sliding cones' products set μ and the targets pull open candidates and gaps off
  // their path (docs/performance.md, "the cone weight"). Joint friction is not weighted.
  double cone_weight = 0.1;
  // Whether the convergence test weights the friction cones' products by w as well
  // (docs/computation.md (63)): w β∘η against complementarity_tolerance, on the scale the central
  // path gives every pair. False tests β∘η itself, ten times stricter than the gap products — the
  // test before 2026-12-04, at which the cones were the last pairs to pass: 10–25 % more
  // iterations on the robots with many contacts (docs/performance.md, "the cones' products on
  // the path's scale").
  bool weighted_cone_test = true;
  // A sliding contact's cone passes the test on its scalar part w βᵀη alone once its friction
  // opposes the sliding to within this angle [rad] (and its magnitude is within this fraction of
  // μγ): ‖β_t/β0 + η_t/η0‖ ≤ θ (docs/computation.md (63)). The product's vector part measures how
  // far the pair is from the central path's direction rather than from the answer, and falls
  // slowly while μ falls fast; 0 tests it against the tolerance like the scalar part.
  double cone_direction_tolerance = 1e-4;
  bool warm_start = true;  // persisting contacts start from their last impulse (fewer iterations)
  // A contact continues the last step's (and starts warm from its impulses) when it joins the
  // same pair and its witness point on body b lies within this distance [m] of that one's, the
  // nearest first (docs/computation.md (62)). A rolling or tumbling limb's contact point moves
  // over its surface by |ω| r Δt a step — millimetres on a flailing humanoid — and a contact that
  // starts cold caps the first steps of its solve. 0: only a point that did not move.
  double warm_match_radius = 1e-2;
  // A persisting contact's slack and normal impulse start no lower than this (a new contact's:
  // initial_slack): closer to the solution, and a step that then fails is retried cold. A floor
  // well above the tolerances lets the first iterations move impulses that change mode
  // (1e-4 until 2026-12-05: 7–19 % more iterations on the legged robots and humanoids;
  // docs/performance.md, "a higher warm floor").
  double warm_slack = 1e-3;
  // ... or from this lower floor when the step starts settled: the previous step converged at
  // full length, and every inequality of this one persists and is either closed and at rest
  // (|φ| < settled_gap, |v_t| < settled_speed, at the z3 predicted from the last velocities) or
  // predicted open by more than settled_open_gap (a joint limit: by more than the smaller of it and
  // 1e-4 of its coordinate). A resting contact's answer is its last impulse
  // with s → 0; a contact about to slide or lift wants warm_slack. The test is the kinematics
  // alone: a step started from warm_slack takes a few iterations even at rest.
  double settled_slack = 1e-6;
  // A settled step whose previous step took at most one Newton iteration first tries its last
  // answer itself, the slacks and duals of its closed, resting inequalities at this floor: if that
  // passes the convergence test it takes no Newton iteration (after a longer step the bodies were
  // still accelerating and the try, a residual evaluation, almost never passes). Small against the
  // tolerances, so that an answer that still holds passes them.
  double settled_answer_floor = 1e-10;
  bool settled_starts = true;      // false: no step starts settled
  double settled_speed = 1e-3;     // m/s (rad/s on joint rows)
  double settled_gap = 1e-5;       // m
  double settled_open_gap = 1e-3;  // m
  // Iterations of an attempt that starts settled, where a following attempt exists (at most
  // max_iterations; 0: max_iterations). A settled start bets that the last answer holds: over
  // 5 s of bench_control's schedule on every robot, 99.9 % of the 8 000 that converged took at
  // most 16 iterations (the largest 52). One still unconverged after this many is a wedge the
  // kinematic test took for rest, and the failure policy's unsettled retry follows (the servo
  // arm pressed onto its floor: 100 iterations of jams and re-centrings, then 5 unsettled;
  // docs/computation.md (62), docs/performance.md "a settled start's budget").
  int settled_iterations = 30;
  // Mehrotra's corrector. With SolverOptions::conservative_retry a step whose interior point did
  // not converge is retried (after a cold start) without it and with
  // conservative_fraction_to_boundary: on contacts that slide while penetration is recovered the
  // second-order term drives the iterates onto the cone boundaries.
  bool mehrotra_corrector = true;
  double conservative_fraction_to_boundary = 0.95;  // τ of that retry
  double jam_step = 1e-6;                   // a step this short re-centres all contact pairs
  // An attempt of which jammed_iterations of its last jammed_window iterations each took a step
  // shorter than jammed_alpha (or re-centred) ends unconverged at once, and the failure policy
  // moves on to its next attempt (0: never). Not at the shortest substep, whose attempts are the
  // last resort (docs/computation.md §12; docs/performance.md, "the jam rule"). The window: a
  // stalled attempt's short steps come with a long one now and then, which restarted a count of
  // steps in a row (the hopper's and the MuJoCo humanoid's stalled first attempts ran their 100
  // iterations; docs/performance.md, "the jam rule's window"); a window of jammed_iterations
  // (or less: the window is at least that) counts them in a row. Both at most 64.
  int jammed_iterations = 20;
  int jammed_window = 25;
  double jammed_alpha = 0.01;
  // Proximal weight ε of the interior point's gap rows: the Newton matrix's row of γ s = κ gets
  // γ ε Δt / m (m the lighter body's mass) on its γ pivot, the residual unchanged, so an answer is
  // exact; it bounds the impulse along a direction the step's equations leave nearly free (a
  // wedge). 0 in the ordinary attempts; the shortest substep's last resort uses proximal_retry.
  double proximal = 0.0;
  double proximal_retry = 1e-6;  // (0: no such attempt)
  // Every frictional surface contact sliding at the start (|v_t| > settled_speed) starts sticking:
  // its normal impulse at least the one that would stop its lighter body (m |v_t|), its friction
  // half-way to the cone's edge against the sliding, its dual η = (initial_slack, 0). Set by the
  // failure policy's attempt for Painlevé's trap (SolverOptions::sticking_retry); off otherwise.
  bool sticking_start = false;
  // Proximal rate ν [rad/s, m/s on slide rows] of dry joint friction: the Newton matrix's row of
  // the friction's dual (the row rate, η_t = v_t) gets (ν/F)Δb₁, F the impulse bound, the
  // residual unchanged, so an answer is exact (docs/computation.md (113)). A joint held by its
  // friction inside a loop closed through the ground (a leg's joints while its foot sticks) has
  // an impulse the step's equations leave free along the loop; without the term Newton's step
  // there jumps from one end of |b₁| ≤ F to the other. 0: none.
  double joint_friction_rate = 3e-6;
  // Starting distance [rad/s, m/s on slide rows] of dry joint friction's dual from its cone's
  // edge, η0 ≥ |η_t| + this (docs/computation.md (44)), in a step that does not start settled:
  // about the rate a driven joint's row changes by in one step. The last step's rate put a
  // sticking joint's dual at the edge (η0 = 1e-3 rad/s): the first Newton direction then asked
  // for ten times the friction's bound and the step stopped at α ≈ 0.01, and again in the next
  // iterations (the A1 file: 3 iterations a step). 0: the dual starts at 2|η_t| + initial_slack.
  double joint_friction_start_rate = 0.1;
  // Compliance of joint limits, per Δt and child mass: a limit's gap is φ + εγ ≥ 0 with
  // ε = limit_compliance × Δt / (the child body's mass) (residual, matrix and slack step alike),
  // so a limit gives way by ε times its impulse (docs/computation.md (114)). 0: rigid limits;
  // the failure policy's compliant attempts set it (SolverOptions::compliant_limit_fallback,
  // compliant_last_resort).
  double limit_compliance = 0.0;
  // Compliance of surface contacts, per Δt and the lighter body's mass: a contact's gap is
  // φ + εγ ≥ 0 with ε = contact_compliance × Δt / m (the same (114)), so a pressed contact sinks
  // by ε times its normal impulse. 0: rigid contacts; the failure policy's last resort sets it
  // (SolverOptions::compliant_last_resort).
  double contact_compliance = 0.0;
  double short_step = 0.1;                  // a step length below this ...
  double sigma_after_short_step = 0.5;      // ... makes the next iteration centre at least this much
  // The corrector's centring target is κ = c σ μ (docs/computation.md (124)), c this scale in
  // (0, 1], σ Mehrotra's (μ_aff/μ)³ or the short step's floor above; 1 is Mehrotra's target. μ,
  // the mean complementarity over every inequality, overstates how far a warm-started step is
  // from its answer (the open candidates' products are already small). 0.1 (the default since
  // 2026-12-06) measured 1–24 % fewer iterations per step on the control benchmark's robots in
  // pairs and most of their largest steps far smaller; its answers sit farther from the central
  // path, which transition_derivatives and transition_fd leave by solving with 1
  // (docs/performance.md, "a lower centring target").
  double centering_scale = 0.1;
  // The failure policy's last resort: a substep of the shortest length that still does not
  // converge is solved once more with Anitescu's relaxed cone on its frictional contacts
  // (FrictionCone::Relaxed), convex for a fixed linearization where the exact cone can oscillate
  // between nearby contact modes. StepReport::relaxed tells such a step.
  bool relaxed_fallback = true;
};

// ---- contacts ----------------------------------------------------------------------------------
// Friction cone model: the exact second-order cone ‖b‖ ≤ μγ (default), or its linearization
// with four directions: |b1| + |b2| ≤ μγ, the square inscribed in the circle (a diagonal slide's
// friction then points along the nearest pyramid edge). Relaxed: Anitescu's convex relaxation of
// the exact cone (RelaxedContact): a sliding contact's gap held open by μΔt|v_t| over the step
// (the model of MuJoCo's and Drake's convex solvers, without their compliance); sticking and
// separating contacts are exact.
enum class FrictionCone { Nonlinear, Linear, Relaxed };
const char* friction_cone_name(FrictionCone c);  // "nonlinear", "linear", "relaxed"
// The cone of that name (friction_cone_name's); false: no such cone.
bool friction_cone_from_name(const std::string& name, FrictionCone* out);

// The contact search's options (Model::opt.contact), read at every step of a Data with contacts
// (enable_contacts); a change applies from the next step.
struct ContactOptions {
  // The half-space z >= 0. The loaders set it: on for URDF (no world of its own), off for MJCF
  // (its geoms are its world).
  bool ground = true;
  double friction = 0.8;       // default μ for geoms without their own (combined with max)
  // Candidate search margin [m], added to geom margins: must cover the approach within one step
  // (a contact found late starts deep and is pushed out at recovery_speed).
  double margin = 0.1;
  // Adaptive margin: each step searches within min_margin + 2Δt(2 v_max + |g|Δt), capped at
  // `margin`, where v_max bounds the speed of any body's geometry (|v| + |ω| R, R the body's
  // geometric radius about its CoM): twice the distance any pair can close in one step, so slow
  // robots carry only the contacts that matter.
  bool adaptive_margin = true;
  // The adaptive margin's floor [m]: contacts that enter cold at an impact must be found this far
  // ahead or they jam the interior point. A model whose median collision geom (bounding radius
  // of the bodies' geoms) is smaller searches within that instead (docs/computation.md (42)).
  double min_margin = 0.02;
  // The floor of the margin per pair (pair_margin) for two moving bodies [m], at most min_margin:
  // such a pair of geoms is kept only if its nearest point lies within pair_min_margin +
  // 2Δt(s_a + s_b + |g|Δt), then with its points within min_margin + that reach (docs/computation.md
  // (122)). A robot's links pass near one another far more often than they touch, and every
  // candidate is a node of every factorization, an open one costing about what a touching one
  // does: 5 mm made the A1s 1.2–1.3× faster under random commands, but the corpus's Atlas and
  // ANYmal URDFs under stiff PD met wedges on their new paths (docs/performance.md, "the margin per
  // pair's floor for two moving bodies"). The default is min_margin's: one floor for every pair.
  double pair_min_margin = 0.02;
  // The adaptive margin per pair of bodies: a pair is kept within min_margin (pair_min_margin for
  // two moving bodies) + 2Δt(s_a + s_b + |g|Δt), its own two bodies' speed bounds in place of
  // twice the fastest body's (docs/computation.md (122)): fewer open candidates in every
  // factorization. Momentum passed on within the step (a struck body striking a third) is caught
  // after the solve: if a candidate left out could have closed over the motion the step made, the
  // step is solved again with every candidate within the whole margin ((123)), or within that
  // motion for a pair beyond the whole margin (a leg whipped by a stiff servo from rest). Needs
  // adaptive_margin.
  bool pair_margin = true;
  bool exclude_joined = true;  // the model's joint filter applies (Model::collision_filter)
  // Contacts between two moving bodies (a robot's own links, stacked objects); off is PyBullet's
  // default for URDF robots.
  bool self_collision = true;
  // A contact found already penetrating is pushed out at most this fast [m/s]: its gap constraint
  // becomes φ(z3) ≥ −max(0, depth − recovery_speed·Δt) instead of φ(z3) ≥ 0, which would launch
  // the body at depth/Δt. The depth is the deepest among the contacts of the same body pair with
  // the same normal, shared by all of them. Pairs that do not penetrate stay exact (φ ≥ 0).
  double recovery_speed = 0.2;
  // A contact found penetrating less than this [m] is held where it is, φ(z3) ≥ −depth (no
  // deeper, not pushed out), as a joint limit found beyond its bound is: recovering the round-off
  // of a converged step is not worth an impulse, and against a limit or a loop held where it is
  // (a link pressed onto its floor near a toggle) it makes the step infeasible
  // (docs/computation.md (41)). Three times the gap a step ending within the stall test may leave
  // (100 × the 1e-9 m tolerance), a third of the penetration contract (1e-6 m); 0 recovers every
  // depth.
  double hold_depth = 3e-7;
  // Coefficient of restitution for geom pairs that declare none (Geom::restitution; pairs combine
  // with max). 0: perfectly inelastic hard contact.
  double restitution = 0;
  double bounce_threshold = 0.05;  // [m/s] slower impacts stay inelastic (Contact::restitution)
  FrictionCone cone = FrictionCone::Nonlinear;  // the friction cone of every contact
  // Geom pairs that overlap deeper than this [m] in the first search and that the joints may keep
  // from separating (two bodies of one kinematic tree, two trees neither of which is free, a body
  // of a tree fixed to the world against a world geom) are not contacts until they have separated
  // once (MoveIt's "collision by default" pairs): the file's author never meant them to touch, and
  // demanding their separation would make the step infeasible. Pairs that can separate are pushed
  // apart at recovery_speed instead.
  double start_overlap = 1e-6;
  // Torsional friction (Contact::torsion, MJCF condim 4 and 6) acts on the contacts whose gap at
  // the step's start is below this [m]: a contact that closes within the step gets it from the
  // next one. An open candidate's torsional cone, of radius μ_τ γ with γ ~ 1e-4 N·s, pins the
  // interior point's steps as its foot swings and spins (the Menagerie ANYmal C under random
  // commands: 19–21 → 38 iterations per step with it on every candidate, docs/performance.md).
  double torsion_gap = 1e-4;

  bool operator==(const ContactOptions&) const = default;  // every field equal
};

// ---- all of them -------------------------------------------------------------------------------
// Every option of a simulation, as Model::opt.
struct ModelOptions {
  double timestep = 0.01;                  // Δt [s] (an MJCF file without <option timestep>: 0.002)
  Vec3 gravity = Vec3(0, 0, -9.81);        // [m/s²], world frame
  Vec3 magnetic = Vec3(0, -0.5, 0);        // the world's magnetic flux (magnetometer sensors; MuJoCo's default)
  // Sensors add their Gaussian noise (Sensor::noise) when on (MJCF <flag sensornoise="enable">, as
  // MuJoCo 2.2.2); off, noise is only a declared figure.
  bool sensor_noise = false;
  // false: step() leaves Data::sensordata as it is (MJCF <flag sensor="disable">, MuJoCo's);
  // update_sensors still computes them.
  bool sensors = true;
  Integrator integrator = Integrator::Variational;  // how a step advances the state
  // The energy–momentum step's numerical damping ν in [0, ½]: its knot velocities weigh the
  // interval's as v̄ = (½ − ν) u2 + (½ + ν) u3, so each step loses ν Σ (m|Δu|² + ΔΩᵀJΔΩ + a Δċ²) of
  // energy (docs/computation.md (105)), the fast oscillations most: large steps on stiff systems
  // (Newmark's γ = ½ + ν). 0: the conservative scheme. Linear momentum is kept, angular momentum
  // only to O(ν Δt). The variational integrator does not read it.
  double numerical_damping = 0;
  // The Newmark step's parameters (docs/computation.md (107)): x3 = x2 + Δt u2 + Δt²((½ − β) a2 +
  // β a3), u3 = u2 + Δt((1 − γ) a2 + γ a3). β = ¼, γ = ½: the trapezoidal rule, second order and
  // unconditionally stable; γ > ½ damps the fast oscillations (β = (γ + ½)²/4 keeps it
  // unconditionally stable); β = 1/12, γ = ½ (Fox–Goodwin) is stable for ω Δt < √6 only. Only the
  // Newmark integrator reads them.
  double newmark_beta = 0.25;
  double newmark_gamma = 0.5;
  // τ [s]: a joint or tendon limit that the run starts beyond (a file whose zero pose violates its
  // own ranges) is moved back by min(1, Δt/τ) of the violation per step until it is within
  // (docs/computation.md (43)); one beyond it later (a step's tolerance, a compliant attempt's
  // give) is held where it is. Infinity (the default): held where it is, the row may only move
  // inwards. An MJCF file gets 0.04 s, as MuJoCo's soft limits pull a pose back into range:
  // its default solref (0.02 s, damping ratio 1) has closed all but 1/e of a violation by then.
  // 0: back in one step.
  double limit_recovery_time = std::numeric_limits<double>::infinity();
  SolverOptions solver;                    // Newton: tolerance, iterations, failure policy
  InteriorPointOptions interior_point;     // steps with inequalities
  ContactOptions contact;                  // the contact search (enable_contacts)
};

// Whether ν is a numerical damping the energy–momentum step takes: in [0, ½] (NaN is not).
inline bool numerical_damping_valid(double nu) { return nu >= 0 && nu <= 0.5; }
// Whether τ is a limit recovery time the step takes: τ ≥ 0 (infinity holds; NaN is not).
inline bool limit_recovery_time_valid(double tau) { return tau >= 0; }
// Whether (β, γ) are Newmark parameters the Newmark step takes: β in (0, ½], γ in [½, 1].
inline bool newmark_parameters_valid(double beta, double gamma) {
  return beta > 0 && beta <= 0.5 && gamma >= 0.5 && gamma <= 1;
}

}  // namespace maxsim
