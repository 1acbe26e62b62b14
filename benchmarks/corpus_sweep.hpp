// The corpus sweep: every description file of the project's corpus, run as its authors meant it
// — as `maxsim simulate FILE` runs it (run/setup.hpp: the file's time step or 0.01 s,
// `--ground auto`, contacts on, no actuator force) — from its own initial state, from each of
// its keyframes and, for robots with actuators, under a joint PD toward random targets. One row
// per (file, scenario) says whether the file loads (or why not), how many steps failed or did
// not converge, how deep bodies went into the world, how hard the Newton solves were and how
// fast they ran; when the program is built with MuJoCo, the MJCF files' own initial state is
// also run by MuJoCo for its speed and the root body's final height.
//
// Library `maxsim_sweep`; the program is benchmarks/corpus_sweep_main.cpp (`build/corpus_sweep`),
// and `make test` runs it (ctest label `corpus`).
#pragma once

#include <string>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The corpus, as paths relative to `root` (the source tree), sorted: every .urdf and .xml under
// tests/data/models (recursively), robots/a1/urdf/a1.urdf, robots/a1/xml/a1.xml,
// robots/a1/menagerie_variant/*.xml, robots/a1/unitree_ros_variant/a1.urdf and
// robots/exoskeleton/original/model.urdf, those that exist. (tests/data/broken and
// tests/data/loader hold the loaders' error and feature cases, not models: not corpus.)
std::vector<std::string> corpus_files(const std::string& root);

struct SweepOptions {
  double duration = 3.0;    // simulated seconds per scenario (steps: round(duration / dt), >= 1)
  bool mujoco = true;       // run MuJoCo for the MJCF `default` rows (when built with it)
  // The `pd` scenario: targets re-drawn every pd_period seconds from a generator seeded with
  // pd_seed (the same targets on every run); the loop's natural frequency and damping ratio.
  double pd_period = 0.5;
  unsigned long long pd_seed = 20261123;
  double pd_frequency_hz = 2.0;
  double pd_damping_ratio = 0.7;
};

// The inertia a free joint row drives in the state of `data` — what the `pd` scenario's gains
// are made from: kp = I (2π f)², kv = 2 ζ I (2π f) with f = pd_frequency_hz, ζ =
// pd_damping_ratio. I is the subtree beyond the joint (the side away from the world in the
// spanning tree of sim/state/kinematics.hpp) as one rigid body: its inertia about the joint axis for a
// rotation row (row >= 3), its mass for a translation row, plus the row's armature. The locked
// subtree bounds from above the articulated inertia the row meets when the rest of the robot
// moves too (a floating base gives way), so the loop is at least as fast as asked.
double subtree_inertia(const Model& model, const Data& data, int joint, int row);

// One scenario of one file.
struct SweepRow {
  std::string file;      // relative to the root
  std::string scenario;  // "default", "key:NAME", "pd"; "default" for a file that does not load
  bool loaded = false;
  std::string refusal;   // the first line of the loader's message (file paths relative to root)
  std::string setup_error;  // a file that loads but whose scenario could not start (counted failed)
  bool urdf = false;
  double dt = 0;
  long long steps_requested = 0;
  long long steps = 0;        // steps that advanced the state
  long long failed = 0;       // Failed steps or non-finite states: the run stopped there (0 or 1)
  long long unconverged = 0;  // NotConverged steps (the run goes on with the approximate state)
  // converged steps that needed the relaxed-cone last resort (StepReport::relaxed)
  long long relaxed = 0;
  double max_penetration = 0; // max over the run of max_world_penetration (the CLI's measure) [m]
  double iterations_mean = 0; // Newton (interior-point) iterations per attempted step
  int iterations_max = 0;
  double wall_s = 0;          // time in step() alone
  double steps_per_s = 0;
  // The root: the first body under the world that the file names — maxsim's body 0, or the
  // first after the virtual bodies the MJCF loader inserts for a body with several joints
  // (hopper's torso/rootx, torso/rootz before torso). MuJoCo's body of that name is its body 1 on
  // every MJCF file of the corpus it reads (mujoco_root_id).
  std::string root_body;
  double root_z = 0;          // world z of its centre of mass at the end (last finite state) [m]
  long long first_unconverged_step = 0;
  double first_unconverged_residual = 0;
  int first_unconverged_iterations = 0;
  std::string stop_message;   // why the run stopped, when failed
  int pd_joints = 0;          // `pd`: the joint rows driven
  // MuJoCo (MJCF `default` rows, when built with MuJoCo)
  bool mujoco_ran = false;
  std::string mujoco_error;   // MuJoCo did not read the file (first line of its message)
  double mujoco_steps_per_s = 0;
  double mujoco_root_z = 0;   // world z of the same body's centre of mass (xipos) at the end
  int mujoco_root_id = -1;    // its MuJoCo body id (1: the first body under the world)
  long long mujoco_bad_steps = 0;  // steps after which MuJoCo raised a warning or went non-finite

  bool ok() const { return failed == 0 && unconverged == 0 && setup_error.empty(); }
};

// Runs every scenario of one file (`file` relative to `root`): `default`, `key:NAME` per
// keyframe, `pd` when the model has actuators. A file that does not load gives one row with its
// refusal.
std::vector<SweepRow> sweep_file(const std::string& root, const std::string& file, const SweepOptions& options);

// The fixed-width table for a terminal, and the same rows as a Markdown table (the README's).
std::string sweep_table(const std::vector<SweepRow>& rows, bool with_mujoco);
std::string sweep_markdown(const std::vector<SweepRow>& rows, bool with_mujoco);
// All rows as one JSON object: {"duration": .., "mujoco_version": .. | null, "rows": [...]}.
std::string sweep_json(const std::vector<SweepRow>& rows, const SweepOptions& options);
// One line per row that failed or did not converge: the first unconverged step and its
// residual, and why the run stopped.
std::vector<std::string> sweep_failures(const std::vector<SweepRow>& rows);

// Refusals the corpus expects (a file in tests/data/models): lines "FILE  REASON" — the path
// relative to the root, blanks, then a text the first line of the loader's message must
// contain; '#' starts a comment line.
struct ExpectedRefusal {
  std::string file, reason;
};
std::vector<ExpectedRefusal> read_expected_refusals(const std::string& path);  // std::runtime_error
// Problems against that list, one message each: a file refused but not listed, refused for
// another reason, or listed but loading now. Only files among `rows` are checked.
std::vector<std::string> check_refusals(const std::vector<SweepRow>& rows, const std::vector<ExpectedRefusal>& expected);

// Rows that still fail, pinned while they are open (tests/data/models/known_unconverged.txt):
// lines "FILE  SCENARIO  NOTE". Such a row's failed or unconverged steps are reported but do not
// fail the sweep; every other row must be clean, and a pinned row that runs clean is a problem
// too (the list must shrink with the fixes). '#' starts a comment line. A NOTE that starts with
// "rounding:" pins a row whose outcome depends on the last bits of rounding (it differs between
// GCC and Clang builds): it may also run clean.
struct KnownFailure {
  std::string file, scenario, note;
  bool rounding = false;  // NOTE starts with "rounding:"
};
std::vector<KnownFailure> read_known_failures(const std::string& path);  // std::runtime_error
bool is_known_failure(const SweepRow& row, const std::vector<KnownFailure>& known);
// Pinned rows among `rows` that ran clean, one message each.
std::vector<std::string> check_known_failures(const std::vector<SweepRow>& rows, const std::vector<KnownFailure>& known);

// ---- MuJoCo (benchmarks/corpus_sweep_mujoco.cpp; a stub without MuJoCo) -------------------------
// Whether this build has MuJoCo, and its version ("2.2.2"; empty without).
bool sweep_has_mujoco();
std::string sweep_mujoco_version();

struct MujocoRun {
  bool ran = false;
  std::string error;        // the file did not load (first line of MuJoCo's message)
  long long steps = 0;
  double steps_per_s = 0;   // steps over the time spent in mj_step alone
  double root_z = 0;        // xipos z of the body named root_body (else body 1) at the end
  int root_id = -1;
  long long bad_steps = 0;  // steps after which a warning was raised or the state went non-finite
};

// `file` (an MJCF path) in MuJoCo from its qpos0: time step dt, `steps` steps, no actuator force
// (actuation disabled: maxsim simulate applies none, and a position servo at ctrl = 0 would pull
// its joint to 0), timing mj_step alone.
MujocoRun run_mujoco(const std::string& file, double dt, long long steps, const std::string& root_body);

}  // namespace maxsim
