// The shapes a Geom can have (sim/model.hpp), one table per GeomType: what the contact search,
// the ground measure (sim/geometry/ground.hpp) and the loaders' inertia from geoms need to know of a shape,
// each written once. A new shape is a new table (and its entries in the collision tables,
// sim/geometry/narrow_phase.hpp); nothing else switches on the shape.
//
// Sizes follow Geom::size: sphere (r), box (half extents), capsule and cylinder (radius, half
// length along the geom's z), ellipsoid (semi-axes), mesh (Geom::vertices, their convex hull for
// the geometric functions, the closed triangle mesh for the mass), plane (the solid half-space
// below the geom's xy plane, unbounded), height field (static world geometry whose heights are
// the Model's: unbounded and massless here, as the plane).
#pragma once

#include <vector>

#include "sim/model.hpp"

namespace maxsim {

// Volume and unit-density inertia (about the centroid, in the geom frame) of a solid geom, as
// MuJoCo's compiler computes them for inertia from geoms: sphere, capsule (cylinder + two
// hemispheres), box, cylinder, ellipsoid, and meshes: the exact solid of a closed (watertight:
// every edge in exactly two triangles) triangle mesh by the divergence theorem; an open or
// degenerate mesh falls back to its axis-aligned bounding box. A plane has no volume (all zero).
struct SolidProps {
  double volume = 0;
  Vec3 centroid = Vec3::Zero();      // in the geom frame
  Mat3 unit_inertia = Mat3::Zero();  // inertia about the centroid for density 1, geom frame
  bool mesh_fallback = false;        // mesh: bounding box used
};

// One shape's functions. All take the geom (its size, and a mesh's vertices) and work in the
// geom frame; none of them reads the geom's pose in its body.
struct Shape {
  GeomType type;
  // false for the plane: unbounded, so the functions below answer +infinity or nothing for it
  bool bounded;
  // A point of the shape farthest along u (its support point; u need not be unit length). For
  // u = 0, or a mesh without vertices, some point of the shape (the origin).
  Vec3 (*support)(const Geom& geom, const Vec3& u);
  // Radius of a ball about the geom frame's origin that holds the shape (+infinity: plane).
  double (*bounding_radius)(const Geom& geom);
  // Lowest value of n·p over the shape's points p, for a unit direction n given as its
  // components r in the geom frame and the value cn = n·(geom origin): exact closed forms.
  // Plane and a mesh without vertices: +infinity.
  double (*lowest_along)(const Geom& geom, double cn, const Vec3& r);
  // Mass properties for density 1 (SolidProps above).
  SolidProps (*solid)(const Geom& geom);
};

// The table of a shape.
const Shape& shape_of(GeomType type);

// The ellipsoid's support point D² u / |D u| (D = diag(semi_axes)); the centre for u = 0.
Vec3 ellipsoid_support(const Vec3& semi_axes, const Vec3& u);

// Mesh solid (vertices, triangles) with the bounding-box fallback of SolidProps.
SolidProps mesh_solid_props(const std::vector<Vec3>& vertices,
                            const std::vector<Eigen::Vector3i>& faces);

}  // namespace maxsim
