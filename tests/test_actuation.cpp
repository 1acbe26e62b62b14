// Joint springs, dampers and actuation on the free rows, against closed-form solutions.
#include <gtest/gtest.h>

#include <cmath>

#include "mechanisms/builders.hpp"
#include "sim/integrator/body_dynamics.hpp"
#include "sim/actuation.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/workspace.hpp"

using namespace maxsim;

namespace {
// A 2 kg box of half extents `half` in zero gravity, not yet jointed.
Model block(const Vec3& half, double dt) {
  Model m;
  m.opt.gravity.setZero();
  m.opt.timestep = dt;
  Body b;
  b.name = "block";
  b.mass = 2.0;
  b.inertia = inertia_box(2.0, half);
  m.add_body(b);
  return m;
}

// The block on a prismatic joint along world x.
Model slider(double stiffness, double damping) {
  Model m = block(Vec3(0.1, 0.1, 0.1), 0.001);
  Joint j = make_joint(m, JointType::Prismatic, kWorld, 0, Vec3::Zero(), Vec3::UnitX(), "slide");
  j.stiffness[2] = stiffness;
  j.damping[2] = damping;
  m.add_joint(j);
  return m;
}
double coordinate(const Model& m, const Data& d) {
  double q, qd;
  joint_coordinates(m, d, 0, &q, &qd);
  return q;
}
}  // namespace

// A constant actuator force F on the slider: x = F t² / (2m); the integrator is exact for
// constant forces up to the first-step offset of Δt·F/(2m)·t (an O(Δt) phase of the knots).
TEST(Actuation, ConstantForceAcceleratesTheSlider) {
  Model m = slider(0, 0);
  Data d(m);
  d.joint_force[0](2) = 3.0;
  for (int k = 0; k < 1000; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double t = d.time, expected = 3.0 * t * t / (2 * 2.0);
  EXPECT_NEAR(coordinate(m, d), expected, 3.0 / (2 * 2.0) * m.opt.timestep * t + 1e-12);
  EXPECT_NEAR(d.v[0].x(), 3.0 / 2.0 * t, 1e-9);
  // the impulse on the free row is exactly the actuation over the step
  EXPECT_NEAR(d.joint_impulse[0](2), 3.0 * m.opt.timestep, 1e-12);
}

// Spring on the slider: period 2π sqrt(m/k) (k = 50 N/m, m = 2 kg: T = 1.2566 s), within 0.1 %
// at Δt = 1 ms (phase error (ωΔt)²/24 ≈ 1e-6).
TEST(Actuation, SpringPeriod) {
  Model m = slider(50.0, 0);
  Data d(m);
  set_joint_coordinates(m, d, 0, {0.1}, {});
  std::vector<double> crossings;
  double prev = coordinate(m, d);
  for (int k = 0; k < 5000; ++k) {
    const double t0 = d.time;
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const double cur = coordinate(m, d);
    if (prev < 0 && cur >= 0) crossings.push_back(t0 + m.opt.timestep * (-prev) / (cur - prev));
    prev = cur;
  }
  ASSERT_GE(crossings.size(), 3u);
  const double T = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(T / (2 * M_PI * std::sqrt(2.0 / 50.0)), 1.0, 1e-3);
  // the spring's energy is part of the total: bounded
  EXPECT_NEAR(total_energy(m, d), 0.5 * 50.0 * 0.01, 0.5 * 50.0 * 0.01 * 1e-2);
}

// Damper alone: v(t) = v0 exp(−d t / m). The implicit damper gives v_k = v0 / (1 + dΔt/m)^k, which
// matches the exponential to O(Δt): 0.5 % after one time constant at dΔt/m = 0.01.
TEST(Actuation, DamperDecaysVelocityExponentially) {
  Model m = slider(0, 20.0);  // time constant m/d = 0.1 s
  Data d(m);
  set_joint_coordinates(m, d, 0, {}, {1.0});
  for (int k = 0; k < 100; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_NEAR(d.v[0].x(), std::pow(1.0 + 20.0 * m.opt.timestep / 2.0, -100), 1e-12);
  EXPECT_NEAR(d.v[0].x(), std::exp(-1.0), 0.005);
}

// A pendulum held horizontal by a motor torque equal to gravity's torque m g l/2 stays there
// (to the 1e-6 rad a 10 000-step run accumulates from the tolerance).
TEST(Actuation, MotorTorqueHoldsAPendulum) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  Data d(m);
  set_joint_coordinates(m, d, 0, {M_PI / 2}, {});
  // gravity pulls the rod back towards −z: the holding torque about +x is +m g l/2
  d.joint_force[0](5) = 1.0 * 9.81 * 0.5;
  for (int k = 0; k < 1000; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  double q, qd;
  joint_coordinates(m, d, 0, &q, &qd);
  EXPECT_NEAR(q, M_PI / 2, 1e-6);
  // and half the torque lets it fall
  d.joint_force[0](5) *= 0.5;
  for (int k = 0; k < 50; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  joint_coordinates(m, d, 0, &q, &qd);
  EXPECT_LT(q, M_PI / 2 - 0.01);
}

// Actuation on constrained rows is ignored (only free rows take input), and external body
// forces act: a free body under a world force accelerates at F/m.
TEST(Actuation, BodyForcesAndConstrainedRows) {
  Model m = slider(0, 0);
  Data d(m);
  d.joint_force[0](0) = 100.0;  // constrained row: no effect
  d.body_force[0] = Vec3(4.0, 0, 0);
  for (int k = 0; k < 100; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_NEAR(d.v[0].x(), 4.0 / 2.0 * d.time, 1e-9);
  EXPECT_NEAR(d.x[0].y(), 0.0, 1e-12);
}

// Armature (MJCF `armature`, reflected rotor inertia) adds to the joint's inertia: a rod pendulum
// (I = m l²/3 about its end) with armature a = I swings √2 slower at small amplitude.
TEST(Actuation, ArmatureAddsJointInertia) {
  auto period = [](double armature) {
    Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.005);
    m.joints[0].armature[5] = armature;
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.05}, {});
    std::vector<double> crossings;
    double prev = 0.05;
    for (int k = 0; k < 2000; ++k) {
      const double t0 = d.time;
      EXPECT_EQ(step(m, d).status, StepStatus::Ok);
      double q, qd;
      joint_coordinates(m, d, 0, &q, &qd);
      if (prev < 0 && q >= 0) crossings.push_back(t0 + m.opt.timestep * (-prev) / (q - prev));
      prev = q;
    }
    EXPECT_GE(crossings.size(), 3u);
    return (crossings.back() - crossings.front()) / (crossings.size() - 1);
  };
  const double T0 = period(0.0), T1 = period(1.0 / 3.0);
  EXPECT_NEAR(T0 / (2 * M_PI * std::sqrt(2.0 / (3.0 * 9.81))), 1.0, 2e-3);  // small-angle period
  EXPECT_NEAR(T1 / T0, std::sqrt(2.0), 2e-3);
}

// A floating joint with nothing on its rows but actuation is no edge of the system graph
// (Workspace::passive): its row impulses are Δt·force whatever the body does. A constant force
// and torque on a free body in zero gravity: v = F t / m and the discrete angular momentum about
// the principal axis (I ω √(1 − (Δt ω / 2)²), docs/computation.md (16)) τ t, the row impulses
// exactly Δt·(F, τ); with a damper on one row the joint is an edge again and the same force
// drives the body against it.
TEST(Actuation, PassiveFloatingJointActsThroughItsImpulsesOnly) {
  Model m = block(Vec3(0.1, 0.2, 0.3), 0.01);
  m.add_joint(make_joint(m, JointType::Floating, kWorld, 0, Vec3::Zero()));
  Data d(m);
  EXPECT_TRUE(workspace(m, d).passive[0]);
  EXPECT_EQ(workspace(d).child_edge[0], -1);
  d.joint_force[0] << 3.0, 0, 0, 0, 0, 0.5;  // force along x, torque about z (joint frame = world)
  for (int k = 0; k < 100; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double t = d.time;
  EXPECT_NEAR(d.v[0].x(), 3.0 / 2.0 * t, 1e-9);
  EXPECT_NEAR(body_angular_momentum(m.bodies[0], d.q[0], d.w[0], m.opt.timestep).z(), 0.5 * t, 1e-9);
  EXPECT_NEAR(d.w[0].head<2>().norm(), 0.0, 1e-12);
  EXPECT_NEAR((d.joint_impulse[0] - m.opt.timestep * d.joint_force[0]).norm(), 0.0, 1e-15);
  // its coordinates follow: x = F t²/(2m) up to the integrator's first-step offset
  EXPECT_NEAR(d.x[0].x(), 3.0 * t * t / 4.0, 3.0 / 4.0 * m.opt.timestep * t + 1e-12);

  Model damped = m;
  damped.joints[0].damping[0] = 4.0;  // N·s/m along x: terminal speed F / c = 0.75 m/s
  Data e(damped);
  EXPECT_FALSE(workspace(damped, e).passive[0]);
  EXPECT_GE(workspace(e).child_edge[0], 0);
  e.joint_force[0] << 3.0, 0, 0, 0, 0, 0;
  for (int k = 0; k < 500; ++k) ASSERT_EQ(step(damped, e).status, StepStatus::Ok);
  EXPECT_NEAR(e.v[0].x(), 0.75 * (1 - std::exp(-4.0 / 2.0 * e.time)), 2e-3);
}

// The same damper set on the Model after its Data was made (a user tuning gains between runs):
// the next step sees it — the joint becomes a graph edge again — and the run is the one of a Data
// made with the damper; taken off again, the joint is passive again.
TEST(Actuation, DamperSetOnTheModelAfterTheDataIsApplied) {
  Model m = block(Vec3(0.1, 0.2, 0.3), 0.01);
  m.add_joint(make_joint(m, JointType::Floating, kWorld, 0, Vec3::Zero()));
  Data d(m);
  ASSERT_TRUE(workspace(m, d).passive[0]);
  m.joints[0].damping[0] = 4.0;
  Data fresh(m);
  for (Data* x : {&d, &fresh}) {
    x->joint_force[0] << 3.0, 0, 0, 0, 0, 0;
    for (int k = 0; k < 200; ++k) ASSERT_EQ(step(m, *x).status, StepStatus::Ok);
  }
  EXPECT_FALSE(workspace(d).passive[0]);
  EXPECT_EQ(d.v[0].x(), fresh.v[0].x());  // bitwise: the same graph, the same arithmetic
  EXPECT_NEAR(d.v[0].x(), 0.75 * (1 - std::exp(-4.0 / 2.0 * d.time)), 2e-3);
  m.joints[0].damping[0] = 0.0;
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_TRUE(workspace(d).passive[0]);
}

// ---- the model's actuators, driven by Data::ctrl (sim/actuation.hpp) -----------------------
namespace {
// The slider of `slider` with one actuator of `kind` on its row.
Model actuated_slider(Actuator::Kind kind, double gear, double kp, double kv) {
  Model m = slider(0.0, 0.0);
  Actuator a;
  a.name = "push";
  a.kind = kind;
  a.joint = 0;
  a.row = 2;
  a.gear = gear;
  a.kp = kp;
  a.kv = kv;
  m.actuators.push_back(a);
  return m;
}
}  // namespace

// A motor's command u acts as the row force gear·u: the same trajectory, to the last bit, as the
// force written into joint_force; and the two add up when both are given.
TEST(Actuation, MotorCommandIsTheRowForceTimesGear) {
  Model m = actuated_slider(Actuator::Kind::Motor, 2.0, 0, 0);
  Data a(m), b(m), c(m);
  ASSERT_EQ(a.ctrl.size(), 1u);
  a.ctrl[0] = 0.75;
  b.joint_force[0](2) = 1.5;
  c.ctrl[0] = 0.5;
  c.joint_force[0](2) = 0.5;
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(step(m, a).status, StepStatus::Ok);
    ASSERT_EQ(step(m, b).status, StepStatus::Ok);
    ASSERT_EQ(step(m, c).status, StepStatus::Ok);
  }
  EXPECT_EQ(a.x[0], b.x[0]);
  EXPECT_EQ(a.v[0], b.v[0]);
  EXPECT_DOUBLE_EQ(a.actuator_force[0], 0.75);
  // the integrator's x_n = a Δt² n(n+1)/2 for a = F/m = 1.5 N / 2 kg (the slider is along x)
  EXPECT_NEAR(a.x[0].x(), 0.75 * m.opt.timestep * m.opt.timestep * 300 * 301 / 2, 1e-14);
  EXPECT_NEAR(c.x[0].x(), a.x[0].x(), 1e-12);
  // commands and forces are limited
  m.actuators[0].ctrl_limited = true;
  m.actuators[0].ctrl_lower = -0.25;
  m.actuators[0].ctrl_upper = 0.25;
  Data d(m);
  d.ctrl[0] = 10.0;
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_DOUBLE_EQ(d.actuator_force[0], 0.25);
  m.actuators[0].force_limited = true;
  m.actuators[0].force_lower = -0.1;
  m.actuators[0].force_upper = 0.1;
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_DOUBLE_EQ(d.actuator_force[0], 0.1);
  // and switched off with the model's actuation
  m.actuation = false;
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_EQ(d.actuator_force[0], 0.0);
}

// A position servo f = kp (u − q) − kv q̇ on the 2 kg slider is a damped oscillator about u:
// critically damped with kv = 2√(kp m), it settles at u; a URDF-style effort limit on the row
// caps the actuators' sum (MuJoCo's actuatorfrcrange).
TEST(Actuation, PositionServoSettlesAtItsCommand) {
  const double kp = 200.0, mass = 2.0;
  Model m = actuated_slider(Actuator::Kind::Position, 1.0, kp, 2.0 * std::sqrt(kp * mass));
  Data d(m);
  d.ctrl[0] = 0.3;
  for (int k = 0; k < 3000; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_NEAR(coordinate(m, d), 0.3, 1e-6);
  EXPECT_NEAR(d.actuator_force[0], 0.0, 1e-4);
  // first step from rest at q = 0: f = kp·u = 60 N, capped at the row's effort of 5 N
  m.joints[0].effort[2] = 5.0;
  Data e(m);
  e.ctrl[0] = 0.3;
  ASSERT_EQ(step(m, e).status, StepStatus::Ok);
  EXPECT_DOUBLE_EQ(e.actuator_force[0], kp * 0.3);
  EXPECT_NEAR(e.joint_impulse[0](2), 5.0 * m.opt.timestep, 1e-12);  // the row impulse is Δt·(capped force)
  // a velocity servo f = kv (u − q̇) drives the slider at u
  Model v = actuated_slider(Actuator::Kind::Velocity, 1.0, 0.0, 50.0);
  Data dv(v);
  dv.ctrl[0] = -0.4;
  for (int k = 0; k < 2000; ++k) ASSERT_EQ(step(v, dv).status, StepStatus::Ok);
  EXPECT_NEAR(dv.v[0].x(), -0.4, 1e-6);
}

// A non-finite command is an error naming the actuator, not a NaN state.
TEST(Actuation, NonFiniteCommandIsRefused) {
  Model m = actuated_slider(Actuator::Kind::Motor, 1.0, 0, 0);
  Data d(m);
  d.ctrl[0] = std::nan("");
  try {
    step(m, d);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'push'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::isfinite(d.x[0].x()));
  EXPECT_EQ(validate_actuators(m), "");
  m.actuators[0].row = 5;  // a constrained row of a prismatic joint
  EXPECT_NE(validate_actuators(m).find("'push'"), std::string::npos);
}

// A stiff servo on a light slider (kp 2000, kv 200, gear 2 on 1 g: kv·gear²·Δt/m = 800, far beyond
// the explicit damper's bound of 2): its velocity term taken at the end of the step, the slider
// follows the slow mode of m q̈ = gear·(kp (u − gear q) − kv gear q̇), q = (u/gear)(1 − e^{−kp t/kv}),
// within 1 % of the remaining distance at t = 0.1 s (the implicit step's first-order error
// kp Δt/(2 kv) = 0.5 % plus the neglected mass m/(kv gear² Δt) = 0.1 %).
TEST(Actuation, StiffServoOnALightLinkIsStableAndFollowsItsSlowMode) {
  const double kp = 2000, kv = 200, gear = 2, u = 0.1;
  Model m = actuated_slider(Actuator::Kind::Position, gear, kp, kv);
  m.bodies[0].mass = 0.001;
  m.bodies[0].inertia = inertia_box(0.001, Vec3(0.1, 0.1, 0.1));
  Data d(m);
  d.ctrl[0] = u;
  for (int k = 0; k < 100; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double remaining = u / gear * std::exp(-kp * d.time / kv);
  EXPECT_NEAR(u / gear - coordinate(m, d), remaining, 0.01 * remaining);
  // the force at the start of the step is reported, and the row's implicit damper is kv·gear²
  EXPECT_DOUBLE_EQ(d.row_damping[0](2), kv * gear * gear);
  // a force saturated at the start of the step stays explicit: the first step from rest pushes
  // with exactly the force limit (kp·u = 200 N clamped to 1 N)
  m.actuators[0].force_limited = true;
  m.actuators[0].force_lower = -1.0;
  m.actuators[0].force_upper = 1.0;
  Data e(m);
  e.ctrl[0] = u;
  ASSERT_EQ(step(m, e).status, StepStatus::Ok);
  EXPECT_EQ(e.row_damping[0](2), 0.0);
  EXPECT_NEAR(e.joint_impulse[0](2), gear * 1.0 * m.opt.timestep, 1e-12);
}
