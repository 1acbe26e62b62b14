#include "controllers/evaluator.hpp"

#include <limits>

#include "controllers/rollout.hpp"

namespace maxsim {

void evaluate_points(const Objective& objective, const std::vector<std::vector<double>>& points,
                     const std::vector<int>& indices, int threads, std::vector<double>& values,
                     std::vector<std::string>& errors) {
  values.resize(points.size(), std::numeric_limits<double>::quiet_NaN());
  errors.resize(points.size());
  RolloutPool(threads).for_each(static_cast<int>(indices.size()), [&](int k) {
    const int i = indices[k];
    try {
      values[i] = objective(points[i]);
    } catch (const std::exception& e) {
      values[i] = std::numeric_limits<double>::quiet_NaN();
      errors[i] = e.what()[0] ? e.what() : "an exception without a message";
    } catch (...) {
      values[i] = std::numeric_limits<double>::quiet_NaN();
      errors[i] = "an exception that is not a std::exception";
    }
  });
}

ThreadEvaluator::ThreadEvaluator(Objective objective, int threads)
    : objective_(std::move(objective)), threads_(RolloutPool(threads).threads()) {
  if (!objective_) throw std::invalid_argument("ThreadEvaluator: no objective");
}

std::vector<double> ThreadEvaluator::evaluate(const std::vector<std::vector<double>>& points) {
  std::vector<int> all(points.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  std::vector<double> values;
  std::vector<std::string> errors;
  evaluate_points(objective_, points, all, threads_, values, errors);
  for (size_t i = 0; i < errors.size(); ++i)
    if (!errors[i].empty()) throw EvaluationError(static_cast<int>(i), points[i], errors[i]);
  return values;
}

}  // namespace maxsim
