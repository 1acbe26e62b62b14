// Jacobians and the mass matrix (sim/state/jacobian.hpp): point Jacobians against finite
// differences of the configuration, the mass matrix against the kinetic energy on corpus trees,
// both against MuJoCo 2.2.2's mj_jacSite and mj_fullM when it is installed.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "models/load.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string source(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

// A random state in MuJoCo's layout: qpos0 plus noise (unit quaternions), random qvel.
void random_state(const Model& m, Data& d, std::mt19937& rng, std::vector<double>* qpos_out = nullptr) {
  std::normal_distribution<double> N(0, 0.3);
  std::vector<double> qpos = get_qpos(m, d), qvel(qvel_size(m));
  const std::vector<int> adr = qpos_addresses(m);
  for (double& q : qpos) q += N(rng);
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& jt = m.joints[j];
    if (adr[j] < 0 || jt.nq() == jt.dof()) continue;
    const int a = adr[j] + jt.nq() - 4;  // the quaternion is last (after a free joint's position)
    double n = 0;
    for (int k = 0; k < 4; ++k) n += qpos[a + k] * qpos[a + k];
    for (int k = 0; k < 4; ++k) qpos[a + k] /= std::sqrt(n);
  }
  for (double& v : qvel) v = N(rng);
  set_qpos_qvel(m, d, qpos, qvel);
  if (qpos_out) *qpos_out = qpos;
}

// qpos moved by h along qvel entry k (a quaternion rotated by h about its body-frame axis).
std::vector<double> moved(const Model& m, std::vector<double> qpos, int k, double h) {
  const std::vector<int> qa = qpos_addresses(m), va = qvel_addresses(m);
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& jt = m.joints[j];
    if (va[j] < 0 || k < va[j] || k >= va[j] + jt.dof()) continue;
    const int i = k - va[j];
    if (jt.nq() == jt.dof() || i < jt.dof() - 3) {
      qpos[qa[j] + i] += h;
    } else {  // a rotation rate: q ← q ⊗ exp(h e_i) (MuJoCo's body-frame angular velocity)
      const int a = qa[j] + jt.nq() - 4;
      Vec4 q(qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3]);
      Vec3 axis = Vec3::Zero();
      axis(i - (jt.dof() - 3)) = 1;
      q = quat_mul(q, quat_axis_angle(axis, h));
      for (int c = 0; c < 4; ++c) qpos[a + c] = q(c);
    }
  }
  return qpos;
}

}  // namespace

// On corpus trees (free bases, hinges, slides, a ball joint, merged multi-joint bodies), each
// column of a point's Jacobian equals the central difference of the point's position along that
// qvel entry (h = 1e-6: truncation ~h² ≈ 1e-12, round-off ~1e-10), and the angular rows the
// difference of the body's rotation.
TEST(Jacobian, PointJacobianIsTheDerivativeOfThePoint) {
  for (const char* file : {"tests/data/sensors/every_sensor.xml", "robots/a1/xml/a1.xml",
                           "tests/data/models/gym_mujoco/half_cheetah.xml", "tests/data/models/gym_mujoco/humanoid.xml"}) {
    SCOPED_TRACE(file);
    const Model m = load_model(source(file));
    Data d(m);
    std::mt19937 rng(11);
    std::vector<double> qpos;
    random_state(m, d, rng, &qpos);
    const int b = static_cast<int>(m.bodies.size()) - 1;
    const Vec3 local(0.03, -0.02, 0.05);
    const Vec3 p = d.x[b] + quat_to_rot(d.q[b]) * local;
    Eigen::MatrixXd jacp, jacr;
    point_jacobian(m, d, b, p, &jacp, &jacr);
    ASSERT_EQ(jacp.cols(), qvel_size(m));
    const double h = 1e-6;
    Data e(m);
    const std::vector<double> zero(qvel_size(m), 0.0);
    for (int k = 0; k < qvel_size(m); ++k) {
      set_qpos_qvel(m, e, moved(m, qpos, k, h), zero);
      const Vec3 pp = e.x[b] + quat_to_rot(e.q[b]) * local;
      const Mat3 Rp = quat_to_rot(e.q[b]);
      set_qpos_qvel(m, e, moved(m, qpos, k, -h), zero);
      const Vec3 pm = e.x[b] + quat_to_rot(e.q[b]) * local;
      const Mat3 Rm = quat_to_rot(e.q[b]);
      const Vec3 dp = (pp - pm) / (2 * h);
      const Mat3 dR = (Rp - Rm) / (2 * h) * quat_to_rot(d.q[b]).transpose();  // skew(ω)
      const Vec3 w(dR(2, 1), dR(0, 2), dR(1, 0));
      EXPECT_LT((dp - jacp.col(k)).norm(), 1e-7) << "column " << k;
      EXPECT_LT((w - jacr.col(k)).norm(), 1e-7) << "column " << k;
    }
  }
}

// ½ qvelᵀ M qvel is the bodies' kinetic energy plus the armature's ½ a q̇² (to round-off), M is
// symmetric and positive definite on these trees.
TEST(Jacobian, MassMatrixIsTheKineticEnergysHessian) {
  for (const char* file : {"tests/data/sensors/every_sensor.xml", "robots/a1/xml/a1.xml",
                           "tests/data/models/gym_mujoco/humanoid.xml", "tests/data/models/gym_mujoco/ant.xml"}) {
    SCOPED_TRACE(file);
    const Model m = load_model(source(file));
    Data d(m);
    std::mt19937 rng(5);
    random_state(m, d, rng);
    const Eigen::MatrixXd M = mass_matrix(m, d);
    const std::vector<double> qv = get_qvel(m, d);
    const Eigen::Map<const Eigen::VectorXd> v(qv.data(), static_cast<Eigen::Index>(qv.size()));
    double armature = 0;
    const std::vector<int> adr = qvel_addresses(m);
    for (size_t j = 0; j < m.joints.size(); ++j)
      for (int r = 0; r < 6; ++r) {
        const Joint& jt = m.joints[j];
        if (adr[j] < 0 || jt.row_constrained(r)) continue;
        // a scalar row's rate, or a free rotation's (the joint's last three rates)
        const int i = row_has_coordinate(jt, r) ? row_coordinate_index(jt, r) : jt.dof() - 3 + (r - 3);
        armature += 0.5 * jt.armature[r] * v(adr[j] + i) * v(adr[j] + i);
      }
    const double ke = kinetic_energy(m, d) + armature;
    EXPECT_NEAR(0.5 * v.dot(M * v), ke, 1e-12 * std::max(1.0, ke));
    EXPECT_LT((M - M.transpose()).norm(), 1e-12 * M.norm());
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues().minCoeff(), 0.0);
  }
}

// A URDF's links are sites of their names, also the fixed links merged into their parent: the
// Panda's panda_link8 (0.107 m along link 7's z), panda_hand (turned −45° about z) and
// panda_grasptarget (0.105 m further) keep the file's chain of fixed joints at any configuration
// (1e-12), and the grasp target's Jacobian is the derivative of its position.
TEST(Jacobian, UrdfLinkFramesAreSites) {
  const Model m = load_model(source("tests/data/models/franka_panda/panda.urdf"));
  Data d(m);
  std::mt19937 rng(2);
  random_state(m, d, rng);
  const std::vector<double> qpos = get_qpos(m, d);  // (the fingers' mimic coupling closed by the projection)
  auto pose = [&](const std::string& name) {
    const Pose p = site_pose(m, d, m.site_index(name));
    return std::make_pair(p.x, quat_to_rot(p.q));
  };
  const auto [p7, R7] = pose("panda_link7");
  const auto [p8, R8] = pose("panda_link8");
  const auto [ph, Rh] = pose("panda_hand");
  const auto [pg, Rg] = pose("panda_grasptarget");
  EXPECT_LT((p8 - (p7 + R7 * Vec3(0, 0, 0.107))).norm(), 1e-12);
  EXPECT_LT((R8 - R7).norm(), 1e-12);
  EXPECT_LT((Rh - R8 * quat_to_rot(quat_axis_angle(Vec3::UnitZ(), -0.785398163397))).norm(), 1e-12);
  EXPECT_LT((pg - (ph + Rh * Vec3(0, 0, 0.105))).norm(), 1e-12);
  EXPECT_EQ(m.sites[m.site_index("panda_grasptarget")].body, m.sites[m.site_index("panda_link7")].body);
  Eigen::MatrixXd jacp, jacr;
  site_jacobian(m, d, m.site_index("panda_grasptarget"), &jacp, &jacr);
  // the site's velocity is the Jacobian times qvel
  Vec3 lin, ang;
  site_velocity(m, d, m.site_index("panda_grasptarget"), &lin, &ang);
  const std::vector<double> qv = get_qvel(m, d);
  const Eigen::Map<const Eigen::VectorXd> v(qv.data(), static_cast<Eigen::Index>(qv.size()));
  EXPECT_LT((lin - jacp * v).norm(), 1e-12 * std::max(1.0, lin.norm()));
  EXPECT_LT((ang - jacr * v).norm(), 1e-12 * std::max(1.0, ang.norm()));
  EXPECT_THROW(site_pose(m, d, static_cast<int>(m.sites.size())), std::invalid_argument);
  const double h = 1e-6;
  Data e(m);
  const std::vector<double> zero(qvel_size(m), 0.0);
  ASSERT_EQ(qvel_size(m), 15);  // a floating base (URDF), 7 arm joints, 2 fingers
  EXPECT_TRUE(jacp.rightCols<2>().isZero(0));  // the fingers do not move the hand
  for (int k = 0; k < 13; ++k) {  // (moving one finger alone breaks the coupling)
    set_qpos_qvel(m, e, moved(m, qpos, k, h), zero);
    const Site& s = m.sites[m.site_index("panda_grasptarget")];
    const Vec3 plus = e.x[s.body] + quat_to_rot(e.q[s.body]) * s.pos;
    set_qpos_qvel(m, e, moved(m, qpos, k, -h), zero);
    const Vec3 minus = e.x[s.body] + quat_to_rot(e.q[s.body]) * s.pos;
    EXPECT_LT(((plus - minus) / (2 * h) - jacp.col(k)).norm(), 1e-7) << "column " << k;
  }
}

TEST(Jacobian, BadInputIsRefused) {
  const Model m = load_model(source("tests/data/sensors/every_sensor.xml"));
  const Data d(m);
  Eigen::MatrixXd J;
  EXPECT_THROW(point_jacobian(m, d, 99, Vec3::Zero(), &J), std::invalid_argument);
  EXPECT_THROW(point_jacobian(m, d, 0, Vec3(NAN, 0, 0), &J), std::invalid_argument);
  EXPECT_THROW(site_jacobian(m, d, -1, &J), std::invalid_argument);
  point_jacobian(m, d, kWorld, Vec3::Zero(), &J);  // the world does not move
  EXPECT_TRUE(J.isZero(0));
}

#ifdef MAXSIM_WITH_MUJOCO
#include <mujoco/mujoco.h>

// The same states in MuJoCo 2.2.2: mj_jacSite and mj_fullM agree within 1e-9 (the armature too).
TEST(Jacobian, SiteJacobianAndMassMatrixMatchMuJoCo) {
  for (const char* file : {"tests/data/sensors/every_sensor.xml", "robots/a1/xml/a1.xml"}) {
    SCOPED_TRACE(file);
    char err[1000] = "";
    mjModel* mm = mj_loadXML(source(file).c_str(), nullptr, err, sizeof err);
    ASSERT_NE(mm, nullptr) << err;
    mjData* md = mj_makeData(mm);
    const Model m = load_model(source(file));
    ASSERT_EQ(qvel_size(m), mm->nv);
    Data d(m);
    std::mt19937 rng(3);
    for (int trial = 0; trial < 3; ++trial) {
      random_state(m, d, rng);
      const std::vector<double> qpos = get_qpos(m, d), qvel = get_qvel(m, d);
      for (int i = 0; i < mm->nq; ++i) md->qpos[i] = qpos[i];
      for (int i = 0; i < mm->nv; ++i) md->qvel[i] = qvel[i];
      mj_forward(mm, md);
      std::vector<double> full(static_cast<size_t>(mm->nv * mm->nv));
      mj_fullM(mm, full.data(), md->qM);
      const Eigen::MatrixXd M = mass_matrix(m, d);
      for (int r = 0; r < mm->nv; ++r)
        for (int c = 0; c < mm->nv; ++c) EXPECT_NEAR(M(r, c), full[r * mm->nv + c], 1e-9) << r << "," << c;
      for (int s = 0; s < mm->nsite; ++s) {
        const char* name = mj_id2name(mm, mjOBJ_SITE, s);
        ASSERT_NE(name, nullptr);
        std::vector<double> jp(3 * mm->nv), jr(3 * mm->nv);
        mj_jacSite(mm, md, jp.data(), jr.data(), s);
        Eigen::MatrixXd lin, ang;
        site_jacobian(m, d, m.site_index(name), &lin, &ang);
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < mm->nv; ++c) {
            EXPECT_NEAR(lin(r, c), jp[r * mm->nv + c], 1e-9) << name;
            EXPECT_NEAR(ang(r, c), jr[r * mm->nv + c], 1e-9) << name;
          }
      }
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
}
#endif
