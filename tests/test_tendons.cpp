// Fixed tendons (spring, armature, actuators, limits) and exact couplings between joint rows,
// against closed forms: docs/computation.md (82)–(87).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "mechanisms/builders.hpp"
#include "sim/constraints/tendon.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/projection.hpp"
#include "sim/solver/workspace.hpp"

using namespace maxsim;

namespace {

// Two rods in zero gravity, each on its own hinge about world z through its centre of mass (so a
// hinge's inertia is the rod's I_zz): joint "h1" (I1 = 0.02) and "h2" (I2 = 0.05).
Model two_hinges(double dt) {
  Model m;
  m.opt.gravity.setZero();
  m.opt.timestep = dt;
  const double inertia[2] = {0.02, 0.05};
  const char* bodies[2] = {"rod1", "rod2"};
  const char* joints[2] = {"h1", "h2"};
  for (int i = 0; i < 2; ++i) {
    Body b;
    b.name = bodies[i];
    b.mass = 1.0;
    b.inertia = Vec3(0.04, 0.04, inertia[i]).asDiagonal();
    b.x0 = Vec3(i, 0, 0);
    const int body = m.add_body(b);
    m.add_joint(make_joint(m, JointType::Revolute, kWorld, body, b.x0, Vec3::UnitZ(), joints[i]));
  }
  return m;
}

Tendon fixed_tendon(double c1, double c2) {
  Tendon t;
  t.name.assign(1, 't');
  t.joints = {TendonJointTerm{0, 5, c1}, TendonJointTerm{1, 5, c2}};
  return t;
}

double angle(const Model& m, const Data& d, int j) { return row_coordinate(m, d, j, 5).q; }

// two_hinges with the tendon L = q1 − 0.5 q2 limited to [lower, upper] and a motor "drive" on h1.
Model limited_tendon(double dt, double lower, double upper) {
  Model m = two_hinges(dt);
  Tendon t = fixed_tendon(1.0, -0.5);
  t.limited = true;
  t.range_lower = lower;
  t.range_upper = upper;
  m.tendons.push_back(t);
  Actuator a;
  a.name = "drive";
  a.joint = 0;
  a.row = 5;
  m.actuators.push_back(a);
  return m;
}

// Angular frequency of L(t) from its zero crossings (linear interpolation) over the run.
double measured_frequency(const std::vector<double>& L, double dt) {
  std::vector<double> crossings;
  for (size_t n = 1; n < L.size(); ++n)
    if ((L[n - 1] > 0) != (L[n] > 0)) crossings.push_back(dt * (n - 1 + L[n - 1] / (L[n - 1] - L[n])));
  EXPECT_GE(crossings.size(), 4u);
  const double half_period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  return M_PI / half_period;
}

}  // namespace

// L = c1 q1 + c2 q2 with a spring k on L: L̈ = −k (c1²/I1 + c2²/I2) L (the other mode is free), so L
// oscillates at ω² = k s, s = cᵀM⁻¹c; a tendon armature a adds a·c cᵀ to the mass matrix, giving
// ω² = k s / (1 + a s) (Sherman–Morrison). The step is Störmer–Verlet on this linear system: its
// frequency is off by (ωΔt)²/24 ≈ 4e-6 relative here, so 1e-4 tests the rows to well below any
// error of a factor.
TEST(Tendons, FixedTendonSpringOscillatesAtTheClosedFormFrequency) {
  for (const double armature : {0.0, 0.03}) {
    const double dt = 1e-3, k = 2.0, c1 = 1.0, c2 = -0.5;
    Model m = two_hinges(dt);
    Tendon t = fixed_tendon(c1, c2);
    t.stiffness = k;
    t.armature = armature;
    m.tendons.push_back(t);
    ASSERT_EQ(validate_model(m), "");
    Data d(m);
    set_coordinates(m, d, {{0.1}, {0.0}}, {{}, {}});
    std::vector<double> L;
    for (int n = 0; n < 4000; ++n) {
      const StepReport r = step(m, d);
      ASSERT_EQ(r.status, StepStatus::Ok) << n;
      L.push_back(c1 * angle(m, d, 0) + c2 * angle(m, d, 1));
      ASSERT_NEAR(d.tendon_length[0], L.back(), 1e-9);
    }
    const double s = c1 * c1 / 0.02 + c2 * c2 / 0.05;
    const double omega = std::sqrt(k * s / (1 + armature * s));
    EXPECT_NEAR(measured_frequency(L, dt) / omega, 1.0, 1e-4) << "armature " << armature;
    // without armature the spring's impulse over a step is −Δt k L at its start (z2)
    if (armature == 0) {
      EXPECT_NEAR(d.tendon_impulse[0], -dt * k * L[L.size() - 2], 1e-9);
    }
  }
}

// A motor on the tendon pushes the joints with gear·f·c_i: from rest, the rates follow Störmer–Verlet's
// q_n = a Δt² n(n+1)/2 for the constant acceleration a = gear f c1 / I1 (the angle per step is
// 2 asin(ωΔt/2), off by (ωΔt)²/24 < 1e-7 relative at these rates: tolerance 1e-6).
TEST(Tendons, MotorOnATendonDrivesItsJointsByTheirCoefficients) {
  const double dt = 1e-3, gear = 2.0, f = 0.03, c1 = 1.0, c2 = -0.5;
  Model m = two_hinges(dt);
  m.tendons.push_back(fixed_tendon(c1, c2));
  Actuator a;
  a.name = "pull";
  a.tendon = 0;
  a.gear = gear;
  m.actuators.push_back(a);
  ASSERT_EQ(validate_model(m), "");
  Data d(m);
  d.ctrl[0] = f;
  const int steps = 500;
  for (int n = 0; n < steps; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double a1 = gear * f * c1 / 0.02, a2 = gear * f * c2 / 0.05;
  const double shape = dt * dt * steps * (steps + 1) / 2.0;
  EXPECT_NEAR(angle(m, d, 0), a1 * shape, 1e-6 * a1 * shape);
  EXPECT_NEAR(angle(m, d, 1), a2 * shape, 1e-6 * std::abs(a2 * shape));
  EXPECT_DOUBLE_EQ(d.tendon_force[0], gear * f);
}

// A position servo on a tendon acts at the new state ((88)): kp Δt²/I = 50 and kv Δt/I = 25, where
// forces from the start of the step diverge within a few steps, it settles on its command.
TEST(Tendons, StiffServoOnATendonIsStableAtALargeStep) {
  const double dt = 0.01;
  Model m = two_hinges(dt);
  Tendon t;
  t.name.assign(1, 't');
  t.joints = {TendonJointTerm{0, 5, 1.0}};
  m.tendons.push_back(t);
  Actuator a;
  a.name = "servo";
  a.kind = Actuator::Kind::Position;
  a.tendon = 0;
  a.kp = 1e4;
  a.kv = 50;
  m.actuators.push_back(a);
  Data d(m);
  d.ctrl[0] = 0.3;
  double highest = 0;
  for (int n = 0; n < 200; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    highest = std::max(highest, angle(m, d, 0));
  }
  EXPECT_NEAR(angle(m, d, 0), 0.3, 1e-6);
  EXPECT_LT(highest, 0.3 + 1e-3);  // overdamped at this step: no overshoot
  EXPECT_NEAR(d.tendon_impulse[0], 0.0, 1e-6);  // at rest on its command the servo pulls nothing
}

// A limited tendon L = q1 − 0.5 q2 driven into its upper bound by a motor on h1 stops there: L never
// exceeds the bound by more than the solver's tolerance, and reaches it.
TEST(Tendons, TendonLimitHolds) {
  const double dt = 2e-3, upper = 0.15;
  const Model m = limited_tendon(dt, -0.1, upper);
  ASSERT_EQ(validate_model(m), "");
  Data d(m);
  d.ctrl[0] = 0.05;
  double highest = -1;
  for (int n = 0; n < 1000; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    const double L = angle(m, d, 0) - 0.5 * angle(m, d, 1);
    highest = std::max(highest, L);
  }
  EXPECT_LT(highest, upper + 1e-6);
  EXPECT_GT(highest, upper - 1e-4);
  // pressed against the bound, the tendon carries the motor: h2 is pulled along (c2 < 0: forward)
  EXPECT_GT(angle(m, d, 1), 0.05);
}

// A tendon that starts below its range (L = q1 − 0.5 q2 = 0, lower bound 0.1) with a motor pulling it
// further down (50 N·m on h1: 2 500 rad/s² against the bound's ~10 rad/s per step, so it stays
// pressed): with ModelOptions::limit_recovery_time τ each step closes the fraction f = Δt/τ of
// the violation, L_k = 0.1 − 0.1 (1 − f)^k while it is pressed (the limit's row held to the solver's
// tolerance); held (τ = ∞) it stays at 0 within the same tolerance.
TEST(Tendons, TendonLimitBeyondItsBoundRecoversAtItsRate) {
  for (const double tau : {0.02, std::numeric_limits<double>::infinity()}) {
    const double dt = 2e-3, lower = 0.1;
    Model m = limited_tendon(dt, lower, 0.5);
    m.opt.limit_recovery_time = tau;
    ASSERT_EQ(validate_model(m), "");
    Data d(m);
    d.ctrl[0] = -50;
    const double f = dt / tau;
    for (int k = 1; k <= 20; ++k) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok) << k;
      const double L = angle(m, d, 0) - 0.5 * angle(m, d, 1);
      EXPECT_NEAR(L, lower - lower * std::pow(1 - f, k), 1e-8) << "tau " << tau << " step " << k;
    }
  }
}

// <equality joint> / <mimic>: h2 = 0.1 + 2 h1 − 0.5 h1², held exactly while h1 is driven: from a
// start that violates it (projected first) and through 2 s of a sinusoidal torque on h1.
TEST(Tendons, JointCouplingIsHeldToTheSolverTolerance) {
  const double dt = 2e-3;
  Model m = two_hinges(dt);
  Coupling c;
  c.name = "mimic";
  c.a = 1;
  c.a_row = 5;
  c.b = 0;
  c.b_row = 5;
  c.polycoef = {0.1, 2.0, -0.5, 0, 0};
  m.couplings.push_back(c);
  ASSERT_EQ(validate_model(m), "");
  Data d(m);
  ASSERT_GT(std::abs(coupling_violation(m, d, 0)), 0.05);
  ASSERT_TRUE(project_state(m, d).converged);
  EXPECT_LT(std::abs(coupling_violation(m, d, 0)), 1e-12);
  d.controller = [](const Model&, Data& data) { data.joint_force[0](5) = 0.2 * std::sin(3.0 * data.time); };
  double worst = 0, reach = 0;
  for (int n = 0; n < 1000; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    const double q1 = angle(m, d, 0), q2 = angle(m, d, 1);
    worst = std::max(worst, std::abs(q2 - (0.1 + 2 * q1 - 0.5 * q1 * q1)));
    reach = std::max(reach, std::abs(q1));
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(reach, 0.1);  // (it moved)
}

// A coupling between tendons: L_a − L_a0 = 0.5 (L_b − L_b0) with L_a = h2, L_b = h1.
TEST(Tendons, TendonCouplingIsHeld) {
  Model m = two_hinges(2e-3);
  Tendon ta;
  ta.name = "ta";
  ta.joints = {TendonJointTerm{1, 5, 1.0}};
  Tendon tb;
  tb.name = "tb";
  tb.joints = {TendonJointTerm{0, 5, 1.0}};
  m.tendons = {ta, tb};
  Coupling c;
  c.kind = Coupling::Kind::Tendon;
  c.a = 0;
  c.b = 1;
  c.polycoef = {0, 0.5, 0, 0, 0};
  m.couplings.push_back(c);
  ASSERT_EQ(validate_model(m), "");
  Data d(m);
  d.joint_force[0](5) = 0.01;
  for (int n = 0; n < 500; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_GT(angle(m, d, 0), 0.05);
  EXPECT_NEAR(angle(m, d, 1), 0.5 * angle(m, d, 0), 1e-9);
}

// Dry friction F on a tendon L = q1 + q2 (MJCF tendon frictionloss) with a torque τ on h1 alone:
// while L sticks, h2 is dragged along by f = −τ I2/(I1 + I2), which the friction can hold while
// |f| ≤ F, i.e. τ ≤ F (1 + I1/I2) = 0.7 N·m; above that L slides and each joint feels ∓F. From rest
// both are constant accelerations, which the step follows exactly (q_n = a Δt² n(n+1)/2, as for
// the motor above): sticking at τ = 0.6, q1 = −q2 = ½ τ (2/7)/I1 t²; sliding at τ = 0.9,
// q1 = ½ (τ − F)/I1 t², q2 = −½ F/I2 t². A held tendon creeps at most by the interior point's
// complementarity tolerance over the gap to its cone's edge: 1e-8 over 7e-5 N·m·s, 1e-4 rad/s,
// so L stays within 1e-6 rad over the 0.2 s only if it converges better than that, which the
// joints' dry friction does too (JointFriction.StaysPutOrDecaysLinearly). (At the end h1 turns
// at 4 rad/s: the rotation per step is off by (ωΔt)²/24 < 1e-6 relative.)
TEST(Tendons, TendonFrictionSticksBelowItsBreakawayAndSlidesAbove) {
  const double dt = 1e-3, F = 0.5, I1 = 0.02, I2 = 0.05;
  const int steps = 200;
  const double shape = dt * dt * steps * (steps + 1) / 2.0;
  for (const double tau : {0.6, 0.9}) {
    Model m = two_hinges(dt);
    Tendon t = fixed_tendon(1, 1);
    t.frictionloss = F;
    m.tendons.push_back(t);
    ASSERT_EQ(validate_model(m), "");
    Data d(m);
    d.joint_force[0](5) = tau;
    for (int n = 0; n < steps; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << tau << " " << n;
    // the friction is folded into the tendon's node: no node of its own
    EXPECT_EQ(workspace(d).layout.nodes, 2 + 2 + 1);
    const double q1 = angle(m, d, 0), q2 = angle(m, d, 1);
    if (tau < F * (1 + I1 / I2)) {
      const double a1 = tau * (1 - I2 / (I1 + I2)) / I1;
      EXPECT_NEAR(q1, a1 * shape, 1e-6 * a1 * shape);
      EXPECT_LT(std::abs(q1 + q2), 1e-6);
      // the tendon's impulse over the last step is the drag on h2: I2 q̈2 Δt = −τ I2/(I1 + I2) Δt
      EXPECT_NEAR(d.tendon_impulse[0], -tau * I2 / (I1 + I2) * dt, 1e-9);
    } else {
      // (the sliding impulse may fall short of F Δt by the complementarity tolerance over the slip
      // rate, 1e-8 / (10 rad/s² · t): up to 2e-3 relative in the first step; the solves converge
      // further, 1e-5 of the path measured: 1e-4)
      EXPECT_NEAR(q1, (tau - F) / I1 * shape, 1e-4 * (tau - F) / I1 * shape);
      EXPECT_NEAR(q2, -F / I2 * shape, 1e-4 * F / I2 * shape);
      EXPECT_NEAR(std::abs(d.tendon_impulse[0]), F * dt, 1e-9);
    }
  }
}

// A tendon on one joint row with coefficient c and dry friction F acts on that row as the row's
// own dry friction |c| F: a six-link pendulum swinging under gravity, whose third hinge sticks
// and slips, runs the same with either. The two solves eliminate the cone into different rows and
// stop at different iterates within the tolerances (a held row's rate converges to 1e-8/Δt²,
// ~1e-6 rad per sticking turn, as JointFriction.ProximalRateChangesThePathNotTheAnswer says): 2e-5
// rad over 2 s and ~40 held steps, against 0.4 rad between either and the frictionless chain.
TEST(Tendons, SingleJointTendonFrictionEqualsJointFriction) {
  const double c = -2.0, F = 0.05;
  Model with_joint = make_pendulum_chain(6, JointType::Revolute, 0.3, 0.5, 0.0, 2e-3);
  Model with_tendon = with_joint;
  with_joint.joints[2].friction[5] = std::abs(c) * F;
  Tendon t;
  t.name.assign(1, 't');
  t.joints = {TendonJointTerm{2, 5, c}};
  t.frictionloss = F;
  with_tendon.tendons.push_back(t);
  const Model free_model = make_pendulum_chain(6, JointType::Revolute, 0.3, 0.5, 0.0, 2e-3);
  Data a(with_joint), b(with_tendon), free(free_model);
  const std::vector<std::vector<double>> q0 = {{0.4}, {-0.3}, {0.5}, {0.2}, {-0.6}, {0.1}};
  set_coordinates(with_joint, a, q0, std::vector<std::vector<double>>(6));
  set_coordinates(with_tendon, b, q0, std::vector<std::vector<double>>(6));
  set_coordinates(free_model, free, q0, std::vector<std::vector<double>>(6));
  double worst = 0, apart = 0;
  int held = 0;
  double previous = angle(with_tendon, b, 2);
  for (int n = 0; n < 1000; ++n) {
    ASSERT_EQ(step(with_joint, a).status, StepStatus::Ok) << n;
    ASSERT_EQ(step(with_tendon, b).status, StepStatus::Ok) << n;
    ASSERT_EQ(step(free_model, free).status, StepStatus::Ok) << n;
    for (int j = 0; j < 6; ++j) worst = std::max(worst, std::abs(angle(with_joint, a, j) - angle(with_tendon, b, j)));
    apart = std::max(apart, std::abs(angle(free_model, free, 2) - angle(with_tendon, b, 2)));
    const double now = angle(with_tendon, b, 2);
    if (std::abs(now - previous) < 1e-7) ++held;
    previous = now;
  }
  EXPECT_LT(worst, 2e-5);
  EXPECT_GT(held, 20);     // the friction held the hinge for a while …
  EXPECT_GT(apart, 0.05);  // … and the run differs from the frictionless one
}

TEST(Tendons, BadTendonsAreRefusedByName) {
  Model m = two_hinges(1e-3);
  Tendon t = fixed_tendon(1, 1);
  t.joints[0].row = 3;  // a constrained row of the hinge
  m.tendons.push_back(t);
  EXPECT_NE(validate_model(m).find("tendon 't'"), std::string::npos);
  m.tendons[0] = fixed_tendon(1, 1);
  Coupling c;
  c.name = "c";
  c.a = 0;
  c.a_row = 5;
  c.b = 7;
  c.b_row = 5;
  m.couplings.push_back(c);
  EXPECT_NE(validate_model(m).find("coupling 'c'"), std::string::npos);
}

TEST(Tendons, EnergyMomentumIntegratorRefusesTendons) {
  Model m = two_hinges(1e-3);
  m.tendons.push_back(fixed_tendon(1, 1));
  m.opt.integrator = Integrator::EnergyMomentum;
  Data d(m);
  EXPECT_EQ(step(m, d).status, StepStatus::Failed);
  EXPECT_NE(integrator_support(m, d).find("tendons"), std::string::npos);
}

// A tendon on one joint row with coefficient c is that row's own spring and damper scaled by c²: a
// six-link pendulum swinging under gravity runs the same with either, to the solver's tolerance.
TEST(Tendons, SingleJointTendonEqualsAJointSpringAndDamper) {
  const double c = 2.0, k = 3.0, damping = 0.2;
  Model with_joint = make_pendulum_chain(6, JointType::Revolute, 0.3, 0.5, 0.0, 2e-3);
  Model with_tendon = with_joint;
  with_joint.joints[2].stiffness[5] = c * c * k;
  with_joint.joints[2].damping[5] = c * c * damping;
  Tendon t;
  t.name.assign(1, 't');
  t.joints = {TendonJointTerm{2, 5, c}};
  t.stiffness = k;
  t.damping = damping;
  with_tendon.tendons.push_back(t);
  Data a(with_joint), b(with_tendon);
  const std::vector<std::vector<double>> q0 = {{0.4}, {-0.3}, {0.5}, {0.2}, {-0.6}, {0.1}};
  set_coordinates(with_joint, a, q0, std::vector<std::vector<double>>(6));
  set_coordinates(with_tendon, b, q0, std::vector<std::vector<double>>(6));
  double worst = 0;
  for (int n = 0; n < 1000; ++n) {
    ASSERT_EQ(step(with_joint, a).status, StepStatus::Ok);
    ASSERT_EQ(step(with_tendon, b).status, StepStatus::Ok);
    for (int j = 0; j < 6; ++j) worst = std::max(worst, std::abs(angle(with_joint, a, j) - angle(with_tendon, b, j)));
  }
  EXPECT_LT(worst, 1e-7);
  EXPECT_GT(std::abs(angle(with_tendon, b, 2) - 0.5), 0.1);  // (it moved)
}

// A spring tendon over all six hinges of a chain (one graph node touching seven bodies: the LDU's
// fill-in) keeps the energy of the conservative system — gravity and the tendon's ½ k L² — to the
// variational integrator's bounded error, second order in Δt: halving the step divides the largest
// deviation by four (a row inconsistent with the potential would leave O(Δt) or O(1)), and the
// second second adds nothing (no drift). The energy pairs the kinetic energy of the interval
// [t1, t2] with the potentials' mean over its ends (potential_energy lags gravity the same way).
TEST(Tendons, SpringTendonAcrossAChainConservesEnergy) {
  double deviation[2];
  for (int level = 0; level < 2; ++level) {
    const double dt = level == 0 ? 1e-3 : 5e-4, k = 20.0;
    Model m = make_pendulum_chain(6, JointType::Revolute, 0.3, 0.5, 0.0, dt);
    Tendon t;
    t.name.assign(1, 't');
    for (int j = 0; j < 6; ++j) t.joints.push_back(TendonJointTerm{j, 5, j % 2 ? -0.5 : 1.0});
    t.stiffness = k;
    m.tendons.push_back(t);
    Data d(m);
    set_coordinates(m, d, {{0.4}, {-0.3}, {0.5}, {0.2}, {-0.6}, {0.1}}, std::vector<std::vector<double>>(6));
    double previous = tendon_length(m, d, 0);
    const double e0 = kinetic_energy(m, d) + potential_energy(m, d);
    double worst = 0, first_half = 0;
    const int steps = static_cast<int>(2.0 / dt + 0.5);
    for (int n = 0; n < steps; ++n) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      const double L = d.tendon_length[0];
      const double e = kinetic_energy(m, d) + potential_energy(m, d) - 0.5 * k * L * L + 0.25 * k * (L * L + previous * previous);
      previous = L;
      worst = std::max(worst, std::abs(e - e0));
      if (n == steps / 2) first_half = worst;
    }
    EXPECT_LT(worst, 1.1 * first_half + 1e-9) << dt;  // no drift
    deviation[level] = worst;
  }
  EXPECT_LT(deviation[0], 0.05);  // of an energy of ~23 J
  EXPECT_NEAR(deviation[1] / deviation[0], 0.25, 0.05);
}

// A spatial tendon between a world site and a site on a 2 kg slider along x: L = 1 + q, so a
// spring k with springlength 0.8 holds the slider at q = −0.2 and it oscillates about it at
// ω = √(k/m) — the tendon node over the spatial length's gradient (sim/tendon/spatial.hpp).
// Skipped while the path geometry is the placeholder that refuses spatial tendons.
TEST(Tendons, SpatialTendonSpringOnASlider) {
  const double dt = 1e-3, k = 32.0, mass = 2.0;
  Model m;
  m.opt.gravity.setZero();
  m.opt.timestep = dt;
  Body b;
  b.name = "slider";
  b.mass = mass;
  b.inertia = Vec3(0.1, 0.1, 0.1).asDiagonal();
  const int body = m.add_body(b);
  m.add_joint(make_joint(m, JointType::Prismatic, kWorld, body, Vec3::Zero(), Vec3::UnitX(), "x"));
  Site anchor, hook;
  anchor.name = "anchor";
  anchor.pos = Vec3(-1, 0, 0);
  hook.name = "hook";
  hook.body = body;
  m.sites = {anchor, hook};
  Tendon t;
  t.name = "cord";
  t.kind = Tendon::Kind::Spatial;
  TendonPathElement first, second;
  first.site = 0;
  second.site = 1;
  t.path = {first, second};
  t.stiffness = k;
  t.spring_from_zero = false;
  t.spring_lower = t.spring_upper = 0.8;
  m.tendons.push_back(t);
  ASSERT_EQ(validate_model(m), "");
  Data d(m);
  try {
    EXPECT_NEAR(tendon_zero_length(m, 0), 1.0, 1e-12);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("need sim/tendon/spatial.cpp") != std::string::npos) GTEST_SKIP() << e.what();
    throw;
  }
  std::vector<double> offset;
  for (int n = 0; n < 4000; ++n) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    offset.push_back(row_coordinate(m, d, 0, 2).q + 0.2);  // from the equilibrium q = −0.2
    ASSERT_NEAR(d.tendon_length[0], 1.0 + row_coordinate(m, d, 0, 2).q, 1e-9);
  }
  EXPECT_NEAR(measured_frequency(offset, dt) / std::sqrt(k / mass), 1.0, 1e-4);
}
