// The contact search as an object a Data owns (sim/geometry/contact_search.hpp): a copied Data has a
// search of its own, with its own collision world, and steps exactly like the original; it reads
// its options from the Model, so a change applies from the next step; a reset Data searches as a
// new one.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/geometry/collision.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

Body free_body(const std::string& name, const Geom& g, const Vec3& pos, const Vec4& q = quat_identity()) {
  Body b;
  b.name = name;
  b.mass = 1.0;
  b.inertia = inertia_box(1.0, Vec3(0.1, 0.1, 0.1));
  b.x0 = pos;
  b.q0 = q;
  b.geoms.push_back(g);
  return b;
}

// An octahedron of half diagonal r (a convex mesh).
Geom octahedron(double r) {
  Geom g = make_geom(GeomType::Mesh, Vec3::Zero());
  g.vertices = {Vec3(r, 0, 0), Vec3(-r, 0, 0), Vec3(0, r, 0), Vec3(0, -r, 0), Vec3(0, 0, r), Vec3(0, 0, -r)};
  g.faces = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  return g;
}

// Every shape falling onto the ground and onto each other, and a rod hinged to the world that
// starts through a static block (a start overlap the search remembers).
Model pile() {
  Model m;
  const Vec4 tilt = quat_normalize(Vec4(0.95, 0.2, 0.15, 0.1));
  m.add_body(free_body("box", make_geom(GeomType::Box, Vec3(0.1, 0.15, 0.08)), Vec3(0, 0, 0.1), tilt));
  m.add_body(free_body("capsule", make_geom(GeomType::Capsule, Vec3(0.05, 0.12, 0)), Vec3(0.05, 0.02, 0.35), tilt));
  m.add_body(free_body("sphere", make_geom(GeomType::Sphere, Vec3(0.08, 0, 0)), Vec3(-0.04, 0.03, 0.55)));
  m.add_body(free_body("cylinder", make_geom(GeomType::Cylinder, Vec3(0.07, 0.06, 0)), Vec3(0.4, 0, 0.1), tilt));
  m.add_body(free_body("ellipsoid", make_geom(GeomType::Ellipsoid, Vec3(0.1, 0.06, 0.05)), Vec3(0.42, 0.05, 0.3)));
  m.add_body(free_body("mesh", octahedron(0.1), Vec3(0.38, -0.02, 0.5), tilt));
  Body rod = free_body("rod", make_geom(GeomType::Capsule, Vec3(0.03, 0.3, 0)), Vec3(-0.6, 0, 0.5));
  rod.inertia = inertia_rod(1.0, 0.6);
  const int r = m.add_body(rod);
  m.add_joint(make_joint(m, JointType::Revolute, kWorld, r, Vec3(-0.6, 0, 0.85), Vec3::UnitY()));
  m.world_geoms.push_back(make_geom(GeomType::Box, Vec3(0.1, 0.2, 0.05), Vec3(-0.3, 0, 0.85)));
  m.opt.timestep = 0.005;
  return m;
}

void expect_same_state(const Data& a, const Data& b, int k) {
  ASSERT_EQ(a.x.size(), b.x.size());
  for (size_t i = 0; i < a.x.size(); ++i) {
    ASSERT_EQ(a.x[i], b.x[i]) << "body " << i << ", step " << k;
    ASSERT_EQ(a.q[i], b.q[i]) << "body " << i << ", step " << k;
    ASSERT_EQ(a.v[i], b.v[i]) << "body " << i << ", step " << k;
    ASSERT_EQ(a.w[i], b.w[i]) << "body " << i << ", step " << k;
  }
  ASSERT_EQ(a.contacts.size(), b.contacts.size()) << "step " << k;
  for (size_t c = 0; c < a.contacts.size(); ++c) ASSERT_EQ(a.contacts[c].gamma, b.contacts[c].gamma) << "step " << k;
}

}  // namespace

// Copied mid-run, with contacts active and the search's start overlap remembered, the copy steps
// bitwise like the original, the two stepped in turn; each has its own collision world.
TEST(ContactSearch, ACopiedDataStepsBitwiseLikeTheOriginal) {
  Model m = pile();
  m.opt.contact.cone = FrictionCone::Linear;
  Data d(m);
  set_joint_coordinates(m, d, 0, {-M_PI / 2}, {});  // the rod along +x, through the block
  enable_contacts(m, d);
  for (int k = 0; k < 60; ++k) ASSERT_NE(step(m, d).status, StepStatus::Failed) << "step " << k;
  ASSERT_FALSE(d.contacts.empty());

  Data copy = d;
  ASSERT_TRUE(copy.contact_search.has_value());
  ASSERT_NE(copy.contact_search->world(), nullptr);
  EXPECT_NE(copy.contact_search->world(), d.contact_search->world());  // a world of its own
  int touching = 0;
  for (int k = 0; k < 100; ++k) {
    const StepReport rc = step(m, copy);  // the copy first: it must not disturb the original
    const StepReport rd = step(m, d);
    ASSERT_EQ(rc.status, rd.status) << "step " << k;
    ASSERT_EQ(rc.iterations, rd.iterations) << "step " << k;
    expect_same_state(d, copy, k);
    touching += !d.contacts.empty();
  }
  EXPECT_EQ(touching, 100);
}

// The copy owns everything it searches with: the original can go away.
TEST(ContactSearch, ACopyOutlivesItsOriginal) {
  const Model m = pile();
  auto original = std::make_unique<Data>(m);
  enable_contacts(m, *original);
  for (int k = 0; k < 30; ++k) step(m, *original);
  Data copy = *original;
  Data twin = *original;
  original.reset();
  for (int k = 0; k < 50; ++k) {
    step(m, copy);
    step(m, twin);
    expect_same_state(copy, twin, k);
  }
}

// A collision world's copy answers every search exactly as the original, on every shape pair,
// and keeps answering after the original is gone.
TEST(ContactSearch, ACopiedCollisionWorldAnswersAsTheOriginal) {
  const Model m = pile();
  CollisionOptions co;
  co.margin = 0.05;
  auto world = std::make_unique<CollisionWorld>(m, co);
  CollisionWorld copy(*world);
  CollisionWorld assigned(m, {});
  assigned = *world;
  std::vector<Vec3> x(m.bodies.size());
  std::vector<Vec4> q(m.bodies.size());
  std::vector<ContactCandidate> a, b, c;
  std::set<std::pair<int, int>> pairs;  // body pairs that touched
  for (int trial = 0; trial < 200; ++trial) {
    // the bodies piled into a small region in pseudo-random poses
    for (size_t i = 0; i < x.size(); ++i) {
      const double s = 0.37 * trial + 1.3 * static_cast<double>(i);
      x[i] = Vec3(0.15 * std::sin(1.7 * s), 0.15 * std::cos(2.3 * s), 0.12 + 0.1 * std::sin(0.9 * s));
      q[i] = quat_normalize(Vec4(std::cos(s), std::sin(2 * s), std::cos(3 * s), std::sin(5 * s)));
    }
    if (trial == 100) world.reset();  // the copies keep working alone
    if (world) world->find_candidates(x, q, &a);
    copy.find_candidates(x, q, &b);
    assigned.find_candidates(x, q, &c);
    if (!world) a = b;
    ASSERT_EQ(a.size(), b.size()) << "trial " << trial;
    ASSERT_EQ(b.size(), c.size()) << "trial " << trial;
    for (size_t k = 0; k < b.size(); ++k) {
      pairs.insert({b[k].body_a, b[k].body_b});
      EXPECT_EQ(a[k].point_a, b[k].point_a);
      EXPECT_EQ(a[k].point_b, b[k].point_b);
      EXPECT_EQ(a[k].normal, b[k].normal);
      EXPECT_EQ(a[k].distance, b[k].distance);
      EXPECT_EQ(b[k].point_b, c[k].point_b);
      EXPECT_EQ(b[k].distance, c[k].distance);
    }
  }
  EXPECT_GE(pairs.size(), 20u);  // most of the 21 pairs of the six free shapes, and the ground
}

// A model that switches its contacts off gets an inactive search; a reset Data gets a new
// search, which steps as a new Data's.
TEST(ContactSearch, ResetSearchesAnewAndContactsOffIsInactive) {
  Model m = pile();
  m.opt.contact.friction = 0.3;
  m.opt.contact.self_collision = false;
  Data d(m);
  EXPECT_FALSE(d.contact_search.has_value());
  enable_contacts(m, d);
  ASSERT_TRUE(d.contact_search.has_value());
  EXPECT_TRUE(d.contact_search->active());
  for (int k = 0; k < 20; ++k) step(m, d);
  reset_data(m, d);
  ASSERT_TRUE(d.contact_search.has_value());
  // stepped from the reset, it is a new Data with a new search: the same numbers
  Data fresh(m);
  enable_contacts(m, fresh);
  for (int k = 0; k < 20; ++k) {
    step(m, d);
    step(m, fresh);
    expect_same_state(d, fresh, k);
  }
  m.contacts = false;
  enable_contacts(m, d);
  ASSERT_TRUE(d.contact_search.has_value());
  EXPECT_FALSE(d.contact_search->active());
  EXPECT_EQ(d.contact_search->world(), nullptr);
}

namespace {

// A box thrown onto the ground, sliding: friction, cone and ground all show in its steps.
Model sliding_box() {
  Model m;
  m.add_body(free_body("box", make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0.12)));
  m.opt.timestep = 0.005;
  return m;
}

}  // namespace

// The options are the Model's, read at every step: a change applies from the next step, as a
// search made with the new options would (the collision world rebuilt where the change shapes
// it: default friction, ground), and a Data that has no search is not given one.
TEST(ContactSearch, OptionsChangedOnTheModelApplyFromTheNextStep) {
  Model m = sliding_box();
  m.opt.contact.friction = 0.3;
  Data d(m);
  d.v[0] = Vec3(1.0, 0, 0);
  enable_contacts(m, d);
  for (int k = 0; k < 10; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
  ASSERT_FALSE(d.contacts.empty());
  EXPECT_EQ(d.contacts[0].friction, 0.3);
  EXPECT_FALSE(d.contacts[0].linear_cone);
  Data fresh = d;
  m.opt.contact.friction = 0.9;
  m.opt.contact.cone = FrictionCone::Linear;
  enable_contacts(m, fresh);  // a new search with the new options, in the same state
  for (int k = 0; k < 10; ++k) {
    step(m, d);
    step(m, fresh);
    expect_same_state(d, fresh, k);
  }
  EXPECT_EQ(d.contacts[0].friction, 0.9);
  EXPECT_TRUE(d.contacts[0].linear_cone);
  m.opt.contact.ground = false;
  step(m, d);
  EXPECT_TRUE(d.contacts.empty());  // nothing else to touch
  Data none(m);
  step(m, none);
  EXPECT_FALSE(none.contact_search.has_value());
}

// Bad options on the Model throw (std::invalid_argument naming the option) before anything
// changes: enable_contacts leaves the Data's search as it was, step() the whole Data.
TEST(ContactSearch, BadOptionsChangeNothing) {
  Model m = sliding_box();
  Data d(m);
  enable_contacts(m, d);
  for (int k = 0; k < 5; ++k) step(m, d);
  const Data before = d;
  m.opt.contact.start_overlap = -1;
  try {
    enable_contacts(m, d);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("start_overlap"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(d.contact_search.has_value());
  EXPECT_THROW(step(m, d), std::invalid_argument);
  expect_same_state(before, d, 0);
  EXPECT_EQ(d.time, before.time);
  m.opt.contact.start_overlap = 1e-6;  // fixed: it steps on as if nothing had happened
  Data twin = before;
  step(m, d);
  step(m, twin);
  expect_same_state(twin, d, 1);
}

// The margin per pair's floor for two moving bodies (ContactOptions::pair_min_margin,
// docs/computation.md (122)), at rest without gravity (no speed terms): with it at 5 mm a ball 1 cm
// above the ground is a candidate (a pair with the world keeps min_margin, 2 cm) and two balls 1 cm
// apart are not; a box tilted 0.05 rad over another with its lowest edge 1 mm above it keeps all
// four corners of its bottom face, the far two ~1.1 cm up (a kept pair keeps its points within the
// margin's 2 cm floor, not only those within 5 mm), and none with the floor at 0.5 mm; at the
// default (min_margin's 2 cm) the balls are a candidate; a negative floor is refused by name.
TEST(ContactSearch, BodyPairsAreKeptWholeWithinTheirFloor) {
  Model m;
  const Geom ball = make_geom(GeomType::Sphere, Vec3(0.05, 0, 0));
  m.add_body(free_body("low", ball, Vec3(0, 0, 0.06)));
  m.add_body(free_body("left", ball, Vec3(1, 0, 1)));
  m.add_body(free_body("right", ball, Vec3(1.11, 0, 1)));
  const double tilt = 0.05;
  m.add_body(free_body("base", make_geom(GeomType::Box, Vec3(0.2, 0.2, 0.05)), Vec3(-1, 0, 1)));
  m.add_body(free_body("box", make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.05)),
                       Vec3(-1, 0, 1.05 + 0.001 + 0.1 * std::sin(tilt) + 0.05 * std::cos(tilt)),
                       Vec4(std::cos(tilt / 2), 0, std::sin(tilt / 2), 0)));
  m.opt.gravity.setZero();
  struct Count {
    int ball_ground = 0, balls = 0, boxes = 0;
  };
  auto count = [&m](double floor) {
    m.opt.contact.pair_min_margin = floor;
    Data d(m);
    enable_contacts(m, d);
    step(m, d);
    Count n;
    for (const Contact& c : d.contacts) {
      n.ball_ground += c.body_a == kWorld && c.body_b == 0;
      n.balls += c.body_a == 1 && c.body_b == 2;
      n.boxes += c.body_a == 3 && c.body_b == 4;
    }
    return n;
  };
  ASSERT_GE(ContactOptions{}.min_margin, 0.02);
  const Count small = count(0.005);
  EXPECT_EQ(small.ball_ground, 1);
  EXPECT_EQ(small.balls, 0);
  EXPECT_EQ(small.boxes, 4);
  const Count by_default = count(ContactOptions{}.pair_min_margin);
  EXPECT_EQ(by_default.ball_ground, 1);
  EXPECT_EQ(by_default.balls, 1);
  EXPECT_EQ(by_default.boxes, 4);
  EXPECT_EQ(count(5e-4).boxes, 0);
  try {
    count(-1e-3);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pair_min_margin"), std::string::npos) << e.what();
  }
}

// A mesh is its convex hull: an octahedron carrying 2 000 vertices inside it (a visual-quality
// mesh's interior) falls onto a block and the ground exactly as the bare octahedron does — the
// collision cores hold the hull's vertices only (sim/geometry/collision_table.cpp), and the
// polyhedra's face scan skips no face that could separate them.
TEST(ContactSearch, AMeshIsItsHullWhateverItsInteriorVertices) {
  auto scene = [](const Geom& mesh) {
    Model m;
    const Vec4 tilt = quat_normalize(Vec4(0.95, 0.2, 0.15, 0.1));
    m.add_body(free_body("mesh", mesh, Vec3(0.02, -0.01, 0.3), tilt));
    m.world_geoms.push_back(make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.05), Vec3(0, 0, 0.05)));
    m.opt.timestep = 0.005;
    return m;
  };
  Geom dense = octahedron(0.1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  while (dense.vertices.size() < 2006) {
    const Vec3 p(u(rng), u(rng), u(rng));
    if (p.lpNorm<1>() < 0.09) dense.vertices.push_back(p);
  }
  const Model a = scene(octahedron(0.1)), b = scene(dense);
  Data da(a), db(b);
  enable_contacts(a, da);
  enable_contacts(b, db);
  int touching = 0;
  for (int k = 0; k < 200; ++k) {
    ASSERT_EQ(step(a, da).status, StepStatus::Ok);
    ASSERT_EQ(step(b, db).status, StepStatus::Ok);
    ASSERT_EQ(da.contacts.size(), db.contacts.size()) << "step " << k;
    for (const Contact& c : da.contacts) touching += c.gamma > 1e-6;
    EXPECT_LT((da.x[0] - db.x[0]).norm(), 1e-9) << "step " << k;
    EXPECT_LT((da.q[0] - db.q[0]).norm(), 1e-9) << "step " << k;
  }
  EXPECT_GT(touching, 100);                    // it lands on the block and rests there
  EXPECT_LT(max_penetration(db), 1e-6);
  EXPECT_GT(db.x[0].z(), 0.1);                 // on the block, not through it
}
