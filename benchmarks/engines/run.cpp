// One scene in one engine: step, read back, measure (run.hpp).
#include "benchmarks/engines/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

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

namespace {

// A RunResult through a pipe: the numbers in hexadecimal floating point (exact), the error last.
std::string serialize(const RunResult& r) {
  char b[512];
  std::snprintf(b, sizeof b, "%d %a %a %a %a %a %a %ld %a %d\n", r.steps, r.dt, r.steps_per_s, r.max_penetration,
                r.loop_violation, r.energy_drift, r.measure, r.failed, r.iterations_mean, r.iterations_max);
  return b + r.error;
}

bool deserialize(const std::string& text, RunResult* r) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return false;
  if (std::sscanf(line.c_str(), "%d %la %la %la %la %la %la %ld %la %d", &r->steps, &r->dt, &r->steps_per_s,
                  &r->max_penetration, &r->loop_violation, &r->energy_drift, &r->measure, &r->failed,
                  &r->iterations_mean, &r->iterations_max) != 10)
    return false;
  r->error.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

RunResult run_scene_isolated(const Scene& scene, const std::string& engine, int timeout_s) {
  int fd[2];
  if (pipe(fd) != 0) return run_scene(scene, engine);
  // the child's stderr (an engine's own messages, an assertion) goes to a file: its last line
  // names the cause of a crash, and an engine that prints at every step does not flood the terminal
  std::FILE* log = std::tmpfile();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    if (log) std::fclose(log);
    return run_scene(scene, engine);
  }
  if (pid == 0) {  // the child: one run, its result or its exception through the pipe
    close(fd[0]);
    if (log) {
      dup2(fileno(log), STDERR_FILENO);
      dup2(fileno(log), STDOUT_FILENO);
    }
    alarm(static_cast<unsigned>(timeout_s));
    std::string out;
    int status = 0;
    try {
      out = serialize(run_scene(scene, engine));
    } catch (const std::exception& e) {
      out = e.what();
      status = 3;
    }
    for (size_t at = 0; at < out.size();) {
      const ssize_t n = write(fd[1], out.data() + at, out.size() - at);
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    close(fd[1]);
    std::fflush(nullptr);
    _exit(status);
  }
  close(fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::string last_line;  // of the child's messages
  if (log) {
    std::fseek(log, 0, SEEK_END);
    const long size = std::ftell(log);
    std::fseek(log, std::max(0L, size - 4096), SEEK_SET);
    std::string tail(static_cast<size_t>(std::min(size, 4096L)), '\0');
    tail.resize(std::fread(tail.data(), 1, tail.size(), log));
    std::fclose(log);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    last_line = tail.substr(tail.find_last_of('\n') == std::string::npos ? 0 : tail.find_last_of('\n') + 1);
    if (last_line.size() > 300) last_line = last_line.substr(0, 300) + "…";
  }
  RunResult r;
  r.scene = scene.name;
  r.engine = engine;
  r.dt = scene.dt;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) throw std::runtime_error(text);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && deserialize(text, &r)) return r;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    r.error = engine + " took longer than " + std::to_string(timeout_s) + " s";
  else
    r.error = engine + " " +
              (WIFSIGNALED(status) ? std::string("crashed (") + strsignal(WTERMSIG(status)) + ")"
                                   : std::string("ended without a result")) +
              (last_line.empty() ? std::string() : ": " + last_line);
  return r;
}

}  // namespace maxsim::bench
