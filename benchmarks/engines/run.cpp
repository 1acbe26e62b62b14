// One scene in one engine: step, read back, measure (run.hpp).
#include "benchmarks/engines/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/load.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::bench {

double mechanical_energy(const Model& model, const std::vector<BodyState>& bodies) {
  double e = 0;
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = model.bodies[i];
    const BodyState& s = bodies[i];
    e += 0.5 * b.mass * s.v.squaredNorm() + 0.5 * s.w.dot(b.inertia * s.w) - b.mass * model.opt.gravity.dot(s.x);
  }
  return e;
}

namespace {

bool finite(const std::vector<BodyState>& bodies) {
  for (const BodyState& s : bodies)
    if (!s.x.allFinite() || !s.q.allFinite() || !s.v.allFinite() || !s.w.allFinite()) return false;
  return true;
}

}  // namespace

RunResult run_scene(const Scene& scene, const std::string& engine_name) {
  RunResult r;
  r.scene = scene.name;
  r.engine = engine_name;
  r.dt = scene.dt;
  Model model = load_model(scene.file);
  model.opt.timestep = scene.dt;
  Data start(model);
  if (scene.start) scene.start(model, start);
  const SceneSetup setup = make_setup(model, scene.file, scene.dt, start);

  std::unique_ptr<Engine> engine = make_engine(engine_name);
  try {
    engine->load(setup);
  } catch (const std::exception& e) {  // Unsupported, or a translation the engine refuses
    r.error = e.what();
    return r;
  }

  // The probe: a Data of the model where each state read back is placed, for the kinematics the
  // control reads and the metrics maxsim's own geometry and joints measure.
  Data probe(start);  // (its unwrapped joint angles start as the start's)
  if (model.contacts) enable_contacts(model, probe);
  std::vector<BodyState> first, now;
  engine->read(&first);
  now = first;
  auto observe = [&](const std::vector<BodyState>& bodies) {
    place_bodies(model, bodies, &probe);
    if (probe.contact_search) {
      probe.contact_search->collide(model, probe, scene.dt);
      r.max_penetration = std::max(r.max_penetration, max_penetration(probe));
    }
    r.loop_violation = std::max(r.loop_violation, max_constraint_violation(model, probe));
  };
  auto energy = [&](const std::vector<BodyState>& bodies) {
    double e = 0;
    return engine->own_energy(&e) ? e : mechanical_energy(model, bodies);
  };
  observe(first);
  const double e0 = energy(first);
  if (scene.conservative) r.energy_drift = 0;

  using Clock = std::chrono::steady_clock;
  double wall = 0, iterations = 0;
  for (int k = 0; k < scene.steps; ++k) {
    probe.time = k * scene.dt;
    if (scene.control) scene.control(probe.time, model, probe, *engine);
    const Clock::time_point t0 = Clock::now();
    const bool ok = engine->step();
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    engine->read(&now);
    ++r.steps;
    iterations += engine->iterations();
    r.iterations_max = std::max(r.iterations_max, engine->iterations());
    if (!finite(now)) {
      ++r.failed;
      break;
    }
    if (!ok) ++r.failed;
    observe(now);
    if (scene.conservative) r.energy_drift = std::max(r.energy_drift, std::abs(energy(now) - e0));
  }
  r.steps_per_s = wall > 0 ? r.steps / wall : 0;
  r.iterations_mean = r.steps > 0 ? iterations / r.steps : 0;
  if (scene.measure)
    r.measure = finite(now) ? scene.measure(model, first, now, r.steps * scene.dt) : std::nan("");
  return r;
}

}  // namespace maxsim::bench
