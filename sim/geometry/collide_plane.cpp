// A plane (a world plane, or the ground z = 0) against each shape: closed forms, deterministic.
// Each point is kept if its distance is below the threshold.
#include "sim/geometry/narrow_phase.hpp"
#include "sim/geometry/shape.hpp"

namespace maxsim::collision {

namespace {

// A point (core c, radius r) against plane p.
void plane_point(const CPlane& p, const Vec3& c, double r, double thr, NarrowPhase& np) {
  const Vec3 pb = c - r * p.n;
  const double d = p.n.dot(pb - p.p0);
  if (d >= thr) return;
  np.pts.push_back({pb - d * p.n, pb, p.n, 0.0, r, d});
}

// A capsule end (centre e, outward axis a, radius r) against plane p: the end ball, or past the
// cap's rim the end circle's lowest point (kCapSlack).
void plane_capsule_end(const CPlane& p, const Vec3& e, const Vec3& a, double r, double thr,
                       NarrowPhase& np) {
  const double ta = -p.n.dot(a);
  if (ta >= kCapSlack) {
    plane_point(p, e, r, thr, np);
    return;
  }
  const Vec3 perp = -p.n - ta * a;
  const double len = perp.norm();
  if (len > 1e-9) plane_point(p, e + r * perp / len, 0, thr, np);
}

}  // namespace

void plane_sphere(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np) {
  plane_point(p, g.wpos, g.size.x(), thr, np);
}

// its two end balls
void plane_capsule(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np) {
  const Mat3& W = g.wrot;
  const Vec3 s = g.size;
  plane_capsule_end(p, g.wpos - s.y() * W.col(2), -W.col(2), s.x(), thr, np);
  plane_capsule_end(p, g.wpos + s.y() * W.col(2), W.col(2), s.x(), thr, np);
}

// a box's 8 corners, a mesh's hull vertices
void plane_vertices(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np) {
  for (const Vec3& v : g.verts) plane_point(p, g.wpos + g.wrot * v, 0, thr, np);
}

// 8 points on each rim circle, the first at the circle's exact deepest point
void plane_cylinder(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np) {
  rim_points(g, -p.n, [&](const Vec3& c) { plane_point(p, c, 0, thr, np); });
}

// its exact support point toward the plane
void plane_ellipsoid(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np) {
  const Vec3 m = g.wrot.transpose() * p.n;  // plane normal in the geom frame
  const Vec3 local = ellipsoid_support(g.size, -m);
  plane_point(p, g.wpos + g.wrot * local, 0, thr, np);
}

}  // namespace maxsim::collision
