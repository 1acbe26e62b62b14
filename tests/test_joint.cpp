// Quaternion conventions and every Jacobian the solver uses, against finite differences.
#include <gtest/gtest.h>

#include <random>

#include "mechanisms/builders.hpp"
#include "sim/integrator/body_dynamics.hpp"
#include "sim/data.hpp"
#include "sim/constraints/joint.hpp"
#include "sim/solver/assemble.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/step.hpp"
#include "testing/joint_rows_fd.hpp"
#include "testing/random.hpp"

using namespace maxsim;

namespace {

using maxsim::testing::random_quat;
using maxsim::testing::random_vec;

// The rows' Jacobians at poses a, b (measured from `reference` for three free rotations, see
// joint_rows) against central differences over right perturbations of each body.
void expect_rows_match_finite_differences(const Joint& jt, const Pose& a, const Pose& b,
                                          const Vec4* reference = nullptr) {
  const double h = 1e-6;
  JointRows rows;
  joint_rows(jt, a, b, &rows, reference);
  for (int side = 0; side < 2; ++side) {
    const Mat6 fd = maxsim::testing::joint_rows_fd(jt, a, b, side, h, reference);
    const Mat6& an = side == 0 ? rows.Ja : rows.Jb;
    EXPECT_LT((fd - an).norm(), 1e-7) << joint_type_name(jt.type) << " side " << side;
  }
}

}  // namespace

TEST(Quaternion, MultiplicationMatricesAndRotation) {
  std::mt19937 rng(1);
  for (int k = 0; k < 20; ++k) {
    const Vec4 q = random_quat(rng), p = random_quat(rng);
    EXPECT_LT((quat_mul(q, p) - Lmat(q) * p).norm(), 1e-14);
    EXPECT_LT((quat_mul(q, p) - Rmat(p) * q).norm(), 1e-14);
    // Rot(q) = V L(q) R(q)ᵀ H (docs/computation.md (4))
    const Mat3 R = Hmat().transpose() * Lmat(q) * Rmat(q).transpose() * Hmat();
    EXPECT_LT((R - quat_to_rot(q)).norm(), 1e-14);
    EXPECT_LT((quat_to_rot(q) - Eigen::Quaterniond(q(0), q(1), q(2), q(3)).toRotationMatrix()).norm(), 1e-14);
    const Vec3 th = random_vec(rng, 1.5);  // |θ| < π: the log returns the shortest rotation
    EXPECT_LT((quat_log(quat_exp(th)) - th).norm(), 1e-12);
  }
}

TEST(Quaternion, DiscreteAngularVelocityRoundTrip) {
  std::mt19937 rng(2);
  const double dt = 0.01;
  for (int k = 0; k < 20; ++k) {
    const Vec4 q2 = random_quat(rng);
    const Vec3 w = random_vec(rng, 50.0);
    const Vec4 q3 = quat_mul(q2, omega_step_quat(w, dt));
    EXPECT_NEAR(q3.norm(), 1.0, 1e-15);  // unit norm by construction (docs/computation.md (7))
    EXPECT_LT((omega_from_quats(q2, q3, dt) - w).norm(), 1e-10);
  }
}

TEST(Quaternion, Dtheta3DomegaMatchesFiniteDifferences) {
  std::mt19937 rng(3);
  const double dt = 0.01, h = 1e-6;
  for (int k = 0; k < 10; ++k) {
    const Vec4 q2 = random_quat(rng);
    const Vec3 w = random_vec(rng, 40.0);
    const Vec4 q3 = quat_mul(q2, omega_step_quat(w, dt));
    Mat3 fd;
    for (int c = 0; c < 3; ++c) {
      Vec3 wp = w, wm = w;
      wp(c) += h;
      wm(c) -= h;
      const Vec4 qp = quat_mul(q2, omega_step_quat(wp, dt)), qm = quat_mul(q2, omega_step_quat(wm, dt));
      // body-frame rotation vector of the perturbed q3 relative to q3
      fd.col(c) = (quat_log(quat_mul(quat_conj(q3), qp)) - quat_log(quat_mul(quat_conj(q3), qm))) / (2 * h);
    }
    EXPECT_LT((fd - dtheta3_domega(w, dt)).norm(), 1e-7 * dt);
  }
}

// Every one of the 16 joint prototypes: all six rows against central differences in right
// perturbations of both bodies. h = 1e-6 gives truncation O(h²) ~ 1e-12 and round-off ~1e-10.
TEST(Joint, RowJacobiansMatchFiniteDifferencesForAllTypes) {
  std::mt19937 rng(4);
  for (int t = 0; t < 16; ++t) {
    const JointType type = static_cast<JointType>(t);
    Joint jt;
    jt.type = type;
    jt.parent = 0;
    jt.child = 1;
    jt.parent_anchor = random_vec(rng);
    jt.child_anchor = random_vec(rng);
    jt.parent_frame = random_quat(rng);
    jt.child_frame = random_quat(rng);
    for (int trial = 0; trial < 5; ++trial) {
      Pose a{random_vec(rng), random_quat(rng)};
      // keep the relative rotation within ±(π − margin) so atan2 rows are smooth
      Pose b{random_vec(rng), quat_mul(quat_mul(a.q, jt.parent_frame),
                                       quat_mul(quat_exp(random_vec(rng, 1.2)), quat_conj(jt.child_frame)))};
      expect_rows_match_finite_differences(jt, a, b);
    }
  }
}

// Three free rotations measured from a reference relative rotation (how the step measures them,
// from the previous knot): exact Jacobians for spherical and floating joints, and regular rows
// half a turn away from the identity, where 2 atan2(v_k, w) of q_rel itself is singular.
TEST(Joint, FreeRotationRowsFromAReference) {
  std::mt19937 rng(9);
  for (JointType type : {JointType::Spherical, JointType::Floating, JointType::CylindricalFree}) {
    Joint jt;
    jt.type = type;
    jt.parent_anchor = random_vec(rng);
    jt.child_anchor = random_vec(rng);
    jt.parent_frame = random_quat(rng);
    jt.child_frame = random_quat(rng);
    for (int trial = 0; trial < 5; ++trial) {
      Pose a{random_vec(rng), random_quat(rng)}, b{random_vec(rng), random_quat(rng)};
      // the reference: the relative rotation a little earlier
      const Vec4 ref = quat_mul(joint_relative_rotation(jt, a.q, b.q), quat_exp(random_vec(rng, 0.3)));
      expect_rows_match_finite_differences(jt, a, b, &ref);
    }
    // half a turn about x: measured from the identity, rows y and z sit at atan2(0, 0)
    Joint plain;
    plain.type = type;
    const Pose a{}, b{Vec3::Zero(), Vec4(0, 1, 0, 0)};
    JointRows from_identity, from_reference;
    joint_rows(plain, a, b, &from_identity);
    EXPECT_TRUE(from_identity.Jb.allFinite());
    const Vec4 ref = quat_mul(b.q, quat_exp(Vec3(0.01, -0.02, 0.03)));
    joint_rows(plain, a, b, &from_reference, &ref);
    EXPECT_TRUE(from_reference.Jb.allFinite());
    EXPECT_GT(std::abs(from_reference.Jb.bottomRightCorner<3, 3>().determinant()), 0.9);
  }
}

TEST(Joint, ConstrainedRowsVanishAtTheZeroConfiguration) {
  for (int t = 0; t < 16; ++t) {
    Model m = make_pendulum_chain(2, JointType::Revolute);
    m.joints[1] = make_joint(m, static_cast<JointType>(t), 0, 1, Vec3(0.1, 0.2, -1.0), Vec3(1, 2, 3).normalized());
    JointRows rows;
    Data d(m);
    joint_rows(m.joints[1], body_pose(d, 0), body_pose(d, 1), &rows);
    EXPECT_LT(rows.c.norm(), 1e-14);
  }
}

TEST(BodyDynamics, JacobianMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  Body b;
  b.mass = 2.0;
  b.inertia << 3, 0.2, 0.1, 0.2, 4, -0.3, 0.1, -0.3, 5;
  const double dt = 0.01, h = 1e-6;
  for (int k = 0; k < 5; ++k) {
    const Vec3 vp = random_vec(rng), wp = random_vec(rng, 20), v = random_vec(rng), w = random_vec(rng, 20);
    Mat6 fd;
    for (int c = 0; c < 6; ++c) {
      Vec6 e = Vec6::Zero();
      e(c) = h;
      const Vec6 rp = body_residual(b, vp, wp, v + e.head<3>(), w + e.tail<3>(), Vec3(0, 0, -9.81), Vec3::Zero(), Vec3::Zero(), dt);
      const Vec6 rm = body_residual(b, vp, wp, v - e.head<3>(), w - e.tail<3>(), Vec3(0, 0, -9.81), Vec3::Zero(), Vec3::Zero(), dt);
      fd.col(c) = (rp - rm) / (2 * h);
    }
    EXPECT_LT((fd - body_jacobian(b, w, dt)).norm(), 1e-7);
  }
}

// The assembled Newton matrix is the derivative of the step residual (bodies, joints with
// springs and dampers, a loop), so Newton converges quadratically.
TEST(Step, NewtonMatrixMatchesFiniteDifferences) {
  Model m = make_fourbar(0.01);
  for (auto& j : m.joints) {
    j.damping.fill(0.7);
    j.stiffness.fill(3.0);
    j.armature.fill(0.05);
  }
  m.joints.push_back(make_joint(m, JointType::Spherical, 1, 3, m.bodies[3].x0, Vec3::UnitZ(), "extra"));
  m.joints.back().damping.fill(0.3);
  Data d(m);
  std::mt19937 rng(6);
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    d.v[i] = random_vec(rng);
    d.w[i] = random_vec(rng, 3);
  }
  const SystemLayout& layout = workspace(m, d).layout;  // (the graph built, the step the model's)
  step_prepare(m, d);
  const int n = layout.size();
  Eigen::VectorXd s = Eigen::VectorXd::Random(n);
  for (int i = 0; i < layout.bodies; ++i) layout.angular(s, i) *= 3;
  Eigen::VectorXd F(n), Fp(n), Fm(n);
  step_residual(m, d, s, &F);
  step_jacobian(m, d, s);
  const Eigen::MatrixXd A = workspace(d).ldu.to_dense();
  Eigen::MatrixXd fd(n, n);
  const double h = 1e-6;
  for (int c = 0; c < n; ++c) {
    Eigen::VectorXd sp = s, sm = s;
    sp(c) += h;
    sm(c) -= h;
    step_residual(m, d, sp, &Fp);
    step_residual(m, d, sm, &Fm);
    fd.col(c) = (Fp - Fm) / (2 * h);
  }
  EXPECT_LT((fd - A).cwiseAbs().maxCoeff(), 1e-6);
}
