// Contact candidate search (sim/geometry/collision.hpp): exact distances, normals and witness points for
// every primitive against the ground and world planes, body–body pairs with multi-point
// manifolds, filtering (joints, excludes, contype/conaffinity), margins, the witness-point
// identity φ = nᵀ(pB − pA), determinism and allocation-free repeated calls. (The search's cost is
// measured by SearchSphereChain and SearchBoxStack in benchmarks/bench_contacts.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <LinearMath/btAlignedAllocator.h>

#include <stdexcept>

#include "sim/geometry/collision.hpp"
#include "sim/geometry/narrow_phase.hpp"
#include "sim/model.hpp"
#include "tests/counting_new.hpp"

// Bullet's aligned allocator, counted like operator new (tests/counting_new.hpp)
static void* counting_bt_alloc(size_t n) {
  if (g_count_allocations) ++g_allocations;
  return std::malloc(n);
}
static void counting_bt_free(void* p) { std::free(p); }

namespace maxsim {
namespace {

struct Scene {
  Model model;
  std::vector<Vec3> x;
  std::vector<Vec4> q;

  int add(std::vector<Geom> geoms, const Vec3& pos, const Vec4& quat = quat_identity()) {
    Body b;
    b.name = "b";
    b.name += std::to_string(model.bodies.size());
    b.geoms = std::move(geoms);
    b.x0 = pos;
    b.q0 = quat;
    x.push_back(pos);
    q.push_back(quat);
    return model.add_body(b);
  }
  std::vector<ContactCandidate> find(const CollisionOptions& o = {}) const {
    CollisionWorld w(model, o);
    std::vector<ContactCandidate> out;
    w.find_candidates(x, q, &out);
    return out;
  }
  Vec3 world(int body, const Vec3& p) const {
    return body == kWorld ? p : Vec3(x[body] + quat_rotate(q[body], p));
  }
};

CollisionOptions no_ground() {
  CollisionOptions o;
  o.ground = false;
  return o;
}

// The contract every candidate satisfies (docs/computation.md (30)): unit normal,
// φ = nᵀ(pB − pA) = distance at the searched configuration, the same with the core points and radii.
void expect_witness_identity(const Scene& s, const std::vector<ContactCandidate>& out) {
  for (const ContactCandidate& c : out) {
    EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
    const Vec3 pa = s.world(c.body_a, c.point_a), pb = s.world(c.body_b, c.point_b);
    EXPECT_NEAR(c.normal.dot(pb - pa), c.distance, 1e-9);
    const Vec3 ca = s.world(c.body_a, c.core_a), cb = s.world(c.body_b, c.core_b);
    EXPECT_NEAR(c.normal.dot(cb - ca) - c.radius_a - c.radius_b, c.distance, 1e-9);
  }
}

// N numbers from U in the order drawn. (Vec3(U(rng), U(rng), U(rng)) would not do: the order in
// which function arguments are evaluated is unspecified — GCC draws right to left, Clang left to
// right — so each compiler would build other scenes.)
template <int N>
Eigen::Matrix<double, N, 1> draw(std::uniform_real_distribution<double>& U, std::mt19937& rng) {
  Eigen::Matrix<double, N, 1> v;
  for (int i = 0; i < N; ++i) v(i) = U(rng);
  return v;
}

Vec4 rot_x(double a) { return quat_axis_angle(Vec3::UnitX(), a); }
Vec4 rot_y(double a) { return quat_axis_angle(Vec3::UnitY(), a); }
Vec4 rot_z(double a) { return quat_axis_angle(Vec3::UnitZ(), a); }

// ---- against the ground ----------------------------------------------------------------------

TEST(Collision, SphereAboveAndIntoTheGround) {
  Scene s;
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0.3, -0.2, 0.105), rot_x(0.7));
  auto out = s.find();
  ASSERT_EQ(out.size(), 1u);
  const ContactCandidate& c = out[0];
  EXPECT_EQ(c.body_a, kWorld);
  EXPECT_EQ(c.body_b, 0);
  EXPECT_EQ(c.geom_a, -1);
  EXPECT_EQ(c.geom_b, 0);
  EXPECT_NEAR(c.distance, 0.005, 1e-15);
  EXPECT_TRUE(c.normal.isApprox(Vec3::UnitZ()));
  EXPECT_TRUE(c.point_a.isApprox(Vec3(0.3, -0.2, 0)));
  // the lowest point of the sphere, in the (rotated) body frame
  EXPECT_LT((c.point_b - quat_rotate(quat_conj(s.q[0]), Vec3(0, 0, -0.1))).norm(), 1e-15);
  EXPECT_NEAR(c.radius_b, 0.1, 0);
  EXPECT_LT(c.core_b.norm(), 1e-15);  // the centre
  EXPECT_NEAR(c.friction, 0.8, 0);
  expect_witness_identity(s, out);

  s.x[0].z() = 0.08;  // 2 cm into the ground
  out = s.find();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, -0.02, 1e-15);
  expect_witness_identity(s, out);

  s.x[0].z() = 0.3;  // far above
  EXPECT_TRUE(s.find().empty());
}

TEST(Collision, BoxFaceDownGivesFourCorners) {
  Scene s;
  const Vec3 h(0.2, 0.3, 0.1);
  const double gap = 0.004;
  s.add({make_geom(GeomType::Box, h)}, Vec3(1, 2, h.z() + gap));
  auto out = s.find();
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, gap, 1e-15);
    EXPECT_NEAR(std::abs(c.point_b.x()), h.x(), 1e-15);
    EXPECT_NEAR(std::abs(c.point_b.y()), h.y(), 1e-15);
    EXPECT_NEAR(c.point_b.z(), -h.z(), 1e-15);
    EXPECT_NEAR(c.point_a.z(), 0, 1e-15);
    EXPECT_TRUE(c.normal.isApprox(Vec3::UnitZ()));
  }
  expect_witness_identity(s, out);
  // 3 mm into the ground: the same 4 corners at −3 mm
  s.x[0].z() = h.z() - 0.003;
  out = s.find();
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, -0.003, 1e-15);
}

TEST(Collision, TiltedBoxCornersByHand) {
  Scene s;
  const Vec3 h(0.2, 0.3, 0.1);
  const double th = M_PI / 6;  // 30° about x
  // z of a corner (x, y, z) after the rotation: y sin θ + z cos θ; lowest: y = −0.3, z = −0.1
  const double lowest = -0.3 * std::sin(th) - 0.1 * std::cos(th);   // −0.23660
  const double second = -0.3 * std::sin(th) + 0.1 * std::cos(th);  // −0.06340
  s.add({make_geom(GeomType::Box, h)}, Vec3(0, 0, -lowest + 0.002), rot_x(th));
  auto out = s.find();
  ASSERT_EQ(out.size(), 2u);  // the lowest edge: its two corners x = ±0.2
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, 0.002, 1e-14);
    EXPECT_NEAR(c.point_b.y(), -0.3, 1e-14);
    EXPECT_NEAR(c.point_b.z(), -0.1, 1e-14);
  }
  EXPECT_NEAR(out[0].point_b.x() * out[1].point_b.x(), -0.04, 1e-14);
  expect_witness_identity(s, out);
  // a margin reaching the next edge adds its two corners at the hand-computed distance
  CollisionOptions wide;
  wide.margin = 0.2;
  out = s.find(wide);
  ASSERT_EQ(out.size(), 4u);
  int near = 0, far = 0;
  for (const auto& c : out) {
    if (std::abs(c.distance - 0.002) < 1e-14) ++near;
    if (std::abs(c.distance - (second - lowest + 0.002)) < 1e-14) ++far;
  }
  EXPECT_EQ(near, 2);
  EXPECT_EQ(far, 2);
  // tilted about a horizontal diagonal axis as well: a single lowest corner
  const Vec4 q2 = quat_mul(rot_y(0.2), rot_x(th));
  s.q[0] = q2;
  const Mat3 R = quat_to_rot(q2);
  double zmin = 1e9;
  for (int i = 0; i < 8; ++i) {
    const Vec3 v((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
    zmin = std::min(zmin, (R * v).z());
  }
  s.x[0] = Vec3(0, 0, -zmin - 0.001);
  out = s.find();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, -0.001, 1e-14);
}

TEST(Collision, CapsuleLyingGivesTwoPoints) {
  Scene s;
  // capsule axis (geom z) turned onto world x
  s.add({make_geom(GeomType::Capsule, Vec3(0.05, 0.2, 0), Vec3::Zero(), rot_y(M_PI / 2))},
        Vec3(0, 0, 0.051));
  auto out = s.find();
  ASSERT_EQ(out.size(), 2u);
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, 0.001, 1e-15);
    EXPECT_NEAR(std::abs(c.point_b.x()), 0.2, 1e-15);
    EXPECT_NEAR(c.point_b.z(), -0.05, 1e-15);
    EXPECT_NEAR(c.radius_b, 0.05, 0);
  }
  expect_witness_identity(s, out);
  // standing upright: one end
  s.q[0] = rot_y(M_PI / 2);  // body turned back so that the capsule axis is vertical
  s.x[0] = Vec3(0, 0, 0.25 - 0.01);
  out = s.find();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, -0.01, 1e-15);
  // tilted 15° with a wide margin: lower end ball, raised end's circle point (radius 0)
  const double big = 15 * M_PI / 180;
  s.q[0] = rot_y(-big);
  s.x[0] = Vec3(0, 0, 0.05 + 0.2 * std::sin(big));
  CollisionOptions wide;
  wide.margin = 0.2;
  out = s.find(wide);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].radius_b + out[1].radius_b, 0.05, 0);
  for (const auto& c : out)
    EXPECT_NEAR(c.distance, c.radius_b > 0 ? 0.0 : 0.4 * std::sin(big) + 0.05 * (1 - std::cos(big)),
                1e-15);
  expect_witness_identity(s, out);
}

TEST(Collision, CylinderUprightRimAndTilted) {
  Scene s;
  const double r = 0.1, hl = 0.2;
  s.add({make_geom(GeomType::Cylinder, Vec3(r, hl, 0))}, Vec3(0.5, 0, hl + 0.003));
  auto out = s.find();
  // 8 rim points, reduced to kMaxPairPoints spread around the rim (their mean near the axis)
  ASSERT_EQ(out.size(), static_cast<size_t>(kMaxPairPoints));
  Vec3 mean = Vec3::Zero();
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, 0.003, 1e-15);
    EXPECT_NEAR(c.point_b.head<2>().norm(), r, 1e-15);
    EXPECT_NEAR(c.point_b.z(), -hl, 1e-15);
    mean += c.point_b / out.size();
  }
  EXPECT_LT(mean.head<2>().norm(), 0.3 * r);
  expect_witness_identity(s, out);
  // tilted by θ: the exact lowest point is hl cos θ + r sin θ below the centre; its two rim
  // neighbours (45° around the rim) are r sin θ (1 − cos 45°) = 8.7 mm higher, within the margin
  const double th = 0.3;
  s.q[0] = rot_x(th);
  s.x[0].z() = hl * std::cos(th) + r * std::sin(th) - 0.002;
  out = s.find();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_NEAR(out[0].distance, -0.002, 1e-15);
  for (int k = 1; k < 3; ++k)
    EXPECT_NEAR(out[k].distance, -0.002 + r * std::sin(th) * (1 - std::cos(M_PI / 4)), 1e-15);
  expect_witness_identity(s, out);
  CollisionOptions tight;
  tight.margin = 0.005;
  out = s.find(tight);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, -0.002, 1e-15);
  EXPECT_NEAR(out[0].point_b.z(), -hl, 1e-15);
  EXPECT_NEAR(out[0].point_b.y(), -r, 1e-15);  // the rim point on the downhill side
  // lying on its side: a line contact, one point per rim
  s.q[0] = rot_x(M_PI / 2);
  s.x[0].z() = r;
  out = s.find();
  ASSERT_EQ(out.size(), 2u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, 0, 1e-15);
  EXPECT_NEAR(std::abs(out[0].point_b.z()), hl, 1e-15);
}

TEST(Collision, EllipsoidAndMeshOnTheGround) {
  Scene s;
  const Vec3 semi(0.3, 0.2, 0.1);
  s.add({make_geom(GeomType::Ellipsoid, semi)}, Vec3(0, 0, 0), rot_y(0.4));
  // support along −z of a rotated ellipsoid: sqrt(Σ (R_zi a_i)²)
  const Mat3 R = quat_to_rot(s.q[0]);
  const double depth = std::sqrt(std::pow(R(2, 0) * semi(0), 2) + std::pow(R(2, 1) * semi(1), 2) +
                                 std::pow(R(2, 2) * semi(2), 2));
  s.x[0].z() = depth + 0.005;
  auto out = s.find();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.005, 1e-15);
  expect_witness_identity(s, out);

  // a mesh cube (with an interior vertex that the hull drops) face down: 4 corners
  Scene m;
  Geom mesh = make_geom(GeomType::Mesh, Vec3::Zero());
  for (int i = 0; i < 8; ++i)
    mesh.vertices.emplace_back((i & 1) ? 0.1 : -0.1, (i & 2) ? 0.1 : -0.1, (i & 4) ? 0.1 : -0.1);
  mesh.vertices.emplace_back(0.0, 0.0, -0.05);
  m.add({mesh}, Vec3(0, 0, 0.1 + 0.002), rot_z(0.3));
  out = m.find();
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, 0.002, 1e-15);
  expect_witness_identity(m, out);
}

// ---- body–body ---------------------------------------------------------------------------------

TEST(Collision, TwoSpheresExact) {
  Scene s;
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0, 0, 1), rot_z(0.4));
  s.add({make_geom(GeomType::Sphere, Vec3(0.2, 0, 0))}, Vec3(0.25, 0.1, 1.05), rot_x(1.0));
  const Vec3 d = s.x[1] - s.x[0];
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);  // |d| = 0.2739 < 0.3: penetrating
  const ContactCandidate& c = out[0];
  EXPECT_EQ(c.body_a, 0);
  EXPECT_EQ(c.body_b, 1);
  EXPECT_NEAR(c.distance, d.norm() - 0.3, 1e-15);
  EXPECT_LT((c.normal - d.normalized()).norm(), 1e-15);
  EXPECT_LT((s.world(0, c.point_a) - (s.x[0] + 0.1 * d.normalized())).norm(), 1e-15);
  EXPECT_LT((s.world(1, c.point_b) - (s.x[1] - 0.2 * d.normalized())).norm(), 1e-15);
  expect_witness_identity(s, out);
  // separated by 5 mm: still a candidate (margin 1 cm); by 2 cm: none
  s.x[1] = s.x[0] + 0.305 * d.normalized();
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.005, 1e-15);
  s.x[1] = s.x[0] + 0.32 * d.normalized();
  EXPECT_TRUE(s.find(no_ground()).empty());
}

TEST(Collision, BoxOnLargerBoxGivesTheFourCorners) {
  Scene s;
  const Vec3 big(1.0, 0.8, 0.1), small(0.2, 0.15, 0.1);
  s.add({make_geom(GeomType::Box, big)}, Vec3(0, 0, 0.1));
  s.add({make_geom(GeomType::Box, small)}, Vec3(0.1, -0.2, 0.2 + 0.1 + 0.002), rot_z(0.3));
  auto out = s.find(no_ground());
  ASSERT_GE(out.size(), 3u);
  ASSERT_EQ(out.size(), 4u);  // the small box's bottom face, clipped against the big top face
  for (const auto& c : out) {
    EXPECT_EQ(c.body_a, 0);
    EXPECT_EQ(c.body_b, 1);
    EXPECT_NEAR(c.distance, 0.002, 1e-12);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-12);
    // the points are the small box's bottom corners
    EXPECT_NEAR(std::abs(c.point_b.x()), small.x(), 1e-12);
    EXPECT_NEAR(std::abs(c.point_b.y()), small.y(), 1e-12);
    EXPECT_NEAR(c.point_b.z(), -small.z(), 1e-12);
  }
  expect_witness_identity(s, out);
  // resting exactly (touching): GJK has no direction there, the face axis still gives 4 points
  s.x[1].z() = 0.3;
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, 0, 1e-12);
  // 1 mm into the lower box
  s.x[1].z() = 0.299;
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, -0.001, 1e-12);
  expect_witness_identity(s, out);
}

TEST(Collision, BoxRockingOnABoxGivesItsFourCornersByHeight) {
  Scene s;
  const Vec3 small(0.2, 0.15, 0.1);
  const double th = M_PI / 180;  // 1° about x: the −y bottom edge is lowest
  s.add({make_geom(GeomType::Box, Vec3(1, 1, 0.1))}, Vec3(0, 0, 0.1));
  const double drop = small.y() * std::sin(th) + small.z() * std::cos(th);  // centre to lowest
  s.add({make_geom(GeomType::Box, small)}, Vec3(0.1, 0.1, 0.2 + drop + 0.001), rot_x(th));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  int low = 0, high = 0;
  for (const auto& c : out) {
    if (std::abs(c.distance - 0.001) < 1e-12) ++low;
    if (std::abs(c.distance - (0.001 + 2 * small.y() * std::sin(th))) < 1e-12) ++high;
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-12);
  }
  EXPECT_EQ(low, 2);
  EXPECT_EQ(high, 2);
}

// The distance of two cores (radii excluded; -1 when they overlap or touch) as a reference:
// Bullet's GJK from the six axis directions, the nearest answer, and that answer certified: the
// cores' separation along its normal (from their support points) is a lower bound of the
// distance, its witnesses' distance an upper bound. (One GJK run alone can stop short: it
// stops when a support point repeats one of its last four.)
double reference_distance(const btConvexShape& a, const btTransform& ta, const btConvexShape& b,
                          const btTransform& tb) {
  double best = std::numeric_limits<double>::infinity();
  btVector3 normal(0, 0, 0);
  for (int k = 0; k < 6; ++k) {
    btVector3 guess(0, 0, 0);
    guess[k / 2] = k % 2 ? -1 : 1;
    btGjkEpaSolver2::sResults r;
    if (!btGjkEpaSolver2::Distance(&a, ta, &b, tb, guess, r)) return -1;
    const btVector3 d = r.witnesses[1] - r.witnesses[0];
    if (d.length() < best) best = d.length(), normal = d / d.length();
  }
  auto support = [](const btConvexShape& s, const btTransform& t, const btVector3& u) {
    return t * s.localGetSupportingVertexWithoutMargin(t.getBasis().transpose() * u);
  };
  const double lower = normal.dot(support(b, tb, -normal)) - normal.dot(support(a, ta, normal));
  EXPECT_LT(best - lower, 1e-9) << "reference not certified";
  return best;
}

// Random separated pairs of primitives: the closest candidate of a pair is the true distance
// (reference_distance), and there is none beyond the threshold.
TEST(Collision, ClosestCandidateIsTheTrueDistance) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  const GeomType types[] = {GeomType::Sphere, GeomType::Box, GeomType::Capsule,
                            GeomType::Cylinder};
  auto core = [](const Geom& g) -> std::unique_ptr<btConvexShape> {
    switch (g.type) {
      case GeomType::Sphere:
        return std::make_unique<btSphereShape>(g.size.x());
      case GeomType::Capsule:
        return std::make_unique<btCapsuleShapeZ>(g.size.x(), 2 * g.size.y());
      case GeomType::Box: {
        auto b = std::make_unique<btBoxShape>(btVector3(g.size.x(), g.size.y(), g.size.z()));
        b->setMargin(0);
        return b;
      }
      default: {
        auto c = std::make_unique<btCylinderShapeZ>(btVector3(g.size.x(), g.size.x(), g.size.y()));
        c->setMargin(0);
        return c;
      }
    }
  };
  auto radius = [](const Geom& g) {
    return g.type == GeomType::Sphere || g.type == GeomType::Capsule ? g.size.x() : 0.0;
  };
  auto tf = [](const Vec3& x, const Vec4& q) {
    const Mat3 R = quat_to_rot(q);
    return btTransform(btMatrix3x3(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0),
                                   R(2, 1), R(2, 2)),
                       btVector3(x.x(), x.y(), x.z()));
  };
  CollisionOptions o = no_ground();
  o.margin = 0.05;
  int compared = 0, empty = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Scene s;
    const Vec3 size_a = Vec3::Constant(0.1) + 0.1 * draw<3>(U, rng).cwiseAbs();
    const Vec3 size_b = Vec3::Constant(0.1) + 0.1 * draw<3>(U, rng).cwiseAbs();
    Geom ga = make_geom(types[trial % 4], size_a);
    Geom gb = make_geom(types[(trial / 4) % 4], size_b);
    // some pairs axis-aligned (face–face), the others in random orientations
    const bool aligned = trial % 3 == 0;
    const Vec4 qa = aligned ? quat_identity() : quat_normalize(draw<4>(U, rng));
    const Vec4 qb = aligned ? rot_z(0.3 * U(rng)) : quat_normalize(draw<4>(U, rng));
    s.add({ga}, Vec3::Zero(), qa);
    s.add({gb}, Vec3::Zero(), qb);
    Vec3 dir = draw<3>(U, rng);
    if (aligned) dir = Vec3(0.1 * dir.x(), 0.1 * dir.y(), 1);
    dir.normalize();
    // move B along dir until the reference distance is in (0, 0.08)
    auto sa = core(ga), sb = core(gb);
    auto distance = [&](const Vec3& xb) {
      const double d = reference_distance(*sa, tf(s.x[0], qa), *sb, tf(xb, qb));
      return d < 0 ? d : d - radius(ga) - radius(gb);
    };
    double lo = 0, hi = 2;
    const double target = 0.08 * std::abs(U(rng)) + 1e-4;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      if (distance(mid * dir) < target) lo = mid; else hi = mid;
    }
    s.x[1] = hi * dir;
    const double ref = distance(s.x[1]);
    ASSERT_GT(ref, 0) << trial;
    const auto out = s.find(o);
    if (ref >= o.margin) {
      EXPECT_TRUE(out.empty());
      ++empty;
      continue;
    }
    ASSERT_FALSE(out.empty()) << trial;
    double dmin = 1e9;
    for (const auto& c : out) dmin = std::min(dmin, c.distance);
    EXPECT_NEAR(dmin, ref, 1e-7) << geom_type_name(ga.type) << " " << geom_type_name(gb.type)
                                 << " trial " << trial;
    expect_witness_identity(s, out);
    ++compared;
  }
  EXPECT_GT(compared, 200);
  EXPECT_GT(empty, 20);
}

// A capsule against a box or cylinder is solved in closed form (the segment's nearest point by
// bisection on the signed distance's slope, sim/geometry/collide_rounded.cpp), in either order
// of the pair: its closest candidate is the certified GJK distance to 2e-9 m (the reference's own
// certificate is 1e-9; or an end ball within collision::kTieTolerance of it, which replaces the core point)
// from 1 µm to 5 cm, lying parallel to a face or a side included; a
// capsule whose segment reaches into the shape still gets its penetration (GJK/EPA).
TEST(Collision, CapsuleAgainstBoxAndCylinderIsTheTrueDistance) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  CollisionOptions o = no_ground();
  o.margin = 0.06;
  int exact = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const GeomType other = trial % 2 ? GeomType::Box : GeomType::Cylinder;
    const bool capsule_first = (trial / 2) % 2 == 0;
    const Geom cap = make_geom(GeomType::Capsule, Vec3(0.02 + 0.03 * std::abs(U(rng)), 0.05 + 0.1 * std::abs(U(rng)), 0));
    const Geom shape = make_geom(other, Vec3::Constant(0.05) + 0.1 * draw<3>(U, rng).cwiseAbs());
    // a quarter lie parallel to the shape's z face (box) or axis (cylinder side), the rest turn
    const bool parallel = trial % 4 == 3;
    const Vec4 qc = parallel ? quat_axis_angle(Vec3::UnitY(), M_PI / 2) : quat_normalize(draw<4>(U, rng));
    const Vec4 qs = parallel ? quat_identity() : quat_normalize(draw<4>(U, rng));
    std::unique_ptr<btConvexShape> shape_core;
    if (other == GeomType::Box) {
      shape_core = std::make_unique<btBoxShape>(btVector3(shape.size.x(), shape.size.y(), shape.size.z()));
    } else {
      shape_core = std::make_unique<btCylinderShapeZ>(btVector3(shape.size.x(), shape.size.x(), shape.size.y()));
    }
    shape_core->setMargin(0);
    btCapsuleShapeZ segment_core(0.0, 2 * cap.size.y());  // (the capsule's core: its radius below)
    segment_core.setMargin(0);
    auto tf = [](const Vec3& x, const Vec4& q) {
      const Mat3 R = quat_to_rot(q);
      return btTransform(btMatrix3x3(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)),
                         btVector3(x.x(), x.y(), x.z()));
    };
    Vec3 dir = parallel ? Vec3(0.2 * U(rng), 0.2 * U(rng), 1) : draw<3>(U, rng);
    dir.normalize();
    auto distance = [&](const Vec3& xc) {
      const double d = reference_distance(segment_core, tf(xc, qc), *shape_core, tf(Vec3::Zero(), qs));
      return d < 0 ? d : d - cap.size.x();
    };
    double lo = 0, hi = 2;
    const double target = std::pow(10.0, -6 + 4.7 * std::abs(U(rng)));  // 1 µm … 5 cm
    for (int it = 0; it < 70; ++it) {
      const double mid = 0.5 * (lo + hi);
      (distance(mid * dir) < target ? lo : hi) = mid;
    }
    const Vec3 xc = hi * dir;
    const double ref = distance(xc);
    ASSERT_GT(ref, 0) << trial;
    Scene s;
    if (capsule_first) {
      s.add({cap}, xc, qc);
      s.add({shape}, Vec3::Zero(), qs);
    } else {
      s.add({shape}, Vec3::Zero(), qs);
      s.add({cap}, xc, qc);
    }
    const auto out = s.find(o);
    ASSERT_FALSE(out.empty()) << trial;
    double dmin = 1e9;
    for (const auto& c : out) dmin = std::min(dmin, c.distance);
    // (an end ball within kTieTolerance of the core point replaces it: the pair's closest point
    // is then that ball's)
    EXPECT_GE(dmin, ref - 2e-9) << geom_type_name(other) << " trial " << trial << " target " << target;
    EXPECT_LE(dmin, ref + collision::kTieTolerance) << geom_type_name(other) << " trial " << trial << " target " << target;
    exact += std::abs(dmin - ref) <= 2e-9;
    expect_witness_identity(s, out);
  }
  std::printf("%d of 400 within 2e-9 m\n", exact);
  EXPECT_GE(exact, 380);

  // the segment through a box's face: a penetration of the capsule's radius plus 1 cm
  Scene s;
  const Geom box = make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1));
  const Geom cap = make_geom(GeomType::Capsule, Vec3(0.02, 0.1, 0));
  s.add({box}, Vec3::Zero());
  s.add({cap}, Vec3(0, 0, 0.1 - 0.01), quat_axis_angle(Vec3::UnitY(), M_PI / 2));
  const auto out = s.find(o);
  ASSERT_FALSE(out.empty());
  double dmin = 1e9;
  for (const auto& c : out) dmin = std::min(dmin, c.distance);
  EXPECT_NEAR(dmin, -0.03, 1e-9);
}

TEST(Collision, EqualBoxesTurned45GiveTheOctagon) {
  Scene s;
  const Vec3 h(0.1, 0.1, 0.1);
  s.add({make_geom(GeomType::Box, h)}, Vec3(0, 0, 0.1));
  s.add({make_geom(GeomType::Box, h)}, Vec3(0, 0, 0.3 + 0.001), rot_z(M_PI / 4));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), static_cast<size_t>(kMaxPairPoints));  // of the octagon's 8 vertices
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, 0.001, 1e-12);
    // octagon vertices: on the boundary of both squares
    const Vec3 pa = s.world(0, c.point_a);
    EXPECT_NEAR(std::max(std::abs(pa.x()), std::abs(pa.y())), 0.1, 1e-12);
  }
  expect_witness_identity(s, out);
  // on the ground too: the lower box's 4 corners (ground first in the output)
  out = s.find();
  ASSERT_EQ(out.size(), 4u + kMaxPairPoints);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i].body_a, kWorld);
}

TEST(Collision, BoxEdgeOnBoxEdgeIsOnePoint) {
  Scene s;
  const Vec3 h(0.1, 0.1, 0.1);
  // lower box turned 45° about x (ridge along x on top), upper box 45° about y (ridge along y
  // below): the ridges cross at one point, 1 mm apart
  const double ridge = 0.1 * std::sqrt(2.0);
  s.add({make_geom(GeomType::Box, h)}, Vec3(0, 0, 0), rot_x(M_PI / 4));
  s.add({make_geom(GeomType::Box, h)}, Vec3(0, 0, 2 * ridge + 0.001), rot_y(M_PI / 4));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.001, 1e-9);
  EXPECT_LT((out[0].normal - Vec3::UnitZ()).norm(), 1e-6);
  expect_witness_identity(s, out);
}

TEST(Collision, CapsuleAndCylinderOnABox) {
  Scene s;
  s.add({make_geom(GeomType::Box, Vec3(1, 1, 0.1))}, Vec3(0, 0, 0.1));
  s.add({make_geom(GeomType::Capsule, Vec3(0.05, 0.2, 0), Vec3::Zero(), rot_y(M_PI / 2))},
        Vec3(0.3, 0, 0.2 + 0.05 + 0.002), rot_z(0.5));
  s.add({make_geom(GeomType::Cylinder, Vec3(0.1, 0.15, 0))}, Vec3(-0.4, 0.3, 0.2 + 0.15 + 0.003));
  auto out = s.find(no_ground());
  int capsule = 0, cylinder = 0;
  for (const auto& c : out) {
    EXPECT_EQ(c.body_a, 0);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-9);
    if (c.body_b == 1) {
      ++capsule;
      EXPECT_NEAR(c.distance, 0.002, 1e-9);
      EXPECT_NEAR(std::abs(c.core_b.x()), 0.2, 1e-9);  // the segment's end points
    }
    if (c.body_b == 2) {
      ++cylinder;
      EXPECT_NEAR(c.distance, 0.003, 1e-9);
      EXPECT_NEAR(c.point_b.head<2>().norm(), 0.1, 1e-9);
    }
  }
  EXPECT_EQ(capsule, 2);
  EXPECT_EQ(cylinder, kMaxPairPoints);
  expect_witness_identity(s, out);
}

// A pair found apart is not queried again while it cannot have come within the threshold
// (collision.hpp, "Order and cost"). A rod turning about its own centre, which stays where it is,
// towards a rod it crosses above (their boxes overlap all along): a bound without the turn would
// never query the pair again and miss the contact. Searched by one world through the whole turn
// and by a fresh world at every frame, the candidates are the same.
TEST(Collision, APairFoundApartIsQueriedAgainWhenItsTurnCouldCloseIt) {
  Scene s;
  s.add({make_geom(GeomType::Cylinder, Vec3(0.02, 0.5, 0), Vec3::Zero(), rot_y(M_PI / 2))}, Vec3(0, 0, 0.3));
  s.add({make_geom(GeomType::Cylinder, Vec3(0.02, 0.5, 0))}, Vec3(0, 0.3, 0.3));
  CollisionOptions o = no_ground();
  o.margin = 0.005;
  CollisionWorld w(s.model, o);
  std::vector<ContactCandidate> out;
  int frames_with_contact = 0, frames_apart = 0;
  for (int k = 0; k <= 45; ++k) {
    // the second rod's axis (0, cos θ, sin θ), θ from −40° to 5°: its end over the first rod
    // comes down onto it, then through it
    const double theta = (k - 40.0) * M_PI / 180.0;
    s.q[1] = rot_x(theta - M_PI / 2);
    w.find_candidates(s.x, s.q, &out);
    const std::vector<ContactCandidate> fresh = s.find(o);
    ASSERT_EQ(out.size(), fresh.size()) << "frame " << k;
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].distance, fresh[i].distance) << "frame " << k;
      EXPECT_EQ(out[i].point_b, fresh[i].point_b) << "frame " << k;
    }
    (fresh.empty() ? frames_apart : frames_with_contact) += 1;
  }
  EXPECT_GT(frames_apart, 20);
  EXPECT_GT(frames_with_contact, 5);
}

TEST(Collision, CylinderRestingExactlyOnABoxAndABoxOnACylinder) {
  Scene s;
  s.add({make_geom(GeomType::Box, Vec3(1, 1, 0.1))}, Vec3(0, 0, 0.1));
  // exactly touching: GJK has no normal there; the closed-form point queries do
  s.add({make_geom(GeomType::Cylinder, Vec3(0.1, 0.15, 0))}, Vec3(0.2, 0.3, 0.2 + 0.15),
        rot_z(0.7));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), static_cast<size_t>(kMaxPairPoints));
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, 0, 1e-14);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-14);
    EXPECT_NEAR(c.point_b.head<2>().norm(), 0.1, 1e-14);
  }
  expect_witness_identity(s, out);

  // a box standing on a wide cylinder's top face: its 4 bottom corners
  Scene t;
  t.add({make_geom(GeomType::Cylinder, Vec3(0.5, 0.1, 0))}, Vec3(0, 0, 0.1));
  t.add({make_geom(GeomType::Box, Vec3(0.1, 0.15, 0.05))}, Vec3(0.05, 0, 0.2 + 0.05 - 0.001),
        rot_z(0.2));
  out = t.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, -0.001, 1e-14);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-14);
    EXPECT_NEAR(c.point_b.z(), -0.05, 1e-14);
  }
  expect_witness_identity(t, out);
}

TEST(Collision, SphereAgainstBoxFaceEdgeAndCorner) {
  Scene s;
  s.add({make_geom(GeomType::Box, Vec3(0.2, 0.3, 0.1))}, Vec3(0, 0, 1), rot_z(0.3));
  s.add({make_geom(GeomType::Sphere, Vec3(0.05, 0, 0))}, Vec3::Zero());
  const Mat3 R = quat_to_rot(s.q[0]);
  auto place = [&](const Vec3& local) { s.x[1] = s.x[0] + R * local; };
  place(Vec3(0.1, 0.1, 0.1 + 0.05 + 0.004));  // above the top face
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.004, 1e-15);
  EXPECT_LT((out[0].normal - Vec3::UnitZ()).norm(), 1e-15);
  place(Vec3(0.2 + 0.03, 0.1, 0.1 + 0.04));  // beyond the +x top edge
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, std::hypot(0.03, 0.04) - 0.05, 1e-15);
  EXPECT_LT((out[0].normal - R * Vec3(0.6, 0, 0.8)).norm(), 1e-14);
  place(Vec3(0.2, 0.3, 0.1) + 0.052 * Vec3(1, 1, 1).normalized());  // off the corner
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.002, 1e-15);
  place(Vec3(0.19, 0.0, 0.0));  // centre inside the box, 1 cm from the +x face
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, -0.06, 1e-15);
  EXPECT_LT((out[0].normal - R.col(0)).norm(), 1e-15);  // from the box (A) out to the sphere
  expect_witness_identity(s, out);
}

TEST(Collision, MeshHullsClipLikeBoxes) {
  auto cube = [](double h) {
    Geom g = make_geom(GeomType::Mesh, Vec3::Zero());
    for (int i = 0; i < 8; ++i)
      g.vertices.emplace_back((i & 1) ? h : -h, (i & 2) ? h : -h, (i & 4) ? h : -h);
    return g;
  };
  Scene s;
  s.add({cube(0.3)}, Vec3(0, 0, 0.3));
  s.add({cube(0.1)}, Vec3(0.05, 0.05, 0.6 + 0.1 + 0.002), rot_z(0.4));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_NEAR(c.distance, 0.002, 1e-14);
    EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-14);
  }
  expect_witness_identity(s, out);
  // a mesh on a box, penetrating 1 mm
  s.model.bodies[0].geoms[0] = make_geom(GeomType::Box, Vec3(0.3, 0.3, 0.3));
  s.x[1].z() = 0.6 + 0.1 - 0.001;
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, -0.001, 1e-14);

  // a 16-sided prism face down on the ground: its 16 bottom vertices reduced to 8 spread ones
  Scene p;
  Geom prism = make_geom(GeomType::Mesh, Vec3::Zero());
  for (int k = 0; k < 16; ++k)
    for (double z : {-0.05, 0.05})
      prism.vertices.emplace_back(0.2 * std::cos(2 * M_PI * k / 16), 0.2 * std::sin(2 * M_PI * k / 16),
                                  z);
  p.add({prism}, Vec3(0, 0, 0.05 + 0.003), rot_x(0.001));  // tilted a hair: one deepest vertex
  out = p.find();
  ASSERT_EQ(out.size(), static_cast<size_t>(kMaxPairPoints));
  double dmin = 1, exact_min = 1;
  const Mat3 R = quat_to_rot(p.q[0]);
  for (const Vec3& v : prism.vertices) exact_min = std::min(exact_min, p.x[0].z() + (R * v).z());
  Vec3 centroid = Vec3::Zero();
  for (const auto& c : out) {
    dmin = std::min(dmin, c.distance);
    centroid += p.world(0, c.point_b) / out.size();
  }
  EXPECT_NEAR(dmin, exact_min, 1e-15);  // the deepest is kept
  EXPECT_LT(centroid.head<2>().norm(), 0.05);  // and the kept ones surround the centre
}

TEST(Collision, CapsulesCrossedAndParallel) {
  Scene s;
  const Geom along_x =
      make_geom(GeomType::Capsule, Vec3(0.05, 0.3, 0), Vec3::Zero(), rot_y(M_PI / 2));
  s.add({along_x}, Vec3(0, 0, 1));
  s.add({make_geom(GeomType::Capsule, Vec3(0.05, 0.3, 0), Vec3::Zero(), rot_x(M_PI / 2))},
        Vec3(0.1, 0, 1.104));  // crossed, along y, 4 mm above
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].distance, 0.004, 1e-15);
  EXPECT_LT((s.world(0, out[0].core_a) - Vec3(0.1, 0, 1)).norm(), 1e-15);
  // a shorter parallel capsule on top: its two ends
  s.model.bodies[1].geoms[0] =
      make_geom(GeomType::Capsule, Vec3(0.05, 0.1, 0), Vec3::Zero(), rot_y(M_PI / 2));
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 2u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, 0.004, 1e-15);
  expect_witness_identity(s, out);
}

TEST(Collision, SphereOnStaticWorldBoxAndTiltedWorldPlane) {
  Scene s;
  s.model.world_geoms.push_back(make_geom(GeomType::Box, Vec3(0.5, 0.5, 0.25), Vec3(0, 0, 0.25)));
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0.2, 0.1, 0.5 + 0.1 + 0.003));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body_a, kWorld);
  EXPECT_EQ(out[0].geom_a, 0);
  EXPECT_NEAR(out[0].distance, 0.003, 1e-12);
  EXPECT_LT((out[0].point_a - Vec3(0.2, 0.1, 0.5)).norm(), 1e-12);  // world frame
  EXPECT_NEAR(out[0].friction, 0.8, 0);
  expect_witness_identity(s, out);

  // a tilted plane (MJCF floor, infinite whatever its size): n = R_x(0.35) e_z through
  // (3, 0, 0.5); the world box stays (world geom 0), the sphere moves next to the plane
  Geom floor = make_geom(GeomType::Plane, Vec3(0, 0, 0), Vec3(3, 0, 0.5), rot_x(0.35));
  floor.friction = 1.1;
  s.model.world_geoms.push_back(floor);
  const Vec3 n = quat_rotate(rot_x(0.35), Vec3::UnitZ());
  const Vec3 along = quat_rotate(rot_x(0.35), Vec3::UnitY());  // in the plane, uphill
  s.x[0] = Vec3(3.2, 0, 0.5) - 0.7 * along + (0.1 - 0.004) * n;
  out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].geom_a, 1);
  EXPECT_NEAR(out[0].distance, n.dot(s.x[0] - Vec3(3, 0, 0.5)) - 0.1, 1e-14);
  EXPECT_NEAR(out[0].distance, -0.004, 1e-14);
  EXPECT_LT((out[0].normal - n).norm(), 1e-15);
  EXPECT_NEAR(out[0].friction, 1.1, 0);  // max(1.1, default 0.8)
  expect_witness_identity(s, out);
  // a box on the tilted plane: its 4 bottom corners when aligned with it
  Scene b;
  b.model.world_geoms.push_back(floor);
  b.add({make_geom(GeomType::Box, Vec3(0.1, 0.2, 0.05))},
        Vec3(3, 0, 0.5) + (0.05 + 0.001) * n, rot_x(0.35));
  out = b.find(no_ground());
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) EXPECT_NEAR(c.distance, 0.001, 1e-14);
}

// ---- filtering -------------------------------------------------------------------------------

TEST(Collision, JoinedBodiesAndExcludesDoNotCollide) {
  Scene s;
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0, 0, 1));
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0.15, 0, 1));
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0.3, 0, 1));
  s.model.add_joint(make_joint(s.model, JointType::Spherical, 0, 1, Vec3(0.075, 0, 1)));
  s.model.add_joint(make_joint(s.model, JointType::Floating, kWorld, 0, Vec3(0, 0, 1)));
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 1u);  // 0–1 joined; 1–2 overlap; 0–2 are 0.1 apart
  EXPECT_EQ(out[0].body_a, 1);
  EXPECT_EQ(out[0].body_b, 2);
  CollisionOptions all = no_ground();
  all.exclude_joined = false;
  EXPECT_EQ(s.find(all).size(), 2u);
  s.model.contact_excludes.push_back({2, 1});
  EXPECT_TRUE(s.find(no_ground()).empty());
  // a body joined to the world still touches the ground...
  s.x[0].z() = 0.05;
  out = s.find();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body_b, 0);
  // ...unless excluded from the world
  s.model.contact_excludes.push_back({kWorld, 0});
  EXPECT_TRUE(s.find().empty());
}

TEST(Collision, JoinedThroughGeomlessVirtualBodiesIsExcluded) {
  // A —hinge— V (no geoms) —hinge— C, as the MJCF loader builds a body with two joints; and
  // A —hinge— B (geoms) —hinge— D: A and D are two real joints apart and do collide.
  Scene s;
  const Geom ball = make_geom(GeomType::Sphere, Vec3(0.1, 0, 0));
  const int a = s.add({ball}, Vec3(0, 0, 1));
  const int v = s.add({}, Vec3(0.05, 0, 1));
  const int c = s.add({ball}, Vec3(0.1, 0, 1));
  s.model.add_joint(make_joint(s.model, JointType::Revolute, a, v, Vec3(0.05, 0, 1)));
  s.model.add_joint(make_joint(s.model, JointType::Revolute, v, c, Vec3(0.05, 0, 1), Vec3::UnitY()));
  EXPECT_TRUE(s.find(no_ground()).empty());
  CollisionOptions all = no_ground();
  all.exclude_joined = false;
  EXPECT_EQ(s.find(all).size(), 1u);

  Scene t;
  const int a2 = t.add({ball}, Vec3(0, 0, 1));
  const int b2 = t.add({make_geom(GeomType::Sphere, Vec3(0.01, 0, 0))}, Vec3(0, 0, 2));
  const int d2 = t.add({ball}, Vec3(0.15, 0, 1));
  t.model.add_joint(make_joint(t.model, JointType::Revolute, a2, b2, Vec3(0, 0, 1.5)));
  t.model.add_joint(make_joint(t.model, JointType::Revolute, b2, d2, Vec3(0, 0, 1.5)));
  auto out = t.find(no_ground());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body_a, a2);
  EXPECT_EQ(out[0].body_b, d2);
}

TEST(Collision, ContypeConaffinity) {
  Scene s;
  Geom a = make_geom(GeomType::Sphere, Vec3(0.1, 0, 0));
  Geom b = a;
  s.add({a}, Vec3(0, 0, 1));
  s.add({b}, Vec3(0.15, 0, 1));
  auto set = [&](int ta, int aa, int tb, int ab) {
    s.model.bodies[0].geoms[0].contype = ta;
    s.model.bodies[0].geoms[0].conaffinity = aa;
    s.model.bodies[1].geoms[0].contype = tb;
    s.model.bodies[1].geoms[0].conaffinity = ab;
    return s.find(no_ground()).size();
  };
  EXPECT_EQ(set(1, 1, 1, 1), 1u);
  EXPECT_EQ(set(1, 0, 1, 0), 0u);  // neither accepts the other
  EXPECT_EQ(set(2, 0, 0, 2), 1u);  // a's type matches b's affinity
  EXPECT_EQ(set(0, 4, 4, 0), 1u);  // b's type matches a's affinity
  EXPECT_EQ(set(2, 1, 4, 8), 0u);
  // visual geoms and geoms of one body never collide
  EXPECT_EQ(set(1, 1, 1, 1), 1u);
  s.model.bodies[1].geoms[0].collision = false;
  EXPECT_EQ(s.find(no_ground()).size(), 0u);
  Scene one;
  one.add({a, make_geom(GeomType::Sphere, Vec3(0.1, 0, 0), Vec3(0.05, 0, 0))}, Vec3(0, 0, 1));
  EXPECT_TRUE(one.find(no_ground()).empty());
  // the ground has contype = conaffinity = 1
  one.x[0].z() = 0.05;
  EXPECT_EQ(one.find().size(), 2u);
  one.model.bodies[0].geoms[0].contype = 2;
  one.model.bodies[0].geoms[0].conaffinity = 2;
  EXPECT_EQ(one.find().size(), 1u);
}

// ---- margins, identity, determinism ----------------------------------------------------------

TEST(Collision, MarginBehaviour) {
  Scene s;
  s.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0, 0, 0.1 + 0.0099));
  EXPECT_EQ(s.find().size(), 1u);  // 9.9 mm < 1 cm margin
  s.x[0].z() = 0.1 + 0.0101;
  EXPECT_TRUE(s.find().empty());
  CollisionOptions zero;
  zero.margin = 0;
  s.x[0].z() = 0.1 + 1e-9;
  EXPECT_TRUE(s.find(zero).empty());
  s.x[0].z() = 0.1 - 1e-9;
  EXPECT_EQ(s.find(zero).size(), 1u);
  // a geom margin widens the search (combined with max, added to the options' margin)
  s.model.bodies[0].geoms[0].margin = 0.05;
  s.x[0].z() = 0.1 + 0.055;
  EXPECT_EQ(s.find().size(), 1u);
  s.x[0].z() = 0.1 + 0.065;
  EXPECT_TRUE(s.find().empty());
  // the same between two bodies
  Scene p;
  Geom big = make_geom(GeomType::Sphere, Vec3(0.1, 0, 0));
  big.margin = 0.02;
  p.add({big}, Vec3(0, 0, 1));
  p.add({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0.2 + 0.029, 0, 1));
  EXPECT_EQ(p.find(no_ground()).size(), 1u);
  p.x[1].x() = 0.2 + 0.031;
  EXPECT_TRUE(p.find(no_ground()).empty());
}

// Many shapes in random poses: every candidate satisfies the identity, the search is
// deterministic, repeated calls do not reallocate, and every geom pair closer than the margin is
// found (brute-force distance check for spheres).
TEST(Collision, RandomScenesIdentityAndDeterminism) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  Scene s;
  const GeomType types[] = {GeomType::Sphere, GeomType::Box, GeomType::Capsule,
                            GeomType::Cylinder, GeomType::Ellipsoid, GeomType::Mesh};
  for (int i = 0; i < 40; ++i) {
    const GeomType t = types[i % 6];
    Geom g = make_geom(t, Vec3::Constant(0.1) + 0.05 * draw<3>(U, rng).cwiseAbs());
    if (t == GeomType::Mesh)
      for (int k = 0; k < 12; ++k) g.vertices.push_back(0.15 * draw<3>(U, rng));
    const Vec3 u = draw<3>(U, rng);
    const Vec4 q = quat_normalize(draw<4>(U, rng));
    s.add({g}, Vec3(0.6 * u.x(), 0.6 * u.y(), 0.15 + 0.3 * std::abs(u.z())), q);
  }
  CollisionWorld w(s.model, CollisionOptions{});
  std::vector<ContactCandidate> out, again;
  w.find_candidates(s.x, s.q, &out);
  // witness points lie on their geoms' surfaces (exact signed distance functions)
  auto sdf = [&](int body, int geom, const Vec3& point) {
    if (body == kWorld) return point.z();  // the ground
    const Geom& g = s.model.bodies[body].geoms[geom];
    const Vec3 p = quat_rotate(quat_conj(s.q[body]), s.world(body, point) - s.x[body]);
    const Vec3 h = g.size;
    switch (g.type) {
      case GeomType::Sphere:
        return p.norm() - h.x();
      case GeomType::Box: {
        const Vec3 d = p.cwiseAbs() - h;
        return d.cwiseMax(0.0).norm() + std::min(d.maxCoeff(), 0.0);
      }
      case GeomType::Capsule:
        return (p - std::clamp(p.z(), -h.y(), h.y()) * Vec3::UnitZ()).norm() - h.x();
      case GeomType::Cylinder: {
        const Eigen::Vector2d d(p.head<2>().norm() - h.x(), std::abs(p.z()) - h.y());
        return d.cwiseMax(0.0).norm() + std::min(d.maxCoeff(), 0.0);
      }
      default:
        return 0.0;  // ellipsoid, mesh: not checked here
    }
  };
  // capsule end balls may put the point up to 0.02 r inside the capsule (sim/geometry/collision.hpp)
  auto on_surface = [&](int body, int geom, const Vec3& point) {
    const double d = sdf(body, geom, point);
    if (body != kWorld && s.model.bodies[body].geoms[geom].type == GeomType::Capsule)
      return d <= 1e-7 && d >= -0.021 * s.model.bodies[body].geoms[geom].size.x();
    return std::abs(d) <= 1e-7;
  };
  int checked = 0;
  for (const auto& c : out) {
    EXPECT_TRUE(on_surface(c.body_a, c.geom_a, c.point_a));
    EXPECT_TRUE(on_surface(c.body_b, c.geom_b, c.point_b));
    EXPECT_NEAR(sdf(c.body_a, c.geom_a, c.point_a), 0, 0.01)
        << geom_type_name(c.body_a == kWorld ? GeomType::Plane : s.model.bodies[c.body_a].geoms[0].type)
        << " " << geom_type_name(s.model.bodies[c.body_b].geoms[0].type) << " d " << c.distance;
    EXPECT_NEAR(sdf(c.body_b, c.geom_b, c.point_b), 0, 0.01)
        << geom_type_name(c.body_a == kWorld ? GeomType::Plane : s.model.bodies[c.body_a].geoms[0].type)
        << " " << geom_type_name(s.model.bodies[c.body_b].geoms[0].type) << " d " << c.distance;
    ++checked;
  }
  EXPECT_GT(checked, 0);
  EXPECT_GT(out.size(), 40u);
  expect_witness_identity(s, out);
  for (const auto& c : out) EXPECT_LT(c.distance, 0.01);
  w.find_candidates(s.x, s.q, &again);
  ASSERT_EQ(again.size(), out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(again[i].body_a, out[i].body_a);
    EXPECT_EQ(again[i].body_b, out[i].body_b);
    EXPECT_EQ(again[i].distance, out[i].distance);
    EXPECT_EQ(again[i].point_b, out[i].point_b);
  }
  // sorted by (body_a, body_b, geom_a, geom_b)
  for (size_t i = 1; i < out.size(); ++i) {
    const auto& a = out[i - 1];
    const auto& b = out[i];
    EXPECT_LE(std::make_tuple(a.body_a, a.body_b, a.geom_a, a.geom_b),
              std::make_tuple(b.body_a, b.body_b, b.geom_a, b.geom_b));
  }
  // a fresh world gives the same answer (no hidden history)
  CollisionWorld w2(s.model, CollisionOptions{});
  std::vector<ContactCandidate> fresh;
  w2.find_candidates(s.x, s.q, &fresh);
  ASSERT_EQ(fresh.size(), out.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(fresh[i].distance, out[i].distance);
  // no reallocation of the output when the count is unchanged
  const ContactCandidate* data = again.data();
  const size_t cap = again.capacity();
  for (int k = 0; k < 3; ++k) w.find_candidates(s.x, s.q, &again);
  EXPECT_EQ(again.data(), data);
  EXPECT_EQ(again.capacity(), cap);
}

TEST(Collision, NoAllocationAfterTheFirstCall) {
  btAlignedAllocSetCustom(counting_bt_alloc, counting_bt_free);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  Scene s;
  const GeomType types[] = {GeomType::Sphere, GeomType::Box, GeomType::Capsule,
                            GeomType::Cylinder, GeomType::Ellipsoid, GeomType::Mesh};
  for (int i = 0; i < 30; ++i) {
    const GeomType t = types[i % 6];
    Geom g = make_geom(t, Vec3(0.12, 0.1, 0.08));
    if (t == GeomType::Mesh)
      for (int k = 0; k < 10; ++k) g.vertices.push_back(0.15 * draw<3>(U, rng));
    const Vec3 u = draw<3>(U, rng);
    const Vec4 q = quat_normalize(draw<4>(U, rng));
    s.add({g}, Vec3(0.5 * u.x(), 0.5 * u.y(), 0.1 + 0.2 * std::abs(u.z())), q);
  }
  s.model.world_geoms.push_back(make_geom(GeomType::Box, Vec3(0.2, 0.2, 0.2), Vec3(0, 0, -0.1)));
  s.model.world_geoms.push_back(make_geom(GeomType::Plane, Vec3::Zero(), Vec3(0, 0, 0.05), rot_x(0.1)));
  CollisionWorld w(s.model, CollisionOptions{});
  std::vector<ContactCandidate> out;
  w.find_candidates(s.x, s.q, &out);
  w.find_candidates(s.x, s.q, &out);
  const size_t n = out.size();
  EXPECT_GT(n, 30u);
  g_allocations = 0;
  g_count_allocations = true;
  for (int k = 0; k < 5; ++k) w.find_candidates(s.x, s.q, &out);
  g_count_allocations = false;
  EXPECT_EQ(out.size(), n);
  EXPECT_EQ(g_allocations.load(), 0);
  btAlignedAllocSetCustom(nullptr, nullptr);
  // a non-finite pose is an error, not a silent NaN contact
  s.x[3].x() = std::nan("");
  EXPECT_THROW(w.find_candidates(s.x, s.q, &out), std::invalid_argument);
}

TEST(Collision, CapsuleTiltedOnABoxKeepsTwoEndPoints) {
  Scene s;
  const double r = 0.05, hl = 0.2, eps = 0.01;  // 0.57° tilt
  s.add({make_geom(GeomType::Box, Vec3(1, 1, 0.1))}, Vec3(0, 0, 0.1));
  const double h0 = 0.2 + r + hl * std::sin(eps) + 0.001;  // lower end 1 mm above the face
  s.add({make_geom(GeomType::Capsule, Vec3(r, hl, 0), Vec3::Zero(), rot_y(M_PI / 2))},
        Vec3(0, 0, h0), rot_y(-eps));  // +x end raised
  auto out = s.find(no_ground());
  ASSERT_EQ(out.size(), 2u);
  // both ends are balls (the raised end is within 11.5° of its cap): distances of the end balls
  const double low = h0 - hl * std::sin(eps) - r - 0.2;
  const double high = h0 + hl * std::sin(eps) - r - 0.2;
  for (const auto& c : out) EXPECT_NEAR(c.radius_b, r, 0);
  EXPECT_NEAR(std::min(out[0].distance, out[1].distance), low, 1e-14);
  EXPECT_NEAR(std::max(out[0].distance, out[1].distance), high, 1e-14);
  EXPECT_NEAR(low, 0.001, 1e-14);
  for (const auto& c : out) EXPECT_LT((c.normal - Vec3::UnitZ()).norm(), 1e-14);
  expect_witness_identity(s, out);
  // tilted 15° (past the 11.5° slack) with a wide margin: the raised end gives its end circle's
  // lowest point, on the surface, with radius 0
  const double big = 15 * M_PI / 180;
  s.q[1] = rot_y(-big);
  s.x[1].z() = 0.2 + r + hl * std::sin(big) + 0.001;
  CollisionOptions wide = no_ground();
  wide.margin = 0.2;
  out = s.find(wide);
  ASSERT_EQ(out.size(), 2u);
  int balls = 0, circle = 0;
  for (const auto& c : out) {
    if (c.radius_b == r) {
      ++balls;
      EXPECT_NEAR(c.distance, 0.001, 1e-14);
    } else {
      ++circle;
      EXPECT_NEAR(c.distance, 0.001 + 2 * hl * std::sin(big) + r - r * std::cos(big), 1e-14);
    }
  }
  EXPECT_EQ(balls, 1);
  EXPECT_EQ(circle, 1);
  expect_witness_identity(s, out);
}

TEST(Collision, SpherePairsFoundLikeBruteForce) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(0, 1);
  Scene s;
  std::vector<double> r;
  for (int i = 0; i < 120; ++i) {
    r.push_back(0.05 + 0.1 * U(rng));
    const Vec3 u = draw<3>(U, rng);
    s.add({make_geom(GeomType::Sphere, Vec3(r.back(), 0, 0))}, Vec3(2 * u.x(), 2 * u.y(), 0.5 * u.z()));
  }
  auto out = s.find();
  int ground = 0, pairs = 0;
  for (int i = 0; i < 120; ++i) {
    if (s.x[i].z() - r[i] < 0.01) ++ground;
    for (int j = i + 1; j < 120; ++j)
      if ((s.x[i] - s.x[j]).norm() - r[i] - r[j] < 0.01) ++pairs;
  }
  int got_ground = 0, got_pairs = 0;
  for (const auto& c : out) (c.body_a == kWorld ? got_ground : got_pairs)++;
  EXPECT_EQ(got_ground, ground);
  EXPECT_EQ(got_pairs, pairs);
  expect_witness_identity(s, out);
}

// A chain of 200 spheres (r = 0.25, spherical joints) lying on the ground: one ground contact
// per sphere and none between neighbours (joined); 20 boxes stacked, each turned 0.1 rad on the
// one below: at least four points per face contact. (Their search times are benchmarks,
// SearchSphereChain and SearchBoxStack in benchmarks/bench_contacts.cpp.)
TEST(Collision, SphereChainAndBoxStackCandidates) {
  Scene s;
  const int n = 200;
  for (int i = 0; i < n; ++i) {
    s.add({make_geom(GeomType::Sphere, Vec3(0.25, 0, 0))}, Vec3(0.5 * i, 0, 0.249));
    if (i > 0)
      s.model.add_joint(
          make_joint(s.model, JointType::Spherical, i - 1, i, Vec3(0.5 * i - 0.25, 0, 0.249)));
  }
  auto out = s.find();
  ASSERT_EQ(static_cast<int>(out.size()), n);
  for (const auto& c : out) EXPECT_EQ(c.body_a, kWorld);

  Scene b;
  for (int i = 0; i < 20; ++i)
    b.add({make_geom(GeomType::Box, Vec3(0.25, 0.25, 0.25))}, Vec3(0, 0, 0.25 + 0.5 * i),
          rot_z(0.1 * i));
  EXPECT_GE(b.find().size(), 4u + 19 * 4u);
}

}  // namespace
}  // namespace maxsim

// A mesh's collision hull has only faces with a normal, whatever the input's near-duplicate
// vertices make of it: Bullet's hull computer rounds coordinates, the hull's vertices are snapped
// back onto input vertices, and a face whose vertices snapped onto one point has no area (the
// clipping would normalize its zero normal: a Unitree H1-2 link pair crashed in Bullet so).
TEST(Collision, MeshHullFacesAllHaveNormals) {
  using namespace maxsim;
  std::mt19937 rng(11);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::uniform_real_distribution<double> tiny(-1e-5, 1e-5);
  int faces = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Geom g = make_geom(GeomType::Mesh, Vec3::Zero());
    for (int i = 0; i < 400; ++i) {
      const Vec3 p = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized() * 0.1;
      g.vertices.push_back(p);
      g.vertices.push_back(p + Vec3(tiny(rng), tiny(rng), tiny(rng)));  // a scan's near-duplicate
    }
    collision::CGeom cg;
    ASSERT_TRUE(collision::collision_shape(GeomType::Mesh).build(g, &cg));
    ASSERT_TRUE(cg.poly);
    for (int f = 0; f < cg.poly->m_faces.size(); ++f) {
      const btFace& face = cg.poly->m_faces[f];
      const double n2 = Vec3(face.m_plane[0], face.m_plane[1], face.m_plane[2]).squaredNorm();
      EXPECT_NEAR(n2, 1.0, 1e-9) << "trial " << trial << ", face " << f;
      EXPECT_GE(face.m_indices.size(), 3) << "trial " << trial << ", face " << f;
      ++faces;
    }
  }
  EXPECT_GT(faces, 20 * 100);
}
