// Nonholonomic constraints and the integrator option in the description files: MJCF
// declares them in <custom><text name="maxsim:..."/>, URDF in robot-level <nonholonomic> and
// <maxsim> elements. The loaded constraints equal hand-built ones, in maxsim's body frame (origin
// at the CoM, the orientation of the body's link frame): the files of tests/data/nonholonomic put
// the CoM away from the link origin and declare the knife edge on a link welded to the body at an
// offset and turned 90 degrees. Every bad declaration is a LoadError naming file, line and problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/suite_directory.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/model.hpp"

namespace maxsim {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& f) { return std::string(MAXSIM_SOURCE_DIR) + "/tests/data/nonholonomic/" + f; }

Model load(const std::string& path, LoadReport* report = nullptr) {
  LoadReport local;
  return load_model(path, LoadOptions{}, report ? report : &local);
}

NonholonomicConstraint make(const std::string& name, NonholonomicKind kind, int body) {
  NonholonomicConstraint c;
  c.name = name;
  c.kind = kind;
  c.body = body;
  return c;
}

// The same constraint: kind, body and every parameter, vectors to `tol` (0: bit for bit).
void expect_same(const NonholonomicConstraint& got, const NonholonomicConstraint& want, double tol = 0) {
  SCOPED_TRACE(want.name);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.body, want.body);
  EXPECT_EQ(got.radius, want.radius);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(got.axis(k), want.axis(k), tol) << "axis " << k;
    EXPECT_NEAR(got.point(k), want.point(k), tol) << "point " << k;
    EXPECT_NEAR(got.direction(k), want.direction(k), tol) << "direction " << k;
  }
}

TEST(NonholonomicFiles, RollingDiskAndBall) {
  for (const char* file : {"disk.xml", "disk.urdf"}) {
    SCOPED_TRACE(file);
    const Model m = load(data(file));
    EXPECT_EQ(m.opt.integrator, Integrator::Variational);  // (not declared)
    ASSERT_EQ(m.nonholonomic.size(), 2u);
    NonholonomicConstraint roll = make("roll", NonholonomicKind::RollingDisk, m.body_index("disk"));
    roll.radius = 0.5;
    roll.axis = Vec3(0, 1, 0);  // the body frame is the link frame turned (MJCF: 90 degrees about z)
    NonholonomicConstraint ball = make("ball_roll", NonholonomicKind::RollingBall, m.body_index("ball"));
    ball.radius = 0.2;
    expect_same(m.nonholonomic[0], roll);
    expect_same(m.nonholonomic[1], ball);
    EXPECT_EQ(validate_model(m), "");
  }
}

TEST(NonholonomicFiles, SleighAndSuslovInTheBodyFrame) {
  for (const char* file : {"sleigh.xml", "sleigh.urdf"}) {
    SCOPED_TRACE(file);
    LoadReport report;
    const Model m = load(data(file), &report);
    EXPECT_EQ(m.opt.integrator, Integrator::EnergyMomentum);
    ASSERT_EQ(m.nonholonomic.size(), 2u);
    const int sleigh = m.body_index("sleigh");
    ASSERT_GE(sleigh, 0);
    EXPECT_FALSE(m.find_body("runner"));  // merged into the sleigh
    // The runner's frame is at (0.5, 0.1, 0) in the sleigh's link frame, turned 90 degrees about
    // z; the sleigh's CoM (its body frame's origin) at (0.2, 0, 0). The blade's point (0.1, 0, 0)
    // and direction x of the runner's frame are, in the body frame, (0.3, 0.1, 0) + (0, 0.1, 0)
    // and y.
    NonholonomicConstraint blade = make("blade", NonholonomicKind::KnifeEdge, sleigh);
    blade.point = Vec3(0.3, 0.2, 0);
    blade.direction = Vec3(0, 1, 0);
    NonholonomicConstraint suslov = make("suslov", NonholonomicKind::AngularVelocity, m.body_index("top"));
    suslov.axis = Vec3(0, 0, 1);
    expect_same(m.nonholonomic[0], blade, 1e-15);
    expect_same(m.nonholonomic[1], suslov);
    // the same point seen from the world: the runner's origin (0.5, 0.1, 0.1) plus 0.1 along its x (world y)
    const Body& b = m.bodies[sleigh];
    const Vec3 world = b.x0 + quat_to_rot(b.q0) * m.nonholonomic[0].point;
    EXPECT_NEAR((world - Vec3(0.5, 0.2, 0.1)).norm(), 0, 1e-15);
    EXPECT_NEAR((b.link_origin - Vec3(-0.2, 0, 0)).norm(), 0, 1e-15);  // the CoM is away from the link origin
  }
}

TEST(NonholonomicFiles, OtherCustomElementsStayIgnored) {
  // disk.xml also has a <text> of MuJoCo's own and a <numeric name="maxsim:...">: neither is read,
  // and neither is named as an unsupported feature
  LoadReport report;
  const Model m = load(data("disk.xml"), &report);
  EXPECT_EQ(m.nonholonomic.size(), 2u);
  for (const std::string& w : report.warnings) EXPECT_EQ(w.find("custom"), std::string::npos) << w;
}

// ---- errors -----------------------------------------------------------------------------------
class NonholonomicErrors : public SuiteDirectory<NonholonomicErrors> {
 public:
  static constexpr const char* kDirectory = "nonholonomic";

 protected:
};

// An MJCF file with `line` as line 4 (inside <custom>).
std::string mjcf_with(const std::string& line) {
  return "<mujoco model=\"bad\">\n"
         "  <custom>\n"
         "    <text name=\"other\" data=\"x\"/>\n" +
         line + "\n"
         "  </custom>\n"
         "  <worldbody>\n"
         "    <body name=\"disk\" pos=\"0 0 0.5\"><freejoint/><geom type=\"sphere\" size=\"0.5\"/></body>\n"
         "    <body name=\"post\" pos=\"2 0 0.5\"><geom type=\"box\" size=\"0.1 0.1 0.5\"/></body>\n"
         "  </worldbody>\n"
         "</mujoco>\n";
}

// A URDF file with `line` as line 9 (at robot level).
std::string urdf_with(const std::string& line) {
  return "<robot name=\"bad\">\n"
         "  <link name=\"world\"/>\n"
         "  <link name=\"disk\">\n"
         "    <inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial>\n"
         "  </link>\n"
         "  <link name=\"base\"/>\n"
         "  <joint name=\"weld\" type=\"fixed\"><parent link=\"world\"/><child link=\"base\"/></joint>\n"
         "  <joint name=\"free\" type=\"floating\"><parent link=\"world\"/><child link=\"disk\"/></joint>\n" +
         line + "\n"
         "</robot>\n";
}

struct ErrorCase {
  std::string line;                 // the declaration
  std::vector<std::string> pieces;  // expected in the message
};

void expect_error(const std::string& path, int line, const std::vector<std::string>& pieces) {
  try {
    load(path);
    ADD_FAILURE() << "no LoadError";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), path) << what;
    EXPECT_EQ(e.line(), line) << what;
    EXPECT_EQ(what.rfind(path + ":" + std::to_string(line) + ": ", 0), 0u) << what;
    for (const auto& p : pieces) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' in: " << what;
  }
}

TEST_F(NonholonomicErrors, Mjcf) {
  auto text = [](const std::string& name, const std::string& data) {
    return "    <text name=\"" + name + "\" data=\"" + data + "\"/>";
  };
  const std::string nh = "maxsim:nonholonomic:w";
  const std::vector<ErrorCase> cases = {
      {text(nh, "rolling_dsk body=disk radius=0.5"),
       {nh, "unknown kind 'rolling_dsk'", "rolling_disk, rolling_ball, knife_edge, angular_velocity"}},
      {text(nh, ""), {nh, "data is empty"}},
      {text(nh, "rolling_ball body=nobody radius=0.5"), {nh, "unknown body 'nobody'"}},
      {text(nh, "rolling_ball radius=0.5"), {nh, "needs body=BODY"}},
      {text(nh, "rolling_ball body=disk"), {nh, "rolling_ball needs radius=R"}},
      {text(nh, "rolling_disk body=disk radius=0.5"), {nh, "rolling_disk needs axis=x,y,z"}},
      {text(nh, "knife_edge body=disk point=0,0,0"), {nh, "knife_edge needs direction=x,y,z"}},
      {text(nh, "angular_velocity body=disk"), {nh, "angular_velocity needs axis=x,y,z"}},
      {text(nh, "rolling_ball body=disk radius=abc"), {nh, "radius 'abc' is not a (finite) number"}},
      {text(nh, "rolling_ball body=disk radius=inf"), {nh, "radius 'inf' is not a (finite) number"}},
      {text(nh, "rolling_ball body=disk radius=0"), {nh, "radius must be positive (got 0)"}},
      {text(nh, "rolling_ball body=disk radius=-1"), {nh, "radius must be positive (got -1)"}},
      {text(nh, "rolling_disk body=disk radius=0.5 axis=1,0"), {nh, "axis '1,0' is not three finite numbers x,y,z"}},
      {text(nh, "rolling_disk body=disk radius=0.5 axis=1,0,0,"), {nh, "axis '1,0,0,' is not three finite numbers"}},
      {text(nh, "rolling_disk body=disk radius=0.5 axis=0,0,0"), {nh, "axis must not be zero"}},
      {text(nh, "knife_edge body=disk direction=1,x,0"), {nh, "direction '1,x,0' is not three finite numbers"}},
      {text(nh, "rolling_ball body=disk radius=0.5 speed=2"), {nh, "unknown key 'speed'"}},
      {text(nh, "rolling_ball body=disk radius=0.5 axis=1,0,0"), {nh, "rolling_ball takes no axis"}},
      {text(nh, "knife_edge body=disk radius=0.5 direction=1,0,0"), {nh, "knife_edge takes no radius"}},
      {text(nh, "rolling_ball body=disk radius=0.5 radius=0.6"), {nh, "radius is given twice"}},
      {text(nh, "rolling_ball body=disk 0.5"), {nh, "'0.5' is not key=value"}},
      {text("maxsim:nonholonomic:", "rolling_ball body=disk radius=0.5"), {"the constraint needs a name"}},
      {text(nh, "rolling_ball body=post radius=0.5"), {"rolling_ball constraint 'w'", "'post' is part of the world"}},
      {text(nh, "rolling_ball body=world radius=0.5"), {"'world' is part of the world"}},
      {text("maxsim:integrator", "rk4"), {"maxsim:integrator: 'rk4' is not one of variational, energy-momentum"}},
      {text("maxsim:integrator", "variational energy-momentum"), {"is not one of variational, energy-momentum"}},
      {"    <text name=\"maxsim:integrator\"/>", {"maxsim:integrator: needs a data attribute"}},
      {text("maxsim:frobnicate", "1"), {"unknown maxsim declaration 'maxsim:frobnicate'"}},
  };
  int k = 0;
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.line);
    expect_error(write("bad" + std::to_string(k++) + ".xml", mjcf_with(c.line)), 4, c.pieces);
  }
  // twice: the second declaration is the error
  expect_error(write("twice.xml", mjcf_with(text(nh, "rolling_ball body=disk radius=0.5") + "\n" +
                                            text(nh, "rolling_ball body=disk radius=0.6"))),
               5, {"rolling_ball constraint 'w': a nonholonomic constraint of this name is declared twice"});
  expect_error(write("twice_integrator.xml", mjcf_with(text("maxsim:integrator", "variational") + "\n" +
                                                       text("maxsim:integrator", "variational"))),
               5, {"maxsim:integrator is declared twice (first at line 4)"});
  // the good file loads (the template is not the problem), and spaces between words do not matter
  const Model m = load(write("good.xml", mjcf_with(text(nh, "  rolling_ball   body=disk radius=0.5 "))));
  ASSERT_EQ(m.nonholonomic.size(), 1u);
  EXPECT_EQ(m.nonholonomic[0].radius, 0.5);
}

TEST_F(NonholonomicErrors, Urdf) {
  const std::string what = "nonholonomic constraint 'w'";
  const std::vector<ErrorCase> cases = {
      {"<nonholonomic name=\"w\" type=\"wheel\"><link name=\"disk\"/></nonholonomic>",
       {what, "unknown type 'wheel'", "rolling_disk, rolling_ball, knife_edge, angular_velocity"}},
      {"<nonholonomic name=\"w\"><link name=\"disk\"/></nonholonomic>", {what, "has no type"}},
      {"<nonholonomic type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"1\"/></nonholonomic>",
       {"<nonholonomic> needs a name"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"nolink\"/><radius value=\"1\"/></nonholonomic>",
       {what, "refers to undefined link 'nolink'"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><radius value=\"1\"/></nonholonomic>", {what, "needs <link name=...>"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/></nonholonomic>",
       {what, "rolling_ball needs <radius value=...>"}},
      {"<nonholonomic name=\"w\" type=\"rolling_disk\"><link name=\"disk\"/><radius value=\"1\"/></nonholonomic>",
       {what, "rolling_disk needs <axis xyz=...>"}},
      {"<nonholonomic name=\"w\" type=\"knife_edge\"><link name=\"disk\"/></nonholonomic>",
       {what, "knife_edge needs <direction xyz=...>"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"0\"/></nonholonomic>",
       {what, "radius must be positive (got 0)"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"big\"/></nonholonomic>",
       {"attribute 'value' of <radius>", "'big' is not a (finite) number"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius/></nonholonomic>",
       {what, "<radius> needs a 'value' attribute"}},
      {"<nonholonomic name=\"w\" type=\"rolling_disk\"><link name=\"disk\"/><radius value=\"1\"/><axis xyz=\"1 0\"/></nonholonomic>",
       {"attribute 'xyz' of <axis>", "expected 3 numbers, got 2"}},
      {"<nonholonomic name=\"w\" type=\"rolling_disk\"><link name=\"disk\"/><radius value=\"1\"/><axis xyz=\"0 0 0\"/></nonholonomic>",
       {what, "zero axis"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"1\"/><speed value=\"1\"/></nonholonomic>",
       {what, "unknown element <speed>"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"1\"/><axis xyz=\"1 0 0\"/></nonholonomic>",
       {what, "rolling_ball takes no <axis>"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"1\"/><radius value=\"2\"/></nonholonomic>",
       {what, "<radius> is given twice"}},
      {"<nonholonomic name=\"w\" type=\"knife_edge\"><link name=\"disk\"/><origin xyz=\"0 0 0\" rpy=\"0 0 1\"/><direction xyz=\"1 0 0\"/></nonholonomic>",
       {what, "takes xyz only"}},
      {"<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"base\"/><radius value=\"1\"/></nonholonomic>",
       {"rolling_ball constraint 'w'", "'base' is part of the world"}},
      {"<maxsim integrator=\"rk4\"/>", {"<maxsim>: integrator 'rk4' is not one of variational, energy-momentum"}},
      {"<maxsim integrater=\"variational\"/>", {"unknown attribute 'integrater' in <maxsim> (did you mean 'integrator'?)"}},
  };
  int k = 0;
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.line);
    expect_error(write("bad" + std::to_string(k++) + ".urdf", urdf_with(c.line)), 9, c.pieces);
  }
  const std::string ball = "<nonholonomic name=\"w\" type=\"rolling_ball\"><link name=\"disk\"/><radius value=\"1\"/></nonholonomic>";
  expect_error(write("twice.urdf", urdf_with(ball + "\n" + ball)), 10,
               {"rolling_ball constraint 'w': a nonholonomic constraint of this name is declared twice"});
  expect_error(write("twice_maxsim.urdf", urdf_with("<maxsim/>\n<maxsim/>")), 10, {"<maxsim> is given twice (first at line 9)"});
  const Model m = load(write("good.urdf", urdf_with(ball + "\n<maxsim integrator=\"energy-momentum\"/>")));
  ASSERT_EQ(m.nonholonomic.size(), 1u);
  EXPECT_EQ(m.nonholonomic[0].radius, 1.0);
  EXPECT_EQ(m.opt.integrator, Integrator::EnergyMomentum);
}

}  // namespace
}  // namespace maxsim
