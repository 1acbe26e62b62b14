// Per-simulation state and workspace (Pinocchio's "Data", MuJoCo's mjData): everything a step
// reads and writes, allocated once by the constructor from a Model. A Model can serve any number
// of Data (one per thread in parallel rollouts).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "sim/constraints/contact.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct Workspace;  // sim/solver/workspace.hpp

// Owns a Data's solver state; copying it copies the state, so a copied Data steps exactly like
// the original (sim/solver/graph.cpp).
class SolverStateHandle {
 public:
  SolverStateHandle();
  ~SolverStateHandle();
  SolverStateHandle(const SolverStateHandle& other);             // copies the solver state
  SolverStateHandle& operator=(const SolverStateHandle& other);  // copies the solver state
  SolverStateHandle(SolverStateHandle&& other) noexcept;             // takes the solver state
  SolverStateHandle& operator=(SolverStateHandle&& other) noexcept;  // takes the solver state
  Workspace& get();                        // created empty on first use
  const Workspace* find() const { return state_.get(); }  // null before the first use

 private:
  std::unique_ptr<Workspace> state_;
};

// How a step ended (see step() in sim/step.hpp).
enum class StepStatus { Ok, NotConverged, Failed };
const char* step_status_name(StepStatus s);  // "ok", "not converged", "failed"

// What the last step did (Data::report).
struct StepReport {
  StepStatus status = StepStatus::Ok;  // how it ended
  int iterations = 0;   // every Newton / interior-point iteration the step took: all attempts, all substeps
  double residual = 0;  // ‖residual‖∞ at the end of the solve
  bool substeps = false; // the step was retried as smaller substeps
  bool relaxed = false;  // (a substep of) it was solved with the relaxed cone (relaxed_fallback)
  const char* reason = nullptr;  // a Failed step the integrator refused: why (integrator_support)
};

// The state, inputs and outputs of a simulation of one Model (the Model is not kept).
struct Data {
  explicit Data(const Model& model);  // at the model's zero configuration, at rest

  // ---- state: the current knot z2 = (x, q) and the velocities (v, w) over [t1, t2] --------
  // (Integrator::EnergyMomentum and Newmark: v, w are the velocities at the knot z2 itself)
  double time = 0;
  std::vector<Vec3> x;   // CoM positions (world)
  std::vector<Vec4> q;   // orientations (body -> world)
  std::vector<Vec3> v;   // linear velocities (world)
  std::vector<Vec3> w;   // angular velocities (body frame)
  // Integrator::Newmark: the accelerations at the knot (linear world, angular body frame) that the
  // last step ended with, valid while acceleration_time == time (a state set by hand has none: the
  // next step then starts with β = ½, γ = 1, which does not read them).
  std::vector<Vec6> acceleration;
  std::vector<Vec6> newmark_mean;  // and its mean rates (x2 − x1)/Δt (linear; angular the step's ω̄)
  std::vector<Vec6> row_acceleration;  // per joint, its free rows' accelerations (their own Newmark record)
  double acceleration_time = std::numeric_limits<double>::quiet_NaN();

  // ---- inputs, held until changed ---------------------------------------------------------
  std::vector<Vec3> body_force;   // external force at the CoM (world)
  std::vector<Vec3> body_torque;  // external torque (body frame)
  std::vector<Vec6> joint_force;  // force per joint row (free rows only): N or N·m, besides the actuators
  // One command per actuator (Model::actuators, same order): a force, a position or a velocity
  // by the actuator's kind; the step applies them (sim/actuation.hpp). Zero at the start.
  std::vector<double> ctrl;
  // Called by step() first, before collide and solve: reads the state (time, maximal and minimal
  // coordinates, the last step's contacts) and writes the inputs above. Empty: inputs are held.
  std::function<void(const Model&, Data&)> controller;

  // ---- outputs of the last step ------------------------------------------------------------
  std::vector<Vec6> joint_impulse;  // row impulses over the step: constraint multipliers on
                                    // constrained rows, spring+damper+actuation+dry friction on
                                    // free rows, and a folded limit's impulse (Contact::folded)
  std::vector<Vec3> joint_angle;    // unwrapped free rotation-row angles (rows 3..5)
  // per nonholonomic constraint (Model::nonholonomic): its row impulses over the step, in the
  // order of its rows (sim/constraints/nonholonomic.hpp); entries beyond NonholonomicConstraint::rows() are 0
  std::vector<Vec6> nonholonomic_impulse;
  std::vector<double> actuator_force;  // per actuator: its force f over the last step (actuator space)
  // per tendon (Model::tendons): the actuators' force along its length over the last step
  // (Σ gear·f), its impulse u over the last step (spring, damper, armature, actuators, limit) and
  // its length at the end of the step (sim/constraints/tendon.hpp)
  std::vector<double> tendon_force, tendon_impulse, tendon_length;
  std::vector<double> coupling_impulse;  // per coupling (Model::couplings): its multiplier over the last step
  // per joint: joint_force plus the actuators' forces on its rows, held over the last step
  // (sim/actuation.hpp)
  std::vector<Vec6> row_force;
  // per joint: the actuators' damping on its rows that the step takes at the end of the step
  // (the servos' kv·gear², sim/actuation.hpp), added to the joint's own damping
  std::vector<Vec6> row_damping;
  std::vector<Contact> contacts;     // the active contacts of the last step (with their impulses)
  // On a model whose joints close a loop: the change of every body's velocities (v, w) over the
  // last step, when that step was one solve of the model's full Δt without inequalities, and the
  // time that step ended at (NaN when it was not, and on every other model). A step without
  // inequalities that starts at that time extrapolates its Newton start with it
  // (docs/computation.md (106)).
  std::vector<Vec6> velocity_change;
  double velocity_change_time = std::numeric_limits<double>::quiet_NaN();
  // Per sensor (Model::sensors), its values at Sensor::adr (MuJoCo's layout): computed at the end
  // of every step, and by update_sensors for a state set by hand (sim/sensor/sensors.hpp).
  std::vector<double> sensordata;
  std::uint64_t sensor_noise_state = 0;  // the sensor noise's generator (ModelOptions::sensor_noise)
  // Per joint of a closed loop, the limit sides (bit 2·row + (side < 0)) its coordinate was
  // beyond at the start and has not come back within since: no inequality for them
  // (sim/constraints/joint_limits.cpp). Filled by the first step (limits_started).
  std::vector<std::uint16_t> limits_released;
  bool limits_started = false;
  // Per joint, whether it closes a kinematic loop (loop_joints), filled with limits_released: its
  // row limits keep their nodes (SolverOptions::fold_joint_limits)
  std::vector<char> limits_in_loop;
  // Per joint of a tree, the limit sides (the same bits; bit 12: a ball joint's cone) its coordinate
  // was beyond when the state was set (a new Data, set_qpos_qvel) and has not come back within
  // since: pulled back in over ModelOptions::limit_recovery_time; per tendon likewise (bit 0
  // lower, 1 upper). Filled by the next step's find_inequalities while limits_recheck is set.
  std::vector<std::uint16_t> limits_recovering;
  std::vector<std::uint8_t> tendon_limits_recovering;
  bool limits_recheck = true;
  // The contact search of step()'s collide stage (enable_contacts sets it; empty: no surface
  // contacts). A copy of the Data gets its own, in the same state (sim/geometry/contact_search.hpp).
  std::optional<ContactSearch> contact_search;
  double min_candidate_distance = 0;  // smallest signed distance the last search found (≤ 0)
  StepReport report;

  // The solver's state (sim/solver/workspace.hpp: the system graph, its workspace, the failure
  // policy's saved states), created by the first step and copied with the Data.
  SolverStateHandle solver_state;
};

// Pose of body `i`, or of the world for kWorld.
inline Pose body_pose(const Data& d, int i) {
  return i == kWorld ? Pose{} : Pose{d.x[i], d.q[i]};
}

}  // namespace maxsim
