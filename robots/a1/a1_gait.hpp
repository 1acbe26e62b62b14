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
// Library maxsim_robots (with the exoskeleton): the examples, the tests and the Python module link it.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/gait.hpp"
#include "controllers/rollout.hpp"
#include "controllers/search.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::a1 {

constexpr int kInteriorPointIterations = 100;  // (library default 50; see load_robot)
constexpr double kFallHeight = 0.15;  // trunk CoM below this (m), or upside down: fallen

struct Robot {
  Model model;
  int trunk = -1;                 // trunk body
  int base = -1;                  // the floating joint world → trunk
  std::array<int, 12> legs{};     // leg joints FR_hip ... RL_calf (controllers/gait.hpp order)
  std::vector<Actuator> actuators;  // the URDF's torque-limited motors (contacts: model.opt.contact)
};

// The A1 of robots/a1/urdf/a1.urdf under `source_dir`, its motors, contacts and time step.
Robot load_robot(const std::string& source_dir, double dt = 0.001);

// Stands the robot still in the gait's t = 0 pose, trunk level and its feet touching z = 0
// (the URDF's floating base loads at the origin, so the trunk is placed through the floating
// joint's coordinates (x, y, z, qw, qx, qy, qz)).
void stand(const Robot& r, Data& d, const GaitParameters& gait);

bool fallen(const Robot& r, const Data& d);

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
// `observer` (optional) sees the state after every step (trajectory output). The task refers to
// `r`, which must outlive it. It applies the perturbation's push; its friction is a contact option
// of the model the task runs on (walk runs a copy of r.model with it).
RolloutTask walk_task(const Robot& r, const GaitParameters& gait, double duration,
                      std::function<void(const Model&, const Data&)> observer = {},
                      const Perturbation& perturbation = {});

// Runs one episode on this thread and measures it.
Walk walk(const Robot& r, const GaitParameters& gait, double duration,
          std::function<void(const Model&, const Data&)> observer = {},
          const Perturbation& perturbation = {});

// The learning objective: the distance walked, minus 10 m for a fall (a gait that falls is
// worse than any that stays up).
inline double score(const Walk& w) { return w.fell ? w.distance - 10.0 : w.distance; }

// The conditions a1_learn evaluates a gait under (the score is the worst of them): nominal; a
// slipperier floor (μ = 0.6) with a sideways push of 0.2 m/s; a grippier one (μ = 1.0) with a
// push forward and sideways.
std::vector<Perturbation> learning_conditions();

// Gait parameters from a parameter file (names of gait_parameter); unnamed ones keep `base`.
GaitParameters read_gait(const std::string& path, GaitParameters base = {});

// The five searched parameters of Dojo's quadruped example (stride frequency, thigh and calf
// amplitudes and offsets): name, sampling scale at radius 1, bounds (joint limits, a sane
// frequency range).
struct SearchedParameter {
  const char* name;
  double scale, lower, upper;
};
std::vector<SearchedParameter> searched_parameters();

// The search start: a gentle trot in place (2 Hz, ±0.05 rad).
GaitParameters search_start();

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
  std::vector<SearchParameter> parameters() const;
  GaitParameters gait(const std::vector<double>& p) const;
  double operator()(const std::vector<double>& p) const;
};

}  // namespace maxsim::a1
