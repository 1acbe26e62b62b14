// Steps with hard contacts:
//
//   SphereChain/N   N spheres (r = 0.25, 1 kg) joined by spherical joints, resting on the
//                   ground (Brüdigam et al. 2023, Fig. 8b): 100 steps, Δt = 0.01 — cost must grow
//                   linearly in N
//   BoxDrop         the 0.5 m cube dropped from 0.4 m (Fig. 7d), 100 steps
//   A1Drop          the A1 (URDF, 13 bodies, self-collision on) dropped with zero torque from
//                   0.4 m, legs in the standing pose: 1 s at Δt = 0.005 (landing, folding, rest)
//   A1StandPd       the A1 MJCF (robots/a1/xml/a1.xml: its floor, joint frictionloss) standing on
//                   its feet under joint PD (kp 60, kd 1.5), 1 s at Δt = 0.002 — compare_mujoco's
//                   a1_stand_pd scenario, the step it measures against MuJoCo
//   SearchSphereChain  the contact candidate search alone (CollisionWorld::find_candidates) on
//                   a chain of 200 spheres lying on the ground: 200 candidates (was a timing
//                   inside test_collision, whose bound of 1 ms a loaded machine could miss)
//   SearchBoxStack  the same on 20 boxes stacked, each turned 0.1 rad on the one below: face
//                   clipping, ≥ 80 candidates
//
// Each iteration of the step benchmarks rebuilds the scene (untimed) and times the steps,
// including the candidate search.
#include <benchmark/benchmark.h>

#include <functional>
#include <string>

#ifdef MAXSIM_HAVE_MODELS
#include "models/load.hpp"
#endif
#include "sim/geometry/collision.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

namespace {

using namespace maxsim;

Body ball(int i) {
  Body b;
  b.name = std::to_string(i);
  b.name.insert(b.name.begin(), 's');  // (GCC 12's -Wrestrict misfires on "s" + to_string)
  b.inertia = inertia_sphere(1.0, 0.25);
  b.x0 = Vec3(0.5 * i, 0, 0.25);
  b.geoms.push_back(make_geom(GeomType::Sphere, Vec3(0.25, 0, 0)));
  return b;
}

void run(benchmark::State& state, const Model& m, int steps,
         const std::function<void(Data&)>& initial_state = nullptr) {
  int failed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Data d(m);
    if (initial_state) initial_state(d);
    enable_contacts(m, d);
    state.ResumeTiming();
    for (int k = 0; k < steps; ++k) failed += step(m, d).status != StepStatus::Ok;
  }
  state.counters["failed_steps"] = failed;
  state.counters["time_per_step_per_body"] = benchmark::Counter(
      static_cast<double>(steps) * static_cast<double>(m.bodies.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void SphereChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Model m;
  for (int i = 0; i < n; ++i) m.add_body(ball(i));
  for (int i = 1; i < n; ++i)
    m.add_joint(make_joint(m, JointType::Spherical, i - 1, i, Vec3(0.5 * i - 0.25, 0, 0.25), Vec3::UnitZ()));
  run(state, m, 100);
}

void BoxDrop(benchmark::State& state) {
  Model m;
  Body b;
  b.name = "box";
  b.inertia = inertia_box(1.0, Vec3(0.25, 0.25, 0.25));
  b.x0 = Vec3(0, 0, 0.65);
  b.geoms.push_back(make_geom(GeomType::Box, Vec3(0.25, 0.25, 0.25)));
  m.add_body(b);
  run(state, m, 100);
}

// Times find_candidates on the bodies' initial poses; counter `candidates`.
void search(benchmark::State& state, const Model& m) {
  CollisionWorld w(m, CollisionOptions{});
  std::vector<Vec3> x;
  std::vector<Vec4> q;
  for (const Body& b : m.bodies) x.push_back(b.x0), q.push_back(b.q0);
  std::vector<ContactCandidate> out;
  for (auto _ : state) w.find_candidates(x, q, &out);
  state.counters["candidates"] = static_cast<double>(out.size());
}

void SearchSphereChain(benchmark::State& state) {
  Model m;
  for (int i = 0; i < 200; ++i) m.add_body(ball(i));
  for (Body& b : m.bodies) b.x0.z() = 0.249;  // 1 mm into the ground
  for (int i = 1; i < 200; ++i)
    m.add_joint(make_joint(m, JointType::Spherical, i - 1, i, Vec3(0.5 * i - 0.25, 0, 0.249), Vec3::UnitZ()));
  search(state, m);
}

void SearchBoxStack(benchmark::State& state) {
  Model m;
  for (int i = 0; i < 20; ++i) {
    Body b;
    b.name = "box";
    b.name += std::to_string(i);
    b.inertia = inertia_box(1.0, Vec3(0.25, 0.25, 0.25));
    b.x0 = Vec3(0, 0, 0.25 + 0.5 * i);
    b.q0 = quat_axis_angle(Vec3::UnitZ(), 0.1 * i);
    b.geoms.push_back(make_geom(GeomType::Box, Vec3(0.25, 0.25, 0.25)));
    m.add_body(b);
  }
  search(state, m);
}

#ifdef MAXSIM_HAVE_MODELS
void A1Drop(benchmark::State& state) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/urdf/a1.urdf");
  m.opt.timestep = 0.005;
  run(state, m, 200, [&m](Data& d) {
    for (size_t j = 0; j < m.joints.size(); ++j) {
      const Joint& jt = m.joints[j];
      const int ji = static_cast<int>(j);
      if (jt.type == JointType::Floating) set_joint_coordinates(m, d, ji, {0, 0, 0.4, 1, 0, 0, 0}, {});
      if (jt.name.find("thigh_joint") != std::string::npos) set_joint_coordinates(m, d, ji, {0.8}, {});
      if (jt.name.find("calf_joint") != std::string::npos) set_joint_coordinates(m, d, ji, {-1.5}, {});
    }
  });
}

void A1StandPd(benchmark::State& state) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/xml/a1.xml");
  m.opt.timestep = 0.002;
  std::vector<int> hinges;
  std::vector<double> ref;
  for (size_t j = 0; j < m.joints.size(); ++j)
    if (m.joints[j].type == JointType::Revolute) {
      hinges.push_back(static_cast<int>(j));
      ref.push_back(hinges.size() % 3 == 1 ? 0.0 : hinges.size() % 3 == 2 ? 0.9 : -1.8);  // hip, thigh, calf
    }
  int failed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Data d(m);
    for (size_t h = 0; h < hinges.size(); ++h) set_joint_coordinates(m, d, hinges[h], {ref[h]}, {});
    set_joint_coordinates(m, d, 0, {0, 0, 0.5, 1, 0, 0, 0}, {});
    set_joint_coordinates(m, d, 0, {0, 0, 0.5 - lowest_collision_z(m, d), 1, 0, 0, 0}, {});  // feet on the floor
    ContactOptions& co = m.opt.contact;
    co.ground = false;  // the file's floor plane
    enable_contacts(m, d);
    d.controller = [&](const Model& model, Data& data) {
      for (size_t h = 0; h < hinges.size(); ++h) {
        double q = 0, qd = 0;
        joint_coordinates(model, data, hinges[h], &q, &qd);
        data.joint_force[hinges[h]](5) = 60 * (ref[h] - q) - 1.5 * qd;
      }
    };
    state.ResumeTiming();
    for (int k = 0; k < 500; ++k) failed += step(m, d).status != StepStatus::Ok;
  }
  state.counters["failed_steps"] = failed;
}
#endif

}  // namespace

BENCHMARK(SphereChain)->Arg(1)->Arg(10)->Arg(20)->Arg(44)->Arg(100)->Arg(200)->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(BoxDrop)->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(SearchSphereChain)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
BENCHMARK(SearchBoxStack)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
#ifdef MAXSIM_HAVE_MODELS
BENCHMARK(A1Drop)->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(A1StandPd)->Unit(benchmark::kMillisecond)->MinTime(0.2);
#endif
