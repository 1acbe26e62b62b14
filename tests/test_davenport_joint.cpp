// Davenport joints (Joint::hinge_sequence, docs/computation.md (94)–(97)): two or three hinges
// through one anchor as one joint whose rows are the hinges' angles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "sim/constraints/joint.hpp"
#include "sim/maxsim.hpp"
#include "testing/joint_rows_fd.hpp"
#include "testing/random.hpp"

using namespace maxsim;

namespace {

using maxsim::testing::random_quat;
using maxsim::testing::joint_rows_fd;
using maxsim::testing::random_vec;

// The sequences a joint can have: both universal orders and the six Tait–Bryan orders.
const std::vector<std::array<int, 3>> kSequences = {{0, 1, -1}, {1, 0, -1}, {0, 1, 2}, {1, 2, 0},
                                                    {2, 0, 1},  {0, 2, 1},  {2, 1, 0}, {1, 0, 2}};

Joint davenport_joint(const std::array<int, 3>& s, TransKind trans = TransKind::Fixed) {
  Joint j;
  const bool three = s[2] >= 0;
  const JointType types[2][4] = {
      {JointType::Orbital, JointType::PrismaticOrbital, JointType::PlanarOrbital, JointType::FreeOrbital},
      {JointType::Spherical, JointType::CylindricalFree, JointType::PlanarFree, JointType::Floating}};
  j.type = types[three ? 1 : 0][static_cast<int>(trans)];
  j.hinge_sequence = s;
  j.parent = 0;
  j.child = 1;
  return j;
}

// A body of 1 kg (inertia diag(0.02, 0.03, 0.04)) hanging 0.5 m below a world pivot by `joint`
// (its anchors and frames are set here; the joint frame is turned by `frame`).
Model hanging_body(Joint joint, const Vec4& frame = quat_identity()) {
  Model m;
  m.opt.timestep = 0.005;
  Body b;
  b.name = "bob";
  b.mass = 1.0;
  b.inertia = Vec3(0.02, 0.03, 0.04).asDiagonal();
  b.x0 = Vec3(0, 0, -0.5);
  m.add_body(b);
  joint.parent = kWorld;
  joint.child = 0;
  joint.parent_anchor = Vec3::Zero();
  joint.child_anchor = Vec3(0, 0, 0.5);
  joint.parent_frame = joint.child_frame = frame;
  joint.name = "pivot";
  m.add_joint(joint);
  return m;
}

}  // namespace

// The angles read back exactly from a rotation composed of them, and a universal joint's
// constrained row vanishes for any two angles.
TEST(DavenportJoint, AnglesOfAComposedRotationReadBack) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-3.0, 3.0), mid(-1.4, 1.4);
  for (const auto& s : kSequences) {
    const Joint j = davenport_joint(s);
    for (int n = 0; n < 20; ++n) {
      Vec3 theta;
      for (int k = 0; k < 3; ++k) theta(k) = u(rng);
      if (s[2] < 0) theta(2) = 0;
      else theta(s[1]) = mid(rng);  // the middle angle of three stays in (−π/2, π/2)
      const Mat3 R = davenport_rotation(j, theta, Vec3::Zero(), nullptr);
      JointRows rows;
      joint_rows(j, Pose{}, Pose{Vec3::Zero(), rot_to_quat(R)}, &rows);
      for (int k = 0; k < 3; ++k) {
        if (j.row_constrained(3 + k)) EXPECT_NEAR(rows.c(3 + k), 0.0, 1e-14);
        else EXPECT_NEAR(rows.c(3 + k), theta(k), 1e-12) << s[0] << s[1] << s[2] << " axis " << k;
      }
    }
  }
}

// The rows' Jacobians (both bodies, with turned joint frames and offset anchors) against
// central differences of the rows.
TEST(DavenportJoint, JacobiansMatchFiniteDifferences) {
  std::mt19937 rng(5);
  const double h = 1e-6;
  for (const auto& s : kSequences)
    for (int t = 0; t < 4; ++t) {
      Joint j = davenport_joint(s, static_cast<TransKind>(t));
      j.parent_frame = random_quat(rng);
      j.child_frame = random_quat(rng);
      j.parent_anchor = random_vec(rng);
      j.child_anchor = random_vec(rng);
      Pose a{random_vec(rng), random_quat(rng)}, b{random_vec(rng), random_quat(rng)};
      JointRows rows;
      joint_rows(j, a, b, &rows);
      if (s[2] >= 0 && std::abs(rows.c(3 + s[1])) > 1.2) continue;  // near the singular middle angle
      for (int side = 0; side < 2; ++side) {
        const Mat6 fd = joint_rows_fd(j, a, b, side, h, nullptr, true);
        const Mat6& an = side == 0 ? rows.Ja : rows.Jb;
        EXPECT_LT((fd - an).norm(), 1e-7) << s[0] << s[1] << s[2] << " trans " << t << " side " << side;
      }
      // the energy–momentum form of the universal row is the same function
      JointRows em;
      joint_rows(j, a, b, &em, nullptr, true);
      EXPECT_LT((em.c - rows.c).norm(), 1e-14);
      EXPECT_LT((em.Jb - rows.Jb).norm(), 1e-14);
    }
}

// Coordinates set by forward kinematics read back (angles in hinge-axis order, rates too), the
// constraints hold exactly and their rates vanish.
TEST(DavenportJoint, CoordinatesRoundTrip) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (const auto& s : kSequences)
    for (int t = 0; t < 4; ++t) {
      Model m = hanging_body(davenport_joint(s, static_cast<TransKind>(t)), random_quat(rng));
      ASSERT_EQ(validate_model(m), "");
      const Joint& jt = m.joints[0];
      EXPECT_EQ(jt.nq(), jt.dof());
      Data d(m);
      std::vector<double> q(jt.nq()), qd(jt.dof());
      for (double& v : q) v = u(rng);
      for (double& v : qd) v = u(rng);
      set_joint_coordinates(m, d, 0, q, qd);
      std::vector<double> q2(jt.nq()), qd2(jt.dof());
      joint_coordinates(m, d, 0, q2.data(), qd2.data());
      for (int k = 0; k < jt.nq(); ++k) EXPECT_NEAR(q2[k], q[k], 1e-12) << s[0] << s[1] << s[2] << " q" << k;
      for (int k = 0; k < jt.dof(); ++k) EXPECT_NEAR(qd2[k], qd[k], 1e-12) << s[0] << s[1] << s[2] << " qd" << k;
      EXPECT_LT(max_constraint_violation(m, d), 1e-12);
      // row_coordinate names each hinge's angle by its row
      for (int k = 0; k < 3; ++k)
        if (!jt.row_constrained(3 + k)) {
          int index = 0;
          for (int r = 0; r < 3 + k; ++r) index += jt.row_constrained(r) ? 0 : 1;
          EXPECT_NEAR(row_coordinate(m, d, 0, 3 + k).q, q[index], 1e-12);
        }
    }
}

TEST(DavenportJoint, ValidationRefusesABadSequence) {
  Joint j = davenport_joint({0, 2, -1});  // two hinges must be x and y
  EXPECT_NE(validate_model(hanging_body(j)), "");
  j = davenport_joint({0, 0, 1});
  EXPECT_NE(validate_model(hanging_body(j)), "");
  j = davenport_joint({0, 1, 2});
  j.type = JointType::Revolute;
  EXPECT_NE(validate_model(hanging_body(j)), "");
  // coordinate_order lists the free rows once each
  j = davenport_joint({0, 1, 2}, TransKind::Prismatic);
  j.coordinate_order = {5, 2, 3, 4, -1, -1};
  EXPECT_EQ(validate_model(hanging_body(j)), "");
  j.coordinate_order = {5, 5, 3, 4, -1, -1};
  EXPECT_NE(validate_model(hanging_body(j)), "");
  j.coordinate_order = {5, 2, 3, -1, -1, -1};
  EXPECT_NE(validate_model(hanging_body(j)), "");
  j.coordinate_order = {5, 0, 3, 4, -1, -1};  // row 0 is constrained
  EXPECT_NE(validate_model(hanging_body(j)), "");
}

// Coordinates in Joint::coordinate_order: values given in that order read back so, and each is
// the coordinate of its row.
TEST(DavenportJoint, CoordinateOrderPermutesTheCoordinates) {
  Joint j = davenport_joint({1, 0, 2}, TransKind::Prismatic);
  j.coordinate_order = {5, 2, 3, 4, -1, -1};
  Model m = hanging_body(j);
  Data d(m);
  set_joint_coordinates(m, d, 0, {0.3, -0.1, 0.2, -0.4}, {1, 2, 3, 4});
  std::vector<double> q(4), qd(4);
  joint_coordinates(m, d, 0, q.data(), qd.data());
  EXPECT_NEAR(q[0], 0.3, 1e-12);
  EXPECT_NEAR(qd[3], 4, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 0, 5).q, 0.3, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 0, 2).q, -0.1, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 0, 3).q, 0.2, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 0, 4).qd, 4, 1e-12);
  // rates alone (positions at the model's pose) take the same order
  set_coordinates(m, d, {{}}, {{1, 2, 3, 4}});
  EXPECT_NEAR(row_coordinate(m, d, 0, 5).qd, 1, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, 0, 2).qd, 2, 1e-12);
}

// Three hinges through one point constrain what a ball joint constrains: the same pendulum swings
// the same way (the free rows carry no force), and without damping its energy stays bounded.
TEST(DavenportJoint, ThreeHingesSwingLikeABallJoint) {
  const Vec4 frame = quat_exp(Vec3(0.3, -0.2, 0.1));
  for (const auto& s : std::vector<std::array<int, 3>>{{0, 1, 2}, {0, 2, 1}}) {
    Model gimbal = hanging_body(davenport_joint(s), frame);
    Joint ball;
    ball.type = JointType::Spherical;
    Model sph = hanging_body(ball, frame);
    Data dg(gimbal), ds(sph);
    // the same initial motion: tilted and spinning
    const Vec3 theta(0.4, -0.3, 0.2), rate(1.0, 0.5, -2.0);
    set_joint_coordinates(gimbal, dg, 0, {theta(0), theta(1), theta(2)}, {rate(0), rate(1), rate(2)});
    for (int b = 0; b < 1; ++b) {
      ds.x[b] = dg.x[b];
      ds.q[b] = dg.q[b];
      ds.v[b] = dg.v[b];
      ds.w[b] = dg.w[b];
    }
    std::vector<std::vector<double>> q, qd;
    get_coordinates(sph, ds, &q, &qd);
    set_coordinates(sph, ds, q, qd);
    const double e0 = total_energy(gimbal, dg);
    double drift = 0;
    for (int n = 0; n < 400; ++n) {  // 2 s
      ASSERT_EQ(step(gimbal, dg).status, StepStatus::Ok);
      ASSERT_EQ(step(sph, ds).status, StepStatus::Ok);
      drift = std::max(drift, std::abs(total_energy(gimbal, dg) - e0));
      // the middle angle stays away from ±90° in this swing
      ASSERT_LT(std::abs(row_coordinate(gimbal, dg, 0, 3 + s[1]).q), 1.3);
    }
    // solver tolerance 1e-6 on the impulses, integrated over 400 steps
    EXPECT_LT((dg.x[0] - ds.x[0]).norm(), 1e-5);
    EXPECT_LT(std::min((dg.q[0] - ds.q[0]).norm(), (dg.q[0] + ds.q[0]).norm()), 1e-5);
    // the variational integrator's energy error is bounded, O(Δt²) of E: ~1e-3 J here
    EXPECT_LT(drift, 5e-3);
    EXPECT_LT(max_constraint_violation(gimbal, dg), 1e-8);
  }
}

// Two hinges: the child's second axis stays perpendicular to the parent's first exactly (the
// universal joint's constrained row) while it swings, and energy stays bounded without damping.
TEST(DavenportJoint, UniversalJointKeepsItsAxesPerpendicular) {
  for (const auto& s : std::vector<std::array<int, 3>>{{0, 1, -1}, {1, 0, -1}})
  for (const Integrator integrator : {Integrator::Variational, Integrator::EnergyMomentum}) {
    const Vec4 frame = quat_exp(Vec3(-0.1, 0.2, 0.4));
    Model m = hanging_body(davenport_joint(s), frame);
    m.opt.integrator = integrator;
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.5, -0.4}, {1.5, -1.0});
    const double e0 = total_energy(m, d);
    double drift = 0, perp = 0;
    const Mat3 F = quat_to_rot(frame);
    for (int n = 0; n < 400; ++n) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      drift = std::max(drift, std::abs(total_energy(m, d) - e0));
      const Vec3 a1 = F.col(s[0]);                           // parent-fixed first axis (world)
      const Vec3 a2 = quat_to_rot(d.q[0]) * F.col(s[1]);     // child-fixed second axis
      perp = std::max(perp, std::abs(a1.dot(a2)));
    }
    EXPECT_LT(perp, 1e-8);  // the constraint holds to solver tolerance
    EXPECT_LT(drift, 5e-3);
  }
}

namespace {

// A Davenport joint whose hinges pass through different points: hinge m + 1's anchor is
// hinge m's moved by a random offset of up to 0.3 m (joint frame).
Joint offset_joint(const std::array<int, 3>& s, std::mt19937& rng, TransKind trans = TransKind::Fixed) {
  Joint j = davenport_joint(s, trans);
  j.hinge_offset[0] = 0.3 * random_vec(rng);
  if (s[2] >= 0) j.hinge_offset[1] = 0.3 * random_vec(rng);
  return j;
}

// hanging_body with the child's anchor moved to the last hinge's, as the loaders place it
Model hanging_offset_body(const Joint& joint, const Vec4& frame) {
  Model m = hanging_body(joint, frame);
  m.joints[0].child_anchor += quat_to_rot(frame) * (joint.hinge_offset[0] + joint.hinge_offset[1]);
  return m;
}

}  // namespace

// With offsets the translational rows depend on the angles (docs/computation.md (98)–(100)): all
// six rows' Jacobians still match central differences, on both bodies, for every sequence.
TEST(DavenportJoint, OffsetJacobiansMatchFiniteDifferences) {
  std::mt19937 rng(17);
  const double h = 1e-6;
  for (const auto& s : kSequences)
    for (int t = 0; t < 4; ++t)
      for (int n = 0; n < 3; ++n) {
        Joint j = offset_joint(s, rng, static_cast<TransKind>(t));
        j.parent_frame = random_quat(rng);
        j.child_frame = random_quat(rng);
        j.parent_anchor = random_vec(rng);
        j.child_anchor = random_vec(rng);
        Pose a{random_vec(rng), random_quat(rng)}, b{random_vec(rng), random_quat(rng)};
        JointRows rows;
        joint_rows(j, a, b, &rows);
        if (s[2] >= 0 && std::abs(rows.c(3 + s[1])) > 1.2) continue;  // near the singular middle angle
        for (int side = 0; side < 2; ++side) {
          const Mat6 fd = joint_rows_fd(j, a, b, side, h, nullptr, true);
          const Mat6& an = side == 0 ? rows.Ja : rows.Jb;
          // central differences: O(h²) truncation and 1e-16/h rounding on entries of order 1
          EXPECT_LT((fd - an).norm(), 1e-7) << s[0] << s[1] << s[2] << " trans " << t << " side " << side;
        }
        // the offsets change the translational rows only
        Joint one = j;
        one.hinge_offset = {Vec3::Zero(), Vec3::Zero()};
        JointRows r1;
        joint_rows(one, a, b, &r1);
        EXPECT_EQ(r1.c.tail<3>(), rows.c.tail<3>());
        EXPECT_GT((r1.c.head<3>() - rows.c.head<3>()).norm(), 1e-3);
      }
}

// Forward kinematics places the body as MuJoCo composes a body's joints: each hinge turns
// everything after it about its own anchor, T = T_1 ∘ T_2 [∘ T_3], T_m(x) = a_m + R_m (x − a_m)
// (joint frame). The coordinates read back, the constraints hold exactly and their rates vanish.
TEST(DavenportJoint, OffsetHingesComposeAsMuJoCo) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (const auto& s : kSequences) {
    const Vec4 frame = random_quat(rng);
    const Joint j = offset_joint(s, rng);
    Model m = hanging_offset_body(j, frame);
    ASSERT_EQ(validate_model(m), "");
    Data d(m);
    EXPECT_LT(max_constraint_violation(m, d), 1e-14);  // the zero configuration is the file's pose
    const int n = s[2] < 0 ? 2 : 3;
    std::vector<double> q(n), qd(n);
    for (double& v : q) v = u(rng);
    for (double& v : qd) v = u(rng);
    set_joint_coordinates(m, d, 0, q, qd);
    // the expected pose, hinge by hinge (coordinates in ascending axis order)
    Vec3 theta = Vec3::Zero();
    std::vector<int> axes(s.begin(), s.begin() + n);
    std::sort(axes.begin(), axes.end());
    for (int i = 0; i < n; ++i) theta(axes[i]) = q[i];
    const Mat3 F = quat_to_rot(frame);
    const Vec3 anchor(0, 0, 0);  // the first hinge's (world), hanging_body's pivot
    Vec3 a[3] = {Vec3::Zero(), j.hinge_offset[0], j.hinge_offset[0] + j.hinge_offset[1]};
    Vec3 x = F.transpose() * (m.bodies[0].x0 - anchor);  // the CoM in the joint frame
    Mat3 R = Mat3::Identity();
    for (int i = n - 1; i >= 0; --i) {
      const Mat3 Ri = quat_to_rot(quat_axis_angle(Vec3::Unit(s[i]), theta(s[i])));
      x = a[i] + Ri * (x - a[i]);
      R = Ri * R;
    }
    EXPECT_LT((d.x[0] - (anchor + F * x)).norm(), 1e-12) << s[0] << s[1] << s[2];
    const Mat3 Rb = quat_to_rot(d.q[0]), Rb0 = quat_to_rot(m.bodies[0].q0);
    EXPECT_LT((Rb - F * R * F.transpose() * Rb0).norm(), 1e-12);
    std::vector<double> q2(n), qd2(n);
    joint_coordinates(m, d, 0, q2.data(), qd2.data());
    for (int k = 0; k < n; ++k) {
      EXPECT_NEAR(q2[k], q[k], 1e-12);
      EXPECT_NEAR(qd2[k], qd[k], 1e-12);
    }
    EXPECT_LT(max_constraint_violation(m, d), 1e-12);
  }
}

// A universal joint with its hinges 0.2 m apart swings with its constraints exact to solver
// tolerance and its energy bounded (no damping): the offset rows are conservative constraints.
TEST(DavenportJoint, OffsetUniversalJointSwingsConservatively) {
  for (const auto& s : std::vector<std::array<int, 3>>{{0, 1, -1}, {1, 0, -1}}) {
    Joint j = davenport_joint(s);
    j.hinge_offset[0] = Vec3(0.05, -0.03, -0.2);
    Model m = hanging_offset_body(j, quat_exp(Vec3(-0.1, 0.2, 0.4)));
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.5, -0.4}, {1.5, -1.0});
    const double e0 = total_energy(m, d);
    double drift = 0, violation = 0;
    for (int n = 0; n < 400; ++n) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      drift = std::max(drift, std::abs(total_energy(m, d) - e0));
      violation = std::max(violation, max_constraint_violation(m, d));
    }
    EXPECT_LT(violation, 1e-8);
    EXPECT_LT(drift, 5e-3);  // O(Δt²) of E, as the one-anchor joint's
    // the energy–momentum integrator refuses it (its rows have no offset chain)
    m.opt.integrator = Integrator::EnergyMomentum;
    EXPECT_NE(step(m, d).status, StepStatus::Ok);
  }
}

// Two hinges at a non-right angle (Joint::hinge_cosine, docs/computation.md (118)), both orders,
// with and without an offset between them: the angles read back from a rotation composed of them
// and the constrained row vanishes (e_s0ᵀ R a_1 = c whatever the angles); the rows' Jacobians
// match central differences on both bodies; the energy–momentum form is the same row; the
// composed rotation turns a_1 about e_s0 (R a_1 lies on the cone of half-angle acos c).
TEST(DavenportJoint, SkewHingesReadBackAndDifferentiate) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (const auto& s : std::vector<std::array<int, 3>>{{0, 1, -1}, {1, 0, -1}})
    for (const double c : {0.5, -0.8, 0.98})
      for (int offset = 0; offset < 2; ++offset)
        for (int t = 0; t < 4; ++t) {
          SCOPED_TRACE(std::to_string(s[0]) + std::to_string(s[1]) + " c " + std::to_string(c) + " offset " +
                       std::to_string(offset) + " trans " + std::to_string(t));
          Joint j = davenport_joint(s, static_cast<TransKind>(t));
          j.hinge_cosine = c;
          if (offset) j.hinge_offset[0] = 0.3 * random_vec(rng);
          const Vec3 a1 = davenport_axis(j, 1);
          EXPECT_NEAR(a1.dot(Vec3::Unit(s[0])), c, 1e-15);
          for (int n = 0; n < 10; ++n) {
            Vec3 theta = Vec3::Zero();
            theta(s[0]) = u(rng);
            theta(s[1]) = u(rng);
            const Mat3 R = davenport_rotation(j, theta, Vec3::Zero(), nullptr);
            EXPECT_NEAR(Vec3::Unit(s[0]).dot(R * a1), c, 1e-14);
            JointRows rows;
            joint_rows(j, Pose{}, Pose{Vec3::Zero(), rot_to_quat(R)}, &rows);
            EXPECT_NEAR(rows.c(5), 0.0, 1e-14);
            EXPECT_NEAR(rows.c(3 + s[0]), theta(s[0]), 1e-12);
            EXPECT_NEAR(rows.c(3 + s[1]), theta(s[1]), 1e-12);
          }
          j.parent_frame = random_quat(rng);
          j.child_frame = random_quat(rng);
          j.parent_anchor = random_vec(rng);
          j.child_anchor = random_vec(rng);
          const Pose a{random_vec(rng), random_quat(rng)}, b{random_vec(rng), random_quat(rng)};
          JointRows rows, em;
          joint_rows(j, a, b, &rows);
          for (int side = 0; side < 2; ++side) {
            const Mat6 fd = joint_rows_fd(j, a, b, side, 1e-6, nullptr, true);
            EXPECT_LT((fd - (side == 0 ? rows.Ja : rows.Jb)).norm(), 1e-7) << "side " << side;
          }
          joint_rows(j, a, b, &em, nullptr, true);
          EXPECT_LT((em.c - rows.c).norm(), 1e-14);
          EXPECT_LT((em.Jb - rows.Jb).norm(), 1e-14);
        }
  // the model refuses parallel axes and a cosine on other joints
  for (const double c : {1.0, -1.0, 0.5}) {
    Joint j = davenport_joint(c == 0.5 ? std::array<int, 3>{0, 1, 2} : std::array<int, 3>{0, 1, -1});
    j.hinge_cosine = c;
    EXPECT_NE(validate_model(hanging_body(j)), "") << c;
  }
}
