// The Unitree A1 walking with its learned trot: hard contacts, Δt = 1 ms, URDF torque
// limits, the gait of robots/a1/gait.params (learned by a1_learn).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "robots/a1/a1_gait.hpp"

using namespace maxsim;

namespace {
const std::string kSource = MAXSIM_SOURCE_DIR;
}

// The short a1_walk: 2 s of the learned gait move the robot forward without a fall. The gait
// starts with a 0.5 s ramp, so 2 s at the ≥ 1.2 m/s of the full run would give ≥ 1.8 m; 1 m is a
// bound that standing, stepping in place or walking backwards cannot meet. Contacts must hold
// the feet (no sinking beyond 1 mm) and the trunk must stay level-ish and high.
TEST(A1, ShortWalkMovesForwardWithoutFalling) {
  const a1::Robot robot = a1::load_robot(kSource);
  const GaitParameters gait = a1::read_gait(kSource + "/robots/a1/gait.params");
  double min_height = 1e9;
  const a1::Walk w = a1::walk(robot, gait, 2.0, [&](const Model&, const Data& d) {
    min_height = std::min(min_height, d.x[robot.trunk].z());
  });
  std::printf("  measured: %.3f m forward, %.3f m sideways in %.2f s, lowest trunk %.3f m, penetration %.1e m, "
              "not converged steps %d of %d, %.0f steps/s\n",
              w.distance, w.lateral, w.duration, min_height, w.max_penetration, w.not_converged_steps, w.steps,
              w.steps / w.wall_time);
  EXPECT_FALSE(w.fell);
  EXPECT_NEAR(w.duration, 2.0, 1e-9);
  EXPECT_EQ(w.steps, 2000);
  EXPECT_GT(w.distance, 1.0);
  EXPECT_GT(min_height, a1::kFallHeight);
  EXPECT_LT(w.max_penetration, 1e-3);
}

// A1 rollouts — 12 motors, up to a dozen ground contacts, the Bullet search — are bitwise identical
// on 1 and 2 threads (0.3 s each, from different gait frequencies).
TEST(A1, RolloutsBitwiseIdenticalAcrossThreads) {
  const a1::Robot robot = a1::load_robot(kSource);
  std::vector<std::vector<double>> states[2];
  for (int t = 0; t < 2; ++t) {
    states[t].resize(3);
    RolloutTask task;
    task.steps = 300;
    task.setup = [&](const Model& m, Data& d, int i) {
      GaitParameters g;
      g.frequency = 2.0 + 0.5 * i;
      g.ramp_time = 0.1;
      a1::stand(robot, d, g);
      enable_contacts(m, d);
      set_controller(d, std::make_shared<GaitController>(m, robot.actuators, g));
    };
    task.evaluate = [&](const Model&, const Data& d, const RolloutStats&, int i) {
      std::vector<double>& s = states[t][i];
      for (size_t b = 0; b < d.x.size(); ++b)
        for (int k = 0; k < 3; ++k) s.insert(s.end(), {d.x[b](k), d.v[b](k), d.w[b](k)});
      for (const Vec4& q : d.q) s.insert(s.end(), q.data(), q.data() + 4);
      return 0.0;
    };
    RolloutPool(t + 1).run(robot.model, task, 3);
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(states[0][i].size(), states[1][i].size());
    EXPECT_EQ(std::memcmp(states[0][i].data(), states[1][i].data(), sizeof(double) * states[0][i].size()), 0)
        << "rollout " << i;
  }
  EXPECT_NE(states[0][0], states[0][1]);
}
