// Shortest tendon paths around a sphere or an (infinite) cylinder between two points
// (docs/computation.md (89)–(91); MuJoCo 2.2.2's wrapping semantics, mju_wrap).
//
// All points are in the wrapping geom's frame (origin at its centre, z its axis for a cylinder).
// The path is made of a straight segment p0 → t0, a curve on the surface t0 → t1 and a straight
// segment t1 → p1; it exists only when the straight segment p0 → p1 would cross the geom, or when
// a side point asks for it. Sphere: the path lies in the plane of p0, p1 and the centre (a great
// circle). Cylinder: the cross-section plane (x, y) holds the 2D path; the height grows in
// proportion to the 2D length, so the curve is a helix and the whole path is straight on the
// unrolled surface (the shortest of its kind).
#pragma once

#include <Eigen/Core>

#include "sim/model.hpp"

namespace maxsim {

using Vec2 = Eigen::Vector2d;  // a point in a wrapping plane

// A wrapped path: its tangent points and the length of its curved part.
struct WrapPath {
  Vec3 t0 = Vec3::Zero();  // where the path meets the surface, coming from p0
  Vec3 t1 = Vec3::Zero();  // where it leaves the surface towards p1 (t1 = t0 for an inside wrap)
  double curve = 0;        // length of the curve t0 → t1 on the surface (0 for an inside wrap)
};

// The 2D problem both shapes reduce to (a circle of `radius` at the origin). Outside wrap: both
// endpoints outside the circle; the path winds around it when the segment d0 → d1 crosses it or
// when `side` (a point on the circle) lies opposite the segment's closest point; of the two
// windings whose tangent segments do not cross, the one whose tangent points' mean direction is
// closest to `side`, else the shorter. Inside wrap (`side` inside the circle: the caller passes
// inside = true): the path touches the circle from the outside at one point where it bends
// (d0 → t → d1 with equal angles to the radius), MuJoCo's wrap_inside. Returns false for no wrap.
bool wrap_circle(const Vec2& d0, const Vec2& d1, double radius, const Vec2* side, bool inside,
                 Vec2* t0, Vec2* t1, double* curve);

// The path from p0 to p1 around a sphere (GeomType::Sphere) or cylinder (GeomType::Cylinder) of
// `radius`; `side` (or null) is the side site's position, all in the geom frame. Returns false
// when the path is the straight segment.
bool wrap_geom(GeomType type, double radius, const Vec3& p0, const Vec3& p1, const Vec3* side,
               WrapPath* out);

}  // namespace maxsim
