// Sensors (sim/sensor/sensors.hpp, MJCF <sensor>): position- and velocity-stage sensors equal
// MuJoCo 2.2.2's at random states; force-stage sensors read the hard constraints' forces at rest
// (a box's weight, a pendulum's hinge, a pinch); noise, cutoff and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/geometry/ray.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string source(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

Model load_xml(const std::string& name, const std::string& xml) {
  const std::string path = (std::filesystem::temp_directory_path() / ("maxsim_sensors_" + name + ".xml")).string();
  std::ofstream(path) << xml;
  return load_model(path);
}

const double g = 9.81;

// A sensor's values.
std::vector<double> read(const Model& m, const Data& d, const std::string& name) {
  const Sensor& s = m.sensors[m.sensor_index(name)];
  return std::vector<double>(d.sensordata.begin() + s.adr, d.sensordata.begin() + s.adr + s.dim);
}

}  // namespace

// The layout: every sensor of the file in order, MuJoCo's dimensions, names found.
TEST(Sensors, LayoutFollowsTheFile) {
  const Model m = load_model(source("tests/data/sensors/every_sensor.xml"));
  ASSERT_EQ(m.sensors.size(), 46u);
  EXPECT_EQ(m.nsensordata(), 99);
  int adr = 0;
  for (const Sensor& s : m.sensors) {
    EXPECT_EQ(s.adr, adr) << s.name;
    adr += s.dim;
  }
  EXPECT_EQ(m.sensors[m.sensor_index("ankle_quat")].dim, 4);
  EXPECT_EQ(m.sensors[m.sensor_index("imu_gyro")].dim, 3);
  EXPECT_THROW(m.sensor_index("imu_gyr"), std::out_of_range);
  const Data d(m);
  EXPECT_EQ(static_cast<int>(d.sensordata.size()), m.nsensordata());
}

// A 2 kg box resting on the floor: the touch sensor whose zone holds its bottom face reads its
// weight 2g and the accelerometer (0, 0, g) — the hard contact's normal impulse over Δt, exact at
// rest (relative 1e-6: the solver's tolerance on a settled step is far below).
TEST(Sensors, RestingBoxTouchReadsItsWeight) {
  const Model m = load_xml("box", R"(<mujoco model="box"><option timestep="0.002"/>
    <worldbody><geom type="plane" size="2 2 0.1"/>
      <body name="box" pos="0 0 0.1"><freejoint/>
        <geom type="box" size="0.1 0.1 0.1" mass="2"/>
        <site name="bottom" type="box" size="0.11 0.11 0.01" pos="0 0 -0.1"/>
        <site name="top" type="box" size="0.11 0.11 0.01" pos="0 0 0.1"/>
        <site name="imu" pos="0.02 0.03 0" euler="0 0 30"/>
      </body></worldbody>
    <sensor><touch name="touch" site="bottom"/><touch name="top_touch" site="top"/>
      <accelerometer name="acc" site="imu"/><velocimeter name="vel" site="imu"/></sensor></mujoco>)");
  Data d(m);
  enable_contacts(m, d);
  for (int n = 0; n < 300; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_NEAR(read(m, d, "touch")[0], 2 * g, 1e-6 * 2 * g);
  EXPECT_EQ(read(m, d, "top_touch")[0], 0.0);
  const std::vector<double> acc = read(m, d, "acc");
  EXPECT_NEAR(acc[0], 0, 1e-6 * g);
  EXPECT_NEAR(acc[1], 0, 1e-6 * g);
  EXPECT_NEAR(acc[2], g, 1e-6 * g);
  for (double v : read(m, d, "vel")) EXPECT_NEAR(v, 0, 1e-9);
}

// In free fall the accelerometer reads 0 (it measures the specific force), and touch 0.
TEST(Sensors, FallingAccelerometerReadsZero) {
  const Model m = load_xml("fall", R"(<mujoco model="fall"><option timestep="0.002"/>
    <worldbody><body name="b" pos="0 0 10"><freejoint/><geom type="sphere" size="0.1" mass="1"/>
      <site name="imu" pos="0.05 0 0"/></body></worldbody>
    <sensor><accelerometer name="acc" site="imu"/><touch name="t" site="imu"/></sensor></mujoco>)");
  Data d(m);
  d.w[0] = Vec3(0, 0, 0);
  for (int n = 0; n < 10; ++n) step(m, d);
  for (double a : read(m, d, "acc")) EXPECT_NEAR(a, 0, 1e-9);
  EXPECT_EQ(read(m, d, "t")[0], 0.0);
}

// A 3 kg bob hanging at rest from a hinge: the force sensor at the hinge's site reads the force
// its parent holds it with, (0, 0, 3g), and the torque about the hinge 0; held horizontal by a
// motor of torque m g L the torque sensor reads m g L about the axis (both relative 1e-6).
TEST(Sensors, PendulumHingeForceAndTorque) {
  auto pendulum = [](const std::string& euler, double motor) {
    return R"(<mujoco model="pendulum"><option timestep="0.002"><flag contact="disable"/></option>
      <worldbody><body name="bob" pos="0 0 2" euler=")" + euler + R"(">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="0"/>
        <geom type="sphere" size="0.05" pos="0 0 -0.5" mass="3"/>
        <site name="hinge_site"/>
      </body></worldbody>
      <actuator><motor name="m" joint="hinge"/></actuator>
      <sensor><force name="f" site="hinge_site"/><torque name="tau" site="hinge_site"/></sensor>
      <keyframe><key ctrl=")" + std::to_string(motor) + R"("/></keyframe></mujoco>)";
  };
  {
    const Model m = load_xml("hang", pendulum("0 0 0", 0));
    Data d(m);
    for (int n = 0; n < 20; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const std::vector<double> f = read(m, d, "f"), tau = read(m, d, "tau");
    EXPECT_NEAR(f[0], 0, 1e-6 * 3 * g);
    EXPECT_NEAR(f[1], 0, 1e-6 * 3 * g);
    EXPECT_NEAR(f[2], 3 * g, 1e-6 * 3 * g);
    for (double t : tau) EXPECT_NEAR(t, 0, 1e-6 * 3 * g * 0.5);
  }
  {
    // the arm horizontal (rotated −90° about y from hanging), held by the motor against gravity's
    // moment m g L about the hinge
    const double mgl = 3 * g * 0.5;
    const Model m = load_xml("arm", pendulum("0 -90 0", -mgl));
    Data d(m);
    reset_data(m, d, 0);
    double moved = 0;
    for (int n = 0; n < 20; ++n) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      moved = std::max(moved, std::abs(get_qpos(m, d)[0]));
    }
    ASSERT_LT(moved, 1e-6) << "the motor must hold the arm";
    const std::vector<double> f = read(m, d, "f"), tau = read(m, d, "tau");
    // the site's frame is the arm's: y is the hinge axis, the force is the weight 3g
    EXPECT_NEAR(std::hypot(f[0], f[1], f[2]), 3 * g, 1e-6 * 3 * g);
    EXPECT_NEAR(std::abs(tau[1]), mgl, 1e-6 * mgl);
    EXPECT_NEAR(tau[0], 0, 1e-6 * mgl);
  }
}

// A box pinched between two fingers (slides pushed together by motors of 20 N, no gravity):
// each finger's touch sensor reads the squeeze force 20 N.
TEST(Sensors, PinchedBoxTouchReadsTheSqueeze) {
  const Model m = load_xml("pinch", R"(<mujoco model="pinch"><option timestep="0.002" gravity="0 0 0"/>
    <worldbody>
      <body name="left" pos="-0.15 0 0.5"><joint name="l" type="slide" axis="1 0 0" damping="5"/>
        <geom type="box" size="0.05 0.05 0.05" mass="0.5"/>
        <site name="left_pad" type="box" size="0.01 0.06 0.06" pos="0.05 0 0"/></body>
      <body name="right" pos="0.15 0 0.5"><joint name="r" type="slide" axis="1 0 0" damping="5"/>
        <geom type="box" size="0.05 0.05 0.05" mass="0.5"/>
        <site name="right_pad" type="box" size="0.01 0.06 0.06" pos="-0.05 0 0"/></body>
      <body name="box" pos="0 0 0.5"><freejoint/><geom type="box" size="0.1 0.04 0.04" mass="1"/></body>
    </worldbody>
    <actuator><motor name="ml" joint="l"/><motor name="mr" joint="r"/></actuator>
    <sensor><touch name="tl" site="left_pad"/><touch name="tr" site="right_pad"/></sensor></mujoco>)");
  Data d(m);
  enable_contacts(m, d);
  d.ctrl = {20.0, -20.0};
  for (int n = 0; n < 1500; ++n) ASSERT_NE(step(m, d).status, StepStatus::Failed);
  EXPECT_NEAR(read(m, d, "tl")[0], 20.0, 1e-4);
  EXPECT_NEAR(read(m, d, "tr")[0], 20.0, 1e-4);
}

// A body spinning freely at ω = 3 rad/s about its z axis, without gravity: a frame 0.2 m off the
// axis accelerates centripetally, −ω² r (1.8 m/s² towards the axis), and the angular acceleration
// is 0 (both to the step's O(Δt ω) = 1e-2 relative: the discrete change of velocity over the
// step turns with the body).
TEST(Sensors, SpinningFrameAccelerationIsCentripetal) {
  const Model m = load_xml("spin", R"(<mujoco model="spin"><option timestep="0.001" gravity="0 0 0"/>
    <worldbody><body name="b" pos="0 0 1"><freejoint/><geom type="cylinder" size="0.3 0.05" mass="2"/>
      <site name="rim" pos="0.2 0 0"/></body></worldbody>
    <sensor><framelinacc name="a" objtype="site" objname="rim"/><frameangacc name="alpha" objtype="site" objname="rim"/>
      <framepos name="p" objtype="site" objname="rim"/><accelerometer name="acc" site="rim"/></sensor></mujoco>)");
  Data d(m);
  d.w[0] = Vec3(0, 0, 3);
  for (int n = 0; n < 50; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const std::vector<double> a = read(m, d, "a"), alpha = read(m, d, "alpha"), p = read(m, d, "p");
  const Vec3 r = Vec3(p[0], p[1], p[2]) - d.x[0];
  const Vec3 expected = -9.0 * r;
  EXPECT_LT((Vec3(a[0], a[1], a[2]) - expected).norm(), 1e-2 * expected.norm());
  EXPECT_LT(Vec3(alpha[0], alpha[1], alpha[2]).norm(), 1e-9);
  // the accelerometer reads the same in the site's frame: 1.8 m/s² along −x (the site's x points out)
  const std::vector<double> acc = read(m, d, "acc");
  EXPECT_NEAR(acc[0], -1.8, 1e-2 * 1.8);
  EXPECT_NEAR(acc[1], 0, 1e-2 * 1.8);
}

// A 2 kg arm of 0.5 m resting on its joint's lower limit under gravity: jointlimitfrc reads the
// torque that holds it, m g L = 9.81 N·m (relative 1e-6), jointlimitpos its distance to the bound
// (≤ 1e-9 m) and jointlimitvel its rate (0); off the limit all three read 0.
TEST(Sensors, ArmOnItsLimitReadsTheLimitTorque) {
  const Model m = load_xml("limit", R"(<mujoco model="limit"><compiler angle="degree"/><option timestep="0.002"/>
    <worldbody><body name="arm" pos="0 0 1" euler="0 -90 0">
      <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-45 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.01" mass="0"/>
      <geom type="sphere" pos="0 0 -0.5" size="0.03" mass="2"/></body></worldbody>
    <sensor><jointlimitpos name="pos" joint="hinge"/><jointlimitvel name="vel" joint="hinge"/>
      <jointlimitfrc name="frc" joint="hinge"/></sensor></mujoco>)");
  Data d(m);
  for (int n = 0; n < 100; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  ASSERT_LT(std::abs(get_qpos(m, d)[0]), 1e-6) << "the arm must rest on its limit";
  EXPECT_NEAR(read(m, d, "frc")[0], 2 * g * 0.5, 1e-6 * 2 * g * 0.5);
  EXPECT_LT(std::abs(read(m, d, "pos")[0]), 1e-9);
  EXPECT_LT(std::abs(read(m, d, "vel")[0]), 1e-6);
  // lifted off the limit by a push upwards, the limit is not in the step: zeros
  d.joint_force[0](5) = -2 * (2 * g * 0.5);
  for (int n = 0; n < 50; ++n) step(m, d);
  ASSERT_GT(std::abs(get_qpos(m, d)[0]), 0.05);
  for (const char* s : {"pos", "vel", "frc"}) EXPECT_EQ(read(m, d, s)[0], 0.0) << s;
}

// A URDF declares sensors in maxsim's <maxsim> tag, on link frames (every link is a site of its
// name, also a fixed link merged into its parent), joints and motors: a pendulum held at 0.3 rad
// reads it on jointpos, its tip's framepos relative to the base link is the rotated arm, the gyro
// on the merged imu link reads the hinge rate about its axis.
TEST(Sensors, UrdfDeclaresSensors) {
  auto urdf = [](const std::string& sensors) {
    return R"(<robot name="p"><link name="base"/>
      <link name="arm"><inertial><mass value="1"/><origin xyz="0 0 -0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="imu"/>
      <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
      <joint name="imu_mount" type="fixed"><parent link="arm"/><child link="imu"/><origin xyz="0 0 -1"/></joint>
      <maxsim>)" + sensors + R"(</maxsim></robot>)";
  };
  const std::string path = (std::filesystem::temp_directory_path() / "maxsim_sensors_pendulum.urdf").string();
  std::ofstream(path) << urdf(R"(<sensor name="q" type="jointpos" joint="hinge"/>
      <sensor name="tip" type="framepos" link="imu" ref_link="base"/><sensor name="gyro" type="gyro" link="imu"/>
      <sensor name="motor" type="actuatorpos" actuator="hinge"/>)");
  LoadOptions o;
  o.fixed_base = true;
  const Model m = load_model(path, o);
  ASSERT_EQ(m.sensors.size(), 4u);
  Data d(m);
  std::vector<double> qpos = get_qpos(m, d), qvel(qvel_size(m), 0.0);
  ASSERT_EQ(qpos.size(), 1u);
  qpos[0] = 0.3;
  qvel[0] = -0.7;
  set_qpos_qvel(m, d, qpos, qvel);
  update_sensors(m, d);
  EXPECT_NEAR(read(m, d, "q")[0], 0.3, 1e-12);
  EXPECT_NEAR(read(m, d, "motor")[0], 0.3, 1e-12);
  const std::vector<double> tip = read(m, d, "tip"), gyro = read(m, d, "gyro");
  EXPECT_NEAR(tip[0], -std::sin(0.3), 1e-12);  // (0, 0, −1) turned by 0.3 about y
  EXPECT_NEAR(tip[2], -std::cos(0.3), 1e-12);
  EXPECT_NEAR(gyro[1], -0.7, 1e-12);
  for (const char* bad : {R"(<sensor type="gyroscope" link="imu"/>)", R"(<sensor type="gyro" link="nosuch"/>)",
                          R"(<sensor type="jointpos" joint="imu_mount"/>)", R"(<sensor type="gyro" link="imu" noise="-1"/>)",
                          R"(<sensor type="gyro" site="imu"/>)", R"(<sensor type="jointpos"/>)"}) {
    SCOPED_TRACE(bad);
    std::ofstream(path) << urdf(bad);
    EXPECT_THROW(load_model(path, o), LoadError);
  }
}

// Rangefinders 1 m above each shape, looking down along their z axes, read the distance to its
// top (to round-off), -1 where nothing lies ahead, their cutoff at most; their own body's geoms
// are not seen (MuJoCo's rule).
TEST(Sensors, RangefinderMeasuresEachShape) {
  const Model m = load_xml("range", R"(<mujoco model="range"><compiler angle="degree"/><option timestep="0.002"/>
    <worldbody>
      <geom type="plane" size="0.5 0.5 0.1" pos="0 0 0"/>
      <geom type="sphere" size="0.1" pos="1 0 0.1"/>
      <geom type="box" size="0.1 0.1 0.1" pos="2 0 0.1"/>
      <geom type="cylinder" size="0.1 0.1" pos="3 0 0.1"/>
      <geom type="capsule" size="0.05 0.1" pos="4 0 0.15"/>
      <geom type="ellipsoid" size="0.1 0.1 0.2" pos="5 0 0.2"/>
      <body name="probe" pos="0 0 1"><joint type="slide" axis="0 0 1" name="lift"/>
        <geom type="sphere" size="0.05" pos="0 0 -0.2"/>
        <site name="s0" euler="180 0 0"/><site name="s1" pos="1 0 0" euler="180 0 0"/>
        <site name="s2" pos="2 0 0" euler="180 0 0"/><site name="s3" pos="3 0 0" euler="180 0 0"/>
        <site name="s4" pos="4 0 0" euler="180 0 0"/><site name="s5" pos="5 0 0" euler="180 0 0"/>
        <site name="up" pos="1 0 0"/><site name="off" pos="7 0 0" euler="180 0 0"/>
      </body>
    </worldbody>
    <sensor><rangefinder name="r0" site="s0"/><rangefinder name="r1" site="s1"/><rangefinder name="r2" site="s2"/>
      <rangefinder name="r3" site="s3"/><rangefinder name="r4" site="s4"/><rangefinder name="r5" site="s5"/>
      <rangefinder name="up" site="up"/><rangefinder name="off" site="off"/>
      <rangefinder name="cut" site="s0" cutoff="0.5"/></sensor></mujoco>)");
  Data d(m);
  update_sensors(m, d);
  const double expected[] = {1.0, 0.8, 0.8, 0.8, 0.7, 0.6};
  const char* names[] = {"r0", "r1", "r2", "r3", "r4", "r5"};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(read(m, d, names[k])[0], expected[k], 1e-12) << names[k];
  EXPECT_EQ(read(m, d, "up")[0], -1.0);
  EXPECT_EQ(read(m, d, "off")[0], -1.0);  // (beyond the finite plane)
  EXPECT_EQ(read(m, d, "cut")[0], 0.5);
}

// cutoff clamps (touch from above only); noise is added only with <flag sensornoise="enable">,
// reproducibly, with the declared standard deviation.
TEST(Sensors, CutoffAndNoise) {
  auto xml = [](const std::string& flag) {
    return R"(<mujoco model="n"><option timestep="0.002">)" + flag + R"(</option>
      <worldbody><body name="b" pos="0 0 1"><joint name="s" type="slide" axis="0 0 1"/>
        <geom type="sphere" size="0.1" mass="1"/></body></worldbody>
      <sensor><jointpos name="p" joint="s" cutoff="0.05"/><jointvel name="v" joint="s" noise="0.1"/>
        <clock name="c"/></sensor></mujoco>)";
  };
  {  // <flag sensor="disable">: steps leave sensordata alone
    const Model m = load_xml("off", xml(R"(<flag sensor="disable"/>)"));
    ASSERT_FALSE(m.opt.sensors);
    Data d(m);
    for (int n = 0; n < 10; ++n) step(m, d);
    EXPECT_EQ(read(m, d, "c")[0], 0.0);
    update_sensors(m, d);
    EXPECT_EQ(read(m, d, "c")[0], d.time);
  }
  {
    const Model m = load_xml("cut", xml(""));
    Data d(m);
    for (int n = 0; n < 100; ++n) step(m, d);  // falls 0.2 m: the position is clamped at −0.05
    EXPECT_EQ(read(m, d, "p")[0], -0.05);
    EXPECT_NEAR(read(m, d, "v")[0], -g * d.time, 0.05);  // no noise: the true rate (to the integrator's order)
    EXPECT_NEAR(read(m, d, "c")[0], d.time, 1e-15);
  }
  const Model m = load_xml("noise", xml(R"(<flag sensornoise="enable"/>)"));
  ASSERT_TRUE(m.opt.sensor_noise);
  Data d(m), e(m);
  double sum = 0, sum2 = 0;
  const int n = 2000;
  for (int k = 0; k < n; ++k) {
    step(m, d);
    step(m, e);
    const double truth = get_qvel(m, d)[0];
    const double noise = read(m, d, "v")[0] - truth;
    EXPECT_EQ(read(m, d, "v")[0], read(m, e, "v")[0]);  // reproducible
    sum += noise;
    sum2 += noise * noise;
  }
  EXPECT_NEAR(sum / n, 0.0, 4 * 0.1 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(sum2 / n), 0.1, 0.01);
}

// Bad input is refused with the file's line or a message naming the sensor.
TEST(Sensors, BadInputIsRefused) {
  auto bad = [](const std::string& sensor) {
    return R"(<mujoco model="bad"><worldbody><body name="b"><joint name="h" type="hinge"/><joint name="ball" type="ball" pos="0 0 1"/>
      <geom type="sphere" size="0.1"/><site name="s"/></body></worldbody><sensor>)" + sensor + "</sensor></mujoco>";
  };
  for (const char* sensor : {R"(<touch site="nosuch"/>)", R"(<jointpos joint="nosuch"/>)",
                             R"(<ballquat joint="h"/>)", R"(<framepos objtype="site" objname="nosuch"/>)",
                             R"(<framepos objtype="camera" objname="s"/>)", R"(<framepos objname="s"/>)",
                             R"(<gyro site="s" noise="-1"/>)", R"(<jointpos/>)"}) {
    SCOPED_TRACE(sensor);
    EXPECT_THROW(load_xml("bad", bad(sensor)), LoadError);
  }
  Model m = load_xml("good", bad(R"(<jointpos name="p" joint="h"/>)"));
  Sensor s;
  s.type = SensorType::Gyro;
  s.object = 7;  // no such site
  EXPECT_THROW(m.add_sensor(s), std::invalid_argument);
  s.type = SensorType::BallQuat;
  s.object = 0;
  EXPECT_THROW(m.add_sensor(s), std::invalid_argument);
}

#ifdef MAXSIM_WITH_MUJOCO
#include <mujoco/mujoco.h>

// Every position- and velocity-stage sensor (and actuatorfrc, from the commands) equals MuJoCo
// 2.2.2's after mj_forward at random states of the same file, within 1e-9: joints (a hinge with
// a ref and a skew axis, a slide, a ball), fixed and spatial tendons, actuators on joints and a
// tendon, frames of sites, geoms, bodies and xbodies, relative to other frames, site velocities,
// magnetometer, subtrees. The A1's file (jointpos, jointvel, gyro, framepos, framequat) and
// dm_control's humanoid (subtreelinvel, velocimeter, gyro; its hips and shoulders are merged
// multi-hinge bodies) and swimmer (framepos of geoms, frame axes of an xbody) too.
TEST(Sensors, PositionAndVelocitySensorsMatchMuJoCo) {
  for (const char* file : {"tests/data/sensors/every_sensor.xml", "robots/a1/xml/a1.xml",
                           "tests/data/sensors/dm_control/humanoid.xml", "tests/data/sensors/dm_control/swimmer.xml"}) {
    SCOPED_TRACE(file);
    char err[1000] = "";
    mjModel* mm = mj_loadXML(source(file).c_str(), nullptr, err, sizeof err);
    ASSERT_NE(mm, nullptr) << err;
    mjData* md = mj_makeData(mm);
    const Model m = load_model(source(file));
    ASSERT_EQ(m.nsensordata(), mm->nsensordata);
    ASSERT_EQ(static_cast<int>(m.sensors.size()), mm->nsensor);
    Data d(m);
    std::mt19937 rng(7);
    std::normal_distribution<double> N(0, 0.4);
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> qpos(mm->nq), qvel(mm->nv);
      for (int i = 0; i < mm->nq; ++i) qpos[i] = mm->qpos0[i] + N(rng);
      for (int j = 0; j < mm->njnt; ++j) {  // unit quaternions
        const int a = mm->jnt_qposadr[j] + (mm->jnt_type[j] == mjJNT_FREE ? 3 : 0);
        if (mm->jnt_type[j] != mjJNT_FREE && mm->jnt_type[j] != mjJNT_BALL) continue;
        const double n = std::sqrt(qpos[a] * qpos[a] + qpos[a + 1] * qpos[a + 1] + qpos[a + 2] * qpos[a + 2] + qpos[a + 3] * qpos[a + 3]);
        for (int k = 0; k < 4; ++k) qpos[a + k] /= n;
      }
      for (double& v : qvel) v = N(rng);
      for (int i = 0; i < mm->nq; ++i) md->qpos[i] = qpos[i];
      for (int i = 0; i < mm->nv; ++i) md->qvel[i] = qvel[i];
      for (int i = 0; i < mm->nu; ++i) md->ctrl[i] = N(rng);
      mj_forward(mm, md);
      set_qpos_qvel(m, d, qpos, qvel);
      for (int i = 0; i < m.nu(); ++i) d.ctrl[i] = md->ctrl[i];
      update_sensors(m, d);
      for (int i = 0; i < mm->nsensor; ++i) {
        const Sensor& s = m.sensors[i];
        if (sensor_stage(s.type) == SensorStage::Acceleration && s.type != SensorType::ActuatorFrc) continue;
        for (int k = 0; k < s.dim; ++k)
          EXPECT_NEAR(d.sensordata[s.adr + k], md->sensordata[mm->sensor_adr[i] + k], 1e-9)
              << s.name << " (" << sensor_type_name(s.type) << ")[" << k << "], trial " << trial;
      }
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
}

// Force, torque, accelerometer and frame-acceleration sensors against MuJoCo's: the dm_control
// humanoid and every_sensor.xml (framelinacc, frameangacc) at a random pose, at rest, contacts
// and joint limits off (hard in maxsim, soft in MuJoCo), random actuator commands. MuJoCo reads
// the instantaneous forces of mj_forward at the state; maxsim the impulses over its step divided
// by Δt, which differ from them by O(Δt): the largest relative difference falls tenfold from
// Δt = 1e-4 to 1e-5 s (humanoid: measured 2.1e-2 → 2.1e-3; first order) and is below 1e-2 at
// 1e-5 s. A wrong frame, sign, lever arm or a missing row gives an O(1) difference that does not
// fall. (At rest, because a state set by hand gives the velocity at t, while the step's first
// interval velocity is the average over [t, t + Δt]: the first step after it sees half the
// velocity-dependent acceleration; SpinningFrameAccelerationIsCentripetal checks those after
// the start.)
TEST(Sensors, ForceTorqueAndAccelerometerConvergeToMuJoCos) {
  for (const char* rel : {"tests/data/sensors/dm_control/humanoid.xml", "tests/data/sensors/every_sensor.xml"}) {
    SCOPED_TRACE(rel);
    const std::string file = source(rel);
    auto largest_difference = [&](double dt) {
      char err[1000] = "";
      mjModel* mm = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
      EXPECT_NE(mm, nullptr) << err;
      mm->opt.timestep = dt;
      mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT;
      mjData* md = mj_makeData(mm);
      Model m = load_model(file);
      m.opt.timestep = dt;
      for (Joint& j : m.joints) j.has_limits = false;
      Data d(m);  // (no contact search: contacts off)
      std::mt19937 rng(3);
      std::normal_distribution<double> N(0, 0.2);
      std::vector<double> qpos(mm->nq), qvel(mm->nv);
      for (int i = 0; i < mm->nq; ++i) qpos[i] = mm->qpos0[i] + N(rng);
      for (int j = 0; j < mm->njnt; ++j) {  // unit quaternions (free and ball joints)
        if (mm->jnt_type[j] != mjJNT_FREE && mm->jnt_type[j] != mjJNT_BALL) continue;
        const int a = mm->jnt_qposadr[j] + (mm->jnt_type[j] == mjJNT_FREE ? 3 : 0);
        double n = 0;
        for (int k = 0; k < 4; ++k) n += qpos[a + k] * qpos[a + k];
        for (int k = 0; k < 4; ++k) qpos[a + k] /= std::sqrt(n);
      }
      std::fill(qvel.begin(), qvel.end(), 0.0);  // (see above)
      for (int i = 0; i < mm->nq; ++i) md->qpos[i] = qpos[i];
      for (int i = 0; i < mm->nv; ++i) md->qvel[i] = qvel[i];
      for (int i = 0; i < mm->nu; ++i) md->ctrl[i] = 3 * N(rng);
      mj_forward(mm, md);
      set_qpos_qvel(m, d, qpos, qvel);
      for (int i = 0; i < m.nu(); ++i) d.ctrl[i] = md->ctrl[i];
      EXPECT_EQ(step(m, d).status, StepStatus::Ok);
      double largest = 0;
      int counted = 0;
      for (int i = 0; i < mm->nsensor; ++i) {
        const Sensor& s = m.sensors[i];
        if (s.type != SensorType::Force && s.type != SensorType::Torque && s.type != SensorType::Accelerometer &&
            s.type != SensorType::FrameLinAcc && s.type != SensorType::FrameAngAcc)
          continue;
        ++counted;
        double diff = 0, size = 1.0;  // (relative to the reading, at least 1 N, N·m or m/s²)
        for (int k = 0; k < 3; ++k) {
          diff = std::max(diff, std::abs(d.sensordata[s.adr + k] - md->sensordata[mm->sensor_adr[i] + k]));
          size = std::max(size, std::abs(md->sensordata[mm->sensor_adr[i] + k]));
        }
        largest = std::max(largest, diff / size);
      }
      EXPECT_EQ(counted, std::string(rel).find("humanoid") != std::string::npos ? 13 : 2);
      mj_deleteData(md);
      mj_deleteModel(mm);
      return largest;
    };
    const double coarse = largest_difference(1e-4), fine = largest_difference(1e-5);
    EXPECT_LT(fine, 1e-2);
    EXPECT_LT(fine, 0.2 * coarse) << "first order in Δt: " << coarse << " -> " << fine;
  }
}
#endif

// A rangefinder over a height field sees its grid's triangles: the cells along the ray's path
// (sim/geometry/ray.cpp) give the nearest hit of all the grid's triangles, found here one by one
// (Möller–Trumbore), for rays from above, from the side, vertical, along the grid's lines and
// grazing, on a field with random elevations.
TEST(Sensors, RangefinderOnAHeightFieldMatchesEveryTriangle) {
  const int nrow = 9, ncol = 13;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::string elevation;
  std::vector<double> h(nrow * ncol);
  for (double& e : h) e = unit(rng), elevation += std::to_string(e) + " ";
  const Model m = load_xml("range_hfield", R"(<mujoco model="range_hfield"><asset>
      <hfield name="terrain" nrow=")" + std::to_string(nrow) + R"(" ncol=")" + std::to_string(ncol) +
      R"(" size="1.2 0.8 0.3 0.1" elevation=")" + elevation + R"("/></asset>
    <worldbody><geom name="field" type="hfield" hfield="terrain"/></worldbody></mujoco>)");
  ASSERT_EQ(m.world_geoms.size(), 1u);
  const Geom& field = m.world_geoms[0];
  const HeightField& H = m.hfields[0];
  const double rx = 1.2, ry = 0.8, dx = 2 * rx / (ncol - 1), dy = 2 * ry / (nrow - 1);
  auto vertex = [&](int r, int c) {
    return Vec3(-rx + dx * c, -ry + dy * r, 0.3 * H.data[static_cast<size_t>(r) * ncol + c]);
  };
  auto triangle = [](const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 e1 = b - a, e2 = c - a, p = d.cross(e2);
    const double det = e1.dot(p);
    if (std::abs(det) < 1e-300) return -1.0;
    const Vec3 s = o - a;
    const double u = s.dot(p) / det;
    const Vec3 q = s.cross(e1);
    const double v = d.dot(q) / det, t = e2.dot(q) / det;
    return u >= 0 && v >= 0 && u + v <= 1 && t >= 0 ? t : -1.0;
  };
  auto every_triangle = [&](const Vec3& o, const Vec3& d) {
    double best = -1;
    for (int r = 0; r + 1 < nrow; ++r)
      for (int c = 0; c + 1 < ncol; ++c)
        for (const double t : {triangle(o, d, vertex(r, c), vertex(r, c + 1), vertex(r + 1, c + 1)),
                               triangle(o, d, vertex(r, c), vertex(r + 1, c + 1), vertex(r + 1, c))})
          if (t >= 0 && (best < 0 || t < best)) best = t;
    return best;
  };
  std::uniform_real_distribution<double> span(-1.6, 1.6), sym(-1.0, 1.0);
  int hits = 0, cases = 0;
  auto check = [&](const Vec3& o, const Vec3& d) {
    const double expected = every_triangle(o, d), got = ray_geom(m, field, o, d);
    ++cases;
    if (expected < 0) {
      EXPECT_EQ(got, -1.0) << o.transpose() << " | " << d.transpose();
    } else {
      ++hits;
      EXPECT_NEAR(got, expected, 1e-9 * (1 + expected)) << o.transpose() << " | " << d.transpose();
    }
  };
  for (int k = 0; k < 400; ++k) {
    const Vec3 above(span(rng), span(rng), 0.5 + unit(rng));
    check(above, Vec3(sym(rng), sym(rng), -unit(rng)));        // down at an angle
    check(above, Vec3(0, 0, -1));                               // vertical
    check(above, Vec3(0, sym(rng), -unit(rng)));                // in a plane of the grid's columns
    check(above, Vec3(sym(rng), 0, -unit(rng)));                // … of its rows
    const Vec3 side(-2.0, span(rng), 0.3 * unit(rng));
    check(side, Vec3(1.0, 0.3 * sym(rng), 0.05 * sym(rng)));    // grazing, from beyond the edge
    check(Vec3(-rx + dx * (k % ncol), span(rng), 1.0), Vec3(0, 0, -2.0));  // on a grid line
  }
  EXPECT_GT(hits, cases / 4);  // (most rays from above hit)
}
