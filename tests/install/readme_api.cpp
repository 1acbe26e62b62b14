// The C++ the READMEs show (README.md, controllers/README.md), compiled and linked against the
// installed package by tests/install (and in the tree with install_check): a renamed or removed
// public function fails here. Linked, never called: main.cpp is what runs.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "controllers/joint_pd.hpp"
#include "controllers/rollout.hpp"
#include "controllers/search.hpp"
#include "mechanisms/builders.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"
#include "tuning/optimize.hpp"

namespace readme {

using namespace maxsim;

// README "A short example": a double pendulum built in code
double double_pendulum() {
  Model model;                      // constant description
  model.opt.timestep = 0.01;
  for (int i = 0; i < 2; ++i) {     // two 1 m, 1 kg rods hanging along −z
    Body rod;
    rod.name = "link" + std::to_string(i + 1);
    rod.mass = 1.0;
    rod.inertia = inertia_rod(1.0, 1.0);
    rod.x0 = Vec3(0, 0, -0.5 - i);  // zero-configuration CoM position
    model.add_body(rod);
    model.add_joint(make_joint(model, JointType::Revolute, i == 0 ? kWorld : 0, i,
                               Vec3(0, 0, -1.0 * i), Vec3::UnitX()));
  }
  Data data(model);
  set_joint_coordinates(model, data, 0, {M_PI / 2}, {});
  for (int k = 0; k < 1000; ++k) {
    StepReport r = step(model, data);
    if (r.status != StepStatus::Ok) break;
  }
  double q, qd;
  joint_coordinates(model, data, 1, &q, &qd);
  double e = total_energy(model, data), viol = max_constraint_violation(model, data);
  return q + qd + e + viol;
}

// README "Named controls, the state as qpos/qvel, resets"
double mujoco_layout() {
  Model m = load_model("robots/a1/menagerie_variant/scene.xml");
  Data d(m);
  enable_contacts(m, d);
  reset_data(m, d, m.keyframe_index("home"));
  d.ctrl[m.actuator_index("FR_hip")] = 0.2;
  for (int k = 0; k < 200; ++k) step(m, d);
  std::vector<double> qpos = get_qpos(m, d), qvel = get_qvel(m, d);
  int knee = qpos_addresses(m)[m.joint_index("FR_calf_joint")];
  set_qpos_qvel(m, d, qpos, qvel);
  reset_data(m, d);
  Data saved = d;
  d = saved;
  return qpos[knee];
}

// README "Contacts"
double contacts(Model model) {
  model.opt.contact.friction = 0.5;
  model.opt.contact.cone = FrictionCone::Nonlinear;
  model.opt.contact.restitution = 0.0;
  Data data(model);
  enable_contacts(model, data);
  step(model, data);
  return max_penetration(data);
}

// README "Controllers"
void controllers(const Model& model, Data& data) {
  auto pd = std::make_shared<JointPdController>(as_pd(actuators_from_model(model), 40.0, 4.0));
  pd->set_reference(model, "joint1", constant_reference(0.8));
  set_controller(data, pd);
  set_controller(data, [](const Model&, Data& d) { d.joint_force[0](5) = 1.0; });
}

// README "Tuning over MPI ranks, with NLopt and CMA-ES"
int tuning(int argc, char** argv) {
  maxsim::Cluster cluster(argc, argv);
  maxsim::SearchOptions o;
  std::vector<maxsim::SearchParameter> params = {{"kp", 100, 10, 0, 1000}, {"kd", 5, 1, 0, 50}};
  maxsim::Objective f = [&](const std::vector<double>&) { return 0.0; };
  std::optional<maxsim::SearchResult> r = maxsim::optimize(cluster, "sample", params, f, o);
  if (!r) return 0;
  if (!r->error.empty()) std::fprintf(stderr, "%s\n", r->error.c_str());
  return 1;
}

// README "Which to use" and "Nonholonomic constraints"
void energy_momentum() {
  Model m = load_model("tests/data/nonholonomic/sleigh.urdf");
  m.opt.integrator = Integrator::EnergyMomentum;
  for (Joint& j : m.joints) j.has_limits = false;
  NonholonomicConstraint c;
  c.name = "wheel";
  c.kind = NonholonomicKind::RollingDisk;
  c.body = m.body_index("disk");
  c.radius = 0.5;
  c.axis = Vec3(1, 0, 0);
  m.add_nonholonomic(c);
  Data d(m);
  if (const std::string why = integrator_support(m, d); !why.empty()) throw std::runtime_error(why);
  step(m, d);
}

// controllers/README.md "Example": PD, a lambda, rollouts and the sampling search
SearchResult controllers_example() {
  Model model = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.001);
  Data data(model);
  std::vector<Actuator> acts = as_pd(actuators_from_model(model), 40.0, 4.0);
  acts[0].force_limited = true;
  acts[0].force_lower = -8;
  acts[0].force_upper = 8;
  auto pd = std::make_shared<JointPdController>(acts);
  pd->set_reference(model, "joint1", sinusoid_reference({0.5, 2.0, 0.0, 0.3}));
  set_controller(data, pd);
  set_controller(data, [](const Model& m, Data& d) {
    const RowCoordinate c = row_coordinate(m, d, 0, 5);
    d.joint_force[0](5) = -10.0 * c.q - 1.0 * c.qd;
  });
  step(model, data);
  Objective objective = [&](const std::vector<double>& gains) {
    RolloutTask task;
    task.steps = 2000;
    task.setup = [&, gains](const Model& m, Data& d, int) {
      auto c = std::make_shared<JointPdController>(as_pd(actuators_from_model(m), gains[0], gains[1]));
      c->set_reference(0, constant_reference(1.0));
      set_controller(d, c);
    };
    task.evaluate = [](const Model& m, const Data& d, const RolloutStats&, int) {
      return -std::abs(1.0 - row_coordinate(m, d, 0, 5).q);
    };
    return run_rollout(model, task, 0).value;
  };
  SearchOptions options;
  options.episodes = 50;
  options.samples = 8;
  options.log_csv = "gains.csv";
  options.best_file = "gains.params";
  return sample_search({{"kp", 5, 20, 0, 500}, {"kv", 0.5, 2, 0, 50}}, objective, options);
}

}  // namespace readme
