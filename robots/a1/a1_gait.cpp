#include "robots/a1/a1_gait.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "controllers/parameters.hpp"
#include "models/load.hpp"
#include "sim/geometry/ground.hpp"

namespace maxsim::a1 {

Robot load_robot(const std::string& source_dir, double dt) {
  Robot r;
  r.model = load_model(source_dir + "/robots/a1/urdf/a1.urdf");
  r.model.opt.timestep = dt;
  r.model.opt.interior_point.max_iterations = kInteriorPointIterations;
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
  r.model.opt.contact.friction = 0.8;
  r.model.opt.contact.self_collision = false;
  // Search margin 5 cm: a narrower one lets stance pairs lift off and re-enter the contact set
  // with impulse and gap vanishing together, which the interior point does not always resolve.
  r.model.opt.contact.margin = 0.05;
  return r;
}

void stand(const Robot& r, Data& d, const GaitParameters& gait) {
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

bool fallen(const Robot& r, const Data& d) {
  const Vec3 up = quat_to_rot(d.q[r.trunk]).col(2);
  return d.x[r.trunk].z() < kFallHeight || up.z() < 0;
}

RolloutTask walk_task(const Robot& r, const GaitParameters& gait, double duration,
                      std::function<void(const Model&, const Data&)> observer, const Perturbation& perturbation) {
  RolloutTask task;
  task.steps = static_cast<int>(std::lround(duration / r.model.opt.timestep));
  task.setup = [&r, gait, perturbation](const Model& m, Data& d, int) {
    stand(r, d, gait);
    if (perturbation.push.squaredNorm() > 0) {  // the floating base's rates: (v, ω) of the trunk
      std::vector<std::vector<double>> q, qd;
      get_coordinates(m, d, &q, &qd);
      qd[r.base] = {perturbation.push.x(), perturbation.push.y(), perturbation.push.z(), 0.0, 0.0, 0.0};
      set_coordinates(m, d, q, qd);
    }
    enable_contacts(m, d);
    set_controller(d, std::make_shared<GaitController>(m, r.actuators, gait));
  };
  task.keep_going = [&r, observer](const Model& m, const Data& d, int) {
    if (observer) observer(m, d);
    return !fallen(r, d);
  };
  return task;
}

Walk walk(const Robot& r, const GaitParameters& gait, double duration,
          std::function<void(const Model&, const Data&)> observer, const Perturbation& perturbation) {
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
  if (perturbation.friction >= 0) {  // the friction is the model's option: a copy of the model with it
    Model perturbed = r.model;
    perturbed.opt.contact.friction = perturbation.friction;
    run_rollout(perturbed, task, 0);
  } else {
    run_rollout(r.model, task, 0);
  }
  w.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return w;
}

std::vector<Perturbation> learning_conditions() {
  return {Perturbation{}, Perturbation{0.6, Vec3(0.0, 0.2, 0.0)}, Perturbation{1.0, Vec3(0.2, -0.2, 0.0)}};
}

GaitParameters read_gait(const std::string& path, GaitParameters base) {
  for (const auto& [name, value] : read_parameters(path)) gait_parameter(base, name) = value;
  return base;
}

std::vector<SearchedParameter> searched_parameters() {
  return {{"frequency", 0.25, 0.5, 5.0},
          {"thigh_amplitude", 0.04, 0.0, 0.8},
          {"thigh_offset", 0.05, 0.0, 1.6},
          {"calf_amplitude", 0.04, 0.0, 0.8},
          {"calf_offset", 0.05, -2.5, -1.0}};
}

GaitParameters search_start() {
  GaitParameters start;
  start.frequency = 2.0;
  start.amplitude = {0.0, 0.05, 0.05};
  return start;
}

std::vector<SearchParameter> GaitObjective::parameters() const {
  std::vector<SearchParameter> out;
  GaitParameters g = start;
  for (const SearchedParameter& s : searched_parameters())
    out.push_back({s.name, gait_parameter(g, s.name), s.scale, s.lower, s.upper});
  return out;
}

GaitParameters GaitObjective::gait(const std::vector<double>& p) const {
  const std::vector<SearchedParameter> names = searched_parameters();
  if (p.size() != names.size()) throw std::invalid_argument("A1 gait objective: 5 parameters expected");
  GaitParameters g = start;
  for (size_t k = 0; k < names.size(); ++k) gait_parameter(g, names[k].name) = p[k];
  return g;
}

double GaitObjective::operator()(const std::vector<double>& p) const {
  std::vector<Perturbation> all = learning_conditions();
  all.resize(conditions);
  double worst = std::numeric_limits<double>::infinity();
  for (const Perturbation& c : all) {
    worst = std::min(worst, score(walk(*robot, gait(p), duration, {}, c)));
    if (worst < 0) break;
  }
  return worst;
}

}  // namespace maxsim::a1
