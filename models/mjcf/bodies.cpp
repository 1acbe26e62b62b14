// <worldbody> and <body>: the link of each body (virtual links before it when it has several
// joints), its geoms and mass properties, the joint that welds a jointless body to its parent.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/load_error.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_worldbody(const XMLElement* e) {
  Parts parts;
  collect_parts(e, Pose{}, "", 0, &parts);
  for (auto& [c, offset, cls_in] : parts) {
    const std::string n = c->Name();
    if (n == "geom") {
      bool ok, has_mass;
      double m;
      Geom g = read_geom(c, class_of(c, cls_in), Pose{}, offset, &ok, &m, &has_mass, nullptr);
      if (ok) links_[0].geoms.push_back(g);
    } else if (n == "body") {
      read_body(c, 0, offset, cls_in, true, 0);
    } else if (n == "joint" || n == "freejoint" || n == "inertial") {
      fail(c, "<" + n + "> is not allowed in <worldbody>");
    } else if (n == "site") {
      read_site(c, 0, class_of(c, cls_in), Pose{}, offset);
    } else if (n == "camera" || n == "light") {
    } else if (n == "composite" || n == "flexcomp" || n == "replicate" || n == "attach" ||
               n == "plugin") {
      fail(c, "unsupported MJCF element <" + n + "> (it would change the model)");
    } else {
      ignore("<" + n + ">");
    }
  }
}

void MjcfReader::read_body(const XMLElement* e, int parent_link, const Pose& parent_world,
                           const std::string& inherited_class, bool parent_static, int depth) {
  if (++body_counter_ > options_.limits.bodies)
    xml_.fail_limit(e, "more than " + std::to_string(options_.limits.bodies) + " bodies" +
                           limit_hint("bodies", "bodies=N"));
  if (depth >= kMaxNesting) fail(e, "bodies nested more than " + std::to_string(kMaxNesting) + " deep");
  std::string name = xml_.text(e, "name");
  if (name.empty()) name = "body" + std::to_string(body_counter_);
  if (body_link_.count(name)) fail(e, "duplicate body name '" + name + "'");
  std::string childclass = inherited_class;
  if (const char* cc = own(e, "childclass")) {
    if (!classes_.count(cc)) fail(e, std::string("unknown default class '") + cc + "'");
    childclass = cc;
  }
  if (xml_.boolean(e, "mocap").value_or(false)) ignore("mocap body (treated as static)");
  // Body frame in the world at qpos0.
  Pose local;
  if (auto p = xml_.vec3(e, "pos")) local.p = *p;
  local.q = orientation(e, "body", "main");
  const Pose world = global_ ? local : compose(parent_world, local);

  Parts parts;
  collect_parts(e, Pose{}, childclass, 0, &parts);

  // Mass properties and geometry in the body frame.
  const XMLElement* inertial = nullptr;
  for (auto& t : parts)
    if (std::strcmp(std::get<0>(t)->Name(), "inertial") == 0) {
      if (inertial) fail(std::get<0>(t), "body '" + name + "' has two <inertial> elements");
      inertial = std::get<0>(t);
    }
  const bool use_geoms = inertia_from_geom_ == 1 || (inertia_from_geom_ == 0 && !inertial);
  std::vector<Geom> geoms;
  MassProps from_geoms;
  for (auto& [c, offset, cls_in] : parts) {
    const std::string n = c->Name();
    if (n == "geom") {
      const std::string cls = class_of(c, cls_in);
      bool ok, has_mass;
      double m;
      MassProps mp;
      Geom g = read_geom(c, cls, world, offset, &ok, &m, &has_mass, use_geoms ? &mp : nullptr);
      if (!ok) continue;
      if (m > 0) from_geoms = combine_mass(from_geoms, mp);
      geoms.push_back(g);
    }
  }
  MassProps mass;
  if (use_geoms) mass = from_geoms;
  else if (inertial) mass = read_inertial(inertial, name, world);

  // Joints.
  Parts jparts;
  for (auto& t : parts) {
    const std::string n = std::get<0>(t)->Name();
    if (n == "joint" || n == "freejoint") jparts.push_back(t);
  }
  const bool is_static = jparts.empty() && parent_static;

  // Virtual links for all joints but the last.
  const int k = static_cast<int>(jparts.size());
  std::vector<std::string> jnames(k);
  std::vector<char> jkinds(k);
  for (int i = 0; i < k; ++i) {
    const XMLElement* j = std::get<0>(jparts[i]);
    const std::string cls = class_of(j, std::get<2>(jparts[i]));
    std::string jn = xml_.text(j, "name");
    if (jn.empty()) jn = k == 1 ? name + "_joint" : name + "_joint" + std::to_string(i + 1);
    if (joint_index_.count(jn)) fail(j, "duplicate joint name '" + jn + "'");
    jnames[i] = jn;
    const std::string type =
        std::strcmp(j->Name(), "freejoint") == 0 ? "free" : str(attr(j, "joint", cls, "type"), "hinge");
    if (type == "free") jkinds[i] = 'f';
    else if (type == "ball") jkinds[i] = 'b';
    else if (type == "hinge") jkinds[i] = 'h';
    else if (type == "slide") jkinds[i] = 's';
    else fail(j, "joint '" + jn + "': unknown joint type '" + type + "' (MJCF types: hinge, slide, ball, free)");
    if (jkinds[i] == 'f') {
      if (k > 1) fail(j, "body '" + name + "': a free joint must be the body's only joint");
      if (!parent_static)
        fail(j, "body '" + name + "': free joints are only allowed in bodies attached to the world");
    }
  }
  std::optional<MergedJoint> merged;
  if (options_.merge_multi_joint_bodies && k > 1) merged = merge_joints(jparts, jnames, jkinds, parent_link, world);
  int prev = parent_link;
  std::vector<int> chain;  // link receiving each joint
  for (int i = 0; i + 1 < k && !merged; ++i) {
    LinkSpec v;
    v.name = name + "/" + jnames[i];
    v.file = xml_.file_of(e);
    v.line = std::get<0>(jparts[i])->GetLineNum();
    v.pos = world.p;
    v.quat = world.q;
    v.is_virtual = true;
    chain.push_back(static_cast<int>(links_.size()));
    links_.push_back(v);
    link_parent_.push_back(prev);
    real_link_of_virtual_.push_back(-1);  // fixed below
    body_parent_.push_back(-1);
    body_joints_.push_back(0);
    prev = chain.back();
  }
  LinkSpec body;
  body.name = name;
  body.file = xml_.file_of(e);
  body.line = e->GetLineNum();
  body.pos = world.p;
  body.quat = world.q;
  body.mass = mass;
  body.geoms = geoms;
  const int body_index = static_cast<int>(links_.size());
  for (int v : chain) real_link_of_virtual_[v] = body_index;
  links_.push_back(body);
  link_parent_.push_back(prev);
  real_link_of_virtual_.push_back(body_index);
  body_parent_.push_back(parent_link);
  body_joints_.push_back(k);
  chain.push_back(body_index);
  body_link_[name] = body_index;

  if (k == 0) {
    for (const Geom& g : geoms)
      if ((g.type == GeomType::Plane || g.type == GeomType::HField) && !is_static)
        fail(e, "body '" + name + "': plane and hfield geoms are only allowed in static bodies");
    JointSpec s;
    s.proto.type = JointType::Fixed;
    s.parent = parent_link;
    s.child = body_index;
    s.static_weld = parent_static;
    s.anchor = world.p;
    s.file = body.file;
    s.line = body.line;
    specs_.push_back(s);
  } else {
    for (const Geom& g : geoms)
      if (g.type == GeomType::Plane || g.type == GeomType::HField)
        fail(e, "body '" + name + "': plane and hfield geoms are only allowed in static bodies");
  }
  const int first_spec = static_cast<int>(specs_.size()), first_mj = static_cast<int>(mj_joints_.size());
  for (int i = 0; i < k; ++i) {
    const XMLElement* j = std::get<0>(jparts[i]);
    read_joint(j, std::get<1>(jparts[i]), class_of(j, std::get<2>(jparts[i])), jnames[i], jkinds[i],
               merged ? parent_link : i == 0 ? parent_link : chain[i - 1], merged ? body_index : chain[i], world);
  }
  if (merged) merge_specs(*merged, first_spec, first_mj, jnames, jkinds);

  for (auto& [c, offset, cls_in] : parts) {
    const std::string n = c->Name();
    if (n == "body") {
      // (a body inside a <frame>: the frame is composed into its parent pose)
      read_body(c, body_index, compose(world, offset), cls_in, is_static, depth + 1);
    } else if (n == "site") {
      read_site(c, body_index, class_of(c, cls_in), world, offset);
    } else if (n == "inertial" || n == "geom" || n == "joint" || n == "freejoint" ||
               n == "camera" || n == "light") {
      // handled above / ignored on purpose
    } else if (n == "composite" || n == "flexcomp" || n == "replicate" || n == "attach" ||
               n == "plugin") {
      fail(c, "unsupported MJCF element <" + n + "> (it would change the model)");
    } else {
      ignore("<" + n + ">");
    }
  }
}

namespace {

// The joint frame (world) in which a body's slides and hinges (MuJoCo order, world axes at qpos0)
// are free rows of one joint, and each one's row: slides along +x, y, z of the frame as the
// translational part frees them (one: z; two: x, y; three: all), the hinges along +z (one), +x, +y
// (two) or all three axes. None when an axis is neither parallel nor perpendicular to the others
// or no frame fits. A frame listing the rows in MuJoCo's order is preferred.
std::optional<std::pair<Mat3, std::vector<int>>> merged_frame(const std::vector<char>& kinds,
                                                               const std::vector<Vec3>& axes) {
  const double tol = 1e-9;
  const Vec3 u = axes[0];
  Vec3 v = u.unitOrthogonal();
  for (const Vec3& a : axes)
    if (std::abs(a.dot(u)) < tol) {
      v = a;
      break;
    }
  const Vec3 basis[3] = {u, v, u.cross(v)};
  for (const Vec3& a : axes) {
    int parallel = 0;
    for (const Vec3& b : basis) parallel += std::abs(a.dot(b)) > 1 - tol ? 1 : 0;
    if (parallel != 1) return std::nullopt;
  }
  int ns = 0, nh = 0;
  for (char c : kinds) (c == 's' ? ns : nh) += 1;
  static const std::vector<int> kFree[4] = {{}, {2}, {0, 1}, {0, 1, 2}};
  std::optional<std::pair<Mat3, std::vector<int>>> found;
  int perm[3] = {0, 1, 2};
  do {
    for (int signs = 0; signs < 8; ++signs) {
      Mat3 J;
      for (int c = 0; c < 3; ++c) J.col(c) = ((signs >> c) & 1 ? -1.0 : 1.0) * basis[perm[c]];
      if (J.determinant() < 0) continue;
      std::vector<int> rows;
      std::vector<int> slide_axes, hinge_axes;
      for (size_t i = 0; i < axes.size(); ++i) {
        int axis = -1;
        for (int c = 0; c < 3; ++c)
          if (J.col(c).dot(axes[i]) > 1 - tol) axis = c;
        if (axis < 0) break;
        (kinds[i] == 's' ? slide_axes : hinge_axes).push_back(axis);
        rows.push_back(kinds[i] == 's' ? axis : 3 + axis);
      }
      if (rows.size() != axes.size()) continue;
      std::vector<int> ss = slide_axes, hs = hinge_axes;
      std::sort(ss.begin(), ss.end());
      std::sort(hs.begin(), hs.end());
      if (ss != kFree[ns]) continue;
      if (nh == 1 ? hs != std::vector<int>{2} : hs != kFree[nh == 2 ? 2 : nh == 3 ? 3 : 0]) continue;
      if (std::is_sorted(rows.begin(), rows.end())) return std::make_pair(J, rows);
      if (!found) found = std::make_pair(J, rows);
    }
  } while (std::next_permutation(perm, perm + 3));
  return found;
}

// Two hinges (after slides) whose axes are neither parallel nor perpendicular: the joint frame
// x = the first hinge's axis, y = the second's part across it, z = x × y, the hinges on rows 3, 4
// and *cosine the cosine of their angle (Joint::hinge_cosine); the slides must lie along the
// frame's axes as merged_frame's do (one: z; two: x, y; three: all). None otherwise.
std::optional<std::pair<Mat3, std::vector<int>>> skew_hinges_frame(const std::vector<char>& kinds,
                                                                   const std::vector<Vec3>& axes, double* cosine) {
  const double tol = 1e-9;
  int ns = 0, nh = 0;
  for (char c : kinds) (c == 's' ? ns : nh) += 1;
  if (nh != 2 || kinds[ns] != 'h') return std::nullopt;
  const Vec3 a0 = axes[ns], a1 = axes[ns + 1];
  const double c = a0.dot(a1);
  if (std::abs(c) < tol || std::abs(c) > 1 - 1e-6) return std::nullopt;
  Mat3 J;
  J.col(0) = a0;
  J.col(1) = (a1 - c * a0).normalized();
  J.col(2) = J.col(0).cross(J.col(1));
  static const std::vector<int> kFree[4] = {{}, {2}, {0, 1}, {0, 1, 2}};
  std::vector<int> rows, slides;
  for (int i = 0; i < ns; ++i) {
    int axis = -1;
    for (int col = 0; col < 3; ++col)
      if (J.col(col).dot(axes[i]) > 1 - tol) axis = col;
    if (axis < 0) return std::nullopt;
    rows.push_back(axis);
    slides.push_back(axis);
  }
  std::sort(slides.begin(), slides.end());
  if (slides != kFree[ns]) return std::nullopt;
  rows.push_back(3);
  rows.push_back(4);
  *cosine = c;
  return std::make_pair(J, rows);
}

}  // namespace

std::optional<MjcfReader::MergedJoint> MjcfReader::merge_joints(const Parts& jparts,
                                                                const std::vector<std::string>& names,
                                                                const std::vector<char>& kinds, int parent,
                                                                const Pose& world) {
  const int k = static_cast<int>(kinds.size());
  // the pattern: slides first, at most three of each kind; or a hinge then a slide along its axis
  // (a cylindrical joint written hinge first: the two motions commute), checked below
  int ns = 0, nh = 0;
  bool slide_after_hinge = false;
  for (int i = 0; i < k; ++i) {
    if (kinds[i] != 'h' && kinds[i] != 's') return std::nullopt;
    if (kinds[i] == 's' && nh > 0) slide_after_hinge = true;
    (kinds[i] == 's' ? ns : nh) += 1;
  }
  if (ns > 3 || nh > 3 || (slide_after_hinge && k != 2)) return std::nullopt;
  // a dry run of the joints (anchors, axes, refs, ranges), undone
  const size_t first_spec = specs_.size(), first_mj = mj_joints_.size();
  const int frictionloss = frictionloss_count_;
  for (int i = 0; i < k; ++i) {
    const XMLElement* j = std::get<0>(jparts[i]);
    read_joint(j, std::get<1>(jparts[i]), class_of(j, std::get<2>(jparts[i])), names[i], kinds[i], parent, -1, world);
  }
  const std::vector<JointSpec> specs(specs_.begin() + first_spec, specs_.end());
  specs_.resize(first_spec);
  mj_joints_.resize(first_mj);
  for (const std::string& n : names) joint_index_.erase(n);
  frictionloss_count_ = frictionloss;
  MergedJoint m;
  std::vector<Vec3> axes;
  std::vector<Vec3> anchors;  // the hinges' (world)
  bool offset = false;
  for (int i = 0; i < k; ++i) {
    const JointSpec& s = specs[i];
    axes.push_back(s.axis.normalized());
    if (kinds[i] != 'h') continue;
    if (!anchors.empty() && (s.anchor - anchors[0]).norm() > 1e-9 * (1 + anchors[0].norm())) offset = true;
    anchors.push_back(s.anchor);
  }
  if (offset && !options_.merge_offset_hinges) return std::nullopt;
  if (slide_after_hinge && std::abs(axes[0].dot(axes[1])) < 1 - 1e-9) return std::nullopt;
  m.anchor = anchors.empty() ? specs[0].anchor : anchors[0];
  // three hinges: the middle angle must stay 10° away from ±90° (Davenport angles' singularity)
  if (nh == 3) {
    const JointSpec& middle = specs[ns + 1];
    const double bound = 80.0 * M_PI / 180.0;
    if (!middle.proto.has_limits || !(middle.proto.lower[5] < middle.proto.upper[5]) ||
        middle.proto.lower[5] < -bound || middle.proto.upper[5] > bound)
      return std::nullopt;
  }
  auto frame = merged_frame(kinds, axes);
  if (!frame) frame = skew_hinges_frame(kinds, axes, &m.cosine);
  if (!frame) return std::nullopt;
  m.frame = rot_to_quat(frame->first);
  // hinges through different points: each anchor's step from the one before, in the joint frame
  if (offset)
    for (size_t h = 0; h + 1 < anchors.size(); ++h) m.offset[h] = frame->first.transpose() * (anchors[h + 1] - anchors[h]);
  m.rows = frame->second;
  static const TransKind kTrans[4] = {TransKind::Fixed, TransKind::Prismatic, TransKind::Planar, TransKind::Free};
  static const RotKind kRot[4] = {RotKind::Fixed, RotKind::Revolute, RotKind::Orbital, RotKind::Free};
  m.type = static_cast<JointType>(4 * static_cast<int>(kRot[nh]) + static_cast<int>(kTrans[ns]));
  if (nh >= 2)
    for (int h = 0; h < nh; ++h) m.sequence[h] = m.rows[ns + h] - 3;
  return m;
}

void MjcfReader::merge_specs(const MergedJoint& merged, int first_spec, int first_mj,
                             const std::vector<std::string>& names, const std::vector<char>& kinds) {
  const int k = static_cast<int>(kinds.size());
  JointSpec m = specs_[first_spec];  // parent, child, file and line of the first joint
  m.proto = Joint{};
  m.proto.type = merged.type;
  m.proto.hinge_sequence = merged.sequence;
  m.proto.hinge_offset = merged.offset;
  m.proto.hinge_cosine = merged.cosine;
  m.frames = FrameRule::World;
  m.frame_world = merged.frame;
  m.anchor = merged.anchor;
  for (int i = 0; i < k; ++i) {
    const Joint& p = specs_[first_spec + i].proto;
    const int from = kinds[i] == 'h' ? 5 : 2, to = merged.rows[i];
    m.proto.name += (i ? "+" : "") + names[i];
    m.proto.row_names[to] = names[i];
    m.proto.row_ref[to] = p.ref;
    m.proto.stiffness[to] = p.stiffness[from];
    m.proto.damping[to] = p.damping[from];
    m.proto.spring_ref[to] = p.spring_ref[from];
    m.proto.lower[to] = p.lower[from];
    m.proto.upper[to] = p.upper[from];
    m.proto.effort[to] = p.effort[from];
    m.proto.velocity[to] = p.velocity[from];
    m.proto.friction[to] = p.friction[from];
    m.proto.armature[to] = p.armature[from];
    m.proto.has_limits = m.proto.has_limits || p.has_limits;
    mj_joints_[first_mj + i].spec = first_spec;
    mj_joints_[first_mj + i].row = to;
  }
  if (!std::is_sorted(merged.rows.begin(), merged.rows.end()))
    for (int i = 0; i < k; ++i) m.proto.coordinate_order[i] = merged.rows[i];
  specs_.resize(first_spec);
  specs_.push_back(m);
}

void MjcfReader::weigh_virtual_bodies() {
  const int nlinks = static_cast<int>(links_.size());
  std::vector<double> welded(nlinks, 0.0);  // a real body's mass with its jointless children
  std::vector<int> tree_spec(nlinks, -1);
  for (int s = 0; s < static_cast<int>(specs_.size()); ++s)
    if (specs_[s].tree) tree_spec[specs_[s].child] = s;
  for (int l = nlinks - 1; l >= 1; --l) {  // children come after parents
    welded[l] += links_[l].mass.mass;
    const JointSpec& s = specs_[tree_spec[l]];
    if (s.proto.type == JointType::Fixed && s.parent > 0) welded[s.parent] += welded[l];
  }
  for (int l = 1; l < nlinks; ++l) {
    if (!links_[l].is_virtual) continue;
    const int real = real_link_of_virtual_[l];
    const double m = 1e-3 * welded[real];
    links_[l].mass.mass = m;
    // CoM at the anchor of the joint that moves this virtual body
    const JointSpec& s = specs_[tree_spec[l]];
    links_[l].mass.com = quat_to_rot(links_[l].quat).transpose() * (s.anchor - links_[l].pos);
    links_[l].mass.inertia = inertia_sphere(m, 0.01);
  }
}

}  // namespace maxsim::mjcf_detail
