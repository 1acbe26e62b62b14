#include "models/urdf.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "models/builder.hpp"
#include "models/inertia.hpp"
#include "models/load_error.hpp"
#include "models/mesh.hpp"
#include "models/parse_util.hpp"

namespace maxsim {

namespace {

using tinyxml2::XMLElement;

// urdfdom reports through console_bridge; collect its messages instead of printing them.
class CaptureOutput : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) {
      if (!messages.empty()) messages += "; ";
      messages += text;
    }
  }
  std::string messages;
};
std::mutex g_console_mutex;

std::string attr_or(const XMLElement* e, const char* name, const char* fallback = "") {
  const char* v = e->Attribute(name);
  return v ? v : fallback;
}

// "ball" (spherical: three free rotations) is not URDF but the extension Dojo and
// ConstrainedDynamics use; urdfdom is handed the file with such joints as "floating".
const char* const kJointTypes[] = {"revolute", "continuous", "prismatic", "fixed", "floating",
                                   "planar", "ball"};

// What the tinyxml2 pass keeps per link / joint.
struct LinkXml {
  const XMLElement* e = nullptr;
  std::vector<const XMLElement*> visuals, collisions;
  double lateral_friction = -1;
};
struct JointXml {
  const XMLElement* e = nullptr;
  std::string type, parent, child;
  bool explicit_lower = false, explicit_upper = false;
};
struct LoopXml {
  const XMLElement* e = nullptr;
  std::string name, type, link1, link2;
  Vec3 xyz1 = Vec3::Zero(), rpy1 = Vec3::Zero(), xyz2 = Vec3::Zero(), rpy2 = Vec3::Zero();
  Vec3 axis = Vec3::UnitX();
  // <dynamics>: one value for every free row, or one per free row (empty: 0)
  std::vector<double> damping, friction, stiffness;
  bool has_limits = false;
  double lower = 0, upper = 0;
};

class UrdfReader {
 public:
  UrdfReader(const std::string& path, const LoadOptions& options, LoadReport* report)
      : path_(path), options_(options), report_(report) {}

  Model load();

 private:
  void prepass(const XMLElement* robot);
  void check_origin(const XMLElement* parent);
  void check_geometry(const XMLElement* owner);
  void check_material(const XMLElement* m);
  void check_link(const XMLElement* e, LinkXml* info);
  void check_joint(const XMLElement* e, JointXml* info);
  void read_loop(const XMLElement* e);
  void check_tree();

  std::vector<Geom> link_geoms(const urdf::Link& link, const LinkXml& info);

  std::string path_;
  LoadOptions options_;
  LoadReport* report_;
  parse::XmlFiles xml_;
  std::vector<std::string> link_order_;
  std::map<std::string, LinkXml> links_;
  std::vector<std::string> joint_order_;
  std::map<std::string, JointXml> joints_;
  std::vector<LoopXml> loops_;
  std::map<std::string, const XMLElement*> materials_;
  std::map<std::string, int> ignored_;
  int mimic_count_ = 0;
  std::map<std::string, std::pair<const XMLElement*, std::string>> inertia_issues_;
  MeshCache meshes_;
};

void UrdfReader::check_origin(const XMLElement* parent) {
  if (const XMLElement* o = parent->FirstChildElement("origin")) {
    xml_.vec3(o, "xyz");
    xml_.vec3(o, "rpy");
  }
}

void UrdfReader::check_material(const XMLElement* m) {
  if (const XMLElement* c = m->FirstChildElement("color")) {
    if (!c->Attribute("rgba")) xml_.fail(c, "<color> needs an rgba attribute");
    xml_.numbers(c, "rgba", 4);
  }
}

void UrdfReader::check_geometry(const XMLElement* owner) {
  check_origin(owner);
  const XMLElement* g = owner->FirstChildElement("geometry");
  if (!g) xml_.fail(owner, "<" + std::string(owner->Name()) + "> without <geometry>");
  const XMLElement* shape = g->FirstChildElement();
  if (!shape) xml_.fail(g, "<geometry> without a shape");
  const std::string s = shape->Name();
  auto positive = [&](const char* attr) {
    auto v = xml_.number(shape, attr);
    if (!v) xml_.fail(shape, "<" + s + "> needs a '" + attr + "' attribute");
    if (*v < 0) xml_.fail(shape, "<" + s + "> " + attr + " must not be negative");
  };
  if (s == "box") {
    auto v = xml_.numbers(shape, "size", 3);
    if (!v) xml_.fail(shape, "<box> needs a 'size' attribute");
    for (double x : *v)
      if (x < 0) xml_.fail(shape, "<box> size must not be negative");
  } else if (s == "sphere") {
    positive("radius");
  } else if (s == "cylinder") {
    positive("radius");
    positive("length");
  } else if (s == "mesh") {
    if (!shape->Attribute("filename")) xml_.fail(shape, "<mesh> needs a 'filename' attribute");
    xml_.numbers(shape, "scale", 3);
  } else {
    xml_.fail(shape, "unsupported geometry <" + s + "> (URDF geometries: box, sphere, cylinder, mesh)");
  }
  if (const XMLElement* m = owner->FirstChildElement("material")) check_material(m);
}

void UrdfReader::check_link(const XMLElement* e, LinkXml* info) {
  info->e = e;
  if (const XMLElement* in = e->FirstChildElement("inertial")) {
    check_origin(in);
    const XMLElement* m = in->FirstChildElement("mass");
    if (!m) xml_.fail(in, "<inertial> without <mass>");
    auto mass = xml_.number(m, "value");
    if (!mass) xml_.fail(m, "<mass> needs a 'value' attribute");
    if (*mass < 0)
      xml_.fail(m, "link '" + attr_or(e, "name") + "': negative mass (" + xml_.text(m, "value") + ")");
    const XMLElement* ie = in->FirstChildElement("inertia");
    if (!ie) xml_.fail(in, "<inertial> without <inertia>");
    double v[6];
    const char* names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    for (int k = 0; k < 6; ++k) {
      auto x = xml_.number(ie, names[k]);
      if (!x) xml_.fail(ie, std::string("<inertia> needs the attribute '") + names[k] + "'");
      v[k] = *x;
    }
    if (*mass > 0) {
      Mat3 I;
      I << v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5];
      const std::string err = check_mass_inertia(*mass, I);
      // An unphysical inertia (not positive definite, triangle inequality violated) is only
      // fatal for a link that is a body of its own: a part merged into a body by fixed joints is
      // judged by the merged body (real files have such parts, e.g. ANYmal's flat 'hatch' and
      // its camera links). Decided after merging, in load().
      if (!err.empty()) inertia_issues_[attr_or(e, "name")] = {ie, err};
    }
  }
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "visual") {
      check_geometry(c);
      info->visuals.push_back(c);
    } else if (n == "collision") {
      check_geometry(c);
      info->collisions.push_back(c);
    } else if (n == "contact") {
      if (const XMLElement* lf = c->FirstChildElement("lateral_friction")) {
        auto v = xml_.number(lf, "value");
        if (!v) xml_.fail(lf, "<lateral_friction> needs a 'value' attribute");
        if (*v < 0) xml_.fail(lf, "lateral_friction must not be negative");
        info->lateral_friction = *v;
      }
    }
  }
}

void UrdfReader::check_joint(const XMLElement* e, JointXml* info) {
  info->e = e;
  const std::string name = attr_or(e, "name");
  const char* type = e->Attribute("type");
  if (!type) xml_.fail(e, "joint '" + name + "' has no type");
  info->type = type;
  bool known = false;
  for (const char* t : kJointTypes) known = known || info->type == t;
  if (!known)
    xml_.fail(e, "joint '" + name + "': unknown joint type '" + info->type +
                     "' (URDF joint types: revolute, continuous, prismatic, fixed, floating, planar; "
                     "extension: ball)");
  const XMLElement* p = e->FirstChildElement("parent");
  const XMLElement* c = e->FirstChildElement("child");
  if (!p || !p->Attribute("link")) xml_.fail(e, "joint '" + name + "' has no <parent link=...>");
  if (!c || !c->Attribute("link")) xml_.fail(e, "joint '" + name + "' has no <child link=...>");
  info->parent = p->Attribute("link");
  info->child = c->Attribute("link");
  check_origin(e);
  if (const XMLElement* a = e->FirstChildElement("axis")) {
    auto ax = xml_.vec3(a, "xyz");
    const bool needs_axis = info->type == "revolute" || info->type == "continuous" ||
                            info->type == "prismatic" || info->type == "planar";
    if (ax && needs_axis && ax->norm() < 1e-12) xml_.fail(a, "joint '" + name + "': zero axis");
  }
  const XMLElement* lim = e->FirstChildElement("limit");
  if (lim) {
    for (const char* k : {"lower", "upper", "effort", "velocity"}) xml_.number(lim, k);
    info->explicit_lower = lim->Attribute("lower") != nullptr;
    info->explicit_upper = lim->Attribute("upper") != nullptr;
    const double lo = xml_.number(lim, "lower").value_or(0);
    const double hi = xml_.number(lim, "upper").value_or(0);
    if (lo > hi)
      xml_.fail(lim, "joint '" + name + "': lower limit " + std::to_string(lo) +
                         " is above the upper limit " + std::to_string(hi));
    if (xml_.number(lim, "effort").value_or(0) < 0 || xml_.number(lim, "velocity").value_or(0) < 0)
      xml_.fail(lim, "joint '" + name + "': effort and velocity limits must not be negative");
  } else if (info->type == "revolute" || info->type == "prismatic") {
    xml_.fail(e, "joint '" + name + "' of type " + info->type + " needs a <limit> element");
  }
  if (const XMLElement* d = e->FirstChildElement("dynamics")) {
    for (const char* k : {"damping", "friction"}) {
      auto v = xml_.number(d, k);
      if (v && *v < 0) xml_.fail(d, "joint '" + name + "': " + k + " must not be negative");
    }
  }
  if (const XMLElement* m = e->FirstChildElement("mimic")) {
    xml_.number(m, "multiplier");
    xml_.number(m, "offset");
    ++mimic_count_;
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
  L.name = attr_or(e, "name");
  L.type = attr_or(e, "type");
  if (L.type.empty()) xml_.fail(e, "loop joint '" + L.name + "' has no type");
  if (L.type != "revolute" && L.type != "continuous" && L.type != "prismatic" && L.type != "fixed" &&
      L.type != "planar")
    xml_.fail(e, "loop joint '" + L.name + "': unknown or unsupported loop joint type '" + L.type +
                     "' (revolute, continuous, prismatic, fixed, planar)");
  for (int k = 0; k < 2; ++k) {
    const char* tag = k == 0 ? "link1" : "link2";
    const XMLElement* l = e->FirstChildElement(tag);
    if (!l || !l->Attribute("link"))
      xml_.fail(e, "loop joint '" + L.name + "' needs <" + tag + " link=...>");
    (k == 0 ? L.link1 : L.link2) = l->Attribute("link");
    (k == 0 ? L.xyz1 : L.xyz2) = xml_.vec3(l, "xyz").value_or(Vec3::Zero());
    (k == 0 ? L.rpy1 : L.rpy2) = xml_.vec3(l, "rpy").value_or(Vec3::Zero());
  }
  if (const XMLElement* a = e->FirstChildElement("axis")) {
    L.axis = xml_.vec3(a, "xyz").value_or(Vec3::UnitX());
    if (L.axis.norm() < 1e-12) xml_.fail(a, "loop joint '" + L.name + "': zero axis");
  }
  if (const XMLElement* d = e->FirstChildElement("dynamics")) {
    // maxsim extension: stiffness (a spring towards the zero configuration), and for a planar
    // loop joint one value per free row (x, y translation, rotation about the axis)
    const int dof = L.type == "planar" ? 3 : L.type == "fixed" ? 0 : 1;
    for (const char* k : {"damping", "friction", "stiffness"}) {
      std::vector<double> v = xml_.numbers(d, k, 1, 3).value_or(std::vector<double>{});
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
      L.has_limits = true;
      L.lower = *lo;
      L.upper = *hi;
    }
  }
  loops_.push_back(L);
}

void UrdfReader::prepass(const XMLElement* robot) {
  // Joint types first: an unknown type is the most basic problem of a file.
  for (const XMLElement* c = robot->FirstChildElement("joint"); c; c = c->NextSiblingElement("joint")) {
    const char* type = c->Attribute("type");
    if (!type) xml_.fail(c, "joint '" + attr_or(c, "name") + "' has no type");
    bool known = false;
    for (const char* t : kJointTypes) known = known || std::strcmp(type, t) == 0;
    if (!known)
      xml_.fail(c, "joint '" + attr_or(c, "name") + "': unknown joint type '" + type +
                       "' (URDF joint types: revolute, continuous, prismatic, fixed, floating, planar; "
                       "extension: ball)");
  }
  for (const XMLElement* c = robot->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "link") {
      const char* name = c->Attribute("name");
      if (!name || !*name) xml_.fail(c, "<link> without a name");
      auto it = links_.find(name);
      if (it != links_.end())
        xml_.fail(c, std::string("duplicate link '") + name + "' (first defined at line " +
                         std::to_string(it->second.e->GetLineNum()) + ")");
      check_link(c, &links_[name]);
      link_order_.push_back(name);
    } else if (n == "joint") {
      const std::string name = attr_or(c, "name");
      auto it = joints_.find(name);
      if (it != joints_.end())
        xml_.fail(c, "duplicate joint '" + name + "' (first defined at line " +
                         std::to_string(it->second.e->GetLineNum()) + ")");
      check_joint(c, &joints_[name]);
      joint_order_.push_back(name);
    } else if (n == "material") {
      const std::string name = attr_or(c, "name");
      auto it = materials_.find(name);
      if (it != materials_.end())
        xml_.fail(c, "material '" + name + "' is defined twice (first at line " +
                         std::to_string(it->second->GetLineNum()) +
                         "); urdfdom rejects duplicate material names");
      check_material(c);
      materials_[name] = c;
    } else if (n == "loop_joint") {
      read_loop(c);
    } else {
      ++ignored_["<" + n + ">"];
    }
  }
  if (links_.empty()) xml_.fail(robot, "the robot has no links");
  check_tree();
  for (const auto& L : loops_) {
    for (const std::string* ln : {&L.link1, &L.link2})
      if (!links_.count(*ln))
        xml_.fail(L.e, "loop joint '" + L.name + "' refers to undefined link '" + *ln + "'");
  }
}

void UrdfReader::check_tree() {
  std::map<std::string, std::string> parent_joint;  // child link -> joint name
  for (const auto& jn : joint_order_) {
    const JointXml& j = joints_[jn];
    for (const std::string* ln : {&j.parent, &j.child}) {
      if (!links_.count(*ln)) {
        const XMLElement* where = j.e->FirstChildElement(ln == &j.parent ? "parent" : "child");
        xml_.fail(where, "joint '" + jn + "' refers to undefined link '" + *ln + "'");
      }
    }
    if (j.parent == j.child) xml_.fail(j.e, "joint '" + jn + "' connects link '" + j.parent + "' to itself");
    auto it = parent_joint.find(j.child);
    if (it != parent_joint.end())
      xml_.fail(j.e, "link '" + j.child + "' has two parent joints, '" + it->second + "' (line " +
                         std::to_string(joints_[it->second].e->GetLineNum()) + ") and '" + jn +
                         "': a URDF must be a tree (close loops with <loop_joint>)");
    parent_joint[j.child] = jn;
  }
  // Cycles: follow the parents from every link.
  for (const auto& ln : link_order_) {
    std::set<std::string> seen;
    std::string cur = ln;
    while (parent_joint.count(cur)) {
      if (!seen.insert(cur).second) {
        const JointXml& j = joints_[parent_joint[cur]];
        xml_.fail(j.e, "kinematic cycle in the URDF tree through link '" + cur + "'");
      }
      cur = joints_[parent_joint[cur]].parent;
    }
  }
  std::vector<std::string> roots;
  for (const auto& ln : link_order_)
    if (!parent_joint.count(ln)) roots.push_back(ln);
  if (roots.size() > 1) {
    std::string list;
    for (const auto& r : roots) list += (list.empty() ? "'" : ", '") + r + "'";
    xml_.fail(links_[roots[1]].e, "several root links (" + list +
                                      "): a URDF must be one tree (attach them with joints)");
  }
}

std::vector<Geom> UrdfReader::link_geoms(const urdf::Link& link, const LinkXml& info) {
  std::vector<Geom> out;
  const std::string base_dir = parse::dir_of(path_);
  const std::vector<std::string> pkg = package_search_path(options_);
  auto convert = [&](const urdf::Pose& origin, const urdf::GeometrySharedPtr& geo,
                     const XMLElement* xml_owner, bool collision, const std::string& name,
                     Geom* g) -> bool {
    g->name = name;
    g->collision = collision;
    g->pos = Vec3(origin.position.x, origin.position.y, origin.position.z);
    double qx, qy, qz, qw;
    origin.rotation.getQuaternion(qx, qy, qz, qw);
    g->quat = quat_normalize(Vec4(qw, qx, qy, qz));
    switch (geo->type) {
      case urdf::Geometry::SPHERE:
        g->type = GeomType::Sphere;
        g->size = Vec3(static_cast<const urdf::Sphere&>(*geo).radius, 0, 0);
        break;
      case urdf::Geometry::BOX: {
        const auto& b = static_cast<const urdf::Box&>(*geo);
        g->type = GeomType::Box;
        g->size = 0.5 * Vec3(b.dim.x, b.dim.y, b.dim.z);
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& c = static_cast<const urdf::Cylinder&>(*geo);
        g->type = GeomType::Cylinder;
        g->size = Vec3(c.radius, 0.5 * c.length, 0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(*geo);
        g->type = GeomType::Mesh;
        g->mesh_scale = Vec3(m.scale.x, m.scale.y, m.scale.z);
        const XMLElement* mesh_el = xml_owner->FirstChildElement("geometry")->FirstChildElement();
        std::string tried;
        const std::string file = resolve_resource(m.filename, base_dir, pkg, &tried);
        std::string problem;
        if (file.empty()) {
          problem = "mesh '" + m.filename + "' not found (looked for " + tried + ")";
        } else {
          try {
            const MeshData& data = meshes_.get(file, g->mesh_scale);
            g->mesh_file = file;
            g->vertices = data.vertices;
            g->faces = data.faces;
          } catch (const LoadError& e) {
            problem = "mesh '" + m.filename + "': " + e.what();
          }
        }
        if (!problem.empty()) {
          if (collision)
            xml_.fail(mesh_el, "link '" + link.name + "': collision " + problem);
          report_->warnings.push_back(xml_.where(mesh_el) + ": link '" + link.name + "': visual " +
                                      problem + "; visual dropped");
          return false;
        }
        break;
      }
    }
    return true;
  };
  // urdfdom keeps the elements in file order, as the tinyxml2 pass does.
  for (size_t k = 0; k < link.collision_array.size(); ++k) {
    const auto& c = *link.collision_array[k];
    Geom g;
    if (!c.geometry) continue;
    if (convert(c.origin, c.geometry, info.collisions.at(k), true, c.name, &g)) {
      if (info.lateral_friction >= 0) g.friction = info.lateral_friction;
      out.push_back(std::move(g));
    }
  }
  for (size_t k = 0; k < link.visual_array.size(); ++k) {
    const auto& v = *link.visual_array[k];
    Geom g;
    if (!v.geometry) continue;
    if (convert(v.origin, v.geometry, info.visuals.at(k), false, v.name, &g)) {
      if (v.material)
        g.rgba = Eigen::Vector4d(v.material->color.r, v.material->color.g, v.material->color.b,
                                 v.material->color.a);
      out.push_back(std::move(g));
    }
  }
  return out;
}

Model UrdfReader::load() {
  tinyxml2::XMLDocument& doc = xml_.load(path_);
  const XMLElement* robot = doc.RootElement();
  if (std::strcmp(robot->Name(), "robot") != 0)
    xml_.fail(robot, std::string("root element is <") + robot->Name() +
                         ">, expected <robot> (not a URDF robot description)");
  prepass(robot);

  // urdfdom for the standard elements.
  std::string content;
  {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    content = ss.str();
  }
  bool has_ball = false;
  for (const auto& [jn, jx] : joints_) has_ball = has_ball || jx.type == "ball";
  if (has_ball) {  // urdfdom does not know "ball": it gets "floating" (same XML otherwise)
    tinyxml2::XMLDocument copy;
    doc.DeepCopy(&copy);
    for (XMLElement* j = copy.RootElement()->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint"))
      if (std::strcmp(j->Attribute("type"), "ball") == 0) j->SetAttribute("type", "floating");
    tinyxml2::XMLPrinter printer;
    copy.Print(&printer);
    content = printer.CStr();
  }
  urdf::ModelInterfaceSharedPtr urdf_model;
  std::string urdf_messages;
  {
    std::lock_guard<std::mutex> lock(g_console_mutex);
    CaptureOutput capture;
    console_bridge::useOutputHandler(&capture);
    try {
      urdf_model = urdf::parseURDF(content);
    } catch (const std::exception& e) {
      capture.messages += e.what();
    }
    console_bridge::restorePreviousOutputHandler();
    urdf_messages = capture.messages;
  }
  if (!urdf_model)
    throw LoadError(path_, "urdfdom rejected the file: " +
                               (urdf_messages.empty() ? std::string("(no message)") : urdf_messages));

  Model model;
  model.name = urdf_model->getName();
  model.source_file = path_;
  model.implicit_ground = true;  // URDF describes no world: the robot stands on the ground

  // Zero-configuration poses of the link frames, from the root down.
  std::map<std::string, int> index;
  std::vector<LinkSpec> links;
  for (const auto& ln : link_order_) {
    index[ln] = static_cast<int>(links.size());
    LinkSpec s;
    s.name = ln;
    s.file = path_;
    s.line = links_[ln].e->GetLineNum();
    links.push_back(s);
  }
  std::map<std::string, std::string> parent_joint;
  for (const auto& jn : joint_order_) parent_joint[joints_[jn].child] = jn;
  std::vector<bool> posed(links.size(), false);
  std::function<void(int)> pose = [&](int l) {
    if (posed[l]) return;
    posed[l] = true;
    auto it = parent_joint.find(links[l].name);
    if (it == parent_joint.end()) return;  // root: at the origin
    const int p = index[joints_[it->second].parent];
    pose(p);
    const urdf::JointConstSharedPtr uj = urdf_model->getJoint(it->second);
    const urdf::Pose& o = uj->parent_to_joint_origin_transform;
    double qx, qy, qz, qw;
    o.rotation.getQuaternion(qx, qy, qz, qw);
    links[l].pos = links[p].pos + quat_to_rot(links[p].quat) * Vec3(o.position.x, o.position.y, o.position.z);
    links[l].quat = quat_normalize(quat_mul(links[p].quat, quat_normalize(Vec4(qw, qx, qy, qz))));
  };
  for (size_t l = 0; l < links.size(); ++l) pose(static_cast<int>(l));

  for (size_t l = 0; l < links.size(); ++l) {
    const urdf::LinkConstSharedPtr ul = urdf_model->getLink(links[l].name);
    if (!ul) throw LoadError(path_, links[l].line, "urdfdom lost link '" + links[l].name + "'");
    const bool is_world = links[l].name == "world";
    if (ul->inertial && !is_world) {
      const auto& in = *ul->inertial;
      double qx, qy, qz, qw;
      in.origin.rotation.getQuaternion(qx, qy, qz, qw);
      Mat3 I;
      I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      links[l].mass.mass = in.mass;
      links[l].mass.com = Vec3(in.origin.position.x, in.origin.position.y, in.origin.position.z);
      links[l].mass.inertia = rotate_inertia(I, quat_normalize(Vec4(qw, qx, qy, qz)));
    }
    links[l].geoms = link_geoms(*ul, links_[links[l].name]);
  }

  // Joints.
  std::vector<JointSpec> specs;
  int friction_count = 0;
  for (size_t l = 0; l < links.size(); ++l) {
    auto it = parent_joint.find(links[l].name);
    if (it == parent_joint.end()) {
      JointSpec s;
      s.child = static_cast<int>(l);
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
      specs.push_back(s);
      continue;
    }
    const JointXml& jx = joints_[it->second];
    const urdf::JointConstSharedPtr uj = urdf_model->getJoint(it->second);
    JointSpec s;
    s.proto.name = it->second;
    s.parent = index[jx.parent];
    s.child = static_cast<int>(l);
    s.file = path_;
    s.line = jx.e->GetLineNum();
    s.anchor = links[l].pos;
    Vec3 axis(uj->axis.x, uj->axis.y, uj->axis.z);
    if (axis.norm() < 1e-12) axis = Vec3::UnitX();
    s.axis = quat_to_rot(links[l].quat) * axis.normalized();
    int row = -1;
    std::vector<int> rows;
    if (jx.type == "revolute" || jx.type == "continuous") {
      s.proto.type = JointType::Revolute;
      row = 5;
      rows = {5};
    } else if (jx.type == "prismatic") {
      s.proto.type = JointType::Prismatic;
      row = 2;
      rows = {2};
    } else if (jx.type == "fixed") {
      s.proto.type = JointType::Fixed;
    } else if (jx.type == "floating") {
      s.proto.type = JointType::Floating;
      s.frames = FrameRule::FreeBase;  // identity frames when the parent is the world
      s.axis = quat_to_rot(links[l].quat) * Vec3::UnitZ();
      rows = {0, 1, 2, 3, 4, 5};
    } else if (jx.type == "planar") {
      s.proto.type = JointType::PlanarAxis;
      rows = {0, 1, 5};
    } else if (jx.type == "ball") {
      s.proto.type = JointType::Spherical;
      rows = {3, 4, 5};
    }
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
      if (uj->dynamics->friction > 0 && !rows.empty()) ++friction_count;
    }
    specs.push_back(s);
  }

  // Loop joints.
  for (const LoopXml& L : loops_) {
    JointSpec s;
    s.proto.name = L.name;
    s.tree = false;
    s.parent = index[L.link1];
    s.child = index[L.link2];
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
    int row = -1;
    std::vector<int> rows;
    if (L.type == "revolute" || L.type == "continuous") {
      s.proto.type = JointType::Revolute;
      row = 5;
      rows = {5};
    } else if (L.type == "prismatic") {
      s.proto.type = JointType::Prismatic;
      row = 2;
      rows = {2};
    } else if (L.type == "planar") {  // URDF planar: slide in the plane normal to the axis, turn about it
      s.proto.type = JointType::PlanarAxis;
      rows = {0, 1, 5};
    } else {
      s.proto.type = JointType::Fixed;
    }
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
    const double gap = (anchor_b - s.anchor).norm();
    const double tilt = std::acos(std::clamp(axis_b.dot(s.axis), -1.0, 1.0));
    if (gap > 1e-6 || tilt > 1e-6) {
      std::ostringstream w;
      w << xml_.where(L.e) << ": loop joint '" << L.name << "' is not closed at the zero "
        << "configuration (anchor gap " << gap << " m, axis angle " << tilt
        << " rad); the simulation start projects the state onto the constraints";
      report_->warnings.push_back(w.str());
    }
    specs.push_back(s);
  }

  BuildResult built;
  build_model(links, specs, options_, &model, &built, report_);

  // Actuators: one motor per movable single-coordinate joint.
  for (size_t si = 0; si < specs.size(); ++si) {
    const int j = built.spec_joint[si];
    if (j < 0 || !specs[si].tree) continue;
    const Joint& jt = model.joints[j];
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
    model.actuators.push_back(a);
  }

  for (const auto& [ln, issue] : inertia_issues_) {
    int merged_into_count = 0;
    std::string body = ln;
    for (const auto& [part, into] : report_->merged) {
      if (part == ln) body = into;
      if (into == ln) ++merged_into_count;
    }
    if (body == ln && merged_into_count == 0)
      xml_.fail(issue.first, "link '" + ln + "': " + issue.second);
    report_->warnings.push_back(xml_.where(issue.first) + ": link '" + ln + "': " + issue.second +
                                "; accepted because the link is part of the rigid body '" + body +
                                "'");
  }
  if (!ignored_.empty()) {
    std::string list;
    for (const auto& [k, n] : ignored_) list += (list.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    report_->warnings.push_back(path_ + ": ignored URDF elements: " + list);
  }
  if (mimic_count_ > 0)
    report_->warnings.push_back(path_ + ": " + std::to_string(mimic_count_) +
                                " <mimic> joint coupling(s) ignored: those joints move independently");
  if (friction_count > 0)
    report_->warnings.push_back(path_ + ": dry friction of " + std::to_string(friction_count) +
                                " joint(s) stored in Joint::friction (enforced only where the "
                                "engine supports joint friction)");
  validate_or_throw(model, path_);
  return model;
}

}  // namespace

Model load_urdf(const std::string& path, const LoadOptions& options, LoadReport* report) {
  LoadReport local;
  UrdfReader reader(path, options, report ? report : &local);
  return reader.load();
}

}  // namespace maxsim
