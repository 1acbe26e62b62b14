// a1_learn: the Unitree A1 learns a trot by sampling-based search (Brüdigam et al. 2023, §5.4 and
// Appendix E): each episode samples gait parameters around the best so far, simulates each sample
// for 10 s at Δt = 1 ms with hard contacts on all cores (controllers/rollout.hpp), and keeps the
// best if it walked farther. The objective is the trunk's forward displacement after 10 s, minus
// 10 m for a fall (controllers/search.hpp, robots/a1/a1_gait.hpp), taken as the worst over
// three conditions (a1::learning_conditions: nominal, μ = 0.6 with a sideways push, μ = 1.0 with
// a diagonal push; --conditions 1 keeps the nominal one only): the walk of a fast gait is chaotic,
// and a gait tuned to one exact trajectory falls when anything changes (a solver tolerance, a
// contact point), so the search must reward gaits that walk under all of them.
//
// Five parameters, as in Dojo's quadruped example: stride frequency, thigh and calf amplitudes and
// offsets; the hips hold 0 and the trot's phases are fixed (controllers/gait.hpp). The start is
// a gentle trot in place (2 Hz, ±0.05 rad).
//
//   [mpirun -np K] a1_learn [--episodes N] [--samples S] [--threads T] [--seed K] [--duration S]
//            [--conditions N] [--init FILE] [--params OUT] [--log OUT.csv] [--progress]
//            [--optimizer sample|nlopt:ALGORITHM|list]
//
// Writes the best parameters to OUT (default a1_gait.params; rewritten after every improvement)
// and the best distance per episode to the CSV log (default a1_learn.csv); prints one line per
// episode. robots/a1/gait.params is a checked-in result of this program. Under mpirun the
// episodes' samples spread over the ranks (T threads each) and the files are byte for byte those
// of the run without mpirun (tuning/cluster.hpp); --optimizer picks NLopt instead of the sampling
// search (tuning/optimize.hpp). Exit status: 0 done, 1 an evaluation threw (reported with its
// parameters; the files hold the best before it), 2 bad input.
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <algorithm>
#include <string>
#include <vector>

#include <chrono>

#include "controllers/search.hpp"
#include "robots/a1/a1_gait.hpp"
#include "tuning/optimize.hpp"

using namespace maxsim;

namespace {

bool g_quiet = false;  // ranks other than 0 print nothing

int usage(const std::string& msg) {
  if (g_quiet) return 2;
  std::fprintf(stderr,
               "a1_learn: %s\nusage: [mpirun -np K] a1_learn [--episodes N] [--samples S] [--threads T] [--seed K]\n"
               "                [--duration S] [--conditions N] [--init FILE] [--params OUT] [--log OUT.csv]\n"
               "                [--progress] [--optimizer sample|nlopt:ALGORITHM|list]\n",
               msg.c_str());
  return 2;
}

bool parse_number(const char* s, double* out) {
  if (!s) return false;
  char* end = nullptr;
  *out = std::strtod(s, &end);
  return *end == '\0' && end != s;
}

}  // namespace

int main(int argc, char** argv) try {
  Cluster cluster(argc, argv);
  g_quiet = !cluster.root();
  SearchOptions o;
  std::string optimizer = "sample";
  o.episodes = 100;
  o.samples = 2;
  o.radius = 1.0;
  o.min_radius = 0.05;
  o.max_radius = 3.0;
  o.log_csv = "a1_learn.csv";
  o.best_file = "a1_gait.params";
  o.label = "a1_learn";
  double duration = 10.0;
  int variants = 3;
  std::string init;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    double x = 0;
    if (a == "--progress") {
      o.progress = ProgressBar::Always;
      continue;
    }
    ++i;
    if (a == "--init" || a == "--params" || a == "--log" || a == "--optimizer") {
      if (!v) return usage(a + (a == "--optimizer" ? " needs a name" : " needs a file"));
      (a == "--init" ? init : a == "--params" ? o.best_file : a == "--log" ? o.log_csv : optimizer) = v;
    } else if (a == "--episodes" || a == "--samples" || a == "--threads" || a == "--seed") {
      if (!parse_number(v, &x) || x < 0 || x != static_cast<long long>(x)) return usage(a + " needs a whole number");
      if (a == "--episodes") o.episodes = static_cast<int>(x);
      if (a == "--samples") o.samples = static_cast<int>(x);
      if (a == "--threads") o.threads = static_cast<int>(x);
      if (a == "--seed") o.seed = static_cast<std::uint64_t>(x);
    } else if (a == "--conditions") {
      if (!parse_number(v, &x) || x < 1 || x > 3 || x != static_cast<int>(x)) return usage("--conditions needs 1, 2 or 3");
      variants = static_cast<int>(x);
    } else if (a == "--duration") {
      if (!parse_number(v, &duration) || !(duration > 0)) return usage("--duration needs a positive number");
    } else {
      return usage("unknown option " + a);
    }
  }
  if (o.samples < 1) return usage("--samples must be at least 1");
  try {
    if (!optimizer_option(cluster, optimizer)) return 0;  // --optimizer list
  } catch (const std::exception& e) {
    return usage(e.what());
  }

  try {
    const a1::Robot robot = a1::load_robot(MAXSIM_SOURCE_DIR);
    a1::GaitObjective objective{&robot, a1::search_start(), duration, variants};
    if (!init.empty()) objective.start = a1::read_gait(init, objective.start);
    const std::vector<SearchParameter> params = objective.parameters();
    o.best_file_comments = {"A1 trot gait parameters (controllers/gait.hpp names), learned by a1_learn",
                            "10 s episodes at dt = 0.001 s, friction 0.8; objective: forward distance in m (-10 if fallen),",
                            "the worst over a1::learning_conditions (nominal, mu 0.6 + push, mu 1.0 + push)"};
    o.on_episode = [&](int episode, double best, const std::vector<double>&) {
      std::printf("%s %3d: best %.3f m\n", optimizer == "sample" ? "episode" : "evaluation", episode, best);
      std::fflush(stdout);
    };
    if (cluster.root())
      std::printf("a1_learn: %s, %d episodes x %d samples x %d conditions of %.1f s, %d rank(s) x %d threads\n",
                  optimizer.c_str(), o.episodes, o.samples, variants, duration, cluster.size(),
                  RolloutPool(o.threads).threads());
    const auto t0 = std::chrono::steady_clock::now();
    const std::optional<SearchResult> result = optimize(cluster, optimizer, params, objective, o);
    if (!result) return 0;  // a rank that evaluated for rank 0
    const SearchResult& r = *result;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%d evaluations in %.1f s: %.3f evaluations/s on %d rank(s); rank 0 exchanged %.0f bytes (%.0f per "
                "episode)\n", r.evaluations, wall, r.evaluations / wall, cluster.size(), cluster.bytes_communicated(),
                cluster.bytes_communicated() / std::max(1, static_cast<int>(r.history.size())));

    const a1::Walk w = a1::walk(robot, objective.gait(r.best), duration);
    std::printf("best after %d evaluations: %.3f m in %.1f s, fell %s, not converged steps %d\n", r.evaluations,
                w.distance, w.duration, w.fell ? "yes" : "no", w.not_converged_steps);
    for (size_t k = 0; k < params.size(); ++k) std::printf("  %s %.6f\n", params[k].name.c_str(), r.best[k]);
    std::printf("parameters: %s, log: %s\n", o.best_file.c_str(), o.log_csv.c_str());
    if (!r.error.empty()) {
      std::fprintf(stderr, "a1_learn: %s\n", r.error.c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    if (!g_quiet) std::fprintf(stderr, "a1_learn: %s\n", e.what());
    return 2;
  }
} catch (const std::exception& e) {  // joining the MPI job
  std::fprintf(stderr, "a1_learn: %s\n", e.what());
  return 2;
}
