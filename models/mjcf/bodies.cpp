// <worldbody> and <body>: the link of each body (virtual links before it when it has several
// joints), its geoms and mass properties, the joint that welds a jointless body to its parent.
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
  int prev = parent_link;
  std::vector<int> chain;  // link receiving each joint
  for (int i = 0; i + 1 < k; ++i) {
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
  for (int i = 0; i < k; ++i) {
    const XMLElement* j = std::get<0>(jparts[i]);
    read_joint(j, std::get<1>(jparts[i]), class_of(j, std::get<2>(jparts[i])), jnames[i], jkinds[i],
               i == 0 ? parent_link : chain[i - 1], chain[i], world);
  }

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
