// The state in MuJoCo's qpos/qvel layout, resets and keyframes (sim/state/state.hpp), on real files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/projection.hpp"

using namespace maxsim;

namespace {
std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
const char* kA1 = "robots/a1/menagerie_variant/a1.xml";

// The bodies' maximal state, compared bitwise.
void expect_same_state(const Data& a, const Data& b) {
  ASSERT_EQ(a.x.size(), b.x.size());
  EXPECT_EQ(a.time, b.time);
  for (size_t i = 0; i < a.x.size(); ++i) {
    EXPECT_EQ(a.x[i], b.x[i]) << "body " << i;
    EXPECT_EQ(a.q[i], b.q[i]) << "body " << i;
    EXPECT_EQ(a.v[i], b.v[i]) << "body " << i;
    EXPECT_EQ(a.w[i], b.w[i]) << "body " << i;
  }
}
}  // namespace

// The A1's MJCF: a free joint and 12 hinges give MuJoCo's nq = 19, nv = 18; the "home"
// keyframe's qpos comes back from get_qpos as written in the file, and its ctrl is the command.
TEST(State, A1KeyframeInMujocoLayout) {
  const Model m = load_model(repo(kA1));
  EXPECT_EQ(qpos_size(m), 19);
  EXPECT_EQ(qvel_size(m), 18);
  const int home = m.keyframe_index("home");
  ASSERT_GE(home, 0);
  Data d(m);
  reset_data(m, d, home);
  const std::vector<double> file_qpos = {0, 0, 0.27, 1, 0, 0, 0, 0, 0.9, -1.8, 0, 0.9, -1.8,
                                         0, 0.9, -1.8, 0, 0.9, -1.8};
  const std::vector<double> qpos = get_qpos(m, d);
  ASSERT_EQ(qpos.size(), file_qpos.size());
  for (size_t i = 0; i < qpos.size(); ++i) EXPECT_NEAR(qpos[i], file_qpos[i], 1e-12) << "qpos[" << i << "]";
  for (double v : get_qvel(m, d)) EXPECT_EQ(v, 0.0);
  // the addresses: the free joint at 0 / 0, the 12 hinges after it in the file's order
  const std::vector<int> qa = qpos_addresses(m), va = qvel_addresses(m);
  EXPECT_EQ(qa[0], 0);
  EXPECT_EQ(va[0], 0);
  const int knee = m.joint_index("FR_calf_joint");
  ASSERT_GE(knee, 0);
  EXPECT_EQ(qa[knee], 9);
  EXPECT_EQ(va[knee], 8);
  EXPECT_EQ(qpos[qa[knee]], -1.8);
  ASSERT_EQ(d.ctrl.size(), 12u);
  EXPECT_EQ(d.ctrl[1], 0.9);
  EXPECT_EQ(d.ctrl[2], -1.8);
}

// set_qpos_qvel then get_qpos/get_qvel returns what was set (a tree: no projection moves it),
// including the hinge `ref` offsets of gym's reacher (its target slides have ref ±0.1).
TEST(State, QposQvelRoundTrip) {
  for (const char* file : {kA1, "tests/data/models/gym_mujoco/reacher.xml"}) {
    SCOPED_TRACE(file);
    const Model m = load_model(repo(file));
    Data d(m);
    std::vector<double> qpos = get_qpos(m, d), qvel(qvel_size(m));
    // the zero configuration of the file is MuJoCo's qpos0: hinges and slides at their ref
    // (the reacher's target slides: ref = 0.1 and -0.1, its last two qpos entries)
    if (m.keyframes.empty()) {
      ASSERT_EQ(qpos.size(), 4u);
      EXPECT_EQ(qpos[2], 0.1);
      EXPECT_EQ(qpos[3], -0.1);
    }
    for (size_t i = 0; i < qvel.size(); ++i) qvel[i] = 0.1 * std::sin(1.0 + i);
    for (size_t i = 0; i < qpos.size(); ++i)
      if (m.joints.size() > 0 && m.joints[0].type != JointType::Floating) qpos[i] += 0.05 * std::cos(2.0 + i);
    if (m.joints[0].type == JointType::Floating)
      for (size_t i = 7; i < qpos.size(); ++i) qpos[i] += 0.05 * std::cos(2.0 + i);
    set_qpos_qvel(m, d, qpos, qvel);
    const std::vector<double> qpos2 = get_qpos(m, d), qvel2 = get_qvel(m, d);
    for (size_t i = 0; i < qpos.size(); ++i) EXPECT_NEAR(qpos2[i], qpos[i], 1e-12) << "qpos[" << i << "]";
    for (size_t i = 0; i < qvel.size(); ++i) EXPECT_NEAR(qvel2[i], qvel[i], 1e-12) << "qvel[" << i << "]";
  }
  const Model m = load_model(repo(kA1));
  Data d(m);
  EXPECT_THROW(set_qpos_qvel(m, d, std::vector<double>(18), std::vector<double>(18)), std::invalid_argument);
  std::vector<double> bad = get_qpos(m, d);
  bad[8] = std::nan("");
  EXPECT_THROW(set_qpos_qvel(m, d, bad, std::vector<double>(18)), std::invalid_argument);
  EXPECT_THROW(reset_data(m, d, 7), std::invalid_argument);
}

// A state whose loop cannot close (Dojo's four-bar with its loop anchor moved 8 m off) is refused
// by set_qpos_qvel with the joint and its violation, not left off the loop silently; the same
// four-bar as written takes its own state back.
TEST(State, QposThatCannotCloseTheLoopIsRefused) {
  std::string fourbar;
  {
    std::ifstream in(repo("tests/data/models/dojo_fourbar/fourbar.urdf"));
    fourbar.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const Model ok = load_model(repo("tests/data/models/dojo_fourbar/fourbar.urdf"));
  Data d(ok);
  EXPECT_NO_THROW(set_qpos_qvel(ok, d, get_qpos(ok, d), get_qvel(ok, d)));
  const std::string anchor = "<link1 link=\"link2\" rpy=\"0 0 0\" xyz=\"0 0 -1.0\"/>";
  ASSERT_NE(fourbar.find(anchor), std::string::npos);
  fourbar.replace(fourbar.find(anchor), anchor.size(), "<link1 link=\"link2\" rpy=\"0 0 0\" xyz=\"0 0 -9.0\"/>");
  const std::string path = (std::filesystem::temp_directory_path() / "maxsim_state_fourbar_far.urdf").string();
  std::ofstream(path) << fourbar;
  const Model far = load_model(path);
  Data f(far);
  try {
    set_qpos_qvel(far, f, get_qpos(far, f), get_qvel(far, f));
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("does not close the model's loops"), std::string::npos) << what;
    EXPECT_NE(what.find("joint '"), std::string::npos) << what;
    EXPECT_NE(what.find(" is off by "), std::string::npos) << what;  // (worst_row_description, as the CLI words it)
  }
}

// After steps with contacts the workspace holds inequality nodes that a placed state's projection
// leaves out (identity pivots): Dojo's quadruped (a tree) lying on its floor with 60-odd contact
// candidates takes its own state back unchanged, and the projection reports convergence (a zero
// block there was singular and the velocity projection failed).
TEST(State, QposQvelAfterStepsWithContacts) {
  const Model m = load_model(repo("tests/data/models/constrained_dynamics/quadruped.urdf"));
  Data d(m);
  enable_contacts(m, d);
  for (int a = 0; a < m.nu(); ++a) d.ctrl[a] = 0.3;
  for (int n = 0; n < 200; ++n) step(m, d);
  ASSERT_GT(d.contacts.size(), 10u);
  const std::vector<double> qpos = get_qpos(m, d), qvel = get_qvel(m, d);
  ASSERT_NO_THROW(set_qpos_qvel(m, d, qpos, qvel));
  const std::vector<double> qpos2 = get_qpos(m, d), qvel2 = get_qvel(m, d);
  for (size_t i = 0; i < qpos.size(); ++i) EXPECT_NEAR(qpos2[i], qpos[i], 1e-12) << i;
  for (size_t i = 0; i < qvel.size(); ++i) EXPECT_NEAR(qvel2[i], qvel[i], 1e-9) << i;
  EXPECT_TRUE(project_state(m, d).converged);
}

// A reset Data runs as a new one, to the last bit: the A1 dropped from its keyframe onto the
// floor under its position servos (contacts, warm starts, the contact search's memory), run,
// reset, run again. The servos hold the keyframe's stance: the trunk stays up.
TEST(State, ResetRunsAsANewData) {
  Model m = load_model(repo(kA1));
  m.opt.contact.ground = true;  // (a1.xml has no floor of its own: the ground half-space z >= 0)
  const int home = m.keyframe_index("home");
  auto run = [&](Data& d) {
    for (int k = 0; k < 300; ++k) ASSERT_NE(step(m, d).status, StepStatus::Failed);
  };
  Data a(m);
  enable_contacts(m, a);
  reset_data(m, a, home);
  run(a);
  const Data first = a;
  EXPECT_GT(first.x[0].z(), 0.2);  // standing on the servos (keyframe trunk height 0.27 m)
  EXPECT_FALSE(first.contacts.empty());
  reset_data(m, a, home);
  EXPECT_EQ(a.time, 0.0);
  EXPECT_TRUE(a.contacts.empty());
  run(a);
  expect_same_state(first, a);
  // and a plain reset goes back to the model's pose with zero commands
  reset_data(m, a);
  EXPECT_EQ(a.ctrl, std::vector<double>(12, 0.0));
  EXPECT_EQ(a.x[0], m.bodies[0].x0);
}
