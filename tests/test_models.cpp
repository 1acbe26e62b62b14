// The description loaders on real robot files (tests/data/models, robots/) and on hand-made
// files (tests/data/loader): counts, mass properties, frames, joint parameters, geometry,
// actuators, keyframes. Error cases are in test_models_errors.cpp.
//
// Expected counts follow the loader's rules (models/load.hpp, urdf.hpp, mjcf.hpp):
//  * URDF fixed joints are merged (the merged body keeps the name of the link it merges into);
//    a root link with no mass (nor massive links fixed to it) is part of the world;
//  * MJCF bodies without joints are welded into their parent (into the world when static);
//    a body with k > 1 joints is one body when they are slides then hinges through one anchor,
//    all axes orthogonal (one joint, a row per MuJoCo joint); otherwise it adds k - 1 virtual
//    bodies "<body>/<joint>";
//  * Model::dof() counts the free rows of every joint, loop-closing joints included.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "models/inertia.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"
#include "models/mesh.hpp"
#include "sim/model.hpp"

namespace maxsim {
namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
std::string corpus(const std::string& rel) { return repo("tests/data/models/" + rel); }
std::string loader_data(const std::string& rel) { return repo("tests/data/loader/" + rel); }

Model load(const std::string& path, LoadReport* report = nullptr, const LoadOptions& opt = {}) {
  LoadReport local;
  return load_model(path, opt, report ? report : &local);
}

int count_type(const Model& m, JointType t) {
  int n = 0;
  for (const auto& j : m.joints) n += j.type == t ? 1 : 0;
  return n;
}

bool has_warning(const LoadReport& r, const std::string& text) {
  for (const auto& w : r.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

std::string merged_into(const LoadReport& r, const std::string& link) {
  for (const auto& [a, b] : r.merged)
    if (a == link) return b;
  return "";
}

// World position of a joint's anchor seen from its parent and from its child.
Vec3 anchor_from_parent(const Model& m, const Joint& j) {
  if (j.parent == kWorld) return j.parent_anchor;
  const Body& p = m.bodies[j.parent];
  return p.x0 + quat_to_rot(p.q0) * j.parent_anchor;
}
Vec3 anchor_from_child(const Model& m, const Joint& j) {
  const Body& c = m.bodies[j.child];
  return c.x0 + quat_to_rot(c.q0) * j.child_anchor;
}
Vec3 axis_from_parent(const Model& m, const Joint& j) {
  const Vec4 q = j.parent == kWorld ? quat_identity() : m.bodies[j.parent].q0;
  return quat_to_rot(quat_mul(q, j.parent_frame)) * Vec3::UnitZ();
}
Vec3 axis_from_child(const Model& m, const Joint& j) {
  return quat_to_rot(quat_mul(m.bodies[j.child].q0, j.child_frame)) * Vec3::UnitZ();
}

// Counts, dof, and that every joint's two frames agree at the zero configuration.
void expect_shape(const Model& m, int bodies, int joints, int dof) {
  EXPECT_EQ(static_cast<int>(m.bodies.size()), bodies);
  EXPECT_EQ(static_cast<int>(m.joints.size()), joints);
  EXPECT_EQ(m.dof(), dof);
  EXPECT_EQ(validate_model(m), "");
}

void expect_tree_joints_consistent(const Model& m) {
  for (const auto& j : m.joints) {
    if (j.type == JointType::Floating && j.parent == kWorld) continue;  // MuJoCo free-joint frames
    // hinges through different points: the child's anchor is the last hinge's, the chain of
    // offsets from the first (docs/computation.md (98) at zero angles)
    const Vec4 qp = j.parent == kWorld ? quat_identity() : m.bodies[j.parent].q0;
    const Vec3 chain = quat_to_rot(quat_mul(qp, j.parent_frame)) * (j.hinge_offset[0] + j.hinge_offset[1]);
    EXPECT_LT((anchor_from_parent(m, j) + chain - anchor_from_child(m, j)).norm(), 1e-9) << j.name;
    EXPECT_LT((axis_from_parent(m, j) - axis_from_child(m, j)).norm(), 1e-9) << j.name;
  }
}

// ---- A1: URDF and MJCF of the same robot ----------------------------------------------------

TEST(ModelsA1, UrdfCountsAndMerges) {
  LoadReport r;
  Model m = load(repo("robots/a1/urdf/a1.urdf"), &r);
  // 19 links: world + trunk + imu_link + 4 x (hip, thigh, calf, foot); imu_link and the 4 feet
  // are merged by their fixed joints -> 13 bodies; 1 floating + 12 revolute joints.
  expect_shape(m, 13, 13, 18);
  expect_tree_joints_consistent(m);
  EXPECT_EQ(count_type(m, JointType::Floating), 1);
  EXPECT_EQ(count_type(m, JointType::Revolute), 12);
  EXPECT_EQ(merged_into(r, "imu_link"), "trunk");
  EXPECT_EQ(merged_into(r, "FR_foot"), "FR_calf");
  EXPECT_EQ(merged_into(r, "world"), "world");
  EXPECT_GE(m.body_index("trunk"), 0);
  EXPECT_FALSE(m.find_body("FR_foot"));
  // the floating joint of the file has an empty name: "<child>_joint"
  EXPECT_EQ(m.joints[0].name, "trunk_joint");
  EXPECT_TRUE(has_warning(r, "<transmission> (12)"));
  // merged calf: 0.166 kg calf + 0.06 kg foot
  const Body& calf = m.bodies[m.body_index("FR_calf")];
  EXPECT_NEAR(calf.mass, 0.226, 1e-12);
  EXPECT_NEAR(m.bodies[m.body_index("trunk")].mass, 4.714, 1e-12);
}

TEST(ModelsA1, MjcfCounts) {
  LoadReport r;
  Model m = load(repo("robots/a1/xml/a1.xml"), &r);
  // 13 bodies, free + 12 hinges (README)
  expect_shape(m, 13, 13, 18);
  expect_tree_joints_consistent(m);
  EXPECT_EQ(m.actuators.size(), 12u);
  EXPECT_TRUE(m.dt_from_file);
  EXPECT_DOUBLE_EQ(m.opt.timestep, 0.002);
  EXPECT_DOUBLE_EQ(m.opt.gravity.z(), -9.806);
  ASSERT_EQ(m.world_geoms.size(), 1u);
  EXPECT_EQ(m.world_geoms[0].type, GeomType::Plane);
  // its sensors are read: 12 jointpos, 12 jointvel, accelerometer, gyro, framepos, framequat
  EXPECT_FALSE(has_warning(r, "<sensor>"));
  ASSERT_EQ(m.sensors.size(), 28u);
  EXPECT_EQ(m.nsensordata(), 37);
  // free joint: MuJoCo's qpos convention
  const Joint& root = m.joints[0];
  EXPECT_EQ(root.type, JointType::Floating);
  EXPECT_EQ(root.parent, kWorld);
  EXPECT_EQ(root.parent_anchor, Vec3::Zero());
  EXPECT_EQ(root.parent_frame, quat_identity());
  EXPECT_EQ(root.child_frame, quat_identity());
  const Body& trunk = m.bodies[root.child];
  EXPECT_LT((root.child_anchor - trunk.link_origin).norm(), 1e-15);
  // the trunk origin (not its CoM) is at the file's pos 0 0 0.3
  EXPECT_LT((trunk.x0 + quat_to_rot(trunk.q0) * trunk.link_origin - Vec3(0, 0, 0.3)).norm(), 1e-12);
}

TEST(ModelsA1, UrdfAndMjcfAgree) {
  Model u = load(repo("robots/a1/urdf/a1.urdf"));
  Model x = load(repo("robots/a1/xml/a1.xml"));
  // Same total mass: 4.714 + 4 x (0.696 + 1.013 + 0.226) = 12.454 kg in both files.
  EXPECT_NEAR(u.total_mass(), 12.454, 1e-12);
  EXPECT_NEAR(u.total_mass(), x.total_mass(), 1e-9 * u.total_mass());
  // Same 12 actuated joints with the same limits (the MJCF rounds them to 6 digits).
  ASSERT_EQ(u.actuators.size(), 12u);
  ASSERT_EQ(x.actuators.size(), 12u);
  std::map<std::string, const Joint*> ju, jx;
  for (const auto& a : u.actuators) ju[u.joints[a.joint].name] = &u.joints[a.joint];
  for (const auto& a : x.actuators) jx[x.joints[a.joint].name] = &x.joints[a.joint];
  ASSERT_EQ(ju.size(), 12u);
  for (const auto& [name, j] : ju) {
    ASSERT_TRUE(jx.count(name)) << name;
    const Joint* k = jx[name];
    EXPECT_EQ(j->type, JointType::Revolute);
    EXPECT_EQ(k->type, JointType::Revolute);
    EXPECT_TRUE(j->has_limits) << name;  // thighs are "continuous" with limits in the URDF
    EXPECT_TRUE(k->has_limits) << name;
    EXPECT_NEAR(j->lower[5], k->lower[5], 1e-5) << name;
    EXPECT_NEAR(j->upper[5], k->upper[5], 1e-5) << name;
  }
  // Same bodies: mass, CoM (relative to the trunk's link origin) and world-frame inertia. The
  // URDF's merged calf+foot and trunk+imu must reproduce the MJCF's (rounded) values.
  auto origin = [](const Model& m) {
    const Body& t = m.bodies[m.body_index("trunk")];
    return Vec3(t.x0 + quat_to_rot(t.q0) * t.link_origin);
  };
  const Vec3 ou = origin(u), ox = origin(x);
  for (const auto& b : u.bodies) {
    const int k = x.body_index(b.name);
    ASSERT_GE(k, 0) << b.name;
    const Body& c = x.bodies[k];
    EXPECT_NEAR(b.mass, c.mass, 1e-12) << b.name;
    EXPECT_LT(((b.x0 - ou) - (c.x0 - ox)).norm(), 2e-6) << b.name;
    const Mat3 Iu = quat_to_rot(b.q0) * b.inertia * quat_to_rot(b.q0).transpose();
    const Mat3 Ix = quat_to_rot(c.q0) * c.inertia * quat_to_rot(c.q0).transpose();
    EXPECT_LT((Iu - Ix).norm(), 2e-5 * Iu.norm()) << b.name;
  }
}

TEST(ModelsA1, CollisionGeometry) {
  // README: 10 box, 4 cylinder, 4 sphere collision primitives (before merging; merging carries
  // them over). The MJCF twin has the same set (its visual-only geoms have contype=conaffinity=0).
  for (const char* f : {"robots/a1/urdf/a1.urdf", "robots/a1/xml/a1.xml"}) {
    Model m = load(repo(f));
    std::map<GeomType, int> n;
    int visual_meshes = 0;
    for (const auto& b : m.bodies)
      for (const auto& g : b.geoms) {
        if (g.collision) ++n[g.type];
        if (!g.collision && g.type == GeomType::Mesh) {
          ++visual_meshes;
          EXPECT_GT(g.vertices.size(), 100u);
          EXPECT_FALSE(g.faces.empty());
        }
      }
    EXPECT_EQ(n[GeomType::Box], 10) << f;
    EXPECT_EQ(n[GeomType::Cylinder], 4) << f;
    EXPECT_EQ(n[GeomType::Sphere], 4) << f;
    EXPECT_EQ(n[GeomType::Mesh], 0) << f;
    EXPECT_EQ(visual_meshes, 13) << f;  // trunk + 4 x (hip, thigh, calf)
  }
  // Hip cylinder of the URDF: length 0.08, radius 0.04, axis along the link's y.
  Model u = load(repo("robots/a1/urdf/a1.urdf"));
  const Body& hip = u.bodies[u.body_index("FR_hip")];
  ASSERT_TRUE(hip.geoms[0].type == GeomType::Cylinder);
  EXPECT_NEAR(hip.geoms[0].size(0), 0.04, 1e-15);
  EXPECT_NEAR(hip.geoms[0].size(1), 0.04, 1e-15);
  const Vec3 axis = quat_to_rot(hip.geoms[0].quat) * Vec3::UnitZ();
  EXPECT_NEAR(std::abs(axis.y()), 1.0, 1e-9);
  // geom position: link frame (0, -0.055, 0) -> body frame = minus the CoM offset
  EXPECT_LT((hip.geoms[0].pos - (Vec3(0, -0.055, 0) + hip.link_origin)).norm(), 1e-12);
}

TEST(ModelsA1, OptionsKeepFixedJointsAndFixBase) {
  LoadOptions keep;
  keep.merge_fixed_joints = false;
  Model m = load(repo("robots/a1/urdf/a1.urdf"), nullptr, keep);
  // imu_link (1 g) and the feet keep their Fixed joints: 18 bodies, 18 joints
  expect_shape(m, 18, 18, 18);
  expect_tree_joints_consistent(m);
  EXPECT_EQ(count_type(m, JointType::Fixed), 5);
  EXPECT_NEAR(m.total_mass(), 12.454, 1e-12);

  LoadOptions fixed;
  fixed.fixed_base = true;
  Model f = load(repo("robots/a1/urdf/a1.urdf"), nullptr, fixed);
  expect_shape(f, 13, 13, 12);
  EXPECT_EQ(f.joints[0].type, JointType::Fixed);
  EXPECT_EQ(f.joints[0].parent, kWorld);
  Model fx = load(repo("robots/a1/xml/a1.xml"), nullptr, fixed);
  expect_shape(fx, 13, 13, 12);
}

// ---- loops ----------------------------------------------------------------------------------

TEST(ModelsLoops, DojoFourbar) {
  LoadReport r;
  Model m = load(corpus("dojo_fourbar/fourbar.urdf"), &r);
  // base_link has no mass and no joint to "world": it is the world. 4 links, 4 continuous
  // joints + the <loop_joint> joint24 (link2 -> link4).
  expect_shape(m, 4, 5, 5);
  expect_tree_joints_consistent(m);  // the loop closes exactly at the zero configuration
  const int lj = m.joint_index("joint24");
  ASSERT_GE(lj, 0);
  const Joint& j = m.joints[lj];
  EXPECT_EQ(j.type, JointType::Revolute);
  EXPECT_EQ(m.bodies[j.parent].name, "link2");
  EXPECT_EQ(m.bodies[j.child].name, "link4");
  EXPECT_DOUBLE_EQ(j.damping[5], 1.0);
  EXPECT_LT((anchor_from_parent(m, j) - Vec3(0, 0, 0.1)).norm(), 1e-12);
  EXPECT_LT((axis_from_parent(m, j) - Vec3::UnitX()).norm(), 1e-12);
  EXPECT_EQ(merged_into(r, "base_link"), "world");
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("not closed"), std::string::npos) << w;

  Model open = load(corpus("dojo_fourbar/fourbar_open.urdf"));
  expect_shape(open, 4, 4, 4);
}

TEST(ModelsLoops, ConstrainedDynamicsFourbar) {
  LoadReport r;
  Model m = load(corpus("constrained_dynamics/fourbar.urdf"), &r);
  expect_shape(m, 4, 5, 5);
  const Joint& j = m.joints[m.joint_index("joint24")];
  EXPECT_EQ(m.bodies[j.parent].name, "link2");
  EXPECT_EQ(m.bodies[j.child].name, "link4");
  // The file's zero configuration does not close the loop (link angles 0.3 and -0.5 rad): loaded
  // with a warning; the joint frames are the file's (xyz in each link), not forced to coincide.
  EXPECT_TRUE(has_warning(r, "loop joint 'joint24' is not closed"));
  EXPECT_GT((anchor_from_parent(m, j) - anchor_from_child(m, j)).norm(), 0.5);
  const Body& l4 = m.bodies[j.child];
  EXPECT_LT((j.child_anchor - (l4.link_origin + Vec3(0, 0, -1))).norm(), 1e-12);
}

TEST(ModelsLoops, CassieConnects) {
  LoadReport r;
  Model m = load(corpus("agility_cassie/cassie.xml"), &r);
  // 25 bodies; the two knee-springs have no joint and are welded into the knees -> 23.
  // Joints: free + 20 hinges + 2 balls (achilles rods) + 4 <connect> (Spherical loop joints).
  // dof: 6 + 20 + 6 = 32 (MuJoCo's nv) + 4 x 3 free rows of the loop joints = 44.
  expect_shape(m, 23, 27, 44);
  expect_tree_joints_consistent(m);  // connects close at qpos0 by construction, as in MuJoCo
  EXPECT_EQ(count_type(m, JointType::Floating), 1);
  EXPECT_EQ(count_type(m, JointType::Revolute), 20);
  EXPECT_EQ(count_type(m, JointType::Spherical), 6);
  EXPECT_EQ(merged_into(r, "left-knee-spring"), "left-knee");
  int loops = 0;
  for (const auto& j : m.joints) {
    if (j.name.find("_connect") == std::string::npos) continue;
    ++loops;
    EXPECT_EQ(j.type, JointType::Spherical);
  }
  EXPECT_EQ(loops, 4);
  const Joint& c = m.joints[m.joint_index("left-plantar-rod_left-foot_connect")];
  EXPECT_EQ(m.bodies[c.parent].name, "left-plantar-rod");
  EXPECT_EQ(m.bodies[c.child].name, "left-foot");
  // anchor 0.35012 0 0 in the plantar rod's frame
  const Body& rod = m.bodies[c.parent];
  EXPECT_LT((c.parent_anchor - (rod.link_origin + Vec3(0.35012, 0, 0))).norm(), 1e-12);
  EXPECT_DOUBLE_EQ(m.opt.timestep, 0.0005);
  EXPECT_EQ(m.actuators.size(), 10u);
  EXPECT_DOUBLE_EQ(m.actuators[0].gear, 25);
  EXPECT_TRUE(m.actuators[0].ctrl_limited);
  // look-ups by name: the file's third motor, its keyframe; -1 for names it does not have
  const int pitch = m.actuator_index("left-hip-pitch");
  ASSERT_EQ(pitch, 2);
  EXPECT_DOUBLE_EQ(m.actuators[pitch].gear, 16);
  EXPECT_EQ(m.joints[m.actuators[pitch].joint].name, "left-hip-pitch");
  EXPECT_FALSE(m.find_actuator("left-hip"));
  EXPECT_EQ(m.keyframe_index("home"), 0);
  EXPECT_FALSE(m.find_keyframe("Home"));
  EXPECT_EQ(m.body_index("left-foot"), m.joints[m.joint_index("left-plantar-rod_left-foot_connect")].child);
  // ball joints: the child body frame is the joint frame
  const Joint& ball = m.joints[m.joint_index("left-achilles-rod")];
  EXPECT_EQ(ball.type, JointType::Spherical);
  EXPECT_EQ(ball.child_frame, quat_identity());
  EXPECT_DOUBLE_EQ(ball.damping[3], 0.01);
  // hinge with ref: coordinate = qpos - ref, limits shifted (angles in degrees in the file)
  const double deg = M_PI / 180;
  const Joint& knee = m.joints[m.joint_index("left-knee")];
  EXPECT_NEAR(knee.lower[5], (-164 + 45) * deg, 1e-12);
  EXPECT_NEAR(knee.upper[5], (-37 + 45) * deg, 1e-12);
  EXPECT_DOUBLE_EQ(knee.armature[5], 0.09344);
  const Joint& shin = m.joints[m.joint_index("left-shin")];
  EXPECT_DOUBLE_EQ(shin.stiffness[5], 1500);
  // keyframe "home": 35 qpos values split per joint
  ASSERT_EQ(m.keyframes.size(), 1u);
  const Keyframe& k = m.keyframes[0];
  EXPECT_EQ(k.name, "home");
  const auto& q0 = k.joint_q[m.joint_index("cassie-pelvis_joint")];
  ASSERT_EQ(q0.size(), 7u);
  EXPECT_NEAR(q0[2], 1.0059301, 1e-12);
  EXPECT_NEAR(q0[3], 1.0, 1e-12);
  const auto& qk = k.joint_q[m.joint_index("left-knee")];
  ASSERT_EQ(qk.size(), 1u);
  EXPECT_NEAR(qk[0], -1.1997 + 45 * deg, 1e-12);
  const auto& qb = k.joint_q[m.joint_index("left-achilles-rod")];
  ASSERT_EQ(qb.size(), 4u);
  EXPECT_NEAR(Eigen::Map<const Vec4>(qb.data()).norm(), 1.0, 1e-12);
  EXPECT_NEAR(qb[0], 0.97861 / std::sqrt(0.97861 * 0.97861 + 0.0164104 * 0.0164104 +
                                         0.0177766 * 0.0177766 + 0.204298 * 0.204298), 1e-9);
  // with the floor of scene.xml (an <include> of cassie.xml)
  Model s = load(corpus("agility_cassie/scene.xml"));
  expect_shape(s, 23, 27, 44);
  EXPECT_EQ(s.world_geoms.size(), 1u);
}

// ---- the rest of the corpus -----------------------------------------------------------------

struct CorpusCase {
  const char* path;
  int bodies, joints, dof;
};

TEST(ModelsCorpus, MjcfModelsLoad) {
  // dof = MuJoCo's nv for each file (checked against MuJoCo 2.2.2); bodies = MuJoCo's bodies
  // - welded (jointless) bodies + one virtual body per extra joint in a body that does not merge
  // (slides then hinges through one anchor, orthogonal axes, merge: one body, one joint).
  const CorpusCase cases[] = {
      // humanoid: 16 bodies - head, hand_right, hand_left (welded) = 13 (waist, thighs, upper
      // arms and feet merge their hinges, the feet's through two points); free + 21 hinges.
      {"mujoco_models/humanoid/humanoid.xml", 13, 13, 27},
      {"mujoco_models/debian_libmujoco-samples_2.2.2/humanoid.xml", 13, 13, 27},
      // slider_crank: its actuators use crank/site transmissions (ignored, warned)
      {"mujoco_models/slider_crank/slider_crank.xml", 3, 3, 3},
      {"mujoco_models/debian_libmujoco-samples_2.2.2/slider_crank.xml", 3, 3, 3},
      // arm26: muscles on spatial tendons are ignored with a warning; 2 hinges remain
      {"mujoco_models/tendon_arm/arm26.xml", 2, 2, 2},
      // ant: 13 bodies - 4 jointless leg roots welded to the torso = 9; free + 8 hinges
      {"gym_mujoco/ant.xml", 9, 9, 14},
      // half_cheetah: torso has rootx, rootz, rooty -> one planar joint with a hinge: MuJoCo's 7
      {"gym_mujoco/half_cheetah.xml", 7, 7, 9},
      // hopper (coordinate="global"): 4 bodies, its root's three joints merged
      {"gym_mujoco/hopper.xml", 4, 4, 6},
      {"gym_mujoco/humanoid.xml", 11, 11, 23},
      {"gym_mujoco/humanoidstandup.xml", 11, 11, 23},
      {"gym_mujoco/inverted_double_pendulum.xml", 3, 3, 3},
      // inverted_pendulum: ctrlrange without ctrllimited, loaded with autolimits (MuJoCo >= 2.3)
      {"gym_mujoco/inverted_pendulum.xml", 2, 2, 2},
      {"gym_mujoco/point.xml", 1, 1, 3},
      {"gym_mujoco/pusher.xml", 9, 9, 11},
      {"gym_mujoco/reacher.xml", 3, 3, 4},
      {"gym_mujoco/striker.xml", 9, 9, 15},
      {"gym_mujoco/swimmer.xml", 3, 3, 5},
      {"gym_mujoco/thrower.xml", 9, 9, 15},
      {"anybotics_anymal_c/menagerie_variant/anymal_c.xml", 13, 13, 18},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    LoadReport r;
    Model m = load(corpus(c.path), &r);
    expect_shape(m, c.bodies, c.joints, c.dof);
    expect_tree_joints_consistent(m);
  }
  Model a1m = load(repo("robots/a1/menagerie_variant/a1.xml"));
  expect_shape(a1m, 13, 13, 18);
}

TEST(ModelsCorpus, MjcfDetails) {
  LoadReport r;
  Model h = load(corpus("mujoco_models/humanoid/humanoid.xml"), &r);
  EXPECT_EQ(h.actuators.size(), 21u);
  EXPECT_EQ(h.keyframes.size(), 4u);
  EXPECT_EQ(h.contact_excludes.size(), 2u);
  ASSERT_EQ(h.tendons.size(), 2u);  // the hamstrings: limited fixed tendons
  EXPECT_TRUE(h.tendons[0].limited);
  // every multi-joint body merges, the ankles' hinges through different points too
  // (tests/test_mjcf_multijoint.cpp); without merge_offset_hinges the ankles keep a virtual body
  // each, of 1e-3 of the foot's mass
  EXPECT_TRUE(r.virtual_bodies.empty());
  EXPECT_EQ(h.bodies.size(), 13u);
  {
    LoadOptions o;
    o.merge_offset_hinges = false;
    LoadReport rv;
    const Model hv = load_model(corpus("mujoco_models/humanoid/humanoid.xml"), o, &rv);
    ASSERT_EQ(rv.virtual_bodies.size(), 2u);
    ASSERT_GE(hv.body_index("foot_right/ankle_y_right"), 0);
    EXPECT_NEAR(hv.bodies[hv.body_index("foot_right/ankle_y_right")].mass,
                1e-3 * hv.bodies[hv.body_index("foot_right")].mass, 1e-15);
  }
  // the hip's three hinges are rows of one joint between the pelvis and the thigh
  const auto hx = *h.find_joint_row("hip_x_right");
  const Joint& hip = h.joints[hx.first];
  EXPECT_EQ(h.joint_index("hip_y_right"), hx.first);
  EXPECT_EQ(h.bodies[hip.parent].name, "pelvis");
  EXPECT_EQ(h.bodies[hip.child].name, "thigh_right");
  EXPECT_DOUBLE_EQ(hip.stiffness[hx.second], 10);  // class joint_big
  EXPECT_DOUBLE_EQ(hip.damping[hx.second], 5);
  EXPECT_NEAR(hip.lower[hx.second], -30 * M_PI / 180, 1e-12);
  // capsule inertia from geoms (density 1000), e.g. the head sphere welded into the torso
  EXPECT_EQ(merged_into(r, "head"), "torso");

  // half_cheetah: settotalmass="14" applies to the file's bodies (its root's three joints are one
  // joint: no virtual bodies)
  LoadReport rc;
  Model c = load(corpus("gym_mujoco/half_cheetah.xml"), &rc);
  EXPECT_NEAR(c.total_mass(), 14.0, 1e-9);
  // hopper (coordinate="global"): the thigh joint at z = 1.05, rootz slide with ref 1.25
  Model hop = load(corpus("gym_mujoco/hopper.xml"));
  const Joint& thigh = hop.joints[hop.joint_index("thigh_joint")];
  EXPECT_LT((anchor_from_child(hop, thigh) - Vec3(0, 0, 1.05)).norm(), 1e-12);
  EXPECT_LT((axis_from_child(hop, thigh) - Vec3(0, -1, 0)).norm(), 1e-12);
  const Body& foot = hop.bodies[hop.body_index("foot")];
  ASSERT_EQ(foot.geoms.size(), 1u);
  EXPECT_EQ(foot.geoms[0].type, GeomType::Capsule);
  EXPECT_NEAR(foot.geoms[0].size(1), 0.195, 1e-12);  // fromto -0.13 .. 0.26
  EXPECT_DOUBLE_EQ(foot.geoms[0].friction, 2.0);
  // 22_humanoids uses MuJoCo 3 <replicate>/<attach>: an error, not a silent partial model
  EXPECT_THROW(load(corpus("mujoco_models/humanoid/22_humanoids.xml")), LoadError);
}

TEST(ModelsCorpus, UrdfModelsLoad) {
  struct U {
    std::string path;
    int bodies, joints, dof;
  };
  const U urdfs[] = {
      // 13 links: link8, hand (fixed) and grasptarget (massless, fixed) merged into link7; the
      // root link0 is floating (a robot arm needs fixed_base to be bolted down).
      {corpus("franka_panda/panda.urdf"), 10, 10, 15},
      // 8 links: link_0 has mass 0 -> static (part of the world); 7 revolute joints
      {corpus("kuka_iiwa/model.urdf"), 7, 7, 7},
      // 78 links, 65 fixed joints: 13 bodies (base + 4 x 3), floating base + 12 revolute
      {corpus("anybotics_anymal_c/urdf/anymal.urdf"), 13, 13, 18},
      {repo("robots/a1/unitree_ros_variant/a1.urdf"), 13, 13, 18},
      // 7 links, 2 fixed joints merged; floating human torso + 4 continuous
      {repo("robots/exoskeleton/original/model.urdf"), 5, 5, 10},
      {corpus("constrained_dynamics/doublependulum.urdf"), 2, 2, 2},
      {corpus("constrained_dynamics/atlas_simple.urdf"), 31, 31, 36},
      // 2 links welded; floating + 1 revolute
      {corpus("dart_urdf_tests/issue838.urdf"), 2, 2, 7},
      // massless single links: static, only world geometry; missing visual meshes are warnings
      {corpus("dart_urdf_tests/primitive_geometry.urdf"), 0, 0, 0},
      {corpus("dart_urdf_tests/missing_mesh.urdf"), 0, 0, 0},
      {corpus("dart_urdf_tests/missing_package.urdf"), 0, 0, 0},
      {corpus("dart_urdf_tests/invalid_mesh.urdf"), 0, 0, 0},
  };
  for (const auto& c : urdfs) {
    SCOPED_TRACE(c.path);
    LoadReport r;
    Model m = load(c.path, &r);
    expect_shape(m, c.bodies, c.joints, c.dof);
    expect_tree_joints_consistent(m);
  }
  LoadReport r;
  Model panda = load(corpus("franka_panda/panda.urdf"), &r);
  EXPECT_EQ(merged_into(r, "panda_grasptarget"), "panda_link7");
  ASSERT_EQ(panda.couplings.size(), 1u);  // <mimic>: finger 2 follows finger 1
  EXPECT_EQ(panda.couplings[0].a, panda.joint_index("panda_finger_joint2"));
  EXPECT_TRUE(has_warning(r, "visual mesh 'package://meshes/visual/link1.obj' not found"));
  // package://meshes/collision/... resolves beside the file (pybullet layout)
  const Body& finger = panda.bodies[panda.body_index("panda_leftfinger")];
  ASSERT_EQ(finger.geoms.size(), 1u);
  EXPECT_EQ(finger.geoms[0].type, GeomType::Mesh);
  EXPECT_TRUE(finger.geoms[0].collision);
  EXPECT_DOUBLE_EQ(finger.geoms[0].friction, 1.0);  // <contact><lateral_friction value="1.0"/>
  const Joint& f1 = panda.joints[panda.joint_index("panda_finger_joint1")];
  EXPECT_EQ(f1.type, JointType::Prismatic);
  EXPECT_TRUE(f1.has_limits);
  EXPECT_DOUBLE_EQ(f1.upper[2], 0.04);
  EXPECT_DOUBLE_EQ(f1.effort[2], 20);

  LoadReport ra;
  Model anymal = load(corpus("anybotics_anymal_c/urdf/anymal.urdf"), &ra);
  // ANYmal's flat 'hatch' and camera links have unphysical inertias; they are merged into the
  // base, which is valid: warnings, not errors.
  EXPECT_TRUE(has_warning(ra, "link 'hatch': inertia is not positive definite"));
  EXPECT_EQ(merged_into(ra, "hatch"), "base");
  int boxes = 0, cylinders = 0, spheres = 0;
  for (const auto& b : anymal.bodies)
    for (const auto& g : b.geoms) {
      if (!g.collision) continue;
      boxes += g.type == GeomType::Box;
      cylinders += g.type == GeomType::Cylinder;
      spheres += g.type == GeomType::Sphere;
    }
  // README: 12 box, 29 cylinder, 4 sphere collision primitives
  EXPECT_EQ(boxes, 12);
  EXPECT_EQ(cylinders, 29);
  EXPECT_EQ(spheres, 4);

  LoadOptions fixed;
  fixed.fixed_base = true;
  Model exo = load(repo("robots/exoskeleton/original/model.urdf"), nullptr, fixed);
  expect_shape(exo, 5, 5, 4);
  EXPECT_EQ(count_type(exo, JointType::Revolute), 4);
}

// ---- hand-made files: exact values ----------------------------------------------------------

TEST(ModelsUrdf, FeaturesExactValues) {
  LoadOptions opt;
  opt.package_paths = {loader_data("packages")};
  LoadReport r;
  Model m = load(loader_data("features.urdf"), &r, opt);
  // base + sensor (merged) | slider | wheel + tool_frame (massless, merged) | plate
  expect_shape(m, 4, 4, 6 + 1 + 1 + 3);
  expect_tree_joints_consistent(m);
  EXPECT_EQ(merged_into(r, "sensor"), "base");
  EXPECT_EQ(merged_into(r, "tool_frame"), "wheel");
  EXPECT_TRUE(has_warning(r, "<transmission> (1)"));

  // Exact merge: base (2 kg, CoM (0,0,0.1), diag(.02,.03,.04)) + sensor (0.5 kg) mounted at
  // (0.2, 0, 0.3) yawed 90 deg, its inertial at (0.1, 0, 0) yawed 0.5 rad in its frame.
  const Body& base = m.bodies[m.body_index("base")];
  const Mat3 Rs = Eigen::AngleAxisd(M_PI / 2 + 0.5, Vec3::UnitZ()).toRotationMatrix();
  Mat3 Is;
  Is << 0.001, 0.0002, 0, 0.0002, 0.002, 0, 0, 0, 0.0025;
  const Vec3 cb(0, 0, 0.1), cs = Vec3(0.2, 0, 0.3) + Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()) * Vec3(0.1, 0, 0);
  const Vec3 com = (2 * cb + 0.5 * cs) / 2.5;
  auto shift = [](double mass, const Vec3& d) {
    return Mat3(mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
  };
  const Mat3 I = Vec3(0.02, 0.03, 0.04).asDiagonal().toDenseMatrix() + shift(2, cb - com) +
                 Rs * Is * Rs.transpose() + shift(0.5, cs - com);
  EXPECT_NEAR(base.mass, 2.5, 1e-15);
  EXPECT_LT((com - Vec3(0.04, 0.02, 0.14)).norm(), 1e-15);
  EXPECT_LT((base.x0 - com).norm(), 1e-15);  // floating root at the origin, link frame = world
  EXPECT_LT((base.link_origin + com).norm(), 1e-15);
  EXPECT_LT((base.inertia - I).norm(), 1e-15);
  EXPECT_EQ(base.q0, quat_identity());

  // geometry: base box (collision, lateral friction 0.8), base cube OBJ (visual, blue),
  // sensor sphere (collision, no friction given)
  ASSERT_EQ(base.geoms.size(), 3u);
  const Geom& box = base.geoms[0];
  EXPECT_EQ(box.type, GeomType::Box);
  EXPECT_TRUE(box.collision);
  EXPECT_LT((box.size - Vec3(0.1, 0.15, 0.2)).norm(), 1e-15);
  EXPECT_LT((box.pos - (Vec3(0, 0, 0.1) - com)).norm(), 1e-15);
  EXPECT_DOUBLE_EQ(box.friction, 0.8);
  const Geom& vis = base.geoms[1];
  EXPECT_EQ(vis.type, GeomType::Mesh);
  EXPECT_FALSE(vis.collision);
  EXPECT_EQ(vis.vertices.size(), 8u);
  EXPECT_EQ(vis.faces.size(), 12u);
  EXPECT_NEAR(vis.vertices[0].cwiseAbs().maxCoeff(), 0.1, 1e-7);  // unit cube scaled by 0.2
  EXPECT_LT((vis.rgba - Eigen::Vector4d(0, 0, 0.8, 1)).norm(), 1e-7);  // urdfdom keeps floats
  const Geom& sph = base.geoms[2];
  EXPECT_EQ(sph.type, GeomType::Sphere);
  EXPECT_DOUBLE_EQ(sph.size(0), 0.05);
  EXPECT_LT((sph.pos - (Vec3(0.2, 0, 0.3) - com)).norm(), 1e-15);
  EXPECT_LT(sph.friction, 0);

  // the floating base: MuJoCo-style coordinates
  const Joint& root = m.joints[0];
  EXPECT_EQ(root.name, "base_joint");
  EXPECT_EQ(root.type, JointType::Floating);
  EXPECT_LT((root.child_anchor - base.link_origin).norm(), 1e-15);

  // prismatic with limits, effort, velocity, damping and friction on row 2
  const Joint& slide = m.joints[m.joint_index("slide")];
  EXPECT_EQ(slide.type, JointType::Prismatic);
  EXPECT_TRUE(slide.has_limits);
  EXPECT_DOUBLE_EQ(slide.lower[2], -0.2);
  EXPECT_DOUBLE_EQ(slide.upper[2], 0.3);
  EXPECT_DOUBLE_EQ(slide.effort[2], 50);
  EXPECT_DOUBLE_EQ(slide.velocity[2], 2);
  EXPECT_DOUBLE_EQ(slide.damping[2], 0.3);
  EXPECT_DOUBLE_EQ(slide.friction[2], 0.1);
  EXPECT_LT((axis_from_parent(m, slide) - Vec3::UnitX()).norm(), 1e-12);
  EXPECT_LT((anchor_from_parent(m, slide) - Vec3(0, 0, 0.5)).norm(), 1e-12);
  EXPECT_TRUE(has_warning(r, "dry friction of 1 joint(s): enforced by the variational integrator"));
  // the slider's COLLADA mesh is in centimetres: the unit cube becomes 1 cm
  const Body& slider = m.bodies[m.body_index("slider")];
  ASSERT_EQ(slider.geoms.size(), 2u);
  EXPECT_EQ(slider.geoms[0].type, GeomType::Cylinder);
  EXPECT_LT((slider.geoms[0].size - Vec3(0.05, 0.2, 0)).norm(), 1e-15);
  EXPECT_EQ(slider.geoms[1].type, GeomType::Mesh);
  EXPECT_EQ(slider.geoms[1].vertices.size(), 8u);
  EXPECT_NEAR(slider.geoms[1].vertices[0].cwiseAbs().maxCoeff(), 0.005, 1e-9);

  // continuous without limits; package:// collision mesh with scale 2
  const Joint& spin = m.joints[m.joint_index("spin")];
  EXPECT_EQ(spin.type, JointType::Revolute);
  EXPECT_FALSE(spin.has_limits);
  const Body& wheel = m.bodies[m.body_index("wheel")];
  ASSERT_EQ(wheel.geoms.size(), 1u);
  EXPECT_TRUE(wheel.geoms[0].collision);
  EXPECT_NEAR(wheel.geoms[0].vertices[0].cwiseAbs().maxCoeff(), 1.0, 1e-7);
  EXPECT_NE(wheel.geoms[0].mesh_file.find("packages/testpkg/meshes/cube.stl"), std::string::npos);

  // planar -> PlanarAxis: slides in the plane normal to the axis, turns about it
  const Joint& glide = m.joints[m.joint_index("glide")];
  EXPECT_EQ(glide.type, JointType::PlanarAxis);
  EXPECT_EQ(glide.dof(), 3);
  EXPECT_LT((axis_from_parent(m, glide) - Vec3::UnitZ()).norm(), 1e-12);

  // one motor per movable single-coordinate joint
  ASSERT_EQ(m.actuators.size(), 2u);
  EXPECT_EQ(m.joints[m.actuators[0].joint].name, "slide");
  EXPECT_EQ(m.actuators[0].row, 2);
  EXPECT_TRUE(m.actuators[0].force_limited);
  EXPECT_DOUBLE_EQ(m.actuators[0].force_upper, 50);
  EXPECT_EQ(m.actuators[1].row, 5);
  EXPECT_FALSE(m.actuators[1].force_limited);
}

TEST(ModelsUrdf, PackagePathFromEnvironment) {
  // without a package path the collision mesh cannot be found
  unsetenv("MAXSIM_PACKAGE_PATH");
  EXPECT_THROW(load(loader_data("features.urdf")), LoadError);
  ASSERT_EQ(setenv("MAXSIM_PACKAGE_PATH", ("/nonexistent:" + loader_data("packages")).c_str(), 1), 0);
  Model m = load(loader_data("features.urdf"));
  unsetenv("MAXSIM_PACKAGE_PATH");
  EXPECT_EQ(m.bodies.size(), 4u);
}

TEST(ModelsMjcf, FeaturesExactValues) {
  LoadReport r;
  Model m = load(loader_data("features.xml"), &r);
  // bodies: base, arm (+ hand welded), wrist, leg/leg_x, leg/leg_y, leg; static_post -> world
  // joints: root, shoulder, wrist_ball, leg_x, leg_y, leg_slide + connect + weld
  // dof: 6 + 1 + 3 + 1 + 1 + 1 (tree) + 3 (connect) + 0 (weld)
  expect_shape(m, 6, 8, 16);
  expect_tree_joints_consistent(m);
  EXPECT_DOUBLE_EQ(m.opt.timestep, 0.004);
  EXPECT_TRUE(m.dt_from_file);
  EXPECT_LT((m.opt.gravity - Vec3(0, 0, -9)).norm(), 1e-15);
  EXPECT_EQ(merged_into(r, "static_post"), "world");
  EXPECT_EQ(merged_into(r, "hand"), "arm");
  ASSERT_EQ(r.virtual_bodies.size(), 2u);
  EXPECT_EQ(r.virtual_bodies[0], "leg/leg_x");
  EXPECT_EQ(r.virtual_bodies[1], "leg/leg_y");
  ASSERT_EQ(m.tendons.size(), 1u);
  EXPECT_EQ(m.tendons[0].joints.size(), 1u);
  ASSERT_EQ(m.sensors.size(), 1u);  // <jointpos joint="shoulder"/>
  EXPECT_EQ(m.sensors[0].type, SensorType::JointPos);
  ASSERT_EQ(m.world_geoms.size(), 2u);  // floor + the static post's box
  EXPECT_EQ(m.world_geoms[0].type, GeomType::Plane);
  EXPECT_LT((m.world_geoms[1].pos - Vec3(1, 0, 0)).norm(), 1e-15);

  const Vec4 rz90(std::cos(M_PI / 4), 0, 0, std::sin(M_PI / 4));
  // base: euler="90 0 0" with eulerseq zyx = 90 deg about z; explicit inertial
  const Body& base = m.bodies[m.body_index("base")];
  EXPECT_LT((base.q0 - rz90).norm(), 1e-12);
  EXPECT_LT((base.x0 - Vec3(0, 0, 1.1)).norm(), 1e-12);
  EXPECT_DOUBLE_EQ(base.mass, 3);
  EXPECT_LT((base.inertia - Vec3(0.1, 0.2, 0.25).asDiagonal().toDenseMatrix()).norm(), 1e-15);
  // arm: in a <frame pos="0.1 0 0"> at pos 0.1 0 0, axisangle 90 deg about z
  const Body& arm = m.bodies[m.body_index("arm")];
  const Vec3 arm_origin = arm.x0 + quat_to_rot(arm.q0) * arm.link_origin;
  EXPECT_LT((arm_origin - Vec3(0, 0.2, 1)).norm(), 1e-12);
  EXPECT_LT((quat_to_rot(arm.q0) - Eigen::AngleAxisd(M_PI, Vec3::UnitZ()).toRotationMatrix()).norm(), 1e-12);
  // arm mass: capsule r 0.03 length 0.4 at density 1000 + the welded hand sphere of 0.2 kg
  const double r3 = 0.03;
  const double capsule = 1000 * (M_PI * r3 * r3 * 0.4 + 4.0 / 3.0 * M_PI * r3 * r3 * r3);
  EXPECT_NEAR(arm.mass, capsule + 0.2, 1e-12);
  ASSERT_EQ(arm.geoms.size(), 2u);
  EXPECT_EQ(arm.geoms[0].type, GeomType::Capsule);
  EXPECT_LT((arm.geoms[0].size - Vec3(0.03, 0.2, 0)).norm(), 1e-15);
  EXPECT_LT((arm.geoms[0].rgba - Eigen::Vector4d(0.1, 0.2, 0.3, 1)).norm(), 1e-15);  // childclass
  // shoulder: ref 30, range -60..60, springref 10 (degrees) -> shifted by ref
  const double deg = M_PI / 180;
  const Joint& sh = m.joints[m.joint_index("shoulder")];
  EXPECT_TRUE(sh.has_limits);
  EXPECT_NEAR(sh.lower[5], -90 * deg, 1e-12);
  EXPECT_NEAR(sh.upper[5], 30 * deg, 1e-12);
  EXPECT_NEAR(sh.spring_ref[5], -20 * deg, 1e-12);
  EXPECT_DOUBLE_EQ(sh.stiffness[5], 2);
  EXPECT_DOUBLE_EQ(sh.damping[5], 0.5);  // childclass robot
  // arm's y axis in the world: the arm is turned 180 deg about z -> -y
  EXPECT_LT((axis_from_child(m, sh) - Vec3(0, -1, 0)).norm(), 1e-12);
  // wrist: xyaxes -> 90 deg about z relative to the arm; a 0.5 m cube mesh, density 1000
  const Body& wrist = m.bodies[m.body_index("wrist")];
  EXPECT_NEAR(wrist.mass, 125, 1e-9);
  EXPECT_LT((wrist.inertia - (125 * 0.5 / 12) * Mat3::Identity()).norm(), 1e-9);
  EXPECT_LT((quat_to_rot(wrist.q0) - Eigen::AngleAxisd(-M_PI / 2, Vec3::UnitZ()).toRotationMatrix()).norm(), 1e-12);
  const Joint& ball = m.joints[m.joint_index("wrist_ball")];
  EXPECT_EQ(ball.type, JointType::Spherical);
  EXPECT_EQ(ball.child_frame, quat_identity());
  EXPECT_DOUBLE_EQ(ball.damping[4], 0.1);
  // leg: three joints -> two virtual bodies, joints in file order
  const Joint& lx = m.joints[m.joint_index("leg_x")];
  const Joint& ly = m.joints[m.joint_index("leg_y")];
  const Joint& ls = m.joints[m.joint_index("leg_slide")];
  EXPECT_EQ(m.bodies[lx.parent].name, "base");
  EXPECT_EQ(m.bodies[lx.child].name, "leg/leg_x");
  EXPECT_EQ(m.bodies[ly.child].name, "leg/leg_y");
  EXPECT_EQ(m.bodies[ls.child].name, "leg");
  EXPECT_DOUBLE_EQ(lx.stiffness[5], 5);  // class stiff
  EXPECT_DOUBLE_EQ(lx.damping[5], 1);
  EXPECT_DOUBLE_EQ(ly.damping[5], 0.5);
  EXPECT_TRUE(ls.has_limits);
  EXPECT_DOUBLE_EQ(ls.upper[2], 0.1);
  const Body& leg = m.bodies[m.body_index("leg")];
  const Body& vy = m.bodies[m.body_index("leg/leg_y")];
  EXPECT_NEAR(vy.mass, 1e-3 * leg.mass, 1e-15);
  EXPECT_LT((vy.inertia - inertia_sphere(vy.mass, 0.01)).norm(), 1e-18);
  // leg frame: zaxis 0 1 0 in the base frame -> leg z axis = base y = world -x
  EXPECT_LT((quat_to_rot(leg.q0) * Vec3::UnitZ() - Vec3(-1, 0, 0)).norm(), 1e-12);
  // leg_y anchor: pos 0 0 0.05 in the leg frame; virtual body CoM at that anchor
  const Vec3 leg_origin = leg.x0 + quat_to_rot(leg.q0) * leg.link_origin;
  EXPECT_LT((anchor_from_child(m, ly) - (leg_origin + Vec3(-0.05, 0, 0))).norm(), 1e-12);
  EXPECT_LT((vy.x0 - anchor_from_child(m, ly)).norm(), 1e-12);

  // equalities: connect wrist -> hand (welded into arm), weld static_post (world) -> base
  const Joint& conn = m.joints[m.joint_index("wrist_hand_connect")];
  EXPECT_EQ(conn.type, JointType::Spherical);
  EXPECT_EQ(m.bodies[conn.parent].name, "wrist");
  EXPECT_EQ(m.bodies[conn.child].name, "arm");
  const Vec3 wrist_origin = wrist.x0 + quat_to_rot(wrist.q0) * wrist.link_origin;
  EXPECT_LT((anchor_from_parent(m, conn) - (wrist_origin + quat_to_rot(wrist.q0) * Vec3(0.05, 0, 0))).norm(), 1e-12);
  const Joint& weld = m.joints[m.joint_index("static_post_base_weld")];
  EXPECT_EQ(weld.type, JointType::Fixed);
  EXPECT_EQ(weld.parent, kWorld);
  EXPECT_EQ(m.bodies[weld.child].name, "base");

  ASSERT_EQ(m.contact_excludes.size(), 1u);
  EXPECT_EQ(m.contact_excludes[0], std::make_pair(m.body_index("base"), m.body_index("leg")));

  // actuators (one on the tendon)
  ASSERT_EQ(m.actuators.size(), 5u);
  const Actuator& a0 = m.actuators[0];
  EXPECT_EQ(a0.kind, Actuator::Kind::Motor);
  EXPECT_DOUBLE_EQ(a0.gear, 10);
  EXPECT_TRUE(a0.ctrl_limited);
  EXPECT_DOUBLE_EQ(a0.ctrl_upper, 1);
  const Actuator& a1 = m.actuators[1];
  EXPECT_EQ(a1.kind, Actuator::Kind::Position);
  EXPECT_EQ(m.joints[a1.joint].name, "leg_slide");
  EXPECT_EQ(a1.row, 2);
  EXPECT_DOUBLE_EQ(a1.kp, 100);
  EXPECT_DOUBLE_EQ(a1.kv, 5);
  EXPECT_DOUBLE_EQ(a1.ctrl_lower, -0.5);  // class servo
  const Actuator& on_tendon = m.actuators[2];
  EXPECT_EQ(on_tendon.kind, Actuator::Kind::Motor);
  EXPECT_EQ(on_tendon.tendon, 0);
  const Actuator& a2 = m.actuators[3];
  EXPECT_EQ(a2.kind, Actuator::Kind::Velocity);
  EXPECT_DOUBLE_EQ(a2.kv, 3);
  const Actuator& a3 = m.actuators[4];
  EXPECT_EQ(a3.kind, Actuator::Kind::Position);  // general with an affine position bias
  EXPECT_DOUBLE_EQ(a3.kp, 20);
  EXPECT_DOUBLE_EQ(a3.kv, 2);

  // keyframe: MuJoCo qpos/qvel split per joint, hinge relative to ref, ctrl of loaded actuators
  ASSERT_EQ(m.keyframes.size(), 1u);
  const Keyframe& k = m.keyframes[0];
  EXPECT_EQ(k.name, "pose");
  EXPECT_DOUBLE_EQ(k.time, 0.5);
  ASSERT_EQ(k.joint_q.size(), m.joints.size());
  EXPECT_EQ(k.joint_q[m.joint_index("root")], (std::vector<double>{0.1, 0.2, 1.5, 1, 0, 0, 0}));
  ASSERT_EQ(k.joint_q[m.joint_index("shoulder")].size(), 1u);
  EXPECT_NEAR(k.joint_q[m.joint_index("shoulder")][0], 0.7 - 30 * deg, 1e-12);
  EXPECT_EQ(k.joint_q[m.joint_index("wrist_ball")], (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(k.joint_q[m.joint_index("leg_slide")], (std::vector<double>{0.05}));
  EXPECT_TRUE(k.joint_q[m.joint_index("wrist_hand_connect")].empty());
  EXPECT_EQ(k.joint_qd[m.joint_index("root")], (std::vector<double>{1, 2, 3, 0.1, 0.2, 0.3}));
  EXPECT_EQ(k.joint_qd[m.joint_index("wrist_ball")], (std::vector<double>{0.5, 0.6, 0.7}));
  EXPECT_EQ(k.ctrl, (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5}));
}

// ---- meshes and inertia helpers -------------------------------------------------------------

TEST(ModelsMesh, FormatsAndSolidProperties) {
  for (const char* f : {"cube.stl", "cube.obj"}) {
    MeshData d = load_mesh_file(loader_data(f), Vec3(1, 2, 3));
    EXPECT_EQ(d.vertices.size(), 8u) << f;
    EXPECT_EQ(d.faces.size(), 12u) << f;
    SolidProps s = mesh_solid_props(d.vertices, d.faces);
    EXPECT_FALSE(s.mesh_fallback);
    EXPECT_NEAR(s.volume, 6.0, 1e-6) << f;  // 1 x 2 x 3 box
    EXPECT_LT(s.centroid.norm(), 1e-6);
    EXPECT_LT((s.unit_inertia - inertia_box(6.0, Vec3(0.5, 1, 1.5))).norm(), 1e-5) << f;
  }
  // mirrored scale (MJCF scale="1 -1 1"): winding flipped back, volume stays positive
  MeshData m = load_mesh_file(loader_data("cube.stl"), Vec3(1, -1, 1));
  EXPECT_NEAR(mesh_solid_props(m.vertices, m.faces).volume, 1.0, 1e-6);
  // an open mesh (one face removed) falls back to its bounding box
  m.faces.pop_back();
  SolidProps open = mesh_solid_props(m.vertices, m.faces);
  EXPECT_TRUE(open.mesh_fallback);
  EXPECT_NEAR(open.volume, 1.0, 1e-6);
  EXPECT_THROW(load_mesh_file(loader_data("nothing.stl")), LoadError);
  EXPECT_THROW(load_mesh_file(loader_data("features.urdf")), LoadError);  // not a mesh
}

TEST(ModelsMesh, ResolveResource) {
  const std::vector<std::string> none;
  EXPECT_EQ(resolve_resource("cube.stl", loader_data("."), none), loader_data("./cube.stl"));
  EXPECT_EQ(resolve_resource("file://" + loader_data("cube.obj"), "/", none), loader_data("cube.obj"));
  EXPECT_EQ(resolve_resource("package://testpkg/meshes/cube.stl", "/tmp", {loader_data("packages")}),
            loader_data("packages/testpkg/meshes/cube.stl"));
  // ROS layout: package://NAME/... with the file in NAME/urdf/ (two levels up)
  EXPECT_EQ(resolve_resource("package://testpkg/meshes/cube.stl", loader_data("packages/testpkg/urdf"), none),
            loader_data("packages") + "/testpkg/meshes/cube.stl");
  std::string tried;
  EXPECT_EQ(resolve_resource("package://nope/x.stl", "/tmp", none, &tried), "");
  EXPECT_NE(tried.find("nope/x.stl"), std::string::npos);
}

TEST(ModelsInertia, CombineIsExact) {
  // two point-like spheres of 1 kg at x = +-1: I = diag(0.8 r^2 + 0, 2 + ..., 2 + ...)
  MassProps a{1, Vec3(1, 0, 0), inertia_sphere(1, 0.1)};
  MassProps b{1, Vec3(-1, 0, 0), inertia_sphere(1, 0.1)};
  MassProps c = combine_mass(a, b);
  EXPECT_DOUBLE_EQ(c.mass, 2);
  EXPECT_EQ(c.com, Vec3::Zero());
  EXPECT_LT((c.inertia - Vec3(0.008, 2.008, 2.008).asDiagonal().toDenseMatrix()).norm(), 1e-15);
  // capsule: MuJoCo's formula = cylinder + hemispheres (compared with a numeric sum of slices)
  Geom cap;
  cap.type = GeomType::Capsule;
  cap.size = Vec3(0.1, 0.3, 0);
  SolidProps s = solid_props(cap);
  const double v = M_PI * 0.01 * 0.6 + 4.0 / 3.0 * M_PI * 0.001;
  EXPECT_NEAR(s.volume, v, 1e-15);
  double Ixx = 0, Izz = 0;
  const int n = 200000;
  const double L = 0.3 + 0.1;
  for (int i = 0; i < n; ++i) {  // disks along z
    const double z = -L + (i + 0.5) * 2 * L / n;
    const double rz = std::abs(z) <= 0.3 ? 0.1 : std::sqrt(std::max(0.0, 0.01 - (std::abs(z) - 0.3) * (std::abs(z) - 0.3)));
    const double dm = M_PI * rz * rz * 2 * L / n;
    Ixx += dm * (rz * rz / 4 + z * z);
    Izz += dm * rz * rz / 2;
  }
  EXPECT_NEAR(s.unit_inertia(0, 0), Ixx, 1e-7 * Ixx);
  EXPECT_NEAR(s.unit_inertia(2, 2), Izz, 1e-7 * Izz);
  EXPECT_EQ(check_mass_inertia(1, Vec3(1, 1, 2).asDiagonal()), "");
  EXPECT_NE(check_mass_inertia(1, Vec3(1, 1, 2.5).asDiagonal()).find("triangle"), std::string::npos);
  EXPECT_NE(check_mass_inertia(1, Vec3(1, -1, 1).asDiagonal()).find("positive definite"), std::string::npos);
}

// The inertia floor (models/inertia.hpp): a link lighter than 1e-8 of its joints' rotors is raised
// to that ratio along its own principal axes; a body above its floor keeps its mass and tensor
// bit for bit, and a sliding rotor raises the mass, not the moments.
TEST(ModelsInertia, FloorRaisesOnlyLinksFarBelowTheirRotors) {
  Model m;
  Body heavy;
  heavy.mass = 2.0;
  heavy.inertia = rotate_inertia(Vec3(0.01, 0.02, 0.025), quat_axis_angle(Vec3(1, 2, 3).normalized(), 0.7));
  const int a = m.add_body(heavy);
  Body light;
  light.mass = 1e-9;
  light.x0 = Vec3(0, 0, 1);
  const Vec4 axes = quat_axis_angle(Vec3(0, 1, 1).normalized(), 0.4);
  light.inertia = rotate_inertia(Vec3(1e-13, 5e-9, 2e-8), axes);
  const int b = m.add_body(light);
  Body slider = light;
  slider.x0 = Vec3(0, 0, 2);
  slider.inertia = 1e-3 * Mat3::Identity();
  const int c = m.add_body(slider);
  Joint hinge = make_joint(m, JointType::Revolute, a, b, Vec3(0, 0, 0.5), Vec3(1, 0, 0));
  hinge.armature[5] = 0.75;  // kg·m²
  m.add_joint(hinge);
  Joint slide = make_joint(m, JointType::Prismatic, b, c, Vec3(0, 0, 1.5), Vec3(0, 0, 1));
  slide.armature[2] = 2.0;  // kg
  m.add_joint(slide);
  const Model before = m;

  EXPECT_EQ(bound_inertia_by_armature(&m, 0.0), 0);
  EXPECT_EQ(bound_inertia_by_armature(&m, 1e-8), 2);
  // the heavy body is above 1e-8 x 0.75: untouched
  EXPECT_EQ(m.bodies[a].mass, before.bodies[a].mass);
  EXPECT_TRUE(m.bodies[a].inertia == before.bodies[a].inertia);
  // the light link: moments (1e-13, 5e-9, 2e-8) -> (7.5e-9, 7.5e-9, 2e-8) about the same axes;
  // its mass is raised by the slider's rotor (1e-8 x 2 kg)
  const Mat3 expected = rotate_inertia(Vec3(7.5e-9, 7.5e-9, 2e-8), axes);
  EXPECT_LT((m.bodies[b].inertia - expected).norm(), 1e-12 * 2e-8);
  EXPECT_DOUBLE_EQ(m.bodies[b].mass, 2e-8);
  // the slider: mass raised to 2e-8 kg; its moments (1e-3) are far above 7.5e-9: bit for bit
  EXPECT_DOUBLE_EQ(m.bodies[c].mass, 2e-8);
  EXPECT_TRUE(m.bodies[c].inertia == before.bodies[c].inertia);
  EXPECT_EQ(validate_model(m), "");
}

// Loading applies the floor (LoadOptions::armature_inertia_floor, 1e-8 by default) and says so
// in the report; 0 keeps the file's values; a ratio outside [0, 1e-3] is refused.
TEST(ModelsInertia, LoaderFloorsTheThrowersLinks) {
  LoadReport report, plain_report;
  const Model floored = load_model(repo("tests/data/models/gym_mujoco/thrower.xml"), LoadOptions{}, &report);
  LoadOptions off;
  off.armature_inertia_floor = 0;
  const Model plain = load_model(repo("tests/data/models/gym_mujoco/thrower.xml"), off, &plain_report);
  ASSERT_EQ(floored.bodies.size(), plain.bodies.size());
  int raised = 0;
  for (size_t i = 0; i < plain.bodies.size(); ++i) {
    const double lowest = Eigen::SelfAdjointEigenSolver<Mat3>(plain.bodies[i].inertia).eigenvalues().minCoeff();
    const bool changed = !(floored.bodies[i].inertia == plain.bodies[i].inertia);
    raised += changed;
    if (changed) {  // only links far below 1e-8 x the largest rotor (0.75 kg·m² in the file's default)
      EXPECT_LT(lowest, 1e-8 * 0.75) << plain.bodies[i].name;
      EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat3>(floored.bodies[i].inertia).eigenvalues().minCoeff(),
                (1 - 1e-9) * 1e-8 * 0.75)
          << plain.bodies[i].name;
    }
  }
  EXPECT_GT(raised, 0);
  bool reported = false;
  for (const ValueSource& v : report.sources) reported |= v.name == "inertia floor";
  EXPECT_TRUE(reported);
  for (const ValueSource& v : plain_report.sources) EXPECT_NE(v.name, "inertia floor");

  for (double bad : {-1e-9, 1e-2, std::nan("")}) {
    LoadOptions o;
    o.armature_inertia_floor = bad;
    EXPECT_THROW(load_model(repo("tests/data/models/gym_mujoco/thrower.xml"), o), LoadError) << bad;
  }
}

}  // namespace
}  // namespace maxsim
