// Parallel rollouts: the speed-up of the OpenMP rollout pool.
//
//   Rollouts/threads:N          8 rollouts of a PD-driven 10-link pendulum (1000 steps each,
//                               Δt = 0.01), each with its own initial angle, on N threads
//   RolloutsContacts/threads:N  8 boxes dropped and sliding on the ground (400 steps, Δt = 0.005,
//                               contacts with friction), each with its own spin
//
// Wall-clock time (UseRealTime): the pool's threads do the work, not the benchmark's. The
// speed-up is the ratio of the threads:1 and threads:2 times of one run; `rollouts_per_s`
// shows it directly.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/joint_pd.hpp"
#include "controllers/rollout.hpp"
#include "mechanisms/builders.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

namespace {

using namespace maxsim;

constexpr int kRollouts = 8;

void run_pool(benchmark::State& state, const Model& model, const RolloutTask& task, int threads) {
  const RolloutPool pool(threads);
  int failed = 0;
  for (auto _ : state) {
    const std::vector<RolloutResult> r = pool.run(model, task, kRollouts);
    for (const RolloutResult& x : r) failed += x.stats.failed;
    benchmark::DoNotOptimize(r.data());
  }
  if (failed > 0) state.SkipWithError("a rollout failed");
  state.counters["threads"] = threads;
  state.counters["rollouts_per_s"] = benchmark::Counter(kRollouts, benchmark::Counter::kIsIterationInvariantRate);
}

void Rollouts(benchmark::State& state, int threads) {
  const Model model = make_pendulum_chain(10, JointType::Revolute, 0.5, 1.0, 0.0, 0.01);
  RolloutTask task;
  task.steps = 1000;
  task.setup = [](const Model& m, Data& d, int i) {
    std::vector<std::vector<double>> q(m.joints.size()), qd(m.joints.size());
    q[0] = {0.2 + 0.05 * i};
    set_coordinates(m, d, q, qd);
    auto pd = std::make_shared<JointPdController>(as_pd(actuators_from_model(m), 20.0, 1.0));
    pd->set_reference(0, sinusoid_reference({0.3, 2.0, 0.0, 0.0}));
    set_controller(d, pd);
  };
  run_pool(state, model, task, threads);
}

void RolloutsContacts(benchmark::State& state, int threads) {
  Model model;
  model.opt.timestep = 0.005;
  Body b;
  b.name = "box";
  b.mass = 1.0;
  b.inertia = inertia_box(1.0, Vec3(0.1, 0.15, 0.05));
  b.x0 = Vec3(0, 0, 0.3);
  b.geoms.push_back(make_geom(GeomType::Box, Vec3(0.1, 0.15, 0.05)));
  model.add_body(b);
  RolloutTask task;
  task.steps = 400;
  task.setup = [](const Model& m, Data& d, int i) {
    enable_contacts(m, d);
    d.w[0] = Vec3(1.0 + 0.5 * i, -2.0, 0.3 * i);
    d.v[0] = Vec3(1.0, 0.1 * i, 0);
  };
  run_pool(state, model, task, threads);
}

}  // namespace

BENCHMARK_CAPTURE(Rollouts, threads:1, 1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Rollouts, threads:2, 2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RolloutsContacts, threads:1, 1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RolloutsContacts, threads:2, 2)->UseRealTime()->Unit(benchmark::kMillisecond);
