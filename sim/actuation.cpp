#include "sim/actuation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/constraints/tendon.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/state/kinematics.hpp"

namespace maxsim {

const char* actuator_kind_name(Actuator::Kind kind) {
  switch (kind) {
    case Actuator::Kind::Motor: return "motor";
    case Actuator::Kind::Position: return "position";
    case Actuator::Kind::Velocity: return "velocity";
    case Actuator::Kind::PD: return "pd";
  }
  return "?";
}

double actuator_force(const Actuator& a, double u, double q, double qd, double u_rate, double feedforward) {
  if (a.ctrl_limited) u = std::clamp(u, a.ctrl_lower, a.ctrl_upper);
  const double length = a.gear * q, velocity = a.gear * qd;
  double f = 0;
  switch (a.kind) {
    case Actuator::Kind::Motor: f = u; break;
    case Actuator::Kind::Position: f = a.kp * (u - length) - a.kv * velocity; break;
    case Actuator::Kind::Velocity: f = a.kv * (u - velocity); break;
    case Actuator::Kind::PD: f = a.kp * (u - length) + a.kv * (u_rate - velocity) + feedforward; break;
  }
  if (a.force_limited) f = std::clamp(f, a.force_lower, a.force_upper);
  return f;
}

std::string validate_actuators(const Model& model) {
  const int nj = static_cast<int>(model.joints.size());
  for (const Actuator& a : model.actuators) {
    const std::string who = "actuator '" + a.name + "'";
    if (a.tendon >= 0) {  // a tendon transmission (the tendon's index: validate_tendons)
      if (a.tendon >= static_cast<int>(model.tendons.size())) return who + ": tendon index out of range";
      if (!std::isfinite(a.gear) || !std::isfinite(a.kp) || !std::isfinite(a.kv))
        return who + ": gear and gains must be finite";
      continue;
    }
    if (a.joint < 0 || a.joint >= nj) return who + ": joint index " + std::to_string(a.joint) + " out of range";
    if (!row_has_coordinate(model.joints[a.joint], a.row))
      return who + ": row " + std::to_string(a.row) + " of joint '" + model.joints[a.joint].name +
             "' has no scalar coordinate";
    if (!std::isfinite(a.gear) || !std::isfinite(a.kp) || !std::isfinite(a.kv))
      return who + ": gear and gains must be finite";
    if (a.ctrl_limited && !(a.ctrl_lower <= a.ctrl_upper)) return who + ": ctrl range lower > upper";
    if (a.force_limited && !(a.force_lower <= a.force_upper)) return who + ": force range lower > upper";
  }
  return "";
}

namespace {

// The servo damping the step takes implicitly: kv·gear² on the row when the actuator has a
// velocity gain and its force is not saturated at the start of the step (a saturated force has no
// velocity derivative, as in MuJoCo's implicit integrators); a floating joint's rows take no
// implicit term (its impulse is Δt·force, see Workspace::passive).
double implicit_damping(const Model& model, const Actuator& a, double u, double q, double qd) {
  if (a.kind == Actuator::Kind::Motor || a.kv == 0) return 0;
  if (model.joints[a.joint].type == JointType::Floating) return 0;
  if (a.force_limited) {
    Actuator unlimited = a;
    unlimited.force_limited = false;
    const double f = actuator_force(unlimited, u, q, qd);
    if (f < a.force_lower || f > a.force_upper) return 0;
  }
  return a.kv * a.gear * a.gear;
}

}  // namespace

void apply_actuation(const Model& model, Data& d) {
  const size_t nu = model.actuators.size();
  if (d.ctrl.size() < nu) d.ctrl.resize(nu, 0.0);
  d.actuator_force.assign(nu, 0.0);
  d.row_force = d.joint_force;
  d.row_damping.assign(model.joints.size(), Vec6::Zero());
  d.tendon_force.assign(model.tendons.size(), 0.0);
  if (nu == 0 || !model.actuation) return;
  bool limited = false;
  for (size_t i = 0; i < nu; ++i) {
    const Actuator& a = model.actuators[i];
    if (!std::isfinite(d.ctrl[i]))
      throw std::invalid_argument("ctrl of actuator '" + a.name + "' is not finite");
    if (a.tendon >= 0) {  // along the tendon's length L, from the state at t
      BodyGradient& gradient = workspace(d).tendon_scratch;  // (its storage kept between steps)
      const double length = tendon_length(model, d, a.tendon, &gradient);
      d.actuator_force[i] = actuator_force(a, d.ctrl[i], length, gradient_rate(gradient, d));
      // (a servo without force range acts in the tendon's row at the new state instead: tendon_servo)
      if (!tendon_servo_implicit(a)) d.tendon_force[a.tendon] += a.gear * d.actuator_force[i];
      continue;
    }
    // (row_coordinate checks the joint and row; a motor's force needs neither coordinate, so
    // it is checked without computing them)
    const bool motor = a.kind == Actuator::Kind::Motor && a.joint >= 0 &&
                       a.joint < static_cast<int>(model.joints.size()) && row_has_coordinate(model.joints[a.joint], a.row);
    const RowCoordinate rc = motor ? RowCoordinate{} : row_coordinate(model, d, a.joint, a.row);
    d.actuator_force[i] = actuator_force(a, d.ctrl[i], rc.q, rc.qd);
    const double damping = motor ? 0.0 : implicit_damping(model, a, d.ctrl[i], rc.q, rc.qd);
    if (damping == 0) {
      d.row_force[a.joint](a.row) += a.gear * d.actuator_force[i];
    } else {
      // f = f_rest − kv·gear·q̇: the rest now, the damping at the end of the step (the free row's
      // damper, docs/computation.md (24))
      d.row_force[a.joint](a.row) += a.gear * (d.actuator_force[i] + a.kv * a.gear * rc.qd);
      d.row_damping[a.joint](a.row) += damping;
    }
    limited = limited || model.joints[a.joint].effort[a.row] > 0;
  }
  if (!limited) return;
  // the actuators' sum on a row within the row's effort (the user's joint_force is not limited);
  // a row the limit saturates takes its servos explicitly
  for (const Actuator& a : model.actuators) {
    if (a.tendon >= 0) continue;
    const double effort = model.joints[a.joint].effort[a.row];
    if (!(effort > 0)) continue;
    double& f = d.row_force[a.joint](a.row);
    const double own = d.joint_force[a.joint](a.row);
    if (d.row_damping[a.joint](a.row) != 0) {
      // the row's force with its servos explicit: f − (Σ kv·gear²)·q̇ (the servos share the row's q̇)
      const double total = f - d.row_damping[a.joint](a.row) * row_coordinate(model, d, a.joint, a.row).qd;
      if (std::abs(total - own) <= effort) continue;
      d.row_damping[a.joint](a.row) = 0;
      f = own + std::clamp(total - own, -effort, effort);
      continue;
    }
    f = own + std::clamp(f - own, -effort, effort);
  }
}

}  // namespace maxsim
