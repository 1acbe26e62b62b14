// Robots placed on their floors for tests and benchmarks: a pose whose lowest collision geometry
// sits a given clearance above z = 0.
#pragma once

#include <vector>

#include "sim/data.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/model.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"

namespace maxsim::testing {

// The Unitree A1's qpos (robots/a1/xml/a1.xml: a free joint, then hip, thigh and calf of each leg)
// with every leg at (0, thigh, calf) and the trunk upright, raised so that the lowest collision
// geometry is `clearance` above z = 0 (the file's floor).
inline std::vector<double> a1_qpos(const Model& m, double thigh, double calf, double clearance) {
  Data d(m);
  std::vector<double> qpos = {0, 0, 0.5, 1, 0, 0, 0};
  for (int leg = 0; leg < 4; ++leg) qpos.insert(qpos.end(), {0.0, thigh, calf});
  set_coordinates(m, d, split_qpos(m, qpos), std::vector<std::vector<double>>(m.joints.size()));
  qpos[2] += clearance - lowest_collision_z(m, d);
  return qpos;
}

}  // namespace maxsim::testing
