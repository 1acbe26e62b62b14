// Explicit contact pairs (MJCF <contact><pair>, Model::contact_pairs): two geoms that the
// filters keep apart touch through a pair, with the pair's friction, margin and condim; a pair
// replaces the dynamic test of its two geoms; <option collision> chooses pairs, dynamic or both.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;
namespace fs = std::filesystem;

namespace {

const std::string kSlope = std::string(MAXSIM_SOURCE_DIR) + "/tests/data/terrain/pair_slope.xml";
const double kTheta = 25 * M_PI / 180;

// The slope file with `edit` applied to its text (a temporary copy).
struct EditedSlope {
  fs::path path;
  EditedSlope(const std::string& from, const std::string& to) {
    std::ifstream in(kSlope);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find(from);
    if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in pair_slope.xml");
    text.replace(at, from.size(), to);
    static int n = 0;
    path = fs::temp_directory_path() / ("maxsim_test_pairs_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(n++) + ".xml");
    std::ofstream(path) << text;
  }
  ~EditedSlope() { fs::remove(path); }
};

// Displacement of the box after `duration` s, with the failed steps.
double slide(const Model& m, double duration, int* failed) {
  Data d(m);
  enable_contacts(m, d);
  const Vec3 x0 = d.x[0];
  *failed = 0;
  const int steps = static_cast<int>(std::lround(duration / m.opt.timestep));
  for (int k = 0; k < steps; ++k)
    if (step(m, d).status != StepStatus::Ok) ++*failed;
  return (d.x[0] - x0).norm();
}

std::string load_error(const std::string& from, const std::string& to) {
  EditedSlope f(from, to);
  try {
    load_model(f.path.string());
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The box and the slope (contype 2 / conaffinity 1: never dynamic) touch through the pair with
// the pair's μ = 0.8 > tan 25° = 0.466: the box holds (< 1e-6 m over 1 s). With the geoms' own
// μ = 0.2 (the pair without friction) it slides at g (sin θ − μ cos θ); with condim 1 at g sin θ;
// without the pair it falls through the slope.
TEST(ContactPairs, PairTouchesWithItsOwnFriction) {
  const Model m = load_model(kSlope);
  ASSERT_EQ(m.contact_pairs.size(), 1u);
  EXPECT_EQ(m.contact_pairs[0].name, "grip");
  EXPECT_EQ(m.contact_pairs[0].friction, 0.8);
  int failed = 0;
  EXPECT_LT(slide(m, 1.0, &failed), 1e-6);
  EXPECT_EQ(failed, 0);

  // distance under a constant acceleration a after N = t/Δt steps of the first-order integrator
  // (velocity first, then position): a Δt² N(N + 1)/2 = a t²/2 (1 + Δt/t)
  const double t = 0.5, dt = m.opt.timestep;
  auto travelled = [&](double a) { return 0.5 * a * t * t * (1 + dt / t); };
  const Model own = load_model(EditedSlope(" friction=\"0.8 0.8 0.005 0.0001 0.0001\"", "").path.string());
  EXPECT_LT(own.contact_pairs.at(0).friction, 0);  // the geoms' (max of 0.2 and 0.2)
  EXPECT_NEAR(slide(own, t, &failed), travelled(9.81 * (std::sin(kTheta) - 0.2 * std::cos(kTheta))), 1e-5);
  EXPECT_EQ(failed, 0);

  const Model frictionless = load_model(EditedSlope("name=\"grip\"", "name=\"grip\" condim=\"1\"").path.string());
  EXPECT_NEAR(slide(frictionless, t, &failed), travelled(9.81 * std::sin(kTheta)), 1e-5);
  EXPECT_EQ(failed, 0);

  Model none = m;
  none.contact_pairs.clear();
  Data d(none);
  enable_contacts(none, d);
  for (int k = 0; k < 100; ++k) step(none, d);
  EXPECT_LT(d.x[0].z(), -0.1);  // through the slope: nothing holds it
}

// A pair replaces the dynamic test of its two geoms (MuJoCo's merge): geoms that also collide
// dynamically give one set of points, with the pair's friction; other pairs stay dynamic.
TEST(ContactPairs, PairReplacesTheDynamicContactOfItsGeoms) {
  Model m = load_model(kSlope);
  CollisionOptions co;
  co.ground = false;
  co.margin = 0.01;
  std::vector<ContactCandidate> pair_only, both;
  {
    CollisionWorld w(m, co);
    Data d(m);
    w.find_candidates(d.x, d.q, &pair_only);
  }
  ASSERT_EQ(pair_only.size(), 4u);  // the box's four bottom corners on the plane
  for (const auto& c : pair_only) {
    EXPECT_NEAR(c.distance, 0, 1e-9);
    EXPECT_EQ(c.friction, 0.8);
  }
  m.bodies[0].geoms[0].contype = 1;  // now dynamic too
  m.bodies[0].geoms[0].conaffinity = 1;
  {
    CollisionWorld w(m, co);
    Data d(m);
    w.find_candidates(d.x, d.q, &both);
  }
  ASSERT_EQ(both.size(), 4u);
  for (const auto& c : both) EXPECT_EQ(c.friction, 0.8);
  m.contact_pairs.clear();
  {
    CollisionWorld w(m, co);
    Data d(m);
    w.find_candidates(d.x, d.q, &both);
  }
  ASSERT_EQ(both.size(), 4u);
  for (const auto& c : both) EXPECT_EQ(c.friction, 0.2);  // the dynamic contact's own
}

// A pair collides through <contact><exclude> and the parent filter; <option collision="predefined">
// keeps only the pairs, "dynamic" only the dynamic contacts.
TEST(ContactPairs, CollisionOptionChoosesPairsOrDynamicContacts) {
  // predefined: the pair alone holds the box
  {
    const Model m = load_model(EditedSlope("<option timestep=\"0.002\"/>",
                                           "<option timestep=\"0.002\" collision=\"predefined\"/>").path.string());
    EXPECT_TRUE(m.contacts);
    EXPECT_FALSE(m.dynamic_contacts);
    int failed = 0;
    EXPECT_LT(slide(m, 0.5, &failed), 1e-6);
  }
  // dynamic: the pair is unused and the box falls through
  {
    const Model m = load_model(EditedSlope("<option timestep=\"0.002\"/>",
                                           "<option timestep=\"0.002\" collision=\"dynamic\"/>").path.string());
    EXPECT_TRUE(m.contact_pairs.empty());
    Data d(m);
    enable_contacts(m, d);
    for (int k = 0; k < 100; ++k) step(m, d);
    EXPECT_LT(d.x[0].z(), -0.1);
  }
  // an <exclude> of the box and the world does not stop the pair
  {
    const Model m = load_model(EditedSlope("</contact>", "<exclude body1=\"world\" body2=\"box\"/></contact>").path.string());
    int failed = 0;
    EXPECT_LT(slide(m, 0.5, &failed), 1e-6);
  }
}

// Bad pairs are refused with the file and line.
TEST(ContactPairs, BadPairsAreRefused) {
  EXPECT_NE(load_error("geom2=\"slope\"", "geom2=\"nope\"").find("undefined geom 'nope'"), std::string::npos);
  EXPECT_NE(load_error("geom2=\"slope\"", "").find("needs geom1 and geom2"), std::string::npos);
  EXPECT_NE(load_error("name=\"grip\"", "name=\"grip\" condim=\"2\"").find("condim must be 1, 3, 4 or 6"),
            std::string::npos);
  EXPECT_NE(load_error("friction=\"0.8 0.8", "friction=\"-0.8 0.8").find("must not be negative"), std::string::npos);
  const std::string e = load_error("name=\"grip\"", "name=\"grip\" margin=\"-1\"");
  EXPECT_NE(e.find("margin must not be negative"), std::string::npos);
  EXPECT_NE(e.find(".xml:"), std::string::npos) << e;
}

// Between two moving bodies: a pair of spheres that contype/conaffinity and an exclude keep apart
// is searched with the pair's margin (a 3 cm gap is a candidate with the pair's 5 cm margin, not
// with the search's 1 cm alone) and the pair's friction; A is the lower body index.
TEST(ContactPairs, PairBetweenBodiesWithItsOwnMargin) {
  Model m;
  for (double x : {0.0, 0.23}) {
    Body b;
    b.x0 = Vec3(x, 0, 1);
    Geom g = make_geom(GeomType::Sphere, Vec3(0.1, 0, 0));
    g.contype = x == 0 ? 1 : 2;
    g.conaffinity = x == 0 ? 1 : 2;
    b.geoms.push_back(g);
    m.add_body(b);
  }
  m.contact_excludes.emplace_back(0, 1);
  ContactPair p;
  p.body1 = 1;  // given the other way round
  p.geom1 = 0;
  p.body2 = 0;
  p.geom2 = 0;
  p.friction = 0.3;
  p.margin = 0.05;
  m.contact_pairs.push_back(p);
  ASSERT_EQ(validate_model(m), "");
  CollisionOptions co;
  co.ground = false;
  co.margin = 0.01;
  std::vector<ContactCandidate> out;
  const std::vector<Vec3> x{Vec3(0, 0, 1), Vec3(0.23, 0, 1)};
  const std::vector<Vec4> q(2, quat_identity());
  CollisionWorld(m, co).find_candidates(x, q, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body_a, 0);
  EXPECT_EQ(out[0].body_b, 1);
  EXPECT_NEAR(out[0].distance, 0.03, 1e-12);
  EXPECT_LT((out[0].normal - Vec3::UnitX()).norm(), 1e-12);
  EXPECT_EQ(out[0].friction, 0.3);
  m.contact_pairs[0].margin = -1;  // the geoms' (0): the search's 1 cm only
  CollisionWorld(m, co).find_candidates(x, q, &out);
  EXPECT_TRUE(out.empty());
  m.contact_pairs.clear();  // no pair: the filters keep them apart even touching
  CollisionWorld(m, co).find_candidates({Vec3(0, 0, 1), Vec3(0.19, 0, 1)}, q, &out);
  EXPECT_TRUE(out.empty());
  // a pair naming a geom that is not collision geometry is refused by validate_model
  m.contact_pairs.push_back(p);
  m.bodies[0].geoms[0].collision = false;
  EXPECT_NE(validate_model(m).find("is not collision geometry"), std::string::npos);
}
