// Ray intersections with each geom type in its own frame (sim/geometry/ray.hpp).
#include "sim/geometry/ray.hpp"

#include <algorithm>
#include <cmath>

namespace maxsim {

namespace {

constexpr double kNone = -1;

// The smallest root t >= 0 of a t² + 2 b t + c = 0, or -1.
double smallest_root(double a, double b, double c) {
  if (!(a > 0)) return kNone;
  const double disc = b * b - a * c;
  if (disc < 0) return kNone;
  const double s = std::sqrt(disc);
  const double t0 = (-b - s) / a, t1 = (-b + s) / a;
  return t0 >= 0 ? t0 : t1 >= 0 ? t1 : kNone;
}

double nearest(double a, double b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return std::min(a, b);
}

double ray_sphere(const Vec3& o, const Vec3& d, const Vec3& centre, double r) {
  const Vec3 p = o - centre;
  return smallest_root(d.squaredNorm(), p.dot(d), p.squaredNorm() - r * r);
}

// A capsule's end cap: the hemisphere of radius r about (0, 0, ±h) beyond the end, the nearest of
// both roots (from inside the capsule the exit, which may be the second).
double ray_hemisphere(const Vec3& o, const Vec3& d, double h, double r, double side) {
  const Vec3 p = o - Vec3(0, 0, side * h);
  const double a = d.squaredNorm(), b = p.dot(d), c = p.squaredNorm() - r * r;
  if (!(a > 0)) return kNone;
  const double disc = b * b - a * c;
  if (disc < 0) return kNone;
  const double s = std::sqrt(disc);
  for (const double t : {(-b - s) / a, (-b + s) / a})
    if (t >= 0 && side * (o.z() + t * d.z()) >= h) return t;
  return kNone;
}

// The side of a z-aligned cylinder of radius r for |z| <= h.
double ray_cylinder_side(const Vec3& o, const Vec3& d, double r, double h) {
  const double a = d.x() * d.x() + d.y() * d.y(), b = o.x() * d.x() + o.y() * d.y(),
               c = o.x() * o.x() + o.y() * o.y() - r * r;
  if (!(a > 0)) return kNone;
  const double disc = b * b - a * c;
  if (disc < 0) return kNone;
  const double s = std::sqrt(disc);
  for (const double t : {(-b - s) / a, (-b + s) / a})
    if (t >= 0 && std::abs(o.z() + t * d.z()) <= h) return t;
  return kNone;
}

// A disc cap z = z0 of radius r.
double ray_cap(const Vec3& o, const Vec3& d, double z0, double r) {
  if (d.z() == 0) return kNone;
  const double t = (z0 - o.z()) / d.z();
  if (t < 0) return kNone;
  const Vec3 p = o + t * d;
  return p.x() * p.x() + p.y() * p.y() <= r * r ? t : kNone;
}

double ray_box(const Vec3& o, const Vec3& d, const Vec3& half) {
  double t0 = -INFINITY, t1 = INFINITY;
  for (int k = 0; k < 3; ++k) {
    if (d(k) == 0) {
      if (std::abs(o(k)) > half(k)) return kNone;
      continue;
    }
    double a = (-half(k) - o(k)) / d(k), b = (half(k) - o(k)) / d(k);
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
    if (t0 > t1) return kNone;
  }
  return t0 >= 0 ? t0 : t1 >= 0 ? t1 : kNone;
}

// Möller–Trumbore, either side.
double ray_triangle(const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 e1 = b - a, e2 = c - a, p = d.cross(e2);
  const double det = e1.dot(p);
  if (std::abs(det) < 1e-300) return kNone;
  const Vec3 s = o - a;
  const double u = s.dot(p) / det;
  if (u < 0 || u > 1) return kNone;
  const Vec3 q = s.cross(e1);
  const double v = d.dot(q) / det;
  if (v < 0 || u + v > 1) return kNone;
  const double t = e2.dot(q) / det;
  return t >= 0 ? t : kNone;
}

// A height field's grid (its cells' two triangles each, as the contacts see it): only the cells
// whose xy footprint the ray's xy path crosses, one column strip at a time (each strip's rows from
// the path's y over the strip): O(rows + columns) triangles instead of all of them, and the same
// nearest hit (a hit lies in its triangle's cell, which the walk covers).
double ray_hfield(const HeightField& H, const Vec3& o, const Vec3& d) {
  const double rx = H.size(0), ry = H.size(1), dx = 2 * rx / (H.ncol - 1), dy = 2 * ry / (H.nrow - 1);
  auto vertex = [&](int r, int c) {
    return Vec3(-rx + dx * c, -ry + dy * r, H.size(2) * H.data[static_cast<size_t>(r) * H.ncol + c]);
  };
  double best = kNone;
  if (!o.allFinite() || !d.allFinite()) return best;
  auto test_cells = [&](int c0, int c1, int r0, int r1) {
    c0 = std::max(c0, 0), c1 = std::min(c1, H.ncol - 2), r0 = std::max(r0, 0), r1 = std::min(r1, H.nrow - 2);
    for (int c = c0; c <= c1; ++c)
      for (int r = r0; r <= r1; ++r) {
        const Vec3 p00 = vertex(r, c), p01 = vertex(r, c + 1), p10 = vertex(r + 1, c), p11 = vertex(r + 1, c + 1);
        best = nearest(best, nearest(ray_triangle(o, d, p00, p01, p11), ray_triangle(o, d, p00, p11, p10)));
      }
  };
  // the part t ∈ [lo, hi] of the ray over the field's rectangle (slabs in x and y)
  double lo = 0, hi = INFINITY;
  for (int a = 0; a < 2; ++a) {
    const double half = H.size(a);
    if (d(a) == 0) {
      if (!(std::abs(o(a)) <= half)) return kNone;
      continue;
    }
    double ta = (-half - o(a)) / d(a), tb = (half - o(a)) / d(a);
    if (ta > tb) std::swap(ta, tb);
    lo = std::max(lo, ta);
    hi = std::min(hi, tb);
  }
  if (!(lo <= hi)) return kNone;
  // the cells over [vmin, vmax] along one axis, widened by 1e-9 of a cell for the rounding of the
  // path's coordinates (clamped to the int range before the cast)
  auto cells = [](double vmin, double vmax, double origin, double step, int* first, int* last) {
    const auto index = [&](double v) { return static_cast<int>(std::floor(std::clamp((v - origin) / step, -2.0, 1e9))); };
    *first = index(vmin - 1e-9 * step);
    *last = index(vmax + 1e-9 * step);
  };
  int c0, c1, r0, r1;
  if (!std::isfinite(hi)) {  // vertical: the cell below (two or four on a grid line)
    cells(o.x(), o.x(), -rx, dx, &c0, &c1);
    cells(o.y(), o.y(), -ry, dy, &r0, &r1);
    test_cells(c0, c1, r0, r1);
    return best;
  }
  const double xa = o.x() + lo * d.x(), xb = o.x() + hi * d.x();
  cells(std::min(xa, xb), std::max(xa, xb), -rx, dx, &c0, &c1);
  c0 = std::max(c0, 0), c1 = std::min(c1, H.ncol - 2);
  // strips and cells in the order the ray reaches them, ending past the nearest hit so far (with
  // 1e-9 of a cell's crossing time for the rounding of the entry times)
  const double slack = 1e-9 * std::max(dx, dy) / std::max(std::hypot(d.x(), d.y()), 1e-300);
  auto beyond = [&](double t_entry) { return best >= 0 && t_entry > best + slack; };
  const int c_step = d.x() >= 0 ? 1 : -1, r_step = d.y() >= 0 ? 1 : -1;
  for (int c = c_step > 0 ? c0 : c1; c0 <= c && c <= c1; c += c_step) {
    double ta = lo, tb = hi;  // the path over this column strip
    if (d.x() != 0) {
      ta = (-rx + dx * c - o.x()) / d.x(), tb = (-rx + dx * (c + 1) - o.x()) / d.x();
      if (ta > tb) std::swap(ta, tb);
      ta = std::clamp(ta, lo, hi), tb = std::clamp(tb, lo, hi);
    }
    if (beyond(ta)) break;
    const double ya = o.y() + ta * d.y(), yb = o.y() + tb * d.y();
    cells(std::min(ya, yb), std::max(ya, yb), -ry, dy, &r0, &r1);
    r0 = std::max(r0, 0), r1 = std::min(r1, H.nrow - 2);
    for (int r = r_step > 0 ? r0 : r1; r0 <= r && r <= r1; r += r_step) {
      if (d.y() != 0 && beyond((-ry + dy * (r_step > 0 ? r : r + 1) - o.y()) / d.y())) break;
      test_cells(c, c, r, r);
    }
  }
  return best;
}

}  // namespace

double ray_geom(const Model& model, const Geom& g, const Vec3& o, const Vec3& d) {
  const Vec3& s = g.size;
  switch (g.type) {
    case GeomType::Plane: {  // the half-space z <= 0, hit from above
      if (!(o.z() >= 0) || !(d.z() < 0)) return kNone;
      const double t = -o.z() / d.z();
      const Vec3 p = o + t * d;
      if ((s.x() > 0 && std::abs(p.x()) > s.x()) || (s.y() > 0 && std::abs(p.y()) > s.y())) return kNone;
      return t;
    }
    case GeomType::Sphere: return ray_sphere(o, d, Vec3::Zero(), s.x());
    case GeomType::Ellipsoid: {  // the unit sphere in coordinates scaled by the semi-axes
      const Vec3 os = o.cwiseQuotient(s), ds = d.cwiseQuotient(s);
      return ray_sphere(os, ds, Vec3::Zero(), 1.0);
    }
    case GeomType::Box: return ray_box(o, d, s);
    case GeomType::Capsule:  // (each part restricted to its share of the surface: right from inside too)
      return nearest(ray_cylinder_side(o, d, s.x(), s.y()),
                     nearest(ray_hemisphere(o, d, s.y(), s.x(), 1.0), ray_hemisphere(o, d, s.y(), s.x(), -1.0)));
    case GeomType::Cylinder:
      return nearest(ray_cylinder_side(o, d, s.x(), s.y()), nearest(ray_cap(o, d, s.y(), s.x()), ray_cap(o, d, -s.y(), s.x())));
    case GeomType::Mesh: {
      double best = kNone;
      for (const Eigen::Vector3i& f : g.faces)
        best = nearest(best, ray_triangle(o, d, g.vertices[f(0)], g.vertices[f(1)], g.vertices[f(2)]));
      return best;
    }
    case GeomType::HField: {
      if (g.hfield < 0 || g.hfield >= static_cast<int>(model.hfields.size())) return kNone;
      return ray_hfield(model.hfields[g.hfield], o, d);
    }
  }
  return kNone;
}

double ray_distance(const Model& model, const Data& data, const Vec3& origin, const Vec3& direction, int exclude_body) {
  const double n = direction.norm();
  if (!(n > 0) || !origin.allFinite() || !direction.allFinite()) return kNone;
  const Vec3 d = direction / n;
  double best = kNone;
  auto test = [&](const Geom& g, const Vec3& body_x, const Mat3& body_R) {
    if (g.rgba(3) == 0) return;  // (MuJoCo's rays skip invisible geoms, and see visual ones)
    const Mat3 R = body_R * quat_to_rot(g.quat);
    const Vec3 p = body_x + body_R * g.pos;
    best = nearest(best, ray_geom(model, g, R.transpose() * (origin - p), R.transpose() * d));
  };
  for (const Geom& g : model.world_geoms) test(g, Vec3::Zero(), Mat3::Identity());
  for (size_t b = 0; b < model.bodies.size() && b < data.x.size(); ++b) {
    if (static_cast<int>(b) == exclude_body) continue;
    const Mat3 R = quat_to_rot(data.q[b]);
    for (const Geom& g : model.bodies[b].geoms) test(g, data.x[b], R);
  }
  return best;
}

}  // namespace maxsim
