// a1_rollouts: how many A1 walking rollouts per second this machine (or an MPI job) runs — the
// unit of work of a1_learn — for measuring how searches scale over threads and ranks.
//
//   [mpirun -np K] a1_rollouts [--rollouts N] [--duration S] [--threads T]
//
// N rollouts (default 8) of the checked-in gait (robots/a1/gait.params), S seconds each (default
// 2), rollout i with its own sideways push (0.05·(i mod 5 − 2) m/s) so that no two are alike;
// spread over the ranks (rollout i on rank i mod K) and T threads per rank (Cluster::run_rollouts).
// Rank 0 prints a JSON line: rollouts, wall time, rollouts per second, steps per second, the bytes
// rank 0 exchanged per rollout, and the sum of the distances (%.17g: the same for any K and T).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "robots/a1/a1_gait.hpp"
#include "tuning/cluster.hpp"

using namespace maxsim;

int main(int argc, char** argv) try {
  Cluster cluster(argc, argv);
  int rollouts = 8, threads = 0;
  double duration = 2.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[++i] : nullptr;
    char* end = nullptr;
    const double x = v ? std::strtod(v, &end) : 0;
    if (!v || *end || end == v || !(x >= 0) || (a != "--duration" && x != static_cast<int>(x))) {
      if (cluster.root()) std::fprintf(stderr, "a1_rollouts: %s needs a number >= 0\n", a.c_str());
      return 2;
    }
    if (a == "--rollouts") {
      rollouts = static_cast<int>(x);
    } else if (a == "--threads") {
      threads = static_cast<int>(x);
    } else if (a == "--duration" && x > 0) {
      duration = x;
    } else {
      if (cluster.root())
        std::fprintf(stderr, "a1_rollouts: unknown option %s\nusage: [mpirun -np K] a1_rollouts [--rollouts N] "
                             "[--duration S] [--threads T]\n", a.c_str());
      return 2;
    }
  }
  const a1::Robot robot = a1::load_robot(MAXSIM_SOURCE_DIR);
  const GaitParameters gait = a1::read_gait(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/gait.params");
  RolloutTask task = a1::walk_task(robot, gait, duration);
  const auto setup = task.setup;
  task.setup = [&](const Model& m, Data& d, int i) {
    setup(m, d, i);
    std::vector<std::vector<double>> q, qd;
    get_coordinates(m, d, &q, &qd);
    qd[robot.base][1] = 0.05 * (i % 5 - 2);
    set_coordinates(m, d, q, qd);
  };
  task.evaluate = [&](const Model&, const Data& d, const RolloutStats&, int) { return d.x[robot.trunk].x(); };

  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<RolloutResult> results = cluster.run_rollouts(robot.model, task, rollouts, threads);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!cluster.root()) return 0;
  double sum = 0;
  long steps = 0;
  for (const RolloutResult& r : results) {
    sum += r.value;
    steps += r.stats.steps;
  }
  std::printf("{\"rollouts\": %d, \"duration_s\": %g, \"ranks\": %d, \"threads_per_rank\": %d, \"wall_s\": %.3f, "
              "\"rollouts_per_s\": %.4f, \"steps_per_s\": %.0f, \"bytes_per_rollout\": %.1f, \"distance_sum\": %.17g}\n",
              rollouts, duration, cluster.size(), RolloutPool(threads).threads(), wall, rollouts / wall, steps / wall,
              rollouts ? cluster.bytes_communicated() / rollouts : 0.0, sum);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "a1_rollouts: %s\n", e.what());
  return 2;
}
