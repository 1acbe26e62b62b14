#include "controllers/rollout.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "sim/geometry/contact_search.hpp"
#include "sim/step.hpp"

namespace maxsim {

RolloutResult run_rollout(const Model& model, const RolloutTask& task, int index) {
  if (!task.setup) throw std::invalid_argument("RolloutTask: no setup function");
  Data data(model);
  task.setup(model, data, index);
  RolloutResult result;
  RolloutStats& s = result.stats;
  s.max_penetration = max_penetration(data);
  for (int k = 0; k < task.steps; ++k) {
    const double t = data.time;
    const StepReport r = step(model, data);
    s.summary.add(r, t);
    if (r.status == StepStatus::Failed) {
      s.failed = 1;
      break;
    }
    ++s.steps;
    if (r.status == StepStatus::NotConverged) ++s.not_converged;
    s.max_penetration = std::max(s.max_penetration, max_penetration(data));
    if (task.keep_going && !task.keep_going(model, data, index)) {
      s.stopped = true;
      break;
    }
  }
  if (task.evaluate) result.value = task.evaluate(model, data, s, index);
  return result;
}

RolloutPool::RolloutPool(int threads) : threads_(threads > 0 ? threads : std::max(1, omp_get_max_threads())) {}

void RolloutPool::for_each(int n, const std::function<void(int)>& job) const {
  if (n <= 0) return;
  std::vector<std::exception_ptr> errors(n);
  const int threads = std::min(threads_, n);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
  for (int i = 0; i < n; ++i) {
    try {
      job(i);
    } catch (...) {
      errors[i] = std::current_exception();  // exceptions must not leave an OpenMP region
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<RolloutResult> RolloutPool::run(const Model& model, const RolloutTask& task, int count) const {
  std::vector<RolloutResult> results(std::max(0, count));
  for_each(count, [&](int i) { results[i] = run_rollout(model, task, i); });
  return results;
}

}  // namespace maxsim
