#include "controllers/actuator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "controllers/controller.hpp"

namespace maxsim {

namespace {

// the row's effort limit (URDF <limit effort>) as the actuator's force limit, if it has none
void limit_by_effort(const Joint& jt, Actuator* a) {
  const double effort = jt.effort[a->row];
  if (a->force_limited || !(effort > 0) || a->gear == 0) return;
  a->force_limited = true;
  a->force_upper = effort / std::abs(a->gear);
  a->force_lower = -a->force_upper;
}

}  // namespace

std::vector<Actuator> actuators_from_model(const Model& model) {
  std::vector<Actuator> out;
  const int nj = static_cast<int>(model.joints.size());
  for (const Actuator& m : model.actuators) {
    if (m.tendon >= 0) continue;  // (controllers drive joint rows; a tendon's actuator is Data::ctrl's)
    Actuator a = m;
    if (a.joint < 0 || a.joint >= nj || !row_has_coordinate(model.joints[a.joint], a.row))
      throw std::invalid_argument("actuator '" + a.name + "' does not drive a joint row with a scalar coordinate");
    limit_by_effort(model.joints[a.joint], &a);
    out.push_back(a);
  }
  if (!model.actuators.empty()) return out;
  for (int j = 0; j < nj; ++j) {  // a model built in code: a motor on every 1-dof joint
    const Joint& jt = model.joints[j];
    if (!jt.actuated) continue;
    Actuator a;
    if (jt.type == JointType::Revolute) a.row = 5;
    else if (jt.type == JointType::Prismatic) a.row = 2;
    else continue;
    a.name = jt.name;
    a.joint = j;
    limit_by_effort(jt, &a);
    out.push_back(a);
  }
  return out;
}

std::vector<Actuator> as_pd(std::vector<Actuator> actuators, double kp, double kv) {
  for (Actuator& a : actuators) {
    a.kind = Actuator::Kind::PD;
    a.kp = kp;
    a.kv = kv;
  }
  return actuators;
}

int find_actuator(const Model& model, const std::vector<Actuator>& actuators,
                  const std::string& name) {
  for (size_t i = 0; i < actuators.size(); ++i)
    if (actuators[i].name == name) return static_cast<int>(i);
  const std::optional<int> j = model.find_joint(name);
  if (!j) return -1;
  // a row known by its own name (Joint::row_names): the actuator on that row
  const std::optional<std::pair<int, int>> row = model.joints[*j].name == name ? std::nullopt : model.find_joint_row(name);
  for (size_t i = 0; i < actuators.size(); ++i)
    if (actuators[i].joint == *j && (!row || actuators[i].row == row->second)) return static_cast<int>(i);
  return -1;
}

void apply_actuators(const Model& model, Data& data, std::span<const Actuator> actuators,
                     ActuatorCommands& c) {
  const size_t n = actuators.size();
  if (c.ctrl.size() != n)
    throw std::invalid_argument("apply_actuators: " + std::to_string(c.ctrl.size()) + " commands for " +
                                std::to_string(n) + " actuators");
  if (c.force.size() != n) c.force.assign(n, 0.0);
  // rows driven by several actuators sum their forces, so clear them all first
  for (const Actuator& a : actuators) data.joint_force[a.joint](a.row) = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const Actuator& a = actuators[i];
    const RowCoordinate rc = row_coordinate(model, data, a.joint, a.row);
    const double rate = i < c.ctrl_rate.size() ? c.ctrl_rate[i] : 0.0;
    const double ff = i < c.feedforward.size() ? c.feedforward[i] : 0.0;
    c.force[i] = model.actuation ? actuator_force(a, c.ctrl[i], rc.q, rc.qd, rate, ff) : 0.0;
    data.joint_force[a.joint](a.row) += a.gear * c.force[i];
  }
}

}  // namespace maxsim
