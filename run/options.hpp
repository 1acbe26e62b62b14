// The options of a run (the run/ library, namespace maxsim::run) and their command-line parsing
// for the `maxsim` tool (README "The maxsim command"): commands, options, strict numbers.
#pragma once

#include <array>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/model.hpp"

namespace maxsim::run {

// Exit status 2: bad usage or bad input (options, model files, names that do not exist).
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Exit status 1: the simulation itself failed (e.g. no consistent initial state).
struct SimulationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Command { Help, Version, Info, Simulate, Bench };
enum class Ground { Auto, On, Off };

const char* ground_name(Ground g);

// One --q / --qd argument: JOINT=V1,V2,...
struct JointValues {
  std::string joint;
  std::vector<double> values;
  std::string option;  // "--q" or "--qd", for messages
};

struct Options {
  Command command = Command::Help;
  std::string model_path;
  // stepping
  std::optional<double> dt;
  std::optional<double> duration;
  std::optional<long long> steps;
  // output
  std::string output;     // CSV trajectory file; empty: none
  long long every = 1;
  std::string view;       // --view: HTML replay of the run (io/replay.hpp); empty: none
  // --max-output-bytes: the run stops before the CSV (or the replay's recorded frames) would
  // grow beyond this
  long long max_output_bytes = 2'000'000'000;
  bool json = false;
  // initial state
  std::optional<std::string> keyframe;
  std::vector<JointValues> q, qd;
  // commands (Data::ctrl): --ctrl ACTUATOR=U, held, and --ctrl-file (a CSV: t, one column per actuator)
  std::vector<std::pair<std::string, double>> ctrl;
  std::string ctrl_file;
  // model and world
  Ground ground = Ground::Auto;
  std::optional<double> friction;
  std::optional<std::array<double, 3>> gravity;
  bool fixed_base = false;
  bool lenient = false;  // --lenient: unknown MJCF names load with a warning (LoadOptions::lenient)
  std::optional<double> tol;
  FrictionCone cone = FrictionCone::Nonlinear;
  bool contacts = true;   // --contacts on|off: hard contacts (ground, world geoms, bodies)
  std::optional<double> restitution;  // --restitution E for geom pairs that declare none
  LoadLimits limits;      // --limit NAME=VALUE (repeatable): the loader's bounds
  std::optional<Integrator> integrator;  // --integrator; none: the model's (the file's, else variational)
  std::optional<double> numerical_damping;  // --numerical-damping (ModelOptions::numerical_damping)
  std::optional<double> limit_recovery_time;  // --limit-recovery-time (ModelOptions::limit_recovery_time)
  std::optional<std::pair<double, double>> newmark;  // --newmark (ModelOptions::newmark_beta, newmark_gamma)
};

// Parses argv (argv[0] is the program). Throws InputError with a message naming the problem.
Options parse_args(int argc, const char* const* argv);

// The usage text (for --help and usage errors).
const char* usage_text();

// One --limit NAME=VALUE applied to *limits (InputError naming the problem): file-bytes,
// elements, bodies, geoms, mesh-vertices take a positive whole number (1e6 is one); mass and
// inertia take LO,HI with 0 <= LO < HI.
void apply_limit(const std::string& setting, LoadLimits* limits);

// Strict numbers: the whole string must be the number, no blanks, no trailing characters, finite.
// A leading '+' is accepted. Returns false otherwise.
bool parse_double(std::string_view s, double* out);
bool parse_integer(std::string_view s, long long* out);
// A list of doubles separated by commas and/or blanks ("1,2,3", "0 0 -9.81"); false on an empty
// item or a bad number.
bool parse_double_list(std::string_view s, std::vector<double>* out);

}  // namespace maxsim::run
