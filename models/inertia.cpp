#include "models/inertia.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "models/load_error.hpp"

namespace maxsim {

MassProps transform_mass(const MassProps& a, const Vec3& p, const Vec4& q) {
  MassProps out;
  out.mass = a.mass;
  const Mat3 R = quat_to_rot(q);
  out.com = p + R * a.com;
  out.inertia = R * a.inertia * R.transpose();
  return out;
}

namespace {
// Inertia of a point mass m at offset d (parallel-axis term).
Mat3 parallel_axis(double m, const Vec3& d) {
  return m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
}
}  // namespace

MassProps combine_mass(const MassProps& a, const MassProps& b) {
  MassProps out;
  out.mass = a.mass + b.mass;
  if (out.mass <= 0) {
    out.com = Vec3::Zero();
    out.inertia = a.inertia + b.inertia;
    return out;
  }
  out.com = (a.mass * a.com + b.mass * b.com) / out.mass;
  out.inertia = a.inertia + parallel_axis(a.mass, a.com - out.com) + b.inertia +
                parallel_axis(b.mass, b.com - out.com);
  out.inertia = 0.5 * (out.inertia + out.inertia.transpose()).eval();
  return out;
}

Mat3 rotate_inertia(const Vec3& diag, const Vec4& q) {
  const Mat3 R = quat_to_rot(q);
  Mat3 J = R * diag.asDiagonal() * R.transpose();
  return 0.5 * (J + J.transpose());
}

Mat3 rotate_inertia(const Mat3& inertia, const Vec4& q) {
  const Mat3 R = quat_to_rot(q);
  Mat3 J = R * inertia * R.transpose();
  return 0.5 * (J + J.transpose());
}

std::string check_mass_inertia(double mass, const Mat3& inertia) {
  std::ostringstream err;
  if (!std::isfinite(mass) || !(mass > 0)) {
    err << "mass must be positive (got " << mass << ")";
    return err.str();
  }
  if (!inertia.allFinite() ||
      (inertia - inertia.transpose()).norm() > 1e-9 * (1 + inertia.norm())) {
    return "inertia must be a finite symmetric matrix";
  }
  Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  const Vec3 e = es.eigenvalues();
  if (!(e.minCoeff() > 0)) {
    err << "inertia is not positive definite (principal moments " << e(0) << ", " << e(1) << ", "
        << e(2) << ")";
    return err.str();
  }
  const double tol = 1e-9 * e.sum();
  if (e(0) + e(1) < e(2) - tol || e(0) + e(2) < e(1) - tol || e(1) + e(2) < e(0) - tol) {
    err << "inertia violates the triangle inequality (principal moments " << e(0) << ", " << e(1)
        << ", " << e(2) << ": the largest exceeds the sum of the other two)";
    return err.str();
  }
  return "";
}

std::string check_mass_range(double mass, const LoadLimits& limits) {
  if (mass >= limits.mass_min && mass <= limits.mass_max) return "";
  std::ostringstream err;
  err << "mass " << mass << " kg is outside the plausible range [" << limits.mass_min << ", "
      << limits.mass_max << "] kg" << limit_hint("mass_min/mass_max", "mass=LO,HI");
  return err.str();
}

std::string check_inertia_range(const Mat3& inertia, const LoadLimits& limits) {
  const Vec3 e = Eigen::SelfAdjointEigenSolver<Mat3>(inertia, Eigen::EigenvaluesOnly).eigenvalues();
  if (e.minCoeff() >= limits.inertia_min && e.maxCoeff() <= limits.inertia_max) return "";
  std::ostringstream err;
  err << "inertia (principal moments " << e(0) << ", " << e(1) << ", " << e(2)
      << " kg m^2) is outside the plausible range [" << limits.inertia_min << ", "
      << limits.inertia_max << "] kg m^2" << limit_hint("inertia_min/inertia_max", "inertia=LO,HI");
  return err.str();
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

SolidProps solid_props(const Geom& g) {
  SolidProps s;
  const double pi = M_PI;
  switch (g.type) {
    case GeomType::Sphere: {
      const double r = g.size(0);
      s.volume = 4.0 / 3.0 * pi * r * r * r;
      s.unit_inertia = inertia_sphere(s.volume, r);
      break;
    }
    case GeomType::Capsule: {
      // MuJoCo's formula: cylinder of height 2h plus two hemispheres moved to its ends.
      const double r = g.size(0), h = 2 * g.size(1);
      const double vs = 4.0 / 3.0 * pi * r * r * r, vc = pi * r * r * h;
      s.volume = vs + vc;
      const double side = vc * (3 * r * r + h * h) / 12.0 + 0.4 * vs * r * r +
                          vs * h * (3 * r + 2 * h) / 8.0;
      const double axial = vc * r * r / 2.0 + 0.4 * vs * r * r;
      s.unit_inertia = Vec3(side, side, axial).asDiagonal();
      break;
    }
    case GeomType::Cylinder: {
      const double r = g.size(0), hl = g.size(1);
      s.volume = pi * r * r * 2 * hl;
      s.unit_inertia = inertia_cylinder(s.volume, r, hl);
      break;
    }
    case GeomType::Box: {
      s.volume = 8 * g.size(0) * g.size(1) * g.size(2);
      s.unit_inertia = inertia_box(s.volume, g.size);
      break;
    }
    case GeomType::Ellipsoid: {
      const double a = g.size(0), b = g.size(1), c = g.size(2);
      s.volume = 4.0 / 3.0 * pi * a * b * c;
      s.unit_inertia = (s.volume / 5.0) * Vec3(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal();
      break;
    }
    case GeomType::Mesh:
      return mesh_solid_props(g.vertices, g.faces);
    case GeomType::Plane:
      break;
  }
  return s;
}

}  // namespace maxsim
