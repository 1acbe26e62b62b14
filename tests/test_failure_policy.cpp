// The failure policy's jam rule (InteriorPointOptions::jammed_iterations): an attempt whose
// interior point takes that many iterations in a row with steps shorter than jammed_alpha ends
// at once and the policy moves on to its next attempt; the shortest substep's attempts keep their
// whole budget. The rule changes the work of a step, not its answer, where the step converges
// after the jam in a later attempt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/load.hpp"
#include "sim/maxsim.hpp"
#include "testing/random.hpp"

using namespace maxsim;

namespace {

// The ANYmal C URDF on its ground under random commands (every actuator uniform within its
// range, one draw, a fixed LCG seed): its third step jams at Δt = 0.01 s (a shank's contact
// sliding, the Newton direction reversing from one iteration to the next) in every attempt at
// full length, and converges as two half steps.
struct Outcome {
  std::vector<double> qpos, qvel;
  int iterations = 0, substeps = 0;
  bool all_ok = true;
};

Outcome run_anymal(int jammed_iterations, int steps) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/anybotics_anymal_c/urdf/anymal.urdf");
  m.opt.interior_point.jammed_iterations = jammed_iterations;
  // (the cones tested whole: with the direction test (docs/computation.md (63)) one of these
  // steps' full-length attempts converges after its jam, and the two runs part)
  m.opt.interior_point.cone_direction_tolerance = 0;
  // (and from the warm floor and the fixed τ before 2026-12-05: from 1e-3 another of these steps
  // converges after its jam in the patient run)
  m.opt.interior_point.warm_slack = 1e-4;
  m.opt.interior_point.full_predictor_fraction = 0;
  // (and with the whole margin of docs/computation.md (42): with the margin per pair (122) one of
  // these steps converges at full length in the patient run after its jam)
  m.opt.contact.pair_margin = false;
  // (and with Mehrotra's centring target, docs/computation.md (124): with c = 0.1 the patient run's
  // fourth step ends 1e-8 from the prompt one's, one of its full-length attempts converging late)
  m.opt.interior_point.centering_scale = 1.0;
  Data d(m);
  enable_contacts(m, d);
  std::uint64_t state = 12345;
  for (int a = 0; a < m.nu(); ++a) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
    const Actuator& act = m.actuators[a];
    const double lo = act.ctrl_limited ? act.ctrl_lower : act.force_limited ? act.force_lower : -1.0;
    const double hi = act.ctrl_limited ? act.ctrl_upper : act.force_limited ? act.force_upper : 1.0;
    d.ctrl[a] = lo + (hi - lo) * u;
  }
  Outcome r;
  for (int k = 0; k < steps; ++k) {
    const StepReport rep = step(m, d);
    r.all_ok = r.all_ok && rep.status == StepStatus::Ok;
    r.iterations += rep.iterations;
    r.substeps += rep.substeps ? 1 : 0;
  }
  r.qpos = get_qpos(m, d);
  r.qvel = get_qvel(m, d);
  return r;
}

}  // namespace

// Without the rule each of the four attempts at full length spends the interior point's 100
// iterations before the half steps converge; with it each ends after its jam. The half steps
// start from the same saved state either way, so the runs end in the same state (bitwise:
// the same operations), with fewer iterations.
TEST(FailurePolicy, JammedAttemptsEndEarlyAndTheStepEndsTheSame) {
  const Outcome patient = run_anymal(0, 4);
  const Outcome prompt = run_anymal(InteriorPointOptions{}.jammed_iterations, 4);
  ASSERT_TRUE(patient.all_ok);
  ASSERT_TRUE(prompt.all_ok);
  ASSERT_GE(patient.substeps, 1) << "no step jammed: the test no longer tests the rule";
  EXPECT_EQ(prompt.substeps, patient.substeps);
  EXPECT_EQ(prompt.qpos, patient.qpos);
  EXPECT_EQ(prompt.qvel, patient.qvel);
  EXPECT_LT(prompt.iterations, patient.iterations - 200);  // (four attempts of ≥ 50 iterations saved)
}

TEST(FailurePolicy, BadJamSettingsAreRefused) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/anybotics_anymal_c/urdf/anymal.urdf");
  Data d(m);
  m.opt.interior_point.jammed_iterations = -1;
  EXPECT_THROW(step(m, d), std::invalid_argument);
  m.opt.interior_point.jammed_iterations = 65;  // (the window's bits)
  EXPECT_THROW(step(m, d), std::invalid_argument);
  m.opt.interior_point.jammed_iterations = 10;
  for (const int bad : {0, -1, 65}) {
    m.opt.interior_point.jammed_window = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
  m.opt.interior_point.jammed_window = 25;
  for (const double bad : {0.0, -0.1, 1.5, double(NAN)}) {
    m.opt.interior_point.jammed_alpha = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
}

// The jam rule's window (InteriorPointOptions::jammed_window): the gym hopper under
// bench_control's schedule (seed 1) stalls at t = 0.254 s in its first attempt — μ within a factor
// of two for its 100 iterations, its steps short but one long every 15–20 iterations, so 20 short
// steps in a row never come — while the cold retry converges in 7. Counted over a window of 25,
// 20 short steps end it early. The retry starts from the step's saved state either way, so the two
// runs end in the same state (bitwise), the windowed one with fewer iterations. (The stall is
// that of contacts matched within 1 mm, docs/computation.md (62): warm-started within the default
// 1 cm the same step converges in its first attempt, 19 iterations.)
TEST(FailurePolicy, StalledAttemptEndsWithinItsWindow) {
  auto run = [](int window, int* largest) {
    Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/gym_mujoco/hopper.xml");
    m.opt.interior_point.jammed_window = window;
    m.opt.interior_point.warm_match_radius = 1e-3;
    Data d(m);
    enable_contacts(m, d);
    std::mt19937_64 rng(1);
    maxsim::testing::draw_commands(m, rng, &d);
    *largest = 0;
    for (int k = 0; k < 130; ++k) {  // (to t = 0.26 s)
      const StepReport rep = step(m, d);
      EXPECT_EQ(rep.status, StepStatus::Ok) << "window " << window << ", step " << k;
      *largest = std::max(*largest, rep.iterations);
    }
    return std::make_pair(get_qpos(m, d), get_qvel(m, d));
  };
  int in_a_row = 0, windowed = 0;
  const auto a = run(InteriorPointOptions{}.jammed_iterations, &in_a_row);
  const auto b = run(InteriorPointOptions{}.jammed_window, &windowed);
  EXPECT_GT(in_a_row, 100) << "the stalled attempt was not reached: the test no longer tests the window";
  EXPECT_LT(windowed, 50);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
}

// The proximal term (InteriorPointOptions::proximal) changes the Newton matrix of the gap rows,
// not their residual: a box sliding down a 20° slope on its four corners (μ = 0.2), every step
// solved with it, ends where the plain interior point ends it, within what the tolerances leave
// (complementarity 1e-8 N·s·m over impulses ~1e-2 N·s: ~1e-6 in a velocity).
TEST(FailurePolicy, ProximalTermChangesThePathNotTheAnswer) {
  const std::string path = "/tmp/maxsim_failure_policy_slope.xml";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(R"(<mujoco model="slope"><option timestep="0.002"/>
    <worldbody><geom type="plane" size="5 5 0.1" euler="0 20 0" friction="0.2"/>
      <body name="b" pos="0 0 0.2" euler="0 20 0"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.2"/></body></worldbody></mujoco>)",
             f);
  std::fclose(f);
  std::vector<double> end[2];
  int iterations[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    Model m = load_model(path);
    m.opt.interior_point.proximal = k == 0 ? 0.0 : 1e-2;  // (far above the retry's 1e-6: a path that differs)
    Data d(m);
    enable_contacts(m, d);
    for (int i = 0; i < 300; ++i) {
      const StepReport rep = step(m, d);
      ASSERT_EQ(rep.status, StepStatus::Ok) << k << " " << i;
      iterations[k] += rep.iterations;
    }
    end[k] = get_qpos(m, d);
    ASSERT_GT(get_qvel(m, d)[0], 0.5);  // sliding
  }
  EXPECT_NE(end[0], end[1]);  // (the path differs: the term is in the matrix)
  for (size_t i = 0; i < end[0].size(); ++i) EXPECT_NEAR(end[0][i], end[1][i], 1e-6) << i;
  std::printf("iterations %d (plain) %d (proximal)\n", iterations[0], iterations[1]);
}

TEST(FailurePolicy, BadProximalWeightsAreRefused) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/anybotics_anymal_c/urdf/anymal.urdf");
  Data d(m);
  for (const double bad : {-1e-6, double(INFINITY), double(NAN)}) {
    m.opt.interior_point.proximal = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
    m.opt.interior_point.proximal = 0;
    m.opt.interior_point.proximal_retry = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
    m.opt.interior_point.proximal_retry = 1e-6;
  }
}

// One step of `d` with one of the interior point's compliances (a member of InteriorPointOptions)
// set to c: the model's own setting, so a converged step that is not reported relaxed.
Data step_compliant(const Model& m, const Data& d, double InteriorPointOptions::*compliance, double c) {
  Model soft = m;
  soft.opt.interior_point.*compliance = c;
  Data e = d;
  const StepReport rep = step(soft, e);
  EXPECT_EQ(rep.status, StepStatus::Ok) << c;
  EXPECT_FALSE(rep.relaxed) << c;
  return e;
}

// A compliant joint limit (InteriorPointOptions::limit_compliance, docs/computation.md (114))
// gives way by ε γ: a horizontal rod (1 kg, 0.5 m, hinged at one end) falls onto its lower limit
// and comes to rest on it (rigid limits: on the bound to the slack it settled at). One step with
// its limit compliant, ε = c Δt / m, ends with the rod ε γ beyond the bound (γ the limit's impulse
// of that step), to the slack the interior point leaves (γ s ≤ 1e-8: s ≤ 1e-8 / γ). Large c: the
// failure policy's 1e-3 moves this rod by ~1e-8 rad, below the step's tolerances.
TEST(FailurePolicy, CompliantLimitGivesWayByItsComplianceTimesItsImpulse) {
  const std::string path = "/tmp/maxsim_failure_policy_limit.xml";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(R"(<mujoco model="rod"><compiler angle="radian"/><option timestep="0.002"/>
    <worldbody><body name="rod"><joint name="hinge" type="hinge" axis="0 -1 0" range="-0.3 0.3" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.01" mass="1"/></body></worldbody></mujoco>)",
             f);
  std::fclose(f);
  Model m = load_model(path);
  Data d(m);
  for (int i = 0; i < 1500; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << i;
  ASSERT_LT(std::abs(get_qvel(m, d)[0]), 1e-9);  // at rest ...
  ASSERT_NEAR(get_qpos(m, d)[0], -0.3, 1e-10);   // ... on its lower bound (to the slack it settled at: 2e-11)
  const double dt = m.opt.timestep, mass = m.bodies[m.joints[0].child].mass;
  for (const double c : {3.0, 30.0}) {
    const Data e = step_compliant(m, d, &InteriorPointOptions::limit_compliance, c);
    const Contact* limit = nullptr;
    for (const Contact& ct : e.contacts)
      if (ct.joint == 0) limit = &ct;
    ASSERT_NE(limit, nullptr) << c;
    ASSERT_NEAR(limit->bound, -0.3, 1e-12) << c;
    ASSERT_GT(limit->gamma, 1e-3) << c;  // (m g (l/2) cos(0.3) Δt = 4.7e-3 N·m·s at rest)
    const double give = c * dt / mass * limit->gamma;
    EXPECT_GT(give, 1e-5) << c;
    // (to the slack left, s ≤ complementarity_tolerance / γ: γ is 1.4e-3 at c = 30)
    EXPECT_NEAR(-0.3 - get_qpos(m, e)[0], give, m.opt.interior_point.complementarity_tolerance / limit->gamma) << c;
  }
}

// A compliant contact (InteriorPointOptions::contact_compliance, docs/computation.md (114)) sinks
// by ε γ: a 1-kg sphere at rest on a plane (rigid: its gap closed to round-off), then one step
// with its contact compliant, ε = c Δt / m, ends ε γ − s inside the plane (γ the contact's impulse
// of that step, s the slack the interior point leaves: its gap is φ + ε γ = s, with γ s ≤ 1e-8).
// The sphere sinking at (ε γ − s) / Δt takes momentum: m g Δt − γ = m (ε γ − s) / Δt, so
// γ (1 + c) = m g Δt + m s / Δt. Both are checked to the step's tolerances, s included (at c = 30
// the interior point stops at s ≈ 1e-5 m, a quarter of the sink, where γ s meets its tolerance).
TEST(FailurePolicy, CompliantContactSinksByItsComplianceTimesItsImpulse) {
  const std::string path = "/tmp/maxsim_failure_policy_contact.xml";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(R"(<mujoco model="ball"><option timestep="0.002"/>
    <worldbody><geom type="plane" size="1 1 0.1"/>
      <body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body></worldbody></mujoco>)",
             f);
  std::fclose(f);
  Model m = load_model(path);
  Data d(m);
  enable_contacts(m, d);
  for (int i = 0; i < 500; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << i;
  ASSERT_NEAR(get_qpos(m, d)[2], 0.1, 1e-9);  // at rest on the plane
  const double dt = m.opt.timestep;
  for (const double c : {3.0, 30.0}) {
    const Data e = step_compliant(m, d, &InteriorPointOptions::contact_compliance, c);
    double gamma = 0, slack = 0;
    int touching = 0;
    for (const Contact& ct : e.contacts)
      if (ct.joint < 0 && ct.gamma > 1e-6) gamma += ct.gamma, slack = ct.slack, ++touching;
    ASSERT_EQ(touching, 1) << c;
    EXPECT_LE(gamma * slack, 1e-8) << c;
    EXPECT_NEAR(gamma * (1 + c), 9.81 * dt + slack / dt, 1e-6) << c;
    const double sink = c * dt / 1.0 * gamma;
    EXPECT_GT(sink, 2e-5) << c;
    EXPECT_NEAR(0.1 - get_qpos(m, e)[2], sink - slack, 1e-8) << c;
  }
}

TEST(FailurePolicy, BadCompliancesAreRefused) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/anybotics_anymal_c/urdf/anymal.urdf");
  Data d(m);
  for (const double bad : {-1e-6, double(INFINITY), double(NAN)}) {
    m.opt.interior_point.limit_compliance = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
    m.opt.interior_point.limit_compliance = 0;
    m.opt.solver.limit_fallback_compliance = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
    m.opt.solver.limit_fallback_compliance = 0.0;
    EXPECT_THROW(step(m, d), std::invalid_argument);
    m.opt.solver.limit_fallback_compliance = 1e-3;
    m.opt.interior_point.contact_compliance = bad;
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
    m.opt.interior_point.contact_compliance = 0;
  }
  m.opt.interior_point.compliant_iterations = 0;
  EXPECT_THROW(step(m, d), std::invalid_argument);
}

// A wedge: the A1 file under bench_control's schedule with commands redrawn every 0.1 s, seed 5
// (`bench_control --only a1/xml --redraw 0.1 --seed 5`): at t ≈ 0.58–0.60 s a leg's collision box
// presses on another's while the joints of the loop sit on their limits. With rigid limits three
// of those steps end unconverged after 1 498–3 417 iterations (substeps and every attempt;
// measured with compliant_last_resort off). These are the states of the file's zero pose held
// beyond its calves' ranges (limit_recovery_time ∞), as when the wedge was found; pulled in, the
// legs take another path and this seed meets no wedge.
struct WedgeRun {
  StepSummary summary;
  int worst = 0;           // iterations of the largest step
  double penetration = 0;  // at the relaxed steps (the file's start pose overlaps its floor)
};
WedgeRun run_a1_wedge(Model m, double hold_depth = 0) {
  m.opt.limit_recovery_time = std::numeric_limits<double>::infinity();
  // (every penetration recovered, as before ContactOptions::hold_depth: with the default hold the
  // wedge's contact is held where it is and the step is feasible, see below)
  m.opt.contact.hold_depth = hold_depth;
  // (the conservative retry after the cold one, as when these runs were recorded: without it the
  // compliant attempts' worst step is 417 iterations instead of under 400)
  m.opt.solver.conservative_retry = true;
  // (the strict stall test: a jam re-centres, as every jam did before 2026-12-05; by default the
  // wedge's jammed iterate passes the stall test and is the answer, and no attempt below is made)
  m.opt.solver.stall_factor = 1;
  // (the whole margin of docs/computation.md (42), with which these runs were recorded: with the
  // margin per pair (122) the same commands reach other wedges, the held run's worst step 298 →
  // 603 iterations through half steps, its other runs fewer relaxed and unconverged steps)
  m.opt.contact.pair_margin = false;
  // (and Mehrotra's centring target, docs/computation.md (124): with the default c = 0.1 these
  // commands reach no wedge at all — no relaxed or unconverged step, the worst 71 iterations)
  m.opt.interior_point.centering_scale = 1.0;
  // (and the floating trunk as the elimination's root, docs/computation.md §6: with the root where
  // the contacts are the same commands part at the wedge, the compliant attempts' worst steps
  // 713 and 673 iterations instead of under 400 and 600)
  m.opt.solver.fill_least_root = false;
  Data d(m);
  enable_contacts(m, d);
  std::mt19937_64 rng(5);
  const int period = static_cast<int>(0.1 / m.opt.timestep + 0.5);
  WedgeRun run;
  for (int k = 0; k < static_cast<int>(0.65 / m.opt.timestep + 0.5); ++k) {
    if (k % period == 0) maxsim::testing::draw_commands(m, rng, &d);
    const StepReport rep = step(m, d);
    run.summary.add(rep, d.time);
    run.worst = std::max(run.worst, rep.iterations);
    if (rep.relaxed) run.penetration = std::max(run.penetration, max_penetration(d));
  }
  std::printf("relaxed %lld, worst %d iterations, penetration at them %.1e m\n", run.summary.relaxed_steps,
              run.worst, run.penetration);
  return run;
}

// The compliant-limit attempt (SolverOptions::compliant_limit_fallback) on the wedge: its steps
// converge at full length in ~220 iterations (the first attempt's and the cold retry's 100 each,
// then ~20 compliant), reported relaxed, their contacts closed to round-off.
TEST(FailurePolicy, CompliantLimitsResolveAWedge) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/xml/a1.xml");
  m.opt.solver.compliant_limit_fallback = true;
  const WedgeRun run = run_a1_wedge(m);
  ASSERT_GT(run.summary.relaxed_steps, 0) << "no wedge reached: the test no longer tests the attempt";
  EXPECT_EQ(run.summary.failed_steps, 0);
  EXPECT_EQ(run.summary.not_converged_steps, 0);
  EXPECT_LT(run.worst, 400);
  EXPECT_LT(run.penetration, 1e-6);
}

// The same attempt as the shortest substep's last resort only (SolverOptions::
// compliant_last_resort, the default): the wedge's steps go through the whole cascade but
// end converged, relaxed, instead of unconverged; without it three end unconverged.
TEST(FailurePolicy, CompliantLastResortEndsAWedgeConverged) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/xml/a1.xml");
  ASSERT_TRUE(m.opt.solver.compliant_last_resort);
  ASSERT_FALSE(m.opt.solver.compliant_limit_fallback);
  const WedgeRun with = run_a1_wedge(m);
  m.opt.solver.compliant_last_resort = false;
  const WedgeRun without = run_a1_wedge(m);
  ASSERT_GT(without.summary.not_converged_steps, 0) << "no wedge reached: the test no longer tests the attempt";
  EXPECT_GT(with.summary.relaxed_steps, 0);
  EXPECT_EQ(with.summary.failed_steps, 0);
  EXPECT_EQ(with.summary.not_converged_steps, 0);
  EXPECT_LT(with.penetration, 1e-6);
  // With the default hold (docs/computation.md (41)) the wedge is feasible: no attempt of the
  // cascade is needed, even without the last resort (measured: worst step 298 iterations).
  const WedgeRun held = run_a1_wedge(m, ContactOptions{}.hold_depth);
  EXPECT_EQ(held.summary.failed_steps + held.summary.not_converged_steps + held.summary.relaxed_steps, 0);
  EXPECT_LT(held.worst, 600);
}

namespace {

// Painlevé's rod (Stewart 2000): a thin rod (capsule, half-length l, radius ρ) at θ = atan 2 from
// the floor, its lower end touching it and sliding at 2 m/s away from the lean, friction μ = 2.
// Sliding, the friction at the lower end pushes the end into the floor faster than the normal
// impulse lifts it: per unit normal impulse the end's normal velocity changes by
// (1 + 3cos²θ − 3μ sinθ cosθ)/m < 0 for μ above (1 + 3cos²θ)/(3 sinθ cosθ), which is 4/3 at
// θ = atan 2. The step has no sliding answer; its answer is an impulsive stop (tangential
// impact), sticking, with the friction-to-normal impulse ratio of that critical value.
struct PainleveStep {
  StepReport report;
  double gamma = 0, friction = 0, slip = 0, mass = 0;
};

PainleveStep painleve_step(bool sticking_retry) {
  const double l = 0.5, rho = 0.005, c = 1 / std::sqrt(5.0), s = 2 / std::sqrt(5.0);
  const std::string path = "/tmp/maxsim_failure_policy_painleve.xml";
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    ADD_FAILURE() << "cannot write " << path;
    return {};
  }
  char xml[1024];
  std::snprintf(xml, sizeof xml, R"(<mujoco model="painleve"><option timestep="0.001"/>
  <worldbody><geom type="plane" size="5 5 0.1" friction="2"/>
    <body name="rod" pos="0 0 %.17g"><freejoint/>
      <geom type="capsule" fromto="%.17g 0 %.17g %.17g 0 %.17g" size="%g" mass="1" friction="2"/>
    </body></worldbody></mujoco>)",
                l * s + rho, -l * c, -l * s, l * c, l * s, rho);
  std::fputs(xml, f);
  std::fclose(f);
  Model m = load_model(path);
  m.opt.solver.sticking_retry = sticking_retry;
  Data d(m);
  enable_contacts(m, d);
  d.v[0] = Vec3(-2.0, 0, 0);  // the lower end (at −x) slides away from the lean
  PainleveStep r;
  r.report = step(m, d);
  r.mass = m.bodies[0].mass;
  for (const Contact& ct : d.contacts)
    if (ct.gamma > r.gamma) {
      r.gamma = ct.gamma;
      r.friction = ct.b.norm();
      r.slip = ct.eta.tail<2>().norm();
    }
  return r;
}

}  // namespace

// The failure policy's sticking attempt (SolverOptions::sticking_retry, docs/computation.md
// (120)) stops Painlevé's rod in one step at full length: converged, the lower end sticking, the
// impulses those of the stop. Without the impulse of gravity over the step (Δt g ≈ 0.5 % of the
// 2 m/s) and the capsule's radius (1 % of the lever) the stop's impulses are exactly
// |b| = m (1 + 3cos²θ) v / 4 = 0.4 m v and γ = 0.75 m sinθ cosθ v = 0.3 m v, |b| / γ = 4/3;
// 3 % covers both. Without the attempt the same step takes the whole cascade (substeps, 1 137
// iterations against 53).
TEST(FailurePolicy, StickingAttemptStopsPainlevesRod) {
  const PainleveStep with = painleve_step(true);
  EXPECT_EQ(with.report.status, StepStatus::Ok);
  EXPECT_FALSE(with.report.substeps);
  EXPECT_FALSE(with.report.relaxed);
  EXPECT_LT(with.slip, 1e-6);  // sticking: the end's tangential velocity (η_t = v_t)
  EXPECT_NEAR(with.gamma, 0.3 * with.mass * 2.0, 0.03 * 0.3 * with.mass * 2.0);
  EXPECT_NEAR(with.friction, 0.4 * with.mass * 2.0, 0.03 * 0.4 * with.mass * 2.0);
  EXPECT_NEAR(with.friction / with.gamma, 4.0 / 3.0, 0.03 * 4.0 / 3.0);
  EXPECT_LE(with.friction, 2.0 * with.gamma * (1 + 1e-9));  // inside the cone
  const PainleveStep without = painleve_step(false);
  EXPECT_GT(without.report.iterations, 10 * with.report.iterations)
      << with.report.iterations << " " << without.report.iterations;
}
