// Bitwise reference trajectories: the reference scenes (a cube with each friction cone, the A1
// from MJCF and URDF under random commands, the humanoid falling, gym's ant and hopper under random
// commands, Cassie from its home keyframe, ANYmal under random commands, the four-bar, the
// exoskeleton, and the papers' energy–momentum examples) run a fixed number of steps; every step's
// state, impulses, contact variables and solver report are hashed (FNV-1a over their bytes). A
// restructuring of the engine that changes no number keeps every digest.
//
// The stored digests (tests/data/reference_digests.txt) hold for the configuration named on their
// first line (compiler, build type, -march=native): floating-point results of another compiler or
// instruction set differ in the last bits, so elsewhere the test is skipped with that reason.
// MAXSIM_UPDATE_DIGESTS=1 rewrites the file (only when the physics is meant to change; say why
// in the commit).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mechanisms/builders.hpp"
#include "mechanisms/seed_examples.hpp"
#include "run/setup.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
const std::string kDigestFile = repo("tests/data/reference_digests.txt");

// The compiler, the build type and the vector instructions the build may use.
std::string configuration() {
  std::ostringstream s;
#if defined(__clang__)
  s << "clang-";
#else
  s << "gcc-";
#endif
  std::string version = __VERSION__;
  for (char& c : version)
    if (c == ' ') c = '_';
  s << version << " " << MAXSIM_BUILD_TYPE;
#ifdef __AVX2__
  s << " avx2";
#endif
#ifdef __FMA__
  s << " fma";
#endif
#ifdef __AVX__
  s << " avx";
#endif
#ifdef __SSE4_2__
  s << " sse4.2";
#endif
  return s.str();
}

struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= c[i];
      h *= 1099511628211ull;
    }
  }
  template <class T>
  void add(const T& v) { bytes(&v, sizeof(T)); }
  template <class M>
  void matrices(const std::vector<M>& v) {
    for (const M& m : v) bytes(m.data(), sizeof(double) * m.size());
  }
};

// What the scenes exercised (printed: the failure policy's paths should be among them).
struct Coverage {
  long steps = 0, iterations = 0, contacts = 0, substeps = 0, relaxed = 0, unconverged = 0;
} coverage;

// Everything a step produces that a restructuring must not change.
void hash_step(const Data& d, const StepReport& rep, Hash* h) {
  ++coverage.steps;
  coverage.iterations += rep.iterations;
  coverage.contacts += static_cast<long>(d.contacts.size());
  coverage.substeps += rep.substeps;
  coverage.relaxed += rep.relaxed;
  coverage.unconverged += rep.status != StepStatus::Ok;
  h->add(d.time);
  h->matrices(d.x);
  h->matrices(d.q);
  h->matrices(d.v);
  h->matrices(d.w);
  h->matrices(d.joint_impulse);
  h->matrices(d.joint_angle);
  h->matrices(d.nonholonomic_impulse);
  for (double f : d.actuator_force) h->add(f);
  h->add(d.contacts.size());
  for (const Contact& c : d.contacts) {
    h->add(c.body_a);
    h->add(c.body_b);
    h->add(c.gamma);
    h->add(c.slack);
    h->bytes(c.b.data(), sizeof(double) * 2);
    h->bytes(c.eta.data(), sizeof(double) * 3);
  }
  h->add(static_cast<int>(rep.status));
  h->add(rep.iterations);
  h->add(rep.residual);
  h->add(rep.substeps);
  h->add(rep.relaxed);
}

// A fixed random command within each actuator's range, redrawn every `hold` steps.
struct RandomCommands {
  std::uint64_t state;
  int hold;
  double uniform() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  }
  void draw(const Model& m, Data& d) {
    for (int a = 0; a < m.nu(); ++a) {
      const Actuator& act = m.actuators[a];
      double lo = -1, hi = 1;
      if (act.ctrl_limited) lo = act.ctrl_lower, hi = act.ctrl_upper;
      else if (act.force_limited) lo = act.force_lower, hi = act.force_upper;
      d.ctrl[a] = lo + (hi - lo) * uniform();
    }
  }
};

struct Scene {
  std::string name;
  std::function<std::uint64_t()> run;
};

// A file set up as `maxsim simulate FILE [options]` sets it up, `steps` steps, with random
// commands when hold > 0.
std::uint64_t run_file(const std::string& file, int steps, int hold, const std::function<void(run::Options&)>& edit = {}) {
  run::Options o;
  o.command = run::Command::Simulate;
  o.model_path = repo(file);
  if (edit) edit(o);
  run::RunSetup s = run::setup_model(o);
  const Model& m = s.loaded.model;
  Data d(m);
  run::setup_state(s, o, d);
  RandomCommands commands{12345, hold};
  Hash h;
  for (int k = 0; k < steps; ++k) {
    if (hold > 0 && k % hold == 0) commands.draw(m, d);
    const StepReport rep = step(m, d);
    hash_step(d, rep, &h);
  }
  return h.h;
}

// A 1 kg box thrown onto the ground half-space sliding and spinning, with the given cone.
std::uint64_t run_cube(FrictionCone cone) {
  Model m;
  Body b;
  b.name = "box";
  b.mass = 1;
  b.inertia = Mat3::Identity() * (1.0 / 6.0) * 0.04;
  b.x0 = Vec3(0, 0, 0.25);
  b.geoms.push_back(make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1)));
  m.add_body(b);
  Joint j;
  j.name = "free";
  j.type = JointType::Floating;
  j.child = 0;
  m.add_joint(j);
  Data d(m);
  d.v[0] = Vec3(1.5, 0.3, 0);
  d.w[0] = Vec3(0.4, -0.2, 3.0);
  ContactOptions& co = m.opt.contact;
  co.cone = cone;
  enable_contacts(m, d);
  Hash h;
  for (int k = 0; k < 300; ++k) hash_step(d, step(m, d), &h);
  return h.h;
}

std::uint64_t run_seed(const SeedExample& ex, int steps) {
  Data d(ex.model);
  start_seed_example(ex, d);
  Hash h;
  for (int k = 0; k < steps; ++k) hash_step(d, step(ex.model, d), &h);
  return h.h;
}

// The Grashof four-bar built in code, its crank started at 4 rad/s (a loop closed by a revolute joint
// with redundant rows), and Fig. 7a's parallelogram with a damper on its first joint.
std::uint64_t run_loops() {
  Hash h;
  {
    const Model m = make_fourbar();
    Data d(m);
    set_joint_coordinates(m, d, 1, {0.3}, {4.0});
    project_state(m, d);
    for (int k = 0; k < 300; ++k) hash_step(d, step(m, d), &h);
  }
  {
    Model m = make_three_link_loop();
    m.joints[0].damping[5] = 0.5;
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.4}, {1.0});
    project_state(m, d);
    for (int k = 0; k < 300; ++k) hash_step(d, step(m, d), &h);
  }
  return h.h;
}

std::vector<Scene> scenes() {
  auto ground_on = [](run::Options& o) { o.ground = run::Ground::On; };
  return {
      {"cube_nonlinear", [] { return run_cube(FrictionCone::Nonlinear); }},
      {"cube_linear", [] { return run_cube(FrictionCone::Linear); }},
      {"cube_relaxed", [] { return run_cube(FrictionCone::Relaxed); }},
      {"a1_mjcf_random", [] { return run_file("robots/a1/xml/a1.xml", 300, 50); }},
      {"a1_urdf_random", [] { return run_file("robots/a1/urdf/a1.urdf", 200, 50); }},
      {"humanoid_fall", [] { return run_file("tests/data/models/mujoco_models/humanoid/humanoid.xml", 300, 0); }},
      {"ant_random", [] { return run_file("tests/data/models/gym_mujoco/ant.xml", 300, 50); }},
      {"hopper_random", [] { return run_file("tests/data/models/gym_mujoco/hopper.xml", 300, 50); }},
      {"cassie_home", [] {
         return run_file("tests/data/models/agility_cassie/scene.xml", 200, 0,
                         [](run::Options& o) { o.keyframe = "home"; });
       }},
      {"anymal_urdf_random", [&] { return run_file("tests/data/models/anybotics_anymal_c/urdf/anymal.urdf", 200, 50); }},
      {"anymal_mjcf_random",
       [&] { return run_file("tests/data/models/anybotics_anymal_c/menagerie_variant/scene.xml", 200, 50, ground_on); }},
      {"fourbar", [] { return run_file("tests/data/models/dojo_fourbar/fourbar.urdf", 300, 0); }},
      {"loops_in_code", [] { return run_loops(); }},
      {"exoskeleton", [] { return run_file("robots/exoskeleton/exoskeleton.urdf", 300, 50); }},
      {"panda_random", [] { return run_file("tests/data/models/franka_panda/panda.urdf", 200, 50); }},
      {"em_free_body", [] { return run_seed(make_free_rigid_body(), 40); }},
      {"em_heavy_top", [] { return run_seed(make_heavy_top(), 100); }},
      {"em_closed_loop", [] { return run_seed(make_seed_closed_loop(), 20); }},
      {"em_rolling_disk", [] { return run_seed(make_rolling_disk(), 100); }},
      {"em_rolling_ball", [] { return run_seed(make_rolling_ball(), 100); }},
      {"em_sleigh", [] { return run_seed(make_chaplygin_sleigh(), 60); }},
      {"em_suslov", [] { return run_seed(make_suslov(), 100); }},
  };
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

TEST(ReferenceDigests, EveryReferenceSceneStepsBitwiseAsStored) {
  const char* update = std::getenv("MAXSIM_UPDATE_DIGESTS");
  if (update && std::string(update) == "1") {
    std::ofstream out(kDigestFile);
    out << "config " << configuration() << "\n";
    for (const Scene& s : scenes()) out << s.name << " " << hex(s.run()) << "\n";
    GTEST_SKIP() << "digests written to " << kDigestFile;
  }
  std::ifstream in(kDigestFile);
  ASSERT_TRUE(in) << kDigestFile;
  std::string line, stored_config;
  std::getline(in, line);
  ASSERT_EQ(line.rfind("config ", 0), 0u) << line;
  stored_config = line.substr(7);
  if (stored_config != configuration())
    GTEST_SKIP() << "digests are stored for '" << stored_config << "', this build is '" << configuration()
                 << "' (its floating-point results differ in the last bits)";
  std::map<std::string, std::string> stored;
  std::string name, digest;
  while (in >> name >> digest) stored[name] = digest;
  for (const Scene& s : scenes()) {
    ASSERT_TRUE(stored.count(s.name)) << s.name << " has no stored digest";
    coverage = Coverage{};
    EXPECT_EQ(hex(s.run()), stored[s.name]) << s.name;
    std::printf("%-20s steps %4ld  iterations %6ld  contact rows %6ld  substeps %3ld  relaxed %3ld  not ok %3ld\n",
                s.name.c_str(), coverage.steps, coverage.iterations, coverage.contacts, coverage.substeps,
                coverage.relaxed, coverage.unconverged);
  }
}
