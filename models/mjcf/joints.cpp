// <joint> and <freejoint>: one engine joint each, its anchor and axis in the world at qpos0, its
// coordinates relative to ref, springs, dampers, armature, friction loss and limits (a ball's
// range: the cone limit on its rotation angle).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_joint(const XMLElement* j, const Pose& offset, const std::string& cls,
                            const std::string& name, char kind, int parent, int child,
                            const Pose& world) {
  JointSpec s;
  s.proto.name = name;
  s.parent = parent;
  s.child = child;
  s.file = xml_.file_of(j);
  s.line = j->GetLineNum();
  MjJoint mj;
  mj.name = name;
  mj.kind = kind;
  // anchor and axis
  Vec3 pos = Vec3::Zero(), axis = Vec3::UnitZ();
  if (auto p = nums(attr(j, "joint", cls, "pos"), 3, 3)) pos = Vec3((*p)[0], (*p)[1], (*p)[2]);
  if (auto a = nums(attr(j, "joint", cls, "axis"), 3, 3)) axis = Vec3((*a)[0], (*a)[1], (*a)[2]);
  if (axis.norm() < 1e-12) fail(j, "joint '" + name + "': zero axis");
  axis = parse::scaled(axis);
  Vec3 anchor_w, axis_w;
  if (global_) {
    anchor_w = pos;
    axis_w = axis.normalized();
  } else {
    const Pose pw = compose(world, compose(offset, Pose{pos, quat_identity()}));
    anchor_w = pw.p;
    axis_w = quat_to_rot(compose(world, offset).q) * axis.normalized();
  }
  s.anchor = anchor_w;
  s.axis = axis_w;
  std::vector<int> rows;
  int row = -1;
  switch (kind) {
    case 'f':
      s.proto.type = JointType::Floating;
      s.frames = FrameRule::FreeBase;
      s.anchor = world.p;
      rows = {0, 1, 2, 3, 4, 5};
      break;
    case 'b':
      s.proto.type = JointType::Spherical;
      s.frames = FrameRule::ChildBody;
      rows = {3, 4, 5};
      break;
    case 'h':
      s.proto.type = JointType::Revolute;
      row = 5;
      rows = {5};
      break;
    default:
      s.proto.type = JointType::Prismatic;
      row = 2;
      rows = {2};
      break;
  }
  const bool angular = kind == 'h';
  auto conv = [&](double v) { return angular ? angle(v) : v; };
  const double ref = row >= 0 ? conv(num(attr(j, "joint", cls, "ref")).value_or(0)) : 0;
  mj.ref = ref;
  const double springref = row >= 0 ? conv(num(attr(j, "joint", cls, "springref")).value_or(0)) : 0;
  double stiffness = num(attr(j, "joint", cls, "stiffness")).value_or(0);
  double damping = num(attr(j, "joint", cls, "damping")).value_or(0);
  double armature = num(attr(j, "joint", cls, "armature")).value_or(0);
  double frictionloss = num(attr(j, "joint", cls, "frictionloss")).value_or(0);
  // <freejoint> is MuJoCo's shortcut for a free joint that inherits no joint defaults (its only
  // attributes are name and group): a free body has no spring, damper, armature or friction
  // loss, whatever the classes give hinges. (<joint type="free"> does take the defaults.)
  if (std::strcmp(j->Name(), "freejoint") == 0) stiffness = damping = armature = frictionloss = 0;
  if (stiffness < 0 || damping < 0 || armature < 0 || frictionloss < 0)
    fail(j, "joint '" + name + "': stiffness, damping, armature and frictionloss must not be negative");
  // Disabled by <flag>: MuJoCo then computes no passive forces (springs and dampers; armature
  // is inertia and stays) and no friction-loss rows.
  if (!flags_.passive) stiffness = damping = 0;
  if (!flags_.frictionloss || !flags_.constraint) frictionloss = 0;
  for (int r : rows) {
    s.proto.damping[r] = damping;
    s.proto.armature[r] = armature;
    s.proto.friction[r] = frictionloss;
    if (kind != 'f') s.proto.stiffness[r] = stiffness;
  }
  if (frictionloss > 0) ++frictionloss_count_;
  auto range = nums(attr(j, "joint", cls, "range"), 2, 2);
  std::optional<bool> limited = boolean(attr(j, "joint", cls, "limited"), true);
  const bool is_limited = limited ? *limited : (autolimits_ && range.has_value());
  if (is_limited && kind != 'f') {
    if (!range) fail(j, "joint '" + name + "' is limited but has no range");
    if (!flags_.limit || !flags_.constraint) {
      // <flag limit="disable"/>: the range stays in the file, MuJoCo makes no limit rows
    } else if (kind == 'b') {
      // MuJoCo limits a ball's rotation angle by the larger of the two values (the first should be 0)
      const double hi = angle(std::max((*range)[0], (*range)[1]));  // (conv converts hinges only)
      if (!(hi > 0)) fail(j, "joint '" + name + "': a ball joint's range (its largest rotation angle) must be positive");
      if (hi < M_PI) {  // (a rotation never turns farther than π)
        s.proto.has_limits = true;
        s.proto.cone_limit = hi;
      }
    } else {
      const double lo = conv((*range)[0]), hi = conv((*range)[1]);
      if (lo > hi) fail(j, "joint '" + name + "': range lower bound above the upper bound");
      if (lo < hi) {
        s.proto.has_limits = true;
        s.proto.lower[row] = lo - ref;
        s.proto.upper[row] = hi - ref;
      }
    }
  }
  if (row >= 0) s.proto.spring_ref[row] = springref - ref;
  s.proto.ref = ref;
  mj.spec = static_cast<int>(specs_.size());
  joint_index_[mj.name] = static_cast<int>(mj_joints_.size());
  mj_joints_.push_back(mj);
  specs_.push_back(s);
}

}  // namespace maxsim::mjcf_detail
