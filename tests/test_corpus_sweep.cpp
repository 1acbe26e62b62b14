// The corpus sweep's own parts (benchmarks/corpus_sweep.hpp): the inertia its PD gains come from
// against hand calculations, the corpus list, the expected-refusals check, and one small file
// swept end to end. (The sweep of the whole corpus is the ctest label `corpus`.)
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "benchmarks/corpus_sweep.hpp"
#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

const std::string kRoot = MAXSIM_SOURCE_DIR;

// two 1 m, 1 kg thin rods hanging from the world along −z, revolute about x
Model two_rods() { return make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0); }

}  // namespace

TEST(CorpusSweep, SubtreeInertiaOfAStraightChainIsBothRodsAboutTheTopHinge) {
  const Model m = two_rods();
  Data d(m);
  set_coordinates(m, d, {{0.7}, {0.0}}, {{}, {}});  // swung as one rigid rod: same inertia
  // rod 1 about its end: 1/3; rod 2 about a point 1.5 m from its centre: 1/12 + 1.5²
  EXPECT_NEAR(subtree_inertia(m, d, 0, 5), 1.0 / 3.0 + 1.0 / 12.0 + 2.25, 1e-12);
  EXPECT_NEAR(subtree_inertia(m, d, 1, 5), 1.0 / 3.0, 1e-12);
}

TEST(CorpusSweep, SubtreeInertiaFollowsTheBentPoseAndAddsArmature) {
  Model m = two_rods();
  m.joints[0].armature[5] = 0.1;
  Data d(m);
  set_coordinates(m, d, {{0.0}, {M_PI / 2}}, {{}, {}});
  // rod 2 horizontal below the elbow: its centre is 1 m down and 0.5 m across from the top hinge
  EXPECT_NEAR(subtree_inertia(m, d, 0, 5), 0.1 + 1.0 / 3.0 + 1.0 / 12.0 + 1.25, 1e-12);
}

TEST(CorpusSweep, SubtreeOfAFloatingRobotIsTheSideAwayFromTheWorld) {
  Model m;
  Body base, arm;
  base.name = "base", base.mass = 5.0, base.inertia = inertia_box(5.0, Vec3(0.2, 0.2, 0.2));
  arm.name = "arm", arm.mass = 2.0, arm.inertia = inertia_rod(2.0, 0.6);
  arm.x0 = Vec3(0, 0, -0.3);
  m.add_body(base);
  m.add_body(arm);
  m.add_joint(make_joint(m, JointType::Floating, kWorld, 0, Vec3::Zero()));
  m.add_joint(make_joint(m, JointType::Prismatic, 0, 1, Vec3::Zero(), Vec3::UnitZ()));
  Data d(m);
  set_coordinates(m, d, {{}, {}}, {{}, {}});
  EXPECT_NEAR(subtree_inertia(m, d, 1, 2), 2.0, 1e-12);  // a slide drives the arm's mass alone
}

TEST(CorpusSweep, CorpusIsTheModelsFolderAndTheRobotsSorted) {
  const std::vector<std::string> files = corpus_files(kRoot);
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
  for (const char* f : {"robots/a1/urdf/a1.urdf", "robots/a1/xml/a1.xml", "robots/a1/menagerie_variant/scene.xml",
                        "tests/data/models/gym_mujoco/ant.xml", "tests/data/models/agility_cassie/scene.xml"})
    EXPECT_NE(std::find(files.begin(), files.end(), f), files.end()) << f;
  for (const std::string& f : files) {
    EXPECT_EQ(f.find("tests/data/broken"), std::string::npos) << f;
    EXPECT_EQ(f.find("tests/data/loader"), std::string::npos) << f;
  }
  // every pinned refusal names a corpus file (the list follows the corpus)
  for (const ExpectedRefusal& e : read_expected_refusals(kRoot + "/tests/data/models/expected_refusals.txt"))
    EXPECT_NE(std::find(files.begin(), files.end(), e.file), files.end()) << e.file;
}

TEST(CorpusSweep, RefusalsAreCheckedAgainstTheList) {
  SweepRow refused, other, loads, unlisted;
  refused.file = "a.urdf", refused.scenario = "default", refused.refusal = "a.urdf:3: collision mesh 'x.stl' not found";
  other.file = "b.xml", other.scenario = "default", other.refusal = "b.xml:1: malformed XML";
  loads.file = "c.urdf", loads.scenario = "default", loads.loaded = true;
  unlisted.file = "d.urdf", unlisted.scenario = "default", unlisted.refusal = "d.urdf: zero mass";
  const std::vector<ExpectedRefusal> expected = {
      {"a.urdf", "collision mesh 'x.stl' not found"}, {"b.xml", "unsupported MJCF element"}, {"c.urdf", "missing mesh"}};
  const std::vector<std::string> problems = check_refusals({refused, other, loads, unlisted}, expected);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_NE(problems[0].find("b.xml: refused for another reason"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("c.urdf: loads now"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("d.urdf: refused, and not in the expected refusals"), std::string::npos) << problems[2];
}

// Pinned open rows: their failures are set apart; a pinned row that runs clean is a problem. The
// checked-in list names real corpus rows.
TEST(CorpusSweep, KnownFailuresArePinnedByFileAndScenario) {
  SweepRow open, fixed, other;
  open.file = fixed.file = "a.xml", other.file = "b.urdf";
  open.scenario = "pd", fixed.scenario = "default", other.scenario = "pd";
  open.loaded = fixed.loaded = other.loaded = true;
  open.unconverged = 3;
  const std::vector<KnownFailure> known = {{"a.xml", "pd", "open"}, {"a.xml", "default", "fixed since"}};
  EXPECT_TRUE(is_known_failure(open, known));
  EXPECT_TRUE(is_known_failure(fixed, known));
  EXPECT_FALSE(is_known_failure(other, known));  // another file's pd row is checked as usual
  const std::vector<std::string> problems = check_known_failures({open, fixed, other}, known);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("a.xml [default]: runs clean now"), std::string::npos) << problems[0];
  // a row pinned as rounding-dependent ("rounding:" note) may also run clean
  const std::vector<KnownFailure> either = {{"a.xml", "default", "rounding: clean with GCC", true}};
  EXPECT_TRUE(check_known_failures({fixed}, either).empty());

  // the list's format: comments, then FILE SCENARIO NOTE (the note may have spaces)
  const std::string path = ::testing::TempDir() + "known_unconverged_test.txt";
  {
    std::ofstream f(path);
    f << "# comment\n\nrobots/a1/xml/a1.xml  pd   rounding: one step with Clang\n";
  }
  const std::vector<KnownFailure> parsed = read_known_failures(path);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].file, "robots/a1/xml/a1.xml");
  EXPECT_EQ(parsed[0].scenario, "pd");
  EXPECT_EQ(parsed[0].note, "rounding: one step with Clang");
  EXPECT_TRUE(parsed[0].rounding);
  // the project's own list (empty since every row runs clean): every file it names exists
  const std::vector<KnownFailure> listed = read_known_failures(kRoot + std::string("/tests/data/models/known_unconverged.txt"));
  const std::vector<std::string> files = corpus_files(kRoot);
  for (const KnownFailure& k : listed)
    EXPECT_NE(std::find(files.begin(), files.end(), k.file), files.end()) << k.file;
}

TEST(CorpusSweep, SweepsAFileFromItsStateAndUnderRandomPd) {
  SweepOptions o;
  o.duration = 0.5;
  o.mujoco = false;
  const std::vector<SweepRow> rows = sweep_file(kRoot, "tests/data/models/constrained_dynamics/doublependulum.urdf", o);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].scenario, "default");
  EXPECT_EQ(rows[1].scenario, "pd");
  EXPECT_EQ(rows[1].pd_joints, 2);
  for (const SweepRow& r : rows) {
    EXPECT_TRUE(r.loaded && r.ok()) << r.scenario;
    EXPECT_EQ(r.steps, 50) << r.scenario;  // 0.5 s of the default 0.01 s
  }
  // the PD moves the pendulum away from where it hangs without control
  EXPECT_GT(std::abs(rows[1].root_z - rows[0].root_z), 1e-4);

  const std::vector<SweepRow> refused = sweep_file(kRoot, "tests/data/models/gym_mujoco/walker2d.xml", o);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_FALSE(refused[0].loaded);
  EXPECT_EQ(refused[0].refusal.rfind("tests/data/models/gym_mujoco/walker2d.xml:23:", 0), 0u) << refused[0].refusal;
}
