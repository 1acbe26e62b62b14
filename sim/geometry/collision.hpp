// Contact candidate search (collision detection) for the contact solver. The implementation is
// in sim/geometry/ (narrow_phase.hpp lists its files: one per kind of pair).
//
// A CollisionWorld is built once per Model and then asked, at given body poses, for every pair
// of surface points closer than a threshold. Each candidate carries its witness points in the two
// *body* frames (origin = CoM, sim/model.hpp) and one world normal n from A to B, so the solver
// can evaluate the gap at any later configuration z exactly:
//
//     φ(z) = nᵀ( pB(z) − pA(z) ),   pX(z) = x_X + R(q_X) point_X      (kWorld: pA = point_a)
//
// and at the searched configuration φ = distance (to rounding; tested to 1e-9). For rounded
// features (spheres, capsule ends) the candidate also gives the body-fixed core point (sphere
// centre, capsule segment point) and the radius: φ(z) = nᵀ(cB(z) − cA(z)) − radius_a − radius_b
// is the same number at the searched configuration and stays exact while a ball rolls.
//
// Geometry (Geom of sim/model.hpp; only geoms with collision == true):
//   sphere, box, capsule (segment along geom z, size = (radius, half length)), cylinder (axis geom
//   z, size = (radius, half length)), ellipsoid (semi-axes, exact support function), convex mesh
//   (convex hull of Geom::vertices), world planes (GeomType::Plane in Model::world_geoms: the
//   solid half-space below the plane through the geom origin with normal = geom z; infinite, as
//   in MuJoCo, whatever its size), and the ground (options.ground): the solid half-space below
//   z = 0, normal +z, so bodies belong in z >= 0. Planes attached to moving bodies are ignored.
//   World geoms that are not planes are static obstacles. Meshes without vertices are ignored.
//   Height fields (GeomType::HField, Model::hfields) are world geoms: the union of each cell's
//   two triangular prisms (top triangle, vertical sides, bottom at the base), each prism under
//   the other shape's bounding box collided as a six-vertex mesh (below); a prism point on an
//   edge or wall the field does not have (a coplanar neighbour's edge, an inner wall) is
//   dropped. Height fields on moving bodies are ignored; they never meet planes or each other.
//
// Pairs and filtering (a pair is searched only if all hold):
//   * not two geoms of the same body, not two world geoms;
//   * not two bodies the model's joint filter removes (Model::collision_filter; switched off by
//     options.exclude_joined = false, except for bodies welded into the world):
//     - AnyJoint (URDF, models built in code): bodies joined by a joint (any joint type, loop-
//       closing joints included), directly or through a chain of joints whose intermediate bodies
//       have no collision geoms. Bodies welded to the world by Fixed joints never touch the ground
//       or world geoms; a body joined to the world by any other joint does (a floating base must);
//     - ParentChild (MJCF): the pairs of Model::filtered_pairs — MuJoCo's rule: a body and its
//       parent in the file's kinematic tree (an MJCF body with several joints is one body there:
//       its chain of geom-less virtual bodies is seen through), never the world; bodies joined
//       only by an <equality> collide;
//   * not in Model::contact_excludes (a pair with kWorld excludes the ground and all world geoms);
//   * MJCF rule: (contype_a & conaffinity_b) || (contype_b & conaffinity_a); the ground half-space
//     has contype = conaffinity = 1.
//   Explicit pairs (Model::contact_pairs, MJCF <contact><pair>) are searched whatever these
//   rules say (two geoms of one body excepted), in place of the dynamic search of their two geoms,
//   with the pair's margin (else the geoms') and friction (else the geoms'; 0 for condim 1).
//   Model::dynamic_contacts = false leaves the pairs alone (MJCF collision="predefined").
//
// Contact points (exact for the primitives; GJK/EPA accuracy, ~1e-12 m, for ellipsoids/meshes):
//   plane vs primitive — closed form, deterministic:
//     sphere 1 point; capsule its 2 end balls (see below); box its 8 corners; cylinder 8 points on each rim
//     circle, the first at the exact deepest point of that circle (a tilted cylinder gets its
//     exact lowest point and, within the threshold, its rim neighbours 45° away; an upright one 8
//     bottom rim points); ellipsoid its exact support point; mesh its hull vertices.
//     Each point is kept if its distance < threshold.
//   body vs body (and vs static world geoms):
//     closed form where it is cheap and exact: sphere/capsule pairs (segment–segment), a
//     point or ball against a sphere, capsule, box or cylinder (nearest-face rule inside, so a
//     point lying exactly on a face gets that face's normal), and a capsule against a box or
//     cylinder (the segment's point of least signed distance, by bisection on its slope — the
//     signed distance to a convex shape is convex along the segment; a segment reaching into the
//     shape goes to GJK/EPA); everything else with Bullet's
//     GJK/EPA (btGjkEpaSolver2) on the shapes' cores (sphere: its centre, capsule: its segment),
//     radii added analytically. If the cores touch (|distance| < 1e-9, no GJK direction) the
//     normal is taken 1 µm apart along the centre line and the witness shifted back.
//     Several points per pair:
//     * box/mesh vs box/mesh: if a face separation axis (SAT over both hulls' faces) is as good as
//       the GJK/EPA distance (within 1 µm), that reference face is clipped against the other
//       hull's most anti-parallel face (btPolyhedralContactClipping, Sutherland–Hodgman), giving
//       the contact polygon: a box face-down on a larger box gives its 4 bottom corners, two equal
//       boxes turned 45° the 8 corners of their octagon, a box on an edge 2 points. The normal is
//       the exact reference-face normal. Otherwise (edge–edge) the single GJK/EPA point.
//     * pairs with a capsule or cylinder: the closest-point pair plus "feature" points — capsule
//       end balls, cylinder rim
//       points (as for planes, aimed at the other shape) and, against a cylinder, box/mesh
//       vertices — each tested against the other shape; the closest-point pair is dropped when a
//       feature is as close (within 0.1 µm). A capsule lying on a box gives its 2 ends, a cylinder
//       standing on a box its 8 bottom rim points, a box on a cylinder's cap its 4 corners.
//     * sphere vs anything, ellipsoid vs a non-cylinder: one point.
//   Points of one pair closer than 1 µm (with the same normal) are merged; a pair gives at most
//   kMaxPairPoints points (the deepest, then repeatedly the one farthest from those kept).
//   Capsule ends (planes and bodies alike) are balls (core = end centre, radius r) while the
//   contact direction is within 11.5° past the end cap's rim, so a lying capsule's two contacts
//   stay exact while it rolls; beyond that (tilted ends, deep overlaps) the end circle's point
//   toward the other shape is used (radius 0). Every witness point lies on its geom's surface
//   (tested with exact signed distance functions), except such an end ball's point, which may be
//   up to 0.02 r inside the capsule (it is on the ball, which the capsule contains).
//
// Threshold: a point is a candidate when distance < options.margin + max(margin_a, margin_b)
// (MuJoCo combines geom margins with max; the ground's margin is 0).
// Friction and restitution: combined with max (MuJoCo's rule for friction; Bullet multiplies) —
// a geom with friction (restitution) < 0 uses options.default_friction (default_restitution); so
// does the ground. max keeps a rubber foot grippy on a default floor and lets one bouncy ball
// bounce on a restitution-0 floor. MuJoCo's priority and condim (Geom::priority, condim): when
// the two priorities differ, the higher one's friction (sliding and torsional) and condim are the
// contact's; otherwise each coefficient is the max and condim the larger. condim 1 makes the
// contact frictionless, 4 and 6 give it torsional friction (ContactCandidate::torsion).
//
// Poses: quaternions are normalized before use; a non-finite pose throws std::invalid_argument
// (never a NaN contact).
//
// Order and cost: candidates are sorted by (body_a, body_b, geom_a, geom_b), then by point within
// the pair (in a fixed generation order) — the output is a deterministic function of the poses
// (a fresh CollisionWorld gives the same answer). Broad phase: sweep and prune over geom AABBs on
// the axis of largest spread (insertion sort from the previous call's order: O(n) for coherent
// motion), O(n + overlapping pairs); plane tests O(geoms × planes) with an AABB reject. A pair
// whose narrow phase (GJK for convex and polyhedral pairs, a bisection along the segment for a
// capsule against a box or cylinder) last found it beyond its threshold is not
// queried again while that distance, less how far either geom can have moved since (its frame's
// shift plus its rotation's change times its reach) and 0.1 mm, stays beyond the threshold: the
// query would find it beyond again, so the answer is the same (worlds of at most 256 geoms).
// After the first call with a given number of candidates nothing is allocated (pass the same
// `out` vector every call; tested with counting allocators, Bullet's included). Not thread safe:
// one CollisionWorld per thread (cheap to build; Bullet shapes are created in the constructor). A
// copy has Bullet objects of its own, built the same way, and the original's state (margin,
// broad-phase order): it answers every later search exactly as the original would.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "sim/model.hpp"

namespace maxsim {

// One contact candidate between body a (or the world/ground, kWorld) and body b.
struct ContactCandidate {
  int body_a = kWorld;   // kWorld for the ground half-space and world geoms
  int body_b = 0;        // the other body
  int geom_a = -1, geom_b = -1;  // geom index in its body (or in model.world_geoms; -1: ground)
  Vec3 point_a = Vec3::Zero();   // witness point on A in A's body frame (world if body_a == kWorld)
  Vec3 point_b = Vec3::Zero();   // witness point on B in B's body frame
  Vec3 normal = Vec3::UnitZ();   // world unit normal pointing from A to B
  double distance = 0;   // signed distance at the configuration searched (negative = penetration):
                         // distance = nᵀ(world(point_b) − world(point_a))
  double friction = 0;   // combined coefficient: max of the two geoms' (MuJoCo's rule)
  // torsional friction [m]: the combined coefficient when the contact's dimensionality (the
  // geoms' larger condim, or the higher priority's, or the pair's) is 4 or 6; else 0
  double torsion = 0;
  double restitution = 0;  // combined: max of the two geoms'
  // Rounded features: core = witness point moved inward by the radius along the normal (body
  // frames like the points). distance = nᵀ(world(core_b) − world(core_a)) − radius_a − radius_b.
  // For non-rounded features core == point and radius == 0.
  Vec3 core_a = Vec3::Zero(), core_b = Vec3::Zero();
  double radius_a = 0, radius_b = 0;  // the features' radii (0: not rounded)
  // the geoms' part of the threshold it was found within (the pair's margin, else the larger of
  // the geoms'): distance < CollisionOptions::margin + margin
  double margin = 0;
};

// Settings of a CollisionWorld.
struct CollisionOptions {
  bool ground = true;           // solid below z = 0, normal +z (bodies belong in z >= 0)
  double margin = 0.01;         // [m] search margin added to the geoms' margins
  double default_friction = 0.8;   // for geoms whose friction is < 0
  double default_restitution = 0;  // for geoms whose restitution is < 0
  bool exclude_joined = true;   // the model's joint filter applies (see above)
};

// At most this many points per geom pair: four span any flat patch (a box face, a hull face, a
// cylinder side); more only add redundant rows that slow the interior point down.
constexpr int kMaxPairPoints = 4;

// The contact candidate search of one Model; owns Bullet objects, built once per Model.
class CollisionWorld {
 public:
  CollisionWorld(const Model& model, const CollisionOptions& options);  // over the model's geoms
  ~CollisionWorld();
  CollisionWorld(const CollisionWorld& other);  // Bullet objects of its own (see above)
  CollisionWorld& operator=(const CollisionWorld& other);  // Bullet objects of its own
  CollisionWorld(CollisionWorld&&) noexcept;             // takes the other's objects
  CollisionWorld& operator=(CollisionWorld&&) noexcept;  // takes the other's objects

  // Candidates at the given body poses (x: CoM positions, q: orientations body -> world, one per
  // body), all pairs within the threshold. `out` is cleared first; its capacity is reused.
  void find_candidates(const std::vector<Vec3>& x, const std::vector<Vec4>& q,
                       std::vector<ContactCandidate>* out);

  const CollisionOptions& options() const;  // its settings (the margin as last set)
  // Changes the search margin for the following searches (CollisionOptions::margin); the
  // collide stage adapts it to the bodies' speeds every step (see ContactOptions).
  void set_margin(double margin);
  // Whether geoms of bodies a and b may touch at all (joints, excludes; kWorld = world/ground).
  bool bodies_may_collide(int a, int b) const;
  // The bodies (kWorld: the world, its geoms or the ground) of the first geom pair that the
  // searches can ever test, whatever the pose — explicit pairs, then bodies against planes, then
  // geom pairs, with every filter above; {-2, -2} when no two geoms can ever touch.
  std::pair<int, int> first_possible_pair() const;
  int num_geoms() const;  // collision geoms of bodies + static world geoms (planes excluded)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace maxsim
