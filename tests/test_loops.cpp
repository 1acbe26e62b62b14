// Kinematic loops: no drift (Brüdigam et al. 2023, Fig. 7a), redundant constraints (planar loops
// in 3D), and chains of loop segments (their Fig. 9a).
#include <gtest/gtest.h>

#include <cmath>

#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/workspace.hpp"

using namespace maxsim;

// The three-link loop of Brüdigam et al. (2023), Fig. 7a (a parallelogram closed by the world),
// released at 30°. The loop constraints are imposed on the next configuration and solved to
// 1e-10, so the violation stays below 1e-8 for all 10 000 steps.
TEST(Loops, ThreeLinkLoopDoesNotDrift) {
  Model m = make_three_link_loop(0.01);
  Data d(m);
  const double a = M_PI / 6;
  set_coordinates(m, d, {{a}, {-a}, {a}, {}}, {{}, {}, {}, {}});
  ASSERT_TRUE(project_state(m, d).converged);
  EXPECT_LT(max_constraint_violation(m, d), 1e-10);
  const double e0 = total_energy(m, d);
  double worst = 0;
  for (int k = 0; k < 10000; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    worst = std::max(worst, max_constraint_violation(m, d));
  }
  EXPECT_LT(worst, 1e-8);
  // it keeps swinging with bounded energy error (energy scale: m g l ≈ 10 J)
  EXPECT_LT(std::abs(total_energy(m, d) - e0), 0.1);
  RecordProperty("max_violation", std::to_string(worst));
}

// A planar crank-rocker of revolute joints in 3D: 3 of its loop equations are redundant. The
// regularized Newton matrix keeps it solvable and the violation at solver tolerance for 10 s.
TEST(Loops, PlanarFourbarWithRedundantConstraints) {
  Model m = make_fourbar(0.01);
  Data d(m);
  set_joint_coordinates(m, d, 1, {0.0}, {2.0});  // crank spinning at 2 rad/s
  ASSERT_TRUE(project_state(m, d).converged);
  double worst = 0;
  for (int k = 0; k < 1000; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    worst = std::max(worst, max_constraint_violation(m, d));
  }
  EXPECT_LT(worst, 1e-8);
  // the crank actually moved (gravity and the initial rate drive it)
  double q, qd;
  joint_coordinates(m, d, 1, &q, &qd);
  EXPECT_GT(std::abs(q) + std::abs(qd), 0.1);
}

// Chains of four-link loop segments stay on their constraints; the loop count is what the graph
// search reports.
TEST(Loops, LoopChainSegments) {
  for (int segments : {1, 3, 8}) {
    Model m = make_loop_chain(segments, 0.01);
    Data d(m);
    EXPECT_EQ(workspace(m, d).ldu.num_loops(), segments - 1);  // the first loop closes through the world, which is no graph node
    set_joint_coordinates(m, d, 0, {0.3}, {});
    ASSERT_TRUE(project_state(m, d).converged);
    double worst = 0;
    for (int k = 0; k < 300; ++k) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok) << segments << " segments, step " << k;
      worst = std::max(worst, max_constraint_violation(m, d));
    }
    EXPECT_LT(worst, 1e-8) << segments << " segments";
  }
}
