#include "sim/geometry/ground.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/geometry/shape.hpp"

namespace maxsim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double geom_lowest_along(const Geom& g, const Vec3& body_x, const Vec4& body_q, const Vec3& n) {
  const Mat3 Rb = quat_to_rot(body_q);
  const Vec3 c = body_x + Rb * g.pos;           // geom centre (world)
  const Mat3 R = Rb * quat_to_rot(g.quat);      // geom frame -> world
  // n in the geom frame: the shape's closed form reads the components along its axes
  const Vec3 r = R.transpose() * n;
  return shape_of(g.type).lowest_along(g, n.dot(c), r);
}

double geom_lowest_z(const Geom& g, const Vec3& body_x, const Vec4& body_q) {
  return geom_lowest_along(g, body_x, body_q, Vec3::UnitZ());
}

double lowest_collision_z(const Model& model, const Data& data) {
  double lowest = kInf;
  const int nb = static_cast<int>(model.bodies.size());
  for (int i = 0; i < nb; ++i) {
    for (const Geom& g : model.bodies[i].geoms) {
      if (!g.collision || !shape_of(g.type).bounded) continue;
      const double z = geom_lowest_z(g, data.x[i], data.q[i]);
      if (std::isnan(z)) return z;  // a non-finite state has no lowest point: say so
      lowest = std::min(lowest, z);
    }
  }
  return lowest;
}

double max_ground_penetration(const Model& model, const Data& data) {
  const double lowest = lowest_collision_z(model, data);
  if (std::isnan(lowest)) return lowest;  // a non-finite state has no meaningful depth: say so
  return std::max(0.0, -lowest);
}

std::vector<bool> bodies_apart_from_world(const Model& model) {
  const int nb = static_cast<int>(model.bodies.size());
  std::vector<bool> apart(nb, false);
  auto mark = [&](int a, int b) {
    const int body = a == kWorld ? b : b == kWorld ? a : -1;
    if (body >= 0 && body < nb) apart[body] = true;
  };
  for (const auto& [a, b] : model.contact_excludes) mark(a, b);
  if (model.collision_filter == CollisionFilter::ParentChild) {
    for (const auto& [a, b] : model.filtered_pairs) mark(a, b);
    return apart;
  }
  // AnyJoint: a chain of Fixed joints from the world (or from a body already apart from it)
  for (bool grew = true; grew;) {
    grew = false;
    for (const Joint& j : model.joints) {
      if (j.type != JointType::Fixed || j.child < 0 || j.child >= nb || apart[j.child]) continue;
      if (j.parent == kWorld || (j.parent >= 0 && j.parent < nb && apart[j.parent])) {
        apart[j.child] = true;
        grew = true;
      }
    }
  }
  return apart;
}

WorldSurfaces world_surfaces(const Model& model, bool ground) {
  WorldSurfaces w;
  if (ground) w.planes.push_back({Vec3::Zero(), Vec3::UnitZ(), 1, 1});
  for (const Geom& g : model.world_geoms)
    if (g.type == GeomType::Plane && g.collision)
      w.planes.push_back({g.pos, quat_to_rot(quat_normalize(g.quat)).col(2), g.contype, g.conaffinity});
  w.apart = bodies_apart_from_world(model);
  return w;
}

double max_world_penetration(const Model& model, const Data& data, const WorldSurfaces& world) {
  double depth = 0;
  const int nb = static_cast<int>(model.bodies.size());
  for (int i = 0; i < nb; ++i) {
    if (world.apart[i]) continue;
    for (const Geom& g : model.bodies[i].geoms) {
      if (!g.collision || !shape_of(g.type).bounded) continue;
      for (const WorldSurfaces::Plane& s : world.planes) {
        if (!((s.contype & g.conaffinity) || (g.contype & s.conaffinity))) continue;
        const double lowest = geom_lowest_along(g, data.x[i], data.q[i], s.n);
        if (std::isnan(lowest)) return lowest;  // a non-finite state has no meaningful depth
        depth = std::max(depth, s.n.dot(s.p0) - lowest);
      }
    }
  }
  return depth;
}

double max_world_penetration(const Model& model, const Data& data, bool ground) {
  return max_world_penetration(model, data, world_surfaces(model, ground));
}

}  // namespace maxsim
