#include "controllers/gait.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "sim/model.hpp"

namespace maxsim {

namespace {
constexpr const char* kLegs[4] = {"FR", "FL", "RR", "RL"};
constexpr const char* kJoints[3] = {"hip", "thigh", "calf"};
constexpr double kPi = std::numbers::pi;

// right legs mirror the hip so that a positive hip angle spreads every leg outwards
double mirror(int leg, int joint) { return joint == 0 && (leg == 0 || leg == 2) ? -1.0 : 1.0; }
}  // namespace

std::array<double, 4> gait_leg_phases(GaitPattern pattern) {
  switch (pattern) {
    case GaitPattern::Trot: return {0.0, kPi, kPi, 0.0};
    case GaitPattern::Pace: return {0.0, kPi, 0.0, kPi};
    case GaitPattern::Bound: return {0.0, 0.0, kPi, kPi};
    case GaitPattern::Walk: return {1.5 * kPi, 0.5 * kPi, kPi, 0.0};
  }
  return {0.0, 0.0, 0.0, 0.0};
}

ReferencePoint gait_reference(const GaitParameters& p, int leg, int joint, double t) {
  const double w = 2 * kPi * p.frequency;
  const double arg = w * t + p.leg_phase[leg] + p.joint_phase[joint];
  // the amplitude ramp r(t) and its rate enter the reference rate too
  const double r = p.ramp_time > 0 ? std::min(1.0, std::max(0.0, t) / p.ramp_time) : 1.0;
  const double r_rate = p.ramp_time > 0 && t >= 0 && t < p.ramp_time ? 1.0 / p.ramp_time : 0.0;
  const double a = p.amplitude[joint], s = mirror(leg, joint);
  return ReferencePoint{s * (p.offset[joint] + r * a * std::sin(arg)),
                        s * a * (r * w * std::cos(arg) + r_rate * std::sin(arg))};
}

double& gait_parameter(GaitParameters& p, const std::string& name) {
  if (name == "frequency") return p.frequency;
  if (name == "ramp_time") return p.ramp_time;
  for (int k = 0; k < 3; ++k) {
    const std::string j = kJoints[k];
    if (name == j + "_offset") return p.offset[k];
    if (name == j + "_amplitude") return p.amplitude[k];
    if (name == j + "_phase") return p.joint_phase[k];
  }
  for (int l = 0; l < 4; ++l)
    if (name == std::string(kLegs[l]) + "_phase") return p.leg_phase[l];
  throw std::invalid_argument("unknown gait parameter '" + name + "'");
}

std::vector<std::string> gait_parameter_names() {
  std::vector<std::string> names = {"frequency", "ramp_time"};
  for (const char* suffix : {"_offset", "_amplitude", "_phase"})
    for (const char* j : kJoints) names.push_back(std::string(j) + suffix);
  for (const char* l : kLegs) names.push_back(std::string(l) + "_phase");
  return names;
}

std::array<int, 12> leg_joints(const Model& model) {
  std::array<int, 12> out{};
  for (int l = 0; l < 4; ++l)
    for (int k = 0; k < 3; ++k) {
      const std::string name = std::string(kLegs[l]) + "_" + kJoints[k] + "_joint";
      const std::optional<int> j = model.find_joint(name);
      if (!j) throw std::invalid_argument("gait: the model has no joint '" + name + "'");
      out[3 * l + k] = *j;
    }
  return out;
}

GaitController::GaitController(const Model& model, const std::vector<Actuator>& actuators,
                               const GaitParameters& parameters, const GaitGains& gains)
    : params_(parameters), commands_(12) {
  const std::array<int, 12> joints = leg_joints(model);
  for (int i = 0; i < 12; ++i) {
    const int j = joints[i];
    int found = -1;
    for (size_t a = 0; a < actuators.size() && found < 0; ++a)
      if (actuators[a].joint == j) found = static_cast<int>(a);
    if (found < 0) throw std::invalid_argument("gait: no actuator drives joint '" + model.joints[j].name + "'");
    Actuator a = actuators[found];
    a.kind = Actuator::Kind::PD;
    a.kp = gains.kp[i % 3];
    a.kv = gains.kv[i % 3];
    actuators_.push_back(a);
  }
}

void GaitController::control(const Model& model, Data& data) {
  for (int i = 0; i < 12; ++i) {
    const ReferencePoint r = gait_reference(params_, i / 3, i % 3, data.time);
    commands_.ctrl[i] = r.q;
    commands_.ctrl_rate[i] = r.qd;
  }
  apply_actuators(model, data, actuators_, commands_);
}

std::array<double, 12> GaitController::standing_pose() const {
  std::array<double, 12> q{};
  for (int i = 0; i < 12; ++i) q[i] = gait_reference(params_, i / 3, i % 3, 0.0).q;
  return q;
}

}  // namespace maxsim
