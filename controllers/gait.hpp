// A parametric gait generator for quadrupeds (Brüdigam et al. 2023, §5.4 and Appendix E, after
// Dojo's quadruped sampling example): every leg joint follows a sinusoid about a standing pose,
//
//   θ(leg l, joint k, t) = s_lk · ( offset_k + r(t) · amplitude_k · sin(2π f t + leg_phase_l + joint_phase_k) )
//
// with joints k = hip (abduction), thigh, calf; legs l = FR, FL, RR, RL; stride frequency f; the
// leg phases choose the gait (trot: the diagonal pairs FR+RL and FL+RR half a period apart). On
// the A1 a growing thigh angle swings the foot backwards and a growing (less negative) calf angle
// straightens the knee; the calf leads the thigh by a quarter period by default, so the leg is
// straightest (stance) in the middle of its backward swing and most bent (foot lifted) in the
// middle of its forward swing: the robot pushes itself forward. s_lk mirrors the hip of the right legs (s = −1 for the
// FR/RR hips, +1 otherwise), so a positive hip offset spreads all four legs outwards on the A1,
// whose hip axes are all +x. r(t) = min(1, t / ramp_time) starts the motion from the standing
// pose without a jolt.
//
// The leg joints are found by name, "<leg>_<joint>_joint" with legs FR, FL, RR, RL and joints
// hip, thigh, calf (Unitree A1, Go1, Aliengo URDFs); each is driven by a PD actuator with the
// per-joint-kind gains below and the model's torque limits, tracking θ and its rate.
#pragma once

#include <array>
#include <numbers>
#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/controller.hpp"
#include "controllers/reference.hpp"

namespace maxsim {

// The classic quadruped gaits (gait_leg_phases gives each one's leg phases).
enum class GaitPattern { Trot, Pace, Bound, Walk };

// Leg phases (FR, FL, RR, RL) of the classic gaits: trot (diagonal pairs), pace (lateral pairs),
// bound (front/back pairs), walk (four beats RL, FL, RR, FR a quarter period apart).
std::array<double, 4> gait_leg_phases(GaitPattern pattern);

// A parametric gait: per joint kind a sinusoid of the stride frequency, per leg a phase.
struct GaitParameters {
  double frequency = 2.0;                             // stride frequency f [Hz]
  std::array<double, 3> offset{0.0, 0.8, -1.6};       // hip, thigh, calf mean angles [rad]
  std::array<double, 3> amplitude{0.0, 0.3, 0.3};     // [rad]
  std::array<double, 3> joint_phase{0.0, 0.0, std::numbers::pi / 2};  // [rad]
  std::array<double, 4> leg_phase = gait_leg_phases(GaitPattern::Trot);  // FR, FL, RR, RL [rad]
  double ramp_time = 0.5;                             // [s]; 0: full amplitude from t = 0
};

// Reference angle and rate of leg l (0..3: FR, FL, RR, RL), joint k (0..2: hip, thigh, calf).
ReferencePoint gait_reference(const GaitParameters& p, int leg, int joint, double t);

// The scalar parameters by name, for searches and parameter files: "frequency", "ramp_time",
// "{hip,thigh,calf}_{offset,amplitude,phase}" and "{FR,FL,RR,RL}_phase". Throws
// std::invalid_argument for an unknown name.
double& gait_parameter(GaitParameters& p, const std::string& name);
std::vector<std::string> gait_parameter_names();

// PD gains per joint kind (hip, thigh, calf): the values of Dojo's A1 example.
struct GaitGains {
  std::array<double, 3> kp{100.0, 80.0, 60.0};  // N·m/rad
  std::array<double, 3> kv{5.0, 4.0, 3.0};      // N·m·s/rad
};

// The 12 leg joints in order FR_hip, FR_thigh, FR_calf, FL_hip, ..., RL_calf (joint indices);
// throws std::invalid_argument naming a joint that is missing.
std::array<int, 12> leg_joints(const Model& model);

// PD servos of a quadruped's 12 leg joints tracking the gait's reference angles.
class GaitController : public Controller {
 public:
  // `actuators`: the model's actuators (actuators_from_model); the 12 leg actuators are found by
  // joint name and turned into PD actuators with `gains`, keeping their force limits.
  GaitController(const Model& model, const std::vector<Actuator>& actuators,
                 const GaitParameters& parameters, const GaitGains& gains = {});

  void control(const Model& model, Data& data) override;

  const GaitParameters& parameters() const { return params_; }  // the gait it follows
  void set_parameters(const GaitParameters& p) { params_ = p; }  // changes the gait from the next step on
  const std::vector<Actuator>& actuators() const { return actuators_; }  // leg order
  const ActuatorCommands& commands() const { return commands_; }  // the last step's commands and forces
  // The reference pose at t = 0 (the offsets when ramp_time > 0): the 12 leg angles in
  // leg_joints order.
  std::array<double, 12> standing_pose() const;

 private:
  GaitParameters params_;
  std::vector<Actuator> actuators_;
  ActuatorCommands commands_;
};

}  // namespace maxsim
