// Spatial tendon length (straight, wrapped around spheres and cylinders, pulleys) against closed
// forms, and its gradient against central differences over right perturbations of each body.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/tendon/spatial.hpp"
#include "sim/tendon/wrap.hpp"
#include "testing/random.hpp"

using namespace maxsim;

namespace {

using maxsim::testing::random_quat;
using maxsim::testing::random_vec;

int add_site(Model* m, int body, const Vec3& pos) {
  Site s;
  s.body = body;
  s.pos = pos;
  m->sites.push_back(s);
  return static_cast<int>(m->sites.size()) - 1;
}
TendonPathElement site_el(int s) {
  TendonPathElement e;
  e.kind = TendonPathElement::Kind::Site;
  e.site = s;
  return e;
}
TendonPathElement geom_el(int body, int geom, int side = -1) {
  TendonPathElement e;
  e.kind = TendonPathElement::Kind::Geom;
  e.geom_body = body;
  e.geom = geom;
  e.sidesite = side;
  return e;
}
TendonPathElement pulley_el(double divisor) {
  TendonPathElement e;
  e.kind = TendonPathElement::Kind::Pulley;
  e.divisor = divisor;
  return e;
}
Tendon spatial(std::vector<TendonPathElement> path) {
  Tendon t;
  t.kind = Tendon::Kind::Spatial;
  t.name = "t";
  t.path = std::move(path);
  return t;
}

// A world-fixed geom and one moving body that carries nothing (the poses vector needs a body).
Model world_model() {
  Model m;
  Body b;
  m.add_body(b);
  return m;
}

// L = sqrt(ρ0² − r²) + sqrt(ρ1² − r²) + r(γ − acos(r/ρ0) − acos(r/ρ1)): the planar wrap of two
// points at distances ρ0, ρ1 from the centre, γ apart as seen from the centre.
double wrap_closed_form(double r, double rho0, double rho1, double gamma) {
  return std::sqrt(rho0 * rho0 - r * r) + std::sqrt(rho1 * rho1 - r * r) +
         r * (gamma - std::acos(r / rho0) - std::acos(r / rho1));
}

// Every gradient entry against central differences of the length over right perturbations
// (δx world, δθ body frame) of each body; relative to the gradient's largest entry.
void expect_gradient_matches(const Model& m, const Tendon& t, const std::vector<Pose>& poses,
                             double tol = 1e-7) {
  std::vector<std::pair<int, Vec6>> grad;
  spatial_tendon_length(m, t, poses, &grad);
  std::vector<Vec6> g(m.bodies.size(), Vec6::Zero());
  for (const auto& [b, v] : grad) {
    ASSERT_GE(b, 0);
    ASSERT_LT(b, static_cast<int>(m.bodies.size()));
    g[b] += v;
  }
  double scale = 1e-12;
  for (const Vec6& v : g) scale = std::max(scale, v.cwiseAbs().maxCoeff());
  const double h = 1e-6;
  for (size_t b = 0; b < m.bodies.size(); ++b)
    for (int k = 0; k < 6; ++k) {
      std::vector<Pose> plus = poses, minus = poses;
      if (k < 3) {
        plus[b].x[k] += h;
        minus[b].x[k] -= h;
      } else {
        const Vec3 e = Vec3::Unit(k - 3);
        plus[b].q = quat_mul(poses[b].q, quat_exp(h * e));
        minus[b].q = quat_mul(poses[b].q, quat_exp(-h * e));
      }
      const double fd = (spatial_tendon_length(m, t, plus, nullptr) -
                         spatial_tendon_length(m, t, minus, nullptr)) / (2 * h);
      EXPECT_NEAR(g[b][k], fd, tol * scale) << "body " << b << " coordinate " << k;
    }
}

}  // namespace

TEST(SpatialTendon, StraightSegmentIsTheDistanceBetweenSites) {
  Model m;
  m.add_body(Body{});
  m.add_body(Body{});
  const int a = add_site(&m, 0, Vec3(0.1, -0.2, 0.3));
  const int b = add_site(&m, 1, Vec3(-0.3, 0.05, 0.2));
  const int c = add_site(&m, kWorld, Vec3(1, 2, 3));
  const Tendon t = spatial({site_el(c), site_el(a), site_el(b)});
  ASSERT_EQ(validate_spatial_tendon(m, t), "");
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Pose> poses = {{random_vec(rng), random_quat(rng)}, {random_vec(rng), random_quat(rng)}};
    const Vec3 pa = poses[0].x + quat_to_rot(poses[0].q) * m.sites[a].pos;
    const Vec3 pb = poses[1].x + quat_to_rot(poses[1].q) * m.sites[b].pos;
    const double expected = (pa - m.sites[c].pos).norm() + (pb - pa).norm();
    std::vector<std::pair<int, Vec6>> grad;
    EXPECT_NEAR(spatial_tendon_length(m, t, poses, &grad), expected, 1e-14);
    ASSERT_EQ(grad.size(), 2u);  // one entry per body, never the world
    EXPECT_EQ(grad[0].first, 0);
    EXPECT_EQ(grad[1].first, 1);
    expect_gradient_matches(m, t, poses);
  }
}

TEST(SpatialTendon, PulleyDividesTheFollowingBranch) {
  Model m = world_model();
  const int s0 = add_site(&m, kWorld, Vec3(0, 0, 0)), s1 = add_site(&m, 0, Vec3(0, 0, 0));
  const int s2 = add_site(&m, 0, Vec3(0.5, 0, 0)), s3 = add_site(&m, kWorld, Vec3(0, 3, 0));
  const Tendon t = spatial({site_el(s0), site_el(s1), pulley_el(2), site_el(s2), site_el(s3)});
  ASSERT_EQ(validate_spatial_tendon(m, t), "");
  std::vector<Pose> poses = {{Vec3(0, 0, 2), quat_identity()}};
  // 2 + |(0.5, 0, 2) − (0, 3, 0)| / 2
  EXPECT_NEAR(spatial_tendon_length(m, t, poses, nullptr), 2 + std::sqrt(0.25 + 9 + 4) / 2, 1e-14);
  poses[0].q = quat_axis_angle(Vec3(1, 2, 3), 0.7);
  expect_gradient_matches(m, t, poses);
}

TEST(SpatialTendon, WrapAroundASphereMatchesTheClosedForm) {
  // p0, p1 at 2 r and 1.5 r from the centre, 150° apart, in a plane through the centre tilted
  // arbitrarily: the segment crosses the sphere (150° > acos(1/2) + acos(1/1.5))
  const double r = 0.3;
  const Vec4 tilt = quat_axis_angle(Vec3(0.3, -1, 0.5), 1.1);
  const Vec3 centre(0.2, -0.4, 1.0);
  const double gamma = 150 * M_PI / 180;
  Model m = world_model();
  Geom g = make_geom(GeomType::Sphere, Vec3(r, 0, 0), centre);
  m.world_geoms.push_back(g);
  const Mat3 R = quat_to_rot(tilt);
  const int s0 = add_site(&m, kWorld, centre + R * Vec3(2 * r, 0, 0));
  const int s1 = add_site(&m, kWorld, centre + R * (1.5 * r * Vec3(std::cos(gamma), std::sin(gamma), 0)));
  const Tendon t = spatial({site_el(s0), geom_el(kWorld, 0), site_el(s1)});
  ASSERT_EQ(validate_spatial_tendon(m, t), "");
  const std::vector<Pose> poses = zero_poses(m);
  EXPECT_NEAR(spatial_tendon_length(m, t, poses, nullptr), wrap_closed_form(r, 2 * r, 1.5 * r, gamma), 1e-14);
  // the path's tangent points lie on the sphere and the segments touch it tangentially
  const auto path = spatial_tendon_path(m, t, poses);
  ASSERT_EQ(path.size(), 1u);
  ASSERT_EQ(path[0].size(), 4u);
  for (int k : {1, 2}) EXPECT_NEAR((path[0][k] - centre).norm(), r, 1e-14);
  EXPECT_NEAR((path[0][1] - path[0][0]).dot(path[0][1] - centre), 0, 1e-14);
  EXPECT_NEAR((path[0][3] - path[0][2]).dot(path[0][2] - centre), 0, 1e-14);
}

TEST(SpatialTendon, WrapAroundACylinderIsAHelixOfTheClosedFormLength) {
  // cross-section as in the sphere test, heights h apart: unrolled, the path is straight, so
  // L = sqrt(L2D² + h²)
  const double r = 0.25, h = 0.4, gamma = 200 * M_PI / 180;
  Model m;
  Body body;
  body.x0 = Vec3(1, 2, 3);
  body.q0 = quat_axis_angle(Vec3(1, 1, 0), 0.4);
  m.add_body(body);
  const Vec3 gpos(0.1, 0.0, -0.2);
  const Vec4 gquat = quat_axis_angle(Vec3(0, 1, 0.2), 0.9);
  m.bodies[0].geoms.push_back(make_geom(GeomType::Cylinder, Vec3(r, 0.05, 0), gpos, gquat));
  const Mat3 G = quat_to_rot(gquat);
  // sites in the body, given in the cylinder's frame (the cylinder's height does not matter)
  const int s0 = add_site(&m, 0, gpos + G * Vec3(3 * r, 0, -0.1));
  const int s1 = add_site(&m, 0, gpos + G * Vec3(2 * r * std::cos(gamma), 2 * r * std::sin(gamma), h - 0.1));
  const Tendon t = spatial({site_el(s0), geom_el(0, 0), site_el(s1)});
  ASSERT_EQ(validate_spatial_tendon(m, t), "");
  // the shorter way round: 160° the other way
  const double l2d = wrap_closed_form(r, 3 * r, 2 * r, 2 * M_PI - gamma);
  EXPECT_NEAR(spatial_tendon_length(m, t, zero_poses(m), nullptr), std::sqrt(l2d * l2d + h * h), 1e-14);
}

TEST(SpatialTendon, SideSiteChoosesTheSideEvenWhenTheSegmentMissesTheGeom) {
  // r = 1, p0 = (−2, 1.5), p1 = (2, 1.5): the segment passes above the circle; a side site
  // below sends the path underneath: arc π + 2 atan(3/4) − 2 acos(2/5)
  Model m = world_model();
  m.world_geoms.push_back(make_geom(GeomType::Cylinder, Vec3(1, 1, 0)));
  const int s0 = add_site(&m, kWorld, Vec3(-2, 1.5, 0)), s1 = add_site(&m, kWorld, Vec3(2, 1.5, 0));
  const int below = add_site(&m, kWorld, Vec3(0, -2, 0)), above = add_site(&m, kWorld, Vec3(0, 2, 0));
  const double arc = M_PI + 2 * std::atan(0.75) - 2 * std::acos(0.4);
  Tendon t = spatial({site_el(s0), geom_el(kWorld, 0, below), site_el(s1)});
  ASSERT_EQ(validate_spatial_tendon(m, t), "");
  EXPECT_NEAR(spatial_tendon_length(m, t, zero_poses(m), nullptr), 2 * std::sqrt(6.25 - 1) + arc, 1e-14);
  t.path[1].sidesite = above;  // the side the segment is on: straight
  EXPECT_NEAR(spatial_tendon_length(m, t, zero_poses(m), nullptr), 4, 1e-15);
  t.path[1].sidesite = -1;
  EXPECT_NEAR(spatial_tendon_length(m, t, zero_poses(m), nullptr), 4, 1e-15);
  // crossing segment (y = 0.5): without a side the shorter way (over the top), with the side
  // site below the longer one underneath
  m.sites[s0].pos.y() = m.sites[s1].pos.y() = 0.5;
  const double rho = std::sqrt(4.25), phi = std::atan2(0.5, 2.0), alpha = std::acos(1 / rho);
  const double top = wrap_closed_form(1, rho, rho, M_PI - 2 * phi);
  const double bottom = 2 * std::sqrt(rho * rho - 1) + (M_PI + 2 * phi - 2 * alpha);
  EXPECT_NEAR(spatial_tendon_length(m, t, zero_poses(m), nullptr), top, 1e-14);
  t.path[1].sidesite = below;
  EXPECT_NEAR(spatial_tendon_length(m, t, zero_poses(m), nullptr), bottom, 1e-14);
}

TEST(SpatialTendon, LengthAndGradientAreContinuousWhereTheWrapStarts) {
  // p0 = (−2, y), p1 = (2, y) around the unit circle: straight (L = 4) for y ≥ 1, wrapped below;
  // the wrap adds O(ε^{3/2}) at y = 1 − ε, and the pull on p1 stays along x
  Model m = world_model();
  m.bodies[0].x0 = Vec3(2, 1, 0);
  m.world_geoms.push_back(make_geom(GeomType::Sphere, Vec3(1, 0, 0)));
  const int s0 = add_site(&m, kWorld, Vec3(-2, 1, 0)), s1 = add_site(&m, 0, Vec3::Zero());
  const Tendon t = spatial({site_el(s0), geom_el(kWorld, 0), site_el(s1)});
  for (double eps : {1e-3, 1e-5, 1e-7}) {
    for (double sign : {-1.0, 1.0}) {
      std::vector<Pose> poses = {{Vec3(2, 1 + sign * eps, 0), quat_identity()}};
      m.sites[s0].pos.y() = 1 + sign * eps;
      std::vector<std::pair<int, Vec6>> grad;
      const double L = spatial_tendon_length(m, t, poses, &grad);
      EXPECT_NEAR(L, 4, 5 * std::pow(eps, 1.5)) << "y = 1 + " << sign * eps;
      ASSERT_EQ(grad.size(), 1u);
      EXPECT_NEAR(grad[0].second[0], 1, 5 * eps);
      EXPECT_NEAR(grad[0].second[1], 0, 5 * std::sqrt(eps));
      if (eps > 1e-6) expect_gradient_matches(m, t, poses);
    }
  }
}

TEST(SpatialTendon, GradientMatchesFiniteDifferencesOnMovingBodies) {
  // four bodies; sites, a sphere and a cylinder (with and without side sites) and a pulley,
  // at random poses: wrapped and straight configurations both occur
  std::mt19937 rng(7);
  int wrapped = 0, straight = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Model m;
    for (int b = 0; b < 4; ++b) m.add_body(Body{});
    m.bodies[1].geoms.push_back(make_geom(GeomType::Sphere, Vec3(0.4, 0, 0), random_vec(rng, 0.1), random_quat(rng)));
    m.bodies[2].geoms.push_back(make_geom(GeomType::Cylinder, Vec3(0.3, 0.2, 0), random_vec(rng, 0.1), random_quat(rng)));
    const int a = add_site(&m, 0, random_vec(rng, 0.2));
    const int side1 = add_site(&m, 1, random_vec(rng, 1.0));
    const int b = add_site(&m, 3, random_vec(rng, 0.2));
    const int c = add_site(&m, 2, Vec3(0.9, 0, 0));
    const int side2 = add_site(&m, 2, Vec3(0, 0.9, 0.3));
    const int d = add_site(&m, kWorld, Vec3(0.5, 0.5, 2));
    const bool use_side = trial % 2 == 0;
    const Tendon t = spatial({site_el(a), geom_el(1, 0, use_side ? side1 : -1), site_el(b),
                              geom_el(2, 0, use_side ? side2 : -1), site_el(c), pulley_el(1.5),
                              site_el(b), site_el(d)});
    ASSERT_EQ(validate_spatial_tendon(m, t), "");
    std::vector<Pose> poses(4);
    poses[0] = {Vec3(-1, 0, 0) + random_vec(rng, 0.3), random_quat(rng)};
    poses[1] = {random_vec(rng, 0.3), random_quat(rng)};
    poses[3] = {Vec3(1, 0, 0) + random_vec(rng, 0.3), random_quat(rng)};
    poses[2] = {Vec3(1.5, 0.5, 0) + random_vec(rng, 0.3), random_quat(rng)};
    const auto path = spatial_tendon_path(m, t, poses);
    (path[0].size() > 3 ? wrapped : straight)++;
    expect_gradient_matches(m, t, poses);
  }
  EXPECT_GT(wrapped, 20);  // (the draws give 270 and 30)
  EXPECT_GT(straight, 20);
}

TEST(SpatialTendon, InsideWrapBendsWithEqualAnglesAndHasAnExactGradient) {
  // a side site inside the sphere: the path touches it once, reflecting off the radius
  Model m = world_model();
  m.world_geoms.push_back(make_geom(GeomType::Sphere, Vec3(0.5, 0, 0)));
  m.bodies[0].x0 = Vec3(1.2, 0.9, 0.1);
  const int s0 = add_site(&m, kWorld, Vec3(-0.8, 0.7, -0.1)), s1 = add_site(&m, 0, Vec3::Zero());
  const int side = add_site(&m, kWorld, Vec3(0, 0.1, 0));
  const Tendon t = spatial({site_el(s0), geom_el(kWorld, 0, side), site_el(s1)});
  const auto poses = zero_poses(m);
  const auto path = spatial_tendon_path(m, t, poses);
  ASSERT_EQ(path[0].size(), 3u);
  const Vec3 p = path[0][1], n = p.normalized();
  EXPECT_NEAR(p.norm(), 0.5, 1e-12);
  const Vec3 in = (p - path[0][0]).normalized(), out = (path[0][2] - p).normalized();
  EXPECT_NEAR(in.dot(n), -out.dot(n), 1e-12);
  const double L = spatial_tendon_length(m, t, poses, nullptr);
  EXPECT_NEAR(L, (p - path[0][0]).norm() + (path[0][2] - p).norm(), 1e-14);
  EXPECT_GT(L, (path[0][2] - path[0][0]).norm());
  expect_gradient_matches(m, t, poses);
}

TEST(SpatialTendon, InvalidPathsAreNamed) {
  Model m = world_model();
  m.world_geoms.push_back(make_geom(GeomType::Box, Vec3(1, 1, 1)));
  m.world_geoms.push_back(make_geom(GeomType::Sphere, Vec3(1, 0, 0)));
  const int a = add_site(&m, kWorld, Vec3(3, 0, 0)), b = add_site(&m, kWorld, Vec3(-3, 0, 0));
  auto message = [&](std::vector<TendonPathElement> p) { return validate_spatial_tendon(m, spatial(p)); };
  EXPECT_NE(message({site_el(a)}).find("at least two sites"), std::string::npos);
  EXPECT_NE(message({site_el(a), site_el(5)}).find("site index 5 out of range"), std::string::npos);
  EXPECT_NE(message({site_el(a), geom_el(kWorld, 0), site_el(b)}).find("not a box"), std::string::npos);
  EXPECT_NE(message({site_el(a), geom_el(kWorld, 1)}).find("between two sites"), std::string::npos);
  EXPECT_NE(message({geom_el(kWorld, 1), site_el(a), site_el(b)}).find("between two sites"), std::string::npos);
  EXPECT_NE(message({site_el(a), pulley_el(0), site_el(b)}).find("divisor must be positive"), std::string::npos);
  EXPECT_NE(message({site_el(a), geom_el(3, 0), site_el(b)}).find("body index 3 out of range"), std::string::npos);
  EXPECT_NE(message({site_el(a), geom_el(kWorld, 1, 9), site_el(b)}).find("side site index 9"), std::string::npos);
  EXPECT_EQ(message({site_el(a), geom_el(kWorld, 1, a), site_el(b)}), "");
}
