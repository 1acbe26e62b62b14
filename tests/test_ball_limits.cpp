// A ball joint's cone limit (MJCF ball `range`, Joint::cone_limit, docs/computation.md (115)): the
// angle of the joint's rotation from its zero pose stays within the bound, whatever the axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/constraints/joint.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A 1 kg sphere on a 0.5 m arm from a joint at the origin, the arm along +x at the zero pose
// (gravity pulls it down about y); `joint` is the joint element.
Model pendulum(const std::string& name, const std::string& joint) {
  return load_model(write_temp(name, R"(<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="arm">
      )" + joint + R"(
      <geom type="sphere" size="0.05" pos="0.5 0 0" mass="1"/>
    </body>
  </worldbody>
</mujoco>
)"));
}

// The angle of the body's rotation from its zero pose (the joint's frames are the body's here).
double rotation_angle(const Data& d) {
  const Vec4& q = d.q[0];
  return 2.0 * std::atan2(q.tail<3>().norm(), std::abs(q(0)));
}

}  // namespace

TEST(BallJointCone, LoadsMuJoCosRangeAsTheLargestAngle) {
  const Model m = pendulum("ball_cone_30.xml", R"(<joint name="j" type="ball" range="0 30"/>)");
  ASSERT_EQ(m.joints.size(), 1u);
  EXPECT_TRUE(m.joints[0].has_limits);
  EXPECT_NEAR(m.joints[0].cone_limit, 30.0 * M_PI / 180.0, 1e-15);
  // a cone of π or more never binds: no limit
  const Model wide = pendulum("ball_cone_200.xml", R"(<joint name="j" type="ball" range="0 200"/>)");
  EXPECT_FALSE(wide.joints[0].has_limits);
  EXPECT_EQ(wide.joints[0].cone_limit, 0.0);
  // a range whose larger value is not positive is refused, naming the joint
  try {
    pendulum("ball_cone_0.xml", R"(<joint name="shoulder" type="ball" range="0 0"/>)");
    FAIL() << "a ball joint with range 0 0 loaded";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("shoulder"), std::string::npos) << e.what();
  }
  // and a cone on a joint that is not a ball is refused by the model's validation
  Model bad = m;
  bad.joints[0].type = JointType::Revolute;
  EXPECT_NE(validate_model(bad), "");
  bad = m;
  bad.joints[0].cone_limit = 4.0;
  EXPECT_NE(validate_model(bad), "");
}

// A swing in a plane: the cone is the hinge's symmetric range in that plane, so the ball pendulum
// follows the hinge pendulum (range ±30°) exactly — the swing down to the bound, the stop (an
// inelastic limit) and the rest on it — to the solvers' tolerances.
TEST(BallJointCone, APlanarSwingIsTheHingesWithTheSameRange) {
  const Model ball = pendulum("ball_cone_planar.xml", R"(<joint name="j" type="ball" range="0 30"/>)");
  const Model hinge = pendulum("hinge_planar.xml", R"(<joint name="j" type="hinge" axis="0 1 0" range="-30 30"/>)");
  Data db(ball), dh(hinge);
  double largest_gap = 0, largest_angle = 0;
  for (int k = 0; k < 500; ++k) {  // 1 s: the arm reaches 30° at t ≈ 0.2 s and then rests there
    const StepReport rb = step(ball, db), rh = step(hinge, dh);
    ASSERT_EQ(rb.status, StepStatus::Ok) << "ball, step " << k;
    ASSERT_EQ(rh.status, StepStatus::Ok) << "hinge, step " << k;
    largest_gap = std::max(largest_gap, (db.x[0] - dh.x[0]).norm());
    largest_angle = std::max(largest_angle, rotation_angle(db));
  }
  EXPECT_LT(largest_gap, 1e-6);
  const double bound = 30.0 * M_PI / 180.0;
  EXPECT_LT(largest_angle, bound + 1e-6);
  EXPECT_NEAR(rotation_angle(db), bound, 1e-6);  // resting on the cone
  EXPECT_LT(db.x[0].y(), 1e-9);                  // in its plane
}

// A swing and a spin about a skew axis: the rotation's angle reaches the cone and never passes it,
// every step converges, and the inelastic limit takes energy out, never puts it in.
TEST(BallJointCone, HoldsTheConeWhateverTheAxis) {
  const Model m = pendulum("ball_cone_skew.xml", R"(<joint name="j" type="ball" range="0 20"/>)");
  Data d(m);
  const Vec3 omega(2.0, -3.0, 4.0);     // world, rad/s (the zero pose: body frame = world)
  d.w[0] = omega;
  d.v[0] = omega.cross(d.x[0]);         // the CoM's velocity about the joint at the origin
  const double bound = 20.0 * M_PI / 180.0;
  auto energy = [&] {
    const Vec3 w = d.w[0];
    return 0.5 * m.bodies[0].mass * d.v[0].squaredNorm() + 0.5 * w.dot(m.bodies[0].inertia * w) +
           m.bodies[0].mass * 9.81 * d.x[0].z();
  };
  const double e0 = energy();
  double largest = 0;
  int at_bound = 0;
  for (int k = 0; k < 1000; ++k) {
    const StepReport r = step(m, d);
    ASSERT_EQ(r.status, StepStatus::Ok) << "step " << k;
    const double angle = rotation_angle(d);
    largest = std::max(largest, angle);
    if (angle > bound - 1e-6) ++at_bound;
    EXPECT_LT(energy(), e0 + 5e-3) << "step " << k;
  }
  EXPECT_LT(largest, bound + 1e-6);
  EXPECT_GT(at_bound, 10);  // the cone was reached, not avoided
}

// jointlimitpos / vel / frc on a ball joint read its cone, as MuJoCo's: while the arm rests on its
// 30° cone under gravity, the distance is 0 (within the solver's tolerance), the rate 0, and the
// force balances gravity's moment about the joint, m g L cos 30° (the joint at the origin, the
// 1 kg sphere 0.5 m out).
TEST(BallJointCone, LimitSensorsReadTheCone) {
  const Model m = load_model(write_temp("ball_cone_sensors.xml", R"(<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="arm">
      <joint name="j" type="ball" range="0 30"/>
      <geom type="sphere" size="0.05" pos="0.5 0 0" mass="1"/>
    </body>
  </worldbody>
  <sensor>
    <jointlimitpos name="pos" joint="j"/>
    <jointlimitvel name="vel" joint="j"/>
    <jointlimitfrc name="frc" joint="j"/>
  </sensor>
</mujoco>
)"));
  ASSERT_EQ(m.sensors.size(), 3u);
  Data d(m);
  for (int k = 0; k < 1000; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << k;
  EXPECT_NEAR(d.sensordata[0], 0.0, 1e-6);
  EXPECT_NEAR(d.sensordata[1], 0.0, 1e-4);
  const double moment = 1.0 * 9.81 * 0.5 * std::cos(30.0 * M_PI / 180.0);
  EXPECT_NEAR(d.sensordata[2], moment, 1e-3 * moment);
}

// A ragdoll whose neck, shoulders and hips are balls with cones (40°, 90°, 60°), thrown spinning
// onto its floor: every step converges (its landing through substeps), no cone is passed by more than
// 1e-6 rad, the cones carry load (active with γ > 1e-6 N·m·s in hundreds of steps), and the energy
// (its dampers and inelastic contacts take it out) never rises above its start.
TEST(BallJointCone, ARagdollFallsOntoItsCones) {
  Model m = load_model(write_temp("ragdoll_cones.xml", R"(<mujoco model="ragdoll">
  <option timestep="0.002"/>
  <default>
    <joint damping="0.2" armature="0.01"/>
    <geom type="capsule" size="0.05" density="1000"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 1.3">
      <freejoint/>
      <geom fromto="0 -0.1 0 0 0.1 0" size="0.09"/>
      <geom fromto="0 0 -0.3 0 0 0" size="0.08"/>
      <body name="head" pos="0 0 0.2">
        <joint name="neck" type="ball" range="0 40"/>
        <geom type="sphere" size="0.1" pos="0 0 0.05"/>
      </body>
      <body name="uarm_r" pos="0 -0.2 0">
        <joint name="shoulder_r" type="ball" range="0 90"/>
        <geom fromto="0 0 0 0 -0.28 0" size="0.04"/>
        <body name="larm_r" pos="0 -0.3 0">
          <joint name="elbow_r" type="hinge" axis="0 0 1" range="0 140"/>
          <geom fromto="0 0 0 0 -0.25 0" size="0.035"/>
        </body>
      </body>
      <body name="uarm_l" pos="0 0.2 0">
        <joint name="shoulder_l" type="ball" range="0 90"/>
        <geom fromto="0 0 0 0 0.28 0" size="0.04"/>
        <body name="larm_l" pos="0 0.3 0">
          <joint name="elbow_l" type="hinge" axis="0 0 1" range="-140 0"/>
          <geom fromto="0 0 0 0 0.25 0" size="0.035"/>
        </body>
      </body>
      <body name="thigh_r" pos="0 -0.1 -0.35">
        <joint name="hip_r" type="ball" range="0 60"/>
        <geom fromto="0 0 0 0 0 -0.4" size="0.06"/>
        <body name="shin_r" pos="0 0 -0.42">
          <joint name="knee_r" type="hinge" axis="0 1 0" range="0 150"/>
          <geom fromto="0 0 0 0 0 -0.4" size="0.05"/>
        </body>
      </body>
      <body name="thigh_l" pos="0 0.1 -0.35">
        <joint name="hip_l" type="ball" range="0 60"/>
        <geom fromto="0 0 0 0 0 -0.4" size="0.06"/>
        <body name="shin_l" pos="0 0 -0.42">
          <joint name="knee_l" type="hinge" axis="0 1 0" range="0 150"/>
          <geom fromto="0 0 0 0 0 -0.4" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
)"));
  Data d(m);
  enable_contacts(m, d);
  d.v[0] = Vec3(1.0, 0.5, 0);
  d.w[0] = Vec3(2.0, -3.0, 1.0);
  project_state(m, d);
  auto energy = [&] {
    double e = 0;
    for (size_t b = 0; b < m.bodies.size(); ++b)
      e += 0.5 * m.bodies[b].mass * d.v[b].squaredNorm() + 0.5 * d.w[b].dot(m.bodies[b].inertia * d.w[b]) -
           m.bodies[b].mass * m.opt.gravity.dot(d.x[b]);
    return e;
  };
  const double e0 = energy();
  double overshoot = 0;
  int loaded = 0;
  for (int k = 0; k < 1500; ++k) {  // 3 s
    const StepReport r = step(m, d);
    ASSERT_EQ(r.status, StepStatus::Ok) << "step " << k;
    ASSERT_LT(energy(), e0 + 1e-3) << "step " << k;
    for (const Contact& c : d.contacts) loaded += c.row == kJointConeRow && c.gamma > 1e-6;
    for (const Joint& jt : m.joints) {
      if (jt.cone_limit <= 0) continue;
      const Vec4 qa = jt.parent == kWorld ? quat_identity() : d.q[jt.parent];
      overshoot = std::max(overshoot, joint_cone_row(jt, joint_relative_rotation(jt, qa, d.q[jt.child])).angle - jt.cone_limit);
    }
  }
  EXPECT_LT(overshoot, 1e-6);
  EXPECT_GT(loaded, 100);
  EXPECT_GT(d.x[0].z(), 0.05);  // the torso lies on its floor, not through it
}
