#include "sim/constraints/joint.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

namespace maxsim {

double wrap_angle(double a) {
  a = std::fmod(a + M_PI, 2.0 * M_PI);
  if (a <= 0) a += 2.0 * M_PI;
  return a - M_PI;
}

namespace {

// ∂R[p][q]/∂ω for a left perturbation δR = [ω]× R: e_pᵀ (ω × R e_q) = ω · (R e_q × e_p)
Eigen::RowVector3d entry_gradient(const Mat3& R, int p, int q) {
  return R.col(q).cross(Vec3::Unit(p)).transpose();
}

// ∂ atan2(y, x) from the gradients of y and x
Eigen::RowVector3d atan2_gradient(double y, double x, const Eigen::RowVector3d& dy, const Eigen::RowVector3d& dx) {
  const double n2 = x * x + y * y;
  return n2 > 0 ? Eigen::RowVector3d((x * dy - y * dx) / n2) : Eigen::RowVector3d::Zero();
}

// The Davenport angles of R_rel (rows 3..5 by joint-frame axis) and their gradients with respect
// to the relative rotation's left perturbation ω (parent joint frame); constrained rows are left
// to the caller. Axes (i, j, k), ε = +1 for a cyclic order, −1 otherwise (docs/computation.md (95)).
void davenport_angles(const Joint& jt, const Mat3& R, Vec3* theta, Mat3* dtheta) {
  const int i = jt.hinge_sequence[0], j = jt.hinge_sequence[1], k = 3 - i - j;
  const double e = j == (i + 1) % 3 ? 1.0 : -1.0;
  theta->setZero();
  dtheta->setZero();
  if (jt.hinge_sequence[2] < 0 && jt.hinge_cosine != 0) {
    // two hinges at a non-right angle, a_1 = c e_i + s e_j: R a_1 = R_i a_1 and Rᵀ e_i = R_1ᵀ e_i
    // give tan θ_i = ε (R a_1)_k / (R a_1)_j and tan θ_j = ε R[i][k] / (R u)_i with
    // u = s e_i − c e_j, exact for any angles (docs/computation.md (118))
    const double c = jt.hinge_cosine, s = std::sqrt(1.0 - c * c);
    const double yi = e * (c * R(k, i) + s * R(k, j)), xi = c * R(j, i) + s * R(j, j);
    (*theta)(i) = std::atan2(yi, xi);
    dtheta->row(i) = atan2_gradient(yi, xi, e * (c * entry_gradient(R, k, i) + s * entry_gradient(R, k, j)),
                                    c * entry_gradient(R, j, i) + s * entry_gradient(R, j, j));
    const double xj = s * R(i, i) - c * R(i, j);
    (*theta)(j) = std::atan2(e * R(i, k), xj);
    dtheta->row(j) = atan2_gradient(e * R(i, k), xj, e * entry_gradient(R, i, k),
                                    s * entry_gradient(R, i, i) - c * entry_gradient(R, i, j));
    return;
  }
  if (jt.hinge_sequence[2] < 0) {
    // two hinges: R e_j = R_i e_j and e_iᵀ R = e_iᵀ R_j, so tan θ_i = ε R[k][j] / R[j][j] and
    // tan θ_j = ε R[i][k] / R[i][i] for any angles
    (*theta)(i) = std::atan2(e * R(k, j), R(j, j));
    dtheta->row(i) = atan2_gradient(e * R(k, j), R(j, j), e * entry_gradient(R, k, j), entry_gradient(R, j, j));
    (*theta)(j) = std::atan2(e * R(i, k), R(i, i));
    dtheta->row(j) = atan2_gradient(e * R(i, k), R(i, i), e * entry_gradient(R, i, k), entry_gradient(R, i, i));
    return;
  }
  // three hinges: tan θ_i = −ε R[j][k] / R[k][k], sin θ_j = ε R[i][k], tan θ_k = −ε R[i][j] / R[i][i]
  // (cos θ_j > 0 factors out of both atan2); the map is a chart of SO(3)
  // whose exact gradient is E⁻¹, E = [e_i, R_i e_j, R_i R_j e_k] (ω = E θ̇, docs/computation.md (96))
  (*theta)(i) = std::atan2(-e * R(j, k), R(k, k));
  (*theta)(j) = std::asin(std::clamp(e * R(i, k), -1.0, 1.0));
  (*theta)(k) = std::atan2(-e * R(i, j), R(i, i));
  // E's columns are davenport_rotation's ω for each unit rate, built in one pass over the hinges
  Mat3 E;
  Mat3 R_before = Mat3::Identity();
  for (int m = 0; m < 3; ++m) {
    const int a = jt.hinge_sequence[m];
    E.col(m) = R_before.col(a);
    if (m < 2) R_before = R_before * quat_to_rot(quat_axis_angle(Vec3::Unit(a), (*theta)(a)));
  }
  const Mat3 Einv = E.inverse();  // rows by hinge order m
  for (int m = 0; m < 3; ++m) dtheta->row(jt.hinge_sequence[m]) = Einv.row(m);
}


}  // namespace

Vec3 davenport_axis(const Joint& joint, int m) {
  const int a = joint.hinge_sequence[m];
  if (m != 1 || joint.hinge_cosine == 0) return Vec3::Unit(a);
  const double c = joint.hinge_cosine;
  return c * Vec3::Unit(joint.hinge_sequence[0]) + std::sqrt(1.0 - c * c) * Vec3::Unit(a);
}

Mat3 davenport_rotation(const Joint& joint, const Vec3& theta, const Vec3& rate, Vec3* omega) {
  Mat3 R = Mat3::Identity();
  Vec3 w = Vec3::Zero();
  for (int m = 0; m < 3 && joint.hinge_sequence[m] >= 0; ++m) {
    const int a = joint.hinge_sequence[m];
    const Vec3 axis = davenport_axis(joint, m);
    w += R * axis * rate(a);
    R = R * quat_to_rot(quat_axis_angle(axis, theta(a)));
  }
  if (omega) *omega = w;
  return R;
}

Vec3 davenport_offset(const Joint& joint, const Vec3& theta, Mat3* dv_dtheta) {
  const int n = joint.hinge_sequence[2] < 0 ? 2 : 3;
  Mat3 R = Mat3::Identity();
  Vec3 axis[3], term[2];
  for (int m = 0; m < n; ++m) {
    const int a = joint.hinge_sequence[m];
    const Vec3 own = davenport_axis(joint, m);
    axis[m] = R * own;  // hinge m's axis as the hinges before it turn it
    R = R * quat_to_rot(quat_axis_angle(own, theta(a)));
    if (m + 1 < n) term[m] = R * joint.hinge_offset[m];
  }
  // ∂v/∂θ_sl = (R_s0 ⋯ R_s(l−1) e_sl) × Σ_{m ≥ l} term_m   (docs/computation.md (99))
  Vec3 v = Vec3::Zero(), tail = Vec3::Zero();
  if (dv_dtheta) dv_dtheta->setZero();
  for (int m = n - 2; m >= 0; --m) {
    v += term[m];
    tail += term[m];
    if (dv_dtheta) dv_dtheta->col(joint.hinge_sequence[m]) = axis[m].cross(tail);
  }
  return v;
}

RotationRowTerms rotation_row_terms(const Joint& joint, int k) {
  RotationRowTerms t;
  if (joint.davenport() && joint.hinge_cosine != 0) {  // e_s0ᵀ R_rel a_1 − c (docs/computation.md (118))
    const double c = joint.hinge_cosine;
    t.count = 2;
    t.sign[0] = c;
    t.p[0] = joint.hinge_sequence[0];
    t.q[0] = joint.hinge_sequence[0];
    t.sign[1] = std::sqrt(1.0 - c * c);
    t.p[1] = joint.hinge_sequence[0];
    t.q[1] = joint.hinge_sequence[1];
    t.constant = c;
    return t;
  }
  if (joint.davenport()) {  // the universal joint's row e_s0ᵀ R_rel e_s1 (docs/computation.md (94))
    t.count = 1;
    t.sign[0] = 1.0;
    t.p[0] = joint.hinge_sequence[0];
    t.q[0] = joint.hinge_sequence[1];
    return t;
  }
  if (rot_kind(joint.type) == RotKind::Revolute) {  // rows x, y: the z axes aligned
    t.count = 1;
    t.sign[0] = k == 0 ? 1.0 : -1.0;
    t.p[0] = 2;
    t.q[0] = k == 0 ? 1 : 0;
    return t;
  }
  const int i = (k + 1) % 3, jj = (k + 2) % 3;
  t.count = 2;
  t.sign[0] = 0.5;
  t.p[0] = jj;
  t.q[0] = i;
  t.sign[1] = -0.5;
  t.p[1] = i;
  t.q[1] = jj;
  return t;
}

JointConeRow joint_cone_row(const Joint& joint, const Vec4& q_rel) {
  JointConeRow out;
  // q and −q are the same rotation: the one with w ≥ 0 turns by θ ≤ π about n
  const double w = q_rel(0) < 0 ? -q_rel(0) : q_rel(0);
  const Vec3 v = q_rel(0) < 0 ? Vec3(-q_rel.tail<3>()) : Vec3(q_rel.tail<3>());
  const double sin_half = v.norm();
  out.angle = 2.0 * std::atan2(sin_half, w);
  if (!(sin_half > 0)) return out;
  const Vec3 n = v / sin_half;
  out.Jb.tail<3>() = n.transpose() * quat_to_rot(joint.child_frame).transpose();
  out.Ja.tail<3>() = -n.transpose() * quat_to_rot(joint.parent_frame).transpose();
  return out;
}

JointConeRow joint_cone_map_row(const Joint& joint, const Vec4& q_rel2, const Vec4& q_rel3) {
  const Vec4 q3 = q_rel2.dot(q_rel3) < 0 ? Vec4(-q_rel3) : q_rel3;  // (the same rotation, on q2's side)
  return joint_cone_row(joint, (q_rel2 + q3).normalized());
}

Vec4 joint_relative_rotation(const Joint& joint, const Vec4& qa, const Vec4& qb) {
  return quat_mul(quat_conj(quat_mul(qa, joint.parent_frame)), quat_mul(qb, joint.child_frame));
}

void joint_rows(const Joint& j, const Pose& a, const Pose& b, JointRows* out, const Vec4* free_reference,
                bool energy_momentum) {
  joint_rows(j, a, b, quat_to_rot(j.parent_frame), quat_to_rot(j.child_frame), out, free_reference, energy_momentum);
}

void joint_rows(const Joint& j, const Pose& a, const Pose& b, const Mat3& Rpf, const Mat3& Rcf, JointRows* out,
                const Vec4* free_reference, bool energy_momentum) {
  const Mat3 Ra = quat_to_rot(a.q);
  const Mat3 Rb = quat_to_rot(b.q);
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
  // a Davenport joint's rows use R_rel alone (its free rows are the hinges' angles, below)
  const bool davenport = j.davenport();
  const Mat3 R_rel = davenport || energy_momentum ? quat_to_rot(qr) : Mat3();
  // ∂q_rel/∂θ of right perturbations, 0.5 L(q) H Rcfᵀ and −0.5 R(q) H Rpfᵀ (L(q) H, R(q) H: the
  // quaternion products' last three columns)
  const Mat43 dq_dthb = davenport ? Mat43::Zero() : Mat43(half_left_h(qr) * Rcf.transpose());
  const Mat43 dq_dtha = davenport ? Mat43::Zero() : Mat43(minus_half_right_h(qr) * Rpf.transpose());
  // three free rotations measured from a reference: q' = ref⁻¹ ⊗ q_rel; a left perturbation
  // exp(−u) ⊗ q_rel of the parent becomes exp(−Rot(ref)ᵀu) ⊗ q'
  const bool referenced = free_reference != nullptr && rot_kind(j.type) == RotKind::Free && !davenport;
  const Vec4 qf = referenced ? quat_mul(quat_conj(*free_reference), qr) : qr;
  const Mat43 dqf_dthb = referenced ? Mat43(half_left_h(qf) * Rcf.transpose()) : dq_dthb;
  const Mat43 dqf_dtha = referenced
      ? Mat43(-0.5 * Rmat(qf) * Hmat() * quat_to_rot(*free_reference).transpose() * Rpf.transpose())
      : dq_dtha;
  out->Ja.block<3, 3>(3, 0).setZero();
  out->Jb.block<3, 3>(3, 0).setZero();
  for (int k = 0; k < 3; ++k) {
    if (davenport && !j.row_constrained(3 + k)) continue;  // (the angles' rows, below)
    if (j.row_constrained(3 + k) && (energy_momentum || davenport)) {
      // c = Σ sign R_rel[p, q]; right perturbations: δR_rel = R_rel [Rcfᵀ δθb]× − [Rpfᵀ δθa]× R_rel
      const RotationRowTerms t = rotation_row_terms(j, k);
      out->c(3 + k) = 0;
      out->Ja.block<1, 3>(3 + k, 3).setZero();
      out->Jb.block<1, 3>(3 + k, 3).setZero();
      for (int n = 0; n < t.count; ++n) {
        out->c(3 + k) += t.sign[n] * R_rel(t.p[n], t.q[n]);
        out->Jb.block<1, 3>(3 + k, 3) -= t.sign[n] * R_rel.row(t.p[n]) * skew(Vec3::Unit(t.q[n])) * Rcf.transpose();
        out->Ja.block<1, 3>(3 + k, 3) -= t.sign[n] * R_rel.col(t.q[n]).cross(Vec3::Unit(t.p[n])).transpose() * Rpf.transpose();
      }
      if (t.constant != 0) out->c(3 + k) -= t.constant;
    } else if (j.row_constrained(3 + k)) {
      // c = 2 v_k: its gradient is twice row 1 + k of ∂q/∂θ
      out->c(3 + k) = 2.0 * qr(1 + k);
      out->Ja.block<1, 3>(3 + k, 3) = 2.0 * dq_dtha.row(1 + k);
      out->Jb.block<1, 3>(3 + k, 3) = 2.0 * dq_dthb.row(1 + k);
    } else {
      // c = 2 atan2(v_k, w): its gradient is (−2 v_k, 2 w) / (w² + v_k²) on rows 0 and 1 + k
      const double w = qf(0), v = qf(1 + k);
      const double n2 = w * w + v * v;
      out->c(3 + k) = 2.0 * std::atan2(v, w);
      double d0 = 0, dk = 0;
      if (n2 > 0) {
        d0 = -2.0 * v / n2;
        dk = 2.0 * w / n2;
      }
      out->Ja.block<1, 3>(3 + k, 3) = d0 * dqf_dtha.row(0) + dk * dqf_dtha.row(1 + k);
      out->Jb.block<1, 3>(3 + k, 3) = d0 * dqf_dthb.row(0) + dk * dqf_dthb.row(1 + k);
    }
  }
  if (davenport) {
    // free rows: the hinges' angles; the relative rotation's left perturbation in the parent
    // joint frame is ω = R_rel Rcfᵀ δθb − Rpfᵀ δθa
    Vec3 theta;
    Mat3 dtheta;
    davenport_angles(j, R_rel, &theta, &dtheta);
    for (int k = 0; k < 3; ++k) {
      if (j.row_constrained(3 + k)) continue;
      out->c(3 + k) = theta(k);
      out->Jb.block<1, 3>(3 + k, 3) = dtheta.row(k) * R_rel * Rcf.transpose();
      out->Ja.block<1, 3>(3 + k, 3) = -dtheta.row(k) * Rpf.transpose();
    }
    if (j.hinge_offsets()) {
      // rows 0..2: d − v(θ(R_rel)), the child's last anchor where the hinges carry it
      // (docs/computation.md (98)–(100))
      Mat3 dv;
      out->c.head<3>() -= davenport_offset(j, theta, &dv);
      const Mat3 dv_domega = dv * dtheta;
      out->Jb.block<3, 3>(0, 3) -= dv_domega * R_rel * Rcf.transpose();
      out->Ja.block<3, 3>(0, 3) += dv_domega * Rpf.transpose();
    }
  }
}

}  // namespace maxsim
