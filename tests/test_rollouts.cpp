// Parallel rollouts and the sampling search: bitwise determinism across thread counts,
// early stops and errors, and a search that improves its objective.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/joint_pd.hpp"
#include "controllers/parameters.hpp"
#include "controllers/rollout.hpp"
#include "controllers/search.hpp"
#include "mechanisms/builders.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

// The final state of a rollout, for bitwise comparison.
struct FinalState {
  std::vector<Vec3> x, v, w;
  std::vector<Vec4> q;
  RolloutStats stats;
  double value = 0;
};

bool bitwise_equal(const FinalState& a, const FinalState& b) {
  auto same = [](const auto& u, const auto& v) {
    return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), sizeof(u[0]) * u.size()) == 0);
  };
  return same(a.x, b.x) && same(a.v, b.v) && same(a.w, b.w) && same(a.q, b.q) &&
         std::memcmp(&a.value, &b.value, sizeof(double)) == 0 && a.stats.steps == b.stats.steps &&
         a.stats.not_converged == b.stats.not_converged;
}

// Runs `count` rollouts on `threads` threads and keeps every final state.
std::vector<FinalState> run_all(const Model& model, RolloutTask task, int count, int threads) {
  std::vector<FinalState> out(count);
  auto value = task.evaluate;
  task.evaluate = [&out, value](const Model& m, const Data& d, const RolloutStats& s, int i) {
    FinalState& f = out[i];  // each index is written by exactly one rollout
    f.x = d.x;
    f.v = d.v;
    f.w = d.w;
    f.q = d.q;
    f.stats = s;
    f.value = value ? value(m, d, s, i) : 0.0;
    return f.value;
  };
  const std::vector<RolloutResult> r = RolloutPool(threads).run(model, task, count);
  for (int i = 0; i < count; ++i) EXPECT_EQ(std::memcmp(&r[i].value, &out[i].value, sizeof(double)), 0);
  return out;
}

// A PD-driven triple pendulum (chaotic: the smallest difference would show) with per-rollout
// initial angles and gains.
RolloutTask chain_task() {
  RolloutTask task;
  task.steps = 400;
  task.setup = [](const Model& m, Data& d, int i) {
    set_coordinates(m, d, {{0.3 + 0.1 * i}, {-0.2}, {0.5}}, {{}, {}, {}});
    auto pd = std::make_shared<JointPdController>(as_pd(actuators_from_model(m), 5.0 + i, 0.5));
    pd->set_reference(0, sinusoid_reference({0.5, 1.0, 0.0, 0.0}));
    set_controller(d, pd);
  };
  task.evaluate = [](const Model& m, const Data& d, const RolloutStats&, int) { return total_energy(m, d); };
  return task;
}

// Boxes dropped on the ground with a different spin each: contacts, the Bullet search and the
// interior point in every rollout.
Model box_model() {
  Model m;
  m.opt.timestep = 0.005;
  Body b;
  b.name = "box";
  b.mass = 1.0;
  b.inertia = inertia_box(1.0, Vec3(0.1, 0.15, 0.05));
  b.x0 = Vec3(0, 0, 0.4);
  b.geoms.push_back(make_geom(GeomType::Box, Vec3(0.1, 0.15, 0.05)));
  m.add_body(b);
  return m;
}

RolloutTask box_task() {
  RolloutTask task;
  task.steps = 200;
  task.setup = [](const Model& m, Data& d, int i) {
    enable_contacts(m, d);
    d.w[0] = Vec3(1.0 + 0.5 * i, -2.0, 0.3 * i);
    d.v[0] = Vec3(0.2 * i, 0, 0);
  };
  task.evaluate = [](const Model&, const Data& d, const RolloutStats&, int) { return d.x[0].x(); };
  return task;
}

}  // namespace

// ---- determinism -------------------------------------------------------------------------------

// The same rollouts on 1 and 2 threads, and serially on this thread, give bitwise the same final
// states: each rollout owns its Data, contact search and controller, and nothing else is shared.
TEST(Rollouts, BitwiseIdenticalAcrossThreadCounts) {
  const Model chain = make_pendulum_chain(3, JointType::Revolute, 1.0, 1.0, 0.0, 0.005);
  const Model box = box_model();
  const int count = 7;  // odd: the two threads get unequal shares
  for (int c = 0; c < 2; ++c) {
    const Model& m = c == 0 ? chain : box;
    const RolloutTask task = c == 0 ? chain_task() : box_task();
    const std::vector<FinalState> one = run_all(m, task, count, 1);
    const std::vector<FinalState> two = run_all(m, task, count, 2);
    for (int i = 0; i < count; ++i) {
      EXPECT_TRUE(bitwise_equal(one[i], two[i])) << "case " << c << " rollout " << i;
      EXPECT_EQ(one[i].stats.steps, task.steps);
      EXPECT_EQ(one[i].stats.failed, 0);
      const RolloutResult serial = run_rollout(m, task, i);
      EXPECT_EQ(std::memcmp(&serial.value, &one[i].value, sizeof(double)), 0) << "case " << c << " rollout " << i;
    }
    // the rollouts really differ (otherwise equality would prove nothing)
    EXPECT_NE(one[0].value, one[1].value);
  }
  // the boxes landed: contacts were active and held them (no sinking)
  const std::vector<FinalState> boxes = run_all(box, box_task(), 3, 2);
  for (const FinalState& f : boxes) {
    EXPECT_GT(f.x[0].z(), 0.04);
    EXPECT_LT(f.x[0].z(), 0.16);
    EXPECT_LT(f.stats.max_penetration, 1e-3);
  }
}

TEST(Rollouts, EarlyStopAndErrors) {
  const Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  RolloutTask task;
  task.steps = 1000;
  task.setup = [](const Model& model, Data& d, int) { set_joint_coordinates(model, d, 0, {1.0}, {}); };
  // stop when the pendulum first passes the bottom: a quarter period of the rod pendulum
  task.keep_going = [](const Model& model, const Data& d, int) { return row_coordinate(model, d, 0, 5).q > 0; };
  task.evaluate = [](const Model&, const Data& d, const RolloutStats&, int) { return d.time; };
  const std::vector<RolloutResult> r = RolloutPool(2).run(m, task, 2);
  for (const RolloutResult& x : r) {
    EXPECT_TRUE(x.stats.stopped);
    EXPECT_LT(x.stats.steps, 100);
    EXPECT_NEAR(x.value, 0.44, 0.05);  // T/4 of a 1 m rod at 1 rad: 0.25 · 1.64 s · 1.07
  }
  task.setup = [](const Model&, Data&, int i) {
    if (i == 3) throw std::runtime_error("setup of rollout 3");
  };
  try {
    RolloutPool(2).run(m, task, 6);
    FAIL() << "the exception was lost";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "setup of rollout 3");
  }
  EXPECT_THROW(run_rollout(m, RolloutTask{}, 0), std::invalid_argument);
  EXPECT_GE(RolloutPool().threads(), 1);
}

// ---- search -------------------------------------------------------------------------------------

// An analytic objective, −|p − c|² in 4-D from p = 0 (value −30): the search climbs to near the
// optimum, the best value never decreases, and 1 and 2 threads give bitwise the same search.
TEST(Search, ImprovesAnAnalyticObjective) {
  const std::vector<double> c = {1.0, -2.0, 3.0, -4.0};
  const Objective f = [&](const std::vector<double>& p) {
    double s = 0;
    for (size_t k = 0; k < p.size(); ++k) s += (p[k] - c[k]) * (p[k] - c[k]);
    return -s;
  };
  std::vector<SearchParameter> params;
  for (int k = 0; k < 4; ++k) params.push_back({"p" + std::to_string(k), 0.0, 1.0});
  params[3].lower = -3.5;  // a bound the optimum lies beyond: the search must stop at it
  SearchOptions o;
  o.episodes = 60;
  o.samples = 6;
  o.radius = 0.5;
  o.progress = ProgressBar::Never;
  o.threads = 1;
  const SearchResult a = sample_search(params, f, o);
  o.threads = 2;
  const SearchResult b = sample_search(params, f, o);
  std::printf("  measured: best %.5f after %d evaluations (%d improvements)\n", a.best_value, a.evaluations,
              a.improvements);
  EXPECT_EQ(a.history.front(), -30.0);
  ASSERT_EQ(a.history.size(), 61u);
  for (size_t e = 1; e < a.history.size(); ++e) EXPECT_GE(a.history[e], a.history[e - 1]);
  EXPECT_GT(a.best_value, -0.25 - 0.05);  // optimum inside the bound: −(0.5)² from p3 = −3.5
  EXPECT_GE(a.best[3], -3.5);
  EXPECT_NEAR(a.best[0], 1.0, 0.2);
  EXPECT_EQ(a.evaluations, 1 + 60 * 6);
  EXPECT_GT(a.improvements, 5);
  ASSERT_EQ(a.best.size(), b.best.size());
  EXPECT_EQ(std::memcmp(a.best.data(), b.best.data(), sizeof(double) * a.best.size()), 0);
  EXPECT_EQ(a.history, b.history);
}

// Gain tuning on a simulated pendulum: find kp, kv of a torque-limited PD (8 N·m) that bring the
// rod from 0 to 1 rad fastest, as the mean squared error over 1.5 s of rollouts. From kp = 5,
// kv = 0.5 (too soft: the rod stops short under gravity and rings) the search must cut the error
// by at least half; the CSV log has one row per episode with a non-decreasing best value and the
// best file reads back the best parameters exactly.
TEST(Search, TunesPendulumGainsWithRollouts) {
  const Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  const Objective cost = [&](const std::vector<double>& gains) {
    RolloutTask task;
    task.steps = 150;
    std::vector<Actuator> acts = as_pd(actuators_from_model(m), gains[0], gains[1]);
    acts[0].force_limited = true;
    acts[0].force_lower = -8;
    acts[0].force_upper = 8;
    auto err = std::make_shared<double>(0.0);
    task.setup = [acts, err](const Model&, Data& d, int) {
      auto pd = std::make_shared<JointPdController>(acts);
      pd->set_reference(0, constant_reference(1.0));
      set_controller(d, [pd, err](const Model& model, Data& data) {
        const double e = 1.0 - row_coordinate(model, data, 0, 5).q;
        *err += e * e;
        pd->control(model, data);
      });
    };
    const RolloutResult r = run_rollout(m, task, 0);
    if (r.stats.failed) return -1e9;
    return -*err / task.steps;
  };
  const std::string dir = std::string(MAXSIM_BINARY_DIR);
  SearchOptions o;
  o.episodes = 15;
  o.samples = 4;
  o.radius = 0.5;
  o.threads = 2;
  o.progress = ProgressBar::Never;
  o.log_csv = dir + "/test_rollouts_search.csv";
  o.best_file = dir + "/test_rollouts_best.txt";
  const std::vector<SearchParameter> params = {{"kp", 5.0, 20.0, 0.0, 500.0}, {"kv", 0.5, 2.0, 0.0, 50.0}};
  const SearchResult r = sample_search(params, cost, o);
  std::printf("  measured: mean squared error %.5f -> %.5f rad^2 (kp %.2f, kv %.3f)\n", -r.history.front(),
              -r.best_value, r.best[0], r.best[1]);
  EXPECT_GT(r.best_value, 0.5 * r.history.front()) << "initial " << r.history.front() << " best " << r.best_value;
  EXPECT_DOUBLE_EQ(cost(r.best), r.best_value);  // the objective is a pure function
  EXPECT_GT(r.best[0], 5.0);                      // stiffer than the start

  std::ifstream log(o.log_csv);
  std::string line;
  std::getline(log, line);
  EXPECT_EQ(line, "episode,evaluations,best_value,episode_value,radius,improved");
  int rows = 0;
  double prev = -1e300;
  while (std::getline(log, line)) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<double> cells;
    while (std::getline(ss, cell, ',')) cells.push_back(std::stod(cell));
    ASSERT_EQ(cells.size(), 6u) << line;
    EXPECT_EQ(cells[0], rows);
    EXPECT_GE(cells[2], prev);
    prev = cells[2];
    ++rows;
  }
  EXPECT_EQ(rows, o.episodes + 1);
  EXPECT_EQ(prev, r.best_value);
  const NamedValues best = read_parameters(o.best_file);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].first, "kp");
  EXPECT_EQ(parameter_value(best, "kp"), r.best[0]);
  EXPECT_EQ(parameter_value(best, "kv"), r.best[1]);
}

TEST(Search, RejectsBadInput) {
  const Objective f = [](const std::vector<double>&) { return 0.0; };
  SearchOptions o;
  o.progress = ProgressBar::Never;
  EXPECT_THROW(sample_search({}, f, o), std::invalid_argument);
  EXPECT_THROW(sample_search({{"a", 0.0, 0.0}}, f, o), std::invalid_argument);        // scale 0
  EXPECT_THROW(sample_search({{"a", 2.0, 1.0, 0.0, 1.0}}, f, o), std::invalid_argument);  // outside
  o.samples = 0;
  EXPECT_THROW(sample_search({{"a", 0.0, 1.0}}, f, o), std::invalid_argument);
  // a failing objective (NaN) is −∞, never the best
  o.samples = 2;
  o.episodes = 3;
  const SearchResult r = sample_search({{"a", 0.0, 1.0}}, [](const std::vector<double>& p) {
    return p[0] > 0 ? std::nan("") : p[0];
  }, o);
  EXPECT_TRUE(std::isfinite(r.best_value));
  EXPECT_LE(r.best[0], 0.0);
}
