// Sampling-based parameter search in the style of Brüdigam et al. (2023), Appendix E, and Dojo's
// quadruped example: sample around the current best, keep improvements.
//
// Each episode draws `samples` parameter vectors around the current best p*,
//     p = clip(p* + radius · scale ∘ n),   n ~ N(0, I),
// evaluates them in parallel on a RolloutPool and keeps the best of them if it beats p*
// (strictly; ties go to the lowest sample). The radius adapts like Dojo's explore factor:
// after an improvement it grows by `grow` (up to max_radius), after an episode without one it
// shrinks by `shrink` (down to min_radius). After an improvement p_old → p_new, half of the next
// episode's samples (`follow`) continue along d = p_new − p_old with a quarter of the radius as
// noise — Dojo's "bias" step, which walks a ridge faster than isotropic samples.
//
// The objective is maximized (a walking distance); it is called concurrently from the pool's
// threads, so it must be thread-safe and a pure function of the parameters for the search to be
// reproducible. Non-finite values count as −∞ (a failed rollout) and are reported on stderr with
// their parameters. All random numbers come from one 64-bit Mersenne Twister seeded with `seed`,
// drawn on the calling thread before each episode's evaluations, which an Evaluator runs
// (controllers/evaluator.hpp: threads, or MPI ranks with tuning/), so the search is identical
// for any number of threads and ranks.
//
// An evaluation that throws stops the search: SearchResult::error names the episode, the sample
// and its parameters, and the result holds the best found before it (the best file is already
// written). NLopt's optimizers run under the same options, log and result (tuning/).
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
#include <memory>
#include <string>
#include <vector>

#include "controllers/evaluator.hpp"
#include "controllers/parameters.hpp"

namespace maxsim {

// One parameter of a search: its name, initial value, scale and bounds.
struct SearchParameter {
  std::string name;   // as in logs and parameter files
  double value = 0;   // initial value
  double scale = 1;   // sampling standard deviation at radius 1 (the parameter's natural size)
  double lower = -std::numeric_limits<double>::infinity();  // lower bound
  double upper = std::numeric_limits<double>::infinity();   // upper bound
};

// When a search draws its progress bar: on a terminal (Auto), always, never.
enum class ProgressBar { Auto, Always, Never };

// How a search runs and what it writes.
struct SearchOptions {
  int episodes = 100;        // episodes after the initial evaluation
  int samples = 8;           // evaluations per episode (run in parallel)
  double radius = 0.1;       // initial sampling radius (times each parameter's scale)
  double grow = 1.25;        // radius factor after an improvement ...
  double shrink = 0.8;       // ... and after an episode without one
  double min_radius = 1e-3;  // the radius never shrinks below this ...
  double max_radius = 1.0;   // ... nor grows beyond this
  bool follow = true;        // continue along the last improvement (see above)
  std::uint64_t seed = 1;    // of the random draws (the same seed, the same search)
  int threads = 0;           // RolloutPool threads (0: all)
  std::string log_csv;       // "" : no log
  std::string best_file;     // "" : not written
  std::vector<std::string> best_file_comments;  // extra header lines of the best file
  ProgressBar progress = ProgressBar::Auto;  // whether to draw a progress bar on stderr
  std::string label = "search";              // the progress bar's label
  // Called after each episode (episode, best value, best parameters), e.g. to print a line.
  std::function<void(int, double, const std::vector<double>&)> on_episode;
};

// What a search found.
struct SearchResult {
  std::vector<double> best;      // best parameters found
  double best_value = -std::numeric_limits<double>::infinity();  // the objective at `best`
  std::vector<double> history;   // best value after episode 0 (initial), 1, ..., episodes
  int evaluations = 0;           // objective evaluations made
  int improvements = 0;          // times the best improved
  int non_finite = 0;            // evaluations whose value was NaN or ±∞ (counted as −∞)
  std::string error;             // why the search stopped early ("" : it ran to the end)
  NamedValues named() const;     // best parameters with their names (filled by sample_search)
  std::vector<std::string> names;  // the parameters' names
};

// Runs the search on `evaluator`; throws std::invalid_argument on an empty parameter list, a
// scale <= 0, bounds that exclude the initial value, negative episodes or samples < 1.
SearchResult sample_search(const std::vector<SearchParameter>& parameters, Evaluator& evaluator,
                           const SearchOptions& options = {});
// The same on a ThreadEvaluator of options.threads threads.
SearchResult sample_search(const std::vector<SearchParameter>& parameters, const Objective& objective,
                           const SearchOptions& options = {});

// The bookkeeping every search shares (sample_search here, NLopt's in tuning/): evaluations
// through the evaluator with non-finite values reported and counted as −∞, the best so far, the
// CSV log row per episode, the best file after every improvement, the progress bar and
// on_episode. The log's `radius` column is 0 for searches without one.
class SearchRecord {
 public:
  // Checks the parameters (see sample_search), opens the log; result().best = initial values;
  // `episodes` is the progress bar's total.
  SearchRecord(const std::vector<SearchParameter>& parameters, const SearchOptions& options, int episodes);
  ~SearchRecord();
  SearchRecord(const SearchRecord&) = delete;
  SearchRecord& operator=(const SearchRecord&) = delete;

  // Evaluates the batch for `episode`; values are finite or −∞. Throws EvaluationError after
  // writing result().error.
  std::vector<double> evaluate(Evaluator& evaluator, const std::vector<std::vector<double>>& points, int episode);
  // Episode 0: `value` is the initial parameters' value (from evaluate()); writes the best file.
  void start(double value, double radius);
  // Takes `point` as the new best if `value` beats the best strictly; writes the best file.
  bool offer(const std::vector<double>& point, double value);
  // Ends an episode: history, log row, progress, on_episode.
  void end_episode(int episode, double episode_value, double radius, bool improved);
  SearchResult& result() { return result_; }
  const std::vector<SearchParameter>& parameters() const { return parameters_; }

 private:
  void write_best() const;
  std::string describe(const std::vector<double>& point) const;
  std::vector<SearchParameter> parameters_;
  const SearchOptions& options_;
  SearchResult result_;
  struct Log;
  std::unique_ptr<Log> log_;
};

}  // namespace maxsim
