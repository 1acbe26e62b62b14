// step(model, data, n) and the rollouts report every step's outcome in aggregate (StepSummary):
// a step that did not converge or needed the relaxed fallback is counted even when the run ends
// on an ok step, and the aggregate of n steps is exactly the sum of the n single steps' reports.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/suite_directory.hpp"
#include "controllers/rollout.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

class StepSummaryTest : public SuiteDirectory<StepSummaryTest> {
 public:
  static constexpr const char* kDirectory = "step_summary";
};

// A planar parallelogram four-bar (crank, coupler, rocker; the rocker's tip pinned to the world by
// a connect: a closed loop, one degree of freedom) without gravity, at rest: every step's residual
// is zero at its start, so it converges with no Newton iteration.
const char* kFourBar = R"(<mujoco>
  <option timestep="0.01" gravity="0 0 0"/>
  <worldbody>
    <body name="crank" pos="0 0 1">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/>
      <body name="coupler" pos="0 0 -0.5">
        <joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
        <body name="rocker" pos="0.5 0 0">
          <joint name="j3" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.03"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><connect body1="rocker" anchor="0 0 0.5"/></equality>
</mujoco>)";

// A 0.2 m box dropped from 5 cm onto a plane with friction: impact, then resting contact.
const char* kBoxDrop = R"(<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.15" euler="3 4 5">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// One step's report and start time, summed by hand.
struct HandSum {
  long long steps = 0, failed = 0, not_converged = 0, relaxed = 0, substepped = 0, iterations = 0;
  int iterations_max = 0;
  double residual_max = 0, first_not_ok = NAN;
  void add(const StepReport& r, double t) {
    ++steps;
    failed += r.status == StepStatus::Failed;
    not_converged += r.status == StepStatus::NotConverged;
    relaxed += r.relaxed;
    substepped += r.substeps;
    iterations += r.iterations;
    iterations_max = std::max(iterations_max, r.iterations);
    residual_max = std::max(residual_max, r.residual);
    if (r.status != StepStatus::Ok && std::isnan(first_not_ok)) first_not_ok = t;
  }
};

}  // namespace

// A kick on the coupler during one step, with no Newton iteration allowed: that step cannot
// converge (its residual is the kick's impulse), so the failure policy substeps it and ends on the
// loop's compliant fallback, and the iterate it keeps is the warm start, at rest. Every other step
// starts at rest and converges with no iteration. The last step is ok; the summary still counts
// the kicked one, at the time it started.
TEST_F(StepSummaryTest, CountsTheUnconvergedRelaxedStepWhenTheLastIsOk) {
  Model m = load_model(write("fourbar.xml", kFourBar));
  m.opt.solver.max_iterations = 0;
  const int coupler = 1;
  ASSERT_EQ(m.bodies[coupler].name, "coupler");
  constexpr int kKick = 3;
  auto kick = [&](const Model& model, Data& d) {
    const bool now = std::lround(d.time / model.opt.timestep) == kKick;
    d.body_force[coupler] = now ? Vec3(50, 0, 20) : Vec3::Zero();
  };
  Data d(m);
  d.controller = kick;
  const StepSummary s = step(m, d, 10);
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.last.status, StepStatus::Ok);
  EXPECT_FALSE(s.last.relaxed);
  EXPECT_EQ(s.not_converged_steps, 1);
  EXPECT_EQ(s.relaxed_steps, 1);
  EXPECT_EQ(s.substepped_steps, 1);
  EXPECT_EQ(s.failed_steps, 0);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.iterations_total, 0);
  EXPECT_NEAR(s.first_not_ok_time, kKick * m.opt.timestep, 1e-12);
  EXPECT_NEAR(s.first_relaxed_time, kKick * m.opt.timestep, 1e-12);
  // the kicked step ends with its unbalanced impulse, |F_x| Δt' (N·s) in the coupler's momentum
  // rows, over the shortest substep Δt' = Δt / 2^max_retry_depth it was last tried at
  const double shortest = m.opt.timestep / std::pow(2.0, m.opt.solver.max_retry_depth);
  EXPECT_NEAR(s.residual_max, 50 * shortest, 1e-12);
  EXPECT_NEAR(d.time, 10 * m.opt.timestep, 1e-12);

  // the same run one step at a time: the last report alone says "ok"
  Data one(m);
  one.controller = kick;
  HandSum hand;
  StepReport last;
  for (int k = 0; k < 10; ++k) {
    const double t = one.time;
    last = step(m, one);
    hand.add(last, t);
  }
  EXPECT_EQ(last.status, StepStatus::Ok);
  EXPECT_EQ(hand.not_converged, s.not_converged_steps);
  EXPECT_EQ(hand.relaxed, s.relaxed_steps);
}

// The aggregate of step(model, data, n) is exactly the n single steps' reports summed, and the
// state is bitwise the one the single steps reach: an impact and resting contact on a plane, with
// real interior-point work in every contact step.
TEST_F(StepSummaryTest, EqualsTheSumOfTheSingleSteps) {
  const Model m = load_model(write("box.xml", kBoxDrop));
  Data a(m), b(m);
  enable_contacts(m, a);
  enable_contacts(m, b);
  const int n = 80;  // 0.4 s: falls 5 cm in 0.1 s, hits, settles
  const StepSummary s = step(m, a, n);
  HandSum hand;
  for (int k = 0; k < n; ++k) {
    const double t = b.time;
    hand.add(step(m, b), t);
  }
  EXPECT_EQ(s.steps, n);
  EXPECT_EQ(s.failed_steps, hand.failed);
  EXPECT_EQ(s.not_converged_steps, hand.not_converged);
  EXPECT_EQ(s.relaxed_steps, hand.relaxed);
  EXPECT_EQ(s.substepped_steps, hand.substepped);
  EXPECT_EQ(s.iterations_total, hand.iterations);
  EXPECT_EQ(s.iterations_max, hand.iterations_max);
  EXPECT_EQ(s.residual_max, hand.residual_max);
  EXPECT_GT(s.iterations_total, n);  // the contact steps took interior-point iterations
  EXPECT_GE(s.iterations_max, 2);
  EXPECT_DOUBLE_EQ(s.iterations_mean(), static_cast<double>(hand.iterations) / n);
  EXPECT_EQ(s.last.iterations, b.report.iterations);
  EXPECT_EQ(std::memcmp(a.x.data(), b.x.data(), sizeof(Vec3) * a.x.size()), 0);
  EXPECT_EQ(std::memcmp(a.q.data(), b.q.data(), sizeof(Vec4) * a.q.size()), 0);
  EXPECT_LT(a.x[0].z(), 0.1 + 1e-3);  // (it did land)
}

// A step the integrator refuses fails and leaves the state as it was: the run stops there, and the
// summary says which step and why.
TEST_F(StepSummaryTest, StopsAtTheFailedStepTheIntegratorRefuses) {
  Model m = load_model(write("box_em.xml", kBoxDrop));
  m.opt.integrator = Integrator::EnergyMomentum;
  Data d(m);
  enable_contacts(m, d);
  const StepSummary s = step(m, d, 20);
  EXPECT_EQ(s.steps, 1);
  EXPECT_EQ(s.failed_steps, 1);
  EXPECT_EQ(s.last.status, StepStatus::Failed);
  ASSERT_NE(s.last.reason, nullptr);
  EXPECT_EQ(s.first_not_ok_time, 0.0);
  EXPECT_EQ(d.time, 0.0);
}

TEST_F(StepSummaryTest, ZeroStepsKeepTheLastReportAndNegativeIsAnError) {
  const Model m = load_model(write("fourbar0.xml", kFourBar));
  Data d(m);
  step(m, d);
  const StepSummary s = step(m, d, 0);
  EXPECT_EQ(s.steps, 0);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.last.status, d.report.status);
  EXPECT_TRUE(std::isnan(s.first_not_ok_time));
  EXPECT_EQ(s.iterations_mean(), 0.0);
  EXPECT_THROW(step(m, d, -1), std::invalid_argument);
}

// Rollouts carry the same summary per rollout.
TEST_F(StepSummaryTest, RolloutsCountEveryStep) {
  Model m = load_model(write("fourbar_r.xml", kFourBar));
  m.opt.solver.max_iterations = 0;
  RolloutTask task;
  task.steps = 10;
  task.setup = [](const Model&, Data& d, int i) {
    d.controller = [i](const Model& model, Data& dd) {
      // rollout i kicks at step 2 + i
      dd.body_force[1] = std::lround(dd.time / model.opt.timestep) == 2 + i ? Vec3(50, 0, 20) : Vec3::Zero();
    };
  };
  const std::vector<RolloutResult> r = RolloutPool(1).run(m, task, 2);
  for (int i = 0; i < 2; ++i) {
    const StepSummary& s = r[i].stats.summary;
    EXPECT_EQ(s.steps, 10);
    EXPECT_EQ(s.not_converged_steps, 1);
    EXPECT_EQ(r[i].stats.not_converged, 1);
    EXPECT_EQ(s.relaxed_steps, 1);
    EXPECT_EQ(s.last.status, StepStatus::Ok);
    EXPECT_NEAR(s.first_not_ok_time, (2 + i) * m.opt.timestep, 1e-12);
  }
}
