// The penetration diagnostic (sim/geometry/ground.hpp): exact lowest points of every primitive, rotated
// geoms and bodies, meshes, and what is ignored (planes, visual geoms); depth below the world's
// own planes at their poses, filtered as the contacts are.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/data.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/model.hpp"

namespace maxsim {
namespace {

// One free body at (x, q) carrying the given geoms.
struct OneBody {
  Model model;
  std::unique_ptr<Data> data;
  OneBody(std::vector<Geom> geoms, const Vec3& x, const Vec4& q = quat_identity()) {
    Body b;
    b.name = "b";
    b.geoms = std::move(geoms);
    b.x0 = x;
    b.q0 = q;
    model.add_body(b);
    data = std::make_unique<Data>(model);
    data->x[0] = x;
    data->q[0] = q;
  }
  double depth() const { return max_ground_penetration(model, *data); }
};

TEST(Ground, SphereHalfBelow) {
  OneBody s({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0.3, -2, 0.05));
  EXPECT_NEAR(s.depth(), 0.05, 1e-15);
}

TEST(Ground, NothingBelowIsZero) {
  OneBody s({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0)),
             make_geom(GeomType::Box, Vec3(0.1, 0.2, 0.3), Vec3(0, 0, 0.5))},
            Vec3(0, 0, 0.2));
  EXPECT_EQ(s.depth(), 0.0);
  OneBody touching({make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0, 0, 0.1));
  EXPECT_EQ(touching.depth(), 0.0);
}

TEST(Ground, RotatedBox) {
  // A cube of half extent 0.1 standing on an edge: rotated 45° about x, its lowest edge is
  // 0.1·√2 below the centre. Body at z = 0.1, so depth = 0.1·(√2 − 1).
  const Vec4 q = quat_axis_angle(Vec3::UnitX(), M_PI / 4);
  OneBody edge({make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1))}, Vec3(0, 0, 0.1), q);
  EXPECT_NEAR(edge.depth(), 0.1 * (std::sqrt(2.0) - 1), 1e-14);
  // On a vertex: rotation taking (1,1,1)/√3 to −z; lowest point √3·0.1 below the centre. The
  // rotation is put on the geom (in the body frame) and the body is rotated back and forth.
  const Vec4 qv = quat_z_to(-Vec3(1, 1, 1).normalized());
  const Vec4 qg = quat_conj(qv);  // geom frame -> body: body z = -(1,1,1)/√3 in geom frame
  const Vec4 qb = quat_axis_angle(Vec3(0.3, -0.2, 0.9), 1.1);
  // Body rotated by qb; geom rotated by qb⁻¹ ⊗ qg in the body: geom -> world is qg.
  OneBody vertex({make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1), Vec3::Zero(),
                            quat_mul(quat_conj(qb), qg))},
                 Vec3(0, 0, 0.1), qb);
  EXPECT_NEAR(vertex.depth(), 0.1 * (std::sqrt(3.0) - 1), 1e-14);
  // Offset geom: the geom's position is rotated with the body.
  const Vec4 q90 = quat_axis_angle(Vec3::UnitX(), M_PI / 2);  // body y -> world z
  OneBody offset({make_geom(GeomType::Box, Vec3(0.05, 0.05, 0.05), Vec3(0, -0.5, 0))},
                 Vec3(0, 0, 0.3), q90);
  EXPECT_NEAR(offset.depth(), 0.25, 1e-14);  // centre at z = 0.3 − 0.5 = −0.2, bottom −0.25
}

TEST(Ground, Capsule) {
  // radius 0.05, half length 0.2 along geom z
  const Geom cap = make_geom(GeomType::Capsule, Vec3(0.05, 0.2, 0));
  OneBody upright({cap}, Vec3(0, 0, 0.2));
  EXPECT_NEAR(upright.depth(), 0.05, 1e-15);
  OneBody lying({cap}, Vec3(0, 0, 0.02), quat_axis_angle(Vec3::UnitY(), M_PI / 2));
  EXPECT_NEAR(lying.depth(), 0.03, 1e-15);
  const double a = 0.4;  // tilted by a: lowest point 0.2 cos a + 0.05 below the centre
  OneBody tilted({cap}, Vec3(1, 1, 0.1), quat_axis_angle(Vec3::UnitX(), a));
  EXPECT_NEAR(tilted.depth(), 0.2 * std::cos(a) + 0.05 - 0.1, 1e-15);
}

TEST(Ground, CylinderEllipsoidMesh) {
  const double a = 0.3;  // cylinder r 0.1, half length 0.2 tilted by a: rim point reaches
  OneBody cyl({make_geom(GeomType::Cylinder, Vec3(0.1, 0.2, 0))}, Vec3(0, 0, 0.1),
              quat_axis_angle(Vec3::UnitY(), a));
  EXPECT_NEAR(cyl.depth(), 0.2 * std::cos(a) + 0.1 * std::sin(a) - 0.1, 1e-15);
  // ellipsoid semi-axes (0.3, 0.2, 0.1) rotated 90° about x: the 0.2 axis points down
  OneBody ell({make_geom(GeomType::Ellipsoid, Vec3(0.3, 0.2, 0.1))}, Vec3(0, 0, 0.15),
              quat_axis_angle(Vec3::UnitX(), M_PI / 2));
  EXPECT_NEAR(ell.depth(), 0.05, 1e-15);
  // ellipsoid tilted by b about y: support |diag(a) d| with d = Rᵀ(−z)
  const double b = 0.7;
  OneBody ell2({make_geom(GeomType::Ellipsoid, Vec3(0.3, 0.2, 0.1))}, Vec3(0, 0, 0),
               quat_axis_angle(Vec3::UnitY(), b));
  EXPECT_NEAR(ell2.depth(), std::hypot(0.3 * std::sin(b), 0.1 * std::cos(b)), 1e-15);
  Geom mesh = make_geom(GeomType::Mesh, Vec3::Zero(), Vec3(0, 0, -0.1));
  mesh.vertices = {Vec3(0, 0, 0), Vec3(0.1, 0, -0.3), Vec3(0, 0.2, 0.1)};
  OneBody m({mesh}, Vec3(0, 0, 0.25));
  EXPECT_NEAR(m.depth(), 0.15, 1e-15);  // 0.25 − 0.1 − 0.3
}

TEST(Ground, IgnoresPlanesVisualGeomsAndEmptyMeshes) {
  Geom visual = make_geom(GeomType::Sphere, Vec3(1, 0, 0));
  visual.collision = false;
  Geom plane = make_geom(GeomType::Plane, Vec3(0, 0, 0));
  Geom empty = make_geom(GeomType::Mesh, Vec3::Zero());
  OneBody s({visual, plane, empty, make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))}, Vec3(0, 0, 0));
  EXPECT_NEAR(s.depth(), 0.1, 1e-15);
  EXPECT_EQ(geom_lowest_z(plane, Vec3::Zero(), quat_identity()),
            std::numeric_limits<double>::infinity());
}

TEST(Ground, DeepestOfSeveralBodiesAndNaN) {
  Model model;
  for (int i = 0; i < 3; ++i) {
    Body b;
    b.name = std::string(1, static_cast<char>('a' + i));
    b.geoms = {make_geom(GeomType::Sphere, Vec3(0.1, 0, 0))};
    model.add_body(b);
  }
  Data data(model);
  data.x = {Vec3(0, 0, 1), Vec3(0, 0, -0.2), Vec3(0, 0, 0.05)};
  EXPECT_NEAR(max_ground_penetration(model, data), 0.3, 1e-15);
  data.x[2].z() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(max_ground_penetration(model, data)));
}

// World planes are half-spaces at their own pose. A box of half extent 0.1 rotated like a plane
// tilted by a about y, its centre 0.07 from the plane along the normal: 0.03 inside it. The
// implicit ground adds its own depth only when on; contype/conaffinity and bodies kept apart from
// the world (excludes, welds) are honoured as the contact search honours them.
TEST(Ground, DepthBelowWorldPlanesAtTheirPose) {
  const double a = 0.5;
  const Vec4 tilt = quat_axis_angle(Vec3::UnitY(), a);
  const Vec3 n = quat_to_rot(tilt).col(2), p0(0.3, 0, 2);  // plane through p0, high above z = 0
  OneBody box({make_geom(GeomType::Box, Vec3(0.1, 0.1, 0.1))}, p0 + 0.07 * n, tilt);
  Geom plane = make_geom(GeomType::Plane, Vec3::Zero(), p0, tilt);
  box.model.world_geoms.push_back(plane);
  EXPECT_NEAR(max_world_penetration(box.model, *box.data, false), 0.03, 1e-14);
  EXPECT_NEAR(max_world_penetration(box.model, *box.data, true), 0.03, 1e-14);  // z = 0 is far below
  box.data->x[0] = Vec3(0, 0, 0.05);  // lower, and far below the plane (the box is turned like
                                       // the plane: its support along n is its half height)
  EXPECT_NEAR(max_world_penetration(box.model, *box.data, true), n.dot(p0) - (n.dot(box.data->x[0]) - 0.1), 1e-12);
  EXPECT_NEAR(max_world_penetration(box.model, *box.data, false),
              max_world_penetration(box.model, *box.data, true), 1e-15);
  box.data->x[0] = p0 + 0.07 * n;

  // a plane that does not collide with the box's geom (contype/conaffinity), or a visual plane
  box.model.world_geoms[0].contype = 2;
  box.model.world_geoms[0].conaffinity = 2;
  EXPECT_EQ(max_world_penetration(box.model, *box.data, false), 0.0);
  box.model.world_geoms[0].conaffinity = 1;  // box contype 1 & plane conaffinity 1: collides
  EXPECT_NEAR(max_world_penetration(box.model, *box.data, false), 0.03, 1e-14);
  box.model.world_geoms[0].collision = false;
  EXPECT_EQ(max_world_penetration(box.model, *box.data, false), 0.0);
  box.model.world_geoms[0] = plane;

  // a body excluded from the world, or welded into it, does not touch it
  box.model.contact_excludes.emplace_back(kWorld, 0);
  EXPECT_EQ(bodies_apart_from_world(box.model), std::vector<bool>{true});
  EXPECT_EQ(max_world_penetration(box.model, *box.data, false), 0.0);
  box.model.contact_excludes.clear();
  box.model.collision_filter = CollisionFilter::ParentChild;
  box.model.filtered_pairs.emplace_back(kWorld, 0);
  EXPECT_EQ(max_world_penetration(box.model, *box.data, false), 0.0);
  box.model.filtered_pairs.clear();
  box.model.collision_filter = CollisionFilter::AnyJoint;
  box.model.add_joint(make_joint(box.model, JointType::Fixed, kWorld, 0, box.model.bodies[0].x0));
  EXPECT_EQ(bodies_apart_from_world(box.model), std::vector<bool>{true});
  EXPECT_EQ(max_world_penetration(box.model, *box.data, false), 0.0);
}

}  // namespace
}  // namespace maxsim
