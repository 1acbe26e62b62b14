// The engine comparison (benchmarks/engines/): every built engine runs the standard scenes from its
// translation of maxsim's model, and each engine's results obey the physics the scene is built on
// (a translation error — a wrong frame, inertia, anchor, friction or force row — breaks one of
// them); maxsim's own hard-contact and loop claims hold in the same measurement.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <unistd.h>

#include "benchmarks/engines/run.hpp"
#include "benchmarks/engines/scenes.hpp"

namespace {

namespace fs = std::filesystem;
using namespace maxsim::bench;

// Runs each standard scene in an engine when a test first asks for it (ctest runs every test in a
// process of its own: each runs only what it reads).
class Engines : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("maxsim_test_engines_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    scenes_ = new std::vector<Scene>(standard_scenes(dir_->string(), false));
    results_ = new std::map<std::pair<std::string, std::string>, RunResult>;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete scenes_;
    delete results_;
  }
  static const RunResult& result(const std::string& scene, const std::string& engine) {
    const auto key = std::make_pair(scene, engine);
    if (!results_->count(key))
      for (const Scene& s : *scenes_)
        if (s.name == scene) (*results_)[key] = run_scene(s, engine);
    return results_->at(key);
  }
  static fs::path* dir_;
  static std::vector<Scene>* scenes_;
  static std::map<std::pair<std::string, std::string>, RunResult>* results_;
};
fs::path* Engines::dir_ = nullptr;
std::vector<Scene>* Engines::scenes_ = nullptr;
std::map<std::pair<std::string, std::string>, RunResult>* Engines::results_ = nullptr;

TEST_F(Engines, EveryBuiltEngineRunsTheCoreScenesWithoutFailure) {
  for (const std::string& e : built_engines())
    for (const char* s : {"box_drop", "slope30_slide", "sphere_chain", "four_bar", "stack", "pinch", "a1_stand", "ragdoll_fall"}) {
      const RunResult& r = result(s, e);
      EXPECT_TRUE(r.error.empty()) << s << " in " << e << ": " << r.error;
      EXPECT_EQ(r.failed, 0) << s << " in " << e;
      EXPECT_GT(r.steps_per_s, 0) << s << " in " << e;
    }
}

// A cube dropped on a plane comes to rest on a face: its centre 0.1 m up (soft contacts sink a
// few millimetres under 1 kg).
TEST_F(Engines, EveryEngineRestsTheDroppedCubeOnAFace) {
  for (const std::string& e : built_engines()) EXPECT_LT(result("box_drop", e).measure, 5e-3) << e;
}

// A cube released on a 30° slope with μ 0.5 slides s = ½ g (sin 30° − μ cos 30°) t² (0.21 m in
// 0.8 s): 1 cm covers a soft contact's creep and the cone's linearization of other engines.
TEST_F(Engines, EveryEngineSlidesTheCubeByCoulombsLaw) {
  for (const std::string& e : built_engines()) EXPECT_LT(result("slope30_slide", e).measure, 1e-2) << e;
}

// The four-bar's loop stays closed (a soft or stabilized closure to millimetres) and a
// conservative swing keeps its energy to within 2 % of the 2.9 J it exchanges.
TEST_F(Engines, EveryEngineKeepsTheFourBarClosedAndItsEnergy) {
  for (const std::string& e : built_engines()) {
    const RunResult& r = result("four_bar", e);
    EXPECT_LT(r.loop_violation, 5e-3) << e;
    EXPECT_LT(r.energy_drift, 0.06) << e;
  }
}

// Under the same joint PD the A1 stands at the same height in every engine (0.25 m).
TEST_F(Engines, EveryEngineStandsTheA1AtTheSameHeight) {
  for (const std::string& e : built_engines()) EXPECT_NEAR(result("a1_stand", e).measure, 0.255, 0.02) << e;
}

// Random PD targets within ±0.2 rad of standing keep the A1 on its feet in every engine (ten draws
// of the targets: all four engines upright in all; the trunk stands at about 0.25 m).
TEST_F(Engines, EveryEngineKeepsTheA1UpUnderRandomTargets) {
  for (const std::string& e : built_engines()) EXPECT_GT(result("a1_random", e).measure, 0.2) << e;
}

// maxsim's claims in the same measurement: no sinking, no creep, no slip, closed loops, energy kept.
TEST_F(Engines, MaxsimHoldsContactsAndLoopsExactly) {
  EXPECT_LT(result("slope20_creep", "maxsim").measure, 1e-8);
  EXPECT_LT(result("pinch", "maxsim").measure, 1e-8);
  EXPECT_LT(result("stack", "maxsim").measure, 1e-8);
  EXPECT_LT(result("sphere_chain", "maxsim").measure, 1e-8);
  EXPECT_LT(result("four_bar", "maxsim").loop_violation, 1e-8);
  EXPECT_LT(result("four_bar", "maxsim").energy_drift, 1e-3);
  EXPECT_LT(result("bricard", "maxsim").loop_violation, 1e-8);  // redundant rows at every configuration
  EXPECT_LT(result("bricard", "maxsim").energy_drift, 1e-2);    // of up to 11.8 J kinetic
  EXPECT_GT(result("bricard", "maxsim").measure, 0.1);          // and it moves: 1 degree of freedom
  for (const Scene& s : *scenes_) {
    EXPECT_LT(result(s.name, "maxsim").max_penetration, 1e-4) << s.name;
    EXPECT_EQ(result(s.name, "maxsim").failed, 0) << s.name;
  }
}

TEST(EngineRegistry, NamesTheBuiltAndTheMissingEngines) {
  std::set<std::string> all;
  for (const std::string& e : built_engines()) all.insert(e);
  for (const std::string& e : missing_engines()) all.insert(e.substr(0, e.find(' ')));
  EXPECT_EQ(all, (std::set<std::string>{"maxsim", "mujoco", "bullet", "dart"}));
  EXPECT_EQ(built_engines().front(), "maxsim");
  try {
    make_engine("odex");
    FAIL() << "an unknown engine was made";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("odex"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("maxsim"), std::string::npos);
  }
}

// --file: a URDF robot runs in every engine (MuJoCo through its own URDF reader, with maxsim's
// ground added) and stays above the ground it falls on.
TEST(EngineFile, RunsTheA1UrdfInEveryEngine) {
  const Scene s = file_scene(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/urdf/a1.urdf", 0.5, 0.002);
  for (const std::string& e : built_engines()) {
    const RunResult r = run_scene(s, e);
    EXPECT_TRUE(r.error.empty()) << e << ": " << r.error;
    EXPECT_EQ(r.failed, 0) << e;
    EXPECT_GT(r.measure, 0.0) << e;  // the trunk above the ground
  }
}

// A loop MuJoCo's URDF reader does not have is refused, not run as another mechanism.
TEST(EngineFile, MujocoRefusesAUrdfLoop) {
  const std::vector<std::string> built = built_engines();
  if (std::find(built.begin(), built.end(), "mujoco") == built.end()) GTEST_SKIP() << "no MuJoCo in this build";
  const Scene s = file_scene(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/dojo_fourbar/fourbar.urdf", 0.1, 0.01);
  const RunResult r = run_scene(s, "mujoco");
  EXPECT_NE(r.error.find("loop"), std::string::npos) << r.error;
}

}  // namespace
