#include "controllers/joint_pd.hpp"

#include <cmath>
#include <stdexcept>

namespace maxsim {

JointPdController::JointPdController(std::vector<Actuator> actuators)
    : actuators_(std::move(actuators)),
      references_(actuators_.size()),
      commands_(actuators_.size()),
      peak_(actuators_.size(), 0.0) {}

void JointPdController::set_reference(int actuator, Reference reference) {
  if (actuator < 0 || actuator >= static_cast<int>(actuators_.size()))
    throw std::invalid_argument("set_reference: actuator index out of range");
  references_[actuator] = std::move(reference);
}

void JointPdController::set_reference(const Model& model, const std::string& name, Reference reference) {
  const int i = find_actuator(model, actuators_, name);
  if (i < 0) throw std::invalid_argument("set_reference: no actuator named or driving '" + name + "'");
  set_reference(i, std::move(reference));
}

void JointPdController::control(const Model& model, Data& data) {
  for (size_t i = 0; i < actuators_.size(); ++i) {
    if (!references_[i]) continue;
    const ReferencePoint r = references_[i](data.time);
    // a velocity servo tracks the rate; every other kind takes the position (or torque) value
    commands_.ctrl[i] = actuators_[i].kind == Actuator::Kind::Velocity ? r.qd : r.q;
    commands_.ctrl_rate[i] = r.qd;
  }
  apply_actuators(model, data, actuators_, commands_);
  for (size_t i = 0; i < actuators_.size(); ++i) peak_[i] = std::max(peak_[i], std::abs(commands_.force[i]));
}

void JointPdController::reset_peaks() { std::fill(peak_.begin(), peak_.end(), 0.0); }

SinusoidTracker::SinusoidTracker(std::vector<Actuator> actuators, const std::vector<Sinusoid>& sinusoids)
    : JointPdController(std::move(actuators)) {
  if (sinusoids.size() != this->actuators().size())
    throw std::invalid_argument("SinusoidTracker: one sinusoid per actuator expected");
  for (size_t i = 0; i < sinusoids.size(); ++i) set_reference(static_cast<int>(i), sinusoid_reference(sinusoids[i]));
}

}  // namespace maxsim
