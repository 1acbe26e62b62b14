// The URDF dialect of the Julia implementations of the method, ConstrainedDynamics.jl and Dojo.jl
// (models/urdf/, README "URDF dialect of Dojo and ConstrainedDynamics"):
//   * their joint types (ball, fixedorientation, cylindrical, cylindricalfree, planaraxis,
//     planarfree, orbital, and Dojo's other prototypes) map onto the engine's prototypes of seed
//     003 App. B with Dojo's axis convention, and their minimal coordinates round-trip;
//   * <capsule radius length/> geometry;
//   * a top-level material defined again with the same colour is accepted, another colour is a
//     warning naming both places (the first wins);
//   * revolute/prismatic joints without <limit> and zero axes load with a warning.
// Physical checks use a single body on one joint to the world, without contacts unless stated.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/constraints/joint.hpp"
#include "sim/maxsim.hpp"

namespace maxsim {
namespace {

namespace fs = std::filesystem;

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
std::string corpus(const std::string& f) { return repo("tests/data/models/" + f); }
const std::string kAllTypes = corpus("constrained_dynamics/urdf_test_all_joint_types.urdf");

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("maxsim_test_urdf_dialect_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool has_warning(const LoadReport& r, const std::string& piece) {
  for (const auto& w : r.warnings)
    if (w.find(piece) != std::string::npos) return true;
  return false;
}

// One body 'b' (1 kg, principal inertia 0.02, 0.03, 0.04 along the link axes, CoM at `com` in the
// link frame) on a joint of `type` to the world at `origin` (xyz) / `rpy` with `axis`.
std::string one_body(const std::string& type, const std::string& axis = "0 0 1",
                     const std::string& origin = "0 0 1", const std::string& rpy = "0 0 0",
                     const std::string& com = "0 0 0", const std::string& extra = "") {
  return write_file(type + ".urdf", R"(<?xml version="1.0"?>
<robot name="one_body">
  <link name="world"/>
  <link name="b">
    <inertial><origin xyz=")" + com + R"("/><mass value="1"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial>
  </link>
  <joint name="j" type=")" + type + R"(">
    <parent link="world"/><child link="b"/>
    <origin xyz=")" + origin + R"(" rpy=")" + rpy + R"("/>
    <axis xyz=")" + axis + R"("/>)" + extra + R"(
  </joint>
</robot>
)");
}

Model load_one(const std::string& path, LoadReport* report = nullptr) {
  LoadReport local;
  return load_model(path, {}, report ? report : &local);
}

// Dialect name, engine prototype, free rows ("xyz": translations along the joint frame's axes,
// "XYZ": rotations about them; the joint frame's z is the file's axis), position coordinates.
struct TypeCase {
  const char* name;
  JointType type;
  const char* free;
  int nq;
};
const TypeCase kDialect[] = {
    {"ball", JointType::Spherical, "XYZ", 4},
    {"spherical", JointType::Spherical, "XYZ", 4},
    {"fixedorientation", JointType::FixedOrientation, "xyz", 3},
    {"cylindrical", JointType::Cylindrical, "zZ", 2},
    {"planaraxis", JointType::PlanarAxis, "xyZ", 3},
    {"freerevolute", JointType::FreeRevolute, "xyzZ", 4},
    {"orbital", JointType::Orbital, "XY", 2},
    {"prismaticorbital", JointType::PrismaticOrbital, "zXY", 3},
    {"planarorbital", JointType::PlanarOrbital, "xyXY", 4},
    {"freeorbital", JointType::FreeOrbital, "xyzXY", 5},
    {"cylindricalfree", JointType::CylindricalFree, "zXYZ", 5},
    {"planarfree", JointType::PlanarFree, "xyXYZ", 6},
};

bool row_free(const char* free, int row) { return std::string(free).find("xyzXYZ"[row]) != std::string::npos; }

Mat3 rot_z(double a) { return quat_to_rot(quat_axis_angle(Vec3::UnitZ(), a)); }

// The joint frame in the world at the zero configuration (the parent is the world).
Mat3 joint_frame(const Joint& j) { return quat_to_rot(j.parent_frame); }

TEST(UrdfDialect, EveryJointTypeHasDojosFreeRowsAndAxis) {
  // the URDF joint frame turned by 0.3 rad about z; the axis y of that frame
  const Vec3 axis_world = rot_z(0.3) * Vec3::UnitY();
  for (const TypeCase& c : kDialect) {
    SCOPED_TRACE(c.name);
    LoadReport r;
    const Model m = load_one(one_body(c.name, "0 1 0", "0 0 1", "0 0 0.3"), &r);
    ASSERT_EQ(m.joints.size(), 1u);
    const Joint& j = m.joints[0];
    EXPECT_EQ(j.type, c.type);
    EXPECT_EQ(j.nq(), c.nq);
    EXPECT_EQ(j.dof(), static_cast<int>(std::string(c.free).size()));
    for (int row = 0; row < 6; ++row) EXPECT_EQ(!j.row_constrained(row), row_free(c.free, row)) << "row " << row;
    if (rot_kind(c.type) == RotKind::Free && trans_kind(c.type) == TransKind::Fixed) {
      // no axis (Dojo's Spherical): the joint frame is the URDF joint frame
      EXPECT_LT((joint_frame(j) - rot_z(0.3)).norm(), 1e-12);
    } else if (c.type == JointType::FixedOrientation) {
      EXPECT_LT((joint_frame(j) - rot_z(0.3)).norm(), 1e-12);
    } else {
      EXPECT_LT((joint_frame(j).col(2) - axis_world).norm(), 1e-12);
    }
    // the anchor is the joint origin; no motor on a multi-row joint, no limits
    EXPECT_LT((j.parent_anchor - Vec3(0, 0, 1)).norm(), 1e-12);
    EXPECT_TRUE(m.actuators.empty());
    EXPECT_FALSE(j.has_limits);
  }
}

TEST(UrdfDialect, UnknownTypeNamesTheExtensions) {
  try {
    load_one(one_body("universal"));
    ADD_FAILURE() << "no LoadError";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.line(), 8) << what;
    for (const char* piece : {"unknown joint type 'universal'", "planar;", "Dojo/ConstrainedDynamics extensions: ball",
                              "orbital", "planarfree"})
      EXPECT_NE(what.find(piece), std::string::npos) << piece << " in " << what;
  }
}

// Coordinates per type: translations 0.12, -0.07, 0.05; rotation angle 0.4; orbital (0.3, -0.2);
// quaternion ∝ (0.9, 0.2, -0.1, 0.3). Rates 0.5, -0.3, 0.4, then 0.7, -0.6, 0.8.
void sample_coordinates(const Joint& j, std::vector<double>* q, std::vector<double>* qd) {
  q->clear();
  qd->clear();
  const double t[3] = {0.12, -0.07, 0.05}, v[3] = {0.5, -0.3, 0.4}, w[3] = {0.7, -0.6, 0.8};
  for (int r = 0; r < 3; ++r)
    if (!j.row_constrained(r)) q->push_back(t[r]), qd->push_back(v[r]);
  switch (rot_kind(j.type)) {
    case RotKind::Fixed: break;
    case RotKind::Revolute: q->push_back(0.4), qd->push_back(w[2]); break;
    case RotKind::Orbital: q->insert(q->end(), {0.3, -0.2}), qd->insert(qd->end(), {w[0], w[1]}); break;
    case RotKind::Free: {
      const Vec4 r = quat_normalize(Vec4(0.9, 0.2, -0.1, 0.3));
      q->insert(q->end(), {r(0), r(1), r(2), r(3)});
      qd->insert(qd->end(), {w[0], w[1], w[2]});
      break;
    }
  }
}

// Two seconds under gravity from non-zero coordinates and rates, the anchor off the centre of
// mass and the axis oblique: every step converges and every constrained row stays below 1e-8.
TEST(UrdfDialect, EveryJointTypeRoundTripsAndHoldsItsConstraintsUnderGravity) {
  for (const TypeCase& c : kDialect) {
    SCOPED_TRACE(c.name);
    const Model m = load_one(one_body(c.name, "1 2 3", "0.1 0 1", "0.2 -0.1 0.3", "0.1 -0.05 -0.3"));
    Data d(m);
    std::vector<double> q, qd;
    sample_coordinates(m.joints[0], &q, &qd);
    set_joint_coordinates(m, d, 0, q, qd);
    std::vector<double> q2(m.joints[0].nq()), qd2(m.joints[0].dof());
    joint_coordinates(m, d, 0, q2.data(), qd2.data());
    for (size_t k = 0; k < q.size(); ++k) EXPECT_NEAR(q2[k], q[k], 1e-12) << "q" << k;
    for (size_t k = 0; k < qd.size(); ++k) EXPECT_NEAR(qd2[k], qd[k], 1e-12) << "qd" << k;
    ASSERT_LT(max_constraint_violation(m, d), 1e-12);
    double worst = 0;
    for (int i = 0; i < 200; ++i) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << i;
      worst = std::max(worst, max_constraint_violation(m, d));
    }
    EXPECT_LT(worst, 1e-8);
    // it moved: the coordinates are not where they started
    joint_coordinates(m, d, 0, q2.data(), qd2.data());
    double moved = 0;
    for (size_t k = 0; k < q.size(); ++k) moved = std::max(moved, std::abs(q2[k] - q[k]));
    EXPECT_GT(moved, 0.1);
  }
}

// A body whose centre of mass is the joint origin feels no torque from gravity, so each free row
// moves on its own: along a free vertical translation it falls freely, otherwise it stays at its
// height. Discretely (velocities over the interval, docs/computation.md (7) and (12))
// z_n = z0 − g t (t + Δt) / 2, which is the continuous z0 − g t²/2 within g t Δt / 2.
TEST(UrdfDialect, BodyFallsAlongAFreeVerticalTranslationOnly) {
  struct Fall {
    const char* type;
    const char* axis;
    bool falls;
  };
  const Fall cases[] = {
      {"fixedorientation", "1 0 0", true},  {"freerevolute", "1 0 0", true},
      {"freeorbital", "0 1 0", true},       {"cylindrical", "0 0 1", true},
      {"cylindricalfree", "0 0 1", true},   {"prismaticorbital", "0 0 1", true},
      {"planarorbital", "1 0 0", true},     {"planarfree", "0 1 0", true},
      {"planaraxis", "1 0 0", true},        {"cylindrical", "1 0 0", false},
      {"cylindricalfree", "0 1 0", false},  {"prismaticorbital", "1 0 0", false},
      {"planarfree", "0 0 1", false},       {"planaraxis", "0 0 1", false},
      {"orbital", "0 0 1", false},          {"ball", "0 0 1", false},
  };
  const double dt = 0.001, g = 9.81;
  for (const Fall& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " axis " + c.axis);
    Model m = load_one(one_body(c.type, c.axis));
    m.opt.timestep = dt;
    Data d(m);
    const Vec4 q0 = d.q[0];
    const int n = 2000;
    for (int i = 0; i < n; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const double t = n * dt;
    const double z = d.x[0].z();
    if (c.falls) {
      EXPECT_NEAR(z, 1 - 0.5 * g * t * (t + dt), 1e-8);
      EXPECT_NEAR(z, 1 - 0.5 * g * t * t, g * t * dt);
    } else {
      EXPECT_NEAR(z, 1.0, 1e-9);
    }
    EXPECT_LT((d.x[0].head<2>()).norm(), 1e-9);       // no horizontal force
    EXPECT_LT((d.q[0] - q0).norm(), 1e-9);            // no torque: it does not turn
    EXPECT_LT(max_constraint_violation(m, d), 1e-9);
  }
}

// fixedorientation (Dojo: "chicken's head"): thrown with a velocity, the body flies a parabola
// and never turns, whatever its initial rates would have been about the CoM.
TEST(UrdfDialect, FixedOrientationBodyFliesAParabolaWithoutTurning) {
  Model m = load_one(one_body("fixedorientation", "1 0 0", "0 0 1", "0 0 0.4", "0.1 0.2 -0.3"));
  const double dt = 0.001, g = 9.81;
  m.opt.timestep = dt;
  Data d(m);
  // rates along the URDF joint frame (turned 0.4 rad about z)
  set_joint_coordinates(m, d, 0, {}, {0.2, -0.1, 0.5});
  const Vec3 v0 = rot_z(0.4) * Vec3(0.2, -0.1, 0.5);
  EXPECT_LT((d.v[0] - v0).norm(), 1e-12);
  const Vec3 x0 = d.x[0];
  const Vec4 q0 = d.q[0];
  const int n = 2000;
  for (int i = 0; i < n; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double t = n * dt;
  EXPECT_LT((d.x[0].head<2>() - (x0 + v0 * t).head<2>()).norm(), 1e-9);
  EXPECT_NEAR(d.x[0].z(), x0.z() + v0.z() * t - 0.5 * g * t * t, g * t * dt);
  EXPECT_LT((d.q[0] - q0).norm(), 1e-12);
  EXPECT_LT(d.w[0].norm(), 1e-12);
}

// planaraxis with axis y (Dojo's hopper and walker bases): the body moves only in the x-z plane
// and turns only about y. With the CoM on the joint origin it flies a parabola in that plane and
// spins at its initial rate (about a principal axis, no torque).
TEST(UrdfDialect, PlanarAxisBodyMovesInItsPlaneAndTurnsAboutTheAxis) {
  Model m = load_one(one_body("planaraxis", "0 1 0"));
  const double dt = 0.001, g = 9.81, spin = 1.5;
  m.opt.timestep = dt;
  Data d(m);
  set_joint_coordinates(m, d, 0, {}, {0.3, -0.4, spin});
  const Vec3 x0 = d.x[0], v0 = d.v[0];
  EXPECT_NEAR(v0.y(), 0.0, 1e-12);
  EXPECT_NEAR(v0.norm(), 0.5, 1e-12);
  const int n = 2000;
  for (int i = 0; i < n; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  const double t = n * dt;
  EXPECT_NEAR(d.x[0].x(), x0.x() + v0.x() * t, 1e-9);
  EXPECT_NEAR(d.x[0].y(), x0.y(), 1e-12);
  EXPECT_NEAR(d.x[0].z(), x0.z() + v0.z() * t - 0.5 * g * t * t, g * t * dt);
  const Mat3 R = quat_to_rot(d.q[0]);
  EXPECT_NEAR(R.col(1).dot(Vec3::UnitY()), 1.0, 1e-12);  // turned about y only
  double q[3], qd[3];
  joint_coordinates(m, d, 0, q, qd);
  // each step turns by 2 asin(ω Δt / 2) (docs/computation.md (7)): ω t within O(Δt²)
  EXPECT_NEAR(q[2], n * 2 * std::asin(0.5 * spin * dt), 1e-9);
  EXPECT_NEAR(q[2], spin * t, 1e-6);
  EXPECT_NEAR(qd[2], spin, 1e-9);
}

// orbital (Dojo: two rotations free, the twist about the axis held): a compound pendulum hanging
// 0.5 m below the joint keeps its anchor, and swinging about x it has the period
// T = 2π sqrt((I_xx + m l²) / (m g l)) = 1.4742 s (m = 1 kg, l = 0.5 m, I_xx = 0.02 kg·m²),
// lengthened by the amplitude a0 = 0.05 rad by the factor 1 + a0²/16 (1.6e-4).
TEST(UrdfDialect, OrbitalPendulumKeepsItsAnchorAndSwingsWithTheCompoundPeriod) {
  Model m = load_one(one_body("orbital", "0 0 1", "0 0 1", "0 0 0", "0 0 -0.5"));
  const double dt = 0.001, g = 9.81, l = 0.5, Ixx = 0.02;
  m.opt.timestep = dt;
  Data d(m);
  set_joint_coordinates(m, d, 0, {0.05, 0.0}, {});
  const double period = 2 * M_PI * std::sqrt((Ixx + l * l) / (g * l));
  EXPECT_NEAR(period, 1.4742, 1e-4);
  std::vector<double> crossings;
  double prev = 0.05, q[2], qd[2], worst_anchor = 0, worst_b = 0;
  for (int i = 1; i <= 2000; ++i) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    joint_coordinates(m, d, 0, q, qd);
    if ((prev > 0) != (q[0] > 0)) crossings.push_back((i - 1 + prev / (prev - q[0])) * dt);
    prev = q[0];
    const Vec3 anchor = d.x[0] + quat_to_rot(d.q[0]) * m.joints[0].child_anchor;
    worst_anchor = std::max(worst_anchor, (anchor - Vec3(0, 0, 1)).norm());
    worst_b = std::max(worst_b, std::abs(q[1]));
  }
  EXPECT_LT(worst_anchor, 1e-9);
  EXPECT_LT(worst_b, 1e-9);  // released about x only, it stays in the y-z plane
  ASSERT_GE(crossings.size(), 2u);
  EXPECT_NEAR(2 * (crossings[1] - crossings[0]), period * (1 + 0.05 * 0.05 / 16), 1e-5 * period);
}

// Loop joints take the same types (Dojo's parse_loop_joint uses the same joint_selector). A block
// on a floating tree joint, held by a loop joint to a base welded 1 m up; its CoM 0.5 m below the
// joint.
std::string loop_block(const std::string& type, const std::string& extra = "") {
  return write_file("loop_" + type + ".urdf", R"(<?xml version="1.0"?>
<robot name="loop_block">
  <link name="world"/>
  <link name="base"/>
  <joint name="weld" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>
  <link name="block">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial>
  </link>
  <joint name="free" type="floating"><parent link="base"/><child link="block"/></joint>
  <loop_joint name="loop" type=")" + type + R"(">
    <link1 link="base" xyz="0 0 0"/><link2 link="block" xyz="0 0 0"/><axis xyz="0 0 1"/>)" + extra + R"(
  </loop_joint>
</robot>
)");
}

TEST(UrdfDialect, LoopJointsTakeTheDialectTypes) {
  {  // ball: a spherical pendulum about the loop anchor
    Model m = load_model(loop_block("ball"));
    const int j = m.joint_index("loop");
    ASSERT_GE(j, 0);
    EXPECT_EQ(m.joints[j].type, JointType::Spherical);
    m.opt.timestep = 0.001;
    Data d(m);
    const double a = 0.4;
    set_joint_coordinates(m, d, m.joint_index("free"), {0, 0, 1, std::cos(a / 2), std::sin(a / 2), 0, 0}, {});
    ASSERT_LT(max_constraint_violation(m, d), 1e-12);
    double worst = 0;
    for (int i = 0; i < 1000; ++i) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      worst = std::max(worst, std::abs((d.x[0] - Vec3(0, 0, 1)).norm() - 0.5));
    }
    EXPECT_LT(worst, 1e-9);
    EXPECT_LT(max_constraint_violation(m, d), 1e-8);
    EXPECT_GT(std::abs(d.x[0].y()), 0.05);  // it swung
  }
  {  // fixedorientation: falls without turning
    Model m = load_model(loop_block("fixedorientation"));
    EXPECT_EQ(m.joints[m.joint_index("loop")].type, JointType::FixedOrientation);
    m.opt.timestep = 0.001;
    Data d(m);
    const Vec4 q0 = d.q[0];
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    EXPECT_NEAR(d.x[0].z(), 0.5 - 0.5 * 9.81 * 1.0 * 1.001, 1e-8);
    EXPECT_LT((d.q[0] - q0).norm(), 1e-12);
  }
  try {
    load_model(loop_block("orbital", R"(<limit lower="-1" upper="1"/>)"));
    ADD_FAILURE() << "no LoadError";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), 11);
    EXPECT_NE(std::string(e.what()).find("loop joint 'loop' (orbital, 2 free rows): position limits"), std::string::npos)
        << e.what();
  }
}

// ---- capsules --------------------------------------------------------------------------------

TEST(UrdfDialect, CapsulesHaveDojosSizeAndPose) {
  const Model m = load_model(repo("tests/data/loader/dialect_capsule.urdf"));
  ASSERT_EQ(m.bodies.size(), 1u);
  const Body& b = m.bodies[0];
  ASSERT_EQ(b.geoms.size(), 3u);
  for (const Geom& g : b.geoms) EXPECT_EQ(g.type, GeomType::Capsule);
  const Geom& bar = b.geoms[0];
  EXPECT_TRUE(bar.collision);
  EXPECT_LT((bar.size - Vec3(0.05, 0.2, 0)).norm(), 1e-15);        // radius, half the length
  EXPECT_LT(bar.pos.norm(), 1e-12);                                // body frame at the CoM
  EXPECT_LT((quat_to_rot(bar.quat).col(2) - Vec3::UnitX()).norm(), 1e-12);  // axis along link x
  EXPECT_LT((b.geoms[1].size - Vec3(0.03, 0.1, 0)).norm(), 1e-15);
  EXPECT_LT((b.geoms[1].pos - Vec3(-0.2, 0, 0.3)).norm(), 1e-12);
  EXPECT_LT((quat_to_rot(b.geoms[1].quat).col(2) - Vec3::UnitZ()).norm(), 1e-12);
  EXPECT_FALSE(b.geoms[2].collision);  // the visual one
  EXPECT_LT((b.geoms[2].size - bar.size).norm(), 1e-15);
  // lowest points with the link origin at z = 1: the lying bar 1 − r; the standing one
  // 1 + 0.3 − 0.1 − 0.03 (CoM at (0.2, 0, 1))
  const Vec3 x(0.2, 0, 1);
  EXPECT_NEAR(geom_lowest_z(bar, x, quat_identity()), 1 - 0.05, 1e-12);
  EXPECT_NEAR(geom_lowest_z(b.geoms[1], x, quat_identity()), 1.3 - 0.1 - 0.03, 1e-12);
}

// The bar dropped on the ground comes to rest lying on it: its axis 0.05 m (the radius) up.
TEST(UrdfDialect, CapsuleBarComesToRestOnTheGround) {
  const Model m = load_model(repo("tests/data/loader/dialect_capsule.urdf"));  // (URDF: the ground on)
  Data d(m);
  enable_contacts(m, d);
  for (Vec3& x : d.x) x.z() += 0.2;  // bar axis (through the CoM) at z = 0.2
  for (int i = 0; i < 150; ++i) ASSERT_NE(step(m, d).status, StepStatus::Failed) << "step " << i;
  EXPECT_NEAR(d.x[0].z(), 0.05, 1e-3);
  EXPECT_NEAR(quat_to_rot(d.q[0]).col(0).z(), 0.0, 1e-3);  // lying
  EXPECT_LT(d.v[0].norm(), 1e-3);
}

TEST(UrdfDialect, CapsuleWithoutALengthIsAnError) {
  const std::string path = write_file("capsule_no_length.urdf", R"(<?xml version="1.0"?>
<robot name="c">
  <link name="a">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><geometry><capsule radius="0.1"/></geometry></collision>
  </link>
</robot>
)");
  try {
    load_model(path);
    ADD_FAILURE() << "no LoadError";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(std::string(e.what()).find("<capsule> needs a 'length' attribute"), std::string::npos) << e.what();
  }
}

// ---- materials -------------------------------------------------------------------------------

TEST(UrdfDialect, RepeatedIdenticalMaterialsLoad) {
  LoadReport r;
  const Model m = load_model(repo("tests/data/loader/dialect_materials.urdf"), {}, &r);
  ASSERT_EQ(m.bodies.size(), 1u);
  ASSERT_EQ(m.bodies[0].geoms.size(), 1u);
  EXPECT_LT((m.bodies[0].geoms[0].rgba - Eigen::Vector4d(0, 0, 0, 1)).norm(), 1e-15);
  for (const std::string& w : r.warnings) EXPECT_EQ(w.find("defined again"), std::string::npos) << w;
  EXPECT_EQ(r.ignored, std::vector<std::string>{"<material><texture> (2)"});  // visual only
}

// The warning names both places and the colours; the first definition colours the geoms.
void expect_material_warning(const std::string& path, int line, int first_line, const std::string& colours) {
  SCOPED_TRACE(path);
  LoadReport r;
  load_model(path, {}, &r);
  std::string what;
  for (const std::string& w : r.warnings)
    if (w.find("defined again") != std::string::npos) what = w;
  for (const std::string& piece :
       {path + ":" + std::to_string(line) + ": material 'black' is defined again with a different colour",
        "than at " + path + ":" + std::to_string(first_line), colours, std::string("the first definition is used")})
    EXPECT_NE(what.find(piece), std::string::npos) << "'" << piece << "' in " << what;
}

TEST(UrdfDialect, MaterialRedefinedWithAnotherColourIsAWarningNamingBothPlaces) {
  const std::string broken = repo("tests/data/loader/material_redefined.urdf");
  expect_material_warning(broken, 8, 5, "(rgba '1.0 0.42 0.04 1.0')");
  // ConstrainedDynamics' and Dojo's A1 files: their second "black" is A1's orange
  for (const char* f : {"quadruped.urdf", "quadruped_simple.urdf"})
    expect_material_warning(corpus(std::string("constrained_dynamics/") + f), 22, 7,
                            "(rgba '1.0 0.423529411765 0.0392156862745 1.0') than at");
}

// ---- the corpus files --------------------------------------------------------------------------

TEST(UrdfDialect, ConstrainedDynamicsAllJointTypesFileLoads) {
  LoadReport r;
  const Model m = load_model(kAllTypes, {}, &r);
  // 12 links, 12 joints: fixed_link is merged into base_link, which (with mass now) is the
  // floating root
  EXPECT_EQ(m.bodies.size(), 12u);
  EXPECT_EQ(m.joints.size(), 12u);
  EXPECT_EQ(m.dof(), 6 + 1 + 1 + 1 + 3 + 5 + 6 + 3 + 3 + 2 + 4 + 3);
  const std::map<std::string, JointType> types = {
      {"base_link_joint", JointType::Floating},       {"revolute_joint", JointType::Revolute},
      {"continuous_joint", JointType::Revolute},      {"prismatic_joint", JointType::Prismatic},
      {"planar_joint", JointType::PlanarAxis},        {"planarfree_joint", JointType::PlanarFree},
      {"floating_joint", JointType::Floating},        {"ball_joint", JointType::Spherical},
      {"fixedorientation_joint", JointType::FixedOrientation}, {"cylindrical_joint", JointType::Cylindrical},
      {"cylindricalfree_joint", JointType::CylindricalFree},   {"planaraxis_joint", JointType::PlanarAxis}};
  for (const auto& [name, type] : types) {
    const int j = m.joint_index(name);
    ASSERT_GE(j, 0) << name;
    EXPECT_EQ(m.joints[j].type, type) << name;
  }
  // the file's axes are all "0 0 0": z, with one warning naming the joints and lines
  EXPECT_TRUE(has_warning(r, "zero <axis> on joint(s) 'revolute_joint' (line 216)"));
  ASSERT_LT((m.bodies[0].q0 - quat_identity()).norm(), 1e-15);  // base_link, the parent
  EXPECT_LT((joint_frame(m.joints[m.joint_index("cylindrical_joint")]).col(2) - Vec3::UnitZ()).norm(), 1e-12);
  EXPECT_TRUE(has_warning(r, "without <limit> 'revolute_joint' (line 212), 'prismatic_joint' (line 226)"));
  EXPECT_TRUE(has_warning(r, ":233: joint 'planar_joint': 'planar' is read as in URDF"));
  EXPECT_FALSE(m.joints[m.joint_index("revolute_joint")].has_limits);
  // welded to the world (ConstrainedDynamics' floating=false), 1 s under gravity from moving
  // coordinates: every constraint holds
  LoadOptions fixed;
  fixed.fixed_base = true;
  const Model mf = load_model(kAllTypes, fixed);
  Data d(mf);
  std::vector<std::vector<double>> q(mf.joints.size()), qd(mf.joints.size());
  for (size_t j = 0; j < mf.joints.size(); ++j) sample_coordinates(mf.joints[j], &q[j], &qd[j]);
  set_coordinates(mf, d, q, qd);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(step(mf, d).status, StepStatus::Ok);
  EXPECT_LT(max_constraint_violation(mf, d), 1e-8);
}

TEST(UrdfDialect, QuadrupedsLoadOnceTheirSecondBlackIsRenamed) {
  // The colour clash is the only thing these files have against them.
  for (const char* f : {"quadruped.urdf", "quadruped_simple.urdf"}) {
    SCOPED_TRACE(f);
    std::string text = read_text(corpus(std::string("constrained_dynamics/") + f));
    const std::string second = "<material name=\"black\">\n    <color rgba=\"1.0";
    const size_t at = text.find(second);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::string("<material name=\"black\">").size(), "<material name=\"orange\">");
    const Model m = load_model(write_file(f, text));
    // 18 links: base (massless) merged into the trunk, the four feet into the calves; 17 joints
    // (5 fixed) plus the floating root
    EXPECT_EQ(m.bodies.size(), 13u);
    EXPECT_EQ(m.joints.size(), 13u);
    EXPECT_EQ(m.dof(), 18);
    EXPECT_EQ(m.actuators.size(), 12u);
  }
}

TEST(UrdfDialect, DojoMechanismsLoad) {
  struct Case {
    const char* file;
    size_t bodies;
    int dof, capsules;
  };
  // the massive 'base' link of hopper and walker becomes the floating root (Dojo makes it the
  // origin: --fixed-base)
  for (const Case& c : {Case{"hopper.urdf", 5, 12, 8}, Case{"walker.urdf", 8, 15, 14},
                        Case{"humanoid.urdf", 13, 25, 32}}) {
    SCOPED_TRACE(c.file);
    const Model m = load_model(corpus(std::string("dojo_mechanisms/") + c.file));
    EXPECT_EQ(m.bodies.size(), c.bodies);
    EXPECT_EQ(m.joints.size(), c.bodies);
    EXPECT_EQ(m.dof(), c.dof);
    int capsules = 0;
    for (const Body& b : m.bodies)
      for (const Geom& g : b.geoms) capsules += g.type == GeomType::Capsule;
    EXPECT_EQ(capsules, c.capsules);
  }
  const Model h = load_model(corpus("dojo_mechanisms/humanoid.urdf"));
  const Joint& shoulder = h.joints[h.joint_index("right_shoulder1")];
  EXPECT_EQ(shoulder.type, JointType::Orbital);
  const Body& torso = h.bodies[shoulder.parent];
  EXPECT_LT((quat_to_rot(quat_mul(torso.q0, shoulder.parent_frame)).col(2) -
             Vec3(-1, 1, 1).normalized()).norm(), 1e-5);
  EXPECT_EQ(h.joints[h.joint_index("right_hip_xyz")].type, JointType::Spherical);
}

// ---- what the engine cannot do ---------------------------------------------------------------

TEST(UrdfDialect, RangeLimitsOnMultiRowJointsAreAnError) {
  const std::string path = one_body("orbital", "0 0 1", "0 0 1", "0 0 0", "0 0 0",
                                    R"(<limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>)");
  try {
    load_model(path);
    ADD_FAILURE() << "no LoadError";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), 11);
    EXPECT_NE(std::string(e.what()).find("joint 'j' (orbital, 2 free rows): position limits on a joint with "
                                         "several free rows are not supported"),
              std::string::npos)
        << e.what();
  }
  // effort and velocity alone are accepted (and unused: no motor on a multi-row joint)
  EXPECT_NO_THROW(load_model(one_body("orbital", "0 0 1", "0 0 1", "0 0 0", "0 0 0",
                                      R"(<limit effort="1" velocity="1"/>)")));
}

// ---- the command line ------------------------------------------------------------------------

// Runs the built maxsim; returns the exit status, stdout in *out.
int run_maxsim(const std::string& args, std::string* out) {
  const std::string cmd = std::string(MAXSIM_BINARY_DIR) + "/maxsim " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  out->clear();
  while (size_t n = fread(buf, 1, sizeof buf, p)) out->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// --q / --qd on dialect joints set the initial state that the CSV's first row reads back.
TEST(UrdfDialect, CliCoordinatesOfDialectJointsRoundTripThroughTheCsv) {
  const std::string csv = (temp_dir() / "dialect.csv").string();
  std::string out;
  const std::string humanoid = corpus("dojo_mechanisms/humanoid.urdf");
  ASSERT_EQ(run_maxsim("simulate " + humanoid + " --fixed-base --contacts off --steps 2 --output " + csv +
                           " --q right_shoulder1=0.3,-0.2 --qd right_shoulder1=0.7,-0.6"
                           " --q left_hip_xyz=0.9,0.2,-0.1,0.3 --qd left_hip_xyz=0.5,-0.3,0.4",
                       &out),
            0)
      << out;
  std::ifstream in(csv);
  std::string header, row;
  ASSERT_TRUE(std::getline(in, header) && std::getline(in, row));
  std::map<std::string, double> value;
  std::stringstream hs(header), rs(row);
  for (std::string h, v; std::getline(hs, h, ',') && std::getline(rs, v, ',');) value[h] = std::stod(v);
  const Vec4 hip = quat_normalize(Vec4(0.9, 0.2, -0.1, 0.3));
  const std::map<std::string, double> expected = {
      {"right_shoulder1.q0", 0.3}, {"right_shoulder1.q1", -0.2}, {"right_shoulder1.v0", 0.7},
      {"right_shoulder1.v1", -0.6}, {"left_hip_xyz.q0", hip(0)},  {"left_hip_xyz.q1", hip(1)},
      {"left_hip_xyz.q2", hip(2)}, {"left_hip_xyz.q3", hip(3)},    {"left_hip_xyz.v0", 0.5},
      {"left_hip_xyz.v1", -0.3},   {"left_hip_xyz.v2", 0.4}};
  for (const auto& [k, v] : expected) {
    ASSERT_TRUE(value.count(k)) << k;
    EXPECT_NEAR(value[k], v, 1e-8) << k;
  }
  EXPECT_FALSE(value.count("right_shoulder1.q2"));  // two angles, no more
}

}  // namespace
}  // namespace maxsim
