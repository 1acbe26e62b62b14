// Site poses and velocities (sim/state/sites.hpp).
#include "sim/state/sites.hpp"

#include <stdexcept>
#include <string>

namespace maxsim {

const Site& site_at(const Model& model, int site) {
  if (site < 0 || site >= static_cast<int>(model.sites.size()))
    throw std::invalid_argument("no site " + std::to_string(site) + " (the model has " + std::to_string(model.sites.size()) + ")");
  return model.sites[site];
}

Pose fixed_frame_pose(const Data& data, int body, const Vec3& pos, const Vec4& quat) {
  if (body == kWorld) return Pose{pos, quat};
  return Pose{data.x[body] + quat_to_rot(data.q[body]) * pos, quat_normalize(quat_mul(data.q[body], quat))};
}

void fixed_frame_velocity(const Data& data, int body, const Vec3& pos, Vec3* linear, Vec3* angular) {
  if (body == kWorld) {
    linear->setZero();
    angular->setZero();
    return;
  }
  const Mat3 R = quat_to_rot(data.q[body]);
  *angular = R * data.w[body];
  *linear = data.v[body] + angular->cross(R * pos);
}

Pose site_pose(const Model& model, const Data& data, int site) {
  const Site& s = site_at(model, site);
  return fixed_frame_pose(data, s.body, s.pos, s.quat);
}

void site_velocity(const Model& model, const Data& data, int site, Vec3* linear, Vec3* angular) {
  const Site& s = site_at(model, site);
  fixed_frame_velocity(data, s.body, s.pos, linear, angular);
}

}  // namespace maxsim
