// A search whose objective fails on purpose, for tests/mpi/run_mpi_tests.sh (run with and without
// mpirun): the sampling search (or an NLopt algorithm) over two parameters of the concave
//     f(x, y) = −(x − 1)² − (y + 2)²
// from (0, 0), with a failure chosen by MODE:
//   none   no failure
//   nan    f is NaN where x > 0.6 (reported, counted as −∞; the search goes on)
//   throw  the objective throws where x > 0.6 (the search stops; rank 0 reports the point)
//   kill   the rank that draws a point with x > 0.6 kills itself with SIGKILL (only on ranks > 0;
//          mpirun stops the job and rank 0 reports the batch)
//
//   mpi_search MODE OPTIMIZER EPISODES PARAMS_OUT LOG_OUT
//   mpi_search rollouts          prints the StepSummary of 5 rollouts run by Cluster::run_rollouts
//                                (rollout i: a free body kicked at step i with no Newton iteration
//                                allowed, so that step is substepped and does not converge)
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "controllers/rollout.hpp"
#include "sim/maxsim.hpp"
#include "tuning/optimize.hpp"

using namespace maxsim;

namespace {
// Cluster::run_rollouts' summaries, one line per rollout, the same on every rank and without mpirun
int rollouts(const Cluster& cluster) {
  Model m;
  Body b;
  b.name = "box";
  b.mass = 1.0;
  b.inertia = Mat3::Identity();
  m.add_body(b);
  m.opt.gravity = Vec3::Zero();
  m.opt.timestep = 0.01;
  m.opt.solver.max_iterations = 0;  // at rest: 0 iterations, ok; kicked: not converged
  RolloutTask task;
  task.steps = 8;
  task.setup = [](const Model&, Data& d, int i) {
    d.controller = [i](const Model& model, Data& dd) {
      dd.body_force[0] = std::lround(dd.time / model.opt.timestep) == i ? Vec3(3, 0, 1) : Vec3::Zero();
    };
  };
  const std::vector<RolloutResult> r = cluster.run_rollouts(m, task, 5, 1);
  if (cluster.rank() != 0) return 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const StepSummary& s = r[i].stats.summary;
    std::printf("rollout %zu: steps %lld failed %lld not_converged %lld relaxed %lld substepped %lld iterations %lld "
                "max %d residual_max %.17g first_not_ok %.17g first_relaxed %.17g last %s %d %.17g %d %d\n",
                i, s.steps, s.failed_steps, s.not_converged_steps, s.relaxed_steps, s.substepped_steps,
                s.iterations_total, s.iterations_max, s.residual_max, s.first_not_ok_time, s.first_relaxed_time,
                step_status_name(s.last.status), s.last.iterations, s.last.residual, s.last.relaxed, s.last.substeps);
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  Cluster cluster(argc, argv);
  if (argc == 2 && std::string(argv[1]) == "rollouts") return rollouts(cluster);
  if (argc != 6) {
    std::fprintf(stderr, "usage: mpi_search none|nan|throw|kill OPTIMIZER EPISODES PARAMS_OUT LOG_OUT\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int rank = cluster.rank();
  const Objective f = [&](const std::vector<double>& p) {
    if (p[0] > 0.6) {
      if (mode == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (mode == "throw") throw std::runtime_error("the test objective refuses x > 0.6");
      if (mode == "kill" && rank > 0) std::raise(SIGKILL);
    }
    return -(p[0] - 1) * (p[0] - 1) - (p[1] + 2) * (p[1] + 2);
  };
  SearchOptions o;
  o.episodes = std::atoi(argv[3]);
  o.samples = 4;
  o.radius = 0.3;
  o.threads = 1;
  o.seed = 7;
  o.best_file = argv[4];
  o.log_csv = argv[5];
  o.progress = ProgressBar::Never;
  o.label = "mpi_search";
  try {
    const std::optional<SearchResult> r =
        optimize(cluster, argv[2], {{"x", 0.0, 1.0, -3.0, 3.0}, {"y", 0.0, 1.0, -3.0, 3.0}}, f, o);
    if (!r) return 0;
    std::printf("best %.17g at x %.17g y %.17g after %d evaluations (%d non-finite)\n", r->best_value, r->best[0],
                r->best[1], r->evaluations, r->non_finite);
    if (!r->error.empty()) {
      std::fprintf(stderr, "mpi_search: %s\n", r->error.c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_search: %s\n", e.what());
    return 2;
  }
  return 0;
}
