// The world's solid surfaces as a diagnostic: how deep the collision geometry of a state reaches
// into them. The `maxsim` command reports it as `penetration.max` / `max_penetration`, whether or
// not contacts hold the bodies out; it measures against the same world the contact search sees.
#pragma once

#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Lowest value of n·p over the points p of one geom of a body at pose (x, q), for a unit world
// direction n — the geom's exact support point in direction −n: sphere, box, capsule, cylinder,
// ellipsoid, mesh (its vertices, i.e. the convex hull). Planes are unbounded and return
// +infinity; so does a mesh without vertices.
double geom_lowest_along(const Geom& geom, const Vec3& body_x, const Vec4& body_q, const Vec3& n);

// Lowest point (world z) of one geom: geom_lowest_along with n = +z.
double geom_lowest_z(const Geom& geom, const Vec3& body_x, const Vec4& body_q);

// Lowest point (world z) of all collision geoms of all bodies (planes and world geoms ignored):
// +infinity when there are none, NaN when a pose is NaN. Used to stand a robot on the ground.
double lowest_collision_z(const Model& model, const Data& data);

// Depth of the deepest point of any collision geom (Geom::collision) of any body below the plane
// z = 0: max(0, −min z). Planes (and the world's own geoms) are ignored; 0 when nothing is below;
// NaN when a pose is NaN. This is the implicit ground alone (lifting a robot onto it).
double max_ground_penetration(const Model& model, const Data& data);

// Per body: true when it never touches the world (the ground and the world geoms), because it is
// welded into the world (Model::collision_filter: AnyJoint — a chain of Fixed joints from the
// world; ParentChild — a (kWorld, b) pair of Model::filtered_pairs) or excluded from it
// (Model::contact_excludes with kWorld). The contact search and max_world_penetration share it.
std::vector<bool> bodies_apart_from_world(const Model& model);

// Depth of the deepest point of any body's collision geometry inside the world the contacts see:
// below every colliding world plane (Model::world_geoms of type Plane with collision on, each
// the infinite half-space under it at its own pose, as in MuJoCo), checking the MJCF
// contype/conaffinity rule against each body geom, and below z = 0 when `ground` is on (the
// implicit ground half-space, contype = conaffinity = 1). Bodies apart from the world are
// skipped; static world geoms other than planes are not measured. 0 when nothing is inside, NaN
// when a pose is NaN.
double max_world_penetration(const Model& model, const Data& data, bool ground);

// The same measure with its model-constant part computed once, for callers that measure every
// step: the world's planes (and the ground) and the bodies apart from the world.
struct WorldSurfaces {
  // A plane of the world (or the ground) that bounds a solid half-space.
  struct Plane {
    Vec3 p0, n;  // a point of the plane and its normal (out of the solid)
    int contype, conaffinity;  // its collision filter bits
  };
  std::vector<Plane> planes;  // the world's planes, and the ground when it is on
  std::vector<bool> apart;  // per body: bodies_apart_from_world
};
// The model-constant part, computed once.
WorldSurfaces world_surfaces(const Model& model, bool ground);
// max_world_penetration above, with that part given.
double max_world_penetration(const Model& model, const Data& data, const WorldSurfaces& world);

}  // namespace maxsim
