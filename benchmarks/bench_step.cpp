// Whole-step timings of the timing cases of Brüdigam et al. (2023), §5.2.
//
//   NLinkPendulum/revolute/N, NLinkPendulum/spherical/N   1000 steps of an N-link pendulum
//       (1 m, 1 kg links, Δt = 0.01) released with its top joint tilted 0.2 rad (Fig. 8a)
//   LoopChain/N                                           1000 steps of a chain of N four-link
//       loop segments released with its first side link tilted 0.2 rad (Fig. 9a)
//
// Each iteration rebuilds the initial state (outside the timed region) and times the 1000
// step() calls. The counter `time_per_step_per_body` makes the linear growth visible in one run.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"

namespace {

using namespace maxsim;

void run_steps(benchmark::State& state, const Model& model, const std::vector<std::vector<double>>& q) {
  const std::vector<std::vector<double>> qd(model.joints.size());
  Data data(model);
  int max_iterations = 0;
  for (auto _ : state) {
    state.PauseTiming();
    data = Data(model);
    set_coordinates(model, data, q, qd);
    project_state(model, data);
    state.ResumeTiming();
    for (int k = 0; k < 1000; ++k) {
      const StepReport r = step(model, data);
      if (r.status != StepStatus::Ok) {
        state.SkipWithError("step did not converge");
        return;
      }
      max_iterations = std::max(max_iterations, r.iterations);
    }
  }
  state.counters["bodies"] = static_cast<double>(model.bodies.size());
  state.counters["max_newton_iterations"] = max_iterations;
  // seconds per (step × body), printed with an SI prefix (u = µs)
  state.counters["time_per_step_per_body"] = benchmark::Counter(
      1000.0 * static_cast<double>(model.bodies.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void NLinkPendulum(benchmark::State& state, JointType type) {
  const int n = static_cast<int>(state.range(0));
  const bool ball = type == JointType::Spherical;
  const Model model = make_pendulum_chain(n, type, 1.0, 1.0, ball ? 0.05 : 0.0, 0.01);
  std::vector<std::vector<double>> q(n);
  if (ball) {
    const Vec4 r = quat_exp(Vec3(0.2, 0.1, 0.0));
    q[0] = {r(0), r(1), r(2), r(3)};
  } else {
    q[0] = {0.2};
  }
  run_steps(state, model, q);
}

void LoopChain(benchmark::State& state) {
  const Model model = make_loop_chain(static_cast<int>(state.range(0)), 0.01);
  std::vector<std::vector<double>> q(model.joints.size());
  q[0] = {0.2};
  run_steps(state, model, q);
}

}  // namespace

BENCHMARK_CAPTURE(NLinkPendulum, revolute, JointType::Revolute)
    ->Name("NLinkPendulum/revolute")->Arg(1)->Arg(2)->Arg(5)->Arg(10)->Arg(20)->Arg(50)->Arg(100)->Arg(200)
    ->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK_CAPTURE(NLinkPendulum, spherical, JointType::Spherical)
    ->Name("NLinkPendulum/spherical")->Arg(1)->Arg(2)->Arg(5)->Arg(10)->Arg(20)->Arg(50)->Arg(100)->Arg(200)
    ->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(LoopChain)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Unit(benchmark::kMillisecond)->MinTime(0.2);
