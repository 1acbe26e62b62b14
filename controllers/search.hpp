// Sampling-based parameter search (issue 5) in the style of seed 003 App. E / Dojo's quadruped
// example: sample around the current best, keep improvements.
//
// Each episode draws `samples` parameter vectors around the current best p*,
//     p = clip(p* + radius · scale ∘ n),   n ~ N(0, I),
// evaluates them in parallel on a RolloutPool and keeps the best of them if it beats p*
// (strictly; ties go to the lowest sample). The radius adapts like the seed's explore factor:
// after an improvement it grows by `grow` (up to max_radius), after an episode without one it
// shrinks by `shrink` (down to min_radius). After an improvement p_old → p_new, half of the next
// episode's samples (`follow`) continue along d = p_new − p_old with a quarter of the radius as
// noise — Dojo's "bias" step, which walks a ridge faster than isotropic samples.
//
// The objective is maximized (a walking distance); it is called concurrently from the pool's
// threads, so it must be thread-safe and a pure function of the parameters for the search to be
// reproducible. Non-finite values count as −∞ (a failed rollout). All random numbers come from
// one 64-bit Mersenne Twister seeded with `seed`, drawn on the calling thread before each
// episode's evaluations, so the search is identical for any number of threads.
//
// Output: a progress bar on stderr (when stderr is a terminal, or when asked); a CSV log with a
// row per episode (episode 0 = the initial parameters):
//     episode,evaluations,best_value,episode_value,radius,improved
// and the best parameters in a parameter file (controllers/parameters.hpp), rewritten after
// every improvement, so an interrupted search keeps what it found.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "controllers/parameters.hpp"

namespace maxsim {

struct SearchParameter {
  std::string name;
  double value = 0;   // initial value
  double scale = 1;   // sampling standard deviation at radius 1 (the parameter's natural size)
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
};

enum class ProgressBar { Auto, Always, Never };

struct SearchOptions {
  int episodes = 100;
  int samples = 8;           // evaluations per episode (run in parallel)
  double radius = 0.1;       // initial sampling radius (times each parameter's scale)
  double grow = 1.25;        // radius factor after an improvement ...
  double shrink = 0.8;       // ... and after an episode without one
  double min_radius = 1e-3;
  double max_radius = 1.0;
  bool follow = true;        // continue along the last improvement (see above)
  std::uint64_t seed = 1;
  int threads = 0;           // RolloutPool threads (0: all)
  std::string log_csv;       // "" : no log
  std::string best_file;     // "" : not written
  std::vector<std::string> best_file_comments;  // extra header lines of the best file
  ProgressBar progress = ProgressBar::Auto;
  std::string label = "search";
  // Called after each episode (episode, best value, best parameters), e.g. to print a line.
  std::function<void(int, double, const std::vector<double>&)> on_episode;
};

struct SearchResult {
  std::vector<double> best;      // best parameters found
  double best_value = -std::numeric_limits<double>::infinity();
  std::vector<double> history;   // best value after episode 0 (initial), 1, ..., episodes
  int evaluations = 0;
  int improvements = 0;
  NamedValues named() const;     // best parameters with their names (filled by sample_search)
  std::vector<std::string> names;
};

using Objective = std::function<double(const std::vector<double>& parameters)>;

// Runs the search; throws std::invalid_argument on an empty parameter list, a scale <= 0, bounds
// that exclude the initial value, negative episodes or samples < 1.
SearchResult sample_search(const std::vector<SearchParameter>& parameters, const Objective& objective,
                           const SearchOptions& options = {});

}  // namespace maxsim
