// Entry point of the description loaders: URDF (.urdf) and MJCF (.xml, .mjcf).
//
// What the loaders produce (the engine relies on it):
//  * one Body per rigid body: frame origin at the centre of mass, orientation of the URDF link /
//    MJCF body frame; x0, q0 = the pose at the zero configuration (URDF: all joint coordinates 0;
//    MJCF: the pose the file describes, qpos0); link_origin = link/body origin in the body frame;
//    geoms relative to the body frame. Body names are the link/body names; links merged by fixed
//    joints (URDF) or welded MJCF bodies take the name of the body they are merged into
//    (LoadReport::merged lists them).
//  * joints through make_joint (joint frame z = axis). Single-coordinate joints use row 5
//    (revolute/hinge) or row 2 (prismatic/slide); limits, effort, velocity, damping, friction,
//    stiffness, spring reference and armature go into that row.
//  * Floating joints whose parent is the world have parent anchor 0, identity frames and child
//    anchor = body.link_origin, so their coordinates are MuJoCo's free-joint qpos (origin
//    position, orientation quaternion). MJCF ball joints use the child body frame as joint frame
//    (their coordinates are MuJoCo's ball qpos), as do URDF ball / spherical / fixedorientation
//    joints (the URDF joint frame).
//  * A joint without a name is called "<child body>_joint".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/model.hpp"

namespace maxsim {

// Bounds on what a description may ask of the loader (README "Limits and hostile input"). The
// defaults are far above any real robot; a file beyond them is refused with a LoadError naming the
// element (and the option that raises the bound) before it costs more than a little time and
// memory. Counts are of the file as written, MJCF <include>s expanded.
struct LoadLimits {
  long long file_bytes = 256LL << 20;       // each description, included and mesh file
  long long elements = 4'000'000;           // XML elements, every <include> expanded
  long long bodies = 100'000;               // URDF links / MJCF bodies (before merging)
  long long geoms = 1'000'000;              // visual and collision geometries
  long long mesh_vertices = 10'000'000;     // summed over the geoms that use a mesh
  // Plausible physics: the mass of every link / body that has one (massless links stay allowed
  // where the loaders allow them) and the principal moments of every body's inertia.
  double mass_min = 1e-12, mass_max = 1e9;        // kg
  double inertia_min = 1e-18, inertia_max = 1e15;  // kg m^2: the mass range at 1 mm ... 1 km
};

// How a description is loaded (the loader's options).
struct LoadOptions {
  // Merge links joined by fixed joints (URDF) / welded MJCF bodies into one rigid body. When
  // false they are kept as Fixed joints, except massless links, which are always merged (a body
  // needs mass).
  bool merge_fixed_joints = true;
  // Weld the floating base(s) to the world (a Fixed joint instead of a Floating one).
  bool fixed_base = false;
  // Roots for package:// URIs, searched before the defaults (see resolve_resource); the
  // environment variable MAXSIM_PACKAGE_PATH (colon-separated) is searched after these.
  std::vector<std::string> package_paths;
  LoadLimits limits;  // bounds on what the file may ask
  // Unknown MJCF elements and attributes (a misspelling: MuJoCo refuses them) and, in URDF,
  // unknown joint types stay errors by default; lenient turns the unknown names into warnings
  // (LoadReport::warnings), as a file written for a newer MuJoCo may need.
  bool lenient = false;
  // MJCF: a body whose joints are slides along orthogonal axes followed by one to three hinges
  // with orthogonal axes through one anchor becomes one body with one joint (its rows are the
  // slides and the hinges' Davenport angles, docs/modeling.md); false: every joint but the last
  // moves a light virtual body.
  bool merge_multi_joint_bodies = true;
  // With merge_multi_joint_bodies: whether hinges through different points also merge (the
  // translational rows follow the offset chain, docs/computation.md (98)); false: they keep the
  // virtual bodies.
  bool merge_offset_hinges = true;
  // Each body's mass and principal moments of inertia are raised to this ratio times the largest
  // armature on a free row of its joints (bound_inertia_by_armature, models/inertia.hpp; the
  // analogue of MuJoCo's compiler option boundinertia, relative to the rotors): files that hang
  // 0.75 kg·m² rotors on links of 1e-13 kg·m² give Newton matrices the solver cannot resolve to
  // its tolerance. 0 keeps the file's values.
  double armature_inertia_floor = 1e-8;
};

// Where a value of the model came from: the file (with its line), a default class of the file,
// or the format's default (MuJoCo's for MJCF).
struct ValueSource {
  std::string name;    // "timestep", "gravity", "integrator", "geom friction", ...
  std::string value;   // as the model has it ("0.002", "0 0 -9.81", ...)
  std::string source;  // "FILE:LINE", "default class", "MuJoCo default", ...
};

// Everything the loader can tell besides the model.
struct LoadReport {
  std::vector<std::string> warnings;  // ignored features, missing visual meshes, ...
  // (link or MJCF body, body it was merged into); the merged-into body is "world" for parts
  // welded to the world.
  std::vector<std::pair<std::string, std::string>> merged;
  // Bodies that are not in the file: MJCF bodies with several joints get one intermediate
  // "<body>/<joint>" body per extra joint (see mjcf.hpp).
  std::vector<std::string> virtual_bodies;
  // What the file uses that the format defines and maxsim does not model, one entry per
  // feature with its count ("<geom solref> (12)", "<gazebo> (3)"): loaded and ignored.
  std::vector<std::string> ignored;
  // Where the world's options came from (MJCF: timestep, gravity, integrator, geom friction).
  std::vector<ValueSource> sources;
};

// Dispatches on the extension (.urdf -> URDF; .xml, .mjcf -> MJCF). Throws LoadError on bad
// input (unknown extension, missing files, malformed XML, bad numbers, unphysical mass or inertia,
// unknown joint types, undefined/duplicate links, cycles, missing collision meshes, unsupported
// physics).
Model load_model(const std::string& path, const LoadOptions& options = {},
                 std::vector<std::string>* warnings = nullptr);
// The same, with the warnings, merged bodies and virtual bodies in *report.
Model load_model(const std::string& path, const LoadOptions& options, LoadReport* report);

// The package search path: options.package_paths followed by MAXSIM_PACKAGE_PATH's entries.
std::vector<std::string> package_search_path(const LoadOptions& options);

}  // namespace maxsim
