// Actuator models (issue 5): what turns a command into the actuation on a joint row.
//
// An actuator drives one free joint row (a revolute angle or a prismatic offset) through a
// transmission of ratio `gear`, as MuJoCo's joint actuators do: with the row's minimal coordinate
// q and rate q̇ (controllers/controller.hpp, row_coordinate), the actuator length is l = gear·q
// and its velocity l̇ = gear·q̇; the command u is clamped to [ctrl_lower, ctrl_upper] when
// ctrl_limited, and the actuator force f (actuator space) is
//
//   Torque     f = u                                   direct torque/force (MJCF <motor>)
//   Position   f = kp (u − l) − kv l̇                   position servo (MJCF <position>, kv: damping)
//   Velocity   f = kv (u − l̇)                          velocity servo (MJCF <velocity>)
//   PD         f = kp (u − l) + kv (u̇ − l̇) + f_ff      PD tracking a reference u(t), rate u̇(t),
//                                                      with a feed-forward force
//
// then clamped to [force_lower, force_upper] when force_limited (saturation: a motor's torque
// limit), and the joint row receives gear·f (N·m or N), held over the step. These are MuJoCo's
// formulas, so an MJCF model's <actuator> elements behave as in MuJoCo; a URDF joint's
// <limit effort> becomes the force limit of a Torque actuator (models/urdf.cpp creates one per
// revolute/prismatic joint).
//
// The servo forces are computed explicitly from the state at the start of the step (as in MuJoCo
// with its Euler integrator); stability needs kp Δt²/I and kv Δt/I well below 1 for the joint's
// reflected inertia I — at Δt = 1 ms this allows the gains of real legged robots.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

enum class ActuatorKind { Torque, Position, Velocity, PD };
const char* actuator_kind_name(ActuatorKind kind);

struct JointActuator {
  std::string name;
  ActuatorKind kind = ActuatorKind::Torque;
  int joint = -1;
  int row = -1;        // the free row it drives (5: revolute angle, 2: prismatic offset)
  double gear = 1.0;
  double kp = 0, kv = 0;
  bool ctrl_limited = false;
  double ctrl_lower = 0, ctrl_upper = 0;
  bool force_limited = false;
  double force_lower = 0, force_upper = 0;  // actuator space (joint torque = gear · force)
};

// The actuator force f for command u (and, for PD, reference rate u_rate and feed-forward
// force) at row coordinate q, rate qd: the formulas above, command and force limits included.
double actuator_force(const JointActuator& a, double u, double q, double qd, double u_rate = 0.0,
                      double feedforward = 0.0);

// The actuators of a model: its Model::actuators (MJCF <actuator> elements, the URDF loader's
// one motor per revolute/prismatic joint) as Torque/Position/Velocity actuators. An actuator
// without its own force limit gets the joint row's effort limit (URDF <limit effort>) as
// ±effort/|gear|, so the joint torque never exceeds it. A model without actuators (built in
// code) gets one Torque actuator per actuated revolute or prismatic joint, named after the
// joint, limited by its effort when that is > 0. Throws std::invalid_argument for an actuator on
// a row without a scalar coordinate.
std::vector<JointActuator> actuators_from_model(const Model& model);

// A copy of `actuators` turned into PD actuators with the given gains (limits kept).
std::vector<JointActuator> as_pd(std::vector<JointActuator> actuators, double kp, double kv);

// Index of the actuator named `name`, else of the first actuator on the joint named `name`;
// -1 if there is none.
int find_actuator(const Model& model, const std::vector<JointActuator>& actuators,
                  const std::string& name);

// Per-actuator commands and the resulting forces; the vectors are indexed like the actuators.
struct ActuatorCommands {
  std::vector<double> ctrl;         // command u: force, position or velocity (see above)
  std::vector<double> ctrl_rate;    // PD: reference rate u̇ (empty: 0)
  std::vector<double> feedforward;  // PD: feed-forward force (empty: 0)
  std::vector<double> force;        // out: actuator force after the limits (actuator space)

  ActuatorCommands() = default;
  explicit ActuatorCommands(size_t n) : ctrl(n, 0.0), ctrl_rate(n, 0.0), feedforward(n, 0.0), force(n, 0.0) {}
};

// The apply step, called from a controller: sets data.joint_force on every row the actuators
// drive to the sum of their gear · force (rows no actuator drives are left as they are) and
// stores each actuator force in commands.force — zero for all when the model switches actuation
// off (Model::actuation). Throws std::invalid_argument when commands.ctrl
// does not have one entry per actuator.
void apply_actuators(const Model& model, Data& data, std::span<const JointActuator> actuators,
                     ActuatorCommands& commands);

}  // namespace maxsim
