// A scene run in one engine, measured by one implementation of every metric (the engine's state
// read back in maxsim's conventions, engine.hpp): what benchmarks/compare_engines.cpp tabulates.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "benchmarks/engines/engine.hpp"
#include "sim/data.hpp"

namespace maxsim::bench {

// A scene: a description file, how long, from where, under which control, and what it measures
// besides the common metrics.
struct Scene {
  std::string name;
  std::string file;       // MJCF or URDF
  std::string summary;    // one line for the table
  double dt = 0.002;      // [s]
  int steps = 1000;
  // Sets the start on a Data of the model (coordinates by set_coordinates; it may move a welded
  // base's anchor in the model, as lift_to_ground does); null: the file's pose at rest.
  std::function<void(Model&, Data&)> start;
  // Before every step: the joint forces (Engine::set_joint_force) from the state `state` (the
  // engine's bodies placed in a Data of the model) at time t; null: none.
  std::function<void(double t, const Model& model, const Data& state, Engine& engine)> control;
  // The scene's own measure from the first and last states (null: none), e.g. a box's creep.
  std::string measure_name;  // with its unit, e.g. "creep [m]"
  std::function<double(const Model& model, const std::vector<BodyState>& first,
                       const std::vector<BodyState>& last, double t)> measure;
  bool conservative = false;  // nothing dissipates: the energy drift is a defect of the engine
};

// One engine's results on one scene.
struct RunResult {
  std::string scene, engine;
  std::string error;            // why the engine did not run it (Unsupported, a load error); empty: it ran
  int steps = 0;                // steps taken (fewer than the scene's if the state became non-finite)
  double dt = 0;
  double steps_per_s = 0;       // of Engine::step alone (the metrics are not timed)
  double max_penetration = 0;   // deepest overlap of any two geoms maxsim's contact search finds [m]
  double loop_violation = 0;    // largest constrained-row error of any joint (kinematics.hpp) [m or rad]
  double energy_drift = -1;     // max |E(t) − E(0)| [J] (conservative scenes; −1: not measured)
  double measure = 0;           // the scene's own measure (Scene::measure; NaN: the state became non-finite)
  long failed = 0;              // steps the engine reported failed or that left a non-finite state
  double iterations_mean = 0;   // solver iterations per step (0: the engine does not say)
  int iterations_max = 0;
};

// Runs `scene` in the engine named `engine` (make_engine). Throws only for a scene whose file
// maxsim cannot load; an engine that cannot represent the scene gives a result with `error`.
RunResult run_scene(const Scene& scene, const std::string& engine);

// run_scene in a child process: an engine that aborts (DART's assertions on an unstable state),
// crashes or runs longer than `timeout_s` seconds gives a result whose error says so (with the
// last line the child printed) instead of ending the comparison; what the child prints is kept
// from the terminal. Throws what run_scene throws, as a std::runtime_error with its message.
RunResult run_scene_isolated(const Scene& scene, const std::string& engine, int timeout_s = 600);

// The mechanical energy of a state: Σ ½ m|v|² + ½ ωᵀIω − m g·x [J] (no springs: the scenes have none).
double mechanical_energy(const Model& model, const std::vector<BodyState>& bodies);

}  // namespace maxsim::bench
