// The cost of one step's derivatives (docs/performance.md, "Derivatives of a step").
//
//   Derivatives/MODEL    transition_derivatives (implicit function theorem on the converged step)
//   FiniteDiff/MODEL     transition_fd (central differences: 2·(2nv + nu) + 1 steps)
//
// at a state reached from the file's pose under random commands (uniform in their ranges, redrawn
// every 0.1 s, seed 1) after the time each benchmark names. The counter `steps` is the call's
// cost in steps of the same state (a step's time measured over 200 copies before the loop).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>

#include "models/load.hpp"
#include "sim/maxsim.hpp"

namespace {

using namespace maxsim;

struct Scene {
  explicit Scene(const std::string& file)
      : model(load_model(std::string(MAXSIM_SOURCE_DIR) + "/" + file)), data(model) {}
  Model model;
  Data data;
};

Scene reach(const std::string& file, double seconds) {
  Scene s(file);
  enable_contacts(s.model, s.data);
  std::mt19937 rng(1);
  const int redraw = std::max(1, static_cast<int>(std::lround(0.1 / s.model.opt.timestep)));
  const int steps = static_cast<int>(std::lround(seconds / s.model.opt.timestep));
  for (int i = 0; i < steps; ++i) {
    if (i % redraw == 0)
      for (int a = 0; a < s.model.nu(); ++a) {
        const Actuator& act = s.model.actuators[a];
        s.data.ctrl[a] = std::uniform_real_distribution<double>(act.ctrl_limited ? act.ctrl_lower : -1.0,
                                                                act.ctrl_limited ? act.ctrl_upper : 1.0)(rng);
      }
    step(s.model, s.data);
  }
  return s;
}

double step_seconds(const Scene& s) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < 200; ++r) {
    Data copy = s.data;
    step(s.model, copy);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 200;
}

template <bool Implicit>
void run(benchmark::State& state, const std::string& file, double seconds) {
  const Scene s = reach(file, seconds);
  const double step_time = step_seconds(s);
  for (auto _ : state) {
    const TransitionDerivatives D = Implicit ? transition_derivatives(s.model, s.data) : transition_fd(s.model, s.data);
    benchmark::DoNotOptimize(D.A.data());
  }
  state.counters["steps"] = benchmark::Counter(step_time, benchmark::Counter::kIsIterationInvariantRate |
                                                              benchmark::Counter::kInvert);
  state.counters["step_ms"] = 1e3 * step_time;
}

#define MAXSIM_DERIVATIVE_BENCH(name, file, seconds)                                            \
  void Derivatives_##name(benchmark::State& st) { run<true>(st, file, seconds); }             \
  void FiniteDiff_##name(benchmark::State& st) { run<false>(st, file, seconds); }             \
  BENCHMARK(Derivatives_##name)->Unit(benchmark::kMillisecond);                                \
  BENCHMARK(FiniteDiff_##name)->Unit(benchmark::kMillisecond);

MAXSIM_DERIVATIVE_BENCH(InvertedPendulum, "tests/data/models/gym_mujoco/inverted_pendulum.xml", 1.0)
MAXSIM_DERIVATIVE_BENCH(HalfCheetah, "tests/data/models/gym_mujoco/half_cheetah.xml", 3.0)
MAXSIM_DERIVATIVE_BENCH(A1Landing, "robots/a1/xml/a1.xml", 0.0)
MAXSIM_DERIVATIVE_BENCH(A1, "robots/a1/xml/a1.xml", 1.0)
MAXSIM_DERIVATIVE_BENCH(Humanoid, "tests/data/models/gym_mujoco/humanoid.xml", 0.9)

}  // namespace
