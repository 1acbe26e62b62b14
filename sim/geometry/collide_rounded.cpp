// Closed forms, cheap and exact: sphere and capsule pairs (segment against segment, radii added),
// a point or ball against a sphere, capsule, box or cylinder (nearest-face rule inside, so a
// point lying exactly on a face gets that face's normal, where GJK has no direction), and a
// capsule against a box or cylinder (the segment's nearest point by bisection).
#include <algorithm>
#include <cmath>

#include "sim/geometry/narrow_phase.hpp"

namespace maxsim::collision {

namespace {

// Closest points of segments [p1, q1] and [p2, q2] (Ericson, Real-Time Collision Detection 5.1.9).
void closest_segment_segment(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2,
                             Vec3* c1, Vec3* c2) {
  const Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  constexpr double eps = 1e-300;
  double s = 0, t = 0;
  if (a <= eps && e <= eps) {
    s = t = 0;
  } else if (a <= eps) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= eps) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  *c1 = p1 + s * d1;
  *c2 = p2 + t * d2;
}

Vec3 closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double dd = d.squaredNorm();
  if (dd <= 1e-300) return a;
  return a + std::clamp((p - a).dot(d) / dd, 0.0, 1.0) * d;
}

// Rounded point pair from core points ca (on A) and cb (on B) with radii; `fallback` is the
// A -> B direction used when the cores coincide.
PairPoint rounded(const Vec3& ca, const Vec3& cb, double ra, double rb, const Vec3& fallback) {
  Vec3 n = cb - ca;
  const double len = n.norm();
  n = len > 1e-12 ? Vec3(n / len) : fallback;
  const Vec3 pa = ca + ra * n, pb = cb - rb * n;
  return {pa, pb, n, ra, rb, n.dot(pb - pa)};
}

}  // namespace

void segment(const CGeom& g, Vec3* a, Vec3* b) {
  if (g.type == GeomType::Capsule) {
    *a = g.wpos - g.size.y() * g.wrot.col(2);
    *b = g.wpos + g.size.y() * g.wrot.col(2);
  } else {
    *a = *b = g.wpos;
  }
}

Vec3 fallback_direction(const CGeom& a, const CGeom& b) {
  const Vec3 d = b.wpos - a.wpos;
  const double len = d.norm();
  return len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
}

// ---- closest surface points (ShapeCollision::closest_surface) ----------------------------------
void closest_on_rounded(const CGeom& g, const Vec3& p, const Vec3& fallback, Vec3* c, Vec3* m) {
  Vec3 a, b;
  segment(g, &a, &b);
  const Vec3 q = closest_on_segment(p, a, b);
  const Vec3 v = p - q;
  const double len = v.norm();
  *m = len > 1e-12 ? Vec3(v / len) : fallback;
  *c = q + g.radius * *m;
}

void closest_on_box(const CGeom& g, const Vec3& p, const Vec3&, Vec3* c, Vec3* m) {
  const Mat3& W = g.wrot;
  const Vec3 l = W.transpose() * (p - g.wpos);
  const Vec3 h = g.size;
  if ((l.cwiseAbs().array() > h.array()).any()) {  // outside: clamp
    const Vec3 cl = l.cwiseMax(-h).cwiseMin(h);
    const Vec3 v = l - cl;
    *m = W * v.normalized();
    *c = g.wpos + W * cl;
  } else {  // inside or on the surface: the nearest face
    int axis = 0;
    (h - l.cwiseAbs()).minCoeff(&axis);
    const double sign = l(axis) >= 0 ? 1.0 : -1.0;
    Vec3 cl = l;
    cl(axis) = sign * h(axis);
    *m = sign * W.col(axis);
    *c = g.wpos + W * cl;
  }
}

void closest_on_cylinder(const CGeom& g, const Vec3& p, const Vec3&, Vec3* c, Vec3* m) {
  const Mat3& W = g.wrot;
  const Vec3 l = W.transpose() * (p - g.wpos);
  const double r = g.size.x(), hl = g.size.y();
  const double rho_l = l.head<2>().norm();
  const Vec3 radial = rho_l > 1e-12 ? Vec3(l.x() / rho_l, l.y() / rho_l, 0) : Vec3::UnitX();
  if (rho_l > r || std::abs(l.z()) > hl) {  // outside: clamp radially and axially
    const Vec3 cl = std::min(rho_l, r) * radial + std::clamp(l.z(), -hl, hl) * Vec3::UnitZ();
    const Vec3 v = l - cl;
    *m = W * v.normalized();
    *c = g.wpos + W * cl;
  } else {
    const double to_cap = hl - std::abs(l.z()), to_side = r - rho_l;
    Vec3 cl = l;
    if (to_cap <= to_side) {
      const double sign = l.z() >= 0 ? 1.0 : -1.0;
      cl.z() = sign * hl;
      *m = sign * W.col(2);
    } else {
      cl.head<2>() = r * radial.head<2>();
      *m = W * radial;
    }
    *c = g.wpos + W * cl;
  }
}

// Exact closest point of O's surface to the ball (p, rho). ball_is_a: the ball belongs to the
// pair's A (the normal then points from the ball to O). `fallback`: A -> B direction when the
// point is at a sphere's centre or on a capsule's segment.
bool point_query(const CGeom& o, const Vec3& p, double rho, bool ball_is_a, const Vec3& fallback,
                 PairPoint* out) {
  const auto closest = collision_shape(o.type).closest_surface;
  if (!closest) return false;
  Vec3 c, m;  // closest surface point of O, outward unit normal there (toward p)
  closest(o, p, ball_is_a ? Vec3(-fallback) : fallback, &c, &m);
  const Vec3 on_ball = p - rho * m;
  if (ball_is_a) {
    *out = {on_ball, c, Vec3(-m), rho, o.radius, 0.0};
  } else {
    *out = {c, on_ball, m, o.radius, rho, 0.0};
  }
  out->d = out->n.dot(out->pb - out->pa);
  return true;
}

// ---- pair functions ----------------------------------------------------------------------------
// Sphere and capsule pairs: their cores' closest points, plus the capsule end balls.
void collide_rounded(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  const Vec3 fb = fallback_direction(A, B);
  Vec3 a0, a1, b0, b1, ca, cb;
  segment(A, &a0, &a1);
  segment(B, &b0, &b1);
  closest_segment_segment(a0, a1, b0, b1, &ca, &cb);
  Vec3 f = fb;
  if (A.type == GeomType::Capsule && B.type == GeomType::Capsule) {
    const Vec3 c = (a1 - a0).cross(b1 - b0);
    if (c.norm() > 1e-12) f = c.dot(fb) >= 0 ? Vec3(c.normalized()) : Vec3(-c.normalized());
  }
  const PairPoint core = rounded(ca, cb, A.radius, B.radius, f);
  if (core.d >= thr) return;
  feature_points(A, B, core, true, thr, np);
  feature_points(B, A, core, false, thr, np);
  add_core(core, np);
}

// A sphere (A) against a box or cylinder: the exact closest point, one contact.
void collide_ball_shape(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  PairPoint core;
  if (point_query(B, A.wpos, A.radius, true, fallback_direction(A, B), &core) && core.d < thr)
    np.pts.push_back(core);
}

// A box or cylinder (A) against a sphere (B).
void collide_shape_ball(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  PairPoint core;
  if (point_query(A, B.wpos, B.radius, false, fallback_direction(A, B), &core) && core.d < thr)
    np.pts.push_back(core);
}

namespace {

// A capsule against a box or cylinder (any shape with a closed-form closest surface). The signed
// distance to a convex shape is a convex function of the point, so along the capsule's segment
// its slope — the closest surface's outward normal dotted with the segment — changes sign once:
// bisection finds the segment's point nearest the shape, and the ball there is the core pair
// (GJK on a cylinder converges only linearly: ~15 000 instructions a call against ~3 000 here).
// The end balls and the shape's features follow, as in collide_convex; a segment that reaches
// into the shape (core overlap: no direction from the slope's sign) goes to GJK/EPA.
void capsule_against_shape(const CGeom& cap, const CGeom& shape, bool capsule_is_a, double thr, NarrowPhase& np) {
  const CGeom& A = capsule_is_a ? cap : shape;
  const CGeom& B = capsule_is_a ? shape : cap;
  const Vec3 fallback = fallback_direction(A, B);
  const auto closest = collision_shape(shape.type).closest_surface;
  Vec3 a0, a1;
  segment(cap, &a0, &a1);
  const Vec3 d = a1 - a0;
  const Vec3 toward = capsule_is_a ? fallback : Vec3(-fallback);  // from the capsule to the shape
  // the slope of the signed distance at segment parameter t, and the distance itself
  auto slope = [&](double t, double* distance) {
    Vec3 c, m;
    const Vec3 p = a0 + t * d;
    closest(shape, p, -toward, &c, &m);
    *distance = m.dot(p - c);
    return m.dot(d);
  };
  double t = 0, distance = 0;
  if (d.squaredNorm() > 1e-24 && slope(0.0, &distance) < 0) {
    if (slope(1.0, &distance) <= 0) {
      t = 1.0;
    } else {
      double lo = 0, hi = 1;
      for (int i = 0; i < 44; ++i) {  // (44 halvings: 6e-14 of the segment)
        const double mid = 0.5 * (lo + hi);
        (slope(mid, &distance) > 0 ? hi : lo) = mid;
      }
      t = 0.5 * (lo + hi);
    }
  }
  slope(t, &distance);
  if (!(distance > kTouching)) {
    collide_convex(A, B, thr, np);
    return;
  }
  PairPoint core;
  point_query(shape, a0 + t * d, cap.radius, capsule_is_a, fallback, &core);
  core_and_features(A, B, core, thr, np);
}

}  // namespace

void collide_capsule_shape(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  capsule_against_shape(A, B, true, thr, np);
}

void collide_shape_capsule(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  capsule_against_shape(B, A, false, thr, np);
}

}  // namespace maxsim::collision
