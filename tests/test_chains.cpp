// n-link pendulums (Brüdigam et al. 2023, Fig. 8a) with revolute and spherical joints up to n = 200.
#include <gtest/gtest.h>

#include <cmath>

#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {
void run_chain(JointType type, int n, int steps) {
  Model m = make_pendulum_chain(n, type, 1.0, 1.0, type == JointType::Spherical ? 0.05 : 0.0, 0.01);
  Data d(m);
  // the straight chain tilted at its top joint, plus a gentle bend in the first ten joints (a
  // strongly curled long chain whips its tip past |ω| = 2/Δt within a second: a real effect
  // that this step size cannot resolve)
  std::vector<std::vector<double>> q(n), qd(n);
  for (int j = 0; j < n; ++j) {
    const double a = j == 0 ? 0.3 : (j < 10 ? 0.05 : 0.0);
    if (type == JointType::Revolute) {
      q[j] = {a};
    } else {
      const Vec4 r = quat_exp(Vec3(a, 0.5 * a, 0.0));
      q[j] = {r(0), r(1), r(2), r(3)};
    }
  }
  set_coordinates(m, d, q, qd);
  const double e0 = total_energy(m, d);
  double worst = 0;
  int max_iter = 0;
  for (int k = 0; k < steps; ++k) {
    const StepReport r = step(m, d);
    ASSERT_EQ(r.status, StepStatus::Ok) << joint_type_name(type) << " n=" << n << " step " << k;
    max_iter = std::max(max_iter, r.iterations);
    worst = std::max(worst, max_constraint_violation(m, d));
  }
  EXPECT_LT(worst, 1e-8) << joint_type_name(type) << " n=" << n;
  // no energy blow-up: the error stays small against the energy scale n² m g l
  EXPECT_LT(std::abs(total_energy(m, d) - e0), 1e-2 * n * n * 9.81) << joint_type_name(type) << " n=" << n;
  ::testing::Test::RecordProperty("max_newton_iterations_n" + std::to_string(n), max_iter);
}
}  // namespace

TEST(Chains, RevolutePendulumsUpTo200) {
  for (int n : {1, 5, 20, 50, 200}) run_chain(JointType::Revolute, n, 200);
}

TEST(Chains, SphericalPendulumsUpTo200) {
  for (int n : {1, 5, 20, 50, 200}) run_chain(JointType::Spherical, n, 200);
}
