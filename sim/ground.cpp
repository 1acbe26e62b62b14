#include "sim/ground.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace maxsim {

double geom_lowest_z(const Geom& g, const Vec3& body_x, const Vec4& body_q) {
  const Mat3 Rb = quat_to_rot(body_q);
  const Vec3 c = body_x + Rb * g.pos;           // geom centre (world)
  const Mat3 R = Rb * quat_to_rot(g.quat);      // geom frame -> world
  // Row 2 of R: the world z components of the geom axes; the support point in direction −z of a
  // shape is found from |R(2, i)|.
  const double rx = R(2, 0), ry = R(2, 1), rz = R(2, 2);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (g.type) {
    case GeomType::Plane:
      return kInf;
    case GeomType::Sphere:
      return c.z() - g.size(0);
    case GeomType::Box:
      return c.z() - (g.size(0) * std::abs(rx) + g.size(1) * std::abs(ry) + g.size(2) * std::abs(rz));
    case GeomType::Capsule:  // segment of half length size(1) along z, swept by radius size(0)
      return c.z() - g.size(1) * std::abs(rz) - g.size(0);
    case GeomType::Cylinder:  // two discs of radius size(0) at ±size(1) along z
      return c.z() - g.size(1) * std::abs(rz) - g.size(0) * std::sqrt(rx * rx + ry * ry);
    case GeomType::Ellipsoid: {  // support of diag(a) S² in direction d: |diag(a) d|
      const Vec3 a = g.size;
      return c.z() - std::sqrt(a(0) * a(0) * rx * rx + a(1) * a(1) * ry * ry + a(2) * a(2) * rz * rz);
    }
    case GeomType::Mesh: {
      double lowest = kInf;
      const Eigen::RowVector3d zrow = R.row(2);
      for (const Vec3& v : g.vertices) lowest = std::min(lowest, zrow.dot(v));
      return c.z() + lowest;  // +inf + finite stays +inf for an empty mesh
    }
  }
  return kInf;
}

double lowest_collision_z(const Model& model, const Data& data) {
  double lowest = std::numeric_limits<double>::infinity();
  const int nb = static_cast<int>(model.bodies.size());
  for (int i = 0; i < nb; ++i) {
    for (const Geom& g : model.bodies[i].geoms) {
      if (!g.collision || g.type == GeomType::Plane) continue;
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

}  // namespace maxsim
