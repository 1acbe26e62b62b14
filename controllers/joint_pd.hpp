// Joint PD tracking of reference trajectories, and sinusoidal tracking built on it.
//
// Each actuator may follow a Reference (controllers/reference.hpp). Every step the controller
// evaluates the references at data.time and applies the actuators (controllers/actuator.hpp):
// for PD actuators the command is the reference position and its rate, so the law is
//     f = sat( kp (q_ref − gear·q) + kv (q̇_ref − gear·q̇) + f_ff );
// Position servos get the reference position only (their kv damps the joint rate), Velocity
// servos the reference rate, Torque actuators the reference value as a torque. An actuator
// without a reference keeps its last command (0 at the start).
//
//   auto pd = std::make_shared<JointPdController>(as_pd(actuators_from_model(model), 50, 5));
//   pd->set_reference(model, "elbow", sinusoid_reference({0.5, 2.0, 0.0, 0.3}));
//   set_controller(data, pd);
#pragma once

#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/controller.hpp"
#include "controllers/reference.hpp"

namespace maxsim {

// PD actuators tracking per-actuator references, with a record of the peak forces.
class JointPdController : public Controller {
 public:
  // The actuators it drives (PD kind for tracking: as_pd).
  explicit JointPdController(std::vector<Actuator> actuators);

  // Reference of actuator i (an empty Reference removes it).
  void set_reference(int actuator, Reference reference);
  // The same by actuator name or joint name (find_actuator); throws std::invalid_argument if no
  // actuator has that name or drives that joint.
  void set_reference(const Model& model, const std::string& name, Reference reference);

  void control(const Model& model, Data& data) override;

  const std::vector<Actuator>& actuators() const { return actuators_; }  // the actuators it drives
  // Commands of the last step and the resulting forces; feedforward and the commands of
  // actuators without a reference may be set here between steps.
  ActuatorCommands& commands() { return commands_; }
  const ActuatorCommands& commands() const { return commands_; }
  // Largest |actuator force| per actuator since construction or reset_peaks() (a torque budget
  // check, e.g. the exoskeleton's comfortable-torque limit).
  const std::vector<double>& peak_force() const { return peak_; }
  void reset_peaks();

 private:
  std::vector<Actuator> actuators_;
  std::vector<Reference> references_;
  ActuatorCommands commands_;
  std::vector<double> peak_;
};

// A JointPdController whose actuator i tracks sinusoids[i] (same length as actuators; an
// amplitude of 0 holds the offset).
class SinusoidTracker : public JointPdController {
 public:
  // Actuator i tracks sinusoids[i].
  SinusoidTracker(std::vector<Actuator> actuators, const std::vector<Sinusoid>& sinusoids);
};

}  // namespace maxsim
