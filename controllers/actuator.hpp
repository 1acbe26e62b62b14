// The controllers' view of actuators: lists of actuators a control law drives, and the
// law's apply step.
//
// The actuator itself — its kinds and force law, MuJoCo's formulas — is the engine's
// (sim/actuation.hpp: Actuator, actuator_force), and step() applies a model's own actuators from
// Data::ctrl. The functions here are for laws that compute the force themselves and write
// Data::joint_force: a PD on every joint with gains of the controller's choosing (as_pd), a
// reference with its rate and a feed-forward force (JointPdController). They add to what the
// model's actuators do with Data::ctrl (zero commands: motors give nothing, position servos hold
// their joints at 0, as in MuJoCo).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/actuation.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The actuators of a model: its Model::actuators (MJCF <actuator> elements, the URDF loader's
// one motor per revolute/prismatic joint). An actuator
// without its own force limit gets the joint row's effort limit (URDF <limit effort>) as
// ±effort/|gear|, so the joint torque never exceeds it. A model without actuators (built in
// code) gets one motor per actuated revolute or prismatic joint, named after the
// joint, limited by its effort when that is > 0. Actuators on tendons are left out (they act
// through Data::ctrl only). Throws std::invalid_argument for an actuator on a row without a scalar
// coordinate.
std::vector<Actuator> actuators_from_model(const Model& model);

// A copy of `actuators` turned into PD actuators with the given gains (limits kept).
std::vector<Actuator> as_pd(std::vector<Actuator> actuators, double kp, double kv);

// Index of the actuator named `name`, else of the first actuator on the joint named `name`;
// -1 if there is none.
int find_actuator(const Model& model, const std::vector<Actuator>& actuators,
                  const std::string& name);

// Per-actuator commands and the resulting forces; the vectors are indexed like the actuators.
struct ActuatorCommands {
  std::vector<double> ctrl;         // command u: force, position or velocity (see above)
  std::vector<double> ctrl_rate;    // PD: reference rate u̇ (empty: 0)
  std::vector<double> feedforward;  // PD: feed-forward force (empty: 0)
  std::vector<double> force;        // out: actuator force after the limits (actuator space)

  ActuatorCommands() = default;
  // n actuators' commands, all zero.
  explicit ActuatorCommands(size_t n) : ctrl(n, 0.0), ctrl_rate(n, 0.0), feedforward(n, 0.0), force(n, 0.0) {}
};

// The apply step, called from a controller: sets data.joint_force on every row the actuators
// drive to the sum of their gear · force (rows no actuator drives are left as they are) and
// stores each actuator force in commands.force — zero for all when the model switches actuation
// off (Model::actuation). Throws std::invalid_argument when commands.ctrl
// does not have one entry per actuator.
void apply_actuators(const Model& model, Data& data, std::span<const Actuator> actuators,
                     ActuatorCommands& commands);

}  // namespace maxsim
