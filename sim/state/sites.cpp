// Site poses and velocities (sim/state/sites.hpp).
#include "sim/state/sites.hpp"

#include <stdexcept>
#include <string>

namespace maxsim {

namespace {
const Site& checked_site(const Model& model, int site) {
  if (site < 0 || site >= static_cast<int>(model.sites.size()))
    throw std::invalid_argument("no site " + std::to_string(site) + " (the model has " + std::to_string(model.sites.size()) + ")");
  return model.sites[site];
}
}  // namespace

Pose site_pose(const Model& model, const Data& data, int site) {
  const Site& s = checked_site(model, site);
  if (s.body == kWorld) return Pose{s.pos, s.quat};
  return Pose{data.x[s.body] + quat_to_rot(data.q[s.body]) * s.pos, quat_normalize(quat_mul(data.q[s.body], s.quat))};
}

void site_velocity(const Model& model, const Data& data, int site, Vec3* linear, Vec3* angular) {
  const Site& s = checked_site(model, site);
  if (s.body == kWorld) {
    linear->setZero();
    angular->setZero();
    return;
  }
  const Mat3 R = quat_to_rot(data.q[s.body]);
  *angular = R * data.w[s.body];
  *linear = data.v[s.body] + angular->cross(R * s.pos);
}

}  // namespace maxsim
