// What a run of steps did, in aggregate: step(model, data, n), rollouts, the `maxsim` command and
// Python report every step's outcome through it, not only the last one's, so that a step that
// failed, did not converge or needed a fallback stays visible when the run ends well.
#pragma once

#include <limits>

#include "sim/data.hpp"

namespace maxsim {

// Counts over a run of steps, filled one step at a time by add().
struct StepSummary {
  long long steps = 0;                // steps taken (a Failed one included)
  long long failed_steps = 0;         // StepStatus::Failed: the state was left as it was
  long long not_converged_steps = 0;  // StepStatus::NotConverged: the state advanced approximately
  long long relaxed_steps = 0;        // solved (in a substep) by a relaxed fallback (StepReport::relaxed)
  long long substepped_steps = 0;     // retried as smaller substeps (StepReport::substeps)
  long long iterations_total = 0;     // Newton / interior-point iterations of all steps, every attempt
  int iterations_max = 0;             // iterations of the step that took the most
  double residual_max = 0;            // largest ‖residual‖∞ a step ended with
  // Data::time at the start of the first step that did not end Ok, and of the first relaxed
  // step (NaN: none)
  double first_not_ok_time = std::numeric_limits<double>::quiet_NaN();
  double first_relaxed_time = std::numeric_limits<double>::quiet_NaN();
  StepReport last;  // the last step's report (Data::report)

  // Counts one step: its report, and Data::time when it started.
  void add(const StepReport& report, double start_time);
  // Adds another run's counts (the later run second: its last report becomes this one's).
  void merge(const StepSummary& later);
  // No step failed or stopped short of convergence (relaxed and substepped steps converged).
  bool ok() const { return failed_steps == 0 && not_converged_steps == 0; }
  double iterations_mean() const { return steps ? static_cast<double>(iterations_total) / static_cast<double>(steps) : 0.0; }
};

}  // namespace maxsim
