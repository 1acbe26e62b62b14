// Commands over time: a table of Data::ctrl values for some of a model's actuators,
// linearly interpolated in time — what `maxsim simulate --ctrl-file` reads from a CSV and what a
// Python rollout's control array is. Before the first row the first row's values hold, after the
// last row the last's; at a row's time (within 1e-9 of the rows' spacing), that row's values
// exactly, with no interpolation round-off: a table written at the step times drives the run
// with exactly those commands.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controllers/controller.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Actuator commands over time, linearly interpolated (the table of --ctrl-file).
struct ControlSchedule {
  std::vector<int> actuators;               // per column: the actuator (index into Model::actuators)
  std::vector<double> time;                 // per row, strictly increasing [s]
  std::vector<std::vector<double>> values;  // values[row][column]

  // Writes the columns' commands at time t into ctrl (the other entries are left as they are).
  void apply(double t, std::vector<double>& ctrl) const;
};

// "" when the schedule fits the model (actuator indices in range and not repeated, at least one
// row, times finite and strictly increasing, every row with one finite value per column), else a
// message naming the first problem (row numbers count from 1).
std::string validate_schedule(const Model& model, const ControlSchedule& schedule);

// A controller that sets data.ctrl from the schedule at data.time (shared, read-only: one schedule
// may drive many Data at once).
class ScheduleController : public Controller {
 public:
  // Drives data.ctrl from `schedule`.
  explicit ScheduleController(std::shared_ptr<const ControlSchedule> schedule) : schedule_(std::move(schedule)) {}
  void control(const Model& model, Data& data) override;

 private:
  std::shared_ptr<const ControlSchedule> schedule_;
};

}  // namespace maxsim
