#include "benchmarks/corpus_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "io/report.hpp"
#include "run/setup.hpp"
#include "controllers/actuator.hpp"
#include "controllers/controller.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

namespace maxsim {

namespace fs = std::filesystem;

namespace {

using run::fmt;
using run::g6;
// A height in the table: millimetres, without the "-0.000" of a tiny negative number.
std::string height(double z) { return fmt("%.3f", std::abs(z) < 0.0005 ? 0.0 : z); }

bool model_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".urdf" || ext == ".xml";
}

// The first line of a message, with the root's absolute path taken out of file names (the table
// shows paths relative to the root).
std::string first_line(std::string message, const std::string& root) {
  message = message.substr(0, message.find('\n'));
  const std::string prefix = (fs::path(root) / "").string();
  for (size_t at; (at = message.find(prefix)) != std::string::npos;) message.erase(at, prefix.size());
  return message;
}

// ---- the `pd` scenario ------------------------------------------------------------------------

// The spanning tree of the joints hung from the world (sim/state/kinematics.hpp's, joints followed in
// either direction): per body, the tree joint that reaches it and the body it is reached from
// (kWorld for the world).
struct Tree {
  std::vector<int> via, up;
};
Tree tree_from_world(const Model& m) {
  const int nb = static_cast<int>(m.bodies.size());
  const std::vector<bool> tree = spanning_tree_joints(m);
  Tree t{std::vector<int>(nb, -1), std::vector<int>(nb, kWorld)};
  std::vector<char> seen(nb, 0);
  std::vector<int> queue = {kWorld};
  for (size_t head = 0; head < queue.size(); ++head) {
    const int u = queue[head];
    for (size_t j = 0; j < m.joints.size(); ++j) {
      if (!tree[j]) continue;
      const Joint& jt = m.joints[j];
      const int v = jt.parent == u ? jt.child : jt.child == u ? jt.parent : -2;
      if (v < 0 || seen[v]) continue;  // -2: not incident; kWorld is never revisited
      seen[v] = 1;
      t.via[v] = static_cast<int>(j);
      t.up[v] = u;
      queue.push_back(v);
    }
  }
  return t;
}

// subtree_inertia with the tree computed once for all rows
double subtree_inertia_in(const Model& m, const Data& d, const Tree& t, int joint, int row) {
  const Joint& jt = m.joints[joint];
  int below = -1;
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (t.via[b] == joint) below = static_cast<int>(b);
  if (below < 0) below = jt.child;  // a loop-closing joint: its child's side
  // joint axis and origin in the world, from the parent side
  Mat3 rp = Mat3::Identity();
  Vec3 xp = Vec3::Zero();
  if (jt.parent != kWorld) {
    rp = quat_to_rot(d.q[jt.parent]);
    xp = d.x[jt.parent];
  }
  const Vec3 axis = (rp * quat_to_rot(jt.parent_frame) * Vec3::UnitZ()).normalized();
  const Vec3 origin = xp + rp * jt.parent_anchor;
  const bool rotation = row >= 3;
  double inertia = jt.armature[row];
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    int a = static_cast<int>(b);
    while (a != kWorld && a != below) a = t.up[a];
    if (a != below) continue;
    const Body& body = m.bodies[b];
    if (!rotation) {
      inertia += body.mass;
      continue;
    }
    const Mat3 r = quat_to_rot(d.q[b]);
    const Vec3 arm = d.x[b] - origin;
    const Vec3 perp = arm - arm.dot(axis) * axis;
    inertia += axis.dot(r * body.inertia * r.transpose() * axis) + body.mass * perp.squaredNorm();
  }
  return inertia;
}

// Uniform in [0, 1) from 53 random bits: the same numbers from any standard library (the
// distributions of <random> are implementation-defined).
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// The PD of the `pd` scenario on every actuated 1-dof joint row, targets re-drawn every `period`
// seconds. The P part is an actuator (controllers/actuator.hpp, kind PD with kv = 0, gear 1:
// f = kp (u − q)), its torque clamped to what the file's actuators on that row can give; the D
// part is added to the row's own damper (Joint::damping), which the step applies implicitly at
// the end of the interval. A D term computed from the state at the start of the step is an
// explicit damper: on a light distal link the row meets far less inertia than the locked subtree
// the gains come from, kv Δt / I passes 2 and the loop itself diverges (a controller
// instability, not a solver one). Returns the rows driven.
int install_random_pd(Model& m, Data& d, const SweepOptions& o) {
  const std::vector<Actuator> file_actuators = actuators_from_model(m);
  const Tree tree = tree_from_world(m);
  const double omega = 2.0 * M_PI * o.pd_frequency_hz;
  struct Row {
    double lower, upper;
  };
  std::vector<Actuator> pd;
  std::vector<Row> ranges;
  for (const Actuator& fa : file_actuators) {
    const Joint& jt = m.joints[fa.joint];
    if (jt.dof() != 1) continue;
    bool seen = false;
    for (const Actuator& p : pd) seen |= p.joint == fa.joint && p.row == fa.row;
    if (seen) continue;
    Actuator a;
    a.name = jt.name;
    a.kind = Actuator::Kind::PD;
    a.joint = fa.joint;
    a.row = fa.row;
    const double inertia = subtree_inertia_in(m, d, tree, fa.joint, fa.row);
    a.kp = inertia * omega * omega;
    a.kv = 0.0;
    m.joints[fa.joint].damping[fa.row] += 2.0 * o.pd_damping_ratio * inertia * omega;
    // the joint torque the file's actuators on this row can give (they sum on a row): the force
    // range times the gear; a motor's control range is its force range (f = u)
    double lo = 0, hi = 0;
    bool limited = true;
    for (const Actuator& f : file_actuators) {
      if (f.joint != fa.joint || f.row != fa.row) continue;
      double flo, fhi;
      if (f.force_limited) {
        flo = f.force_lower, fhi = f.force_upper;
      } else if (f.kind == Actuator::Kind::Motor && f.ctrl_limited) {
        flo = f.ctrl_lower, fhi = f.ctrl_upper;
      } else {
        limited = false;
        break;
      }
      lo += std::min(f.gear * flo, f.gear * fhi);
      hi += std::max(f.gear * flo, f.gear * fhi);
    }
    if (limited) {
      a.force_limited = true;
      a.force_lower = lo;
      a.force_upper = hi;
    }
    const double start = row_coordinate(m, d, fa.joint, fa.row).q;
    if (jt.has_limits && jt.lower[fa.row] < jt.upper[fa.row])
      ranges.push_back({jt.lower[fa.row], jt.upper[fa.row]});
    else
      ranges.push_back({start - 0.5, start + 0.5});
    pd.push_back(a);
  }
  struct State {
    std::vector<Actuator> pd;
    std::vector<Row> ranges;
    ActuatorCommands commands;
    std::mt19937_64 rng;
    long long period_index = -1;
    double period = 0.5;
  };
  auto s = std::make_shared<State>();
  s->pd = pd;
  s->ranges = ranges;
  s->commands = ActuatorCommands(pd.size());
  s->rng.seed(o.pd_seed);
  s->period = o.pd_period;
  set_controller(d, [s](const Model& model, Data& data) {
    // new targets at t = 0, period, 2 period, ... (the guard absorbs the time's round-off)
    const long long k = static_cast<long long>(std::floor(data.time / s->period + 1e-9));
    if (k != s->period_index) {
      s->period_index = k;
      for (size_t i = 0; i < s->pd.size(); ++i)
        s->commands.ctrl[i] = s->ranges[i].lower + (s->ranges[i].upper - s->ranges[i].lower) * uniform01(s->rng);
    }
    apply_actuators(model, data, s->pd, s->commands);
  });
  return static_cast<int>(pd.size());
}

// ---- one scenario -----------------------------------------------------------------------------

// The body whose height the table shows: the first body under the world that the file names —
// maxsim's body 0, or the first after the virtual bodies the MJCF loader inserts for a body with
// several joints (hopper's torso/rootx, torso/rootz before torso).
int root_body(const run::LoadedModel& l) {
  for (size_t b = 0; b < l.model.bodies.size(); ++b)
    if (std::find(l.report.virtual_bodies.begin(), l.report.virtual_bodies.end(), l.model.bodies[b].name) ==
        l.report.virtual_bodies.end())
      return static_cast<int>(b);
  return l.model.bodies.empty() ? -1 : 0;
}

enum class Kind { Default, Keyframe, Pd };

SweepRow run_scenario(const std::string& root, const std::string& file, Kind kind, const std::string& key,
                      const SweepOptions& o) {
  SweepRow r;
  r.file = file;
  r.scenario = kind == Kind::Default ? "default" : kind == Kind::Keyframe ? "key:" + key : "pd";
  run::Options opt;  // `maxsim simulate FILE` with its defaults (and --keyframe KEY)
  opt.command = run::Command::Simulate;
  opt.model_path = (fs::path(root) / file).string();
  if (kind == Kind::Keyframe) opt.keyframe = key;
  run::RunSetup setup;
  try {
    setup = run::setup_model(opt);
  } catch (const run::InputError& e) {
    if (kind != Kind::Default) {  // it loaded for `default`: this scenario's own input is bad
      r.loaded = true;
      r.setup_error = first_line(e.what(), root);
      r.failed = 1;
      return r;
    }
    r.refusal = first_line(e.what(), root);
    return r;
  }
  r.loaded = true;
  Model& m = setup.loaded.model;
  r.urdf = setup.loaded.urdf;
  r.dt = setup.dt;
  r.steps_requested = std::max(1LL, std::llround(o.duration / setup.dt));
  const int root_index = root_body(setup.loaded);
  if (root_index >= 0) r.root_body = m.bodies[root_index].name;

  Data d(m);
  try {
    run::setup_state(setup, opt, d);
    if (kind == Kind::Pd) r.pd_joints = install_random_pd(m, d, o);
  } catch (const std::exception& e) {  // no consistent initial state, a bad keyframe
    r.setup_error = first_line(e.what(), root);
    r.failed = 1;
    return r;
  }

  using Clock = std::chrono::steady_clock;
  long long iterations = 0, attempted = 0;
  Vec3 root_x = root_index >= 0 ? d.x[root_index] : Vec3::Zero();
  const WorldSurfaces world = world_surfaces(m, setup.ground);
  r.max_penetration = max_world_penetration(m, d, world);
  for (long long k = 1; k <= r.steps_requested; ++k) {
    const double t_before = d.time;
    const Clock::time_point t0 = Clock::now();
    const StepReport rep = step(m, d);
    r.wall_s += std::chrono::duration<double>(Clock::now() - t0).count();
    ++attempted;
    iterations += rep.iterations;
    r.iterations_max = std::max(r.iterations_max, rep.iterations);
    // as `maxsim simulate` counts them (its commands.cpp)
    if (rep.status == StepStatus::Failed) {
      r.failed = 1;
      r.stop_message = "step " + std::to_string(k) + " (from t = " + g6(t_before) +
                       " s) failed: the solver produced no usable iterate (residual " + g6(rep.residual) + " after " +
                       std::to_string(rep.iterations) + " iterations); the run stopped";
      break;
    }
    const double penetration = run::state_finite(d) ? max_world_penetration(m, d, world) : NAN;
    if (!std::isfinite(rep.residual) || !std::isfinite(penetration)) {
      r.failed = 1;
      r.stop_message = "step " + std::to_string(k) + " (from t = " + g6(t_before) +
                       " s) produced a non-finite state; the run stopped";
      break;
    }
    ++r.steps;
    r.max_penetration = std::max(r.max_penetration, penetration);
    if (root_index >= 0) root_x = d.x[root_index];
    if (rep.status == StepStatus::Ok && rep.relaxed) ++r.relaxed;
    if (rep.status == StepStatus::NotConverged) {
      if (r.unconverged == 0) {
        r.first_unconverged_step = k;
        r.first_unconverged_residual = rep.residual;
        r.first_unconverged_iterations = rep.iterations;
      }
      ++r.unconverged;
    }
  }
  r.iterations_mean = attempted ? static_cast<double>(iterations) / static_cast<double>(attempted) : 0.0;
  r.steps_per_s = r.wall_s > 0 ? static_cast<double>(r.steps) / r.wall_s : 0.0;
  r.root_z = root_x.z();  // the last finite state's

  if (kind == Kind::Default && !r.urdf && o.mujoco && sweep_has_mujoco()) {
    const MujocoRun mj = run_mujoco(opt.model_path, setup.dt, r.steps_requested, r.root_body);
    r.mujoco_ran = mj.ran;
    // (MuJoCo's messages run over lines: "could not parse OBJ file 'F':" then the reason)
    std::string error = mj.error;
    std::replace(error.begin(), error.end(), '\n', ' ');
    while (!error.empty() && error.back() == ' ') error.pop_back();
    r.mujoco_error = first_line(error, root);
    r.mujoco_steps_per_s = mj.steps_per_s;
    r.mujoco_root_z = mj.root_z;
    r.mujoco_root_id = mj.root_id;
    r.mujoco_bad_steps = mj.bad_steps;
  }
  return r;
}

// ---- tables -------------------------------------------------------------------------------------

std::string loads_text(const SweepRow& r) {
  if (!r.loaded) return "refused";
  if (!r.setup_error.empty()) return "no start";
  return "yes";
}

std::vector<std::string> header(bool with_mujoco) {
  std::vector<std::string> h = {"file", "scenario", "loads", "steps", "failed", "unconv", "relaxed", "max pen [m]",
                                "Newton mean/max", "steps/s", "root z [m]"};
  if (with_mujoco) {
    h.push_back("MuJoCo steps/s");
    h.push_back("MuJoCo root z [m]");
  }
  return h;
}

std::vector<std::string> cells(const SweepRow& r, bool with_mujoco, const std::string& dash) {
  std::vector<std::string> c = {r.file, r.scenario, loads_text(r)};
  if (!r.loaded || !r.setup_error.empty()) {
    for (int i = 0; i < 8; ++i) c.push_back(dash);
    if (!r.setup_error.empty()) c[4] = "1";
  } else {
    c.push_back(std::to_string(r.steps) + (r.steps < r.steps_requested ? "/" + std::to_string(r.steps_requested) : ""));
    c.push_back(std::to_string(r.failed));
    c.push_back(std::to_string(r.unconverged));
    c.push_back(std::to_string(r.relaxed));
    c.push_back(r.max_penetration > 0 ? fmt("%.1e", r.max_penetration) : "0");
    c.push_back(fmt("%.1f", r.iterations_mean) + " / " + std::to_string(r.iterations_max));
    c.push_back(fmt("%.0f", r.steps_per_s));
    c.push_back(r.root_body.empty() ? dash : height(r.root_z));  // (no body: all welded to the world)
  }
  if (with_mujoco) {
    if (r.mujoco_ran) {
      c.push_back(fmt("%.0f", r.mujoco_steps_per_s));
      c.push_back(height(r.mujoco_root_z));
    } else if (!r.mujoco_error.empty()) {
      c.push_back("refused");
      c.push_back(dash);
    } else {
      c.push_back(dash);
      c.push_back(dash);
    }
  }
  return c;
}

}  // namespace

// ---- corpus -------------------------------------------------------------------------------------

std::vector<std::string> corpus_files(const std::string& root) {
  std::vector<std::string> files;
  const fs::path base(root);
  const fs::path models = base / "tests/data/models";
  if (fs::is_directory(models))
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(models))
      if (e.is_regular_file() && model_file(e.path())) files.push_back(fs::relative(e.path(), base).generic_string());
  for (const char* f : {"robots/a1/urdf/a1.urdf", "robots/a1/xml/a1.xml", "robots/a1/unitree_ros_variant/a1.urdf",
                        "robots/exoskeleton/original/model.urdf"})
    if (fs::is_regular_file(base / f)) files.push_back(f);
  const fs::path menagerie = base / "robots/a1/menagerie_variant";
  if (fs::is_directory(menagerie))
    for (const fs::directory_entry& e : fs::directory_iterator(menagerie))
      if (e.is_regular_file() && e.path().extension() == ".xml") files.push_back(fs::relative(e.path(), base).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

double subtree_inertia(const Model& model, const Data& data, int joint, int row) {
  return subtree_inertia_in(model, data, tree_from_world(model), joint, row);
}

std::vector<SweepRow> sweep_file(const std::string& root, const std::string& file, const SweepOptions& o) {
  std::vector<SweepRow> rows;
  rows.push_back(run_scenario(root, file, Kind::Default, "", o));
  if (!rows[0].loaded) return rows;
  // the keyframes and actuators of the file (a second load: the scenarios share nothing)
  run::Options opt;
  opt.model_path = (fs::path(root) / file).string();
  const run::LoadedModel l = run::load_for_run(opt);
  for (const Keyframe& k : l.model.keyframes) rows.push_back(run_scenario(root, file, Kind::Keyframe, k.name, o));
  if (!l.model.actuators.empty()) rows.push_back(run_scenario(root, file, Kind::Pd, "", o));
  return rows;
}

// ---- output -------------------------------------------------------------------------------------

std::string sweep_table(const std::vector<SweepRow>& rows, bool with_mujoco) {
  const std::vector<std::string> h = header(with_mujoco);
  std::vector<std::vector<std::string>> table = {h};
  for (const SweepRow& r : rows) table.push_back(cells(r, with_mujoco, "-"));
  std::vector<size_t> width(h.size(), 0);
  for (const auto& row : table)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (size_t k = 0; k < table.size(); ++k) {
    std::string line;
    for (size_t i = 0; i < table[k].size(); ++i) {
      const std::string& s = table[k][i];
      const bool left = i < 3;  // text left, numbers right
      const std::string pad(width[i] - s.size(), ' ');
      line += (i ? "  " : "") + (left ? s + pad : pad + s);
    }
    // a refused file: its reason after the row
    if (k > 0 && !rows[k - 1].loaded) line += "  " + rows[k - 1].refusal;
    if (k > 0 && !rows[k - 1].setup_error.empty()) line += "  " + rows[k - 1].setup_error;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string sweep_markdown(const std::vector<SweepRow>& rows, bool with_mujoco) {
  const std::vector<std::string> h = header(with_mujoco);
  std::string out = "|";
  for (const std::string& s : h) out += " " + s + " |";
  out += "\n|";
  for (size_t i = 0; i < h.size(); ++i) out += i < 3 ? "---|" : "--:|";
  out += "\n";
  for (const SweepRow& r : rows) {
    std::vector<std::string> c = cells(r, with_mujoco, "—");
    c[0] = "`" + c[0] + "`";
    if (!r.ok()) c[1] = "**" + c[1] + "**";
    out += "|";
    for (const std::string& s : c) out += " " + s + " |";
    out += "\n";
  }
  return out;
}

std::string sweep_json(const std::vector<SweepRow>& rows, const SweepOptions& o) {
  std::string out = "{\"duration\": " + io::JsonObject::number(o.duration) + ", \"mujoco_version\": " +
                    (sweep_has_mujoco() ? io::JsonObject::quote(sweep_mujoco_version()) : "null") + ", \"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i];
    io::JsonObject j;
    j.add("file", r.file).add("scenario", r.scenario).add("loaded", r.loaded);
    if (!r.loaded) j.add("refusal", r.refusal);
    else j.add_null("refusal");
    if (!r.setup_error.empty()) j.add("setup_error", r.setup_error);
    j.add("format", r.urdf ? "URDF" : "MJCF")
        .add("dt", r.dt)
        .add("steps_requested", r.steps_requested)
        .add("steps", r.steps)
        .add("failed", r.failed)
        .add("unconverged", r.unconverged)
        .add("relaxed", r.relaxed)
        .add("max_penetration", r.max_penetration)
        .add("iterations_mean", r.iterations_mean)
        .add("iterations_max", r.iterations_max)
        .add("wall_time_s", r.wall_s)
        .add("steps_per_s", r.steps_per_s)
        .add("root_body", r.root_body);
    if (r.root_body.empty()) j.add_null("root_z_end");
    else j.add("root_z_end", r.root_z);
    if (r.unconverged > 0) {
      j.add("first_unconverged_step", r.first_unconverged_step)
          .add("first_unconverged_residual", r.first_unconverged_residual)
          .add("first_unconverged_iterations", r.first_unconverged_iterations);
    }
    if (!r.stop_message.empty()) j.add("stop_message", r.stop_message);
    if (r.scenario == "pd") j.add("pd_joints", r.pd_joints);
    if (r.mujoco_ran) {
      j.add("mujoco_steps_per_s", r.mujoco_steps_per_s)
          .add("mujoco_root_z_end", r.mujoco_root_z)
          .add("mujoco_root_body_id", r.mujoco_root_id)
          .add("mujoco_bad_steps", r.mujoco_bad_steps);
    } else if (!r.mujoco_error.empty()) {
      j.add("mujoco_error", r.mujoco_error);
    }
    out += (i ? ",\n  " : "\n  ") + j.str();
  }
  return out + "\n]}\n";
}

std::vector<std::string> sweep_failures(const std::vector<SweepRow>& rows) {
  std::vector<std::string> out;
  for (const SweepRow& r : rows) {
    if (r.ok()) continue;
    std::string s = r.file + " [" + r.scenario + "]: ";
    if (!r.setup_error.empty()) {
      out.push_back(s + "did not start: " + r.setup_error);
      continue;
    }
    if (r.unconverged > 0)
      s += std::to_string(r.unconverged) + " of " + std::to_string(r.steps_requested) +
           " steps did not converge (first: step " + std::to_string(r.first_unconverged_step) + ", t = " +
           g6(static_cast<double>(r.first_unconverged_step - 1) * r.dt) + " s, residual " +
           g6(r.first_unconverged_residual) + " after " + std::to_string(r.first_unconverged_iterations) + " iterations)";
    if (r.failed > 0) s += std::string(r.unconverged > 0 ? "; " : "") + r.stop_message;
    out.push_back(s);
  }
  return out;
}

std::vector<ExpectedRefusal> read_expected_refusals(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<ExpectedRefusal> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const size_t gap = line.find_first_of(" \t", start);
    const size_t reason = gap == std::string::npos ? std::string::npos : line.find_first_not_of(" \t", gap);
    if (reason == std::string::npos) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 'FILE  REASON'");
    std::string text = line.substr(reason);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
    out.push_back({line.substr(start, gap - start), text});
  }
  return out;
}

std::vector<std::string> check_refusals(const std::vector<SweepRow>& rows, const std::vector<ExpectedRefusal>& expected) {
  std::vector<std::string> out;
  for (const SweepRow& r : rows) {
    if (r.scenario != "default") continue;
    const ExpectedRefusal* e = nullptr;
    for (const ExpectedRefusal& x : expected)
      if (x.file == r.file) e = &x;
    if (!r.loaded && e == nullptr)
      out.push_back(r.file + ": refused, and not in the expected refusals: " + r.refusal);
    else if (!r.loaded && r.refusal.find(e->reason) == std::string::npos)
      out.push_back(r.file + ": refused for another reason than expected ('" + e->reason + "'): " + r.refusal);
    else if (r.loaded && e != nullptr)
      out.push_back(r.file + ": loads now, but is listed as refused ('" + e->reason + "'): take it off the list");
  }
  return out;
}

std::vector<KnownFailure> read_known_failures(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<KnownFailure> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    KnownFailure k;
    if (!(words >> k.file) || k.file[0] == '#') continue;
    if (!(words >> k.scenario)) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 'FILE  SCENARIO  NOTE'");
    std::getline(words >> std::ws, k.note);
    k.rounding = k.note.rfind("rounding:", 0) == 0;
    out.push_back(k);
  }
  return out;
}

namespace {
const KnownFailure* find_known_failure(const SweepRow& row, const std::vector<KnownFailure>& known) {
  for (const KnownFailure& k : known)
    if (k.file == row.file && k.scenario == row.scenario) return &k;
  return nullptr;
}
}  // namespace

bool is_known_failure(const SweepRow& row, const std::vector<KnownFailure>& known) {
  return find_known_failure(row, known) != nullptr;
}

std::vector<std::string> check_known_failures(const std::vector<SweepRow>& rows, const std::vector<KnownFailure>& known) {
  std::vector<std::string> out;
  for (const SweepRow& r : rows) {
    const KnownFailure* k = find_known_failure(r, known);
    if (r.loaded && r.ok() && k && !k->rounding)
      out.push_back(r.file + " [" + r.scenario + "]: runs clean now, but is pinned as a known failure: take it off the list");
  }
  return out;
}

}  // namespace maxsim
