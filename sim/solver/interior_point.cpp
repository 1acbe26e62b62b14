// The interior point of steps with inequalities (docs/computation.md (55)–(63)): a primal–dual
// Newton method with Mehrotra's predictor–corrector on the step equations and every inequality's
// complementarity, the Newton systems factored on the graph LDU. It loops over the inequalities
// through their one interface (sim/solver/inequality.hpp) and never asks what kind they are.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>

#include "sim/solver/assemble.hpp"
#include "sim/solver/inequality.hpp"
#include "sim/solver/iteration_trace.hpp"
#include "sim/solver/schur_reuse.hpp"
#include "sim/solver/solve.hpp"

namespace maxsim {

namespace {

// Average complementarity μ = (Σ γ s + w Σ βᵀη) / ν over the orthant pairs and friction cones
// (w: InteriorPointOptions::cone_weight, docs/computation.md (111)).
double complementarity_mean(const Data& d, const std::vector<Contact>& cs) {
  double sum = 0;
  int n = 0;
  const Workspace& ws = workspace(d);
  for (size_t c = 0; c < cs.size(); ++c) ws.kinds[c]->add_complementarity(cs[c], ws.cone_weight, &sum, &n);
  return n > 0 ? sum / n : 0.0;
}

double complementarity_max(const Data& d) {
  double m = 0;
  const Workspace& ws = workspace(d);
  for (size_t c = 0; c < d.contacts.size(); ++c) m = std::max(m, ws.kinds[c]->max_complementarity(d.contacts[c], ws.cone_test));
  return m;
}

// Largest step in [0, 1] keeping every inequality's variables strictly inside their cones.
double max_feasible_step(const Data& d, const std::vector<Vec6>& steps) {
  double alpha = 1.0;
  for (size_t c = 0; c < d.contacts.size(); ++c)
    alpha = workspace(d).kinds[c]->max_step(d.contacts[c], steps[2 * c], steps[2 * c + 1], alpha);
  return alpha;
}

// The trace's consistency check of the Newton direction Δ (MAXSIM_IP_TRACE_FD): along Δ the
// equality rows must change at the rate −F (their rows of the Newton system are F + JΔ = 0), so
// (F(s + hΔ) − F(s − hΔ)) / 2h + F, by central differences, shows where the matrix's rows differ
// from the residual's derivative. Leaves ws.trial, ws.trial_residual and the kinematics moved.
void check_direction(const Model& model, Data& d, const std::vector<Vec6>& steps, const IterationTrace& trace) {
  Workspace& ws = workspace(d);
  const int ne = ws.layout.equality_size();
  const double h = 1e-6 / std::max(1.0, ws.delta.lpNorm<Eigen::Infinity>());
  Eigen::VectorXd rate = Eigen::VectorXd::Zero(ne);
  for (const double sign : {1.0, -1.0}) {
    ws.trial = ws.unknowns + sign * h * ws.delta;
    ws.trial_contacts = d.contacts;
    apply_steps(d, &ws.trial_contacts, steps, sign * h);
    ws.trial_contacts.swap(d.contacts);
    step_residual(model, d, ws.trial, &ws.trial_residual);
    ws.trial_contacts.swap(d.contacts);
    rate += sign / (2 * h) * ws.trial_residual.head(ne);
  }
  trace.direction_check(d, rate + ws.residual.head(ne), ws.residual);
}

// A predictor step at least this long counts as nearly full (InteriorPointOptions::
// full_predictor_fraction): near the answer it stops just short of 1, where a closed gap's slack
// or a sliding cone's edge reaches its boundary.
constexpr double kNearlyFullPredictor = 0.99;

// A settled step tries its last answer only after a step of at most this many Newton iterations:
// after more the bodies were still accelerating, and the last answer fails its test (over 5 s of
// bench_control's schedule, every robot: 3 of 6 107 such tries passed, 170 of 193 after 0–1).
constexpr int kLastAnswerAfter = 1;

// Whether the step starts settled (InteriorPointOptions::settled_slack), from the kinematics of
// the first residual and ws.warm. d.report is still the previous step's (or a failed attempt's: not
// settled); the failure policy blocks settled starts for a few steps after one failed.
bool settled_start(const Data& d, const InteriorPointOptions& opt) {
  if (!opt.settled_starts || !opt.warm_start || d.report.status != StepStatus::Ok || d.report.substeps ||
      workspace(d).unsettled_steps > 0)
    return false;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    if (!workspace(d).warm[c]) return false;
    const ContactKinematics& k = workspace(d).contact_kin[c];
    const bool open = k.phi > workspace(d).kinds[c]->settled_open_gap(opt.settled_open_gap);
    const bool resting = std::abs(k.phi) < opt.settled_gap && k.vt.norm() < opt.settled_speed;
    if (!open && !resting) return false;
  }
  return true;
}

}  // namespace

StepReport solve_interior_point(const Model& model, Data& d, const InteriorPointOptions& opt) {
  const double dt = workspace(d).dt;
  Workspace& ws = workspace(d);
  ws.sliding_at_start = 0;
  Eigen::VectorXd& s = ws.unknowns;
  Eigen::VectorXd& F = ws.residual;
  const EqualityTest converged = equality_test(model, d);
  std::vector<Vec6>& affine = ws.contact_affine;
  std::vector<Vec6>& steps = ws.contact_steps;  // (sized by recover_steps)
  const int nc = static_cast<int>(d.contacts.size());
  ws.cone_weight = opt.cone_weight;
  ws.cone_test = {opt.weighted_cone_test ? opt.cone_weight : 1.0, opt.cone_direction_tolerance};
  ws.proximal = opt.proximal;
  ws.joint_friction_rate = opt.joint_friction_rate;
  ws.joint_friction_start_rate = 0.0;  // (the last answer's try, below: the dual as it ends)
  ws.compliance.clear();
  if (opt.limit_compliance > 0 || opt.contact_compliance > 0) {  // docs/computation.md (114)
    ws.compliance.assign(nc, 0.0);
    for (int c = 0; c < nc; ++c)
      if (d.contacts[c].body_b >= 0) ws.compliance[c] = ws.kinds[c]->compliance(model, d.contacts[c], opt, dt);
  }

  // start of the inequality variables, strictly inside their cones, from the predicted gap; an
  // inequality that persists from the last step (same pair, same point) starts from its impulse
  const double cold = opt.initial_slack * std::max(1.0, model.opt.gravity.norm() * dt);
  ws.warm.resize(nc);
  for (int c = 0; c < nc; ++c) {
    const int p = ws.previous_match[c];
    ws.warm[c] = opt.warm_start && p >= 0;
    ws.kinds[c]->start_impulse(d, c, ws.warm[c] ? &ws.previous_contacts[p] : nullptr, cold, &s);
  }
  step_residual(model, d, s, &F);

  // (factor > 1: the looser test of a stalled iteration, see SolverOptions::stall_factor)
  auto inequalities_ok = [&](double factor) {
    const double tol = factor * model.opt.solver.tolerance;
    for (int c = 0; c < nc; ++c)
      if (!ws.kinds[c]->converged(d.contacts[c], ws.contact_kin[c], tol, dt)) return false;
    return complementarity_max(d) < factor * opt.complementarity_tolerance;
  };
  auto start = [&](double warm_floor, double dual_floor) {
    for (int c = 0; c < nc; ++c)
      ws.kinds[c]->start(d, c, ws.warm[c] ? warm_floor : opt.initial_slack, dual_floor, &s);
  };
  bool residual_at_s = false;  // F and the contact kinematics were last evaluated at s
  const bool settled = settled_start(d, opt);
  ws.started_settled = settled;
  if (settled && d.report.iterations <= kLastAnswerAfter) {
    // A settled step's answer is usually the last one: every impulse as it was, the closed gaps
    // and resting velocities at their boundary (slacks and duals at settled_answer_floor). If
    // that point passes the convergence test, the step needs no Newton iteration; otherwise it
    // starts from the same impulses with the settled floors (one residual evaluation lost).
    ws.trial = s;
    start(opt.settled_answer_floor, opt.settled_answer_floor);
    step_residual(model, d, s, &F);
    residual_at_s = converged(F) && inequalities_ok(1.0);
    if (!residual_at_s) s = ws.trial;  // (the bodies' velocities and so the kinematics are unchanged)
  }
  if (!residual_at_s) {
    // (a settled start keeps a sticking joint's friction near its answer)
    ws.joint_friction_start_rate = settled ? 0.0 : opt.joint_friction_start_rate;
    start(settled ? opt.settled_slack : opt.warm_slack, opt.initial_slack);
    ws.sliding_at_start = sliding_contacts(d, opt.settled_speed);
    if (opt.sticking_start) start_sticking(model, d, opt.settled_speed, opt.initial_slack, &s);
  }
  ws.trial_contacts = d.contacts;  // (the iterations copy only the variables, copy_contact_variables)
  const IterationTrace trace(d);  // (off unless MAXSIM_IP_TRACE is set)
  trace.begin(model, d, settled);
  EqualityTest stalled = converged;
  stalled.tol_impulse *= model.opt.solver.stall_factor;
  // (an iterate at the round-off floor of its Newton matrix: the convergence test with every
  // tolerance times the stall factor, docs/computation.md (54))
  auto within_stall = [&]() { return stalled(F) && inequalities_ok(model.opt.solver.stall_factor); };
  double last_alpha = 1.0;
  // Merits of the line search. merit_eq: the equality residuals (momentum, joint rows, s − φ,
  // η_t − v_t). merit(κ): the same plus the distance from the central path γ s = κ,
  // β∘η = κ e (κ = σμ), i.e. the residual of the system the direction solves. A trial step is
  // taken if it lowers either: Newton's direction lowers both to first order, but Mehrotra's
  // corrector is not a descent direction for the complementarity part, and accepting steps
  // that only lowered μ (the earlier rule) let iterates walk off to large equality residuals on
  // robots with many contacts.
  auto merit_eq = [&]() {
    double m = F.head(ws.layout.equality_size()).norm();
    for (int c = 0; c < nc; ++c) ws.kinds[c]->add_equality_merit(d.contacts[c], ws.contact_kin[c], dt, &m);
    return m;
  };
  auto merit = [&](double kappa) {
    double m = merit_eq();
    for (int c = 0; c < nc; ++c) ws.kinds[c]->add_central_distance(d.contacts[c], kappa, ws.cone_weight, &m);
    return m;
  };
  // Moves every pair back inside its cone by √μ and lets the equality residuals absorb the
  // change (the iteration then continues from a centred point). Used when the iteration jams
  // against a boundary (the step there is ~0) and when no step along the direction lowers the
  // merit (docs/computation.md §8, "Re-centring").
  auto recentre = [&](double mu) {
    const double push = std::sqrt(std::max(mu, opt.complementarity_tolerance));
    for (int c = 0; c < nc; ++c) ws.kinds[c]->recentre(d, c, push, &s);
  };

  // (SolverOptions::reuse_iterations: iterations after the last full factorization, and whether
  // the next one must factor the whole system)
  const bool reuse = schur_reuse_begin(model, d);
  int reused = 0;
  bool refactor = true;
  auto newton_solve = [&](Eigen::VectorXd& b) {
    if (reuse) {
      schur_reuse_solve(d, b);
    } else {
      ws.ldu.solve(b);
    }
  };
  StepReport rep;
  // the last iterations' steps, one bit each (the latest lowest), 1 where shorter than
  // opt.jammed_alpha or re-centred: the jam rule counts them over opt.jammed_window
  std::uint64_t short_steps = 0;
  const int window_length = std::max(opt.jammed_window, opt.jammed_iterations);  // (at most 64: validated)
  const std::uint64_t window = window_length >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << window_length) - 1;
  auto jammed = [&]() {
    return opt.jammed_iterations > 0 && std::popcount(short_steps & window) >= opt.jammed_iterations;
  };
  // (a settled start's budget, InteriorPointOptions::settled_iterations: only where the failure
  // policy has a following attempt, as for the jam rule)
  const int budget = settled && opt.jammed_iterations > 0 && opt.settled_iterations > 0
                         ? std::min(opt.max_iterations, opt.settled_iterations)
                         : opt.max_iterations;
  for (rep.iterations = 0;; ++rep.iterations) {
    if (!residual_at_s) step_residual(model, d, s, &F);
    residual_at_s = true;
    rep.residual = std::max(F.lpNorm<Eigen::Infinity>(), complementarity_max(d));
    if (!std::isfinite(rep.residual)) {
      rep.status = StepStatus::Failed;
      break;
    }
    if (converged(F) && inequalities_ok(1.0)) break;
    // (a jammed attempt ends early: the failure policy's next attempt is cheaper than the rest of
    // this one's budget, docs/computation.md §12)
    if (rep.iterations == budget || jammed()) {
      rep.status = StepStatus::NotConverged;
      break;
    }
    // one factorization, two back-substitutions
    const bool full =
        !reuse || refactor || reused >= model.opt.solver.reuse_iterations || schur_reuse_stale(model, d);
    if (full) step_jacobian(model, d, s);
    inequality_jacobian(model, d);
    if (reuse && !full && !schur_reuse_factor(model, d, false)) {
      refactor = true;  // (an iteration without a step; the next factors the whole system)
      continue;
    }
    reused = full ? 0 : reused + 1;
    refactor = false;
    if (reuse ? full && !schur_reuse_factor(model, d, true) : !ws.ldu.factor()) {
      // a Newton matrix too ill-conditioned to factor at an iterate already at the round-off
      // floor (see SolverOptions::stall_factor): that iterate is the answer
      if (within_stall()) break;
      rep.status = StepStatus::Failed;
      break;
    }
    const double mu = complementarity_mean(d, d.contacts);
    IterationRecord record;
    record.iteration = rep.iterations;
    record.mu = mu;
    // predictor (affine scaling, κ = 0)
    ws.delta = -F;
    inequality_rhs(model, d, 0.0, nullptr, &ws.delta);
    newton_solve(ws.delta);
    recover_steps(d, ws.delta, &affine);
    const double alpha_aff = max_feasible_step(d, affine);
    std::vector<Contact>& trial_contacts = ws.trial_contacts;
    copy_contact_variables(d.contacts, &trial_contacts);
    apply_steps(d, &trial_contacts, affine, alpha_aff);
    const double mu_aff = complementarity_mean(d, trial_contacts);
    double sigma = mu > 0 ? std::pow(std::clamp(mu_aff / mu, 0.0, 1.0), 3) : 0.0;
    // safeguard against jamming: after a short step, centre more (a boundary-hugging iterate
    // needs centring before the affine direction is usable again)
    if (last_alpha < opt.short_step) sigma = std::max(sigma, opt.sigma_after_short_step);
    // the centring target κ = c σ μ (InteriorPointOptions::centering_scale, docs/computation.md (124))
    const double kappa = opt.centering_scale * sigma * mu;
    // corrector (centering + second-order terms), same factorization
    ws.delta = -F;
    inequality_rhs(model, d, kappa, opt.mehrotra_corrector ? &affine : nullptr, &ws.delta);
    newton_solve(ws.delta);
    if (!ws.delta.allFinite()) {
      rep.status = StepStatus::Failed;
      break;
    }
    recover_steps(d, ws.delta, &steps);
    // fraction to boundary, then halve while the merit does not decrease
    // (docs/computation.md (121): nearer the boundary once the predictor goes nearly all the way;
    // not with reused factorizations, whose directions are not Newton's)
    const double tau = opt.full_predictor_fraction > 0 && alpha_aff >= kNearlyFullPredictor && !reuse
                           ? std::max(opt.fraction_to_boundary, opt.full_predictor_fraction)
                           : opt.fraction_to_boundary;
    double alpha = std::min(1.0, tau * max_feasible_step(d, steps));
    if (alpha < 0.9 * tau * alpha_aff) {
      // Mehrotra's second-order term overshoots where strict complementarity fails: a contact
      // touching without force (γ → 0 and s → 0 together, e.g. the redundant corners of a box at
      // rest) gets twice its affine step, which caps α at 1/2 in every iteration and makes the
      // convergence linear. Then the plain centred direction (same factorization) is taken if it
      // goes farther — the usual safeguard of Mehrotra-type codes.
      ws.trial = -F;
      inequality_rhs(model, d, kappa, nullptr, &ws.trial);
      newton_solve(ws.trial);
      recover_steps(d, ws.trial, &affine);
      const double alpha_c = std::min(1.0, tau * max_feasible_step(d, affine));
      if (ws.trial.allFinite() && alpha_c > alpha) {
        alpha = alpha_c;
        record.centred_direction = true;
        ws.delta.swap(ws.trial);
        steps.swap(affine);
      }
    }
    last_alpha = alpha;
    record.sigma = sigma;
    record.alpha_aff = alpha_aff;
    record.alpha_max = alpha;
    trace.iteration(model, d, F, converged, record, steps);
    if (alpha < opt.jam_step) {
      // a jam at an iterate already within the stall test is its answer, as when no line-search
      // trial is better (below): re-centring would throw that iterate away (docs/computation.md
      // (61); a wedge's impulse grows along its free direction while s → 0, the jam follows)
      if (within_stall()) break;
      if (reused > 0) refactor = true;
      recentre(mu);
      residual_at_s = false;
      record.recentred = true;
      short_steps = short_steps << 1 | 1;
      trace.step(record);
      continue;
    }
    if (trace.directional_check()) {
      check_direction(model, d, steps, trace);
      step_residual(model, d, s, &F);  // (the check moved the kinematics)
    }
    const double merit0 = merit(kappa), eq0 = merit_eq();
    bool accepted = false;
    for (int ls = 0; ls <= model.opt.solver.line_search_steps && !accepted; ++ls, alpha *= 0.5) {
      ws.trial = s + alpha * ws.delta;
      if (!velocities_admissible(model, d, ws.trial, dt)) continue;
      copy_contact_variables(d.contacts, &trial_contacts);
      apply_steps(d, &trial_contacts, steps, alpha);
      trial_contacts.swap(d.contacts);
      step_residual(model, d, ws.trial, &ws.trial_residual);
      residual_at_s = false;
      ws.trial_residual.swap(F);
      const double merit1 = merit(kappa), eq1 = merit_eq();
      ws.trial_residual.swap(F);
      trial_contacts.swap(d.contacts);
      accepted = std::isfinite(merit1) && (merit1 < merit0 || eq1 < eq0);
      trace.line_search(ls, alpha, merit0, merit1, eq0, eq1);
      if (accepted) {  // the trial's residual and kinematics are now those of s
        record.alpha = alpha;
        record.halvings = ls;
        d.contacts.swap(trial_contacts);
        s.swap(ws.trial);
        F.swap(ws.trial_residual);
        residual_at_s = true;
      }
    }
    if (!accepted) {
      // no point along the direction is better: at the round-off floor, done; otherwise re-centre
      if (within_stall()) break;
      recentre(mu);
      residual_at_s = false;
      last_alpha = 0;
      record.recentred = true;
    }
    // a reused factorization whose step fell short: the next iteration factors anew
    if (reused > 0 && (!accepted || record.alpha < 0.5)) refactor = true;
    short_steps = short_steps << 1 | (record.alpha < opt.jammed_alpha ? 1 : 0);
    trace.step(record);
  }
  trace.end(rep);
  if (rep.status != StepStatus::Failed && !residual_at_s) step_residual(model, d, s, &F);
  return rep;
}

}  // namespace maxsim
