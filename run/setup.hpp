// The run/ library (namespace maxsim::run): the options of a run and how a description file is
// set up for it — the one implementation behind `maxsim simulate`, `maxsim bench` (README "The
// maxsim command") and the corpus sweep (benchmarks/corpus_sweep.hpp), so that a program that
// says "as `maxsim simulate FILE` runs it" means exactly that — the same loader call and
// validation, the same ground rule, the same lift of a URDF base onto the ground, the same
// contact options and the same time step.
//
// Two halves, because a caller builds its Data (and may open output files) in between:
//
//   RunSetup s = setup_model(options);     // load, validate, world switches, initial coordinates
//   Data d(s.loaded.model);
//   setup_state(s, options, d);            // initial state, projection, lift, contacts
//   ... step(s.loaded.model, d) ...
//
// Errors: InputError (exit status 2: the file does not load, bad option values, unknown joint or
// keyframe) and SimulationError (exit status 1: no consistent initial state).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controllers/schedule.hpp"
#include "models/load.hpp"
#include "run/options.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim::run {

// A description file as loaded for a run.
struct LoadedModel {
  Model model;
  LoadReport report;
  bool urdf = false;         // .urdf (else MJCF)
  std::string display_name;  // model.name, or the file's stem
};

// Loads options.model_path (LoadOptions::fixed_base from --fixed-base) and validates the model.
// InputError with the loader's message (file and line where known) when either fails.
LoadedModel load_for_run(const Options& options);

// Everything the options and the file decide about a run before its state exists.
struct RunSetup {
  LoadedModel loaded;       // loaded.model is the model to step: --gravity and dt applied
  double dt = 0.01;         // --dt, else the file's time step, else 0.01 s (also in model.opt.timestep)
  bool ground = false;      // the half-space z >= 0 is on (--ground; auto: Model::implicit_ground)
  bool contacts = false;    // hard contacts: --contacts on and the file does not switch them off
  std::vector<std::vector<double>> q0, qd0;  // initial joint coordinates: keyframe, then --q/--qd
  std::vector<double> ctrl0;  // initial commands (Data::ctrl): keyframe, then --ctrl
  std::shared_ptr<const ControlSchedule> schedule;  // --ctrl-file (null: none)
  double lifted = 0;        // set by setup_state: how far the base was lifted onto the ground [m]
};

// The first half: load_for_run, --gravity, --integrator, the time step, --tol, the ground and
// contact switches, --friction, --restitution and --cone (into the model's options), the
// initial joint coordinates and commands (InputError on an unknown keyframe, joint or actuator,
// a wrong value count, a joint that closes a loop, a zero quaternion, a --ctrl-file that cannot
// be read or does not fit the model).
RunSetup setup_model(const Options& options);

// The second half, on a Data built from setup.loaded.model: the initial state placed by
// forward kinematics and projected onto the constraints (SimulationError when that fails), time
// 0, then with contacts on: the lift onto the ground (lift_to_ground; it moves a welded base's
// world anchor in setup.loaded.model) and the contact search (enable_contacts: the model's
// options as setup_model wrote them); the commands
// ctrl0 and, with --ctrl-file, a ScheduleController as the Data's controller. Last, InputError
// when the model's integrator cannot step this Data (integrator_support: the energy-momentum
// integrator with contacts, joint limits or joint friction), with the options that help.
void setup_state(RunSetup& setup, const Options& options, Data& data);

// URDF floating bases load at the origin, half inside the ground. A robot hung on a single
// floating joint to the world (or welded to it by --fixed-base) whose pose reaches below z = 0
// is lifted until its lowest collision geometry touches the ground; anything else stays where it
// is and its penetration is pushed out by the contacts at a bounded speed
// (ContactOptions::recovery_speed). A welded base is then a robot on a pedestal, as PyBullet's
// useFixedBase places it. Returns the lift [m] (0 when nothing moved).
double lift_to_ground(Model& model, Data& data);

// Text of the command's messages (shared by the CLI and the corpus sweep): a number printed with
// a printf format, a number in 6 significant digits, and a list joined by a separator.
std::string fmt(const char* format, double v);
std::string g6(double v);
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

// A nonholonomic constraint's parameters in words, for listings: "radius 0.5, axis 0 1 0" (body
// frame), the ones its kind takes.
std::string nonholonomic_parameters(const NonholonomicConstraint& c);

// Every body's pose and velocity and the time are finite numbers (a step that produced NaN or
// infinity has failed, whatever its report says).
bool state_finite(const Data& data);

}  // namespace maxsim::run
