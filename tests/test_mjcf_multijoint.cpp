// MJCF bodies with several joints as one body (LoadOptions::merge_multi_joint_bodies): slides
// along orthogonal axes, then hinges with orthogonal axes (or two at any angle), become one joint
// whose rows are the slides and the hinges' Davenport angles (docs/modeling.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/load.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string corpus(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/" + rel; }

Model load_file(const std::string& path, bool merge, LoadReport* report = nullptr) {
  LoadOptions o;
  o.merge_multi_joint_bodies = merge;
  LoadReport r;
  return load_model(path, o, report ? report : &r);
}

std::string write_temp(const std::string& name, const std::string& xml) {
  const std::string path = (std::filesystem::temp_directory_path() / ("maxsim_multijoint_" + name + ".xml")).string();
  std::ofstream(path) << xml;
  return path;
}

// A body hanging from the world by `joints` (MJCF <joint> elements), a box whose principal axes
// are the frame's, below the anchor; contacts off; `extra` goes after <worldbody>.
std::string hanging(const std::string& joints, const std::string& extra = "", const std::string& body_pos = "0 0 1",
                    const std::string& geom_pos = "0.05 0.02 -0.3") {
  return R"(<mujoco model="hang"><compiler angle="degree"/><option timestep="0.002"><flag contact="disable"/></option>
  <worldbody><body name="bob" pos=")" + body_pos + R"(">)" + joints +
         R"(<geom type="box" size="0.05 0.08 0.1" pos=")" + geom_pos + R"(" mass="2"/></body></worldbody>)" + extra +
         "</mujoco>";
}

const char* kThreeHinges =
    R"(<joint name="hx" type="hinge" axis="1 0 0" pos="0 0 0.1"/>
       <joint name="hz" type="hinge" axis="0 0 1" pos="0 0 0.1" range="-60 35"/>
       <joint name="hy" type="hinge" axis="0 1 0" pos="0 0 0.1"/>)";
const char* kTwoHinges =
    R"(<joint name="s1" type="hinge" axis="2 1 1" pos="0 0 0.1"/>
       <joint name="s2" type="hinge" axis="0 -1 1" pos="0 0 0.1"/>)";

// Runs both models `steps` steps from their own initial states and returns the largest difference
// of their qpos (MuJoCo's layout in both) along the way.
double max_qpos_difference(const Model& a, Data& da, const Model& b, Data& db, int steps) {
  double diff = 0;
  for (int n = 0; n < steps; ++n) {
    EXPECT_EQ(step(a, da).status, StepStatus::Ok);
    EXPECT_EQ(step(b, db).status, StepStatus::Ok);
    const std::vector<double> qa = get_qpos(a, da), qb = get_qpos(b, db);
    EXPECT_EQ(qa.size(), qb.size());
    for (size_t i = 0; i < qa.size() && i < qb.size(); ++i) diff = std::max(diff, std::abs(qa[i] - qb[i]));
  }
  return diff;
}

}  // namespace

// half_cheetah: settotalmass="14" gives 14 kg exactly (no virtual bodies), MuJoCo's 7 moving
// bodies and 9 dof; the root's three joints are one joint's rows, each known by its name.
TEST(MjcfMultiJoint, CheetahHasMuJoCosMassAndBodies) {
  LoadReport r;
  const Model m = load_file(corpus("gym_mujoco/half_cheetah.xml"), true, &r);
  EXPECT_NEAR(m.total_mass(), 14.0, 1e-12);
  EXPECT_EQ(m.bodies.size(), 7u);
  EXPECT_TRUE(r.virtual_bodies.empty());
  EXPECT_EQ(m.dof(), 9);
  const int root = m.joint_index("rootx");
  EXPECT_EQ(m.joint_index("rootz"), root);
  EXPECT_EQ(m.joint_index("rooty"), root);
  const Joint& jt = m.joints[root];
  EXPECT_EQ(jt.dof(), 3);
  // the rows follow the axes: rootx and rootz translate along world x and z, rooty turns about y
  Data d(m);
  set_coordinates(m, d, std::vector<std::vector<double>>(m.joints.size()), std::vector<std::vector<double>>(m.joints.size()));
  const Vec3 x0 = d.x[jt.child];
  const std::vector<double> q = {0.3, -0.2, 0.5};  // MuJoCo's order: rootx, rootz, rooty
  set_joint_coordinates(m, d, root, q, {0, 0, 0});
  const Vec4 turn = quat_mul(quat_conj(m.bodies[jt.child].q0), d.q[jt.child]);
  EXPECT_NEAR(2 * std::atan2(turn(2), turn(0)), 0.5, 1e-12);  // about the torso's y (its frame = world's)
  // the torso's CoM turns about the anchor (the torso origin) and the anchor slides by (0.3, 0, −0.2)
  const Vec3 com_local = m.bodies[jt.child].x0 - Vec3(0, 0, 0.7);
  const Vec3 expected = Vec3(0.3, 0, 0.7 - 0.2) + quat_to_rot(quat_axis_angle(Vec3::UnitY(), 0.5)) * com_local;
  EXPECT_LT((d.x[jt.child] - expected).norm(), 1e-12);
  EXPECT_LT((x0 - m.bodies[jt.child].x0).norm(), 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, root, m.find_joint_row("rootx")->second).q, 0.3, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, root, m.find_joint_row("rootz")->second).q, -0.2, 1e-12);
  EXPECT_NEAR(row_coordinate(m, d, root, m.find_joint_row("rooty")->second).q, 0.5, 1e-12);
}

// The humanoid: hips (three hinges), waist and shoulders (two) merge, and so do its ankles, whose
// two hinges go through different points (z = 0.08 and 0.04, docs/computation.md (98)): MuJoCo's
// 13 moving bodies (16 less the 3 welded ones), no virtual body, 27 dof, and its actuators drive
// the right rows.
TEST(MjcfMultiJoint, HumanoidHasMuJoCosBodies) {
  LoadReport r;
  const Model m = load_file(corpus("mujoco_models/humanoid/humanoid.xml"), true, &r);
  EXPECT_EQ(m.bodies.size(), 13u);
  EXPECT_TRUE(r.virtual_bodies.empty());
  EXPECT_EQ(m.dof(), 27);
  // the ankle: one joint, the hinges 0.04 m apart along the foot's z
  const int ankle = m.joint_index("ankle_y_right");
  ASSERT_GE(ankle, 0);
  EXPECT_EQ(m.joint_index("ankle_x_right"), ankle);
  const Joint& jt = m.joints[ankle];
  EXPECT_TRUE(jt.hinge_offsets());
  EXPECT_NEAR((jt.hinge_offset[0] + jt.hinge_offset[1]).norm(), 0.04, 1e-12);
  const auto hz = m.find_joint_row("hip_z_left");
  ASSERT_TRUE(hz.has_value());
  const Actuator& a = m.actuators[m.actuator_index("hip_z_left")];
  EXPECT_EQ(a.joint, hz->first);
  EXPECT_EQ(a.row, hz->second);
  EXPECT_NEAR(m.joints[hz->first].lower[hz->second], -60 * M_PI / 180, 1e-12);
  EXPECT_DOUBLE_EQ(m.joints[hz->first].stiffness[hz->second], 10);  // class joint_big
}

// Keyframes: qpos in MuJoCo's order (the hips' x, z, y; a slide with ref) reads back exactly.
TEST(MjcfMultiJoint, KeyframeQposRoundTrips) {
  const std::string path = write_temp(
      "key", hanging(R"(<joint name="sx" type="slide" axis="1 0 0"/><joint name="sz" type="slide" axis="0 0 1" ref="1.25"/>)" +
                         std::string(kThreeHinges),
                     R"(<keyframe><key name="k" qpos="0.1 1.3 0.2 -0.4 0.3" qvel="0.5 -0.1 1 2 -3"/></keyframe>)"));
  const Model m = load_file(path, true);
  ASSERT_EQ(m.joints.size(), 1u);
  EXPECT_EQ(m.joints[0].dof(), 5);
  Data d(m);
  reset_data(m, d, m.keyframe_index("k"));
  const std::vector<double> q = get_qpos(m, d), qd = get_qvel(m, d);
  const std::vector<double> q_key = {0.1, 1.3, 0.2, -0.4, 0.3}, qd_key = {0.5, -0.1, 1, 2, -3};
  ASSERT_EQ(q.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(q[i], q_key[i], 1e-12) << i;
    EXPECT_NEAR(qd[i], qd_key[i], 1e-12) << i;
  }
  // the virtual-body model of the same file agrees on the pose
  const Model v = load_file(path, false);
  Data dv(v);
  reset_data(v, dv, v.keyframe_index("k"));
  EXPECT_LT((dv.x.back() - d.x.back()).norm(), 1e-12);
  const Vec4 dq = quat_mul(quat_conj(dv.q.back()), d.q.back());
  EXPECT_LT(Vec3(dq.tail<3>()).norm(), 1e-12);
}

// Three hinges and two (a universal joint), through one anchor or through several (offsets
// between the first and second hinge or only the last two), against the virtual-body chains of
// the same files: the
// virtual bodies (1e-3 of the mass, at the anchor, inertia 0.4·m_v·(0.01 m)²) change the
// pendulum's inertia about the anchor by a relative ~1e-7, so the angles agree to the solver's
// tolerance accumulated over the run (1e-4 rad over 1 s; a wrong row or Jacobian sign is O(1)).
// Without damping, energy stays bounded (the integrator's O(Δt²) oscillation, ~1e-4 J here).
TEST(MjcfMultiJoint, MergedHingesMoveLikeTheVirtualChain) {
  const char* kWideThree =
      R"(<joint name="hx" type="hinge" axis="1 0 0" pos="0 0 0.1"/>
         <joint name="hz" type="hinge" axis="0 0 1" pos="0 0 0.1" range="-80 80"/>
         <joint name="hy" type="hinge" axis="0 1 0" pos="0 0 0.1"/>)";
  const char* kOffsetTwo =
      R"(<joint name="o1" type="hinge" axis="0 1 0" pos="0 0 0.1"/>
         <joint name="o2" type="hinge" axis="1 0 0.5" pos="0.03 0.02 -0.05"/>)";
  const char* kOffsetThree =
      R"(<joint name="p1" type="hinge" axis="1 0 0" pos="0 0 0.1"/>
         <joint name="p2" type="hinge" axis="0 0 1" pos="0 0 0.1" range="-80 80"/>
         <joint name="p3" type="hinge" axis="0 1 0" pos="0 -0.03 -0.08"/>)";
  const char* kOffsetThreeMoving =
      R"(<joint name="p1" type="hinge" axis="1 0 0" pos="0 0 0.1"/>
         <joint name="p2" type="hinge" axis="0 0 1" pos="0.02 0 0" range="-80 80"/>
         <joint name="p3" type="hinge" axis="0 1 0" pos="0 -0.03 -0.08"/>)";
  // two hinges at 46° and at 62° (Joint::hinge_cosine), through one anchor and through two
  const char* kSkewTwo =
      R"(<joint name="k1" type="hinge" axis="0 1 0" pos="0 0 0.1"/>
         <joint name="k2" type="hinge" axis="1 1 0.3" pos="0 0 0.1"/>)";
  const char* kSkewOffsetTwo =
      R"(<joint name="q1" type="hinge" axis="0 1 0" pos="0 0 0.1"/>
         <joint name="q2" type="hinge" axis="-1 0.6 0.5" pos="0.03 0.02 -0.05"/>)";
  for (const char* joints : {kWideThree, kTwoHinges, kOffsetTwo, kOffsetThree, kOffsetThreeMoving, kSkewTwo, kSkewOffsetTwo}) {
    SCOPED_TRACE(joints);
    const bool three = joints == kWideThree || joints == kOffsetThree || joints == kOffsetThreeMoving;
    const std::string path = write_temp(
        "chain", hanging(joints, R"(<keyframe><key name="k" qvel=")" +
                                     std::string(three ? "1.5 -0.3 2" : "2 -1.5") + R"("/></keyframe>)"));
    LoadReport rm, rv;
    const Model m = load_file(path, true, &rm), v = load_file(path, false, &rv);
    EXPECT_TRUE(rm.virtual_bodies.empty());
    EXPECT_FALSE(rv.virtual_bodies.empty());
    Data dm(m), dv(v);
    reset_data(m, dm, m.keyframe_index("k"));
    reset_data(v, dv, v.keyframe_index("k"));
    const double e0 = total_energy(m, dm);
    // the chain's second virtual body sits at the second hinge's anchor: 2e-3 kg 0.1 m from the
    // pivot when that anchor is not the first one's, a relative ~1e-4 of the inertia about it,
    // which over the 1 s swing parts the angles by 6.5e-4 (measured; 1e-5 with it at the pivot)
    const double tolerance = joints == kOffsetThreeMoving ? 2e-3 : 1e-4;
    EXPECT_LT(max_qpos_difference(m, dm, v, dv, 500), tolerance);
    EXPECT_LT(std::abs(total_energy(m, dm) - e0), 1e-3);
    EXPECT_LT(max_constraint_violation(m, dm), 1e-8);
  }
}

// A motor on each hinge turns its own angle: from rest at the zero pose (the body's principal
// axes on the hinges', CoM on the anchor, no gravity) the angular accelerations decouple, so the
// driven angle follows θ = ½ (gear·u / I) t² and the others stay at rest.
TEST(MjcfMultiJoint, ActuatorsDriveTheirOwnRow) {
  const std::string path = write_temp(
      "motors",
      R"(<mujoco model="m"><option timestep="0.002" gravity="0 0 0"><flag contact="disable"/></option>
  <worldbody><body name="bob" pos="0 0 1">)" +
          std::string(kThreeHinges) +
          R"(<inertial pos="0 0 0.1" mass="1" diaginertia="0.1 0.2 0.4"/></body></worldbody>
  <actuator><motor name="mx" joint="hx" gear="2"/><motor name="mz" joint="hz" gear="2"/><motor name="my" joint="hy" gear="2"/></actuator>
  </mujoco>)");
  const Model m = load_file(path, true);
  const double inertia[3] = {0.1, 0.4, 0.2};  // about hx, hz, hy
  const char* names[3] = {"hx", "hz", "hy"};
  for (int a = 0; a < 3; ++a) {
    SCOPED_TRACE(names[a]);
    Data d(m);
    d.ctrl.assign(3, 0.0);
    d.ctrl[a] = 0.01;
    const int steps = 50;
    for (int n = 0; n < steps; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const double t = steps * m.opt.timestep;
    const double expected = 0.5 * 2 * 0.01 / inertia[a] * t * t;
    for (int b = 0; b < 3; ++b) {
      const auto jr = *m.find_joint_row(names[b]);
      const double q = row_coordinate(m, d, jr.first, jr.second).q;
      // the discrete sum Δt² Σ n = ½ a t² (1 + 1/steps): 2 % above the continuous value
      if (b == a) EXPECT_NEAR(q, expected, 0.03 * expected);
      else EXPECT_LT(std::abs(q), 1e-3 * expected);
    }
  }
}

// A hinge then a slide along its axis (a cylindrical joint written hinge first: the two motions
// commute) is one body whose rows keep MuJoCo's order; it moves as the virtual chain does (an
// axis off the coordinate axes, the anchor off the body's origin, a sprung slide swinging and
// sliding under gravity). A slide across the hinge's axis after it keeps the virtual body.
TEST(MjcfMultiJoint, SlideAlongTheHingeAfterItIsOneBody) {
  const std::string path = write_temp(
      "cylindrical", hanging(R"(<joint name="turn" type="hinge" axis="1 0 1" pos="0.02 0 0.1" damping="0.01"/>
         <joint name="push" type="slide" axis="1 0 1" stiffness="300" damping="0.5"/>)",
                             R"(<keyframe><key name="k" qpos="0.3 0.05" qvel="2 -0.5"/></keyframe>)"));
  LoadReport rm, rv;
  const Model m = load_file(path, true, &rm), v = load_file(path, false, &rv);
  EXPECT_TRUE(rm.virtual_bodies.empty());
  EXPECT_EQ(rv.virtual_bodies.size(), 1u);
  EXPECT_EQ(m.bodies.size(), 1u);
  Data dm(m), dv(v);
  reset_data(m, dm, m.keyframe_index("k"));
  reset_data(v, dv, v.keyframe_index("k"));
  EXPECT_NEAR(get_qpos(m, dm)[0], 0.3, 1e-12);  // (MuJoCo's order: the hinge's angle first)
  EXPECT_NEAR(get_qpos(m, dm)[1], 0.05, 1e-12);
  EXPECT_LT(max_qpos_difference(m, dm, v, dv, 500), 1e-4);
  EXPECT_LT(max_constraint_violation(m, dm), 1e-8);
  LoadReport across;
  load_file(write_temp("polar", hanging(R"(<joint name="turn" axis="0 0 1"/><joint name="push" type="slide" axis="1 0 0"/>)")),
            true, &across);
  EXPECT_EQ(across.virtual_bodies.size(), 1u);
}

// Three hinges whose middle range reaches ±90° (or has none) keep the virtual bodies, and run.
TEST(MjcfMultiJoint, SingularMiddleHingeFallsBack) {
  const std::string path = write_temp(
      "fallback", hanging(R"(<joint name="hx" type="hinge" axis="1 0 0"/>
       <joint name="hz" type="hinge" axis="0 0 1" range="-95 30"/>
       <joint name="hy" type="hinge" axis="0 1 0"/>)"));
  LoadReport r;
  const Model m = load_file(path, true, &r);
  EXPECT_EQ(r.virtual_bodies.size(), 2u);
  EXPECT_EQ(m.bodies.size(), 3u);
  Data d(m);
  set_joint_coordinates(m, d, m.joint_index("hx"), {0.5}, {1.0});
  for (int n = 0; n < 200; ++n) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  // parallel hinges through different points (a planar chain in one body) fall back too
  LoadReport r2;
  load_file(write_temp("parallel", hanging(R"(<joint name="a" axis="1 0 0"/><joint name="b" axis="1 0 0" pos="0 0.1 0"/>)")),
            true, &r2);
  EXPECT_EQ(r2.virtual_bodies.size(), 1u);
}

#ifdef MAXSIM_WITH_MUJOCO
#include <mujoco/mujoco.h>

// MuJoCo's own count of moving bodies (those with joints; jointless ones weld to their parent) and
// its total mass, for the humanoids whose ankles' hinges pass through different points and the
// gym humanoid (one anchor per body): merged, the bodies are MuJoCo's, with no virtual mass.
TEST(MjcfMultiJoint, HumanoidBodiesAndMassAreMuJoCos) {
  for (const char* file : {"mujoco_models/humanoid/humanoid.xml", "mujoco_models/debian_libmujoco-samples_2.2.2/humanoid.xml",
                           "gym_mujoco/humanoid.xml"}) {
    SCOPED_TRACE(file);
    char err[1000] = "";
    mjModel* mm = mj_loadXML(corpus(file).c_str(), nullptr, err, sizeof(err));
    ASSERT_NE(mm, nullptr) << err;
    int moving = 0;
    for (int b = 1; b < mm->nbody; ++b) moving += mm->body_jntnum[b] > 0 ? 1 : 0;
    LoadReport r;
    const Model m = load_file(corpus(file), true, &r);
    EXPECT_EQ(static_cast<int>(m.bodies.size()), moving);
    EXPECT_TRUE(r.virtual_bodies.empty());
    EXPECT_NEAR(m.total_mass(), mj_getTotalmass(mm), 1e-12 * mj_getTotalmass(mm));
    EXPECT_EQ(qpos_size(m), mm->nq);
    mj_deleteModel(mm);
  }
}

// A foot on an ankle of two hinges 0.04 m apart (the humanoid's: y at z = 0.08, then x tilted by
// 0.5 towards z at 0.04, springs, dampers and armature), swinging from the world under gravity:
// maxsim's merged body follows MuJoCo 2.2.2 to the integrators' first-order difference
// Δt·t·q̈ ≲ 1e-4 (Δt = 1e-4 s, t = 0.2 s; measured 8e-6); a missing or wrong offset chain moves the foot's
// CoM by ~0.04 m and the angles by O(0.1).
TEST(MjcfMultiJoint, OffsetAnkleMatchesMuJoCo) {
  const std::string path = write_temp("ankle", R"(<mujoco model="ankle"><option timestep="1e-4" integrator="Euler"><flag contact="disable"/></option>
  <worldbody><body name="foot" pos="0 0 1" euler="10 -5 20">
    <joint name="ay" type="hinge" pos="0 0 0.08" axis="0 1 0" stiffness="6" damping="0.2" armature="0.01"/>
    <joint name="ax" type="hinge" pos="0 0 0.04" axis="1 0 0.5" stiffness="3" damping="0.1" armature="0.02"/>
    <geom type="capsule" fromto="-0.07 -0.02 0 0.14 -0.03 0" size="0.027" mass="1.1"/></body></worldbody></mujoco>)");
  char err[1000] = "";
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  ASSERT_NE(mm, nullptr) << err;
  mjData* md = mj_makeData(mm);
  md->qpos[0] = 0.4;
  md->qpos[1] = -0.3;
  md->qvel[0] = 2.0;
  md->qvel[1] = -3.0;
  mj_forward(mm, md);
  LoadReport r;
  const Model m = load_file(path, true, &r);
  ASSERT_TRUE(r.virtual_bodies.empty());
  Data d(m);
  set_coordinates(m, d, split_qpos(m, std::vector<double>(md->qpos, md->qpos + 2)),
                  split_qvel(m, std::vector<double>(md->qvel, md->qvel + 2)));
  EXPECT_LT((d.x[0] - Vec3(md->xipos[3], md->xipos[4], md->xipos[5])).norm(), 1e-12);  // the same pose
  double worst = 0;
  for (int n = 0; n < 2000; ++n) {
    mj_step(mm, md);
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const std::vector<double> q = get_qpos(m, d);
    worst = std::max({worst, std::abs(q[0] - md->qpos[0]), std::abs(q[1] - md->qpos[1])});
  }
  RecordProperty("max difference", std::to_string(worst));
  EXPECT_LT(worst, 1e-4);
  mj_deleteData(md);
  mj_deleteModel(mm);
}

// Two hinges at a non-right angle (Joint::hinge_cosine, docs/computation.md (118)) through one
// anchor, through two, and after three slides, with springs, dampers and armature, from a moved
// and moving state under gravity: the same pose as MuJoCo 2.2.2's at the start (1e-12) and its
// angles and slides within the integrators' first-order difference Δt·t·q̈ (Δt = 1e-4 s, t = 0.2 s):
// ≲ 1e-4 for the hinges alone, 1e-3 with the sprung slides (measured 5.2e-4, and 1.3e-4 at Δt/4:
// first order); treating the axes as orthogonal, or a wrong angle formula, is O(0.1).
TEST(MjcfMultiJoint, SkewHingesMatchMuJoCo) {
  const char* kCases[] = {
      R"(<joint name="a" type="hinge" pos="0 0 0.08" axis="0 1 0" stiffness="6" damping="0.2" armature="0.01"/>
         <joint name="b" type="hinge" pos="0 0 0.08" axis="1 0.7 0.4" stiffness="3" damping="0.1" armature="0.02"/>)",
      R"(<joint name="a" type="hinge" pos="0 0 0.08" axis="0 1 0" stiffness="6" damping="0.2" armature="0.01"/>
         <joint name="b" type="hinge" pos="0.02 0 0.04" axis="-1 -0.5 0.5" stiffness="3" damping="0.1"/>)",
      R"(<joint name="x" type="slide" axis="1 0 0" stiffness="40"/><joint name="y" type="slide" axis="0 1 0" stiffness="40"/>
         <joint name="z" type="slide" axis="0 0 1" stiffness="100"/>
         <joint name="a" type="hinge" pos="0 0 0.08" axis="1 0 0" damping="0.1"/>
         <joint name="b" type="hinge" pos="0 0 0.08" axis="1 1 0" damping="0.1"/>)"};
  for (const char* joints : kCases) {
    SCOPED_TRACE(joints);
    const std::string path = write_temp("skew", std::string(R"(<mujoco model="skew"><option timestep="1e-4" integrator="Euler"><flag contact="disable"/></option>
  <worldbody><body name="foot" pos="0 0 1" euler="10 -5 20">)") + joints + R"(
    <geom type="capsule" fromto="-0.07 -0.02 0 0.14 -0.03 0" size="0.027" mass="1.1"/></body></worldbody></mujoco>)");
    char err[1000] = "";
    mjModel* mm = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
    ASSERT_NE(mm, nullptr) << err;
    mjData* md = mj_makeData(mm);
    for (int i = 0; i < mm->nq; ++i) {
      md->qpos[i] = 0.4 * std::cos(1.0 + 2.0 * i);
      md->qvel[i] = 2.5 * std::sin(0.5 + i);
    }
    mj_forward(mm, md);
    LoadReport r;
    const Model m = load_file(path, true, &r);
    ASSERT_TRUE(r.virtual_bodies.empty());
    ASSERT_EQ(m.joints.size(), 1u);
    EXPECT_NE(m.joints[0].hinge_cosine, 0.0);
    Data d(m);
    set_coordinates(m, d, split_qpos(m, std::vector<double>(md->qpos, md->qpos + mm->nq)),
                    split_qvel(m, std::vector<double>(md->qvel, md->qvel + mm->nv)));
    EXPECT_LT((d.x[0] - Vec3(md->xipos[3], md->xipos[4], md->xipos[5])).norm(), 1e-12);  // the same pose
    const std::vector<double> q0 = get_qpos(m, d);
    for (int i = 0; i < mm->nq; ++i) EXPECT_NEAR(q0[i], md->qpos[i], 1e-12);  // and the same angles back
    EXPECT_LT(max_constraint_violation(m, d), 1e-12);
    double worst = 0, moved = 0;
    for (int n = 0; n < 2000; ++n) {
      mj_step(mm, md);
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      const std::vector<double> q = get_qpos(m, d);
      for (int i = 0; i < mm->nq; ++i) {
        worst = std::max(worst, std::abs(q[i] - md->qpos[i]));
        moved = std::max(moved, std::abs(md->qpos[i] - q0[i]));
      }
    }
    RecordProperty("max difference", std::to_string(worst));
    EXPECT_LT(worst, joints == kCases[2] ? 1e-3 : 1e-4);
    EXPECT_GT(moved, 0.1);
    EXPECT_LT(max_constraint_violation(m, d), 1e-8);
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
}

// MuJoCo 2.2.2 and maxsim from the same file and state, contacts off: the merged roots, hips and
// ankles move as MuJoCo's joints do (the hopper's rootz has ref 1.25: qpos keeps MuJoCo's values).
// Both integrators are first order in Δt; at Δt = 1e-4 s over 0.2 s their difference is below
// Δt·t·q̈ ≲ 2e-3 (q̈ ≲ 100 rad/s² here; measured: 2e-6 for the cheetah, 1.1e-5 for the hopper,
// 4.6e-4 for the humanoid, against motions of 0.3–0.4; a wrong row, sign or mass is O(0.1)). The
// humanoid's difference is not the integrators' (it stays 4.5e-4 at Δt = 2.5e-5) and is largest
// at the feet, the ends of its legs, while a lone ankle matches to 8e-6 (OffsetAnkleMatchesMuJoCo):
// the cause is elsewhere (not identified; its hamstring tendons' limits, hard here and soft in
// MuJoCo, are one candidate), so its tolerance stays 2e-3.
TEST(MjcfMultiJoint, MatchesMuJoCoWithoutContacts) {
  struct Case {
    const char* file;
    double tolerance;
  };
  for (const Case& c : {Case{"gym_mujoco/half_cheetah.xml", 1e-4}, Case{"gym_mujoco/hopper.xml", 1e-4},
                      Case{"mujoco_models/humanoid/humanoid.xml", 2e-3}}) {
    SCOPED_TRACE(c.file);
    const double dt = 1e-4;
    const int steps = 2000;
    char err[1000] = "";
    mjModel* mm = mj_loadXML(corpus(c.file).c_str(), nullptr, err, sizeof(err));
    ASSERT_NE(mm, nullptr) << err;
    mm->opt.timestep = dt;
    mm->opt.integrator = mjINT_EULER;
    mm->opt.disableflags |= mjDSBL_CONTACT;
    mjData* md = mj_makeData(mm);
    // a state off the file's pose: every hinge and slide moved and moving (quaternions kept)
    for (int j = 0; j < mm->njnt; ++j) {
      const int a = mm->jnt_qposadr[j], v = mm->jnt_dofadr[j];
      if (mm->jnt_type[j] == mjJNT_HINGE || mm->jnt_type[j] == mjJNT_SLIDE) {
        md->qpos[a] += 0.1 * std::sin(1.0 + j);
        md->qvel[v] = 1.0 * std::cos(2.0 + j);
        if (mm->jnt_limited[j]) {  // well inside the range (MuJoCo's limits are soft, maxsim's hard)
          const double lo = mm->jnt_range[2 * j], hi = mm->jnt_range[2 * j + 1];
          md->qpos[a] = std::clamp(md->qpos[a], lo + 0.3 * (hi - lo), hi - 0.3 * (hi - lo));
        }
      }
    }
    mj_forward(mm, md);
    Model m = load_file(corpus(c.file), true);
    m.opt.timestep = dt;
    Data d(m);
    ASSERT_EQ(qpos_size(m), mm->nq);
    set_coordinates(m, d, split_qpos(m, std::vector<double>(md->qpos, md->qpos + mm->nq)),
                    split_qvel(m, std::vector<double>(md->qvel, md->qvel + mm->nv)));
    const std::vector<double> q0(md->qpos, md->qpos + mm->nq);
    for (int n = 0; n < steps; ++n) {
      mj_step(mm, md);
      ASSERT_EQ(step(m, d).status, StepStatus::Ok) << n;
    }
    const std::vector<double> q = get_qpos(m, d);
    double moved = 0;
    for (int j = 0; j < mm->njnt; ++j) {
      if (mm->jnt_type[j] != mjJNT_HINGE && mm->jnt_type[j] != mjJNT_SLIDE) continue;
      const int a = mm->jnt_qposadr[j];
      moved = std::max(moved, std::abs(md->qpos[a] - q0[a]));
      EXPECT_NEAR(q[a], md->qpos[a], c.tolerance) << mj_id2name(mm, mjOBJ_JOINT, j);
    }
    double worst = 0;
    for (int j = 0; j < mm->njnt; ++j)
      if (mm->jnt_type[j] == mjJNT_HINGE || mm->jnt_type[j] == mjJNT_SLIDE)
        worst = std::max(worst, std::abs(q[mm->jnt_qposadr[j]] - md->qpos[mm->jnt_qposadr[j]]));
    RecordProperty(std::string(c.file) + " max difference", std::to_string(worst) + " (moved " + std::to_string(moved) + ")");
    EXPECT_GT(moved, 0.05);  // the comparison is not of two states at rest
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
}
#endif
