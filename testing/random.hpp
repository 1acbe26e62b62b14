// Random poses for tests, drawn one coordinate at a time: in Vec3(u(rng), u(rng), u(rng)) the order
// of evaluation is unspecified, and GCC and Clang draw them in opposite orders.
#pragma once

#include <random>

#include "sim/data.hpp"
#include "sim/math/quaternion.hpp"
#include "sim/model.hpp"

namespace maxsim::testing {

// A uniformly distributed unit quaternion (normalized Gaussian).
inline Vec4 random_quat(std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  Vec4 q;
  for (int i = 0; i < 4; ++i) q(i) = n(rng);
  return q / q.norm();
}

// A vector with coordinates uniform in [−s, s].
inline Vec3 random_vec(std::mt19937& rng, double s = 1.0) {
  std::uniform_real_distribution<double> u(-s, s);
  Vec3 v;
  for (int i = 0; i < 3; ++i) v(i) = u(rng);
  return v;
}

// Every actuator's command uniform in its control range ([−1, 1] where the range is not limited),
// drawn in the actuators' order: the random schedules of the tests that drive robots.
inline void draw_commands(const Model& m, std::mt19937_64& rng, Data* d) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < m.nu(); ++i) {
    const Actuator& a = m.actuators[i];
    const double lo = a.ctrl_limited ? a.ctrl_lower : -1.0, hi = a.ctrl_limited ? a.ctrl_upper : 1.0;
    d->ctrl[i] = lo + (hi - lo) * unit(rng);
  }
}

}  // namespace maxsim::testing
