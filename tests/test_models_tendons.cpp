// Tendons and couplings from description files: URDF <mimic>, MJCF <equality joint>, fixed tendons
// with actuators and limits (the Robotiq-style gripper of tests/data/tendons, the dm_control and
// gym humanoids, the car), and the loaders' refusals with file:line.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "models/load.hpp"
#include "sim/constraints/tendon.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/projection.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

int joint(const Model& m, const char* name) {
  const int j = m.joint_index(name);
  EXPECT_GE(j, 0) << name;
  return j;
}

double coordinate(const Model& m, const Data& d, int j) { return row_coordinate(m, d, j, m.joints[j].free_rows()[0]).q; }

// The error message of loading `text` as a file of that name (empty when it loads).
std::string load_error(const std::string& name, const std::string& text) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/" + name;
  std::ofstream(path) << text;
  try {
    load_model(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// URDF <mimic>: the second finger (multiplier −1) and the slider (0.02 m/rad, offset 1 mm) follow
// the driven finger to 1e-9 rad / m at every step of 2 s of sinusoidal torque under gravity.
TEST(TendonFiles, UrdfMimicFingerFollowsItsLeader) {
  Model m = load_model(repo("tests/data/tendons/mimic_gripper.urdf"));
  m.opt.timestep = 0.002;
  ASSERT_EQ(m.couplings.size(), 2u);
  const int lead = joint(m, "finger_joint"), finger = joint(m, "right_finger_joint"), slider = joint(m, "slider_joint");
  Data d(m);
  ASSERT_TRUE(project_state(m, d).converged);  // (the slider's offset: the zero pose violates it)
  EXPECT_NEAR(coordinate(m, d, slider), 0.001 + 0.02 * coordinate(m, d, lead), 1e-12);
  d.controller = [lead](const Model&, Data& data) { data.joint_force[lead](5) = 0.08 * std::sin(4.0 * data.time); };
  double worst = 0, reach = 0;
  for (int n = 0; n < 1000; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    const double q = coordinate(m, d, lead);
    worst = std::max(worst, std::abs(coordinate(m, d, finger) + q));
    worst = std::max(worst, std::abs(coordinate(m, d, slider) - (0.001 + 0.02 * q)));
    reach = std::max(reach, std::abs(q));
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(reach, 0.2);  // (the fingers moved)
}

// The Robotiq-style gripper: three <equality joint> couplings and one position servo on a fixed
// tendon splitting its pull between the drivers. It loads with them (nu counts the tendon
// actuator), the couplings hold to the solver tolerance, and the servo brings the tendon's length
// — here each driver's angle — to its command (no gravity: the equilibrium is exact).
TEST(TendonFiles, GripperCoupledByEqualityJointAndATendonRuns) {
  const Model m = load_model(repo("tests/data/tendons/coupled_gripper.xml"));
  ASSERT_EQ(m.tendons.size(), 1u);
  ASSERT_EQ(m.couplings.size(), 3u);
  ASSERT_EQ(m.nu(), 1);
  EXPECT_EQ(m.actuators[0].tendon, 0);
  Data d(m);
  d.ctrl[0] = 0.5;
  double worst = 0;
  for (int n = 0; n < 2500; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    for (size_t k = 0; k < m.couplings.size(); ++k)
      worst = std::max(worst, std::abs(coupling_violation(m, d, static_cast<int>(k))));
  }
  EXPECT_LT(worst, m.opt.solver.tolerance);
  const int right = joint(m, "right_driver_joint"), left = joint(m, "left_driver_joint");
  EXPECT_NEAR(coordinate(m, d, right), 0.5, 2e-3);
  EXPECT_NEAR(coordinate(m, d, left), coordinate(m, d, right), 1e-9);
  EXPECT_NEAR(coordinate(m, d, joint(m, "right_follower_joint")), -coordinate(m, d, right), 1e-9);
  EXPECT_NEAR(d.tendon_length[0], coordinate(m, d, right), 1e-9);
}

// The 2F-85's linkage: each side's parallelogram closed by <equality connect>, the drivers coupled
// by <equality joint>, the tendon servo under gravity. Loops and coupling hold, the spring links
// turn with the drivers (the parallelogram keeps the pads parallel), the drivers reach the command
// within the pads' gravity sag (≈ 0.01 rad at kp = 5).
TEST(TendonFiles, LinkageGripperWithLoopsCouplingAndTendon) {
  const Model m = load_model(repo("tests/data/tendons/linkage_gripper.xml"));
  ASSERT_EQ(m.nu(), 1);
  ASSERT_EQ(m.couplings.size(), 1u);
  Data d(m);
  d.ctrl[0] = 0.4;
  double coupling = 0, loops = 0;
  for (int n = 0; n < 1500; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    coupling = std::max(coupling, std::abs(coupling_violation(m, d, 0)));
    loops = std::max(loops, max_constraint_violation(m, d));
  }
  EXPECT_LT(coupling, m.opt.solver.tolerance);
  EXPECT_LT(loops, 1e-8);
  const double right = coordinate(m, d, joint(m, "right_driver_joint"));
  EXPECT_NEAR(right, 0.4, 0.03);
  EXPECT_NEAR(coordinate(m, d, joint(m, "right_spring_link_joint")), right, 1e-6);
  EXPECT_NEAR(coordinate(m, d, joint(m, "right_follower_joint")), -right, 1e-6);
  EXPECT_NEAR(coordinate(m, d, joint(m, "left_driver_joint")), right, 1e-9);
}

// dm_control's humanoid: two limited fixed tendons (hamstrings, range −0.3..2) load and hold their
// range while the body falls; gym's humanoid's two bare tendons load and change nothing.
TEST(TendonFiles, HumanoidTendonsLoadAndHoldTheirRange) {
  const Model m = load_model(repo("tests/data/models/mujoco_models/humanoid/humanoid.xml"));
  ASSERT_EQ(m.tendons.size(), 2u);
  EXPECT_TRUE(m.tendons[0].limited);
  EXPECT_DOUBLE_EQ(m.tendons[0].range_lower, -0.3);
  Data d(m);
  double low = 1e9, high = -1e9;
  for (int n = 0; n < 400; ++n) {
    ASSERT_NE(step(m, d).status, StepStatus::Failed) << n;
    for (int t = 0; t < 2; ++t) {
      low = std::min(low, d.tendon_length[t]);
      high = std::max(high, d.tendon_length[t]);
    }
  }
  EXPECT_GT(low, -0.3 - 1e-6);
  EXPECT_LT(high, 2.0 + 1e-6);
  const Model gym = load_model(repo("tests/data/models/gym_mujoco/humanoid.xml"));
  EXPECT_EQ(gym.tendons.size(), 2u);
  EXPECT_EQ(gym.nu(), 17);
}

// MJCF tendon frictionloss (its class default too) is dry friction on the length: a 1 kg slider on
// a vertical slide hung from a world site by a spatial tendon (L = 1 − z) is held by 12 N of
// friction against its 9.81 N weight and falls at g − 5 N / 1 kg = 4.81 m/s² under 5 N; the
// `frictionloss` flag turns it off (free fall) and a negative value is refused with file:line.
TEST(TendonFiles, TendonFrictionlossHoldsOrSlowsAHangingSlider) {
  auto file = [](const std::string& friction, const std::string& flag) {
    return "<mujoco><option timestep='0.001'>" + flag + "</option>"
           "<default><tendon frictionloss='12'/></default><worldbody><site name='top' pos='0 0 2'/>"
           "<body name='slider' pos='0 0 1'><joint name='z' type='slide' axis='0 0 1'/>"
           "<geom type='sphere' size='0.05' mass='1' contype='0' conaffinity='0'/><site name='s'/></body></worldbody>\n"
           "<tendon><spatial name='rope'" + friction + "><site site='top'/><site site='s'/></spatial></tendon></mujoco>";
  };
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/rope.xml";
  const double t_end = 0.2, g = 9.81;
  for (const auto& [friction, flag, accel] :
       std::vector<std::tuple<std::string, std::string, double>>{{"", "", 0.0},
                                                                 {" frictionloss='5'", "", g - 5.0},
                                                                 {"", "<flag frictionloss='disable'/>", g}}) {
    std::ofstream(path) << file(friction, flag);
    const Model m = load_model(path);
    ASSERT_EQ(m.tendons.size(), 1u);
    EXPECT_DOUBLE_EQ(m.tendons[0].frictionloss, flag.empty() ? (friction.empty() ? 12.0 : 5.0) : 0.0);
    Data d(m);
    const int steps = static_cast<int>(std::lround(t_end / m.opt.timestep));
    for (int n = 0; n < steps; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << friction << flag << " " << n;
    // from rest under a constant force: the step's z_n = −a Δt² n(n+1)/2 (tolerance: the sliding
    // impulse's shortfall within the complementarity tolerance, as Tendons.TendonFriction…)
    const double expected = -accel * m.opt.timestep * m.opt.timestep * steps * (steps + 1) / 2.0;
    EXPECT_NEAR(coordinate(m, d, joint(m, "z")), expected, 1e-4 * std::abs(expected) + 1e-7) << friction << flag;
  }
  EXPECT_NE(load_error("rope2.xml", "<mujoco><worldbody><site name='a'/><body><joint type='slide'/><geom size='.1'/>"
                                    "<site name='b' pos='0 0 1'/></body></worldbody>\n<tendon><spatial frictionloss='-1'>"
                                    "<site site='a'/><site site='b'/></spatial></tendon></mujoco>")
                .find("rope2.xml:2"),
            std::string::npos);
}

// MuJoCo's car: two motors on fixed tendons (forward = ½(left + right), turn = ½(right − left)):
// both count in nu, and "turn" spins the wheels in opposite directions.
TEST(TendonFiles, CarMotorsOnTendons) {
  const Model m = load_model(repo("tests/data/models/mujoco_models/car/car.xml"));
  ASSERT_EQ(m.nu(), 2);
  EXPECT_GE(m.actuators[0].tendon, 0);
  Data d(m);
  d.ctrl[m.actuator_index("turn")] = 1.0;
  for (int n = 0; n < 50; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double left = row_coordinate(m, d, joint(m, "left"), 5).qd, right = row_coordinate(m, d, joint(m, "right"), 5).qd;
  EXPECT_GT(right, 0.1);
  EXPECT_NEAR(left, -right, 1e-3 * std::abs(right) + 0.05);
}

TEST(TendonFiles, BadTendonsAndCouplingsAreRefusedWithFileAndLine) {
  const std::string head = "<mujoco><worldbody><body><joint name='a'/><geom size='.1'/>"
                           "<body pos='0 0 1'><joint name='b'/><joint name='ball' type='ball'/><geom size='.1'/></body></body>"
                           "</worldbody>\n";
  EXPECT_NE(load_error("t1.xml", head + "<tendon><fixed name='t'><joint joint='nope' coef='1'/></fixed></tendon></mujoco>")
                .find("t1.xml:2"),
            std::string::npos);
  EXPECT_NE(load_error("t2.xml", head + "<tendon><fixed name='t'><joint joint='ball' coef='1'/></fixed></tendon></mujoco>")
                .find("ball or free joint"),
            std::string::npos);
  EXPECT_NE(load_error("t3.xml", head + "<equality><joint joint1='a' joint2='zz'/></equality></mujoco>").find("'zz'"),
            std::string::npos);
  EXPECT_NE(load_error("t4.xml", head + "<actuator><motor tendon='none'/></actuator></mujoco>").find("undefined tendon"),
            std::string::npos);
  EXPECT_NE(load_error("t5.xml", head + "<tendon><fixed limited='true'><joint joint='a' coef='1'/></fixed></tendon></mujoco>")
                .find("no range"),
            std::string::npos);
  EXPECT_EQ(load_error("t6.xml", head + "<tendon><fixed name='t' stiffness='3' springlength='0.2'><joint joint='a' coef='1'/>"
                                        "</fixed></tendon><equality><tendon tendon1='t'/></equality></mujoco>"),
            "");
  const std::string urdf =
      "<robot name='r'><link name='a'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
      "<link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
      "<joint name='j' type='continuous'><parent link='a'/><child link='b'/>\n<mimic joint='missing'/></joint></robot>";
  const std::string err = load_error("m1.urdf", urdf);
  EXPECT_NE(err.find("m1.urdf:2"), std::string::npos) << err;
  EXPECT_NE(err.find("'missing'"), std::string::npos) << err;
  // a fixed joint that keeps its <mimic> (a reduced model's finger, Talos's): the tag is moot,
  // named in a warning; the file loads with its moving joints as written
  const std::string reduced =
      "<robot name='r'><link name='a'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
      "<link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
      "<link name='c'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
      "<joint name='j' type='continuous'><parent link='a'/><child link='b'/></joint>"
      "<joint name='f' type='fixed'><parent link='b'/><child link='c'/>\n<mimic joint='j'/></joint></robot>";
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/m2.urdf";
  std::ofstream(path) << reduced;
  LoadReport report;
  const Model m = load_model(path, {}, &report);
  EXPECT_TRUE(m.couplings.empty());
  EXPECT_EQ(qvel_size(m), 7);  // the floating base and 'j'
  bool warned = false;
  for (const std::string& w : report.warnings) warned |= w.find("m2.urdf:2") != std::string::npos && w.find("'f'") != std::string::npos;
  EXPECT_TRUE(warned);
}
