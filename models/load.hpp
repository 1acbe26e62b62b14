// Entry point of the description loaders (DESIGN §7): URDF (.urdf) and MJCF (.xml, .mjcf).
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
};

// Dispatches on the extension (.urdf -> URDF; .xml, .mjcf -> MJCF). Throws LoadError on bad
// input (unknown extension, missing files, malformed XML, bad numbers, unphysical mass or inertia,
// unknown joint types, undefined/duplicate links, cycles, missing collision meshes, unsupported
// physics).
Model load_model(const std::string& path, const LoadOptions& options = {},
                 std::vector<std::string>* warnings = nullptr);
Model load_model(const std::string& path, const LoadOptions& options, LoadReport* report);

// The package search path: options.package_paths followed by MAXSIM_PACKAGE_PATH's entries.
std::vector<std::string> package_search_path(const LoadOptions& options);

}  // namespace maxsim
