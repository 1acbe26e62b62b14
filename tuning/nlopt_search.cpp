// NLopt's derivative-free algorithms behind optimize() (tuning/optimize.hpp); built only with NLopt.
#include <nlopt.h>

#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>

#include "tuning/optimize.hpp"

namespace maxsim {

namespace {

constexpr double kFailedValue = -1e30;  // what NLopt sees for a non-finite value

struct Run {
  SearchRecord* record;
  Evaluator* evaluator;
  nlopt_opt opt;
  std::vector<double> initial;
  double initial_value;
  int budget;  // evaluations after the initial one
  int episode = 0;
  bool failed = false;
  std::exception_ptr pending = nullptr;  // an exception of the record (a best file that cannot be written)
};

double evaluate(unsigned n, const double* x, Run& run);

// NLopt is C: no exception may cross it, so one is kept and rethrown after nlopt_optimize.
double callback(unsigned n, const double* x, double* gradient, void* data) {
  (void)gradient;  // derivative-free algorithms only
  Run& run = *static_cast<Run*>(data);
  try {
    return evaluate(n, x, run);
  } catch (...) {
    run.pending = std::current_exception();
    nlopt_force_stop(run.opt);
    return kFailedValue;
  }
}

double evaluate(unsigned n, const double* x, Run& run) {
  std::vector<double> point(x, x + n);
  if (point == run.initial) return std::isfinite(run.initial_value) ? run.initial_value : kFailedValue;
  if (run.episode >= run.budget) {
    nlopt_force_stop(run.opt);
    return kFailedValue;
  }
  ++run.episode;
  double value;
  try {
    value = run.record->evaluate(*run.evaluator, {point}, run.episode)[0];
  } catch (const EvaluationError&) {
    run.failed = true;  // the record holds the message
    nlopt_force_stop(run.opt);
    return kFailedValue;
  }
  const bool improved = run.record->offer(point, value);
  run.record->end_episode(run.episode, value, 0, improved);
  if (run.episode >= run.budget) nlopt_force_stop(run.opt);
  return std::isfinite(value) ? value : kFailedValue;
}

}  // namespace

SearchResult nlopt_search(const std::string& algorithm, const std::vector<SearchParameter>& params,
                          Evaluator& evaluator, const SearchOptions& o) {
  check_optimizer("nlopt:" + algorithm);  // one of optimizer_names(): derivative-free, runs alone
  const nlopt_algorithm a = nlopt_algorithm_from_string(algorithm.c_str());
  if (o.episodes < 0 || o.samples < 1) throw std::invalid_argument(o.label + ": episodes >= 0 and samples >= 1 needed");
  const bool global = algorithm.rfind("GN_", 0) == 0;
  for (const SearchParameter& p : params)
    if (global && !(std::isfinite(p.lower) && std::isfinite(p.upper)))
      throw std::invalid_argument("nlopt:" + algorithm + " is global and needs finite bounds; parameter '" + p.name +
                                  "' has none");
  const int budget = o.episodes * o.samples;
  SearchRecord record(params, o, budget);
  SearchResult& result = record.result();
  const double initial = [&] {
    try {
      return record.evaluate(evaluator, {result.best}, 0)[0];
    } catch (const EvaluationError&) {
      return std::numeric_limits<double>::quiet_NaN();
    }
  }();
  if (!result.error.empty()) return result;
  record.start(initial, 0);

  const unsigned n = static_cast<unsigned>(params.size());
  nlopt_opt opt = nlopt_create(a, n);
  if (!opt) throw std::runtime_error("nlopt:" + algorithm + ": cannot be created");
  std::vector<double> lower(n), upper(n), step(n), x = result.best;
  for (unsigned k = 0; k < n; ++k) {
    lower[k] = params[k].lower;
    upper[k] = params[k].upper;
    step[k] = o.radius * params[k].scale;
  }
  Run run{&record, &evaluator, opt, result.best, initial, budget};
  nlopt_srand(o.seed);
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_max_objective(opt, callback, &run);
  nlopt_set_maxeval(opt, budget + 1);  // + the initial point, if asked again
  if (!global) nlopt_set_initial_step(opt, step.data());
  double best = 0;
  if (budget > 0) nlopt_optimize(opt, x.data(), &best);  // its result is the record's best
  nlopt_destroy(opt);
  if (run.pending) std::rethrow_exception(run.pending);
  return result;
}

}  // namespace maxsim
