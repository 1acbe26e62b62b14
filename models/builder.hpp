// The part both loaders share: from a tree of description links (frames with mass and geometry,
// posed at the zero configuration) and joint specifications to the engine's Model — fixed-joint
// merging, massless roots, floating bases, body frames at the centre of mass, make_joint.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "models/inertia.hpp"
#include "models/load.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct LinkSpec {
  std::string name;
  std::string file;                      // where it is declared (messages)
  int line = 0;
  Vec3 pos = Vec3::Zero();               // link frame origin in the world, zero configuration
  Vec4 quat = quat_identity();           // link frame orientation, zero configuration
  MassProps mass;                        // in the link frame
  std::vector<Geom> geoms;               // poses in the link frame
  bool is_virtual = false;               // MJCF intermediate body (see mjcf.hpp)
};

// How the joint frames are chosen.
enum class FrameRule {
  Axis,       // make_joint: anchor and axis in the world, joint frame z = axis
  ChildBody,  // the child body's frame is the joint frame (MJCF ball: qpos = relative rotation)
  FreeBase,   // world parent: anchors 0 / child link origin, identity frames (MuJoCo free qpos)
  Explicit,   // anchors and frames given in the two link frames (URDF <loop_joint>)
  World,      // anchor and joint frame orientation (frame_world) in the world at the zero
              // configuration (an MJCF body's merged joints: the frame's axes are theirs)
};

struct JointSpec {
  Joint proto;                // name, type, per-row parameters, has_limits, actuated
  int parent = -1;            // link index; -1: the world
  int child = -1;             // link index
  Vec3 anchor = Vec3::Zero(); // world, zero configuration (Axis, ChildBody)
  Vec3 axis = Vec3::UnitZ();  // world, zero configuration (Axis)
  bool tree = true;           // the child's incoming joint; false: a loop-closing joint
  // Added by the loader for a root link without a joint: Floating, or Fixed with
  // options.fixed_base, or the root becomes part of the world when it has no mass.
  bool auto_root = false;
  // A Fixed tree joint that makes the child part of its parent even if the parent is the world
  // (MJCF static bodies).
  bool static_weld = false;
  FrameRule frames = FrameRule::Axis;
  Vec3 parent_anchor_link = Vec3::Zero(), child_anchor_link = Vec3::Zero();  // Explicit
  Vec4 parent_frame_link = quat_identity(), child_frame_link = quat_identity();
  Vec4 frame_world = quat_identity();  // World
  std::string file;
  int line = 0;
};

// A nonholonomic constraint as a description declares it: on a link, with proto's point, axis and
// direction in that link's frame (proto.body is set by add_nonholonomic).
struct NonholonomicSpec {
  NonholonomicConstraint proto;
  int link = -1;
  std::string file;
  int line = 0;
};

// The first parameter (nonholonomic_parameter) that `kind` requires and `given` lacks, or null: a
// loader refuses a declaration without it.
const char* missing_nonholonomic_parameter(NonholonomicKind kind, const std::set<std::string>& given);

struct BuildResult {
  std::vector<int> link_body;   // per link: body index, or kWorld when part of the world
  std::vector<int> spec_joint;  // per joint spec: joint index, or -1 when merged away
};

// Every link needs exactly one tree JointSpec (child == link). Fixed tree joints are merged when
// options.merge_fixed_joints or when one side has no mass; a massive link fixed to the world keeps
// its Fixed joint (only massless links and static_weld parts join the world). Throws LoadError for
// a body that can move but has no mass.
void build_model(const std::vector<LinkSpec>& links, std::vector<JointSpec> joints,
                 const LoadOptions& options, Model* model, BuildResult* result, LoadReport* report);

// A link's frame in the frame of the body it is part of (the world's frame for the world): the one
// conversion of link-frame data — joint anchors and frames, nonholonomic constraints, sites,
// sensor frames — to bodies.
void link_frame_in_body(const std::vector<LinkSpec>& links, const BuildResult& built, const Model& model, int l,
                        Vec3* pos, Vec4* quat);

// Adds the constraints to the model build_model made from `links`, each on the body its link is
// part of, with its vectors converted from the link frame to the body frame (origin at the CoM)
// as build_model converts the anchors and frames of FrameRule::Explicit joints. LoadError at the
// spec's line for a link that is part of the world or a name used twice.
void add_nonholonomic(const std::vector<LinkSpec>& links, const BuildResult& built,
                      const std::vector<NonholonomicSpec>& specs, Model* model);

// validate_model, as a LoadError naming the file.
void validate_or_throw(const Model& model, const std::string& file);

}  // namespace maxsim
