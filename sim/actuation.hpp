// Actuation (docs/computation.md (28)): what turns the commands Data::ctrl into forces on joint
// rows.
//
// An actuator (Model::actuators, sim/model.hpp) drives one free joint row with a scalar
// coordinate (a revolute angle or a prismatic offset) through a transmission of ratio `gear`, as
// MuJoCo's joint actuators do: with the row's minimal coordinate q and rate q̇ (row_coordinate,
// sim/state/kinematics.hpp) the actuator length is l = gear·q and its velocity l̇ = gear·q̇; the
// command u is clamped to [ctrl_lower, ctrl_upper] when ctrl_limited, and the actuator force f is
//
//   Motor      f = u                                   direct force/torque (MJCF <motor>)
//   Position   f = kp (u − l) − kv l̇                   position servo (MJCF <position>, kv: damping)
//   Velocity   f = kv (u − l̇)                          velocity servo (MJCF <velocity>)
//   PD         f = kp (u − l) + kv (u̇ − l̇) + f_ff      PD tracking a reference u(t), rate u̇(t),
//                                                      with a feed-forward force (controllers)
//
// then clamped to [force_lower, force_upper] when force_limited (saturation), and the joint row
// receives gear·f (N·m or N), held over the step. These are MuJoCo's formulas, so an MJCF model's
// <actuator> elements behave as in MuJoCo (a URDF joint's <limit effort> is the force limit of
// its motor, models/urdf.cpp).
//
// step() applies the model's actuators from Data::ctrl once per step, after the controller
// callback: every row gets Data::joint_force plus the gear·f of the actuators on it (the sum of
// the actuators on a row limited by the row's effort when that is > 0, MuJoCo's
// actuatorfrcrange). A servo's velocity term −kv·gear·q̇ is taken at the end of the step, as
// MuJoCo's implicit integrators take it: the row holds the rest of the force (from the state at
// the start of the step) and the free row's damper gains kv·gear² (Data::row_damping;
// docs/computation.md (24), (28)), so a stiff servo on a light link is stable at the file's time
// step. A force saturated at the start of the step stays explicit. Data::actuator_force is the
// force at the start of the step.
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

const char* actuator_kind_name(Actuator::Kind kind);  // "motor", "position", "velocity", "pd"

// The actuator force f for command u (and, for PD, reference rate u_rate and feed-forward
// force) at row coordinate q, rate qd: the formulas above, command and force limits included.
double actuator_force(const Actuator& a, double u, double q, double qd, double u_rate = 0.0,
                      double feedforward = 0.0);

// The step's actuation: Data::actuator_force from Data::ctrl at the current state, the row
// forces the step holds over [t, t + Δt] (Data::row_force = joint_force + actuators) and the
// servos' implicit damping (Data::row_damping).
// Data::ctrl shorter than the model's actuators (actuators added after the Data was made) is
// padded with zeros. Throws std::invalid_argument for an actuator on a row without a scalar
// coordinate, or a non-finite command.
void apply_actuation(const Model& model, Data& data);

// Checks the model's actuators (joint and row in range, a scalar coordinate on the row, limits
// ordered, finite gains); "" when valid, else a message naming the actuator.
std::string validate_actuators(const Model& model);

}  // namespace maxsim
