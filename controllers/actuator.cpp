#include "controllers/actuator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "controllers/controller.hpp"

namespace maxsim {

const char* actuator_kind_name(ActuatorKind kind) {
  switch (kind) {
    case ActuatorKind::Torque: return "torque";
    case ActuatorKind::Position: return "position";
    case ActuatorKind::Velocity: return "velocity";
    case ActuatorKind::PD: return "pd";
  }
  return "?";
}

double actuator_force(const JointActuator& a, double u, double q, double qd, double u_rate,
                      double feedforward) {
  if (a.ctrl_limited) u = std::clamp(u, a.ctrl_lower, a.ctrl_upper);
  const double length = a.gear * q, velocity = a.gear * qd;
  double f = 0;
  switch (a.kind) {
    case ActuatorKind::Torque: f = u; break;
    case ActuatorKind::Position: f = a.kp * (u - length) - a.kv * velocity; break;
    case ActuatorKind::Velocity: f = a.kv * (u - velocity); break;
    case ActuatorKind::PD: f = a.kp * (u - length) + a.kv * (u_rate - velocity) + feedforward; break;
  }
  if (a.force_limited) f = std::clamp(f, a.force_lower, a.force_upper);
  return f;
}

namespace {

ActuatorKind kind_of(Actuator::Kind k) {
  switch (k) {
    case Actuator::Kind::Position: return ActuatorKind::Position;
    case Actuator::Kind::Velocity: return ActuatorKind::Velocity;
    case Actuator::Kind::Motor:
    case Actuator::Kind::General:  // the MJCF loader folds a general actuator's gain into gear
      return ActuatorKind::Torque;
  }
  return ActuatorKind::Torque;
}

// the row's effort limit (URDF <limit effort>) as the actuator's force limit, if it has none
void limit_by_effort(const Joint& jt, JointActuator* a) {
  const double effort = jt.effort[a->row];
  if (a->force_limited || !(effort > 0) || a->gear == 0) return;
  a->force_limited = true;
  a->force_upper = effort / std::abs(a->gear);
  a->force_lower = -a->force_upper;
}

}  // namespace

std::vector<JointActuator> actuators_from_model(const Model& model) {
  std::vector<JointActuator> out;
  const int nj = static_cast<int>(model.joints.size());
  for (const Actuator& m : model.actuators) {
    JointActuator a;
    a.name = m.name;
    a.kind = kind_of(m.kind);
    a.joint = m.joint;
    a.row = m.row;
    a.gear = m.gear;
    a.kp = m.kp;
    a.kv = m.kv;
    a.ctrl_limited = m.ctrl_limited;
    a.ctrl_lower = m.ctrl_lower;
    a.ctrl_upper = m.ctrl_upper;
    a.force_limited = m.force_limited;
    a.force_lower = m.force_lower;
    a.force_upper = m.force_upper;
    if (a.joint < 0 || a.joint >= nj || !row_has_coordinate(model.joints[a.joint], a.row))
      throw std::invalid_argument("actuator '" + a.name + "' does not drive a joint row with a scalar coordinate");
    limit_by_effort(model.joints[a.joint], &a);
    out.push_back(a);
  }
  if (!model.actuators.empty()) return out;
  for (int j = 0; j < nj; ++j) {  // a model built in code: a motor on every 1-dof joint
    const Joint& jt = model.joints[j];
    if (!jt.actuated) continue;
    JointActuator a;
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

std::vector<JointActuator> as_pd(std::vector<JointActuator> actuators, double kp, double kv) {
  for (JointActuator& a : actuators) {
    a.kind = ActuatorKind::PD;
    a.kp = kp;
    a.kv = kv;
  }
  return actuators;
}

int find_actuator(const Model& model, const std::vector<JointActuator>& actuators,
                  const std::string& name) {
  for (size_t i = 0; i < actuators.size(); ++i)
    if (actuators[i].name == name) return static_cast<int>(i);
  const int j = model.joint_index(name);
  if (j < 0) return -1;
  for (size_t i = 0; i < actuators.size(); ++i)
    if (actuators[i].joint == j) return static_cast<int>(i);
  return -1;
}

void apply_actuators(const Model& model, Data& data, std::span<const JointActuator> actuators,
                     ActuatorCommands& c) {
  const size_t n = actuators.size();
  if (c.ctrl.size() != n)
    throw std::invalid_argument("apply_actuators: " + std::to_string(c.ctrl.size()) + " commands for " +
                                std::to_string(n) + " actuators");
  if (c.force.size() != n) c.force.assign(n, 0.0);
  // rows driven by several actuators sum their forces, so clear them all first
  for (const JointActuator& a : actuators) data.joint_force[a.joint](a.row) = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const JointActuator& a = actuators[i];
    const RowCoordinate rc = row_coordinate(model, data, a.joint, a.row);
    const double rate = i < c.ctrl_rate.size() ? c.ctrl_rate[i] : 0.0;
    const double ff = i < c.feedforward.size() ? c.feedforward[i] : 0.0;
    c.force[i] = model.actuation ? actuator_force(a, c.ctrl[i], rc.q, rc.qd, rate, ff) : 0.0;
    data.joint_force[a.joint](a.row) += a.gear * c.force[i];
  }
}

}  // namespace maxsim
