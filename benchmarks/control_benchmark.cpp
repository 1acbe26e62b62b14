// bench_control — robots driven by their own actuators with random commands, in maxsim and MuJoCo.
//
//   bench_control [--only SUBSTRING | --file PATH] [--seconds S] [--steps N]
//                 [--engine both|maxsim|mujoco] [--seed K] [--seeds N] [--json FILE] [--verbose] [--list]
//                 [--bodies-first]  (SolverOptions::bodies_first in maxsim)
//                 [--reuse N]       (SolverOptions::reuse_iterations in maxsim)
//                 [--open-gap M]    (SolverOptions::open_candidate_gap in maxsim, metres; < 0: off)
//                 [--cone-weight W] (InteriorPointOptions::cone_weight in maxsim, seconds)
//                 [--cone-direction A] (InteriorPointOptions::cone_direction_tolerance in maxsim, rad; 0: off)
//                 [--jammed N]      (InteriorPointOptions::jammed_iterations in maxsim; 0: off)
//                 [--jammed-window W] (InteriorPointOptions::jammed_window in maxsim; W = N: in a row)
//                 [--settled-iterations N] (InteriorPointOptions::settled_iterations in maxsim; 0: max_iterations)
//                 [--compliant-iterations N] (InteriorPointOptions::compliant_iterations in maxsim)
//                 [--sigma-short S] (InteriorPointOptions::sigma_after_short_step in maxsim)
//                 [--centering-scale C] (InteriorPointOptions::centering_scale in maxsim)
//                 [--fraction-to-boundary T] (InteriorPointOptions::fraction_to_boundary in maxsim)
//                 [--full-predictor-fraction T] (InteriorPointOptions::full_predictor_fraction)
//                 [--warm-slack W]  (InteriorPointOptions::warm_slack in maxsim)
//                 [--settled-open-gap G] (InteriorPointOptions::settled_open_gap in maxsim, m)
//                 [--hold-depth H]  (ContactOptions::hold_depth in maxsim, m)
//                 [--min-margin M]  (ContactOptions::min_margin in maxsim, m)
//                 [--pair-min-margin M]  (ContactOptions::pair_min_margin in maxsim, m)
//                 [--pair-margin on|off]  (ContactOptions::pair_margin in maxsim)
//                 [--no-corrector]  (InteriorPointOptions::mehrotra_corrector off in maxsim)
//                 [--joint-friction-rate R] (InteriorPointOptions::joint_friction_rate in maxsim; 0: off)
//                 [--joint-friction-start R] (InteriorPointOptions::joint_friction_start_rate in maxsim; 0: off)
//                 [--match-radius M] (InteriorPointOptions::warm_match_radius in maxsim, m)
//                 [--limit-compliance E] (InteriorPointOptions::limit_compliance in maxsim, per Δt and child mass; 0: rigid)
//                 [--contact-compliance E] (InteriorPointOptions::contact_compliance in maxsim, per Δt and lighter mass; 0: rigid)
//                 [--compliant-retry C] (SolverOptions::compliant_retry in maxsim; 0: no nearly rigid attempt)
//                 [--compliant-retry-iterations N] (SolverOptions::compliant_retry_iterations in maxsim)
//                 [--compliant-retry-steps N] (SolverOptions::compliant_retry_steps in maxsim)
//                 [--inertia-floor R] (LoadOptions::armature_inertia_floor in maxsim; 0: the file's inertias)
//                 [--compliant-limits] (SolverOptions::compliant_limit_fallback on in maxsim)
//                 [--no-compliant-last-resort] (SolverOptions::compliant_last_resort off in maxsim)
//                 [--rigid-contacts] (SolverOptions::compliant_contacts_last_resort off in maxsim)
//                 [--no-sticking-retry] (SolverOptions::sticking_retry off in maxsim)
//                 [--limit-recovery-time TAU|inf] (ModelOptions::limit_recovery_time in maxsim; default: the file's)
//                 [--redraw P]      (seconds between two draws of the commands; 0.5)
//                 [--paired]        (maxsim only: the options above against the defaults on the same states)
//                 [--post-order]    (maxsim: open_candidate_gap < 0, closed_contacts_last off: the order before 2026-11-27)
//                 [--floating-root] (maxsim: SolverOptions::fill_least_root off, the floating body as the root)
//                 [--limit-nodes] (maxsim: SolverOptions::fold_joint_limits off, every limit a node)
//
// The benchmark users judge a simulator for control by: every MJCF file of the corpus
// (tests/data/models, the A1's files) that has actuators — except a robot file that a scene file
// of the corpus includes (the scene, with its floor, is run instead) — loaded into both engines
// from the SAME file, started from the file's own pose (qpos0, at rest), stepped for S seconds
// (default 5) at the file's Δt with every actuator's command drawn uniformly within its control
// range (±1 when it has none) and redrawn every 0.5 s from one seeded sequence shared by the two
// engines. Per robot: steps per second of the stepping loop alone in each engine and their ratio
// (one run, same machine), maxsim's Newton iterations per step (mean, 99th percentile, maximum:
// every attempt of the failure policy included), its steps that failed, did not converge or fell
// back to the relaxed cone, and the deepest penetration seen by each engine (maxsim: its contact
// search; MuJoCo: −dist of its contacts); the JSON also counts the steps over 60 iterations
// (`long_steps`). `--steps N` replaces the duration (instructions per
// step: callgrind over N and 2N steps with --engine, the difference over N, as
// benchmarks/count_control_instructions.sh does; the schedule is drawn per 0.5 s from the start, so
// steps N+1 … 2N see the same commands as in the timed run). `--seeds N` runs each robot under the
// schedules of seeds K … K+N−1 and pools them: steps per second and the iterations' statistics
// over all their steps, the outcomes summed (one seed's schedule hides most of the long steps:
// docs/performance.md, "six seeds"). `--file` takes one corpus path
// exactly; `--list` prints the robot files and runs nothing. `--verbose` prints every maxsim step that did not end
// "ok", fell back to the relaxed cone or took more than 60 Newton iterations (the step's start time, status,
// iterations, residual). Without MuJoCo (libmujoco-dev) its columns say "-".
// MuJoCo 2.2.2 reads the same file with two allowances: the mesh and texture files a file names
// that the corpus leaves out (the Menagerie variants' visual assets) are placeholders that neither
// collide nor weigh (the total mass is checked against maxsim's), and a file that gives a range
// without `limited` is read with <compiler autolimits="true"/>, as MuJoCo 2.3 and maxsim read it.
// Exit status 0, or 2 for bad options or when no file matches.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef MAXSIM_WITH_MUJOCO
#include <mujoco/mujoco.h>
#endif

#include "benchmarks/corpus_sweep.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

namespace {

namespace fs = std::filesystem;
using namespace maxsim;
using Clock = std::chrono::steady_clock;

constexpr double kRedrawPeriod = 0.5;  // s between two draws of the commands
constexpr int kLongStep = 60;  // Newton iterations: a step over it is long (issue 34's bound)

struct Options {
  std::string only, file, json;
  double seconds = 5.0;
  long long steps = 0;  // > 0: replaces seconds
  std::string engine = "both";
  unsigned seed = 1;
  int seeds = 1;  // schedules seed … seed + seeds − 1, pooled per robot
  bool verbose = false;
  bool bodies_first = false;  // SolverOptions::bodies_first
  int reuse = 0;              // SolverOptions::reuse_iterations
  double open_gap = SolverOptions{}.open_candidate_gap;  // SolverOptions::open_candidate_gap
  bool post_order = false;                               // neither open first nor closed last
  bool floating_root = false;                            // SolverOptions::fill_least_root off
  bool limit_nodes = false;                              // SolverOptions::fold_joint_limits off
  bool list = false;  // print the robot files, run nothing
  // the interior-point settings the command line sets: cone_weight, jammed_iterations, settled_iterations,
  // compliant_iterations, sigma_after_short_step, fraction_to_boundary, warm_slack, mehrotra_corrector, joint_friction_rate,
  // joint_friction_start_rate
  InteriorPointOptions ip;
  double compliant_retry = -1;  // (< 0: the model's)
  int compliant_retry_iterations = 0;  // (0: the model's)
  int compliant_retry_steps = -1;  // (< 0: the model's)
  bool paired = false;  // the options above judged on the default solver's own states
  double redraw = kRedrawPeriod;  // s between two draws of the commands
  bool compliant_limits = false;  // SolverOptions::compliant_limit_fallback on
  bool rigid_last_resort = false;  // SolverOptions::compliant_last_resort off
  bool rigid_contacts = false;  // SolverOptions::compliant_contacts_last_resort off
  bool no_sticking_retry = false;  // SolverOptions::sticking_retry off
  double limit_recovery_time = -1;  // ModelOptions::limit_recovery_time (< 0: the file's)
  double hold_depth = -1;           // ContactOptions::hold_depth (< 0: the default)
  double min_margin = -1;           // ContactOptions::min_margin (< 0: the default)
  double pair_min_margin = -1;      // ContactOptions::pair_min_margin (< 0: the default)
  int pair_margin = -1;             // ContactOptions::pair_margin (< 0: the default)
  double inertia_floor = -1;        // LoadOptions::armature_inertia_floor (< 0: the default)
};

// The robot as maxsim loads it under the command line's loader options.
Model load_maxsim(const std::string& file, const Options& o) {
  LoadOptions lo;
  if (o.inertia_floor >= 0) lo.armature_inertia_floor = o.inertia_floor;
  return load_model(file, lo);
}

// The solver options the command line sets (their defaults leave the model's).
void configure(Model* m, const Options& o) {
  m->opt.solver.bodies_first = o.bodies_first;
  m->opt.solver.reuse_iterations = o.reuse;
  m->opt.solver.open_candidate_gap = o.post_order ? -1.0 : o.open_gap;
  if (o.post_order) m->opt.solver.closed_contacts_last = false;
  if (o.floating_root) m->opt.solver.fill_least_root = false;
  if (o.limit_nodes) m->opt.solver.fold_joint_limits = false;
  m->opt.interior_point.cone_weight = o.ip.cone_weight;
  m->opt.interior_point.weighted_cone_test = o.ip.weighted_cone_test;
  m->opt.interior_point.cone_direction_tolerance = o.ip.cone_direction_tolerance;
  m->opt.interior_point.jammed_iterations = o.ip.jammed_iterations;
  m->opt.interior_point.jammed_window = o.ip.jammed_window;
  m->opt.interior_point.settled_iterations = o.ip.settled_iterations;
  m->opt.interior_point.compliant_iterations = o.ip.compliant_iterations;
  m->opt.interior_point.sigma_after_short_step = o.ip.sigma_after_short_step;
  m->opt.interior_point.centering_scale = o.ip.centering_scale;
  m->opt.interior_point.fraction_to_boundary = o.ip.fraction_to_boundary;
  m->opt.interior_point.full_predictor_fraction = o.ip.full_predictor_fraction;
  m->opt.interior_point.warm_slack = o.ip.warm_slack;
  m->opt.interior_point.settled_open_gap = o.ip.settled_open_gap;
  m->opt.interior_point.mehrotra_corrector = o.ip.mehrotra_corrector;
  m->opt.interior_point.joint_friction_rate = o.ip.joint_friction_rate;
  m->opt.interior_point.joint_friction_start_rate = o.ip.joint_friction_start_rate;
  m->opt.interior_point.warm_match_radius = o.ip.warm_match_radius;
  m->opt.interior_point.limit_compliance = o.ip.limit_compliance;
  m->opt.interior_point.contact_compliance = o.ip.contact_compliance;
  m->opt.solver.compliant_limit_fallback = o.compliant_limits;
  if (o.compliant_retry >= 0) m->opt.solver.compliant_retry = o.compliant_retry;
  if (o.compliant_retry_iterations > 0) m->opt.solver.compliant_retry_iterations = o.compliant_retry_iterations;
  if (o.compliant_retry_steps >= 0) m->opt.solver.compliant_retry_steps = o.compliant_retry_steps;
  if (o.rigid_last_resort) m->opt.solver.compliant_last_resort = false;
  if (o.rigid_contacts) m->opt.solver.compliant_contacts_last_resort = false;
  if (o.no_sticking_retry) m->opt.solver.sticking_retry = false;
  if (o.limit_recovery_time >= 0) m->opt.limit_recovery_time = o.limit_recovery_time;
  if (o.hold_depth >= 0) m->opt.contact.hold_depth = o.hold_depth;
  if (o.min_margin >= 0) m->opt.contact.min_margin = o.min_margin;
  if (o.pair_min_margin >= 0) m->opt.contact.pair_min_margin = o.pair_min_margin;
  if (o.pair_margin >= 0) m->opt.contact.pair_margin = o.pair_margin == 1;
}

// The command schedule: row k holds every actuator's command over [k·P, (k+1)·P), P the period
// (0.5 s; --redraw).
struct Schedule {
  std::vector<std::vector<double>> rows;
  double period = kRedrawPeriod;
  const std::vector<double>& at(double t) const {
    const size_t k = std::min(rows.size() - 1, static_cast<size_t>(std::max(0.0, t) / period));
    return rows[k];
  }
};

Schedule make_schedule(const Model& m, double duration, unsigned seed, double period) {
  Schedule s;
  s.period = period;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int periods = static_cast<int>(std::ceil(duration / period)) + 1;
  for (int k = 0; k < periods; ++k) {
    std::vector<double> u(m.actuators.size());
    for (size_t i = 0; i < u.size(); ++i) {
      const Actuator& a = m.actuators[i];
      const double lo = a.ctrl_limited ? a.ctrl_lower : -1.0, hi = a.ctrl_limited ? a.ctrl_upper : 1.0;
      u[i] = lo + (hi - lo) * unit(rng);
    }
    s.rows.push_back(std::move(u));
  }
  return s;
}

struct Result {
  bool ran = false;
  std::string error;
  long long steps = 0;
  double steps_per_s = 0, penetration = 0;
  // maxsim only
  double iterations_mean = 0;
  int iterations_p99 = 0, iterations_max = 0;
  long long failed = 0, unconverged = 0, relaxed = 0, substepped = 0;
  std::vector<int> iterations;  // per step (maxsim), sorted
};

// Iterations per step: mean, 99th percentile, maximum (sorts `its`).
void iteration_stats(std::vector<int>* its, double* mean, int* p99, int* max) {
  if (its->empty()) return;
  double sum = 0;
  for (int i : *its) sum += i;
  *mean = sum / static_cast<double>(its->size());
  std::sort(its->begin(), its->end());
  *max = its->back();
  *p99 = (*its)[static_cast<size_t>(0.99 * static_cast<double>(its->size() - 1))];
}

Result run_maxsim(const std::string& file, const Schedule& schedule, long long steps, const Options& o) {
  const bool verbose = o.verbose;
  Result r;
  Model m = load_maxsim(file, o);
  configure(&m, o);
  Data d(m);
  enable_contacts(m, d);
  std::vector<int> iterations;
  iterations.reserve(static_cast<size_t>(steps));
  double wall = 0;
  StepSummary summary;  // every step's outcome
  for (long long k = 0; k < steps; ++k) {
    d.ctrl = schedule.at(d.time);
    const double start = d.time;
    const Clock::time_point t0 = Clock::now();
    const StepReport rep = step(m, d);
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    summary.add(rep, start);
    iterations.push_back(rep.iterations);
    if (verbose && (rep.status != StepStatus::Ok || rep.relaxed || rep.iterations > kLongStep))
      std::fprintf(stderr, "  t = %.4f s: %s, %d iterations, residual %.3g%s%s\n", start, step_status_name(rep.status),
                   rep.iterations, rep.residual, rep.relaxed ? ", relaxed cone" : "", rep.substeps ? ", substeps" : "");
    r.penetration = std::max(r.penetration, max_penetration(d));
    ++r.steps;
    if (rep.status == StepStatus::Failed) break;
  }
  r.ran = true;
  r.failed = summary.failed_steps;
  r.unconverged = summary.not_converged_steps;
  r.relaxed = summary.relaxed_steps;
  r.substepped = summary.substepped_steps;
  r.steps_per_s = wall > 0 ? static_cast<double>(r.steps) / wall : 0;
  iteration_stats(&iterations, &r.iterations_mean, &r.iterations_p99, &r.iterations_max);
  r.iterations = std::move(iterations);
  return r;
}

// --seeds: the runs of one robot under several schedules as one: steps per second over all their
// steps, the iterations' statistics over all their steps, the outcomes summed, the deepest
// penetration; an error if any run has one.
Result pooled(const std::vector<Result>& runs) {
  Result p;
  p.ran = true;
  double wall = 0;
  for (const Result& r : runs) {
    if (!r.ran) return r;
    p.steps += r.steps;
    wall += r.steps_per_s > 0 ? static_cast<double>(r.steps) / r.steps_per_s : 0;
    p.penetration = std::max(p.penetration, r.penetration);
    p.failed += r.failed;
    p.unconverged += r.unconverged;
    p.relaxed += r.relaxed;
    p.substepped += r.substepped;
    p.iterations.insert(p.iterations.end(), r.iterations.begin(), r.iterations.end());
  }
  p.steps_per_s = wall > 0 ? static_cast<double>(p.steps) / wall : 0;
  iteration_stats(&p.iterations, &p.iterations_mean, &p.iterations_p99, &p.iterations_max);
  return p;
}

// --paired: a change of the solver judged on the same states. The run follows the default
// solver; every step is also solved from a copy of the same state with the options given, so the
// two columns of iterations see the same problems (two runs of their own part after the first
// hard step — the robots are chaotic under random commands — and then compare trajectories, not
// solvers). The largest difference of the two answers' velocities says whether the change moved
// the answer beyond the tolerances.
void run_paired(const std::string& f, const std::string& file, const Schedule& schedule, long long steps,
                const Options& o) {
  const Model base = load_maxsim(file, o);
  Model alt = base;
  configure(&alt, o);
  Data d(base);
  enable_contacts(base, d);
  std::vector<int> its[2];
  long long not_ok[2] = {0, 0};
  double diff = 0, at = 0;
  for (long long k = 0; k < steps; ++k) {
    d.ctrl = schedule.at(d.time);
    Data copy = d;
    const StepReport b = step(alt, copy);
    const StepReport a = step(base, d);
    its[0].push_back(a.iterations);
    its[1].push_back(b.iterations);
    not_ok[0] += a.status != StepStatus::Ok || a.relaxed;
    not_ok[1] += b.status != StepStatus::Ok || b.relaxed;
    const std::vector<double> va = get_qvel(base, d), vb = get_qvel(alt, copy);
    double e = 0;
    for (size_t j = 0; j < va.size(); ++j) e = std::max(e, std::abs(va[j] - vb[j]));
    if (e > diff) diff = e, at = d.time;
    if (o.verbose && e > 1e-3)
      std::fprintf(stderr, "  t = %.4f s: velocities %.2e apart; default %s, %d iterations%s; options %s, %d iterations%s\n",
                   d.time, e, step_status_name(a.status), a.iterations, a.substeps ? ", substeps" : "",
                   step_status_name(b.status), b.iterations, b.substeps ? ", substeps" : "");
    if (a.status == StepStatus::Failed) break;
  }
  double mean[2] = {0, 0};
  int p99[2] = {0, 0}, max[2] = {0, 0};
  for (int k = 0; k < 2; ++k) iteration_stats(&its[k], &mean[k], &p99[k], &max[k]);
  std::printf("| %s | %zu | %.1f / %d / %d | %.1f / %d / %d | %lld / %lld | %.1e (t = %.3f s) |\n", f.c_str(),
              its[0].size(), mean[0], p99[0], max[0], mean[1], p99[1], max[1], not_ok[0], not_ok[1], diff, at);
  std::fflush(stdout);
}

// A file's whole text ("" when it cannot be read).
std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

#ifdef MAXSIM_WITH_MUJOCO
void quiet_warning(const char*) {}  // (MuJoCo would append to MUJOCO_LOG.TXT in the working directory)

// The mesh and texture files a file names that the corpus leaves out (the Menagerie variants'
// visual meshes and textures, as their READMEs say), as placeholders in MuJoCo's virtual file
// system, which it reads before the disk: a 1 mm tetrahedron for a mesh, one grey pixel for a
// texture. maxsim loads such a file without them; MuJoCo refuses it. Returns how many.
// Puts `size` bytes under `name` in the virtual file system; false if it is full or has the name.
bool put_in_vfs(mjVFS* vfs, const std::string& name, const void* data, int size) {
  if (mj_makeEmptyFileVFS(vfs, name.c_str(), size) != 0) return false;
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs, name.c_str())], data, static_cast<size_t>(size));
  return true;
}

int placeholder_assets(const std::string& file, mjVFS* vfs) {
  static const std::string tetrahedron = "v 0 0 0\nv 0.001 0 0\nv 0 0.001 0\nv 0 0 0.001\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  static const unsigned char pixel[] = {  // a 1 x 1 RGB PNG
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
      0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00,
      0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x68, 0x68, 0x68, 0x00, 0x00, 0x03, 0x04, 0x01, 0x81, 0x4b,
      0xd3, 0xd2, 0x10, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
  const fs::path dir = fs::path(file).parent_path();
  std::vector<std::string> on_disk;  // every file name under the file's directory
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) on_disk.push_back(e.path().filename().string());
  int added = 0;
  std::vector<fs::path> xml = {fs::path(file)};
  for (size_t i = 0; i < xml.size(); ++i) {
    const std::string s = file_text(xml[i]);
    for (size_t p = s.find(" file=\""); p != std::string::npos; p = s.find(" file=\"", p + 1)) {
      const size_t a = p + 7, b = s.find('"', a);
      if (b == std::string::npos) break;
      const fs::path named = s.substr(a, b - a);
      const std::string name = named.filename().string(), ext = named.extension().string();
      if (ext == ".xml" && fs::exists(dir / named)) xml.push_back(dir / named);  // (an <include>)
      if (std::find(on_disk.begin(), on_disk.end(), name) != on_disk.end() || mj_findFileVFS(vfs, name.c_str()) >= 0)
        continue;
      const bool mesh = ext == ".obj", texture = ext == ".png";
      if (!mesh && !texture) continue;
      const int size = mesh ? static_cast<int>(tetrahedron.size()) : static_cast<int>(sizeof pixel);
      if (put_in_vfs(vfs, name, mesh ? static_cast<const void*>(tetrahedron.data()) : pixel, size)) ++added;
    }
  }
  return added;
}

Result run_mujoco(const std::string& file, const Model& model, const Schedule& schedule, long long steps) {
  Result r;
  mju_user_warning = quiet_warning;
  char err[1000] = "";
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  const int placeholders = placeholder_assets(file, &vfs);
  mjModel* m = mj_loadXML(file.c_str(), &vfs, err, sizeof err);
  if (m == nullptr && std::strstr(err, "autolimits") != nullptr) {
    // MuJoCo 2.2.2 refuses a range without `limited`, which 2.3 and maxsim read as limited: the
    // same file with <compiler autolimits="true"/>, from the virtual file system
    std::string s = file_text(file);
    const size_t open = s.find("<mujoco"), end = open == std::string::npos ? open : s.find('>', open);
    if (end != std::string::npos) {
      s.insert(end + 1, "<compiler autolimits=\"true\"/>");
      if (put_in_vfs(&vfs, fs::path(file).filename().string(), s.data(), static_cast<int>(s.size()))) {
        err[0] = 0;
        m = mj_loadXML(file.c_str(), &vfs, err, sizeof err);
      }
    }
  }
  mj_deleteVFS(&vfs);
  if (m == nullptr) {
    r.error = err[0] ? err : "MuJoCo could not load the file";
    return r;
  }
  double mass[2] = {0, 0};  // MuJoCo's, maxsim's: placeholders must not weigh
  for (int b = 0; b < m->nbody; ++b) mass[0] += m->body_mass[b];
  for (const Body& b : model.bodies) mass[1] += b.mass;
  if (placeholders > 0 && std::abs(mass[0] - mass[1]) > 1e-6 * mass[1]) {
    r.error = "MuJoCo's mass with placeholder assets " + std::to_string(mass[0]) + " kg, maxsim's " + std::to_string(mass[1]);
    mj_deleteModel(m);
    return r;
  }
  if (m->nu != model.nu()) {
    r.error = "MuJoCo has " + std::to_string(m->nu) + " actuators, maxsim " + std::to_string(model.nu());
    mj_deleteModel(m);
    return r;
  }
  m->opt.timestep = model.opt.timestep;  // the same Δt in both engines
  mjData* d = mj_makeData(m);
  double wall = 0;
  for (long long k = 0; k < steps; ++k) {
    const std::vector<double>& u = schedule.at(d->time);
    std::copy(u.begin(), u.end(), d->ctrl);
    const Clock::time_point t0 = Clock::now();
    mj_step(m, d);
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    for (int c = 0; c < d->ncon; ++c) r.penetration = std::max(r.penetration, -d->contact[c].dist);
    ++r.steps;
  }
  r.ran = true;
  r.steps_per_s = wall > 0 ? static_cast<double>(r.steps) / wall : 0;
  mj_deleteData(d);
  mj_deleteModel(m);
  return r;
}
#endif

// The corpus's MJCF files with actuators, without robot files that a scene of the corpus includes.
std::vector<std::string> control_files(const std::string& root) {
  std::vector<std::string> xml, included, out;
  for (const std::string& f : corpus_files(root))
    if (fs::path(f).extension() == ".xml") xml.push_back(f);
  for (const std::string& f : xml) {
    const std::string s = file_text(fs::path(root) / f);
    for (size_t p = s.find("<include"); p != std::string::npos; p = s.find("<include", p + 1)) {
      const size_t a = s.find("file=\"", p);
      if (a == std::string::npos) continue;
      const size_t b = s.find('"', a + 6);
      included.push_back((fs::path(f).parent_path() / s.substr(a + 6, b - a - 6)).lexically_normal().generic_string());
    }
  }
  for (const std::string& f : xml)
    if (std::find(included.begin(), included.end(), f) == included.end()) out.push_back(f);
  return out;
}

std::string fmt(double v, const char* f = "%.3g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

int run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--only") o.only = value();
    else if (a == "--json") o.json = value();
    else if (a == "--seconds") o.seconds = std::stod(value());
    else if (a == "--steps") o.steps = std::stoll(value());
    else if (a == "--engine") o.engine = value();
    else if (a == "--seed") o.seed = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--seeds") {
      o.seeds = std::stoi(value());
      if (o.seeds < 1 || o.seeds > 1000) throw std::invalid_argument("--seeds must be a number of schedules in [1, 1000]");
    }
    else if (a == "--file") o.file = value();
    else if (a == "--list") o.list = true;
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--bodies-first") o.bodies_first = true;
    else if (a == "--post-order") o.post_order = true;
    else if (a == "--floating-root") o.floating_root = true;
    else if (a == "--limit-nodes") o.limit_nodes = true;
    else if (a == "--paired") o.paired = true;
    else if (a == "--reuse") {
      o.reuse = std::stoi(value());
      if (o.reuse < 0) throw std::invalid_argument("--reuse must be an iteration count >= 0");
    }
    else if (a == "--compliant-limits") o.compliant_limits = true;
    else if (a == "--no-compliant-last-resort") o.rigid_last_resort = true;
    else if (a == "--rigid-contacts") o.rigid_contacts = true;
    else if (a == "--no-sticking-retry") o.no_sticking_retry = true;
    else if (a == "--limit-recovery-time") {
      const std::string v = value();
      o.limit_recovery_time = v == "inf" ? std::numeric_limits<double>::infinity() : std::stod(v);
      if (!limit_recovery_time_valid(o.limit_recovery_time))
        throw std::invalid_argument("--limit-recovery-time must be seconds >= 0 or inf");
    }
    else if (a == "--no-corrector") o.ip.mehrotra_corrector = false;
    else if (a == "--strict-cone-test") o.ip.weighted_cone_test = false;
    else if (a == "--full-predictor-fraction") {
      const double v = std::stod(value());
      if (!(v >= 0 && v < 1)) throw std::invalid_argument("--full-predictor-fraction must be in [0, 1)");
      o.ip.full_predictor_fraction = v;
    }
    else if (a == "--sigma-short" || a == "--fraction-to-boundary" || a == "--warm-slack") {
      const double v = std::stod(value());
      const bool unit = a != "--warm-slack";  // (σ and τ lie in (0, 1]; the slack is > 0)
      if (!std::isfinite(v) || !(v > 0) || (unit && v > 1))
        throw std::invalid_argument(a + (unit ? " must be in (0, 1]" : " must be a finite number > 0"));
      (a == "--sigma-short" ? o.ip.sigma_after_short_step : a == "--fraction-to-boundary" ? o.ip.fraction_to_boundary : o.ip.warm_slack) = v;
    }
    else if (a == "--compliant-retry") {
      o.compliant_retry = std::stod(value());
      if (!(o.compliant_retry >= 0) || !std::isfinite(o.compliant_retry))
        throw std::invalid_argument("--compliant-retry must be a finite compliance >= 0");
    }
    else if (a == "--inertia-floor") {
      o.inertia_floor = std::stod(value());
      if (!(o.inertia_floor >= 0 && o.inertia_floor <= 1e-3))
        throw std::invalid_argument("--inertia-floor must be a ratio in [0, 1e-3]");
    }
    else if (a == "--compliant-retry-steps") {
      o.compliant_retry_steps = std::stoi(value());
      if (o.compliant_retry_steps < 0) throw std::invalid_argument("--compliant-retry-steps must be >= 0");
    }
    else if (a == "--compliant-retry-iterations") {
      o.compliant_retry_iterations = std::stoi(value());
      if (o.compliant_retry_iterations < 1) throw std::invalid_argument("--compliant-retry-iterations must be >= 1");
    }
    else if (a == "--settled-open-gap") {
      o.ip.settled_open_gap = std::stod(value());
      if (!(o.ip.settled_open_gap > 0) || !std::isfinite(o.ip.settled_open_gap))
        throw std::invalid_argument("--settled-open-gap must be a finite distance > 0 (m)");
    }
    else if (a == "--centering-scale") {
      o.ip.centering_scale = std::stod(value());
      if (!(o.ip.centering_scale > 0 && o.ip.centering_scale <= 1))
        throw std::invalid_argument("--centering-scale must be in (0, 1]");
    }
    else if (a == "--pair-margin") {
      const std::string v = value();
      if (v != "on" && v != "off") throw std::invalid_argument("--pair-margin must be on or off");
      o.pair_margin = v == "on";
    }
    else if (a == "--min-margin") {
      o.min_margin = std::stod(value());
      if (!(o.min_margin >= 0) || !std::isfinite(o.min_margin))
        throw std::invalid_argument("--min-margin must be a finite distance >= 0 (m)");
    }
    else if (a == "--pair-min-margin") {
      o.pair_min_margin = std::stod(value());
      if (!(o.pair_min_margin >= 0) || !std::isfinite(o.pair_min_margin))
        throw std::invalid_argument("--pair-min-margin must be a finite distance >= 0 (m)");
    }
    else if (a == "--hold-depth") {
      o.hold_depth = std::stod(value());
      if (!(o.hold_depth >= 0) || !std::isfinite(o.hold_depth))
        throw std::invalid_argument("--hold-depth must be a finite depth >= 0 (m)");
    }
    else if (a == "--cone-weight") {
      o.ip.cone_weight = std::stod(value());
      if (!(o.ip.cone_weight > 0) || !std::isfinite(o.ip.cone_weight))
        throw std::invalid_argument("--cone-weight must be a finite number of seconds > 0");
    }
    else if (a == "--cone-direction") {
      o.ip.cone_direction_tolerance = std::stod(value());
      if (!(o.ip.cone_direction_tolerance >= 0) || !std::isfinite(o.ip.cone_direction_tolerance))
        throw std::invalid_argument("--cone-direction must be a finite angle in radians >= 0");
    }
    else if (a == "--joint-friction-rate") {
      o.ip.joint_friction_rate = std::stod(value());
      if (!(o.ip.joint_friction_rate >= 0) || !std::isfinite(o.ip.joint_friction_rate))
        throw std::invalid_argument("--joint-friction-rate must be a finite rate >= 0 (rad/s)");
    }
    else if (a == "--joint-friction-start") {
      o.ip.joint_friction_start_rate = std::stod(value());
      if (!(o.ip.joint_friction_start_rate >= 0) || !std::isfinite(o.ip.joint_friction_start_rate))
        throw std::invalid_argument("--joint-friction-start must be a finite rate >= 0 (rad/s)");
    }
    else if (a == "--match-radius") {
      o.ip.warm_match_radius = std::stod(value());
      if (!(o.ip.warm_match_radius >= 0) || !std::isfinite(o.ip.warm_match_radius))
        throw std::invalid_argument("--match-radius must be a finite distance >= 0 (m)");
    }
    else if (a == "--redraw") {
      o.redraw = std::stod(value());
      if (!(o.redraw > 0) || !std::isfinite(o.redraw)) throw std::invalid_argument("--redraw must be a finite period > 0 (s)");
    }
    else if (a == "--limit-compliance") {
      o.ip.limit_compliance = std::stod(value());
      if (!(o.ip.limit_compliance >= 0) || !std::isfinite(o.ip.limit_compliance))
        throw std::invalid_argument("--limit-compliance must be a finite compliance >= 0 (per Δt and child mass)");
    }
    else if (a == "--contact-compliance") {
      o.ip.contact_compliance = std::stod(value());
      if (!(o.ip.contact_compliance >= 0) || !std::isfinite(o.ip.contact_compliance))
        throw std::invalid_argument("--contact-compliance must be a finite compliance >= 0 (per Δt and lighter mass)");
    }
    else if (a == "--jammed") {
      o.ip.jammed_iterations = std::stoi(value());
      if (o.ip.jammed_iterations < 0 || o.ip.jammed_iterations > 64)
        throw std::invalid_argument("--jammed must be a number of iterations in [0, 64]");
    }
    else if (a == "--jammed-window") {
      o.ip.jammed_window = std::stoi(value());
      if (o.ip.jammed_window < 1 || o.ip.jammed_window > 64)
        throw std::invalid_argument("--jammed-window must be a number of iterations in [1, 64]");
    }
    else if (a == "--settled-iterations") {
      o.ip.settled_iterations = std::stoi(value());
      if (o.ip.settled_iterations < 0) throw std::invalid_argument("--settled-iterations must be a number of iterations >= 0");
    }
    else if (a == "--compliant-iterations") {
      o.ip.compliant_iterations = std::stoi(value());
      if (o.ip.compliant_iterations < 1) throw std::invalid_argument("--compliant-iterations must be a number of iterations >= 1");
    }
    else if (a == "--open-gap") {
      o.open_gap = std::stod(value());
      if (!std::isfinite(o.open_gap)) throw std::invalid_argument("--open-gap must be a finite number of metres");
    }
    else throw std::invalid_argument("unknown option '" + a + "'");
  }
  if (o.paired && !o.json.empty()) throw std::invalid_argument("--paired prints its table only: no --json");
  if (o.paired && o.seeds > 1) throw std::invalid_argument("--paired runs one schedule: no --seeds");
  if (o.engine != "both" && o.engine != "maxsim" && o.engine != "mujoco")
    throw std::invalid_argument("--engine must be both, maxsim or mujoco");
  if (!(o.seconds > 0) || o.steps < 0) throw std::invalid_argument("--seconds must be > 0 and --steps >= 0");
  const std::string root = MAXSIM_SOURCE_DIR;
  std::vector<std::string> files;
  for (const std::string& f : control_files(root))
    if ((o.only.empty() || f.find(o.only) != std::string::npos) && (o.file.empty() || f == o.file)) files.push_back(f);
  if (o.list) {
    int listed = 0;
    for (const std::string& f : files) {
      try {
        if (load_model((fs::path(root) / f).string()).nu() == 0) continue;
      } catch (const std::exception&) {
        continue;
      }
      std::printf("%s\n", f.c_str());
      ++listed;
    }
    return listed ? 0 : 2;
  }
  std::ostringstream json;
  json << "{\"seconds\":" << o.seconds << ",\"seed\":" << o.seed << ",\"seeds\":" << o.seeds << ",\"robots\":[";
  if (o.paired)
    std::printf("| file | steps | iterations, default solver: mean / p99 / max | the options given, same states | "
                "steps not ok or relaxed: default / options | largest velocity difference |\n|---|---|---|---|---|---|\n");
  else
    std::printf("| file | Δt | nu | maxsim steps/s | MuJoCo steps/s | ratio | iterations mean / p99 / max | "
                "failed / unconverged / relaxed | penetration maxsim / MuJoCo [m] |\n|---|---|---|---|---|---|---|---|---|\n");
  int listed = 0;
  for (const std::string& f : files) {
    const std::string path = (fs::path(root) / f).string();
    Model m;
    try {
      m = load_model(path);
    } catch (const std::exception&) {
      continue;  // (the corpus sweep reports files that do not load)
    }
    if (m.nu() == 0) continue;
    const long long steps = o.steps > 0 ? o.steps : static_cast<long long>(std::llround(o.seconds / m.opt.timestep));
    const Schedule schedule = make_schedule(m, static_cast<double>(steps) * m.opt.timestep, o.seed, o.redraw);
    if (o.paired) {
      try {
        run_paired(f, path, schedule, steps, o);
      } catch (const std::exception& e) {
        std::printf("| %s | %s |\n", f.c_str(), e.what());
      }
      ++listed;  // (a row either way, as below)
      continue;
    }
    std::vector<Result> runs[2];
    for (int k = 0; k < o.seeds; ++k) {
      const Schedule& sk = k == 0 ? schedule : make_schedule(m, static_cast<double>(steps) * m.opt.timestep,
                                                             o.seed + static_cast<unsigned>(k), o.redraw);
      if (o.engine != "mujoco") {
        Result a;
        try {
          a = run_maxsim(path, sk, steps, o);
        } catch (const std::exception& e) {
          a.error = e.what();
        }
        runs[0].push_back(a);
      }
#ifdef MAXSIM_WITH_MUJOCO
      if (o.engine != "maxsim") runs[1].push_back(run_mujoco(path, m, sk, steps));
#endif
    }
    const Result a = runs[0].empty() ? Result{} : pooled(runs[0]);
    const Result b = runs[1].empty() ? Result{} : pooled(runs[1]);
    const bool both = a.ran && b.ran && b.steps_per_s > 0;
    std::printf("| %s | %g | %d | %s | %s | %s | %s / %d / %d | %lld / %lld / %lld | %s / %s |\n", f.c_str(),
                m.opt.timestep, m.nu(), a.ran ? fmt(a.steps_per_s, "%.0f").c_str() : a.error.substr(0, 40).c_str(),
                b.ran ? fmt(b.steps_per_s, "%.0f").c_str() : (b.error.empty() ? "-" : b.error.substr(0, 40).c_str()),
                both ? fmt(a.steps_per_s / b.steps_per_s).c_str() : "-", fmt(a.iterations_mean, "%.1f").c_str(),
                a.iterations_p99, a.iterations_max, a.failed, a.unconverged, a.relaxed, fmt(a.penetration).c_str(),
                b.ran ? fmt(b.penetration).c_str() : "-");
    std::fflush(stdout);
    json << (listed++ ? "," : "") << "{\"file\":\"" << f << "\",\"dt\":" << m.opt.timestep << ",\"nu\":" << m.nu()
         << ",\"steps\":" << steps << ",\"maxsim_steps_per_s\":" << a.steps_per_s
         << ",\"mujoco_steps_per_s\":" << b.steps_per_s << ",\"ratio\":" << (both ? a.steps_per_s / b.steps_per_s : 0)
         << ",\"iterations_mean\":" << a.iterations_mean << ",\"iterations_p99\":" << a.iterations_p99
         << ",\"iterations_max\":" << a.iterations_max << ",\"failed\":" << a.failed
         << ",\"unconverged\":" << a.unconverged << ",\"relaxed\":" << a.relaxed << ",\"substepped\":" << a.substepped
         << ",\"long_steps\":"
         << std::count_if(a.iterations.begin(), a.iterations.end(), [](int i) { return i > kLongStep; })
         << ",\"maxsim_penetration\":" << a.penetration << ",\"mujoco_penetration\":" << b.penetration << "}";
  }
  json << "]}\n";
  if (listed == 0)
    throw std::invalid_argument("no corpus file with actuators matches '" + (o.file.empty() ? o.only : o.file) + "'");
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << json.str();
    if (!out) throw std::runtime_error("cannot write " + o.json);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "bench_control: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_control: %s\n", e.what());
    return 1;
  }
}
