// exo_tune: personalizes the arm exoskeleton's PD gains in simulation (Brüdigam et al. 2023, §5.4,
// Fig. 14d): a sampling-based search (controllers/search.hpp, their Appendix E) over the four gains
// (shoulder_kp, shoulder_kd shared by sAA/sFE/sIE; elbow_kp, elbow_kd) that keeps the elbow motor
// torque under the 5 N·m comfort limit for BOTH patients and tracks the routine as closely as
// possible. Every evaluation runs the full rehabilitation routine (8 s, Δt = 1 ms) for the healthy
// and the spastic patient (robots/exoskeleton/exoskeleton.hpp); the samples of an episode run in
// parallel on all cores. The objective (maximized) is
//
//     − (rms_healthy + rms_spastic) / 2 − 10 · Σ_patients max(0, max_elbow_torque − 4.9 N·m)
//
// (rms: RMS tracking error of the shoulder and elbow flexion joints, rad; 4.9 N·m keeps 2 % of
// margin to the limit; a routine with a failed step scores −∞). The search starts from the
// clinical gains (exo::clinical_gains), which exceed the limit for the spastic patient.
//
//   [mpirun -np K] exo_tune [--episodes N] [--samples S] [--threads T] [--seed K] [--params OUT]
//            [--log OUT.csv] [--progress] [--optimizer sample|nlopt:ALGORITHM|gradient|list]
//
// Under mpirun the samples spread over the ranks with the same files as without
// (tuning/cluster.hpp); --optimizer picks one of NLopt's algorithms (tuning/optimize.hpp), or
// "gradient": --episodes iterations of a gradient ascent whose gradients come from the routines'
// step derivatives (robots/exoskeleton/gradient.hpp; rank 0 only, the two patients on two threads).
//
// Writes the best gains to OUT (default exo_gains.params, rewritten after every improvement and at
// the end with the measured torques and errors as comments) and a CSV row per episode to the log
// (default exo_tune.csv); prints a line per episode and a JSON summary as the last line.
// robots/exoskeleton/gains_tuned.params is a checked-in result (see its header for the command).
//
// Exit status: 0 the tuned gains meet the torque limit and the tracking bound for both patients;
// 1 they do not, or an evaluation threw (reported with its gains; the files hold the best before
// it); 2 bad input.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "controllers/search.hpp"
#include "robots/exoskeleton/exoskeleton.hpp"
#include "robots/exoskeleton/gradient.hpp"
#include "tuning/optimize.hpp"

using namespace maxsim;

namespace {

bool g_quiet = false;  // ranks other than 0 print nothing

int usage(const std::string& msg) {
  if (g_quiet) return 2;
  std::fprintf(stderr,
               "exo_tune: %s\nusage: [mpirun -np K] exo_tune [--episodes N] [--samples S] [--threads T] [--seed K]\n"
               "                [--params OUT] [--log OUT.csv] [--progress] [--optimizer sample|nlopt:ALGORITHM|gradient|list]\n",
               msg.c_str());
  return 2;
}

bool parse_int(const char* s, long lo, long hi, long* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  *out = std::strtol(s, &end, 10);
  return *end == '\0' && *out >= lo && *out <= hi;
}

}  // namespace

int main(int argc, char** argv) try {
  Cluster cluster(argc, argv);
  g_quiet = !cluster.root();
  std::string optimizer = "sample";
  SearchOptions o;
  o.episodes = 30;
  o.samples = 8;
  o.radius = 0.5;
  o.min_radius = 0.02;
  o.max_radius = 2.0;
  o.log_csv = "exo_tune.csv";
  o.best_file = "exo_gains.params";
  o.label = "exo_tune";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    long n = 0;
    if (a == "--episodes") {
      if (!parse_int(v, 0, 100000, &n)) return usage("--episodes needs an integer >= 0");
      o.episodes = static_cast<int>(n);
      ++i;
    } else if (a == "--samples") {
      if (!parse_int(v, 1, 10000, &n)) return usage("--samples needs an integer >= 1");
      o.samples = static_cast<int>(n);
      ++i;
    } else if (a == "--threads") {
      if (!parse_int(v, 0, 1024, &n)) return usage("--threads needs an integer >= 0 (0: all cores)");
      o.threads = static_cast<int>(n);
      ++i;
    } else if (a == "--seed") {
      if (!parse_int(v, 0, std::numeric_limits<long>::max(), &n)) return usage("--seed needs an integer >= 0");
      o.seed = static_cast<std::uint64_t>(n);
      ++i;
    } else if (a == "--params") {
      if (!v || !*v) return usage("--params needs a file");
      o.best_file = v;
      ++i;
    } else if (a == "--log") {
      if (!v || !*v) return usage("--log needs a file");
      o.log_csv = v;
      ++i;
    } else if (a == "--optimizer") {
      if (!v || !*v) return usage("--optimizer needs a name");
      optimizer = v;
      ++i;
    } else if (a == "--progress") {
      o.progress = ProgressBar::Always;
    } else {
      return usage("unknown option '" + a + "'");
    }
  }

  const bool gradient = optimizer == "gradient";
  if (gradient && !cluster.root()) return 0;  // (the gradient search runs on rank 0's threads)
  try {
    if (!gradient && !optimizer_option(cluster, optimizer)) return 0;  // --optimizer list
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  const std::string source = MAXSIM_SOURCE_DIR;
  const exo::Routine routine;
  exo::Exoskeleton healthy, spastic;
  try {
    healthy = exo::load_exoskeleton(source, exo::healthy_patient(), routine.dt);
    spastic = exo::load_exoskeleton(source, exo::spastic_patient(), routine.dt);
  } catch (const std::exception& e) {
    if (!g_quiet) std::fprintf(stderr, "exo_tune: %s\n", e.what());
    return 2;
  }

  const exo::Gains g0 = exo::clinical_gains();
  const std::vector<SearchParameter> params = exo::searched_gains();
  auto gains_of = [](const std::vector<double>& p) { return exo::Gains{p[0], p[1], p[2], p[3]}; };
  const Objective objective = exo::GainsObjective{&healthy, &spastic, routine};
  o.best_file_comments = {"arm exoskeleton PD gains found by exo_tune (robots/examples/exo_tune.cpp)",
                          "objective: -(rms_healthy + rms_spastic)/2 - 10 * sum max(0, elbow torque - 4.9 N m)"};
  o.on_episode = [&](int episode, double best, const std::vector<double>& p) {
    std::printf("episode %3d  objective %.5f  shoulder kp %.1f kd %.2f  elbow kp %.2f kd %.3f\n", episode, best, p[0],
                p[1], p[2], p[3]);
    std::fflush(stdout);
  };

  if (cluster.root())
    std::printf("exo_tune: %s, %d episodes x %d samples, 2 routines each (%g s at dt = %g s), seed %llu, %d rank(s)\n",
                optimizer.c_str(), o.episodes, o.samples, routine.duration, routine.dt,
                static_cast<unsigned long long>(o.seed), cluster.size());
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  SearchResult r;
  exo::GradientSearchResult gr;
  try {
    if (gradient) {  // --episodes gradients, each with its line search
      gr = exo::gradient_search(healthy, spastic, g0, o.episodes, routine);
      r.best = {gr.best.shoulder_kp, gr.best.shoulder_kd, gr.best.elbow_kp, gr.best.elbow_kd};
      r.best_value = gr.best_value;
      r.history = gr.history;
      r.evaluations = gr.evaluations;
      r.improvements = static_cast<int>(gr.history.size()) - 1;
      for (const SearchParameter& p : params) r.names.push_back(p.name);
      for (size_t k = 0; k < gr.history.size(); ++k)
        std::printf("gradient %3zu  objective %.5f\n", k, gr.history[k]);
    }
    std::optional<SearchResult> result = gradient ? std::optional<SearchResult>(r) : optimize(cluster, optimizer, params, objective, o);
    if (!result) return 0;  // a rank that evaluated for rank 0
    r = std::move(*result);
  } catch (const std::exception& e) {
    if (!g_quiet) std::fprintf(stderr, "exo_tune: %s\n", e.what());
    return 2;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const exo::Gains best = gains_of(r.best);
  const exo::Summary h = exo::run_routine(healthy, best, routine), s = exo::run_routine(spastic, best, routine);
  const exo::Summary h0 = exo::run_routine(healthy, g0, routine), s0 = exo::run_routine(spastic, g0, routine);
  char line[4][256];
  if (gradient)
    std::snprintf(line[0], sizeof line[0],
                  "search: gradient, %d gradients (%.1f s) and %d line-search evaluations (%.1f s)", gr.gradients,
                  gr.gradient_time, r.evaluations, gr.evaluation_time);
  else
    std::snprintf(line[0], sizeof line[0], "search: %s, %d episodes x %d samples, seed %llu, %d evaluations",
                  optimizer.c_str(), o.episodes, o.samples, static_cast<unsigned long long>(o.seed), r.evaluations);
  std::snprintf(line[1], sizeof line[1], "healthy: max elbow torque %.3f N m, RMS tracking error %.4f rad", h.max_elbow_torque,
                h.rms_tracking_error);
  std::snprintf(line[2], sizeof line[2], "spastic: max elbow torque %.3f N m, RMS tracking error %.4f rad", s.max_elbow_torque,
                s.rms_tracking_error);
  std::snprintf(line[3], sizeof line[3], "clinical gains: healthy %.3f N m / %.4f rad, spastic %.3f N m / %.4f rad",
                h0.max_elbow_torque, h0.rms_tracking_error, s0.max_elbow_torque, s0.rms_tracking_error);
  if (!o.best_file.empty()) {
    try {
      write_parameters(o.best_file, r.named(),
                       {o.best_file_comments[0], o.best_file_comments[1], line[0], line[1], line[2], line[3]});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "exo_tune: %s\n", e.what());
      return 2;
    }
  }
  for (const char* l : line) std::printf("%s\n", l);
  std::printf("%.1f s wall time on %d rank(s) x %d threads\n", wall, cluster.size(), RolloutPool(o.threads).threads());
  const bool ok = h.max_elbow_torque < exo::kComfortTorque && s.max_elbow_torque < exo::kComfortTorque &&
                  h.rms_tracking_error < exo::kTrackingBound && s.rms_tracking_error < exo::kTrackingBound &&
                  h.failed_steps == 0 && s.failed_steps == 0;
  std::printf("tuned gains %s (elbow torque < %g N m and RMS tracking error < %g rad for both patients)\n",
              ok ? "meet the limits" : "do NOT meet the limits", exo::kComfortTorque, exo::kTrackingBound);
  if (!o.best_file.empty()) std::printf("gains: %s   log: %s\n", o.best_file.c_str(), o.log_csv.c_str());
  std::printf("{\"objective\": %.6g, \"shoulder_kp\": %.10g, \"shoulder_kd\": %.10g, \"elbow_kp\": %.10g, "
              "\"elbow_kd\": %.10g, \"healthy_max_elbow_torque_nm\": %.6g, \"healthy_rms_tracking_error_rad\": %.6g, "
              "\"spastic_max_elbow_torque_nm\": %.6g, \"spastic_rms_tracking_error_rad\": %.6g, \"evaluations\": %d, "
              "\"improvements\": %d, \"wall_time_s\": %.2f, \"meets_limits\": %s}\n",
              r.best_value, best.shoulder_kp, best.shoulder_kd, best.elbow_kp, best.elbow_kd, h.max_elbow_torque,
              h.rms_tracking_error, s.max_elbow_torque, s.rms_tracking_error, r.evaluations, r.improvements, wall,
              ok ? "true" : "false");
  if (!r.error.empty()) {
    std::fprintf(stderr, "exo_tune: %s\n", r.error.c_str());
    return 1;
  }
  return ok ? 0 : 1;
} catch (const std::exception& e) {  // joining the MPI job
  std::fprintf(stderr, "exo_tune: %s\n", e.what());
  return 2;
}
