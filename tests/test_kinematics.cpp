// Minimal coordinates in and out, and the projection onto the constraints.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

// For every joint prototype: coordinates set by forward kinematics read back the same, the
// constraints hold exactly, and the rates are consistent with the motion of the next steps.
TEST(Kinematics, CoordinatesRoundTripForAllJointTypes) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  for (int t = 0; t < 16; ++t) {
    const JointType type = static_cast<JointType>(t);
    Model m = make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0, 0.05, 0.01);
    m.opt.gravity.setZero();
    m.joints[1] = make_joint(m, type, 0, 1, Vec3(0.1, 0.0, -1.0), Vec3(1, 2, 3).normalized(), "j");
    Data d(m);
    const Joint& jt = m.joints[1];
    std::vector<double> q(jt.nq()), qd(jt.dof());
    int i = 0;
    for (int r = 0; r < 3; ++r)
      if (!jt.row_constrained(r)) q[i++] = u(rng);
    if (rot_kind(type) == RotKind::Revolute) q[i++] = u(rng);
    if (rot_kind(type) == RotKind::Orbital) {
      q[i++] = u(rng);
      q[i++] = u(rng);
    }
    if (rot_kind(type) == RotKind::Free) {
      Vec3 rv;  // drawn in order (the order of evaluation of function arguments is unspecified)
      for (int k = 0; k < 3; ++k) rv(k) = u(rng);
      const Vec4 r = quat_exp(rv);
      for (int k = 0; k < 4; ++k) q[i++] = r(k);
    }
    for (double& v : qd) v = u(rng);
    set_joint_coordinates(m, d, 1, q, qd);
    std::vector<double> q2(jt.nq()), qd2(jt.dof());
    joint_coordinates(m, d, 1, q2.data(), qd2.data());
    for (int k = 0; k < jt.nq(); ++k) EXPECT_NEAR(q2[k], q[k], 1e-12) << joint_type_name(type) << " q" << k;
    for (int k = 0; k < jt.dof(); ++k) EXPECT_NEAR(qd2[k], qd[k], 1e-12) << joint_type_name(type) << " qd" << k;
    EXPECT_LT(max_constraint_violation(m, d), 1e-12) << joint_type_name(type);
    // the rates keep the constrained rows at zero: their rate J v vanishes (an orbital joint's
    // relative angular velocity about its axis is what keeps q_rel's z part at zero)
    JointRows rows;
    joint_rows(jt, Pose{d.x[0], d.q[0]}, Pose{d.x[1], d.q[1]}, &rows);
    const Vec6 rate = rows.Ja * (Vec6() << d.v[0], d.w[0]).finished() + rows.Jb * (Vec6() << d.v[1], d.w[1]).finished();
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r)) {
        EXPECT_NEAR(rate(r), 0.0, 1e-12) << joint_type_name(type) << " row " << r;
      }
    }
  }
}

// set_coordinate_rates on a state that set_coordinates placed from the same q gives what
// set_coordinates gives with the new rates, bitwise (the derivatives' rate columns rely on it),
// and keeps the unwrapped angle of a revolute turned beyond π: for every joint prototype.
TEST(Kinematics, RatesAloneMatchTheWholePlacement) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  for (int t = 0; t < 16; ++t) {
    const JointType type = static_cast<JointType>(t);
    Model m = make_pendulum_chain(3, JointType::Revolute, 1.0, 1.0, 0.05, 0.01);
    m.joints[1] = make_joint(m, type, 0, 1, Vec3(0.1, 0.0, -1.0), Vec3(1, 2, 3).normalized(), "j");
    std::vector<std::vector<double>> q(3), qd(3), qd2(3);
    for (int j = 0; j < 3; ++j) {
      const Joint& jt = m.joints[j];
      q[j].resize(jt.nq());
      for (double& v : q[j]) v = u(rng);
      if (rot_kind(jt.type) == RotKind::Free) {
        Vec3 rv;
        for (int k = 0; k < 3; ++k) rv(k) = u(rng);
        const Vec4 r = quat_exp(rv);
        for (int k = 0; k < 4; ++k) q[j][jt.nq() - 4 + k] = r(k);
      }
      qd[j].resize(jt.dof());
      qd2[j].resize(jt.dof());
      for (double& v : qd[j]) v = u(rng);
      for (double& v : qd2[j]) v = u(rng);
    }
    q[2][0] = 4.0;  // (the last hinge beyond π)
    Data whole(m);
    set_coordinates(m, whole, q, qd2);
    Data rates(m);
    set_coordinates(m, rates, q, qd);
    set_coordinate_rates(m, rates, q, qd2);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(rates.x[i], whole.x[i]) << joint_type_name(type) << " body " << i;
      EXPECT_EQ(rates.q[i], whole.q[i]) << joint_type_name(type) << " body " << i;
      EXPECT_EQ(rates.v[i], whole.v[i]) << joint_type_name(type) << " body " << i;
      EXPECT_EQ(rates.w[i], whole.w[i]) << joint_type_name(type) << " body " << i;
      EXPECT_EQ(rates.joint_angle[i], whole.joint_angle[i]) << joint_type_name(type) << " joint " << i;
    }
    EXPECT_EQ(rates.joint_angle[2](2), 4.0);
    EXPECT_NE(rates.v[2], Data(m).v[2]);  // (the rates moved the bodies: the test can fail)
  }
}

// set_changed_coordinates on a state that set_coordinates placed from q gives, after one joint's
// coordinates change, the poses and unwrapped angles set_coordinates gives from the new q bitwise,
// and the velocities to round-off (a kept parent's angular velocity is turned back into the world
// frame); the bodies before that joint are not touched. For every joint prototype, each joint of a
// chain of four changed in turn.
TEST(Kinematics, ChangedJointsAloneMatchTheWholePlacement) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  auto draw = [&](const Joint& jt, std::vector<double>* q) {
    q->resize(jt.nq());
    for (double& v : *q) v = u(rng);
    if (rot_kind(jt.type) == RotKind::Free) {
      Vec3 rv;
      for (int k = 0; k < 3; ++k) rv(k) = u(rng);
      const Vec4 r = quat_exp(rv);
      for (int k = 0; k < 4; ++k) (*q)[jt.nq() - 4 + k] = r(k);
    }
  };
  for (int t = 0; t < 16; ++t) {
    const JointType type = static_cast<JointType>(t);
    Model m = make_pendulum_chain(4, JointType::Revolute, 1.0, 1.0, 0.05, 0.01);
    m.joints[1] = make_joint(m, type, 0, 1, Vec3(0.1, 0.0, -1.0), Vec3(1, 2, 3).normalized(), "j");
    std::vector<std::vector<double>> q(4), qd(4);
    for (int j = 0; j < 4; ++j) {
      draw(m.joints[j], &q[j]);
      qd[j].resize(m.joints[j].dof());
      for (double& v : qd[j]) v = u(rng);
    }
    for (int c = 0; c < 4; ++c) {
      if (m.joints[c].nq() == 0) continue;
      std::vector<std::vector<double>> q2 = q;
      draw(m.joints[c], &q2[c]);
      Data whole(m);
      set_coordinates(m, whole, q2, qd);
      Data changed(m);
      set_coordinates(m, changed, q, qd);
      const Data before = changed;
      std::vector<bool> mask(4, false);
      mask[c] = true;
      set_changed_coordinates(m, changed, q2, qd, mask);
      const std::string what = std::string(joint_type_name(type)) + ", joint " + std::to_string(c) + " changed";
      for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(changed.x[i], whole.x[i]) << what << ", body " << i;
        EXPECT_EQ(changed.q[i], whole.q[i]) << what << ", body " << i;
        EXPECT_LT((changed.v[i] - whole.v[i]).norm(), 1e-12) << what << ", body " << i;
        EXPECT_LT((changed.w[i] - whole.w[i]).norm(), 1e-12) << what << ", body " << i;
        EXPECT_EQ(changed.joint_angle[i], whole.joint_angle[i]) << what << ", joint " << i;
        if (i < c) {
          EXPECT_EQ(changed.w[i], before.w[i]) << what << ", body " << i;  // (not touched)
        }
      }
      // (the change moved the last body: the test can fail)
      EXPECT_TRUE(changed.x[3] != before.x[3] || changed.q[3] != before.q[3]) << what;
    }
  }
  Data d(make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0, 0.05, 0.01));
  EXPECT_THROW(set_changed_coordinates(make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0, 0.05, 0.01), d,
                                       {{0.1}, {0.2}}, {{0.0}, {0.0}}, {true}),
               std::invalid_argument);
}

TEST(Kinematics, RejectsWrongCoordinateCounts) {
  Model m = make_pendulum_chain(1, JointType::Revolute);
  Data d(m);
  EXPECT_THROW(set_joint_coordinates(m, d, 0, {0.1, 0.2}, {}), std::invalid_argument);
  EXPECT_THROW(set_joint_coordinates(m, d, 0, {NAN}, {}), std::invalid_argument);
}

// A loop assembled badly (a 5 cm error) is pulled onto its constraints, positions and velocities.
TEST(Kinematics, ProjectionRepairsAnInconsistentLoop) {
  Model m = make_three_link_loop(0.01);
  Data d(m);
  d.x[1] += Vec3(0.05, 0.0, 0.02);
  d.w[1] = Vec3(0.0, 3.0, 0.0);
  EXPECT_GT(max_constraint_violation(m, d), 0.01);
  const ProjectionReport r = project_state(m, d);
  ASSERT_TRUE(r.converged);
  EXPECT_LT(max_constraint_violation(m, d), 1e-12);
  // velocities tangent: one step later the violation is still at solver level
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_LT(max_constraint_violation(m, d), 1e-9);
}
