#include "sim/joint.hpp"

#include <cmath>

namespace maxsim {

double wrap_angle(double a) {
  a = std::fmod(a + M_PI, 2.0 * M_PI);
  if (a <= 0) a += 2.0 * M_PI;
  return a - M_PI;
}

Vec4 joint_relative_rotation(const Joint& joint, const Vec4& qa, const Vec4& qb) {
  return quat_mul(quat_conj(quat_mul(qa, joint.parent_frame)), quat_mul(qb, joint.child_frame));
}

void joint_rows(const Joint& j, const Pose& a, const Pose& b, JointRows* out, const Vec4* free_reference,
                bool energy_momentum) {
  const Mat3 Ra = quat_to_rot(a.q);
  const Mat3 Rb = quat_to_rot(b.q);
  const Mat3 Rpf = quat_to_rot(j.parent_frame);
  const Mat3 Rcf = quat_to_rot(j.child_frame);
  const Mat3 RajT = (Ra * Rpf).transpose();

  // translational rows (the joint-frame offset d)
  const Vec3 r = b.x + Rb * j.child_anchor - a.x - Ra * j.parent_anchor;
  out->c.head<3>() = RajT * r;
  out->Ja.block<3, 3>(0, 0) = -RajT;
  out->Ja.block<3, 3>(0, 3) = Rpf.transpose() * (skew(Ra.transpose() * r) + skew(j.parent_anchor));
  out->Jb.block<3, 3>(0, 0) = RajT;
  out->Jb.block<3, 3>(0, 3) = -RajT * Rb * skew(j.child_anchor);

  // rotational rows: right perturbations of qb act on q_rel from the right, of qa from the left
  const Vec4 qr = joint_relative_rotation(j, a.q, b.q);
  out->q_rel = qr;
  const Mat43 dq_dthb = 0.5 * Lmat(qr) * Hmat() * Rcf.transpose();
  const Mat43 dq_dtha = -0.5 * Rmat(qr) * Hmat() * Rpf.transpose();
  // three free rotations measured from a reference: q' = ref⁻¹ ⊗ q_rel; a left perturbation
  // exp(−u) ⊗ q_rel of the parent becomes exp(−Rot(ref)ᵀu) ⊗ q'
  const bool referenced = free_reference != nullptr && rot_kind(j.type) == RotKind::Free;
  const Vec4 qf = referenced ? quat_mul(quat_conj(*free_reference), qr) : qr;
  const Mat43 dqf_dthb = referenced ? Mat43(0.5 * Lmat(qf) * Hmat() * Rcf.transpose()) : dq_dthb;
  const Mat43 dqf_dtha = referenced
      ? Mat43(-0.5 * Rmat(qf) * Hmat() * quat_to_rot(*free_reference).transpose() * Rpf.transpose())
      : dq_dtha;
  out->Ja.block<3, 3>(3, 0).setZero();
  out->Jb.block<3, 3>(3, 0).setZero();
  for (int k = 0; k < 3; ++k) {
    Eigen::RowVector4d dc = Eigen::RowVector4d::Zero();
    if (j.row_constrained(3 + k) && energy_momentum) {
      out->c(3 + k) = 2.0 * qr(0) * qr(1 + k);
      dc(0) = 2.0 * qr(1 + k);
      dc(1 + k) = 2.0 * qr(0);
      out->Ja.block<1, 3>(3 + k, 3) = dc * dq_dtha;
      out->Jb.block<1, 3>(3 + k, 3) = dc * dq_dthb;
    } else if (j.row_constrained(3 + k)) {
      out->c(3 + k) = 2.0 * qr(1 + k);
      dc(1 + k) = 2.0;
      out->Ja.block<1, 3>(3 + k, 3) = dc * dq_dtha;
      out->Jb.block<1, 3>(3 + k, 3) = dc * dq_dthb;
    } else {
      const double w = qf(0), v = qf(1 + k);
      const double n2 = w * w + v * v;
      out->c(3 + k) = 2.0 * std::atan2(v, w);
      if (n2 > 0) {
        dc(0) = -2.0 * v / n2;
        dc(1 + k) = 2.0 * w / n2;
      }
      out->Ja.block<1, 3>(3 + k, 3) = dc * dqf_dtha;
      out->Jb.block<1, 3>(3 + k, 3) = dc * dqf_dthb;
    }
  }
}

}  // namespace maxsim
