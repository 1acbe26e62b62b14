#include "controllers/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace maxsim {

void ControlSchedule::apply(double t, std::vector<double>& ctrl) const {
  if (time.empty()) return;
  // the last row at or before t (the first row before the table starts)
  const size_t next = static_cast<size_t>(std::upper_bound(time.begin(), time.end(), t) - time.begin());
  const size_t row = next == 0 ? 0 : next - 1;
  size_t at = row;  // a row whose values are taken as they are
  double w = 0;
  if (next > 0 && next < time.size()) {
    // within 1e-9 of the interval of a row's time counts as that row's time: a step's time is a
    // sum of Δt (of substeps, when a step was split) and may miss the row's decimal by an ulp
    const double span = time[next] - time[row], from = t - time[row];
    if (from > 1e-9 * span) {
      if (span - from <= 1e-9 * span) at = next;
      else w = from / span;
    }
  }
  for (size_t c = 0; c < actuators.size(); ++c) {
    const double a = values[at][c];
    ctrl[actuators[c]] = w == 0 ? a : a + w * (values[next][c] - a);
  }
}

std::string validate_schedule(const Model& model, const ControlSchedule& s) {
  const int nu = static_cast<int>(model.actuators.size());
  for (size_t c = 0; c < s.actuators.size(); ++c) {
    if (s.actuators[c] < 0 || s.actuators[c] >= nu)
      return "column " + std::to_string(c + 1) + ": actuator index " + std::to_string(s.actuators[c]) +
             " out of range (the model has " + std::to_string(nu) + " actuators)";
    for (size_t o = 0; o < c; ++o)
      if (s.actuators[o] == s.actuators[c])
        return "actuator '" + model.actuators[s.actuators[c]].name + "' has two columns";
  }
  if (s.time.empty()) return "no rows";
  if (s.values.size() != s.time.size())
    return std::to_string(s.time.size()) + " times for " + std::to_string(s.values.size()) + " rows of values";
  for (size_t r = 0; r < s.time.size(); ++r) {
    const std::string row = "row " + std::to_string(r + 1);
    if (!std::isfinite(s.time[r])) return row + ": the time is not a finite number";
    if (r > 0 && !(s.time[r] > s.time[r - 1])) return row + ": times must increase (t = " + std::to_string(s.time[r]) + ")";
    if (s.values[r].size() != s.actuators.size())
      return row + ": " + std::to_string(s.values[r].size()) + " values for " + std::to_string(s.actuators.size()) + " columns";
    for (size_t c = 0; c < s.actuators.size(); ++c)
      if (!std::isfinite(s.values[r][c]))
        return row + ": the value for actuator '" + model.actuators[s.actuators[c]].name + "' is not a finite number";
  }
  return "";
}

void ScheduleController::control(const Model& model, Data& data) {
  if (data.ctrl.size() < model.actuators.size()) data.ctrl.resize(model.actuators.size(), 0.0);
  schedule_->apply(data.time, data.ctrl);
}

}  // namespace maxsim
