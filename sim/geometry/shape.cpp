#include "sim/geometry/shape.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <iterator>
#include <utility>

namespace maxsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = M_PI;

// ---- plane: the half-space below the geom's xy plane ------------------------------------------
Vec3 plane_support(const Geom&, const Vec3&) { return Vec3::Zero(); }
double plane_radius(const Geom&) { return kInf; }
double plane_lowest(const Geom&, double, const Vec3&) { return kInf; }
SolidProps plane_solid(const Geom&) { return {}; }

// ---- sphere --------------------------------------------------------------------------------
Vec3 sphere_support(const Geom& g, const Vec3& u) {
  const double len = u.norm();
  return len > 0 ? Vec3(g.size(0) * u / len) : Vec3::Zero();
}
double sphere_radius(const Geom& g) { return g.size.x(); }
double sphere_lowest(const Geom& g, double cn, const Vec3&) { return cn - g.size(0); }
SolidProps sphere_solid(const Geom& g) {
  SolidProps s;
  const double r = g.size(0);
  s.volume = 4.0 / 3.0 * kPi * r * r * r;
  s.unit_inertia = inertia_sphere(s.volume, r);
  return s;
}

// ---- box -----------------------------------------------------------------------------------
Vec3 box_support(const Geom& g, const Vec3& u) {
  Vec3 p;
  for (int i = 0; i < 3; ++i) p(i) = u(i) >= 0 ? g.size(i) : -g.size(i);
  return p;
}
double box_radius(const Geom& g) { return g.size.norm(); }  // half extents: the corner
double box_lowest(const Geom& g, double cn, const Vec3& r) {
  return cn - (g.size(0) * std::abs(r.x()) + g.size(1) * std::abs(r.y()) + g.size(2) * std::abs(r.z()));
}
SolidProps box_solid(const Geom& g) {
  SolidProps s;
  s.volume = 8 * g.size(0) * g.size(1) * g.size(2);
  s.unit_inertia = inertia_box(s.volume, g.size);
  return s;
}

// ---- capsule: the segment of half length size(1) along z, swept by the radius size(0) ---------
Vec3 capsule_support(const Geom& g, const Vec3& u) {
  const double len = u.norm();
  const Vec3 end(0, 0, u.z() >= 0 ? g.size(1) : -g.size(1));
  return len > 0 ? Vec3(end + g.size(0) * u / len) : end;
}
double capsule_radius(const Geom& g) { return g.size.x() + g.size.y(); }
double capsule_lowest(const Geom& g, double cn, const Vec3& r) {
  return cn - g.size(1) * std::abs(r.z()) - g.size(0);
}
SolidProps capsule_solid(const Geom& g) {
  // MuJoCo's formula: cylinder of height 2h plus two hemispheres moved to its ends.
  SolidProps s;
  const double r = g.size(0), h = 2 * g.size(1);
  const double vs = 4.0 / 3.0 * kPi * r * r * r, vc = kPi * r * r * h;
  s.volume = vs + vc;
  const double side = vc * (3 * r * r + h * h) / 12.0 + 0.4 * vs * r * r +
                      vs * h * (3 * r + 2 * h) / 8.0;
  const double axial = vc * r * r / 2.0 + 0.4 * vs * r * r;
  s.unit_inertia = Vec3(side, side, axial).asDiagonal();
  return s;
}

// ---- cylinder: two discs of radius size(0) at ±size(1) along z ---------------------------------
Vec3 cylinder_support(const Geom& g, const Vec3& u) {
  const double radial = std::hypot(u.x(), u.y());
  Vec3 p(0, 0, u.z() >= 0 ? g.size(1) : -g.size(1));
  if (radial > 0) p.head<2>() = g.size(0) * u.head<2>() / radial;
  return p;
}
double cylinder_radius(const Geom& g) { return std::hypot(g.size.x(), g.size.y()); }
double cylinder_lowest(const Geom& g, double cn, const Vec3& r) {
  return cn - g.size(1) * std::abs(r.z()) - g.size(0) * std::sqrt(r.x() * r.x() + r.y() * r.y());
}
SolidProps cylinder_solid(const Geom& g) {
  SolidProps s;
  const double r = g.size(0), hl = g.size(1);
  s.volume = kPi * r * r * 2 * hl;
  s.unit_inertia = inertia_cylinder(s.volume, r, hl);
  return s;
}

// ---- ellipsoid: support(u) = D² u / |D u|, D = diag(semi-axes) --------------------------------
Vec3 ellipsoid_support_of(const Geom& g, const Vec3& u) { return ellipsoid_support(g.size, u); }
double ellipsoid_radius(const Geom& g) { return g.size.norm(); }  // bounds the largest semi-axis
double ellipsoid_lowest(const Geom& g, double cn, const Vec3& r) {
  const Vec3 a = g.size;  // the support value |D r|
  const double rx = r.x(), ry = r.y(), rz = r.z();
  return cn - std::sqrt(a(0) * a(0) * rx * rx + a(1) * a(1) * ry * ry + a(2) * a(2) * rz * rz);
}
SolidProps ellipsoid_solid(const Geom& g) {
  SolidProps s;
  const double a = g.size(0), b = g.size(1), c = g.size(2);
  s.volume = 4.0 / 3.0 * kPi * a * b * c;
  s.unit_inertia = (s.volume / 5.0) * Vec3(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal();
  return s;
}

// ---- mesh: the convex hull of its vertices (geometry), the closed triangle mesh (mass) --------
Vec3 mesh_support(const Geom& g, const Vec3& u) {
  Vec3 best = Vec3::Zero();
  double best_d = -kInf;
  for (const Vec3& v : g.vertices)
    if (const double d = u.dot(v); d > best_d) best_d = d, best = v;
  return best;
}
double mesh_radius(const Geom& g) {
  double extent = 0;
  for (const Vec3& v : g.vertices) extent = std::max(extent, v.norm());
  return extent;
}
double mesh_lowest(const Geom& g, double cn, const Vec3& r) {
  double lowest = kInf;
  for (const Vec3& v : g.vertices) lowest = std::min(lowest, r.dot(v));
  return cn + lowest;  // +inf + finite stays +inf for an empty mesh
}
SolidProps mesh_solid(const Geom& g) { return mesh_solid_props(g.vertices, g.faces); }

constexpr Shape kShapes[] = {
    {GeomType::Plane, false, plane_support, plane_radius, plane_lowest, plane_solid},
    {GeomType::Sphere, true, sphere_support, sphere_radius, sphere_lowest, sphere_solid},
    {GeomType::Box, true, box_support, box_radius, box_lowest, box_solid},
    {GeomType::Capsule, true, capsule_support, capsule_radius, capsule_lowest, capsule_solid},
    {GeomType::Cylinder, true, cylinder_support, cylinder_radius, cylinder_lowest, cylinder_solid},
    {GeomType::Ellipsoid, true, ellipsoid_support_of, ellipsoid_radius, ellipsoid_lowest, ellipsoid_solid},
    {GeomType::Mesh, true, mesh_support, mesh_radius, mesh_lowest, mesh_solid},
    // a height field is static world geometry whose heights are the Model's: as a plane here
    {GeomType::HField, false, plane_support, plane_radius, plane_lowest, plane_solid},
};

// the table is indexed by the enum's value
constexpr bool in_enum_order() {
  for (int i = 0; i < static_cast<int>(std::size(kShapes)); ++i)
    if (static_cast<int>(kShapes[i].type) != i) return false;
  return static_cast<int>(std::size(kShapes)) == static_cast<int>(GeomType::HField) + 1;
}
static_assert(in_enum_order());

}  // namespace

const Shape& shape_of(GeomType type) { return kShapes[static_cast<int>(type)]; }

Vec3 ellipsoid_support(const Vec3& semi_axes, const Vec3& u) {
  const Vec3 du = semi_axes.cwiseProduct(u);
  const double len = du.norm();
  return len > 0 ? Vec3(semi_axes.cwiseProduct(du) / len) : Vec3::Zero();
}

SolidProps mesh_solid_props(const std::vector<Vec3>& v, const std::vector<Eigen::Vector3i>& faces) {
  SolidProps s;
  if (v.empty()) return s;
  Vec3 lo = v[0], hi = v[0];
  for (const auto& p : v) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  // Signed tetrahedra from a reference point inside the box (reduces cancellation).
  const Vec3 o = 0.5 * (lo + hi);
  double vol = 0;
  Vec3 first = Vec3::Zero();
  Mat3 cov = Mat3::Zero();  // ∫ r rᵀ dV about o
  for (const auto& f : faces) {
    const Vec3 a = v[f(0)] - o, b = v[f(1)] - o, c = v[f(2)] - o;
    const double tv = a.dot(b.cross(c)) / 6.0;
    vol += tv;
    first += tv * (a + b + c) / 4.0;
    const Vec3 sum = a + b + c;
    cov += tv / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
  }
  const Vec3 ext = hi - lo;
  const double box_vol = ext.x() * ext.y() * ext.z();
  // Closed (watertight) surface: every edge shared by exactly two triangles.
  bool closed = !faces.empty();
  {
    std::map<std::pair<int, int>, int> edges;
    for (const auto& f : faces)
      for (int k = 0; k < 3; ++k) {
        const int a = f(k), b = f((k + 1) % 3);
        ++edges[{std::min(a, b), std::max(a, b)}];
      }
    for (const auto& [e, n] : edges)
      if (n != 2) {
        closed = false;
        break;
      }
  }
  if (vol < 0) {  // consistently inverted winding
    vol = -vol;
    first = -first;
    cov = -cov;
  }
  if (!closed || !(vol > 1e-6 * box_vol) || !(vol > 0)) {
    // Open or degenerate mesh: its axis-aligned bounding box.
    s.mesh_fallback = true;
    const Vec3 h = 0.5 * ext.cwiseMax(Vec3::Constant(1e-9));
    s.volume = 8 * h.x() * h.y() * h.z();
    s.centroid = o;
    s.unit_inertia = inertia_box(s.volume, h);
    return s;
  }
  const Vec3 c = first / vol;
  const Mat3 cc = cov - vol * c * c.transpose();  // about the centroid
  s.volume = vol;
  s.centroid = o + c;
  s.unit_inertia = cc.trace() * Mat3::Identity() - cc;
  s.unit_inertia = 0.5 * (s.unit_inertia + s.unit_inertia.transpose()).eval();
  return s;
}

}  // namespace maxsim
