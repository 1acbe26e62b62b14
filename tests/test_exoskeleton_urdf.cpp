// The URDF extensions the exoskeleton needs (models/urdf/; README "Arm exoskeleton"):
//   * <joint type="ball">: a spherical tree joint (Dojo's / ConstrainedDynamics' name);
//   * <loop_joint type="planar">: two translations in the plane normal to the axis and the
//     rotation about it (URDF's planar kinematics) as a loop-closing joint;
//   * <dynamics stiffness=".." damping=".." friction=".."/> on loop joints, one value for every
//     free row or one per free row, the stiffness a spring towards the zero configuration.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/maxsim.hpp"

namespace maxsim {
namespace {

namespace fs = std::filesystem;

std::string write_urdf(const std::string& name, const std::string& body) {
  const fs::path dir = fs::temp_directory_path() / ("maxsim_test_exo_urdf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << "<?xml version=\"1.0\"?>\n<robot name=\"t\">\n" << body << "</robot>\n";
  return p.string();
}

// A 2 kg block hanging from a fixed base through a URDF floating joint (which constrains nothing)
// and held by a planar loop joint with axis x: it may slide in y-z and turn about x on springs.
std::string block(const std::string& dynamics, const std::string& type = "planar") {
  return R"(
  <link name="world"/>
  <link name="base"/>
  <joint name="weld" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>
  <link name="block">
    <inertial><origin xyz="0 0 0"/><mass value="2"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="free" type="floating"><parent link="base"/><child link="block"/><origin xyz="0 0 -0.2"/></joint>
  <loop_joint name="strap" type=")" + type + R"(">
    <link1 link="base" xyz="0 0 -0.2" rpy="0 0 0"/>
    <link2 link="block" xyz="0 0 0" rpy="0 0 0"/>
    <axis xyz="1 0 0"/>
    )" + dynamics + R"(
  </loop_joint>
)";
}

TEST(ExoskeletonUrdf, PlanarLoopJointWithPerRowSprings) {
  const Model m = load_model(write_urdf("planar3.urdf", block(R"(<dynamics stiffness="1000 2000 30" damping="50 60 0.5"/>)")));
  const int j = m.joint_index("strap");
  ASSERT_GE(j, 0);
  const Joint& s = m.joints[j];
  EXPECT_EQ(s.type, JointType::PlanarAxis);
  EXPECT_EQ(s.dof(), 3);
  EXPECT_DOUBLE_EQ(s.stiffness[0], 1000);
  EXPECT_DOUBLE_EQ(s.stiffness[1], 2000);
  EXPECT_DOUBLE_EQ(s.stiffness[5], 30);
  EXPECT_DOUBLE_EQ(s.damping[0], 50);
  EXPECT_DOUBLE_EQ(s.damping[1], 60);
  EXPECT_DOUBLE_EQ(s.damping[5], 0.5);
  EXPECT_EQ(s.stiffness[2], 0);  // constrained rows carry nothing
  // one value: every free row
  const Model one = load_model(write_urdf("planar1.urdf", block(R"(<dynamics stiffness="500" damping="5"/>)")));
  const Joint& s1 = one.joints[one.joint_index("strap")];
  for (int r : {0, 1, 5}) {
    EXPECT_DOUBLE_EQ(s1.stiffness[r], 500);
    EXPECT_DOUBLE_EQ(s1.damping[r], 5);
  }
  // a revolute loop joint takes a stiffness too
  const Model rev = load_model(write_urdf("rev.urdf", block(R"(<dynamics stiffness="7"/>)", "revolute")));
  EXPECT_DOUBLE_EQ(rev.joints[rev.joint_index("strap")].stiffness[5], 7);
}

TEST(ExoskeletonUrdf, BadLoopDynamicsAreErrors) {
  auto message = [](const std::string& file) {
    try {
      load_model(file);
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  const std::string two = message(write_urdf("two.urdf", block(R"(<dynamics stiffness="1 2"/>)")));
  EXPECT_NE(two.find("one value or one per free row (3)"), std::string::npos) << two;
  const std::string neg = message(write_urdf("neg.urdf", block(R"(<dynamics damping="-1"/>)")));
  EXPECT_NE(neg.find("must not be negative"), std::string::npos) << neg;
  const std::string type = message(write_urdf("type.urdf", block("", "universal")));
  EXPECT_NE(type.find("unsupported loop joint type 'universal' (URDF joint types: revolute"), std::string::npos) << type;
}

// The springs are physical: the block sags by m g / k along z (a free row of the strap) and
// stays put along the constrained x; a push along y decays (the dampers).
TEST(ExoskeletonUrdf, PlanarLoopSpringCarriesTheWeight) {
  const double k = 2000, mass = 2;
  Model m = load_model(write_urdf("sag.urdf", block(R"(<dynamics stiffness="2000" damping="40 40 0.5"/>)")));
  m.opt.timestep = 0.002;
  const int j = m.joint_index("strap");
  const int b = m.body_index("block");
  Data d(m);
  ASSERT_TRUE(project_state(m, d).converged);
  for (int i = 0; i < 1500; ++i) ASSERT_NE(step(m, d).status, StepStatus::Failed);
  double q[3], qd[3];
  joint_coordinates(m, d, j, q, qd);
  // free rows of the strap: translation along the joint frame's x and y (the plane normal to
  // the axis x); the sag is along world −z
  EXPECT_NEAR(d.x[b].z(), 0.8 - mass * 9.81 / k, 1e-6);
  EXPECT_NEAR(std::hypot(q[0], q[1]), mass * 9.81 / k, 1e-6);
  EXPECT_NEAR(d.x[b].x(), 0.0, 1e-9);  // constrained
  EXPECT_LT(max_constraint_violation(m, d), 1e-9);
}

TEST(ExoskeletonUrdf, BallTreeJoint) {
  const std::string file = write_urdf("ball.urdf", R"(
  <link name="world"/>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.08" ixy="0" ixz="0" iyy="0.08" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="shoulder" type="ball"><parent link="world"/><child link="arm"/><origin xyz="0 0 2"/>
    <dynamics damping="0.3"/></joint>
)");
  const Model m = load_model(file);
  const int j = m.joint_index("shoulder");
  ASSERT_GE(j, 0);
  const Joint& s = m.joints[j];
  EXPECT_EQ(s.type, JointType::Spherical);
  EXPECT_EQ(s.nq(), 4);  // a quaternion
  EXPECT_EQ(s.dof(), 3);
  for (int r : {3, 4, 5}) EXPECT_DOUBLE_EQ(s.damping[r], 0.3);
  EXPECT_TRUE(m.actuators.empty());  // no single-coordinate motor on a ball
  // a conical pendulum: released tilted, it swings about the fixed pivot
  Data d(m);
  const double a = 0.4;
  set_joint_coordinates(m, d, j, {std::cos(a / 2), std::sin(a / 2), 0.0, 0.0}, {});
  for (int i = 0; i < 200; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_LT(max_constraint_violation(m, d), 1e-9);
  EXPECT_NEAR((d.x[0] - Vec3(0, 0, 2)).norm(), 0.5, 1e-9);  // the CoM stays 0.5 m from the pivot
}

}  // namespace
}  // namespace maxsim
