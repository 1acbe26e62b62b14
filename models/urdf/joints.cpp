// <joint> and <loop_joint>: their checks in the tinyxml2 pass, and the builder's joint specs made
// from them; one motor per movable single-coordinate joint.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "models/urdf/reader.hpp"

namespace maxsim::urdf_detail {

void UrdfReader::check_joint(const XMLElement* e, JointXml* info) {
  info->e = e;
  const std::string name = xml_.text(e, "name");
  const char* type = xml_.attribute(e, "type");
  if (!type) xml_.fail(e, "joint '" + name + "' has no type");
  info->type = type;
  info->kind = find_joint_type(type);
  if (!info->kind)
    xml_.fail(e, "joint '" + name + "': unknown joint type '" + info->type + "' (" + joint_type_list() + ")");
  if (info->kind->dialect) rewrite_for_urdfdom_ = true;
  const XMLElement* p = e->FirstChildElement("parent");
  const XMLElement* c = e->FirstChildElement("child");
  if (!p || !xml_.attribute(p, "link")) xml_.fail(e, "joint '" + name + "' has no <parent link=...>");
  if (!c || !xml_.attribute(c, "link")) xml_.fail(e, "joint '" + name + "' has no <child link=...>");
  info->parent = xml_.attribute(p, "link");
  info->child = xml_.attribute(c, "link");
  check_origin(e);
  if (const XMLElement* a = e->FirstChildElement("axis")) {
    if (auto ax = xml_.vec3(a, "xyz")) {
      if (ax->norm() >= 1e-12) {
        info->axis = parse::scaled(*ax).normalized();
      } else if (info->kind->uses_axis) {
        // ConstrainedDynamics' all-joint-types test file has them. Dojo and ConstrainedDynamics
        // build the constrained rows from an SVD of skew(axis), which for a zero axis are the
        // joint frame's x and y: their revolute, prismatic and cylindrical joints then turn about
        // / slide along z (their one-row parts lose their row). maxsim takes z for every type.
        info->axis = Vec3::UnitZ();
        zero_axis_.push_back("'" + name + "' (line " + std::to_string(a->GetLineNum()) + ")");
      }
    }
  }
  const XMLElement* lim = e->FirstChildElement("limit");
  if (lim && info->kind->dialect && free_rows_of(info->kind->type) > 1 &&
      xml_.number(lim, "lower").value_or(0) < xml_.number(lim, "upper").value_or(0))
    xml_.fail(lim, "joint '" + name + "' (" + info->type + ", " +
                       std::to_string(free_rows_of(info->kind->type)) +
                       " free rows): position limits on a joint with several free rows are not "
                       "supported (a URDF <limit> gives one range); remove lower/upper");
  if (lim) {
    for (const char* k : {"lower", "upper", "effort", "velocity"}) xml_.number(lim, k);
    info->explicit_lower = xml_.attribute(lim, "lower") != nullptr;
    info->explicit_upper = xml_.attribute(lim, "upper") != nullptr;
    const double lo = xml_.number(lim, "lower").value_or(0);
    const double hi = xml_.number(lim, "upper").value_or(0);
    if (lo > hi)
      xml_.fail(lim, "joint '" + name + "': lower limit " + std::to_string(lo) +
                         " is above the upper limit " + std::to_string(hi));
    if (xml_.number(lim, "effort").value_or(0) < 0 || xml_.number(lim, "velocity").value_or(0) < 0)
      xml_.fail(lim, "joint '" + name + "': effort and velocity limits must not be negative");
  } else if (info->type == "revolute" || info->type == "prismatic") {
    // URDF (and urdfdom) require one; Dojo and ConstrainedDynamics ignore <limit> and their
    // files (hopper, ant, all-joint-types test) leave it out: an unlimited joint.
    rewrite_for_urdfdom_ = true;
    no_limit_.push_back("'" + name + "' (line " + std::to_string(e->GetLineNum()) + ")");
  }
  if (const XMLElement* d = e->FirstChildElement("dynamics")) {
    for (const char* k : {"damping", "friction"}) {
      auto v = xml_.number(d, k);
      if (v && *v < 0) xml_.fail(d, "joint '" + name + "': " + k + " must not be negative");
    }
  }
  if (const XMLElement* m = e->FirstChildElement("mimic")) {
    MimicXml mimic;
    mimic.e = m;
    mimic.joint = name;
    mimic.fixed = info->type == "fixed";
    const char* leader = xml_.attribute(m, "joint");
    if (!leader || !*leader) xml_.fail(m, "joint '" + name + "': <mimic> needs 'joint' (the joint it follows)");
    mimic.leader = leader;
    mimic.multiplier = xml_.number(m, "multiplier").value_or(1.0);
    mimic.offset = xml_.number(m, "offset").value_or(0.0);
    mimics_.push_back(mimic);
  }
  if (const XMLElement* s = e->FirstChildElement("safety_controller"))
    for (const char* k : {"soft_lower_limit", "soft_upper_limit", "k_position", "k_velocity"})
      xml_.number(s, k);
  if (const XMLElement* s = e->FirstChildElement("calibration"))
    for (const char* k : {"rising", "falling"}) xml_.number(s, k);
}

void UrdfReader::read_loop(const XMLElement* e) {
  LoopXml L;
  L.e = e;
  L.name = xml_.text(e, "name");
  L.type = xml_.text(e, "type");
  if (L.type.empty()) xml_.fail(e, "loop joint '" + L.name + "' has no type");
  // Dojo and ConstrainedDynamics build loop joints with the same joint_selector as tree joints.
  L.kind = find_joint_type(L.type.c_str());
  if (!L.kind || L.kind->type == JointType::Floating)
    xml_.fail(e, "loop joint '" + L.name + "': unknown or unsupported loop joint type '" + L.type +
                     "' (" + joint_type_list() + "; a floating loop joint would constrain nothing)");
  for (int k = 0; k < 2; ++k) {
    const char* tag = k == 0 ? "link1" : "link2";
    const XMLElement* l = e->FirstChildElement(tag);
    if (!l || !xml_.attribute(l, "link"))
      xml_.fail(e, "loop joint '" + L.name + "' needs <" + tag + " link=...>");
    (k == 0 ? L.link1 : L.link2) = xml_.attribute(l, "link");
    (k == 0 ? L.xyz1 : L.xyz2) = xml_.vec3(l, "xyz").value_or(Vec3::Zero());
    (k == 0 ? L.rpy1 : L.rpy2) = xml_.vec3(l, "rpy").value_or(Vec3::Zero());
  }
  if (const XMLElement* a = e->FirstChildElement("axis")) {
    L.axis = xml_.vec3(a, "xyz").value_or(Vec3::UnitX());
    if (L.axis.norm() < 1e-12) xml_.fail(a, "loop joint '" + L.name + "': zero axis");
    L.axis = parse::scaled(L.axis);
  }
  if (const XMLElement* d = e->FirstChildElement("dynamics")) {
    // maxsim extension: stiffness (a spring towards the zero configuration), and for a joint
    // with several free rows one value per free row (planar: x, y translation, rotation)
    const int dof = free_rows_of(L.kind->type);
    for (const char* k : {"damping", "friction", "stiffness"}) {
      std::vector<double> v = xml_.numbers(d, k, 1, 6).value_or(std::vector<double>{});
      if (v.size() > 1 && static_cast<int>(v.size()) != dof)
        xml_.fail(d, "loop joint '" + L.name + "': " + k + " takes one value or one per free row (" +
                         std::to_string(dof) + ")");
      for (double x : v)
        if (x < 0) xml_.fail(d, "loop joint '" + L.name + "': " + k + " must not be negative");
      (k[0] == 'd' ? L.damping : k[0] == 'f' ? L.friction : L.stiffness) = v;
    }
  }
  if (const XMLElement* lim = e->FirstChildElement("limit")) {
    auto lo = xml_.number(lim, "lower");
    auto hi = xml_.number(lim, "upper");
    if (lo && hi && *lo < *hi) {
      if (free_rows_of(L.kind->type) > 1 && L.kind->dialect)
        xml_.fail(lim, "loop joint '" + L.name + "' (" + L.type + ", " +
                           std::to_string(free_rows_of(L.kind->type)) +
                           " free rows): position limits on a joint with several free rows are not "
                           "supported (a URDF <limit> gives one range); remove lower/upper");
      L.has_limits = true;
      L.lower = *lo;
      L.upper = *hi;
    }
  }
  loops_.push_back(L);
}

JointSpec UrdfReader::tree_joint(const urdf::ModelInterface& model, const std::map<std::string, int>& index,
                                 const std::map<std::string, std::string>& parent_joint,
                                 const std::vector<LinkSpec>& links, int l, int* friction) {
  auto it = parent_joint.find(links[l].name);
  if (it == parent_joint.end()) {
    JointSpec s;
    s.child = l;
    s.file = path_;
    s.line = links[l].line;
    if (links[l].name == "world") {
      s.proto.type = JointType::Fixed;
      s.static_weld = true;
    } else {
      s.proto.type = JointType::Floating;
      s.auto_root = true;
      s.frames = FrameRule::FreeBase;
      s.anchor = links[l].pos;
    }
    return s;
  }
  const JointXml& jx = joints_[it->second];
  const urdf::JointConstSharedPtr uj = urdf_joint(model, it->second);
  JointSpec s;
  s.proto.name = it->second;
  s.parent = index.at(jx.parent);
  s.child = l;
  s.file = path_;
  s.line = jx.e->GetLineNum();
  s.anchor = links[l].pos;
  s.proto.type = jx.kind->type;
  s.axis = quat_to_rot(links[l].quat) * (jx.kind->uses_axis ? jx.axis : Vec3::UnitX());
  if (s.proto.type == JointType::Floating) {
    s.frames = FrameRule::FreeBase;  // identity frames when the parent is the world
    s.axis = quat_to_rot(links[l].quat) * Vec3::UnitZ();
  } else if (s.proto.type == JointType::Spherical || s.proto.type == JointType::FixedOrientation) {
    // no axis (Dojo's Spherical and FixedOrientation take none): the joint frame is the URDF
    // joint frame, so the coordinates are the child link's offset and rotation in it
    s.frames = FrameRule::ChildBody;
  }
  // a single-coordinate joint's row (limits, effort); free rows (damping, friction)
  const int row = s.proto.type == JointType::Revolute ? 5 : s.proto.type == JointType::Prismatic ? 2 : -1;
  std::vector<int> rows;
  for (int r : s.proto.free_rows())
    if (r >= 0) rows.push_back(r);
  if (row >= 0 && uj->limits) {
    const auto& lim = *uj->limits;
    const bool use_range = jx.type != "continuous" || (jx.explicit_lower && jx.explicit_upper);
    if (use_range && lim.lower < lim.upper) {
      s.proto.has_limits = true;
      s.proto.lower[row] = lim.lower;
      s.proto.upper[row] = lim.upper;
    }
    s.proto.effort[row] = lim.effort;
    s.proto.velocity[row] = lim.velocity;
  }
  if (uj->dynamics) {
    for (int r : rows) {
      s.proto.damping[r] = uj->dynamics->damping;
      s.proto.friction[r] = uj->dynamics->friction;
    }
    if (uj->dynamics->friction > 0 && !rows.empty()) ++*friction;
  }
  return s;
}

JointSpec UrdfReader::loop_joint(const LoopXml& L, const std::map<std::string, int>& index,
                                 const std::vector<LinkSpec>& links) {
  JointSpec s;
  s.proto.name = L.name;
  s.tree = false;
  s.parent = index.at(L.link1);
  s.child = index.at(L.link2);
  s.file = path_;
  s.line = L.e->GetLineNum();
  s.frames = FrameRule::Explicit;
  const Vec4 qa = quat_z_to(L.axis);
  s.parent_anchor_link = L.xyz1;
  s.parent_frame_link = quat_normalize(quat_mul(parse::quat_from_rpy(L.rpy1), qa));
  s.child_anchor_link = L.xyz2;
  s.child_frame_link = quat_normalize(quat_mul(parse::quat_from_rpy(L.rpy2), qa));
  const LinkSpec& a = links[s.parent];
  const LinkSpec& b = links[s.child];
  s.anchor = a.pos + quat_to_rot(a.quat) * L.xyz1;
  s.axis = quat_to_rot(quat_mul(a.quat, s.parent_frame_link)) * Vec3::UnitZ();
  s.proto.type = L.kind->type;  // URDF planar: PlanarAxis, slides in the plane normal to the axis, turns about it
  const int row = s.proto.type == JointType::Revolute ? 5 : s.proto.type == JointType::Prismatic ? 2 : -1;
  std::vector<int> rows;
  for (int r : s.proto.free_rows())
    if (r >= 0) rows.push_back(r);
  auto per_row = [](const std::vector<double>& v, size_t k) {
    return v.empty() ? 0.0 : v.size() == 1 ? v[0] : v[k];
  };
  for (size_t k = 0; k < rows.size(); ++k) {
    s.proto.damping[rows[k]] = per_row(L.damping, k);
    s.proto.friction[rows[k]] = per_row(L.friction, k);
    s.proto.stiffness[rows[k]] = per_row(L.stiffness, k);
  }
  if (row >= 0) {
    if (L.has_limits && L.type != "continuous") {
      s.proto.has_limits = true;
      s.proto.lower[row] = L.lower;
      s.proto.upper[row] = L.upper;
    }
  }
  // Does the loop close at the zero configuration?
  const Vec3 anchor_b = b.pos + quat_to_rot(b.quat) * L.xyz2;
  const Vec3 axis_b = quat_to_rot(quat_mul(b.quat, s.child_frame_link)) * Vec3::UnitZ();
  // (a joint that leaves all translations / rotations free cannot be open in them)
  const double gap = trans_kind(s.proto.type) == TransKind::Free ? 0.0 : (anchor_b - s.anchor).norm();
  const double tilt = rot_kind(s.proto.type) == RotKind::Free
                          ? 0.0
                          : std::acos(std::clamp(axis_b.dot(s.axis), -1.0, 1.0));
  if (gap > 1e-6 || tilt > 1e-6) {
    std::ostringstream w;
    w << xml_.where(L.e) << ": loop joint '" << L.name << "' is not closed at the zero "
      << "configuration (anchor gap " << gap << " m, axis angle " << tilt
      << " rad); the simulation start projects the state onto the constraints";
    report_->warnings.push_back(w.str());
  }
  return s;
}

void UrdfReader::add_motors(const std::vector<JointSpec>& specs, const BuildResult& built, Model* model) {
  for (size_t si = 0; si < specs.size(); ++si) {
    const int j = built.spec_joint[si];
    if (j < 0 || !specs[si].tree) continue;
    const Joint& jt = model->joints[j];
    int row = jt.type == JointType::Revolute ? 5 : jt.type == JointType::Prismatic ? 2 : -1;
    if (row < 0) continue;
    Actuator a;
    a.name = jt.name;
    a.kind = Actuator::Kind::Motor;
    a.joint = j;
    a.row = row;
    if (jt.effort[row] > 0) {
      a.force_limited = true;
      a.force_lower = -jt.effort[row];
      a.force_upper = jt.effort[row];
    }
    model->actuators.push_back(a);
  }
}

}  // namespace maxsim::urdf_detail

namespace maxsim::urdf_detail {

// <mimic joint multiplier offset>: an exact coupling q = offset + multiplier·q_leader of the two
// joints' coordinates (Model::couplings), for joints with one coordinate each.
void UrdfReader::add_mimics(Model* model) const {
  for (const MimicXml& m : mimics_) {
    if (m.fixed) {  // (a reduced model's fixed finger keeps its mimic tag: nothing moves to couple)
      report_->warnings.push_back(xml_.where(m.e) + ": <mimic> of fixed joint '" + m.joint + "' ignored");
      continue;
    }
    int rows[2] = {-1, -1}, index[2] = {-1, -1};
    const std::string* names[2] = {&m.joint, &m.leader};
    for (int k = 0; k < 2; ++k) {
      index[k] = model->find_joint(*names[k]).value_or(-1);
      if (index[k] < 0)
        xml_.fail(m.e, "<mimic> of joint '" + m.joint + "': joint '" + *names[k] +
                           "' is undefined or fixed (a mimic couples two moving joints)");
      const Joint& jt = model->joints[index[k]];
      if (jt.dof() != 1)
        xml_.fail(m.e, "<mimic> of joint '" + m.joint + "': joint '" + *names[k] +
                           "' has no single coordinate (revolute, continuous or prismatic)");
      rows[k] = jt.free_rows()[0];
    }
    if (index[0] == index[1]) xml_.fail(m.e, "joint '" + m.joint + "' mimics itself");
    Coupling c;
    c.name = m.joint + "_mimic";
    c.a = index[0];
    c.a_row = rows[0];
    c.b = index[1];
    c.b_row = rows[1];
    c.polycoef = {m.offset, m.multiplier, 0, 0, 0};
    model->couplings.push_back(c);
  }
}

}  // namespace maxsim::urdf_detail
