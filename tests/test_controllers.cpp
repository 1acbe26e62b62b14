// Controllers: the controller interface, actuator models against hand calculations,
// PD set points and torque limits on a pendulum, references, sinusoid tracking, the gait
// generator and parameter files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numbers>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/controller.hpp"
#include "controllers/gait.hpp"
#include "controllers/schedule.hpp"
#include "controllers/joint_pd.hpp"
#include "controllers/parameters.hpp"
#include "controllers/reference.hpp"
#include "mechanisms/builders.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

constexpr double kG = 9.81;
// the builders' 1 m, 1 kg rod pendulum about its end: I = m l²/3, gravity torque m g l/2 sin θ
constexpr double kInertia = 1.0 / 3.0;
constexpr double kGravityTorque = kG * 0.5;

double angle(const Model& m, const Data& d) { return row_coordinate(m, d, 0, 5).q; }

// θ with kp (θ* − θ) = m g l/2 sin θ (pure PD against gravity), by Newton's method
double pd_equilibrium(double kp, double target) {
  double th = target;
  for (int i = 0; i < 50; ++i) th -= (kp * (target - th) - kGravityTorque * std::sin(th)) / (-kp - kGravityTorque * std::cos(th));
  return th;
}

}  // namespace

// ---- the interface ----------------------------------------------------------------------------

// A lambda and a class are installed the same way; step() calls the controller once per step,
// first, with the time of the current knot, and the torque it writes is what moves the joint.
TEST(ControllerInterface, LambdaAndClassRunOncePerStepBeforeTheSolve) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  m.opt.gravity.setZero();
  Data d(m);
  std::vector<double> times;
  set_controller(d, [&](const Model&, Data& data) {
    times.push_back(data.time);
    data.joint_force[0](5) = 1.0;  // 1 N·m about the joint
  });
  for (int k = 0; k < 10; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  ASSERT_EQ(times.size(), 10u);
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(times[k], 0.01 * k, 1e-12);
  // constant torque τ on I = 1/3: rate τ t / I after t = 0.1 s, up to the discrete rotation
  // map's relative O((ωΔt/2)²) ≈ 2e-6
  EXPECT_NEAR(row_coordinate(m, d, 0, 5).qd, 1.0 * 0.1 / kInertia, 1e-5);

  struct Counter : Controller {
    int calls = 0;
    void control(const Model&, Data& data) override {
      ++calls;
      data.joint_force[0](5) = -1.0;
    }
  };
  auto shared = std::make_shared<Counter>();
  set_controller(d, shared);
  for (int k = 0; k < 10; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_EQ(shared->calls, 10);
  EXPECT_NEAR(row_coordinate(m, d, 0, 5).qd, 0.0, 1e-5);  // the opposite torque took the rate back

  Counter local;
  set_controller_ref(d, local);
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_EQ(local.calls, 1);
  EXPECT_EQ(shared->calls, 10);
  clear_controller(d);
  EXPECT_FALSE(d.controller);
}

// The callback sees the contacts of the previous step (a box resting on the ground: its four
// bottom corners carry its weight) and the maximal coordinates.
TEST(ControllerInterface, SeesContactsAndMaximalCoordinates) {
  Model m;
  m.opt.timestep = 0.005;
  Body box;
  box.name = "box";
  box.mass = 2.0;
  box.inertia = inertia_box(2.0, Vec3(0.1, 0.1, 0.1));
  box.x0 = Vec3(0, 0, 0.1);
  box.geoms.push_back(make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1)));
  m.add_body(box);
  Data d(m);
  enable_contacts(m, d);
  std::vector<int> seen;
  double normal_impulse = 0, height = 0;
  set_controller(d, [&](const Model&, Data& data) {
    seen.push_back(static_cast<int>(data.contacts.size()));
    normal_impulse = 0;
    for (const Contact& c : data.contacts) normal_impulse += c.gamma;
    height = data.x[0].z();
  });
  for (int k = 0; k < 50; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_EQ(seen.front(), 0);  // nothing collided before the first step
  EXPECT_EQ(seen.back(), 4);
  EXPECT_NEAR(normal_impulse, 2.0 * kG * m.opt.timestep, 1e-6);  // the corners hold m g Δt per step
  EXPECT_NEAR(height, 0.1, 1e-4);
}

TEST(ControllerInterface, RowCoordinateIsTheJointCoordinate) {
  const Model m = make_pendulum_chain(2, JointType::Revolute);
  Data d(m);
  set_coordinates(m, d, {{0.3}, {-0.2}}, {{0.5}, {0.1}});
  EXPECT_NEAR(row_coordinate(m, d, 0, 5).q, 0.3, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 1, 5).q, -0.2, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 1, 5).qd, 0.1, 1e-12);
  EXPECT_THROW(row_coordinate(m, d, 0, 3), std::invalid_argument);  // a constrained row
  const Model ball = make_pendulum_chain(1, JointType::Spherical, 1.0, 1.0, 0.05);
  Data db(ball);
  EXPECT_THROW(row_coordinate(ball, db, 0, 3), std::invalid_argument);  // no scalar angle
}

// ---- actuator models against hand calculations -------------------------------------------------

TEST(Actuators, ForcesMatchHandCalculations) {
  Actuator a;
  a.gear = 2.0;
  // direct torque: f = u, joint torque gear·f
  EXPECT_DOUBLE_EQ(actuator_force(a, 3.0, 0.7, -4.0), 3.0);
  a.ctrl_limited = true;
  a.ctrl_lower = -1;
  a.ctrl_upper = 1;
  EXPECT_DOUBLE_EQ(actuator_force(a, 3.0, 0, 0), 1.0);    // command clipped first
  EXPECT_DOUBLE_EQ(actuator_force(a, -3.0, 0, 0), -1.0);
  a.ctrl_limited = false;
  a.force_limited = true;
  a.force_lower = -0.5;
  a.force_upper = 0.25;
  EXPECT_DOUBLE_EQ(actuator_force(a, 3.0, 0, 0), 0.25);   // then the force
  EXPECT_DOUBLE_EQ(actuator_force(a, -3.0, 0, 0), -0.5);
  a.force_limited = false;

  // position servo: f = kp (u − gear q) − kv gear q̇ = 10 (1 − 0.2) − 2 · 1 = 6
  a.kind = Actuator::Kind::Position;
  a.kp = 10;
  a.kv = 2;
  EXPECT_NEAR(actuator_force(a, 1.0, 0.1, 0.5), 6.0, 1e-15);
  // velocity servo: f = kv (u − gear q̇) = 3 (2 − 1) = 3
  a.kind = Actuator::Kind::Velocity;
  a.kv = 3;
  EXPECT_NEAR(actuator_force(a, 2.0, 0.1, 0.5), 3.0, 1e-15);
  // PD: f = kp (u − q) + kv (u̇ − q̇) + f_ff = 10 · 0.8 + 2 · 0.4 + 0.3 = 9.1 (gear 1)
  a.kind = Actuator::Kind::PD;
  a.gear = 1;
  a.kp = 10;
  a.kv = 2;
  EXPECT_NEAR(actuator_force(a, 1.0, 0.2, 0.1, 0.5, 0.3), 9.1, 1e-14);
  a.force_limited = true;  // saturation
  a.force_lower = -5;
  a.force_upper = 5;
  EXPECT_DOUBLE_EQ(actuator_force(a, 1.0, 0.2, 0.1, 0.5, 0.3), 5.0);
  EXPECT_DOUBLE_EQ(actuator_force(a, -1.0, 0.2, 0.1, 0.5, 0.3), -5.0);
}

// The apply step writes gear · force on the driven row, sums actuators sharing a row, and leaves
// other rows alone.
TEST(Actuators, ApplyWritesGearTimesForceOnTheRow) {
  const Model m = make_pendulum_chain(2, JointType::Revolute);
  Data d(m);
  set_coordinates(m, d, {{0.25}, {0.0}}, {{0.0}, {0.0}});
  d.joint_force[1](5) = 7.0;  // no actuator there: kept
  d.joint_force[0](5) = 99.0;  // driven: overwritten
  std::vector<Actuator> acts(2);
  acts[0].joint = acts[1].joint = 0;
  acts[0].row = acts[1].row = 5;
  acts[0].gear = 3.0;                 // torque: 3 · 0.5
  acts[1].kind = Actuator::Kind::Position;
  acts[1].kp = 4.0;                   // 4 (1 − 0.25) = 3
  ActuatorCommands c(2);
  c.ctrl = {0.5, 1.0};
  apply_actuators(m, d, acts, c);
  EXPECT_NEAR(c.force[0], 0.5, 1e-15);
  EXPECT_NEAR(c.force[1], 3.0, 1e-12);
  EXPECT_NEAR(d.joint_force[0](5), 1.5 + 3.0, 1e-12);
  EXPECT_EQ(d.joint_force[1](5), 7.0);
  c.ctrl = {1.0};
  EXPECT_THROW(apply_actuators(m, d, acts, c), std::invalid_argument);
}

// URDF: one torque actuator per revolute joint with the <limit effort> as force limit (A1: 20
// N·m hips, 55 N·m thighs and calves). MJCF: motor (gear, ctrlrange), position (kp, kv),
// velocity (kv) and a general actuator in position form. Code-built: a motor per joint.
TEST(Actuators, FromModels) {
  const Model a1 = load_model(repo("robots/a1/urdf/a1.urdf"));
  const std::vector<Actuator> acts = actuators_from_model(a1);
  ASSERT_EQ(acts.size(), 12u);
  for (const Actuator& a : acts) {
    const std::string& jn = a1.joints[a.joint].name;
    EXPECT_EQ(a.kind, Actuator::Kind::Motor) << jn;
    EXPECT_EQ(a.row, 5);
    EXPECT_TRUE(a.force_limited);
    const double effort = jn.find("hip") != std::string::npos ? 20.0 : 55.0;
    EXPECT_DOUBLE_EQ(a.force_upper, effort) << jn;
    EXPECT_DOUBLE_EQ(a.force_lower, -effort) << jn;
  }
  EXPECT_GE(find_actuator(a1, acts, "RL_calf_joint"), 0);
  EXPECT_EQ(find_actuator(a1, acts, "no_such_joint"), -1);

  const Model f = load_model(repo("tests/data/loader/features.xml"));
  const std::vector<Actuator> fa = actuators_from_model(f);
  auto get = [&](const std::string& n) {
    const int i = find_actuator(f, fa, n);
    EXPECT_GE(i, 0) << n;
    return i >= 0 ? fa[i] : Actuator{};
  };
  const Actuator motor = get("m_shoulder");
  EXPECT_EQ(motor.kind, Actuator::Kind::Motor);
  EXPECT_DOUBLE_EQ(motor.gear, 10);
  EXPECT_TRUE(motor.ctrl_limited);
  EXPECT_DOUBLE_EQ(actuator_force(motor, 5.0, 0, 0), 1.0);  // ctrlrange −1..1
  const Actuator pos = get("p_slide");
  EXPECT_EQ(pos.kind, Actuator::Kind::Position);
  EXPECT_DOUBLE_EQ(pos.kp, 100);
  EXPECT_DOUBLE_EQ(pos.kv, 5);
  EXPECT_EQ(pos.row, 2);  // a slide joint
  const Actuator vel = get("v_leg_x");
  EXPECT_EQ(vel.kind, Actuator::Kind::Velocity);
  EXPECT_DOUBLE_EQ(vel.kv, 3);
  const Actuator gen = get("g_leg_y");
  EXPECT_EQ(gen.kind, Actuator::Kind::Position);
  EXPECT_DOUBLE_EQ(gen.kp, 20);
  EXPECT_DOUBLE_EQ(gen.kv, 2);

  Model chain = make_pendulum_chain(3, JointType::Revolute);
  chain.joints[1].effort[5] = 4.0;
  const std::vector<Actuator> ca = actuators_from_model(chain);
  ASSERT_EQ(ca.size(), 3u);
  EXPECT_FALSE(ca[0].force_limited);
  EXPECT_TRUE(ca[1].force_limited);
  EXPECT_DOUBLE_EQ(ca[1].force_upper, 4.0);
  EXPECT_EQ(ca[2].name, "joint3");
  const std::vector<Actuator> pd = as_pd(ca, 30, 3);
  EXPECT_EQ(pd[1].kind, Actuator::Kind::PD);
  EXPECT_DOUBLE_EQ(pd[1].kp, 30);
  EXPECT_DOUBLE_EQ(pd[1].force_upper, 4.0);  // limits kept
}

// ---- PD on a pendulum --------------------------------------------------------------------------

// A PD (kp = 40, kv = 4) holds the 1 m rod pendulum at θ* = 0.8 rad. Without feed-forward it
// settles where kp(θ* − θ) = m g l/2 sin θ (a static error of 0.087 rad); with gravity
// compensation m g l/2 sin θ* as feed-forward it settles at θ* itself. Damping ratio ≈ 0.55 and
// ω ≈ 11 rad/s decay the transient as e^(−6 t): after 10 s it is e^(−60), so what remains is the
// solver tolerance (1e-9): 1e-6 rad is a safe bound that a wrong sign, gain or gear would miss by
// orders of magnitude.
TEST(JointPd, PendulumReachesItsSetPoint) {
  for (bool compensate : {false, true}) {
    Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.001);
    Data d(m);
    auto pd = std::make_shared<JointPdController>(as_pd(actuators_from_model(m), 40.0, 4.0));
    const double target = 0.8;
    pd->set_reference(m, "joint1", constant_reference(target));
    if (compensate) pd->commands().feedforward[0] = kGravityTorque * std::sin(target);
    set_controller(d, pd);
    for (int k = 0; k < 10000; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const double expected = compensate ? target : pd_equilibrium(40.0, target);
    std::printf("  measured: compensate %d, angle %.12f, expected %.12f, error %.2e rad\n", compensate,
                angle(m, d), expected, angle(m, d) - expected);
    EXPECT_NEAR(angle(m, d), expected, 1e-6) << "compensate " << compensate;
    EXPECT_NEAR(row_coordinate(m, d, 0, 5).qd, 0.0, 1e-6);
    if (!compensate) {
      EXPECT_GT(target - angle(m, d), 0.08);  // the static error is real
    }
  }
}

// Torque limit: a PD aiming at θ* = π with a 3 N·m limit (gravity needs up to 4.9 N·m) saturates
// for the whole swing (kp (π − θ) ≥ 66 N·m ≫ 3 + kv q̇), so the rod moves under a constant 3 N·m:
// it swings up to θ_max with 3 θ_max = m g l/2 (1 − cos θ_max) (work = potential energy) and back.
// The applied torque never exceeds the limit; θ_max matches to 1e-3 (the integrator's energy
// error at Δt = 1 ms is far smaller; sampling the peak costs ~1e-6).
TEST(JointPd, TorqueLimitClips) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.001);
  Data d(m);
  std::vector<Actuator> acts = as_pd(actuators_from_model(m), 40.0, 4.0);
  acts[0].force_limited = true;
  acts[0].force_lower = -3.0;
  acts[0].force_upper = 3.0;
  auto pd = std::make_shared<JointPdController>(acts);
  pd->set_reference(0, constant_reference(std::numbers::pi));
  set_controller(d, pd);
  double theta_max = 0, max_torque = 0;
  for (int k = 0; k < 3000; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    theta_max = std::max(theta_max, angle(m, d));
    max_torque = std::max(max_torque, std::abs(d.joint_force[0](5)));
    ASSERT_DOUBLE_EQ(pd->commands().force[0], 3.0);  // saturated all the time
  }
  EXPECT_DOUBLE_EQ(max_torque, 3.0);
  EXPECT_DOUBLE_EQ(pd->peak_force()[0], 3.0);
  double th = 1.5;  // 3 θ = g/2 (1 − cos θ)
  for (int i = 0; i < 50; ++i) th -= (kGravityTorque * (1 - std::cos(th)) - 3 * th) / (kGravityTorque * std::sin(th) - 3);
  std::printf("  measured: theta_max %.9f, analytic %.9f\n", theta_max, th);
  EXPECT_NEAR(theta_max, th, 1e-3);
  EXPECT_LT(theta_max, 1.6);  // far from the target π: the limit held it
}

// ---- references and sinusoid tracking ------------------------------------------------------------

TEST(References, TablesFunctionsAndSinusoids) {
  const Reference table = sampled_reference({0.0, 1.0, 3.0}, {0.0, 2.0, 1.0});
  EXPECT_DOUBLE_EQ(table(-1.0).q, 0.0);
  EXPECT_DOUBLE_EQ(table(-1.0).qd, 0.0);
  EXPECT_DOUBLE_EQ(table(0.5).q, 1.0);
  EXPECT_DOUBLE_EQ(table(0.5).qd, 2.0);
  EXPECT_DOUBLE_EQ(table(2.0).q, 1.5);
  EXPECT_DOUBLE_EQ(table(2.0).qd, -0.5);
  EXPECT_DOUBLE_EQ(table(5.0).q, 1.0);
  EXPECT_THROW(sampled_reference({0.0, 0.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(sampled_reference({0.0}, {}), std::invalid_argument);

  const Reference f = function_reference([](double t) { return t * t * t; });
  EXPECT_NEAR(f(2.0).q, 8.0, 1e-15);
  EXPECT_NEAR(f(2.0).qd, 12.0, 1e-8);  // central difference: h² q''' = 6e-10

  const Sinusoid s{0.5, 2.0, 0.25, 0.1};
  EXPECT_NEAR(s.at(0.3).q, 0.1 + 0.5 * std::sin(std::numbers::pi * 0.3 + 0.25), 1e-15);
  EXPECT_NEAR(s.at(0.3).qd, 0.5 * std::numbers::pi * std::cos(std::numbers::pi * 0.3 + 0.25), 1e-15);
  EXPECT_THROW(sinusoid_reference(Sinusoid{1.0, 0.0, 0.0, 0.0}), std::invalid_argument);
}

// Sinusoid tracking without gravity is a linear oscillator driven by the reference: the error
// e = r − θ obeys I ë + kv ė + kp e = I r̈, so in steady state |e| = I A ω² / |kp − I ω² + i kv ω|
// (rod I = 1/3, kp = 20, kv = 2, A = 0.5, T = 2 s: 0.0922 rad). The transient decays as e^(−3 t);
// measured over the last two periods of 12 s. The explicit, one-step-delayed servo shifts it by
// O(ω_n Δt) ≈ 1 %: 2 % tolerance.
TEST(JointPd, SinusoidTrackingErrorMatchesTheLinearOscillator) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.001);
  m.opt.gravity.setZero();
  Data d(m);
  const Sinusoid s{0.5, 2.0, 0.0, 0.0};
  auto tracker = std::make_shared<SinusoidTracker>(as_pd(actuators_from_model(m), 20.0, 2.0), std::vector<Sinusoid>{s});
  set_controller(d, tracker);
  double err = 0;
  for (int k = 0; k < 12000; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    if (d.time > 8.0) err = std::max(err, std::abs(s.at(d.time).q - angle(m, d)));
  }
  const double w = std::numbers::pi;
  const double expected = kInertia * s.amplitude * w * w / std::hypot(20.0 - kInertia * w * w, 2.0 * w);
  std::printf("  measured: tracking error amplitude %.6f rad, linear theory %.6f rad\n", err, expected);
  EXPECT_NEAR(err / expected, 1.0, 0.02) << "error amplitude " << err << " expected " << expected;
}

// ---- gait generator -----------------------------------------------------------------------------

TEST(Gait, ReferencesFollowTheTrotPattern) {
  GaitParameters p;
  p.frequency = 2.0;
  p.offset = {0.1, 0.8, -1.6};
  p.amplitude = {0.05, 0.3, 0.2};
  p.ramp_time = 0.0;
  const double t = 0.3, w = 2 * std::numbers::pi * 2.0;
  // FR thigh: 0.8 + 0.3 sin(w t); FL thigh half a period later; RL thigh with FR (diagonal pair)
  EXPECT_NEAR(gait_reference(p, 0, 1, t).q, 0.8 + 0.3 * std::sin(w * t), 1e-14);
  EXPECT_NEAR(gait_reference(p, 1, 1, t).q, 0.8 - 0.3 * std::sin(w * t), 1e-14);
  EXPECT_NEAR(gait_reference(p, 3, 1, t).q, gait_reference(p, 0, 1, t).q, 1e-14);
  EXPECT_NEAR(gait_reference(p, 2, 1, t).q, gait_reference(p, 1, 1, t).q, 1e-14);
  // the calf leads its thigh by a quarter period: −1.6 + 0.2 sin(w t + π/2) = −1.6 + 0.2 cos(w t)
  EXPECT_NEAR(gait_reference(p, 0, 2, t).q, -1.6 + 0.2 * std::cos(w * t), 1e-14);
  EXPECT_NEAR(gait_reference(p, 0, 2, t).qd, -0.2 * w * std::sin(w * t), 1e-12);
  // hips mirrored: right legs negative
  EXPECT_NEAR(gait_reference(p, 0, 0, 0.0).q, -0.1, 1e-14);
  EXPECT_NEAR(gait_reference(p, 1, 0, 0.0).q, 0.1, 1e-14);
  // the ramp: no oscillation at t = 0, half the amplitude at ramp_time / 2
  p.ramp_time = 1.0;
  EXPECT_NEAR(gait_reference(p, 0, 1, 0.0).q, 0.8, 1e-15);
  EXPECT_NEAR(gait_reference(p, 0, 1, 0.5).q, 0.8 + 0.15 * std::sin(w * 0.5), 1e-14);
  // parameters by name
  gait_parameter(p, "calf_amplitude") = 0.25;
  EXPECT_DOUBLE_EQ(p.amplitude[2], 0.25);
  gait_parameter(p, "RL_phase") = 1.0;
  EXPECT_DOUBLE_EQ(p.leg_phase[3], 1.0);
  for (const std::string& n : gait_parameter_names()) EXPECT_NO_THROW(gait_parameter(p, n)) << n;
  EXPECT_THROW(gait_parameter(p, "knee_offset"), std::invalid_argument);
  const auto pace = gait_leg_phases(GaitPattern::Pace);
  EXPECT_DOUBLE_EQ(pace[0], pace[2]);  // FR with RR
}

// On the A1 (fixed base, so the test needs no contacts) the gait controller finds the 12 leg
// actuators, keeps the URDF torque limits and makes the legs track the gait: after the ramp the
// thigh follows its reference within the PD's dynamic error (kp = 80: a few hundredths of a rad).
TEST(Gait, A1LegsTrackTheGaitOnAFixedBase) {
  LoadOptions lo;
  lo.fixed_base = true;
  Model m = load_model(repo("robots/a1/urdf/a1.urdf"), lo);
  m.opt.timestep = 0.001;
  GaitParameters p;
  p.ramp_time = 0.2;
  auto gait = std::make_shared<GaitController>(m, actuators_from_model(m), p);
  ASSERT_EQ(gait->actuators().size(), 12u);
  EXPECT_DOUBLE_EQ(gait->actuators()[0].force_upper, 20.0);  // FR hip
  EXPECT_DOUBLE_EQ(gait->actuators()[1].force_upper, 55.0);  // FR thigh
  EXPECT_DOUBLE_EQ(gait->actuators()[1].kp, 80.0);
  const std::array<int, 12> legs = leg_joints(m);
  Data d(m);
  std::vector<std::vector<double>> q(m.joints.size()), qd(m.joints.size());
  const std::array<double, 12> pose = gait->standing_pose();
  for (int i = 0; i < 12; ++i) q[legs[i]] = {pose[i]};
  set_coordinates(m, d, q, qd);
  set_controller(d, gait);
  double err = 0;
  for (int k = 0; k < 1500; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    if (d.time > 0.5)
      for (int i = 0; i < 12; ++i)
        err = std::max(err, std::abs(row_coordinate(m, d, legs[i], 5).q - gait_reference(p, i / 3, i % 3, d.time).q));
  }
  std::printf("  measured: A1 leg tracking error (fixed base) %.4f rad\n", err);
  EXPECT_LT(err, 0.1);
  EXPECT_GT(err, 1e-4);  // a PD lags: zero would mean the joints were set, not driven
  for (int i = 0; i < 12; ++i) EXPECT_LE(std::abs(gait->commands().force[i]), gait->actuators()[i].force_upper);
}

// ---- parameter files ------------------------------------------------------------------------------

TEST(Parameters, RoundTripExactlyAndRejectBadLines) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/test_controllers_params.txt";
  const NamedValues values = {{"frequency", 2.0 / 3.0}, {"thigh_offset", -1e-300}, {"x", 12345.678901234567}};
  write_parameters(path, values, {"a comment", "second line"});
  const NamedValues back = read_parameters(path);
  ASSERT_EQ(back.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(back[i].first, values[i].first);
    EXPECT_EQ(std::memcmp(&back[i].second, &values[i].second, sizeof(double)), 0) << back[i].first;
  }
  EXPECT_DOUBLE_EQ(parameter_value(back, "x"), 12345.678901234567);
  EXPECT_THROW(parameter_value(back, "y"), std::invalid_argument);

  auto write = [&](const char* text) {
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text, f);
    std::fclose(f);
  };
  write("# ok\n\na 1 # trailing comment\nb 0.5x\n");
  try {
    read_parameters(path);
    FAIL() << "a bad number was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":4:"), std::string::npos) << e.what();
  }
  write("a 1\na 2\n");
  EXPECT_THROW(read_parameters(path), std::runtime_error);
  write("a 1 2\n");
  EXPECT_THROW(read_parameters(path), std::runtime_error);
  write("a nan\n");
  EXPECT_THROW(read_parameters(path), std::runtime_error);
  EXPECT_THROW(read_parameters(path + ".missing"), std::runtime_error);
  std::remove(path.c_str());
}

// A command table (controllers/schedule.hpp): held before the first and after the last row,
// linear in between, a row's values exactly at its time (also one ulp off it), and checked.
TEST(ControlSchedule, InterpolatesAndHolds) {
  Model m = make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  for (int j = 0; j < 2; ++j) {
    Actuator a;
    a.name = "m" + std::to_string(j);
    a.joint = j;
    a.row = 5;
    m.actuators.push_back(a);
  }
  ControlSchedule s;
  s.actuators = {1};
  s.time = {0.1, 0.3};
  s.values = {{1.0}, {3.0}};
  ASSERT_EQ(validate_schedule(m, s), "");
  std::vector<double> u = {7.0, 0.0};
  s.apply(0.0, u);
  EXPECT_EQ(u, (std::vector<double>{7.0, 1.0}));  // column 0 untouched, before the table: row 1
  s.apply(0.2, u);
  EXPECT_DOUBLE_EQ(u[1], 2.0);
  s.apply(std::nextafter(0.3, 0.0), u);
  EXPECT_EQ(u[1], 3.0);
  s.apply(0.1 + 1e-17, u);
  EXPECT_EQ(u[1], 1.0);
  s.apply(5.0, u);
  EXPECT_EQ(u[1], 3.0);
  // driving a Data: the controller writes ctrl, the step applies it
  Data d(m);
  set_controller(d, std::make_shared<ScheduleController>(std::make_shared<ControlSchedule>(s)));
  step(m, d);
  EXPECT_EQ(d.ctrl[1], 1.0);
  EXPECT_EQ(d.actuator_force[1], 1.0);
  ControlSchedule bad = s;
  bad.time = {0.3, 0.1};
  EXPECT_NE(validate_schedule(m, bad).find("row 2: times must increase"), std::string::npos);
  bad = s;
  bad.actuators = {2};
  EXPECT_NE(validate_schedule(m, bad).find("out of range"), std::string::npos);
  bad = s;
  bad.values[1][0] = std::nan("");
  EXPECT_NE(validate_schedule(m, bad).find("row 2: the value for actuator 'm1' is not a finite number"), std::string::npos);
}
