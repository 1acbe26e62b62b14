#include "sim/constraints/contact.hpp"

#include <algorithm>
#include <cmath>

namespace maxsim {

void contact_set_normal(Contact* c, const Vec3& normal) {
  c->normal = normal.normalized();
  const Vec3 helper = std::abs(c->normal.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  const Vec3 t1 = c->normal.cross(helper).normalized();
  c->tangent.col(0) = t1;
  c->tangent.col(1) = c->normal.cross(t1);
}

namespace {
// ∂P(z3)/∂(v, ω) of body-fixed points of one body: [Δt I, −Rot(q3)[p]× ∂θ3/∂ω], with Rot(q3) and
// ∂θ3/∂ω evaluated once for the body's points
struct PointJacobian {
  Mat3 R, D;
  double dt;
  PointJacobian(const Pose& z3, const Vec3& w, double step) : R(quat_to_rot(z3.q)), D(dtheta3_domega(w, step)), dt(step) {}
  Eigen::Matrix<double, 3, 6> at(const Vec3& p) const {
    Eigen::Matrix<double, 3, 6> J;
    J.leftCols<3>() = dt * Mat3::Identity();
    J.rightCols<3>() = -R * skew(p) * D;
    return J;
  }
};
}  // namespace

void contact_kinematics(const Contact& c, const Pose& a2, const Pose& b2, const Pose& a3, const Pose& b3,
                        double dt, ContactKinematics* out) {
  const Vec3 Pb3 = b3.x + quat_rotate(b3.q, c.point_b), Pb2 = b2.x + quat_rotate(b2.q, c.point_b);
  const Vec3 Cb3 = b3.x + quat_rotate(b3.q, c.core_b);
  Vec3 Pa3 = c.point_a, Pa2 = c.point_a, Ca3 = c.core_a;
  if (c.body_a != kWorld) {
    Pa3 = a3.x + quat_rotate(a3.q, c.point_a);
    Pa2 = a2.x + quat_rotate(a2.q, c.point_a);
    Ca3 = a3.x + quat_rotate(a3.q, c.core_a);
  }
  out->phi = c.normal.dot(Cb3 - Ca3) - c.offset;
  out->vt = c.tangent.transpose() * ((Pb3 - Pb2) - (Pa3 - Pa2)) / dt;
}

void contact_kinematics_jacobian(const Contact& c, const Pose& a3, const Pose& b3, const Vec3& wa, const Vec3& wb,
                                 double dt, ContactKinematics* out) {
  // (flat features: the core is the witness point, one Jacobian serves both)
  const PointJacobian jb(b3, wb, dt);
  const Eigen::Matrix<double, 3, 6> Jb = jb.at(c.point_b);
  out->Jphi_b = c.normal.transpose() * (c.core_b == c.point_b ? Jb : jb.at(c.core_b));
  out->Jvt_b = c.tangent.transpose() * Jb / dt;
  if (c.body_a != kWorld) {
    const PointJacobian ja(a3, wa, dt);
    const Eigen::Matrix<double, 3, 6> Ja = ja.at(c.point_a);
    out->Jphi_a = -c.normal.transpose() * (c.core_a == c.point_a ? Ja : ja.at(c.core_a));
    out->Jvt_a = -c.tangent.transpose() * Ja / dt;
  } else {
    out->Jphi_a.setZero();
    out->Jvt_a.setZero();
  }
}

Eigen::Matrix<double, 6, 3> contact_impulse_map(const Contact& c, const Vec4& q2, bool body_b) {
  Eigen::Matrix<double, 3, 3> NT;
  NT.col(0) = c.normal;
  NT.rightCols<2>() = c.tangent;
  const Vec3& p = body_b ? c.point_b : c.point_a;
  Eigen::Matrix<double, 6, 3> M;
  M.topRows<3>() = NT;
  M.bottomRows<3>() = skew(p) * quat_to_rot(q2).transpose() * NT;
  return body_b ? Eigen::Matrix<double, 6, 3>(-M) : M;
}

bool cone_nt_scaling(const Vec3& beta, const Vec3& eta, ConeScaling* out) {
  const double det_b = beta(0) * beta(0) - beta.tail<2>().squaredNorm();
  const double det_e = eta(0) * eta(0) - eta.tail<2>().squaredNorm();
  if (!(det_b > 0) || !(det_e > 0) || beta(0) <= 0 || eta(0) <= 0) return false;
  const Vec3 bn = beta / std::sqrt(det_b), en = eta / std::sqrt(det_e);  // unit "determinant"
  const double g = std::sqrt(0.5 * (1.0 + bn.dot(en)));
  const Vec3 Jen(en(0), -en(1), -en(2));
  const Vec3 w = (bn + Jen) / (2.0 * g);  // the normalized scaling point, w0² − ‖w1‖² = 1
  const Vec3 v = (w + Vec3::UnitX()) / std::sqrt(2.0 * (w(0) + 1.0));
  const double scale = std::pow(det_b / det_e, 0.25);
  const Mat3 J = Vec3(1, -1, -1).asDiagonal();
  const Vec3 Jv = J * v;
  out->W = scale * (2.0 * v * v.transpose() - J);
  out->W_inv = (2.0 * Jv * Jv.transpose() - J) / scale;
  out->lambda = out->W * eta;
  return out->lambda.allFinite() && out->W_inv.allFinite();
}

double cone_max_step(const Vec3& u, const Vec3& du) {
  // (u0 + α d0)² − ‖u1 + α d1‖² ≥ 0 and u0 + α d0 ≥ 0
  const double a = du(0) * du(0) - du.tail<2>().squaredNorm();
  const double b = 2.0 * (u(0) * du(0) - u.tail<2>().dot(du.tail<2>()));
  const double c = u(0) * u(0) - u.tail<2>().squaredNorm();
  // a step into the cone from strictly inside never leaves it (b ≥ 0 then, and both roots are
  // ≤ 0): the common case, without the square root and divisions below
  if (du(0) >= 0 && a >= 0 && b >= 0 && c > 0) return 1.0;
  double alpha = 1.0;
  if (du(0) < 0) alpha = std::min(alpha, -u(0) / du(0));
  // smallest positive root of a α² + b α + c
  if (std::abs(a) < 1e-300) {
    if (b < 0) alpha = std::min(alpha, -c / b);
  } else {
    const double disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const double sq = std::sqrt(disc);
      for (double r : {(-b - sq) / (2 * a), (-b + sq) / (2 * a)})
        if (r > 0) alpha = std::min(alpha, r);
    }
  }
  return std::max(alpha, 0.0);
}

}  // namespace maxsim
