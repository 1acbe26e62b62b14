// Mass properties: combining rigid parts exactly (fixed-joint merging, MJCF welded bodies,
// inertia from geoms) and the inertia checks both loaders apply with file and line.
#pragma once

#include <string>
#include <vector>

#include "models/load.hpp"
#include "sim/geometry/shape.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Mass, centre of mass and inertia about the centre of mass, all in one reference frame.
struct MassProps {
  double mass = 0;
  Vec3 com = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

// `a` given in a frame F placed at (p, q) in a frame G: the same properties in G.
MassProps transform_mass(const MassProps& a, const Vec3& p, const Vec4& q);
// Exact sum of two parts given in the same frame (parallel-axis theorem).
MassProps combine_mass(const MassProps& a, const MassProps& b);

// Principal moments `diag` in a frame rotated by q: J = R diag Rᵀ.
Mat3 rotate_inertia(const Vec3& diag, const Vec4& q);
Mat3 rotate_inertia(const Mat3& inertia, const Vec4& q);

// "" when (mass, inertia) can be simulated (mass > 0, inertia symmetric positive definite) and,
// with `triangle`, is a rigid body's (principal moments satisfying the triangle inequality, with a
// relative tolerance of 1e-9), otherwise what is wrong.
std::string check_mass_inertia(double mass, const Mat3& inertia, bool triangle = true);
// "" when the principal moments of a positive definite inertia satisfy the triangle inequality,
// otherwise the message; such a tensor is no rigid body's but simulates as written (the loaders
// warn and load it).
std::string triangle_inequality_violation(const Mat3& inertia);

// "" when a positive mass lies in [limits.mass_min, limits.mass_max], or when every principal
// moment of a (symmetric) inertia lies in [limits.inertia_min, limits.inertia_max]; otherwise
// what is out of range and how to allow it.
std::string check_mass_range(double mass, const LoadLimits& limits);
std::string check_inertia_range(const Mat3& inertia, const LoadLimits& limits);

// Raises each body's mass and principal moments of inertia to `ratio` times the largest armature
// (reflected rotor inertia, Joint::armature) on a sliding (kg) or turning (kg·m²) free row of a
// joint the body is parent or child of; principal axes are kept, and a body at or above its
// floors keeps its mass and tensor bit for bit. A rotor of 0.75 kg·m² on a link of 1e-13 kg·m²
// (gym's thrower) puts 1e13 between the Newton matrix's pivots and the link's rows at a round-off
// floor the convergence test cannot reach; at the loaders' ratio (1e-8,
// LoadOptions::armature_inertia_floor) a raised moment is 1e-8 of the rotor it sits under, so the
// joint-space inertia changes by about that fraction. Returns the number of bodies raised;
// ratio ≤ 0 changes nothing.
int bound_inertia_by_armature(Model* model, double ratio);
// The loaders' last step: bound_inertia_by_armature at options.armature_inertia_floor, with an
// entry in report->sources when a body was raised; a ratio outside [0, 1e-3] is a LoadError.
void apply_inertia_floor(const std::string& path, const LoadOptions& options, Model* model, LoadReport* report);

// Volume and unit-density inertia of a solid geom (SolidProps, sim/geometry/shape.hpp: MuJoCo's
// compiler's formulas; meshes by the divergence theorem or their bounding box). Plane: LoadError
// in the caller (not a solid).
SolidProps solid_props(const Geom& geom);

}  // namespace maxsim
