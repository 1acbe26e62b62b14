#include "models/inertia.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <Eigen/Eigenvalues>

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

std::string check_mass_inertia(double mass, const Mat3& inertia, bool triangle) {
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
  return triangle ? triangle_inequality_violation(inertia) : "";
}

std::string triangle_inequality_violation(const Mat3& inertia) {
  Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  const Vec3 e = es.eigenvalues();
  const double tol = 1e-9 * e.sum();
  if (e(0) + e(1) < e(2) - tol || e(0) + e(2) < e(1) - tol || e(1) + e(2) < e(0) - tol) {
    std::ostringstream err;
    err << "inertia violates the triangle inequality (principal moments " << e(0) << ", " << e(1) << ", " << e(2)
        << ": the largest exceeds the sum of the other two by " << 100 * (e(2) - e(0) - e(1)) / (e(0) + e(1))
        << " %)";
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

SolidProps solid_props(const Geom& g) { return shape_of(g.type).solid(g); }

int bound_inertia_by_armature(Model* model, double ratio) {
  if (!(ratio > 0)) return 0;
  const int nb = static_cast<int>(model->bodies.size());
  std::vector<double> moment(nb, 0.0), mass(nb, 0.0);  // the floors
  for (const Joint& j : model->joints) {
    double rot = 0, lin = 0;  // the joint's largest rotor on a turning and on a sliding row
    for (int r = 0; r < 6; ++r) {
      if (j.row_constrained(r)) continue;
      (r < 3 ? lin : rot) = std::max(r < 3 ? lin : rot, j.armature[r]);
    }
    for (int b : {j.parent, j.child}) {
      if (b < 0 || b >= nb) continue;  // (the world; validate_model reports bad indices)
      moment[b] = std::max(moment[b], ratio * rot);
      mass[b] = std::max(mass[b], ratio * lin);
    }
  }
  int raised = 0;
  for (int b = 0; b < nb; ++b) {
    Body& body = model->bodies[b];
    bool changed = false;
    if (body.mass < mass[b]) {
      body.mass = mass[b];
      changed = true;
    }
    if (moment[b] > 0) {
      // the principal moments below the floor are raised, the principal axes kept; a body above
      // it keeps its tensor bit for bit
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(body.inertia);
      if (eig.info() == Eigen::Success && eig.eigenvalues().minCoeff() < moment[b]) {
        const Vec3 d = eig.eigenvalues().cwiseMax(moment[b]);
        const Mat3& V = eig.eigenvectors();
        body.inertia = V * d.asDiagonal() * V.transpose();
        body.inertia = 0.5 * (body.inertia + body.inertia.transpose()).eval();
        changed = true;
      }
    }
    raised += changed;
  }
  return raised;
}

void apply_inertia_floor(const std::string& path, const LoadOptions& options, Model* model, LoadReport* report) {
  const double ratio = options.armature_inertia_floor;
  if (!(ratio >= 0 && ratio <= 1e-3))  // (NaN too)
    throw LoadError(path, "LoadOptions::armature_inertia_floor must be a ratio in [0, 1e-3], not " +
                              std::to_string(ratio));
  const int raised = bound_inertia_by_armature(model, ratio);
  if (raised == 0) return;
  std::ostringstream value;
  value << raised << (raised == 1 ? " body" : " bodies") << " raised to " << ratio << " x their joints' armature";
  report->sources.push_back({"inertia floor", value.str(), "maxsim (LoadOptions::armature_inertia_floor)"});
}

}  // namespace maxsim
