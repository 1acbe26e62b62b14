// Finite-difference transition derivatives (sim/derivatives/transition.hpp): a pendulum's against
// the linearized variational step, a free body's exact free flight, forward against central.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/load.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

Model load_xml(const std::string& name, const std::string& xml) {
  const std::string path = (std::filesystem::temp_directory_path() / ("maxsim_transition_" + name + ".xml")).string();
  std::ofstream(path) << xml;
  return load_model(path);
}

// A 2 kg point-like bob 0.8 m below a hinge about y, a motor on the hinge; no contacts.
const char* kPendulum = R"(<mujoco model="pendulum"><option timestep="0.001"><flag contact="disable"/></option>
  <worldbody><body name="bob" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0"/>
    <geom type="sphere" size="0.01" pos="0 0 -0.8" mass="2"/></body></worldbody>
  <actuator><motor name="m" joint="hinge"/></actuator></mujoco>)";

}  // namespace

// At the bottom, at rest: the variational step v' = v − Δt (g/L) sin q + Δt τ/I, q' = q + Δt v'
// linearizes to ∂v'/∂q = −Δt g/L, ∂v'/∂v = 1, ∂q'/∂q = 1 − Δt² g/L, ∂q'/∂v = Δt, ∂v'/∂u = Δt/I,
// ∂q'/∂u = Δt²/I (I = m L² + the sphere's own 2/5 m r²). Within 1e-4 relative (finite-difference
// and the step's own O(Δt²) details are far below).
TEST(Transition, PendulumMatchesTheLinearizedStep) {
  const Model m = load_xml("pendulum", kPendulum);
  Data d(m);
  const TransitionDerivatives D = transition_fd(m, d);
  ASSERT_EQ(D.A.rows(), 2);
  ASSERT_EQ(D.B.cols(), 1);
  const double dt = 0.001, g = 9.81, L = 0.8, I = 2 * L * L + 0.4 * 2 * 0.01 * 0.01;
  EXPECT_NEAR(D.A(1, 0), -dt * g / L, 1e-4 * dt * g / L);
  EXPECT_NEAR(D.A(1, 1), 1.0, 1e-6);
  EXPECT_NEAR(D.A(0, 0), 1 - dt * dt * g / L, 1e-8);
  EXPECT_NEAR(D.A(0, 1), dt, 1e-4 * dt);
  EXPECT_NEAR(D.B(1, 0), dt / I, 1e-4 * dt / I);
  EXPECT_NEAR(D.B(0, 0), dt * dt / I, 1e-4 * dt * dt / I);
  // forward differences agree to O(eps)
  const TransitionDerivatives F = transition_fd(m, d, 1e-6, false);
  EXPECT_LT((F.A - D.A).norm(), 1e-4 * D.A.norm());
  EXPECT_LT((F.B - D.B).norm(), 1e-4 * D.B.norm());
  EXPECT_EQ(d.time, 0.0);  // the Data is not stepped
}

// A free body in zero gravity at rest: x' = x + Δt v, R' = R exp(Δt ω) — A = [[I, Δt I], [0, I]]
// in the tangent space of the free joint's qpos (position, then rotation in the body frame) to
// 1e-6, whatever the orientation.
TEST(Transition, FreeBodyFliesFreely) {
  const Model m = load_xml("free", R"(<mujoco model="free"><option timestep="0.01" gravity="0 0 0"/>
    <worldbody><body name="b" pos="0 0 1" euler="20 30 40"><freejoint/>
      <geom type="box" size="0.1 0.2 0.3" mass="1"/></body></worldbody></mujoco>)");
  Data d(m);
  const TransitionDerivatives D = transition_fd(m, d);
  ASSERT_EQ(D.A.rows(), 12);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Identity(12, 12);
  expected.topRightCorner(6, 6) = 0.01 * Eigen::MatrixXd::Identity(6, 6);
  EXPECT_LT((D.A - expected).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Transition, BadInputIsRefused) {
  const Model m = load_xml("pendulum_bad", kPendulum);
  const Data d(m);
  EXPECT_THROW(transition_fd(m, d, 0.0), std::invalid_argument);
  EXPECT_THROW(transition_fd(m, d, NAN), std::invalid_argument);
}
