// Rays against the model's geometry (MuJoCo's mj_ray): the rangefinder sensor's
// measurement.
#pragma once

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The distance from `origin` along `direction` (normalized here; a zero direction hits nothing) to
// the nearest surface at the Data's pose — the world's geoms and every body's but `exclude_body`'s
// (kWorld: none excluded), visual ones too but not invisible ones (rgba alpha 0), as MuJoCo's
// mj_ray — or -1 when the ray hits nothing. A ray that
// starts inside a closed shape hits its far side; planes are one-sided (hit from above); meshes
// are their triangles, height fields their grid's.
double ray_distance(const Model& model, const Data& data, const Vec3& origin, const Vec3& direction, int exclude_body);

// The distance along a ray given in a geom's own frame (direction need not be unit: the result is
// in its units) to the geom's surface, or -1 (what ray_distance tests for each geom).
double ray_geom(const Model& model, const Geom& geom, const Vec3& origin, const Vec3& direction);

}  // namespace maxsim
