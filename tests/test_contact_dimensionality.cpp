// MJCF's contact dimensionality and priority (condim 1, 3, 4 and 6; priority), and torsional
// friction (docs/computation.md (117)), against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/load.hpp"
#include "sim/derivatives/transition.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

Model load_xml(const std::string& name, const std::string& xml) {
  const std::string path = (std::filesystem::temp_directory_path() / ("maxsim_condim_" + name + ".xml")).string();
  std::ofstream(path) << xml;
  return load_model(path);
}

// A 1 kg ball of radius 0.1 m (I = 0.004 kg·m²) resting on a plane, spinning about the vertical:
// the plane's and the ball's geom attributes are the test's.
std::string spinning_ball(const std::string& plane, const std::string& ball) {
  return R"(<mujoco><option timestep="0.001"/><worldbody><geom name="floor" type="plane" size="1 1 0.1" )" + plane +
         R"(/><body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1" )" + ball +
         R"(/></body></worldbody></mujoco>)";
}

// The ball's spin rate about z after `steps` steps from 10 rad/s (and where its centre went).
double spin_after(const Model& m, int steps, double* drift = nullptr) {
  Data d(m);
  enable_contacts(m, d);
  set_qpos_qvel(m, d, get_qpos(m, d), std::vector<double>{0, 0, 0, 0, 0, 10});
  for (int n = 0; n < steps; ++n) EXPECT_EQ(step(m, d).status, StepStatus::Ok) << n;
  if (drift) *drift = std::hypot(d.x[0].x(), d.x[0].y());
  return get_qvel(m, d)[5];
}

}  // namespace

// Torsional friction μ_τ = 0.02 m (condim 4 on the plane, the larger of the two) brakes the spin
// by μ_τ m g / I = 49.05 rad/s² — every step's impulse is μ_τ γ while it spins, exactly linear —
// until it stops at t = 0.2039 s and stays stopped (a held spin does not creep). Without
// torsional friction (condim 3) a point contact on the spin axis leaves the spin alone. Each
// step's torque falls short of its bound by at most the complementarity tolerance over the spin
// rate (1e-8 / 5 rad/s against μ_τ γ = 2e-4 N·m·s: 1e-5 relative): 1e-4 of the change.
TEST(ContactDimensionality, TorsionalFrictionBrakesASpinningBallLinearly) {
  const Model m4 = load_xml("spin4", spinning_ball(R"(condim="4" friction="1 0.02 0.0001")", ""));
  double drift = 0;
  const double at_100 = spin_after(m4, 100, &drift);
  const double expected = 10 - 0.02 * 9.81 / 0.004 * 0.1;
  EXPECT_NEAR(at_100, expected, 1e-4 * (10 - expected));
  EXPECT_LT(drift, 1e-9);  // (a pure spin: no sideways push)
  EXPECT_LT(std::abs(spin_after(m4, 300)), 1e-6);  // stopped at 0.204 s and held since
  // condim 6 reads as 4 (rolling friction is not modelled)
  const Model m6 = load_xml("spin6", spinning_ball(R"(condim="6" friction="1 0.02 0.0001")", ""));
  EXPECT_NEAR(spin_after(m6, 100), expected, 1e-4 * (10 - expected));
  const Model m3 = load_xml("spin3", spinning_ball(R"(condim="3" friction="1 0.02 0.0001")", ""));
  EXPECT_NEAR(spin_after(m3, 100), 10.0, 1e-9);
}

// The derivatives of a step through a spinning torsional contact (the moment −μ_τ γ sign ω_n under
// every perturbation: a smooth map) match central differences: the largest entry, ∂ω_z'/∂z =
// μ_τ (∂γ/∂z) / I = 5 000 /(m s) (a deeper start pushes out harder and brakes harder), 4 999.6
// against 5 000.1 (1e-4, the differences' own error over the gap's eps); asserted 1e-3.
TEST(ContactDimensionality, DerivativesThroughASpinningContactMatchFiniteDifferences) {
  const Model m = load_xml("spin_d", spinning_ball(R"(condim="4" friction="1 0.02 0.0001")", ""));
  Data d(m);
  enable_contacts(m, d);
  set_qpos_qvel(m, d, get_qpos(m, d), std::vector<double>{0, 0, 0, 0, 0, 10});
  for (int n = 0; n < 20; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const TransitionDerivatives D = transition_derivatives(m, d);
  const TransitionDerivatives F = transition_fd(m, d);
  EXPECT_TRUE(D.implicit);
  const double scale = F.A.cwiseAbs().maxCoeff();
  EXPECT_LT((D.A - F.A).cwiseAbs().maxCoeff(), 1e-3 * scale);
  // the spin's row: ∂ω_z'/∂ω_z = 1 while it spins (the braking does not depend on the rate)
  EXPECT_NEAR(D.A(11, 11), 1.0, 1e-6);
}

// MuJoCo's mixing: equal priorities take the larger condim and each coefficient's max; a higher
// priority's geom decides alone. The ball with priority 1 and condim 3 turns the plane's condim 4
// off; with priority 1, condim 4 and torsion 0.01 it brakes at half the rate above (the plane's
// 0.02 is not the max then).
TEST(ContactDimensionality, PriorityChoosesTheGeomWhoseFrictionCounts) {
  const Model off = load_xml("prio3", spinning_ball(R"(condim="4" friction="1 0.02 0.0001")", R"(priority="1")"));
  EXPECT_NEAR(spin_after(off, 100), 10.0, 1e-9);
  const Model half =
      load_xml("prio4", spinning_ball(R"(condim="4" friction="1 0.02 0.0001")", R"(priority="1" condim="4" friction="1 0.01")"));
  const double expected = 10 - 0.01 * 9.81 / 0.004 * 0.1;
  EXPECT_NEAR(spin_after(half, 100), expected, 1e-4 * (10 - expected));
  const Model max = load_xml("max4", spinning_ball(R"(condim="4" friction="1 0.02 0.0001")", R"(condim="4" friction="1 0.01")"));
  EXPECT_NEAR(spin_after(max, 100), 10 - 0.02 * 9.81 / 0.004 * 0.1, 1e-4 * 4.905);
}

// condim 1 is frictionless only when it is the contact's: a box pushed along a plane at 1 m/s
// keeps its speed when both geoms say condim 1 (a frictionless contact), and stops within
// v/(μ g) = 0.102 s when the plane says 3 (MuJoCo takes the larger condim), as with no condim.
TEST(ContactDimensionality, Condim1IsFrictionlessWhenBothGeomsSayIt) {
  auto slide = [](const std::string& plane_condim) {
    const Model m = load_xml("slide" + plane_condim,
                             R"(<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="2 2 0.1" condim=")" +
                                 plane_condim + R"("/><body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1" condim="1"/></body></worldbody></mujoco>)");
    Data d(m);
    enable_contacts(m, d);
    set_qpos_qvel(m, d, get_qpos(m, d), std::vector<double>{1, 0, 0, 0, 0, 0});
    for (int n = 0; n < 250; ++n) EXPECT_EQ(step(m, d).status, StepStatus::Ok) << n;
    return get_qvel(m, d)[0];
  };
  EXPECT_NEAR(slide("1"), 1.0, 1e-9);
  EXPECT_NEAR(slide("3"), 0.0, 1e-6);
}

// condim and friction values the loader refuses, with the file's line.
TEST(ContactDimensionality, BadCondimAndFrictionAreRefused) {
  for (const std::string& bad : {std::string(R"(condim="2")"), std::string(R"(friction="1 -0.1")")}) {
    try {
      load_xml("bad", "<mujoco><worldbody>\n<geom type=\"plane\" size=\"1 1 0.1\" " + bad + "/></worldbody></mujoco>");
      FAIL() << bad << " accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(":2"), std::string::npos) << e.what();
    }
  }
}
