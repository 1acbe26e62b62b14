// The options of a simulation (MuJoCo's mjOption): one struct on the Model, Model::opt, read by
// every stage of the step; the Data carries none. Loaders, the `maxsim` command and Python write it.
#pragma once

#include <string>

#include "sim/math/quaternion.hpp"

namespace maxsim {

// ---- integrators ------------------------------------------------------------------------------
// How a step advances the state (DESIGN §3). Both solve their step equations with the same
// Newton method over the same system graph.
enum class Integrator {
  // seed 003's first-order variational integrator: Data::v, Data::w are the velocities over the
  // last interval. Contacts, joint limits and joint friction are its inequalities.
  Variational,
  // a second-order energy–momentum scheme (seeds 000/001; sim/integrator/energy_momentum.hpp): Data::v,
  // Data::w are the velocities at the knot. Conservative systems keep their total energy and the
  // momentum maps of their symmetries to solver tolerance. Equalities only: a model or Data with
  // contacts, joint limits or joint friction is refused (integrator_support).
  EnergyMomentum,
};

const char* integrator_name(Integrator i);  // "variational", "energy-momentum"
bool integrator_from_name(const std::string& name, Integrator* out);

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

// ---- all of them -----------------------------------------------------------------------------
struct ModelOptions {
  double timestep = 0.01;                  // Δt [s] (an MJCF file without <option timestep>: 0.002)
  Vec3 gravity = Vec3(0, 0, -9.81);        // [m/s²], world frame
  Integrator integrator = Integrator::Variational;
  SolverOptions solver;                    // Newton: tolerance, iterations, failure policy
  InteriorPointOptions interior_point;     // steps with inequalities
};

}  // namespace maxsim
