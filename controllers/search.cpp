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

double finite_or_minus_inf(double v) { return std::isfinite(v) ? v : -std::numeric_limits<double>::infinity(); }

}  // namespace

NamedValues SearchResult::named() const {
  NamedValues out;
  for (size_t k = 0; k < best.size() && k < names.size(); ++k) out.emplace_back(names[k], best[k]);
  return out;
}

SearchResult sample_search(const std::vector<SearchParameter>& params, const Objective& objective,
                           const SearchOptions& o) {
  const size_t n = params.size();
  if (n == 0) throw std::invalid_argument("sample_search: no parameters");
  if (o.episodes < 0 || o.samples < 1) throw std::invalid_argument("sample_search: episodes >= 0 and samples >= 1 needed");
  if (!objective) throw std::invalid_argument("sample_search: no objective");
  for (const SearchParameter& p : params) {
    if (!(p.scale > 0)) throw std::invalid_argument("sample_search: parameter '" + p.name + "' needs a scale > 0");
    if (!(p.value >= p.lower && p.value <= p.upper))
      throw std::invalid_argument("sample_search: parameter '" + p.name + "' starts outside its bounds");
  }

  SearchResult result;
  for (const SearchParameter& p : params) {
    result.best.push_back(p.value);
    result.names.push_back(p.name);
  }
  const RolloutPool pool(o.threads);
  Normal normal(o.seed);
  std::ofstream log;
  if (!o.log_csv.empty()) {
    log.open(o.log_csv);
    if (!log) throw std::runtime_error(o.log_csv + ": cannot write the search log");
    log << "episode,evaluations,best_value,episode_value,radius,improved\n";
  }
  auto write_best = [&] {
    if (o.best_file.empty()) return;
    std::vector<std::string> comments = o.best_file_comments;
    char buf[128];
    std::snprintf(buf, sizeof buf, "best value %.17g after %d evaluations", result.best_value, result.evaluations);
    comments.push_back(buf);
    write_parameters(o.best_file, result.named(), comments);
  };
  auto log_row = [&](int episode, double episode_value, double radius, bool improved) {
    if (!log.is_open()) return;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%d,%d,%.17g,%.17g,%.17g,%d\n", episode, result.evaluations, result.best_value,
                  episode_value, radius, improved ? 1 : 0);
    log << buf << std::flush;
  };

  // episode 0: the initial parameters
  result.best_value = finite_or_minus_inf(objective(result.best));
  result.evaluations = 1;
  result.history.push_back(result.best_value);
  double radius = std::clamp(o.radius, o.min_radius, o.max_radius);
  log_row(0, result.best_value, radius, false);
  write_best();
  const Progress progress(o.progress, o.label, o.episodes);
  progress.show(0, result.best_value, radius);
  if (o.on_episode) o.on_episode(0, result.best_value, result.best);

  std::vector<double> direction;  // last improvement, empty if the last episode did not improve
  std::vector<std::vector<double>> samples(o.samples, std::vector<double>(n));
  std::vector<double> values(o.samples);
  for (int episode = 1; episode <= o.episodes; ++episode) {
    // draw every sample on this thread first: the random stream does not depend on threads
    const int follow = o.follow && !direction.empty() ? (o.samples + 1) / 2 : 0;
    for (int s = 0; s < o.samples; ++s) {
      for (size_t k = 0; k < n; ++k) {
        const double noise = normal() * params[k].scale;
        double v = s < follow ? result.best[k] + direction[k] + 0.25 * radius * noise
                              : result.best[k] + radius * noise;
        samples[s][k] = std::clamp(v, params[k].lower, params[k].upper);
      }
    }
    pool.for_each(o.samples, [&](int s) { values[s] = finite_or_minus_inf(objective(samples[s])); });
    result.evaluations += o.samples;

    const int best_s = static_cast<int>(std::max_element(values.begin(), values.end()) - values.begin());
    const bool improved = values[best_s] > result.best_value;
    if (improved) {
      direction.resize(n);
      for (size_t k = 0; k < n; ++k) direction[k] = samples[best_s][k] - result.best[k];
      result.best = samples[best_s];
      result.best_value = values[best_s];
      ++result.improvements;
      radius = std::min(o.max_radius, radius * o.grow);
      write_best();
    } else {
      direction.clear();
      radius = std::max(o.min_radius, radius * o.shrink);
    }
    result.history.push_back(result.best_value);
    log_row(episode, values[best_s], radius, improved);
    progress.show(episode, result.best_value, radius);
    if (o.on_episode) o.on_episode(episode, result.best_value, result.best);
  }
  progress.done();
  return result;
}

}  // namespace maxsim
