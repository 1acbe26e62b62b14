#include "sim/step_summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/step.hpp"

namespace maxsim {

void StepSummary::add(const StepReport& r, double start_time) {
  ++steps;
  if (r.status == StepStatus::Failed) ++failed_steps;
  if (r.status == StepStatus::NotConverged) ++not_converged_steps;
  if (r.relaxed) ++relaxed_steps;
  if (r.substeps) ++substepped_steps;
  iterations_total += r.iterations;
  iterations_max = std::max(iterations_max, r.iterations);
  if (std::isfinite(r.residual)) residual_max = std::max(residual_max, r.residual);
  if (r.status != StepStatus::Ok && std::isnan(first_not_ok_time)) first_not_ok_time = start_time;
  if (r.relaxed && std::isnan(first_relaxed_time)) first_relaxed_time = start_time;
  last = r;
}

void StepSummary::merge(const StepSummary& later) {
  if (later.steps == 0) return;
  steps += later.steps;
  failed_steps += later.failed_steps;
  not_converged_steps += later.not_converged_steps;
  relaxed_steps += later.relaxed_steps;
  substepped_steps += later.substepped_steps;
  iterations_total += later.iterations_total;
  iterations_max = std::max(iterations_max, later.iterations_max);
  residual_max = std::max(residual_max, later.residual_max);
  if (std::isnan(first_not_ok_time)) first_not_ok_time = later.first_not_ok_time;
  if (std::isnan(first_relaxed_time)) first_relaxed_time = later.first_relaxed_time;
  last = later.last;
}

StepSummary step(const Model& model, Data& data, long long n) {
  if (n < 0) throw std::invalid_argument("step: the number of steps must be >= 0, not " + std::to_string(n));
  StepSummary s;
  s.last = data.report;
  for (long long k = 0; k < n; ++k) {
    const double t = data.time;
    s.add(step(model, data), t);
    // a failed step leaves the state as it was: the following ones would fail alike
    if (s.last.status == StepStatus::Failed) break;
  }
  return s;
}

}  // namespace maxsim
