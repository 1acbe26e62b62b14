// The Unitree A1 walking set-up shared by robots/examples/a1_walk.cpp, a1_learn.cpp and
// tests/test_a1.cpp (after Brüdigam et al. 2023, §5.4): the robot from robots/a1/urdf/a1.urdf at
// Δt = 1 ms with hard contacts, its 12 motors as PD servos under the URDF torque limits (20 N·m
// hips, 55 N·m thighs and calves), driven by the parametric trot of controllers/gait.hpp.
//
// Contacts: the ground half-space with μ = 0.8 — rubber feet on a dry floor (rubber on concrete
// is 0.6–1.0; MuJoCo's default is 1). Self-collision between the robot's links is off, as PyBullet
// does for URDF robots: the legs' box approximations would otherwise touch the trunk box in deep
// crouches that the real links clear.
//
// Header-only so the examples and the test need no extra library.
#pragma once

#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/gait.hpp"
#include "controllers/parameters.hpp"
#include "controllers/rollout.hpp"
#include "controllers/search.hpp"
#include "models/load.hpp"
#include "sim/contact_search.hpp"
#include "sim/ground.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::a1 {

constexpr int kInteriorPointIterations = 100;  // (library default 50; see load_robot)
constexpr double kFallHeight = 0.15;  // trunk CoM below this (m), or upside down: fallen

struct Robot {
  Model model;
  int trunk = -1;                 // trunk body
  int base = -1;                  // the floating joint world → trunk
  std::array<int, 12> legs{};     // leg joints FR_hip ... RL_calf (controllers/gait.hpp order)
  std::vector<Actuator> actuators;  // the URDF's torque-limited motors
  ContactOptions contacts;
};

inline Robot load_robot(const std::string& source_dir, double dt = 0.001) {
  Robot r;
  r.model = load_model(source_dir + "/robots/a1/urdf/a1.urdf");
  r.model.dt = dt;
  // visual meshes (133 000 vertices) play no part in the physics; dropping them keeps the copies
  // of the Model that step()'s retry path makes cheap (18 % of the run time of a walk otherwise)
  for (Body& b : r.model.bodies)
    for (Geom& g : b.geoms)
      if (!g.collision) {
        g.vertices.clear();
        g.faces.clear();
      }
  r.trunk = r.model.body_index("trunk");
  for (size_t j = 0; j < r.model.joints.size(); ++j)
    if (r.model.joints[j].type == JointType::Floating) r.base = static_cast<int>(j);
  if (r.trunk < 0 || r.base < 0) throw std::runtime_error("a1.urdf: no trunk or no floating base");
  r.legs = leg_joints(r.model);
  r.actuators = actuators_from_model(r.model);
  r.contacts.friction = 0.8;
  r.contacts.self_collision = false;
  // Search margin 5 cm: a narrower one lets stance pairs lift off and re-enter the contact set
  // with impulse and gap vanishing together, which the interior point does not always resolve.
  r.contacts.margin = 0.05;
  return r;
}


// Stands the robot still in the gait's t = 0 pose, trunk level and its feet touching z = 0
// (the URDF's floating base loads at the origin, so the trunk is placed through the floating
// joint's coordinates (x, y, z, qw, qx, qy, qz)).
inline void stand(const Robot& r, Data& d, const GaitParameters& gait) {
  const Model& m = r.model;
  std::vector<std::vector<double>> q(m.joints.size()), qd(m.joints.size());
  GaitController pose(m, r.actuators, gait);
  const std::array<double, 12> angles = pose.standing_pose();
  for (int i = 0; i < 12; ++i) q[r.legs[i]] = {angles[i]};
  q[r.base] = {0, 0, 0, 1, 0, 0, 0};
  set_coordinates(m, d, q, qd);
  q[r.base][2] = -lowest_collision_z(m, d);
  set_coordinates(m, d, q, qd);
}

inline bool fallen(const Robot& r, const Data& d) {
  const Vec3 up = quat_to_rot(d.q[r.trunk]).col(2);
  return d.x[r.trunk].z() < kFallHeight || up.z() < 0;
}

// What one walking episode measured.
struct Walk {
  double distance = 0;         // trunk CoM x displacement (m)
  double duration = 0;         // simulated time (s)
  bool fell = false;
  double max_penetration = 0;  // deepest contact candidate over the run (m)
  int failed_steps = 0;        // steps that did not converge (NotConverged or Failed)
  int not_converged_steps = 0;
  int steps = 0;
  double wall_time = 0;        // s
  double lateral = 0;          // trunk CoM y displacement (m)
};

// A variation of the episode's conditions: what a gait must survive to count as robust (used
// by a1_learn, so the learned gait does not depend on one exact trajectory of a chaotic system).
struct Perturbation {
  double friction = -1;                 // ground friction; < 0: the robot's (0.8)
  Vec3 push = Vec3::Zero();             // initial velocity of the whole robot (world, m/s)
};

// The episode as a rollout task: stand, walk with `gait` for `duration` s, stop at a fall.
// `observer` (optional) sees the state after every step (trajectory output).
inline RolloutTask walk_task(const Robot& r, const GaitParameters& gait, double duration,
                             std::function<void(const Model&, const Data&)> observer = {},
                             const Perturbation& perturbation = {}) {
  RolloutTask task;
  task.steps = static_cast<int>(std::lround(duration / r.model.dt));
  task.setup = [&r, gait, perturbation](const Model& m, Data& d, int) {
    stand(r, d, gait);
    ContactOptions contacts = r.contacts;
    if (perturbation.friction >= 0) contacts.friction = perturbation.friction;
    if (perturbation.push.squaredNorm() > 0) {  // the floating base's rates: (v, ω) of the trunk
      std::vector<std::vector<double>> q, qd;
      get_coordinates(m, d, &q, &qd);
      qd[r.base] = {perturbation.push.x(), perturbation.push.y(), perturbation.push.z(), 0.0, 0.0, 0.0};
      set_coordinates(m, d, q, qd);
    }
    enable_contacts(m, d, contacts);
    d.interior_point.max_iterations = kInteriorPointIterations;
    set_controller(d, std::make_shared<GaitController>(m, r.actuators, gait));
  };
  task.keep_going = [&r, observer](const Model& m, const Data& d, int) {
    if (observer) observer(m, d);
    return !fallen(r, d);
  };
  return task;
}

// Runs one episode on this thread and measures it.
inline Walk walk(const Robot& r, const GaitParameters& gait, double duration,
                 std::function<void(const Model&, const Data&)> observer = {},
                 const Perturbation& perturbation = {}) {
  RolloutTask task = walk_task(r, gait, duration, observer, perturbation);
  Walk w;
  double x0 = 0, y0 = 0;
  auto setup = task.setup;
  task.setup = [&](const Model& m, Data& d, int i) {
    setup(m, d, i);
    x0 = d.x[r.trunk].x();
    y0 = d.x[r.trunk].y();
    if (observer) observer(m, d);
  };
  task.evaluate = [&](const Model&, const Data& d, const RolloutStats& s, int) {
    w.distance = d.x[r.trunk].x() - x0;
    w.lateral = d.x[r.trunk].y() - y0;
    w.duration = d.time;
    w.fell = s.stopped;
    w.max_penetration = s.max_penetration;
    w.not_converged_steps = s.not_converged;
    w.failed_steps = s.not_converged + s.failed;
    w.steps = s.steps;
    return w.distance;
  };
  const auto t0 = std::chrono::steady_clock::now();
  run_rollout(r.model, task, 0);
  w.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return w;
}

// The learning objective: the distance walked, minus 10 m for a fall (a gait that falls is
// worse than any that stays up).
inline double score(const Walk& w) { return w.fell ? w.distance - 10.0 : w.distance; }

// The conditions a1_learn evaluates a gait under (the score is the worst of them): nominal; a
// slipperier floor (μ = 0.6) with a sideways push of 0.2 m/s; a grippier one (μ = 1.0) with a
// push forward and sideways.
inline std::vector<Perturbation> learning_conditions() {
  return {Perturbation{}, Perturbation{0.6, Vec3(0.0, 0.2, 0.0)}, Perturbation{1.0, Vec3(0.2, -0.2, 0.0)}};
}

// Gait parameters from a parameter file (names of gait_parameter); unnamed ones keep `base`.
inline GaitParameters read_gait(const std::string& path, GaitParameters base = {}) {
  for (const auto& [name, value] : read_parameters(path)) gait_parameter(base, name) = value;
  return base;
}

// The five searched parameters of Dojo's quadruped example (stride frequency, thigh and calf
// amplitudes and offsets): name, sampling scale at radius 1, bounds (joint limits, a sane
// frequency range).
struct SearchedParameter {
  const char* name;
  double scale, lower, upper;
};
inline std::vector<SearchedParameter> searched_parameters() {
  return {{"frequency", 0.25, 0.5, 5.0},
          {"thigh_amplitude", 0.04, 0.0, 0.8},
          {"thigh_offset", 0.05, 0.0, 1.6},
          {"calf_amplitude", 0.04, 0.0, 0.8},
          {"calf_offset", 0.05, -2.5, -1.0}};
}

// The search start: a gentle trot in place (2 Hz, ±0.05 rad).
inline GaitParameters search_start() {
  GaitParameters start;
  start.frequency = 2.0;
  start.amplitude = {0.0, 0.05, 0.05};
  return start;
}

// The learning objective of a1_learn, also bound in Python (maxsim.A1GaitObjective): the worst
// score over the first `conditions` of learning_conditions() of `duration`-second walks of the
// gait `start` with the searched parameters replaced by p (searched_parameters() order). The
// worst, so that a gait must walk on a slipperier and a grippier floor and recover from a push,
// not just follow one lucky trajectory; a condition with a negative score (a fall, or walking
// backwards) ends the evaluation, since it is already worse than any walking gait. Thread-safe
// and a pure function of p.
struct GaitObjective {
  const Robot* robot = nullptr;
  GaitParameters start = search_start();
  double duration = 10.0;
  int conditions = 3;

  // The searched parameters with their values in `start`, for a search.
  std::vector<SearchParameter> parameters() const {
    std::vector<SearchParameter> out;
    GaitParameters g = start;
    for (const SearchedParameter& s : searched_parameters())
      out.push_back({s.name, gait_parameter(g, s.name), s.scale, s.lower, s.upper});
    return out;
  }
  GaitParameters gait(const std::vector<double>& p) const {
    const std::vector<SearchedParameter> names = searched_parameters();
    if (p.size() != names.size()) throw std::invalid_argument("A1 gait objective: 5 parameters expected");
    GaitParameters g = start;
    for (size_t k = 0; k < names.size(); ++k) gait_parameter(g, names[k].name) = p[k];
    return g;
  }
  double operator()(const std::vector<double>& p) const {
    std::vector<Perturbation> all = learning_conditions();
    all.resize(conditions);
    double worst = std::numeric_limits<double>::infinity();
    for (const Perturbation& c : all) {
      worst = std::min(worst, score(walk(*robot, gait(p), duration, {}, c)));
      if (worst < 0) break;
    }
    return worst;
  }
};

}  // namespace maxsim::a1
