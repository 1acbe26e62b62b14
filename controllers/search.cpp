#include "controllers/search.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <random>
#include <stdexcept>

#include "controllers/rollout.hpp"

namespace maxsim {

namespace {

// Standard normal numbers from the raw 64-bit Mersenne Twister by Box–Muller: unlike
// std::normal_distribution (implementation-defined), the same on every standard library.
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : rng_(seed) {}
  double operator()() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }

 private:
  double uniform() { return (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53; }  // (0, 1]
  std::mt19937_64 rng_;
  double spare_ = 0;
  bool has_spare_ = false;
};

class Progress {
 public:
  Progress(ProgressBar mode, std::string label, int total)
      : on_(mode == ProgressBar::Always || (mode == ProgressBar::Auto && isatty(STDERR_FILENO))),
        label_(std::move(label)),
        total_(total) {}
  void show(int episode, double best, double radius) const {
    if (!on_) return;
    constexpr int width = 30;
    const int filled = total_ > 0 ? width * episode / total_ : width;
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r%s [%s] %d/%d  best %.6g  radius %.3g ", label_.c_str(), bar.c_str(), episode,
                 total_, best, radius);
    std::fflush(stderr);
  }
  void done() const {
    if (on_) std::fputc('\n', stderr);
  }

 private:
  bool on_;
  std::string label_;
  int total_;
};

}  // namespace

NamedValues SearchResult::named() const {
  NamedValues out;
  for (size_t k = 0; k < best.size() && k < names.size(); ++k) out.emplace_back(names[k], best[k]);
  return out;
}

struct SearchRecord::Log {
  std::ofstream csv;
  Progress progress;
};

SearchRecord::SearchRecord(const std::vector<SearchParameter>& params, const SearchOptions& o, int episodes)
    : parameters_(params), options_(o) {
  if (params.empty()) throw std::invalid_argument(o.label + ": no parameters");
  for (const SearchParameter& p : params) {
    if (!(p.scale > 0)) throw std::invalid_argument(o.label + ": parameter '" + p.name + "' needs a scale > 0");
    if (!(p.value >= p.lower && p.value <= p.upper))
      throw std::invalid_argument(o.label + ": parameter '" + p.name + "' starts outside its bounds");
    result_.best.push_back(p.value);
    result_.names.push_back(p.name);
  }
  log_ = std::make_unique<Log>(Log{{}, Progress(o.progress, o.label, episodes)});
  if (!o.log_csv.empty()) {
    log_->csv.open(o.log_csv);
    if (!log_->csv) throw std::runtime_error(o.log_csv + ": cannot write the search log");
    log_->csv << "episode,evaluations,best_value,episode_value,radius,improved\n" << std::flush;
  }
}

SearchRecord::~SearchRecord() { log_->progress.done(); }

std::string SearchRecord::describe(const std::vector<double>& point) const {
  std::string s;
  char number[32];
  for (size_t k = 0; k < point.size() && k < parameters_.size(); ++k) {
    std::snprintf(number, sizeof number, " %.17g", point[k]);
    s += (k ? ", " : "") + parameters_[k].name + number;
  }
  return s;
}

std::vector<double> SearchRecord::evaluate(Evaluator& evaluator, const std::vector<std::vector<double>>& points,
                                           int episode) {
  std::vector<double> values;
  try {
    values = evaluator.evaluate(points);
  } catch (const EvaluationError& e) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the evaluation of episode %d's sample %d (evaluation %d) threw: ", episode,
                  e.index, result_.evaluations + e.index + 1);
    result_.error = buf + std::string(e.what()) + "\n  parameters: " + describe(e.point) +
                    "\n  the search stopped there; the best found before it";
    std::snprintf(buf, sizeof buf, " (value %.17g after %d evaluations)", result_.best_value, result_.evaluations);
    result_.error += buf;
    if (!options_.best_file.empty()) result_.error += " is in " + options_.best_file;
    throw;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    ++result_.non_finite;
    std::fprintf(stderr, "%s: evaluation %d (episode %d, sample %zu) gave %g, counted as -inf; parameters: %s\n",
                 options_.label.c_str(), result_.evaluations + static_cast<int>(i) + 1, episode, i, values[i],
                 describe(points[i]).c_str());
    values[i] = -std::numeric_limits<double>::infinity();
  }
  result_.evaluations += static_cast<int>(points.size());
  return values;
}

void SearchRecord::start(double value, double radius) {
  result_.best_value = value;
  write_best();
  end_episode(0, value, radius, false);
}

bool SearchRecord::offer(const std::vector<double>& point, double value) {
  if (!(value > result_.best_value)) return false;
  result_.best = point;
  result_.best_value = value;
  write_best();
  return true;
}

void SearchRecord::write_best() const {
  if (options_.best_file.empty()) return;
  std::vector<std::string> comments = options_.best_file_comments;
  char buf[128];
  std::snprintf(buf, sizeof buf, "best value %.17g after %d evaluations", result_.best_value, result_.evaluations);
  comments.push_back(buf);
  write_parameters(options_.best_file, result_.named(), comments);
}

void SearchRecord::end_episode(int episode, double episode_value, double radius, bool improved) {
  if (episode > 0 && improved) ++result_.improvements;
  result_.history.push_back(result_.best_value);
  if (log_->csv.is_open()) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%d,%d,%.17g,%.17g,%.17g,%d\n", episode, result_.evaluations, result_.best_value,
                  episode_value, radius, improved ? 1 : 0);
    log_->csv << buf << std::flush;
  }
  log_->progress.show(episode, result_.best_value, radius);
  if (options_.on_episode) options_.on_episode(episode, result_.best_value, result_.best);
}

SearchResult sample_search(const std::vector<SearchParameter>& params, const Objective& objective,
                           const SearchOptions& o) {
  if (!objective) throw std::invalid_argument(o.label + ": no objective");
  ThreadEvaluator evaluator(objective, o.threads);
  return sample_search(params, evaluator, o);
}

SearchResult sample_search(const std::vector<SearchParameter>& params, Evaluator& evaluator, const SearchOptions& o) {
  if (o.episodes < 0 || o.samples < 1) throw std::invalid_argument(o.label + ": episodes >= 0 and samples >= 1 needed");
  SearchRecord record(params, o, o.episodes);
  SearchResult& result = record.result();
  const size_t n = params.size();
  Normal normal(o.seed);
  double radius = std::clamp(o.radius, o.min_radius, o.max_radius);
  try {
    // episode 0: the initial parameters
    const double initial = record.evaluate(evaluator, {result.best}, 0)[0];
    record.start(initial, radius);

    std::vector<double> direction;  // last improvement, empty if the last episode did not improve
    std::vector<std::vector<double>> samples(o.samples, std::vector<double>(n));
    for (int episode = 1; episode <= o.episodes; ++episode) {
      // draw every sample on this thread first: the random stream does not depend on workers
      const int follow = o.follow && !direction.empty() ? (o.samples + 1) / 2 : 0;
      for (int s = 0; s < o.samples; ++s) {
        for (size_t k = 0; k < n; ++k) {
          const double noise = normal() * params[k].scale;
          double v = s < follow ? result.best[k] + direction[k] + 0.25 * radius * noise
                                : result.best[k] + radius * noise;
          samples[s][k] = std::clamp(v, params[k].lower, params[k].upper);
        }
      }
      const std::vector<double> values = record.evaluate(evaluator, samples, episode);
      // the best sample, ties to the lowest index
      const int best_s = static_cast<int>(std::max_element(values.begin(), values.end()) - values.begin());
      const std::vector<double> old_best = result.best;
      const bool improved = record.offer(samples[best_s], values[best_s]);
      if (improved) {
        direction.resize(n);
        for (size_t k = 0; k < n; ++k) direction[k] = samples[best_s][k] - old_best[k];
        radius = std::min(o.max_radius, radius * o.grow);
      } else {
        direction.clear();
        radius = std::max(o.min_radius, radius * o.shrink);
      }
      record.end_episode(episode, values[best_s], radius, improved);
    }
  } catch (const EvaluationError&) {
    // result.error says which evaluation threw; the result holds the best before it
  }
  return result;
}

}  // namespace maxsim
