// Tendon wrapping around spheres and cylinders (docs/computation.md (89)–(91)).
#include "sim/tendon/wrap.hpp"

#include <algorithm>
#include <cmath>

namespace maxsim {

namespace {

constexpr double kTiny = 1e-15;  // MuJoCo's mjMINVAL: below it a length or radius is zero

double cross2(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// MuJoCo 2.2.2's wrap_inside: the point t on the circle where d0 → t → d1 reflects (equal angles
// with the radius), from asin(A z) + asin(B z) − 2 asin(z) + G = 0, z = sin(angle at t), by
// Newton's method from z ≈ 1; on a numerical failure the normalized mean of d0 and d1. Solved to
// 1e-13 rather than MuJoCo's 1e-6: the point is then stationary to rounding, so the length is
// smooth and its gradient (the envelope theorem) exact.
bool wrap_inside(const Vec2& d0, const Vec2& d1, double r, Vec2* t) {
  const double len0 = d0.norm(), len1 = d1.norm();
  if (len0 <= r || len1 <= r || r < kTiny || len0 < kTiny || len1 < kTiny) return false;
  const Vec2 dif = d1 - d0;
  const double dd = dif.squaredNorm();
  if (dd > kTiny) {  // the segment crosses the circle: no wrap
    const double a = -dif.dot(d0) / dd;
    if (a > 0 && a < 1 && (d0 + a * dif).norm() <= r) return false;
  }
  const Vec2 mean = 0.5 * (d0 + d1);
  *t = mean.norm() > kTiny ? Vec2(r * mean.normalized()) : Vec2(r * d0.normalized());
  const double A = r / len0, B = r / len1;
  const double cosG = (len0 * len0 + len1 * len1 - dd) / (2 * len0 * len1);
  if (cosG < -1 + kTiny) return false;
  if (cosG > 1 - kTiny) return true;
  const double G = std::acos(cosG);
  auto f_of = [&](double z) { return std::asin(A * z) + std::asin(B * z) - 2 * std::asin(z) + G; };
  constexpr int kIterations = 50;
  constexpr double kTolerance = 1e-13;
  double z = 1 - 1e-7;
  double f = f_of(z);
  if (f > 0) return true;
  int iter = 0;
  for (; iter < kIterations && std::abs(f) > kTolerance; ++iter) {
    const double df = A / std::max(kTiny, std::sqrt(1 - z * z * A * A)) +
                      B / std::max(kTiny, std::sqrt(1 - z * z * B * B)) -
                      2 / std::max(kTiny, std::sqrt(1 - z * z));
    if (df > -kTiny) return true;
    const double z1 = z - f / df;
    if (z1 > z) return true;
    z = z1;
    f = f_of(z);
    if (f > kTolerance) return true;
  }
  if (iter >= kIterations) return true;
  // rotate from the endpoint that the other lies counter-clockwise of
  Vec2 from;
  double ang;
  if (cross2(d0, d1) > 0) {
    from = d0.normalized();
    ang = std::asin(z) - std::asin(A * z);
  } else {
    from = d1.normalized();
    ang = std::asin(z) - std::asin(B * z);
  }
  *t = r * Vec2(std::cos(ang) * from.x() - std::sin(ang) * from.y(),
                std::sin(ang) * from.x() + std::cos(ang) * from.y());
  return true;
}

}  // namespace

bool wrap_circle(const Vec2& d0, const Vec2& d1, double r, const Vec2* side, bool inside,
                 Vec2* t0, Vec2* t1, double* curve) {
  if (inside) {
    *curve = 0;
    if (!wrap_inside(d0, d1, r, t0)) return false;
    *t1 = *t0;
    return true;
  }
  const double r2 = r * r;
  if (d0.squaredNorm() < r2 || d1.squaredNorm() < r2 || r < kTiny) return false;
  const Vec2 dif = d1 - d0;
  const double dd = dif.squaredNorm();
  if (dd < kTiny) return false;
  // the segment's closest point to the centre: no wrap when it is outside, unless the side point
  // lies opposite it
  const double a = std::clamp(-dif.dot(d0) / dd, 0.0, 1.0);
  const Vec2 closest = d0 + a * dif;
  if (closest.squaredNorm() > r2 && (!side || side->dot(closest) >= 0)) return false;

  // The two windings (90): counter-clockwise (s = +1) meets the circle at φ0 + α0 and leaves it at
  // φ1 − α1, α = acos(r/|d|); its arc is (s(φ1 − φ0) mod 2π) − α0 − α1, negative when its tangent
  // segments cross (no such path).
  const double phi0 = std::atan2(d0.y(), d0.x()), phi1 = std::atan2(d1.y(), d1.x());
  const double alpha0 = std::acos(std::min(1.0, r / d0.norm()));
  const double alpha1 = std::acos(std::min(1.0, r / d1.norm()));
  bool valid[2];
  double arc[2], good[2];
  Vec2 p0[2], p1[2];
  for (int i = 0; i < 2; ++i) {
    const double s = i == 0 ? 1.0 : -1.0;
    double delta = std::fmod(s * (phi1 - phi0), 2 * M_PI);
    if (delta < 0) delta += 2 * M_PI;
    arc[i] = delta - alpha0 - alpha1;
    valid[i] = arc[i] >= 0;
    const double th0 = phi0 + s * alpha0, th1 = phi1 - s * alpha1;
    p0[i] = r * Vec2(std::cos(th0), std::sin(th0));
    p1[i] = r * Vec2(std::cos(th1), std::sin(th1));
    if (side) {
      const Vec2 mid = p0[i] + p1[i];
      good[i] = mid.norm() > kTiny ? mid.normalized().dot(*side) : 0.0;
    } else {
      good[i] = -(p0[i] - p1[i]).squaredNorm();  // the shorter chord: the shorter path
    }
    if (!valid[i]) good[i] = -1e4;
  }
  const int i = good[1] > good[0] ? 1 : 0;  // a tie: counter-clockwise, as MuJoCo
  if (!valid[i]) return false;
  *t0 = p0[i];
  *t1 = p1[i];
  *curve = r * arc[i];
  return true;
}

bool wrap_geom(GeomType type, double radius, const Vec3& p0, const Vec3& p1, const Vec3* side,
               WrapPath* out) {
  if (type != GeomType::Sphere && type != GeomType::Cylinder) return false;
  if (p0.norm() < kTiny || p1.norm() < kTiny) return false;
  // the wrapping plane's axes (89): the cross-section for a cylinder; for a sphere the plane of
  // p0, p1 and the centre (any plane through them when they are aligned with the centre)
  Vec3 e0 = Vec3::UnitX(), e1 = Vec3::UnitY();
  if (type == GeomType::Sphere) {
    e0 = p0.normalized();
    Vec3 normal = p0.cross(p1);
    if (normal.norm() < kTiny) {
      int k;
      e0.cwiseAbs().maxCoeff(&k);
      Vec3 other = Vec3::Ones();
      other[k] = 0;
      normal = e0.cross(other);
    }
    normal.normalize();
    e1 = normal.cross(e0).normalized();
  }
  const Vec2 d0(p0.dot(e0), p0.dot(e1)), d1(p1.dot(e0), p1.dot(e1));
  Vec2 sd = Vec2::Zero();
  bool inside = false;
  if (side) {  // onto the circle, or inside (MuJoCo 2.2.2)
    sd = Vec2(side->dot(e0), side->dot(e1));
    if (sd.norm() >= radius) sd = radius * sd.normalized();
    else inside = true;
  }
  Vec2 t0, t1;
  double curve;
  if (!wrap_circle(d0, d1, radius, side ? &sd : nullptr, inside, &t0, &t1, &curve)) return false;
  out->t0 = t0.x() * e0 + t0.y() * e1;
  out->t1 = t1.x() * e0 + t1.y() * e1;
  out->curve = curve;
  if (type == GeomType::Cylinder) {
    // heights in proportion to the 2D length (91): a helix, straight on the unrolled surface
    const double l0 = (d0 - t0).norm(), l1 = (d1 - t1).norm();
    const double total = l0 + curve + l1;
    const double dz = p1.z() - p0.z();
    out->t0.z() = total > kTiny ? p0.z() + dz * l0 / total : p0.z();
    out->t1.z() = total > kTiny ? p0.z() + dz * (l0 + curve) / total : p0.z();
    const double h = out->t1.z() - out->t0.z();
    out->curve = std::sqrt(curve * curve + h * h);
  }
  return true;
}

}  // namespace maxsim
