// The per-shape table (sim/geometry/shape.hpp): its closed forms agree with each other on every
// shape — the lowest point along a direction is the support point against it, the bounding ball
// holds every support point, a solid's inertia is that of its sampled volume.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "sim/geometry/shape.hpp"

using namespace maxsim;

namespace {

// An octahedron of half diagonal r (a closed convex mesh).
Geom octahedron(double r) {
  Geom g = make_geom(GeomType::Mesh, Vec3::Zero());
  g.vertices = {Vec3(r, 0, 0), Vec3(-r, 0, 0), Vec3(0, r, 0), Vec3(0, -r, 0), Vec3(0, 0, r), Vec3(0, 0, -r)};
  g.faces = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  return g;
}

std::vector<Geom> every_bounded_shape() {
  return {make_geom(GeomType::Sphere, Vec3(0.3, 0, 0)),      make_geom(GeomType::Box, Vec3(0.1, 0.25, 0.4)),
          make_geom(GeomType::Capsule, Vec3(0.1, 0.3, 0)),    make_geom(GeomType::Cylinder, Vec3(0.2, 0.15, 0)),
          make_geom(GeomType::Ellipsoid, Vec3(0.3, 0.1, 0.2)), octahedron(0.25)};
}

// Unit directions spread over the sphere (a Fibonacci lattice), the axes, the diagonals (the
// octahedron's face normals) and a ring in the xy plane (the capsule's and cylinder's sides).
std::vector<Vec3> directions() {
  std::vector<Vec3> u;
  const int n = 400;
  for (int k = 0; k < n; ++k) {
    const double z = 1 - (2 * k + 1.0) / n, phi = k * M_PI * (3 - std::sqrt(5.0));
    u.emplace_back(std::sqrt(1 - z * z) * std::cos(phi), std::sqrt(1 - z * z) * std::sin(phi), z);
  }
  for (int i = 0; i < 3; ++i) {
    u.push_back(Vec3::Unit(i));
    u.push_back(-Vec3::Unit(i));
  }
  for (int k = 0; k < 90; ++k) u.emplace_back(std::cos(k * M_PI / 45), std::sin(k * M_PI / 45), 0);
  for (int i = 0; i < 8; ++i) u.push_back(Vec3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1).normalized());
  return u;
}

}  // namespace

TEST(Shape, TheTableIsIndexedByType) {
  for (GeomType t : {GeomType::Plane, GeomType::Sphere, GeomType::Box, GeomType::Capsule, GeomType::Cylinder,
                     GeomType::Ellipsoid, GeomType::Mesh})
    EXPECT_EQ(shape_of(t).type, t);
  EXPECT_FALSE(shape_of(GeomType::Plane).bounded);
}

// n·p is lowest at the support point in direction −n: two closed forms written apart agree.
TEST(Shape, LowestPointIsTheSupportPointAgainstTheDirection) {
  for (const Geom& g : every_bounded_shape()) {
    const Shape& s = shape_of(g.type);
    for (const Vec3& r : directions()) {
      const double cn = 0.7;
      const double lowest = s.lowest_along(g, cn, r);
      EXPECT_NEAR(lowest, cn + r.dot(s.support(g, -r)), 1e-12) << geom_type_name(g.type);
    }
  }
}

// The support point is the farthest point: no other support point lies farther along u, and the
// bounding ball holds them all.
TEST(Shape, SupportIsFarthestAndInsideTheBoundingBall) {
  const std::vector<Vec3> dirs = directions();
  for (const Geom& g : every_bounded_shape()) {
    const Shape& s = shape_of(g.type);
    const double radius = s.bounding_radius(g);
    double farthest = 0;
    for (const Vec3& u : dirs) {
      const Vec3 p = s.support(g, u);
      farthest = std::max(farthest, p.norm());
      EXPECT_LE(p.norm(), radius + 1e-12) << geom_type_name(g.type);
      for (const Vec3& w : dirs) EXPECT_LE(u.dot(s.support(g, w)), u.dot(p) + 1e-12) << geom_type_name(g.type);
    }
    EXPECT_GT(farthest, 0.5 * radius) << geom_type_name(g.type);
  }
}

// Volume and inertia of every solid against a grid of points inside the shape (inside: below
// every support plane, the shapes being convex).
TEST(Shape, SolidPropsMatchTheShapesVolume) {
  const std::vector<Vec3> dirs = directions();
  for (const Geom& g : every_bounded_shape()) {
    const Shape& s = shape_of(g.type);
    const SolidProps solid = s.solid(g);
    std::vector<double> height;  // of the support plane along each direction
    for (const Vec3& u : dirs) height.push_back(u.dot(s.support(g, u)));
    // the grid spans the shape's bounding box, from its support points along the axes
    Vec3 lo, hi;
    for (int i = 0; i < 3; ++i) {
      lo(i) = s.support(g, -Vec3::Unit(i))(i);
      hi(i) = s.support(g, Vec3::Unit(i))(i);
    }
    const int n = 60;
    const Vec3 h = (hi - lo) / n;
    const double cell = h.x() * h.y() * h.z();
    double volume = 0;
    Mat3 inertia = Mat3::Zero();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k) {
          const Vec3 p = lo + Vec3(i + 0.5, j + 0.5, k + 0.5).cwiseProduct(h);
          bool inside = true;
          for (size_t d = 0; d < dirs.size() && inside; ++d) inside = dirs[d].dot(p) <= height[d];
          if (!inside) continue;
          volume += cell;
          inertia += cell * (p.squaredNorm() * Mat3::Identity() - p * p.transpose());
        }
    EXPECT_NEAR(solid.volume, volume, 0.03 * solid.volume) << geom_type_name(g.type);
    EXPECT_LT(solid.centroid.norm(), 1e-12) << geom_type_name(g.type);
    EXPECT_LT((solid.unit_inertia - inertia).norm(), 0.05 * solid.unit_inertia.norm()) << geom_type_name(g.type);
  }
}

TEST(Shape, ThePlaneIsUnbounded) {
  const Geom plane = make_geom(GeomType::Plane, Vec3(1, 1, 0));
  const Shape& s = shape_of(GeomType::Plane);
  EXPECT_EQ(s.lowest_along(plane, 0, Vec3::UnitZ()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.bounding_radius(plane), std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.solid(plane).volume, 0);
}
