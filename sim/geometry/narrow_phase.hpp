// Inside the contact candidate search (sim/geometry/collision.hpp, whose contract this implements): the
// collision geoms, the per-shape collision table and the pair table that picks the narrow phase
// of two shapes, as MuJoCo's mjCOLLISIONFUNC. The files of the search:
//   collision_world.cpp  the world: geoms, filtering, broad phase, merging and emitting points
//   collision_table.cpp  per shape: Bullet core, bounds, feature points; the two tables
//   collide_plane.cpp    a plane (or the ground) against each shape, closed forms
//   collide_rounded.cpp  sphere and capsule pairs, a ball or capsule against a shape: closed forms
//   collide_convex.cpp   everything else: GJK/EPA, SAT and face clipping, feature points
//   collide_hfield.cpp   a height field against each shape: its cells' prisms as small meshes
// Internal: nothing outside sim/geometry includes this header.
#pragma once

#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>

#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "sim/geometry/collision.hpp"
#include "sim/model.hpp"

namespace maxsim::collision {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kRimPoints = 8;              // sample points per cylinder rim circle
constexpr double kTieTolerance = 1e-7;     // [m] a feature this close to the core point replaces it
constexpr double kMergeDistance = 1e-6;    // [m] coincident points of one pair are merged
constexpr double kFaceTolerance = 1e-6;    // [m] face axis "as good as" the GJK/EPA distance
constexpr double kTouching = 1e-9;         // [m] core distance below which GJK's normal is unreliable
constexpr double kGapTolerance = 1e-9;     // [m] GJK's distance minus its certified lower bound
// A capsule end sphere stands for its end while the contact direction t satisfies t·axis >= this
// (axis outward at that end): up to 11.5° past the cap's rim, where the ball's point is at most
// r (1 − cos 11.5°) = 0.02 r inside the capsule. A ball keeps a lying capsule's contacts exact
// while it rolls (core + radius); beyond, the end circle's point is used (always on the surface).
constexpr double kCapSlack = -0.2;

inline btVector3 to_bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
inline Vec3 to_eigen(const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); }
inline btTransform to_bt(const Mat3& R, const Vec3& p) {
  const btMatrix3x3 m(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1),
                      R(2, 2));
  return btTransform(m, to_bt(p));
}

// The plain part of a collision geom (copied as it is).
struct CGeomData {
  int body = kWorld;   // kWorld: a static world geom
  int index = 0;       // in its body's geoms or in model.world_geoms
  GeomType type = GeomType::Sphere;
  Vec3 pos = Vec3::Zero();    // geom frame in the body frame (world for world geoms)
  Mat3 rot = Mat3::Identity();
  Vec3 size = Vec3::Zero();
  double margin = 0, friction = 0, restitution = 0;
  int contype = 1, conaffinity = 1;
  int condim = 3, priority = 0;  // (Geom's)
  double torsion = 0;            // Geom::torsional_friction
  double radius = 0;  // rounding radius around the core (sphere, capsule)
  std::vector<Vec3> verts;                    // box corners, mesh hull vertices (geom frame)
  Vec3 local_center = Vec3::Zero(), local_half = Vec3::Zero();  // mesh, hfield AABB (geom frame)
  // height field (size = (radius x, radius y, elevation z)): grid, elevations in metres
  // (HeightField::data · size(2), row-major, row 0 at -y) and the base depth below z = 0
  int nrow = 0, ncol = 0;
  std::vector<double> heights;
  double base = 0;
  // per call
  Vec3 wpos = Vec3::Zero();
  Mat3 wrot = Mat3::Identity();
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();  // AABB enlarged by the search margin
  btTransform tf = btTransform::getIdentity();
};

// A collision geom with its Bullet objects; a copy builds its own (Bullet objects are never
// shared between two worlds, which may run on two threads).
struct CGeom : CGeomData {
  std::unique_ptr<btConvexShape> shape;       // the core (radius excluded)
  std::unique_ptr<btConvexPolyhedron> poly;   // box, mesh: faces for clipping

  CGeom() = default;
  CGeom(const CGeom& other);
  CGeom(CGeom&&) noexcept = default;
  CGeom& operator=(const CGeom& other) { return *this = CGeom(other); }
  CGeom& operator=(CGeom&&) noexcept = default;
};

struct CPlane {
  int index = -1;  // -1: the ground half-space
  Vec3 p0 = Vec3::Zero(), n = Vec3::UnitZ();
  double margin = 0, friction = 0, restitution = 0;
  int contype = 1, conaffinity = 1;
  int condim = 3, priority = 0;  // (Geom's; the ground: 3, 0)
  double torsion = 0.005;        // Geom::torsional_friction
};

struct PairPoint {  // world frame
  Vec3 pa, pb, n;
  double ra, rb, d;
};

struct Feature {
  Vec3 p;     // point (world)
  double r;   // radius around it (capsule end spheres)
  Vec3 axis;  // capsule end: outward axis direction
};

// A point core (radius added analytically), one per world: never shared.
struct PointCore {
  btSphereShape shape{0.0};
  PointCore() = default;
  PointCore(const PointCore&) : PointCore() {}
  PointCore& operator=(const PointCore&) { return *this; }
};

// The narrow phase's output and scratch, reused every call (no allocation once warm).
struct NarrowPhase {
  std::vector<PairPoint> pts;  // the pair's points, in generation order
  // set by a pair function that found the pair beyond its threshold: the distance it measured
  // (an upper bound of the true one: GJK's witnesses); −∞ otherwise
  double separation = -std::numeric_limits<double>::infinity();
  CGeom prism;                 // a height field's cell prism (make_prism), one cell at a time
  std::vector<PairPoint> field_pts;  // a height field pair's points over its prisms
  std::vector<Feature> features;
  std::vector<std::pair<Vec3, double>> clip_points;
  btVertexArray clip_v1, clip_v2;
  std::vector<Vec3> world_verts_a, world_verts_b;
  PointCore point;
};

// ---- the per-shape collision table ------------------------------------------------------------
struct ShapeCollision {
  // The geom's core (Bullet shape without the radius), radius, faces and vertices from its
  // description; false (and nothing set) when it cannot collide (a mesh without vertices).
  bool (*build)(const Geom& src, CGeom* g);
  // A new core equal to g's (built the same way from the same numbers).
  std::unique_ptr<btConvexShape> (*copy_core)(const CGeom& g);
  // AABB of the placed geom (wpos, wrot set): centre (given as wpos) and world half extents.
  void (*bounds)(const CGeom& g, Vec3* centre, Vec3* half);
  // Contact points against a plane, appended to np.pts when closer than thr.
  void (*against_plane)(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np);
  // Feature points of g tested against another geom o (capsule ends, cylinder rims, vertices
  // against a shape that asks for them); `toward` points from g to o.
  void (*features)(const CGeom& g, const CGeom& o, const Vec3& toward, std::vector<Feature>* out);
  // Closest surface point c of g to the point p and the outward unit normal m there, in closed
  // form; a point inside leaves through the nearest face. `fallback`: m when p lies on g's core.
  // nullptr: no closed form (GJK answers).
  void (*closest_surface)(const CGeom& g, const Vec3& p, const Vec3& fallback, Vec3* c, Vec3* m);
  bool rounded;          // sphere, capsule: a segment core and a radius
  bool polyhedral;       // box, mesh: faces for SAT and clipping (a mesh when its hull has them)
  bool vertices_probe;   // the vertices of a box or mesh are tested against it (cylinder)
};
const ShapeCollision& collision_shape(GeomType type);

// The narrow phase of two body or static world geoms: appends their points to np.pts.
using PairFunction = void (*)(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);
PairFunction pair_function(GeomType a, GeomType b);

// A six-vertex mesh (a triangular prism) for set_prism to reshape without allocating.
void make_prism(CGeom* prism);
// Reshapes the prism: top triangle `top` (geom frame), its vertical sides down to z = -base.
void set_prism(CGeom* prism, const Vec3* top, double base);

// ---- shared by the pair functions -------------------------------------------------------------
// The capsule's segment, or the sphere's centre twice (world).
void segment(const CGeom& g, Vec3* a, Vec3* b);
// Unit direction between the geoms' centres (A -> B), +z if they coincide.
Vec3 fallback_direction(const CGeom& a, const CGeom& b);
// The ball (p, rho) against g's closed form (closest_surface): the pair point, A -> B normal.
bool point_query(const CGeom& g, const Vec3& p, double rho, bool ball_is_a, const Vec3& fallback,
                 PairPoint* out);
// GJK/EPA on two cores (A: shape sa at ta, B: shape sb at tb), radii added. Returns false only
// if Bullet fails outright (then nothing is reported for the pair).
bool core_query(const btConvexShape* sa, const btTransform& ta, double ra, const btConvexShape* sb,
                const btTransform& tb, double rb, const Vec3& fallback, PairPoint* out);
// Feature points of S against O (ShapeCollision::features), each queried against O and kept
// when closer than thr. s_is_a: S is the pair's A.
void feature_points(const CGeom& s, const CGeom& o, const PairPoint& core, bool s_is_a, double thr,
                    NarrowPhase& np);
// Puts the core point first unless a feature point is as close.
void add_core(const PairPoint& core, NarrowPhase& np);
// The end of a pair with a closest-point pair `core`: beyond thr, its separation (the search's
// cache of pairs apart); else the feature points of both sides and the core (add_core).
void core_and_features(const CGeom& a, const CGeom& b, const PairPoint& core, double thr, NarrowPhase& np);

// Rim points of a cylinder: 8 per circle, the first at the circle's exact support point in
// direction `toward` (or along the geom's x axis when the circle faces it squarely).
template <class F>
void rim_points(const CGeom& g, const Vec3& toward, F&& f) {
  const Vec3 a = g.wrot.col(2);
  Vec3 u = toward - toward.dot(a) * a;
  const double len = u.norm();
  u = len > 1e-12 ? Vec3(u / len) : Vec3(g.wrot.col(0));
  const Vec3 v = a.cross(u);
  const double r = g.size.x(), hl = g.size.y();
  for (int side = -1; side <= 1; side += 2) {
    const Vec3 cc = g.wpos + side * hl * a;
    for (int k = 0; k < kRimPoints; ++k) {
      const double th = 2 * M_PI * k / kRimPoints;
      f(Vec3(cc + r * (std::cos(th) * u + std::sin(th) * v)));
    }
  }
}

// The pair functions (the pair table's entries).
void collide_rounded(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);   // sphere/capsule pairs
void collide_ball_shape(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);  // sphere a, closed-form b
void collide_shape_ball(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);  // closed-form a, sphere b
void collide_capsule_shape(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);  // capsule a, box/cylinder b
void collide_shape_capsule(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);  // box/cylinder a, capsule b
void collide_polyhedra(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);  // box/mesh pairs
void collide_convex(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);     // any other pair
void collide_hfield(const CGeom& a, const CGeom& b, double thr, NarrowPhase& np);     // height field a, any b

// The plane functions (the per-shape table's against_plane).
void plane_sphere(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np);
void plane_capsule(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np);
void plane_vertices(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np);
void plane_cylinder(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np);
void plane_ellipsoid(const CPlane& p, const CGeom& g, double thr, NarrowPhase& np);

// The closed forms (the per-shape table's closest_surface).
void closest_on_rounded(const CGeom& g, const Vec3& p, const Vec3& fallback, Vec3* c, Vec3* m);
void closest_on_box(const CGeom& g, const Vec3& p, const Vec3& fallback, Vec3* c, Vec3* m);
void closest_on_cylinder(const CGeom& g, const Vec3& p, const Vec3& fallback, Vec3* c, Vec3* m);

}  // namespace maxsim::collision
