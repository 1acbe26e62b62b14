// The seed code's robot files load as their authors meant (ConstrainedDynamics' Atlas and A1
// quadrupeds, Dojo's half-cheetah): spheres of radius 0 are point contacts (Drake's convention), a
// material defined twice with two colours is a warning naming both lines (the first wins), a
// positive definite inertia off the triangle inequality is a warning; MJCF's balanceinertia
// balances it as MuJoCo does. Atlas and the quadruped stand on the ground for a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "run/setup.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
std::string seed(const std::string& f) { return repo("tests/data/models/constrained_dynamics/" + f); }

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/seed_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string warning_with(const LoadReport& r, const std::string& piece) {
  for (const std::string& w : r.warnings)
    if (w.find(piece) != std::string::npos) return w;
  return "";
}

}  // namespace

TEST(SeedFiles, TheFourFilesLoad) {
  for (const char* f : {"atlas.urdf", "atlas_simple.urdf", "quadruped.urdf", "quadruped_simple.urdf"}) {
    LoadReport r;
    const Model m = load_model(seed(f), {}, &r);
    EXPECT_GT(m.bodies.size(), 10u) << f;
    EXPECT_EQ(validate_model(m), "") << f;
  }
  // Atlas's feet and hands: its 12 collision spheres have radius 0 (its visual ones 0.01)
  const Model atlas = load_model(seed("atlas.urdf"));
  int spheres = 0, points = 0;
  for (const Body& b : atlas.bodies)
    for (const Geom& g : b.geoms)
      if (g.collision && g.type == GeomType::Sphere) {
        ++spheres;
        points += g.size.x() == 0;
      }
  EXPECT_EQ(spheres, 12);
  EXPECT_EQ(points, 12);
}

// The A1 files define "black" again as A1's orange: the warning names both lines; the first
// (black) is the colour urdfdom keeps.
TEST(SeedFiles, MaterialRedefinedIsAWarningAndTheFirstWins) {
  const std::string path = seed("quadruped.urdf");
  LoadReport r;
  load_model(path, {}, &r);
  const std::string w = warning_with(r, "material 'black'");
  EXPECT_EQ(w.rfind(path + ":22: material 'black' is defined again", 0), 0u) << w;
  EXPECT_NE(w.find("than at " + path + ":7"), std::string::npos) << w;
  const std::string file = write_temp("material.urdf", R"(<robot name="m">
  <material name="black"><color rgba="0 0 0 1"/></material>
  <material name="black"><color rgba="1 0.4 0 1"/></material>
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry><material name="black"/></visual>
  </link>
</robot>
)");
  LoadReport r2;
  const Model m = load_model(file, {}, &r2);
  ASSERT_EQ(m.bodies[0].geoms.size(), 1u);
  EXPECT_EQ(m.bodies[0].geoms[0].rgba, Eigen::Vector4d(0, 0, 0, 1));
  EXPECT_NE(warning_with(r2, ":3: material 'black'"), "");
  EXPECT_NE(warning_with(r2, "than at " + file + ":2"), "");
}

// Dojo's half-cheetah: the torso's moments 0.08944 + 0.8835 fall 4.59 % short of 1.0176. It loads
// as written (the tensor is positive definite) with a warning; a tensor that is not positive
// definite is still refused.
TEST(SeedFiles, TriangleInequalityIsAWarningNotPositiveDefiniteRefused) {
  const std::string path = repo("tests/data/models/dojo_mechanisms/halfcheetah.urdf");
  LoadReport r;
  const Model m = load_model(path, {}, &r);
  const std::string w = warning_with(r, "triangle inequality");
  EXPECT_EQ(w.rfind(path + ":19: link 'torso'", 0), 0u) << w;
  EXPECT_NE(w.find("4.59"), std::string::npos) << w;
  const int torso = m.body_index("torso");
  ASSERT_GE(torso, 0);
  Eigen::SelfAdjointEigenSolver<Mat3> es(m.bodies[torso].inertia);
  EXPECT_NEAR(es.eigenvalues()(0), 0.08944, 1e-12);
  EXPECT_NEAR(es.eigenvalues()(2), 1.0176, 1e-12);
  EXPECT_EQ(validate_model(m), "");
  for (const char* f : {"tests/data/loader/triangle.urdf", "tests/data/loader/triangle.xml"}) {
    LoadReport rt;
    EXPECT_NO_THROW(load_model(repo(f), {}, &rt)) << f;
    EXPECT_NE(warning_with(rt, "violates the triangle inequality"), "") << f;
  }
  try {
    load_model(repo("tests/data/broken/not_positive_definite.urdf"));
    FAIL() << "a tensor that is not positive definite loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), 14);
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

// <compiler balanceinertia="true">: MuJoCo sets every principal moment of an inertia off the
// triangle inequality to their mean (user_objects.cc, mjCBody::Compile); one that satisfies it
// stays as written.
TEST(SeedFiles, BalanceinertiaTakesTheMeanAsMuJoCo) {
  const std::string text = R"(<mujoco>
  <compiler balanceinertia="true"/>
  <worldbody>
    <body name="off" pos="0 0 1"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.3"/></body>
    <body name="fine" pos="1 0 1"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.2 0.25"/></body>
  </worldbody>
</mujoco>
)";
  LoadReport r;
  const Model m = load_model(write_temp("balance.xml", text), {}, &r);
  EXPECT_TRUE((m.bodies[m.body_index("off")].inertia - Mat3::Identity() * (0.5 / 3)).norm() < 1e-15);
  EXPECT_TRUE((m.bodies[m.body_index("fine")].inertia - Vec3(0.1, 0.2, 0.25).asDiagonal().toDenseMatrix()).norm() < 1e-15);
  EXPECT_EQ(warning_with(r, "triangle"), "");  // balanced: nothing to warn about
}

// A box carried by four spheres of radius 0 at its bottom corners rests on the ground
// half-space and on a box in the world: the points hold it at their height (the gap is exact
// to the solver's tolerance) without failed steps.
TEST(SeedFiles, ZeroRadiusSpheresArePointContacts) {
  for (const bool on_box : {false, true}) {
    SCOPED_TRACE(on_box ? "on a box" : "on the ground");
    Model m;
    Body b;
    b.name = "block";
    b.mass = 2;
    b.inertia = inertia_box(2, Vec3(0.2, 0.1, 0.05));
    const double top = on_box ? 0.3 : 0.0;  // the surface it stands on
    b.x0 = Vec3(0, 0, top + 0.05);
    for (double sx : {-1.0, 1.0})
      for (double sy : {-1.0, 1.0}) b.geoms.push_back(make_geom(GeomType::Sphere, Vec3::Zero(), Vec3(0.2 * sx, 0.1 * sy, -0.05)));
    m.add_body(b);
    Joint j;
    j.name = "free";
    j.type = JointType::Floating;
    j.child = 0;
    m.add_joint(j);
    m.opt.contact.ground = !on_box;
    if (on_box) m.world_geoms.push_back(make_geom(GeomType::Box, Vec3(1, 1, 0.15), Vec3(0, 0, 0.15)));
    m.opt.timestep = 0.002;
    Data d(m);
    enable_contacts(m, d);
    int failed = 0;
    for (int k = 0; k < 500; ++k)
      if (step(m, d).status != StepStatus::Ok) ++failed;
    EXPECT_EQ(failed, 0);
    EXPECT_NEAR(d.x[0].z(), top + 0.05, 1e-5);
    EXPECT_LT(d.v[0].norm(), 1e-5);
  }
}

// Atlas (point feet, convex hulls) and the quadruped, as `maxsim simulate` sets them up (lifted
// onto the ground half-space), run one second without a failed step and without sinking into
// the ground.
TEST(SeedFiles, AtlasAndQuadrupedStandOneSecond) {
  for (const char* f : {"atlas.urdf", "quadruped.urdf"}) {
    SCOPED_TRACE(f);
    run::Options o;
    o.command = run::Command::Simulate;
    o.model_path = seed(f);
    run::RunSetup s = run::setup_model(o);
    const Model& m = s.loaded.model;
    Data d(m);
    run::setup_state(s, o, d);
    int failed = 0;
    double deepest = 0;
    const int steps = static_cast<int>(std::lround(1.0 / m.opt.timestep));
    for (int k = 0; k < steps; ++k) {
      if (step(m, d).status != StepStatus::Ok) ++failed;
      deepest = std::max(deepest, max_ground_penetration(m, d));
    }
    EXPECT_EQ(failed, 0);
    EXPECT_LT(deepest, 0.01);
  }
}
