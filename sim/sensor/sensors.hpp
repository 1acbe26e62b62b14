// Sensors (Model::sensors, Data::sensordata): what a robot's instruments read, with MuJoCo's
// semantics, frames and units (docs/modeling.md, "Sensors").
//
// step() computes every sensor at the end of the step, from the new state: positions and
// velocities from the state itself (the velocities over the step just taken), accelerations as the
// change of velocity over the step, and forces from the step's impulses divided by Δt — the
// forces of hard constraints, so a touch or force sensor reads the force that held the body, not
// a penalty spring's. MuJoCo computes its sensors in mj_forward, before it integrates: after the
// same step its sensordata describe the state before the step.
//
// Force-type sensors: touch (the normal forces of the contacts whose point lies in the site's
// volume), force and torque (the wrench that the site's body receives through its joint from its
// parent — constraint, limit, spring, damper, friction and actuator impulses of that joint — at
// the site, in the site's frame), accelerometer (the site's acceleration minus gravity, in its
// frame), framelinacc and frameangacc (the frame's accelerations over the step, world; the linear
// one minus gravity, as MuJoCo's), the joint- and tendon-limit sensors (while a limit inequality
// is in the step: its distance to the bound, its rate towards it and its force; 0 otherwise),
// actuatorfrc and jointactuatorfrc.
#pragma once

#include <string>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

const char* sensor_type_name(SensorType type);  // the MJCF element's name: "touch", "framepos", …
// The type of that MJCF element name (sensor_type_name's); false: no such type.
bool sensor_type_from_name(const std::string& name, SensorType* out);
int sensor_dimension(SensorType type);  // values per sensor: 1, 3 or 4

// When a sensor's value is known (MuJoCo's mjtStage): from the positions, from the velocities
// too, or only from a step (forces and accelerations).
enum class SensorStage { Position, Velocity, Acceleration };
SensorStage sensor_stage(SensorType type);

// A site's frame as a sensor reads it (Sensor::frame, Sensor::ref). Throws std::invalid_argument
// for an index out of range.
SensorFrame site_frame(const Model& model, int site);

// "" when the sensor fits the model (its object exists and has the kind its type reads: a hinge or
// slide row for jointpos, a ball joint for ballquat, a body with a joint to its parent for force
// and torque, …), else a message naming the sensor.
std::string validate_sensor(const Model& model, const Sensor& sensor);

// The position- and velocity-stage sensors at the Data's current state (e.g. a state set by
// set_qpos_qvel), and actuatorfrc from Data::ctrl at that state; the other acceleration-stage
// sensors keep the values of the last step (they need one). Data::sensordata is resized to the
// model's sensors if they changed.
void update_sensors(const Model& model, Data& data);

// The bodies' orientations and velocities at a step's start (Data::q, v, w), for the accelerations.
struct StepStart {
  std::vector<Vec4> q;
  std::vector<Vec3> v, w;
};

// Every sensor after a step (step() calls it, with the state it started from).
void step_sensors(const Model& model, Data& data, const StepStart& start);

}  // namespace maxsim
