// compare_mujoco — maxsim and MuJoCo side by side on the same MJCF files.
//
//   compare_mujoco [--quick] [--only NAME] [--json FILE] [--plot FILE.svg]
//
// Every scenario loads ONE MJCF file into both engines (generated scenes are written to a
// temporary directory first), starts both from the same joint coordinates (MuJoCo's qpos order =
// maxsim's joints in order, floating bases as x y z qw qx qy qz), runs the same number of steps of
// the same Δt and measures, per engine: steps per second of the stepping loop alone, the deepest
// penetration seen (maxsim: its candidate search; MuJoCo: −dist of its contacts), the energy drift
// max |E(t) − E(0)| (meaningful for the contact-free pendulums; reported for all), failed steps
// (maxsim: steps that did not converge or failed; MuJoCo: steps raising a warning or producing a
// non-finite state), the root body's final height and how far it moved along x (a walking
// robot's distance). It prints one table, writes the JSON file, and plots time per step against N
// for the sphere chains. The speed ratio is maxsim's steps/s over MuJoCo's, measured in the same
// run on the same machine. Exit status: 0, or 2 for bad options / a scene that does not load.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "io/plot.hpp"
#include "controllers/gait.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"
#include "testing/standing_poses.hpp"

namespace {

namespace fs = std::filesystem;
using namespace maxsim;
using io::Plot;
using io::PlotSeries;
using Clock = std::chrono::steady_clock;

// ---- scenarios ----------------------------------------------------------------------------------

// PD toward q_ref on every hinge, or on the named hinges only (same gains in both engines);
// empty q_ref and no reference: no control.
struct JointPd {
  std::vector<double> q_ref;       // per controlled hinge, in joint order
  std::vector<std::string> joints;  // the controlled hinges (empty: every hinge)
  double kp = 0, kd = 0;
  // Time-varying targets instead of q_ref (a gait): reference(t, &q, &qd) sets the angle and rate
  // of each of `joints` (which must be given; in that order, in MuJoCo's qpos convention) at time
  // t, and the PD tracks the rate too: kp (q_ref − q) + kd (q̇_ref − q̇). Each engine maps its
  // hinges to `joints` by name, so the order need not be the file's.
  std::function<void(double t, std::vector<double>* q, std::vector<double>* qd)> reference;
  // Ankle strategy (Cassie): the `ankles` (controlled hinges) also get −kx·e − kv·v, e = how far
  // the centre of mass is ahead (x) of the mean of the `feet` bodies' centres, relative to the
  // start, and v = the root body's x velocity. Empty `ankles`: none.
  std::vector<std::string> ankles, feet;
  double kx = 0, kv = 0;
  bool controls(const std::string& name) const {
    return joints.empty() || std::find(joints.begin(), joints.end(), name) != joints.end();
  }
  bool active() const { return !q_ref.empty() || reference; }
};

struct Scenario {
  std::string name;
  std::string file;          // MJCF path
  int steps = 0;
  double dt = 0;             // 0: the file's
  std::vector<double> qpos;  // initial MuJoCo qpos; empty: the file's default
  JointPd pd;
  int n = 0;                 // sphere-chain size (for the plot), 0 otherwise
};

struct EngineResult {
  double steps_per_s = 0, max_penetration = 0, energy_drift = 0;
  double root_z = 0;  // height of the first body's centre of mass at the end (standing or fallen)
  double root_dx = 0;  // how far that centre of mass moved along x (a walking robot's forward distance)
  // MuJoCo only: deepest contact below the surface its constraints hold, includemargin − dist (a
  // geom margin inflates the surface: a body resting on it has dist > 0 yet sinks into the margin)
  double margin_depth = 0, margin_depth_end = 0;  // (the latter at the last step)
  long failed = 0;
  double iterations = 0;  // maxsim only: Newton / interior-point iterations per step (all attempts)
  std::string error;
};

std::string sphere_chain_xml(int n) {
  std::ostringstream x;
  x << "<mujoco model=\"sphere_chain_" << n << "\">\n  <option timestep=\"0.01\"/>\n  <worldbody>\n"
    << "    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>\n"
    << "    <body name=\"s0\" pos=\"0 0 0.35\">\n      <freejoint/>\n"
    << "      <geom type=\"sphere\" size=\"0.25\" mass=\"1\"/>\n";
  for (int i = 1; i < n; ++i)
    x << "<body name=\"s" << i << "\" pos=\"0.5 0 0\"><joint type=\"ball\" pos=\"-0.25 0 0\"/>"
      << "<geom type=\"sphere\" size=\"0.25\" mass=\"1\"/>\n";
  for (int i = 1; i < n; ++i) x << "</body>";
  x << "\n    </body>\n  </worldbody>\n</mujoco>\n";
  return x.str();
}

std::string pendulum_xml(int n) {
  std::ostringstream x;
  x << "<mujoco model=\"pendulum_" << n << "\">\n  <option timestep=\"0.01\"/>\n"
    << "  <default><geom type=\"capsule\" size=\"0.02\" contype=\"0\" conaffinity=\"0\" mass=\"1\"/></default>\n"
    << "  <worldbody>\n";
  for (int i = 0; i < n; ++i)
    x << "<body name=\"l" << i << "\" pos=\"" << (i == 0 ? 0.0 : 0.5) << " 0 " << (i == 0 ? 1.0 * n : 0.0)
      << "\"><joint type=\"hinge\" axis=\"0 1 0\" pos=\"0 0 0\"/><geom fromto=\"0 0 0 0.5 0 0\"/>\n";
  for (int i = 0; i < n; ++i) x << "</body>";
  x << "\n  </worldbody>\n</mujoco>\n";
  return x.str();
}

// A 0.5 m, 1 kg cube above its floor at `height` (m, of its centre): dropped from 0.65, at rest at
// 0.25 (the cost of a resting contact set).
std::string cube_xml(const std::string& model, const char* height) {
  return "<mujoco model=\"" + model + "\">\n  <option timestep=\"0.01\"/>\n  <worldbody>\n"
         "    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>\n"
         "    <body name=\"box\" pos=\"0 0 " + height + "\"><freejoint/>"
         "<geom type=\"box\" size=\"0.25 0.25 0.25\" mass=\"1\"/></body>\n"
         "  </worldbody>\n</mujoco>\n";
}

std::string write_scene(const fs::path& dir, const std::string& name, const std::string& xml) {
  const fs::path p = dir / (name + ".xml");
  std::ofstream f(p);
  f << xml;
  if (!f) throw std::runtime_error("cannot write " + p.string());
  return p.string();
}

// The PD targets (angle and rate) of one engine's controlled hinges, in that engine's hinge order,
// at time t: both engines' control loops read them from here so that they track the same thing.
class PdTargets {
 public:
  // `names`: the engine's controlled hinges; `offset`: subtracted from every target angle (maxsim:
  // the joint's ref, Joint::ref; MuJoCo: none).
  PdTargets(const std::string& scenario, const JointPd& pd, const std::vector<std::string>& names,
            const std::vector<double>& offset)
      : q(names.size()), qd(names.size(), 0.0), pd_(pd), offset_(offset) {
    if (pd.reference) {
      for (const std::string& name : names) {
        const auto it = std::find(pd.joints.begin(), pd.joints.end(), name);
        if (it == pd.joints.end()) throw std::runtime_error(scenario + ": reference for '" + name + "' missing");
        slot_.push_back(static_cast<int>(it - pd.joints.begin()));
      }
      if (names.size() != pd.joints.size())
        throw std::runtime_error(scenario + ": a joint of the reference is not a hinge of the model");
      ref_q_.resize(pd.joints.size());
      ref_qd_.resize(pd.joints.size());
    } else {
      if (pd.q_ref.size() != names.size()) throw std::runtime_error(scenario + ": PD reference size");
      for (size_t h = 0; h < names.size(); ++h) q[h] = pd.q_ref[h] - offset_[h];
    }
  }

  void at(double t) {
    if (!pd_.reference) return;  // constant: set once
    pd_.reference(t, &ref_q_, &ref_qd_);
    for (size_t h = 0; h < slot_.size(); ++h) {
      q[h] = ref_q_[slot_[h]] - offset_[h];
      qd[h] = ref_qd_[slot_[h]];
    }
  }

  std::vector<double> q, qd;  // per hinge, after at(t)

 private:
  const JointPd& pd_;
  std::vector<double> offset_;
  std::vector<int> slot_;  // hinge h's index in pd.joints
  std::vector<double> ref_q_, ref_qd_;
};

// ---- maxsim ---------------------------------------------------------------------------------------

// A file loaded by MuJoCo for the set-up (qpos0, keyframes); throws when it does not load.
mjModel* load_mujoco(const std::string& file) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, err, sizeof(err));
  if (m == nullptr) throw std::runtime_error(file + ": " + err);
  return m;
}

EngineResult run_maxsim(const Scenario& sc, FrictionCone cone, bool strict_cone_test) {
  EngineResult r;
  Model m = load_model(sc.file);
  if (sc.dt > 0) m.opt.timestep = sc.dt;
  Data d(m);
  // (maxsim's MJCF joints are MuJoCo's in the same order; sim/state/state.hpp: qpos layout, Joint::ref)
  if (!sc.qpos.empty()) set_coordinates(m, d, split_qpos(m, sc.qpos), std::vector<std::vector<double>>(m.joints.size()));
  const double lowest = lowest_collision_z(m, d);
  project_state(m, d);
  // A keyframe saved from a MuJoCo run leaves its loops open by its soft equality constraints
  // (Cassie's "home": 1.9 mm); closing them lowers the feet. A floating robot is raised back so
  // that both engines start with the same contact depth.
  const bool floating = !m.joints.empty() && m.joints[0].type == JointType::Floating && m.joints[0].parent == kWorld;
  if (floating && !sc.qpos.empty()) {
    const double raise = lowest - lowest_collision_z(m, d);
    if (raise > 0)
      for (Vec3& x : d.x) x.z() += raise;
  }
  // the scene's own floor plane is the ground (as in MuJoCo): no extra half-space
  ContactOptions& co = m.opt.contact;
  co.ground = false;
  co.cone = cone;
  m.opt.interior_point.weighted_cone_test = !strict_cone_test;
  if (strict_cone_test) m.opt.interior_point.cone_direction_tolerance = 0;
  enable_contacts(m, d);
  std::vector<int> hinges;
  for (size_t j = 0; j < m.joints.size(); ++j)
    if (m.joints[j].type == JointType::Revolute && sc.pd.controls(m.joints[j].name)) hinges.push_back(static_cast<int>(j));
  std::unique_ptr<PdTargets> targets;
  if (sc.pd.active()) {
    std::vector<std::string> hinge_names;
    std::vector<double> hinge_qpos0;  // maxsim's coordinates are measured from the file's pose
    for (int j : hinges) {
      hinge_names.push_back(m.joints[j].name);
      hinge_qpos0.push_back(m.joints[j].ref);
    }
    targets = std::make_unique<PdTargets>(sc.name, sc.pd, hinge_names, hinge_qpos0);
    std::vector<char> ankle(hinges.size(), 0);
    for (size_t h = 0; h < hinges.size(); ++h)
      for (const std::string& a : sc.pd.ankles) ankle[h] |= m.joints[hinges[h]].name == a;
    std::vector<int> feet;
    for (const std::string& f : sc.pd.feet)
      for (size_t b = 0; b < m.bodies.size(); ++b)
        if (m.bodies[b].name == f) feet.push_back(static_cast<int>(b));
    if (feet.size() != sc.pd.feet.size()) throw std::runtime_error(sc.name + ": feet bodies not found");
    auto ahead = [feet](const Model& model, const Data& data) {  // CoM x − mean foot x
      double mx = 0, mass = 0, fx = 0;
      for (size_t b = 0; b < model.bodies.size(); ++b) {
        mx += model.bodies[b].mass * data.x[b].x();
        mass += model.bodies[b].mass;
      }
      for (int f : feet) fx += data.x[f].x();
      return feet.empty() ? 0.0 : mx / mass - fx / static_cast<double>(feet.size());
    };
    const double e0 = ahead(m, d);
    d.controller = [&sc, &targets, hinges, ankle, ahead, e0](const Model& model, Data& data) {
      const double balance = sc.pd.ankles.empty() ? 0.0 : -sc.pd.kx * (ahead(model, data) - e0) - sc.pd.kv * data.v[0].x();
      targets->at(data.time);
      for (size_t h = 0; h < hinges.size(); ++h) {
        double q = 0, qd = 0;
        joint_coordinates(model, data, hinges[h], &q, &qd);
        data.joint_force[hinges[h]](5) =
            sc.pd.kp * (targets->q[h] - q) + sc.pd.kd * (targets->qd[h] - qd) + (ankle[h] ? balance : 0.0);
      }
    };
  }
  const double e0 = total_energy(m, d);
  const double x0 = d.x[0].x();
  double wall = 0;
  for (int k = 0; k < sc.steps; ++k) {
    const Clock::time_point t0 = Clock::now();
    const StepReport rep = step(m, d);
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    r.iterations += static_cast<double>(rep.iterations) / sc.steps;
    if (rep.status != StepStatus::Ok) ++r.failed;
    if (rep.status == StepStatus::Failed) break;
    r.max_penetration = std::max(r.max_penetration, max_penetration(d));
    r.energy_drift = std::max(r.energy_drift, std::abs(total_energy(m, d) - e0));
  }
  r.steps_per_s = wall > 0 ? sc.steps / wall : 0;
  r.root_z = d.x[0].z();
  r.root_dx = d.x[0].x() - x0;
  return r;
}

// ---- MuJoCo ---------------------------------------------------------------------------------------

EngineResult run_mujoco(const Scenario& sc) {
  EngineResult r;
  char err[1000] = "";
  mjModel* m = mj_loadXML(sc.file.c_str(), nullptr, err, sizeof(err));
  if (m == nullptr) {
    r.error = err;
    return r;
  }
  if (sc.dt > 0) m->opt.timestep = sc.dt;
  m->opt.enableflags |= mjENBL_ENERGY;
  mjData* d = mj_makeData(m);
  if (!sc.qpos.empty()) {
    if (static_cast<int>(sc.qpos.size()) != m->nq) throw std::runtime_error(sc.name + ": qpos size differs from MuJoCo's nq");
    std::copy(sc.qpos.begin(), sc.qpos.end(), d->qpos);
  }
  mj_forward(m, d);
  const double e0 = d->energy[0] + d->energy[1];
  std::vector<int> hinges;
  std::vector<std::string> hinge_names;
  std::vector<char> ankle;
  for (int j = 0; j < m->njnt; ++j) {
    const char* name = mj_id2name(m, mjOBJ_JOINT, j) ? mj_id2name(m, mjOBJ_JOINT, j) : "";
    if (m->jnt_type[j] != mjJNT_HINGE || !sc.pd.controls(name)) continue;
    hinges.push_back(j);
    hinge_names.push_back(name);
    ankle.push_back(std::find(sc.pd.ankles.begin(), sc.pd.ankles.end(), name) != sc.pd.ankles.end());
  }
  std::unique_ptr<PdTargets> targets;  // qpos is the targets' own convention: no offset
  if (sc.pd.active())
    targets = std::make_unique<PdTargets>(sc.name, sc.pd, hinge_names, std::vector<double>(hinges.size(), 0.0));
  std::vector<int> feet;
  for (const std::string& f : sc.pd.feet) feet.push_back(mj_name2id(m, mjOBJ_BODY, f.c_str()));
  // CoM x − mean foot x, from the kinematics of the last mj_forward/mj_step (the state at the
  // step's start for the first step, one step old after that: 0.5 ms on Cassie)
  auto ahead = [&]() {
    double fx = 0;
    for (int f : feet) fx += d->xipos[3 * f];
    return feet.empty() ? 0.0 : d->subtree_com[0] - fx / static_cast<double>(feet.size());
  };
  const double ahead0 = ahead();
  auto depth_below_margin = [&]() {  // see EngineResult::margin_depth
    double depth = 0;
    for (int c = 0; c < d->ncon; ++c) depth = std::max(depth, d->contact[c].includemargin - d->contact[c].dist);
    return depth;
  };
  const double x0 = m->nbody > 1 ? d->xipos[3 * 1] : 0;
  double wall = 0;
  int warnings = 0;
  for (int k = 0; k < sc.steps; ++k) {
    const Clock::time_point t0 = Clock::now();
    if (targets) {
      const double balance = sc.pd.ankles.empty() ? 0.0 : -sc.pd.kx * (ahead() - ahead0) - sc.pd.kv * d->qvel[0];
      targets->at(d->time);
      for (size_t h = 0; h < hinges.size(); ++h) {
        const int j = hinges[h];
        d->qfrc_applied[m->jnt_dofadr[j]] = sc.pd.kp * (targets->q[h] - d->qpos[m->jnt_qposadr[j]]) +
                                            sc.pd.kd * (targets->qd[h] - d->qvel[m->jnt_dofadr[j]]) +
                                            (ankle[h] ? balance : 0.0);
      }
    }
    mj_step(m, d);
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    int w = 0;
    for (int i = 0; i < mjNWARNING; ++i) w += d->warning[i].number;
    bool finite = true;
    for (int i = 0; i < m->nq; ++i) finite = finite && std::isfinite(d->qpos[i]);
    if (w > warnings || !finite) ++r.failed;
    warnings = w;
    for (int c = 0; c < d->ncon; ++c) r.max_penetration = std::max(r.max_penetration, -d->contact[c].dist);
    r.margin_depth = std::max(r.margin_depth, depth_below_margin());
    r.energy_drift = std::max(r.energy_drift, std::abs(d->energy[0] + d->energy[1] - e0));
  }
  r.steps_per_s = wall > 0 ? sc.steps / wall : 0;
  r.root_z = m->nbody > 1 ? d->xipos[3 * 1 + 2] : 0;
  r.root_dx = m->nbody > 1 ? d->xipos[3 * 1] - x0 : 0;
  r.margin_depth_end = depth_below_margin();
  mj_deleteData(d);
  mj_deleteModel(m);
  return r;
}

// A1 (robots/a1/xml/a1.xml, its floor and Δt = 0.002): trunk placed so that the lowest collision
// geometry is `clearance` above the floor, legs at (hip, thigh, calf) = (0, thigh, calf).
std::vector<double> a1_qpos(const std::string& file, double thigh, double calf, double clearance) {
  return testing::a1_qpos(load_model(file), thigh, calf, clearance);
}

// A keyframe's qpos, read with MuJoCo's own loader (maxsim's reader skips <keyframe>).
std::vector<double> mujoco_keyframe(const std::string& file, const std::string& key) {
  mjModel* m = load_mujoco(file);
  const int k = mj_name2id(m, mjOBJ_KEY, key.c_str());
  std::vector<double> qpos;
  if (k >= 0) qpos.assign(m->key_qpos + k * m->nq, m->key_qpos + (k + 1) * m->nq);
  mj_deleteModel(m);
  if (k < 0) throw std::runtime_error(file + ": no keyframe '" + key + "'");
  return qpos;
}

// The values of the named 1-coordinate joints in a qpos of the file (in the order given).
std::vector<double> mujoco_joint_values(const std::string& file, const std::vector<double>& qpos,
                                        const std::vector<std::string>& joints) {
  mjModel* m = load_mujoco(file);
  std::vector<double> values;
  for (const std::string& name : joints) {
    const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
    if (j >= 0) values.push_back(qpos.at(m->jnt_qposadr[j]));
  }
  mj_deleteModel(m);
  if (values.size() != joints.size()) throw std::runtime_error(file + ": a controlled joint is missing");
  return values;
}

// A floating robot's qpos (e.g. a keyframe) with its root raised or lowered so that the lowest
// collision geometry touches the floor z = 0 (the keyframe may start slightly in the ground).
std::vector<double> on_floor(const std::string& file, std::vector<double> qpos) {
  Model m = load_model(file);
  Data d(m);
  set_coordinates(m, d, split_qpos(m, qpos), std::vector<std::vector<double>>(m.joints.size()));
  qpos[2] -= lowest_collision_z(m, d);
  return qpos;
}

void print_row(const Scenario& sc, const EngineResult& a, const EngineResult& b) {
  const double ratio = b.steps_per_s > 0 ? a.steps_per_s / b.steps_per_s : 0;
  std::printf("%-18s %6d %7.4f | %10.0f %10.2e %10.2e %6ld %6.3f | %10.0f %10.2e %10.2e %6ld %6.3f | %6.2f\n",
              sc.name.c_str(), sc.steps, sc.dt, a.steps_per_s, a.max_penetration, a.energy_drift, a.failed, a.root_z,
              b.steps_per_s, b.max_penetration, b.energy_drift, b.failed, b.root_z, ratio);
}

std::string json_engine(const EngineResult& r) {
  std::ostringstream o;
  o.precision(6);
  o << "{\"steps_per_s\": " << r.steps_per_s << ", \"max_penetration\": " << r.max_penetration
    << ", \"energy_drift\": " << r.energy_drift << ", \"failed_steps\": " << r.failed
    << ", \"root_z_end\": " << r.root_z << ", \"root_dx\": " << r.root_dx
    << ", \"depth_below_margin\": " << r.margin_depth << ", \"depth_below_margin_end\": " << r.margin_depth_end << "}";
  return o.str();
}

}  // namespace

const char* const kUsage =
    "usage: compare_mujoco [--quick] [--only NAME] [--json FILE] [--plot FILE.svg] [--cone C]\n"
    "       compare_mujoco --only NAME --engine maxsim|mujoco --steps N [--cone C]\n"
    "  --cone nonlinear|linear|relaxed: maxsim's friction cone (default nonlinear, the exact one)\n"
    "  --strict-cone-test: the friction cones' products tested unweighted and whole (InteriorPointOptions::weighted_cone_test off, cone_direction_tolerance 0)\n"
    "  (the second form runs one scenario in one engine for N steps and prints nothing else: for\n"
    "   counting instructions per step with callgrind, see benchmarks/count_instructions.sh)\n";

int main(int argc, char** argv) {
  bool quick = false;
  std::string only, json_path = "compare_mujoco.json", plot_path, engine;
  int steps = 0;
  FrictionCone cone = FrictionCone::Nonlinear;
  bool strict_cone_test = false;  // (the interior point's convergence test before 2026-12-04)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "compare_mujoco: %s needs a value\n", what);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") quick = true;
    else if (a == "--only") only = value("--only");
    else if (a == "--json") json_path = value("--json");
    else if (a == "--plot") plot_path = value("--plot");
    else if (a == "--engine") engine = value("--engine");
    else if (a == "--steps") steps = std::atoi(value("--steps").c_str());
    else if (a == "--strict-cone-test") strict_cone_test = true;
    else if (a == "--cone") {
      const std::string c = value("--cone");
      if (!friction_cone_from_name(c, &cone)) {
        std::fprintf(stderr, "compare_mujoco: --cone '%s' is not one of nonlinear, linear, relaxed\n", c.c_str());
        return 2;
      }
    }
    else {
      std::fprintf(stderr, "compare_mujoco: unknown option '%s'\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (!engine.empty() && (only.empty() || steps <= 0 || (engine != "maxsim" && engine != "mujoco"))) {
    std::fprintf(stderr, "compare_mujoco: --engine maxsim|mujoco needs --only NAME and --steps N > 0\n%s", kUsage);
    return 2;
  }
  const fs::path tmp = fs::temp_directory_path() / ("compare_mujoco_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const std::string src = MAXSIM_SOURCE_DIR;
  const std::string a1 = src + "/robots/a1/xml/a1.xml";
  const int scale = quick ? 10 : 1;  // --quick: a tenth of the robot and pendulum steps (a smoke test)

  std::vector<Scenario> scenarios;
  // only the scenarios asked for are set up (some load their robot to place it)
  auto want = [&](const std::string& name) { return only.empty() || name == only; };
  try {
    scenarios.push_back({"box_drop", write_scene(tmp, "box_drop", cube_xml("box_drop", "0.65")), 200, 0.01, {}, {}, 0});
    scenarios.push_back({"cube_rest", write_scene(tmp, "cube_rest", cube_xml("cube_rest", "0.25")), 200, 0.01, {}, {}, 0});
    // N ≤ 96: an MJCF chain nests one body per sphere, and both engines read MJCF with tinyxml2,
    // whose element-depth limit (100) refuses deeper files (N = 96 is the deepest both load;
    // N = 100 is refused by both readers)
    for (int n : {10, 20, 44, 96})
      scenarios.push_back({"sphere_chain_" + std::to_string(n), write_scene(tmp, "chain" + std::to_string(n), sphere_chain_xml(n)),
                           100, 0.01, {}, {}, n});
    for (int n : {5, 20})
      scenarios.push_back({"pendulum_" + std::to_string(n), write_scene(tmp, "pend" + std::to_string(n), pendulum_xml(n)),
                           1000 / scale, 0.01, {}, {}, 0});
    if (want("a1_stand_pd")) {
      Scenario s{"a1_stand_pd", a1, 2500 / scale, 0.002, a1_qpos(a1, 0.9, -1.8, 0.0), {}, 0};
      s.pd.q_ref.clear();
      for (int leg = 0; leg < 4; ++leg) s.pd.q_ref.insert(s.pd.q_ref.end(), {0.0, 0.9, -1.8});
      s.pd.kp = 60;
      s.pd.kd = 1.5;
      scenarios.push_back(s);
    }
    if (want("a1_walk")) {
      // The A1 from a1_stand_pd's pose, trotting: controllers/gait.hpp's default trot (2 Hz, the
      // stride growing to full amplitude over the first 0.5 s) as time-varying PD targets with
      // a1_stand_pd's gains, angles and rates tracked. The gait's standing offsets are set to the
      // start pose (thigh 0.9, calf −1.8 instead of its 0.8, −1.6) so that the targets start
      // where the robot stands, as the ramp assumes: with the default offsets the targets jump
      // by 0.1 and 0.2 rad at t = 0, and in MuJoCo the A1 then rolls over onto its back between
      // 2 and 2.6 s of this open-loop trot (maxsim's keeps walking).
      Scenario s{"a1_walk", a1, 1500 / scale, 0.002, a1_qpos(a1, 0.9, -1.8, 0.0), {}, 0};
      GaitParameters trot;
      trot.offset[1] = 0.9;
      trot.offset[2] = -1.8;
      for (const char* leg : {"FR", "FL", "RR", "RL"})  // gait_reference's leg and joint order
        for (const char* joint : {"hip", "thigh", "calf"})
          s.pd.joints.push_back(std::string(leg) + "_" + joint + "_joint");
      s.pd.reference = [trot](double t, std::vector<double>* q, std::vector<double>* qd) {
        for (int leg = 0; leg < 4; ++leg)
          for (int joint = 0; joint < 3; ++joint) {
            const ReferencePoint p = gait_reference(trot, leg, joint, t);
            (*q)[3 * leg + joint] = p.q;
            (*qd)[3 * leg + joint] = p.qd;
          }
      };
      s.pd.kp = 60;
      s.pd.kd = 1.5;
      scenarios.push_back(s);
    }
    if (want("a1_drop")) scenarios.push_back({"a1_drop", a1, 1000 / scale, 0.002, a1_qpos(a1, 0.8, -1.5, 0.1), {}, 0});
    // standing pose, no torque: the legs fold and the trunk comes down on its floor
    if (want("a1_collapse")) scenarios.push_back({"a1_collapse", a1, 1000 / scale, 0.002, a1_qpos(a1, 0.9, -1.8, 0.0), {}, 0});
    if (want("cassie_stand")) {
      // Cassie (MuJoCo Menagerie, 4 closed loops as <connect> equalities) on its floor from the
      // "home" keyframe, PD on its 10 motor joints toward that pose, at the file's Δt = 0.0005.
      // Joint PD alone cannot balance Cassie (it tips forward and falls within ~1.3 s in both
      // engines); an ankle strategy on the foot motors keeps it standing (feedback on how far the
      // centre of mass moved ahead of the feet and on the pelvis' forward speed).
      const std::string cassie = src + "/tests/data/models/agility_cassie/scene.xml";
      Scenario s{"cassie_stand", cassie, 4000 / scale, 0.0005, on_floor(cassie, mujoco_keyframe(cassie, "home")), {}, 0};
      for (const char* side : {"left", "right"})
        for (const char* j : {"hip-roll", "hip-yaw", "hip-pitch", "knee", "foot"})
          s.pd.joints.push_back(std::string(side) + "-" + j);
      s.pd.q_ref = mujoco_joint_values(cassie, s.qpos, s.pd.joints);  // hold the home pose
      s.pd.kp = 1000;
      s.pd.kd = 20;
      s.pd.ankles = {"left-foot", "right-foot"};
      s.pd.feet = {"left-foot", "right-foot"};
      s.pd.kx = 1000;  // N·m per m
      s.pd.kv = 100;   // N·m per m/s
      scenarios.push_back(s);
    }
    scenarios.push_back({"humanoid_fall", src + "/tests/data/models/mujoco_models/humanoid/humanoid.xml", 600 / scale, 0.005, {}, {}, 0});
    // gym's ant and hopper as the files have them (their Δt, their initial state, no control)
    scenarios.push_back({"ant", src + "/tests/data/models/gym_mujoco/ant.xml", 400 / scale, 0.0, {}, {}, 0});
    scenarios.push_back({"hopper", src + "/tests/data/models/gym_mujoco/hopper.xml", 400 / scale, 0.0, {}, {}, 0});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_mujoco: %s\n", e.what());
    return 2;
  }

  if (!engine.empty()) {  // one scenario, one engine, N steps
    for (Scenario sc : scenarios) {
      if (sc.name != only) continue;
      sc.steps = steps;
      try {
        const EngineResult r = engine == "maxsim" ? run_maxsim(sc, cone, strict_cone_test) : run_mujoco(sc);
        if (!r.error.empty()) throw std::runtime_error(r.error);
        std::printf("%s %s %d steps: %ld failed, root z %.3f", sc.name.c_str(), engine.c_str(), steps, r.failed, r.root_z);
        if (engine == "maxsim") std::printf(", %.2f iterations per step", r.iterations);
        std::printf("\n");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "compare_mujoco: %s: %s\n", sc.name.c_str(), e.what());
        return 2;
      }
      fs::remove_all(tmp);
      return 0;
    }
    std::fprintf(stderr, "compare_mujoco: no scenario '%s'\n", only.c_str());
    return 2;
  }
  std::printf("%-18s %6s %7s | %-52s | %-52s | %6s\n", "scenario", "steps", "dt",
              "maxsim: steps/s, penetration, drift, failed, z end", "MuJoCo: steps/s, penetration, drift, failed, z end",
              "ratio");
  std::ostringstream json;
  json << "{\"mujoco_version\": " << mj_version() << ", \"quick\": " << (quick ? "true" : "false") << ", \"scenarios\": [";
  PlotSeries ms_series{"maxsim", {}, {}, ""}, mj_series{"MuJoCo", {}, {}, ""};
  bool first = true;
  for (const Scenario& sc : scenarios) {
    if (!only.empty() && sc.name != only) continue;
    EngineResult a, b;
    try {
      a = run_maxsim(sc, cone, strict_cone_test);
      b = run_mujoco(sc);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "compare_mujoco: %s: %s\n", sc.name.c_str(), e.what());
      return 2;
    }
    if (!b.error.empty()) {
      std::fprintf(stderr, "compare_mujoco: %s: MuJoCo could not load %s: %s\n", sc.name.c_str(), sc.file.c_str(), b.error.c_str());
      return 2;
    }
    print_row(sc, a, b);
    if (sc.pd.reference)  // a walking robot: how far it went
      std::printf("%-18s distance along x of the root body: maxsim %.3f m, MuJoCo %.3f m\n", "", a.root_dx, b.root_dx);
    std::fflush(stdout);
    json << (first ? "" : ", ") << "{\"name\": \"" << sc.name << "\", \"steps\": " << sc.steps << ", \"dt\": " << sc.dt
         << ", \"maxsim\": " << json_engine(a) << ", \"mujoco\": " << json_engine(b)
         << ", \"speed_ratio\": " << (b.steps_per_s > 0 ? a.steps_per_s / b.steps_per_s : 0) << "}";
    first = false;
    if (sc.n > 0) {
      ms_series.x.push_back(sc.n);
      ms_series.y.push_back(1e6 / a.steps_per_s);
      mj_series.x.push_back(sc.n);
      mj_series.y.push_back(1e6 / b.steps_per_s);
    }
  }
  json << "]}\n";
  std::ofstream(json_path) << json.str();
  std::printf("JSON: %s\n", json_path.c_str());
  if (!plot_path.empty() && ms_series.x.size() >= 2) {
    Plot p;
    p.title = "Sphere chains on the ground (Brüdigam et al. 2023, Fig. 8b), same MJCF, same machine";
    p.x_label = "N spheres";
    p.y_label = "time per step [µs]";
    p.series = {ms_series, mj_series};
    io::write_plot(p, plot_path);
    std::printf("plot: %s\n", plot_path.c_str());
  }
  fs::remove_all(tmp);
  return 0;
}
