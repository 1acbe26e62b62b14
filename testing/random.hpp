// Random poses for tests, drawn one coordinate at a time: in Vec3(u(rng), u(rng), u(rng)) the order
// of evaluation is unspecified, and GCC and Clang draw them in opposite orders.
#pragma once

#include <random>

#include "sim/math/quaternion.hpp"

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

}  // namespace maxsim::testing
