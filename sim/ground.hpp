// The ground half-space z >= 0 as a diagnostic: how deep the collision geometry of a state reaches
// below it. Until contacts exist (DESIGN §5) nothing keeps bodies above the ground; this measure
// shows it honestly (the `maxsim` command reports it as `penetration.max` / `max_penetration`).
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Lowest point (world z) of one geom of a body at pose (x, q) — its exact support point in the
// direction −z: sphere, box, capsule, cylinder, ellipsoid, mesh (its vertices, i.e. the convex
// hull). Planes are unbounded and return +infinity; so does a mesh without vertices.
double geom_lowest_z(const Geom& geom, const Vec3& body_x, const Vec4& body_q);

// Lowest point (world z) of all collision geoms of all bodies (planes and world geoms ignored):
// +infinity when there are none, NaN when a pose is NaN. Used to stand a robot on the ground.
double lowest_collision_z(const Model& model, const Data& data);

// Depth of the deepest point of any collision geom (Geom::collision) of any body below the plane
// z = 0: max(0, −min z). Planes (and the world's own geoms) are ignored; 0 when nothing is below;
// NaN when a pose is NaN.
double max_ground_penetration(const Model& model, const Data& data);

}  // namespace maxsim
