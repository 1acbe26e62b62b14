// MJCF files run with MuJoCo's defaults for what they leave out: time step 0.002 s, geom
// friction 1, MuJoCo's integrators mapped to the variational step; the loader reports where
// each option value came from.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const ValueSource* source(const LoadReport& r, const std::string& name) {
  for (const ValueSource& v : r.sources)
    if (v.name == name) return &v;
  return nullptr;
}

// Distance the box's centre travels in `seconds` on the 40° slope (failed steps counted).
double slide(Model m, double seconds, int* failed) {
  Data d(m);
  enable_contacts(m, d);
  const Vec3 x0 = d.x[0];
  const int steps = static_cast<int>(std::lround(seconds / m.opt.timestep));
  *failed = 0;
  for (int k = 0; k < steps; ++k)
    if (step(m, d).status != StepStatus::Ok) ++*failed;
  return (d.x[0] - x0).norm();
}

}  // namespace

// A file without <option timestep> or geom friction gets MuJoCo's 0.002 s and μ = 1.
TEST(MjcfDefaults, TimestepAndFrictionAreMuJoCos) {
  LoadReport r;
  const Model m = load_model(repo("tests/data/loader/slope40.xml"), {}, &r);
  EXPECT_DOUBLE_EQ(m.opt.timestep, 0.002);
  EXPECT_FALSE(m.dt_from_file);
  EXPECT_DOUBLE_EQ(m.opt.contact.friction, 1.0);
  for (const Geom& g : m.world_geoms) EXPECT_LT(g.friction, 0);  // the world default applies
  ASSERT_NE(source(r, "timestep"), nullptr);
  EXPECT_EQ(source(r, "timestep")->source, "MuJoCo default");
  EXPECT_EQ(source(r, "gravity")->source, "MuJoCo default");
  EXPECT_NE(source(r, "geom friction")->value.find("2 at MuJoCo's default 1"), std::string::npos)
      << source(r, "geom friction")->value;
}

// μ = 1 > tan 40° = 0.839: the box sticks (its centre moves less than a millimetre in 1 s). With
// μ = 0.8 < tan 40° it slides with a = g (sin 40° − μ cos 40°) = 0.294 m/s², 0.147 m in 1 s: the
// test tells the two defaults apart.
TEST(MjcfDefaults, BoxHoldsOnAFortyDegreeSlopeWithDefaultFriction) {
  const Model m = load_model(repo("tests/data/loader/slope40.xml"));
  int failed = 0;
  EXPECT_LT(slide(m, 1.0, &failed), 1e-3);
  EXPECT_EQ(failed, 0);
  Model slippery = m;
  slippery.opt.contact.friction = 0.8;
  const double a = 9.81 * (std::sin(40 * M_PI / 180) - 0.8 * std::cos(40 * M_PI / 180));
  EXPECT_NEAR(slide(slippery, 1.0, &failed), 0.5 * a, 0.1 * 0.5 * a);
  EXPECT_EQ(failed, 0);
}

// MuJoCo's four integrators load (mapped to the variational step, named in the report); an
// unknown name is refused at its line.
TEST(MjcfDefaults, IntegratorNamesAreMappedAndUnknownOnesRefused) {
  for (const char* name : {"Euler", "implicit", "implicitfast", "RK4"}) {
    const std::string path = write_temp("integrator.xml", std::string("<mujoco>\n<option timestep=\"0.004\" integrator=\"") +
                                                              name + "\"/>\n<worldbody/>\n</mujoco>\n");
    LoadReport r;
    const Model m = load_model(path, {}, &r);
    EXPECT_EQ(m.opt.integrator, Integrator::Variational) << name;
    EXPECT_TRUE(m.dt_from_file);
    EXPECT_DOUBLE_EQ(m.opt.timestep, 0.004);
    ASSERT_NE(source(r, "integrator"), nullptr);
    EXPECT_NE(source(r, "integrator")->value.find(name), std::string::npos) << source(r, "integrator")->value;
    EXPECT_EQ(source(r, "integrator")->source, path + ":2");
    EXPECT_EQ(source(r, "timestep")->source, path + ":2");
  }
  const std::string bad = write_temp("integrator_bad.xml", "<mujoco>\n<option integrator=\"rk4\"/>\n</mujoco>\n");
  try {
    load_model(bad);
    FAIL() << "integrator rk4 accepted";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("'rk4'"), std::string::npos) << e.what();
  }
}

// <compiler inertiagrouprange> (MuJoCo's default 0 5): only geoms of those groups carry mass.
TEST(MjcfDefaults, InertiaGroupRangeChoosesTheGeomsWithMass) {
  const std::string body = "<worldbody><body name=\"b\" pos=\"0 0 1\"><freejoint/>"
                           "<geom type=\"sphere\" size=\"0.1\" mass=\"1\" group=\"3\"/>"
                           "<geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"5\" group=\"6\"/></body></worldbody>";
  const Model dflt = load_model(write_temp("groups.xml", "<mujoco>" + body + "</mujoco>"));
  EXPECT_DOUBLE_EQ(dflt.bodies[0].mass, 1.0);  // group 6 is outside 0..5
  const Model wide = load_model(write_temp("groups6.xml", "<mujoco><compiler inertiagrouprange=\"0 6\"/>" + body + "</mujoco>"));
  EXPECT_DOUBLE_EQ(wide.bodies[0].mass, 6.0);
  EXPECT_THROW(load_model(write_temp("groups_bad.xml", "<mujoco><compiler inertiagrouprange=\"0 2.5\"/>" + body + "</mujoco>")),
               LoadError);
}

// ctrllimited / forcelimited "auto" (MuJoCo's default, with autolimits): limited when a range other
// than MuJoCo's default "0 0" is given; "0 0" would otherwise clamp every command to zero.
TEST(MjcfDefaults, AutoLimitsNeedARangeOtherThanZero) {
  const Model m = load_model(write_temp("autolimits.xml", R"(<mujoco>
  <worldbody><body name="b"><joint name="j" axis="0 1 0"/><geom type="sphere" size="0.1"/></body></worldbody>
  <actuator>
    <motor name="zero" joint="j" ctrlrange="0 0" forcerange="0 0"/>
    <motor name="set" joint="j" ctrlrange="-1 1" forcerange="-2 2"/>
    <motor name="none" joint="j"/>
  </actuator>
</mujoco>
)"));
  ASSERT_EQ(m.nu(), 3);
  EXPECT_FALSE(m.actuators[0].ctrl_limited);
  EXPECT_FALSE(m.actuators[0].force_limited);
  EXPECT_TRUE(m.actuators[1].ctrl_limited);
  EXPECT_TRUE(m.actuators[1].force_limited);
  EXPECT_DOUBLE_EQ(m.actuators[1].ctrl_upper, 1.0);
  EXPECT_FALSE(m.actuators[2].ctrl_limited);
}
