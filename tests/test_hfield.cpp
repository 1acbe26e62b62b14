// Height fields (MJCF <hfield>, GeomType::HField): the loader's data (PNG rows, inline elevation,
// normalization, run-time data), exact contact geometry on flat and sloped cells, a ball and a
// box at rest, and the A1 standing and walking on a floor of bumps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "robots/a1/a1_gait.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"
#include "tests/counting_new.hpp"

using namespace maxsim;
namespace fs = std::filesystem;

namespace {

const std::string kSource = MAXSIM_SOURCE_DIR;
std::string terrain(const std::string& f) { return kSource + "/tests/data/terrain/" + f; }

// An MJCF text in a file of its own (removed with the object), next to nothing: for bad input.
struct TempMjcf {
  fs::path path;
  explicit TempMjcf(const std::string& text) {
    static int n = 0;
    path = fs::temp_directory_path() / ("maxsim_test_hfield_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(n++) + ".xml");
    std::ofstream(path) << text;
  }
  ~TempMjcf() { fs::remove(path); }
};

std::string load_error(const std::string& text) {
  TempMjcf f(text);
  try {
    load_model(f.path.string());
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

int failed_steps(const Model& m, Data& d, double duration) {
  int failed = 0;
  const int steps = static_cast<int>(std::lround(duration / m.opt.timestep));
  for (int k = 0; k < steps; ++k)
    if (step(m, d).status != StepStatus::Ok) ++failed;
  return failed;
}

}  // namespace

// Inline elevation: the first XML row is the +y edge (stored last, MuJoCo's mjModel order), and
// the values are normalized to [0, 1] by (v - min) / (max - min).
TEST(HField, InlineElevationRowsAndNormalization) {
  TempMjcf f(R"(<mujoco><asset><hfield name="h" nrow="2" ncol="3" size="1 2 0.5 0.1"
                 elevation="1 2 3  4 5 6"/></asset>
               <worldbody><geom type="hfield" hfield="h"/></worldbody></mujoco>)");
  const Model m = load_model(f.path.string());
  ASSERT_EQ(m.hfields.size(), 1u);
  const HeightField& h = m.hfields[0];
  EXPECT_EQ(h.nrow, 2);
  EXPECT_EQ(h.ncol, 3);
  const std::vector<double> expected{0.6, 0.8, 1.0, 0.0, 0.2, 0.4};  // row 0 (-y) = XML's last row
  ASSERT_EQ(h.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(h.data[i], expected[i], 1e-15) << i;
  EXPECT_EQ(h.size, Eigen::Vector4d(1, 2, 0.5, 0.1));
  ASSERT_EQ(m.world_geoms.size(), 1u);
  EXPECT_EQ(m.world_geoms[0].type, GeomType::HField);
  EXPECT_EQ(m.world_geoms[0].hfield, 0);
}

// PNG: grey levels (a colour image: its red channel, as MuJoCo's decoder), image row 0 at +y.
TEST(HField, PngRowsFromTheFarEdge) {
  TempMjcf f("<mujoco><asset><hfield name=\"h\" file=\"" + terrain("rows.png") +
             "\" size=\"1 1 1 0.1\"/></asset><worldbody><geom type=\"hfield\" hfield=\"h\"/></worldbody></mujoco>");
  const Model m = load_model(f.path.string());
  const HeightField& h = m.hfields.at(0);
  ASSERT_EQ(h.nrow, 3);
  ASSERT_EQ(h.ncol, 2);
  // image rows (top first) 200 250 / 100 150 / 0 50, normalized by 250
  const std::vector<double> expected{0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(h.data[i], expected[i], 1e-15) << i;
}

// MuJoCo's binary format (int32 nrow, int32 ncol, float32 data): rows as stored (row 0 at -y, no
// flip: it is mjModel's order), normalized.
TEST(HField, BinaryFileRowsAsStored) {
  const fs::path bin = fs::temp_directory_path() / ("maxsim_test_hfield_" + std::to_string(::getpid()) + ".bin");
  {
    std::ofstream out(bin, std::ios::binary);
    const std::int32_t dims[2] = {2, 2};
    const float data[4] = {-1.0f, 0.0f, 1.0f, 3.0f};
    out.write(reinterpret_cast<const char*>(dims), sizeof dims);
    out.write(reinterpret_cast<const char*>(data), sizeof data);
  }
  TempMjcf f("<mujoco><asset><hfield name=\"h\" file=\"" + bin.string() +
             "\" size=\"1 1 1 1\"/></asset><worldbody><geom type=\"hfield\" hfield=\"h\"/></worldbody></mujoco>");
  const Model m = load_model(f.path.string());
  const std::vector<double> expected{0.0, 0.25, 0.5, 1.0};
  ASSERT_EQ(m.hfields.at(0).data.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(m.hfields[0].data[i], expected[i], 1e-7) << i;
  {  // one float short
    std::ofstream out(bin, std::ios::binary | std::ios::trunc);
    const std::int32_t dims[2] = {2, 2};
    const float data[3] = {0, 0, 0};
    out.write(reinterpret_cast<const char*>(dims), sizeof dims);
    out.write(reinterpret_cast<const char*>(data), sizeof data);
  }
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" file=\"" + bin.string() +
                       "\" size=\"1 1 1 1\"/></asset><worldbody/></mujoco>").find("8 + 4 * nrow * ncol bytes"),
            std::string::npos);
  fs::remove(bin);
}

// Bad height fields are refused with the file and line.
TEST(HField, BadInputIsRefusedWithFileAndLine) {
  const std::string world = "<worldbody><geom type=\"hfield\" hfield=\"h\"/></worldbody></mujoco>";
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" nrow=\"2\" ncol=\"2\" elevation=\"1 2 3\" size=\"1 1 1 1\"/>"
                       "</asset>" + world).find("elevation has 3 values, nrow * ncol = 4"),
            std::string::npos);
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" nrow=\"2\" ncol=\"2\" size=\"1 1 0 1\"/></asset>" + world)
                .find("size values must be positive"),
            std::string::npos);
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" file=\"nothere.png\" size=\"1 1 1 1\"/></asset>" + world)
                .find("cannot open"),
            std::string::npos);
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" file=\"" + terrain("ramp.png") +
                       "\" nrow=\"2\" ncol=\"2\" size=\"1 1 1 1\"/></asset>" + world)
                .find("specified from file and manually"),
            std::string::npos);
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" nrow=\"1\" ncol=\"5\" size=\"1 1 1 1\"/></asset>" + world)
                .find("at least 2 x 2"),
            std::string::npos);
  EXPECT_NE(load_error("<mujoco><worldbody><geom type=\"hfield\" hfield=\"nope\"/></worldbody></mujoco>")
                .find("undefined hfield 'nope'"),
            std::string::npos);
  const std::string moving = load_error(
      "<mujoco><asset><hfield name=\"h\" nrow=\"2\" ncol=\"2\" size=\"1 1 1 1\"/></asset>\n<worldbody>\n"
      "<body name=\"b\"><freejoint/><geom type=\"hfield\" hfield=\"h\"/></body></worldbody></mujoco>");
  EXPECT_NE(moving.find("only allowed in static bodies"), std::string::npos) << moving;
  EXPECT_NE(moving.find(".xml:3"), std::string::npos) << moving;  // the <body> line
  // a file named .png that is not one
  const fs::path bad = fs::temp_directory_path() / ("maxsim_test_hfield_" + std::to_string(::getpid()) + ".png");
  std::ofstream(bad) << "not a png";
  EXPECT_NE(load_error("<mujoco><asset><hfield name=\"h\" file=\"" + bad.string() + "\" size=\"1 1 1 1\"/></asset>" +
                       world).find("is not a PNG file"),
            std::string::npos);
  fs::remove(bad);
}

// The contact geometry of a sloped cell is the exact plane: a ball's candidate has the plane's
// normal and signed distance (to GJK's accuracy), on either triangle of the cell and on its
// diagonal; a flat cell gives the height.
TEST(HField, CandidatesAreExactOnSlopedAndFlatCells) {
  const Model loaded = load_model(terrain("slope_box.xml"));
  Model m = loaded;
  m.bodies[0].geoms[0] = make_geom(GeomType::Sphere, Vec3(0.1, 0, 0));
  CollisionOptions co;
  co.ground = false;
  co.margin = 0.05;
  CollisionWorld world(m, co);
  const double t = std::tan(20 * M_PI / 180);
  const Vec3 n(-std::sin(20 * M_PI / 180), 0, std::cos(20 * M_PI / 180));  // ramp normal
  std::vector<ContactCandidate> out;
  for (const Vec3& foot : {Vec3(0.1, -0.2, 0), Vec3(-0.15, 0.3, 0), Vec3(0.2, 0.2, 0), Vec3(0.0, 0.0, 0)}) {
    for (double gap : {0.02, 0.0031, -0.002}) {
      const Vec3 surface(foot.x(), foot.y(), t * (foot.x() + 0.5));
      const Vec3 centre = surface + (0.1 + gap) * n;
      world.find_candidates({centre}, {quat_identity()}, &out);
      ASSERT_EQ(out.size(), 1u) << foot.transpose() << " gap " << gap;
      EXPECT_NEAR(out[0].distance, gap, 1e-9);
      EXPECT_LT((out[0].normal - n).norm(), 1e-9);
      EXPECT_EQ(out[0].body_a, kWorld);
    }
  }
  // beyond the field's rectangle: nothing
  world.find_candidates({Vec3(0.7, 0, 0.3)}, {quat_identity()}, &out);
  EXPECT_TRUE(out.empty());

  const Model flat = load_model(terrain("flat_sphere.xml"));
  CollisionWorld fw(flat, co);
  fw.find_candidates({Vec3(0.13, 0.07, 0.61), Vec3(5.2, -0.3, 0.13)}, {quat_identity(), quat_identity()}, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].distance, 0.01, 1e-9);  // plateau top 0.3 + 0.2, ball radius 0.1
  EXPECT_NEAR(out[1].distance, 0.03, 1e-9);  // run-time field, flat at its zero: top at 0
  for (const auto& c : out) EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-9);
}

// Every convex shape on the 20° ramp, its geom z axis along the ramp's normal n and its lowest
// feature `gap` above the surface: every candidate has the gap and the normal n (1e-9; touching,
// gap 0, 1e-7: features whose cores touch are separated by 1 µm to find a normal, which leaves a
// cylinder's rim points 1e-8 off), and flat bottoms give several points (box 4, cylinder rim 4
// after the cap, mesh cube 4, a lying capsule its 2 end balls).
TEST(HField, EveryShapeOnASlopedCell) {
  const Model loaded = load_model(terrain("slope_box.xml"));
  const double th = 20 * M_PI / 180;
  const Vec3 n(-std::sin(th), 0, std::cos(th));
  const Vec4 tilt = quat_axis_angle(Vec3(0, 1, 0), -th);  // geom z -> n
  struct Case {
    Geom g;
    double extent;  // half extent along geom z
    size_t points;  // expected candidates
  };
  std::vector<Case> cases;
  cases.push_back({make_geom(GeomType::Sphere, Vec3(0.05, 0, 0)), 0.05, 1});
  cases.push_back({make_geom(GeomType::Box, Vec3(0.05, 0.04, 0.03)), 0.03, 4});
  cases.push_back({make_geom(GeomType::Capsule, Vec3(0.02, 0.05, 0)), 0.07, 1});
  cases.push_back({make_geom(GeomType::Cylinder, Vec3(0.04, 0.05, 0)), 0.05, 4});
  cases.push_back({make_geom(GeomType::Ellipsoid, Vec3(0.05, 0.03, 0.02)), 0.02, 1});
  Geom cube = make_geom(GeomType::Mesh, Vec3::Zero());
  for (int i = 0; i < 8; ++i) cube.vertices.emplace_back(i & 1 ? 0.04 : -0.04, i & 2 ? 0.04 : -0.04, i & 4 ? 0.04 : -0.04);
  cases.push_back({cube, 0.04, 4});
  // a lying capsule (axis along the ramp's x): its two end balls
  Geom lying = make_geom(GeomType::Capsule, Vec3(0.02, 0.05, 0));
  lying.quat = quat_axis_angle(Vec3(0, 1, 0), M_PI / 2);
  cases.push_back({lying, 0.02, 2});
  CollisionOptions co;
  co.ground = false;
  co.margin = 0.01;
  std::vector<ContactCandidate> out;
  for (const Case& c : cases) {
    Model m = loaded;
    m.bodies[0].geoms.assign(1, c.g);
    CollisionWorld world(m, co);
    for (const double gap : {0.004, 0.0}) {
      const Vec3 surface(0.1, 0.13, std::tan(th) * 0.6);
      world.find_candidates({Vec3(surface + (c.extent + gap) * n)}, {tilt}, &out);
      ASSERT_EQ(out.size(), c.points) << geom_type_name(c.g.type) << " gap " << gap;
      const double tol = gap > 0 ? 1e-9 : 1e-7;
      for (const ContactCandidate& k : out) {
        EXPECT_NEAR(k.distance, gap, tol) << geom_type_name(c.g.type);
        EXPECT_LT((k.normal - n).norm(), tol) << geom_type_name(c.g.type);
      }
    }
  }
}

// A field posed by its geom (moved and turned 30° about x, then 40° about z): a ball above the
// plateau along the field's z axis gets that axis as normal and its gap (1e-9).
TEST(HField, PosedFieldKeepsItsGeometry) {
  Model m = load_model(terrain("flat_sphere.xml"));
  const Vec4 turn = quat_mul(quat_axis_angle(Vec3(0, 0, 1), 40 * M_PI / 180), quat_axis_angle(Vec3(1, 0, 0), M_PI / 6));
  m.world_geoms[0].quat = turn;
  m.world_geoms[0].pos = Vec3(0.3, -0.2, 1.0);
  const Mat3 R = quat_to_rot(turn);
  CollisionOptions co;
  co.ground = false;
  co.margin = 0.01;
  CollisionWorld world(m, co);
  std::vector<ContactCandidate> out;
  const Vec3 local(0.13, 0.07, 0.2 + 0.1 + 0.004);  // over the plateau (top 0.2), 4 mm gap
  world.find_candidates({Vec3(m.world_geoms[0].pos + R * local), Vec3(50, 50, 50)}, {quat_identity(), quat_identity()},
                        &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.004, 1e-9);
  EXPECT_LT((out[0].normal - R.col(2)).norm(), 1e-9);
}

// The search over a height field allocates nothing once warm (a second pass over the same poses:
// a sphere, a box and a capsule over the bumps, tilted), and a step on it neither.
TEST(HField, SearchAndStepAllocateNothingOnceWarm) {
  Model m = load_model(terrain("bumps.xml"));
  Body b;
  b.geoms = {make_geom(GeomType::Sphere, Vec3(0.05, 0, 0)), make_geom(GeomType::Box, Vec3(0.05, 0.03, 0.02), Vec3(0.2, 0, 0)),
             make_geom(GeomType::Capsule, Vec3(0.02, 0.1, 0), Vec3(-0.2, 0, 0))};
  m.add_body(b);
  CollisionOptions co;
  co.ground = false;
  co.margin = 0.02;
  CollisionWorld world(m, co);
  std::vector<ContactCandidate> out;
  std::vector<Vec3> x(1);
  std::vector<Vec4> q(1);
  size_t found = 0;
  for (int pass = 0; pass < 2; ++pass) {
    g_allocations = 0;
    g_count_allocations = pass == 1;
    for (int k = 0; k < 200; ++k) {
      x[0] = Vec3(-1.5 + 0.015 * k, 0.3 * std::sin(0.1 * k), -0.005);
      q[0] = quat_axis_angle(Vec3(1, 0.5, 0.2), 0.05 * k);
      world.find_candidates(x, q, &out);
      found += out.size();
    }
    g_count_allocations = false;
  }
  EXPECT_GT(found, 200u);  // the shapes touch the bumps
  EXPECT_EQ(g_allocations, 0);

  Model slope = load_model(terrain("slope_box.xml"));
  Data d(slope);
  enable_contacts(slope, d);
  for (int k = 0; k < 20; ++k) step(slope, d);
  g_allocations = 0;
  g_count_allocations = true;
  for (int k = 0; k < 50; ++k) step(slope, d);
  g_count_allocations = false;
  EXPECT_EQ(g_allocations, 0);
}

// A ball dropped on the plateau rests at its height (0.5 + radius) to 1e-6, and one on the
// run-time field at the heights the program set through Model::set_hfield_data, after the Data
// and its contact search were made.
TEST(HField, BallRestsOnFlatAndRunTimeFields) {
  Model m = load_model(terrain("flat_sphere.xml"));
  {
    Data d(m);
    enable_contacts(m, d);
    EXPECT_EQ(failed_steps(m, d, 1.0), 0);
    EXPECT_NEAR(d.x[0].z(), 0.6, 1e-6);
    EXPECT_NEAR(d.x[1].z(), 0.1, 1e-6);
    EXPECT_LT(d.v[0].norm(), 1e-6);
  }
  Data d(m);
  enable_contacts(m, d);
  const int rt = m.hfield_index("runtime");
  ASSERT_GE(rt, 0);
  m.set_hfield_data(rt, std::vector<double>(12, 0.5));  // 0.5 · 0.4 m: top at 0.2
  EXPECT_EQ(failed_steps(m, d, 1.0), 0);
  EXPECT_NEAR(d.x[1].z(), 0.3, 1e-6);
  EXPECT_THROW(m.set_hfield_data(rt, std::vector<double>(11, 0.5)), std::invalid_argument);
  EXPECT_THROW(m.set_hfield_data(rt, std::vector<double>(12, 1.5)), std::invalid_argument);
  EXPECT_THROW(m.set_hfield_data(7, std::vector<double>(12, 0.5)), std::invalid_argument);
}

// A frictionless ball sliding at 1 m/s over the plateau crosses a cell boundary (x = 0.5) and a
// cell's diagonal (x = 0.57) as over a plane: its height stays within 1e-6 and its velocity
// within 2e-5 (the solve's tolerance: residuals of 1e-6 leave velocity blips of ~5e-6). The
// prisms' edges there are not the field's: contacts on them kicked the ball by 6e-4 m/s
// backwards and 1e-2 m/s up at x = 0.5.
TEST(HField, BallSlidesOverCellBoundariesAsOverAPlane) {
  Model m = load_model(terrain("flat_sphere.xml"));
  m.world_geoms[0].friction = 0;
  m.bodies[0].geoms[0].friction = 0;
  Data d(m);
  std::vector<std::vector<double>> q, qd;
  get_coordinates(m, d, &q, &qd);
  q[0][2] -= 0.01;  // resting on the plateau: z = 0.6
  qd[0][0] = 1.0;   // 1 m/s along x
  set_coordinates(m, d, q, qd);
  enable_contacts(m, d);
  const double z0 = d.x[0].z();
  double dz = 0, dv = 0;
  const int steps = 250;  // 0.5 s: from x = 0.13 to 0.63
  for (int k = 0; k < steps; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << k;
    dz = std::max(dz, std::abs(d.x[0].z() - z0));
    dv = std::max(dv, (d.v[0] - Vec3(1, 0, 0)).norm());
  }
  EXPECT_NEAR(d.x[0].x(), 0.63, 1e-6);
  EXPECT_LT(dz, 1e-6);
  // (the interior point stops at γ s < 1e-8 N·s·m: a gap of up to 1e-8 / (m g Δt) = 5.1e-7 m,
  // 2.6e-4 m/s vertically over a step, while the other ball lands; measured 1.2e-4)
  EXPECT_LT(dv, 3e-4);
}

// A box on the 20° ramp with μ = 0.5 > tan 20° = 0.364 holds: over 1 s it moves less than 1e-6 m.
// With μ = 0.3 < tan 20° it slides (the test can tell the two apart).
TEST(HField, BoxHoldsOnASlopeBelowTheFrictionAngle) {
  Model m = load_model(terrain("slope_box.xml"));
  Data d(m);
  enable_contacts(m, d);
  const Vec3 x0 = d.x[0];
  EXPECT_EQ(failed_steps(m, d, 1.0), 0);
  EXPECT_LT((d.x[0] - x0).norm(), 1e-6);
  EXPECT_LT(max_penetration(d), 1e-6);

  m.world_geoms[0].friction = 0.3;
  m.bodies[0].geoms[0].friction = 0.3;
  Data s(m);
  enable_contacts(m, s);
  EXPECT_EQ(failed_steps(m, s, 0.5), 0);
  // sliding with a = g (sin θ − μ cos θ) = 0.59 m/s²: 7 cm in 0.5 s, a t²/2 (1 + Δt/t) after the
  // first-order integrator's t/Δt steps
  const double a = 9.81 * (std::sin(20 * M_PI / 180) - 0.3 * std::cos(20 * M_PI / 180));
  EXPECT_NEAR((s.x[0] - x0).norm(), 0.5 * a * 0.25 * (1 + m.opt.timestep / 0.5), 1e-5);
}

// The A1 (robots/a1, URDF) on tests/data/terrain/bumps.xml, a floor of 2 cm bumps in place of
// the ground half-space: it stands 2 s, then walks 2 s with the learned trot, with no failed
// step, no fall and no sinking beyond 1 mm (as on the flat floor, tests/test_a1.cpp).
TEST(HField, QuadrupedStandsAndWalksOnBumps) {
  a1::Robot robot = a1::load_robot(kSource);
  const Model floor = load_model(terrain("bumps.xml"));
  const int offset = static_cast<int>(robot.model.hfields.size());
  for (const HeightField& h : floor.hfields) robot.model.hfields.push_back(h);
  for (Geom g : floor.world_geoms) {
    if (g.type == GeomType::HField) g.hfield += offset;
    robot.model.world_geoms.push_back(g);
  }
  robot.model.opt.contact.ground = false;
  ASSERT_EQ(validate_model(robot.model), "");

  GaitParameters standing = a1::read_gait(kSource + "/robots/a1/gait.params");
  standing.amplitude = {0, 0, 0};
  const a1::Walk stand = a1::walk(robot, standing, 2.0);
  EXPECT_FALSE(stand.fell);
  EXPECT_EQ(stand.failed_steps, 0);
  EXPECT_LT(std::abs(stand.distance), 0.05);
  EXPECT_LT(stand.max_penetration, 1e-3);

  const GaitParameters gait = a1::read_gait(kSource + "/robots/a1/gait.params");
  const a1::Walk w = a1::walk(robot, gait, 2.0);
  std::printf("  measured: %.3f m forward on bumps, penetration %.1e m, failed steps %d of %d\n", w.distance,
              w.max_penetration, w.failed_steps, w.steps);
  EXPECT_FALSE(w.fell);
  EXPECT_EQ(w.failed_steps, 0);
  EXPECT_GT(w.distance, 0.5);
  EXPECT_LT(w.max_penetration, 1e-3);
}
