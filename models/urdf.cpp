#include "models/urdf.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

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

// Joint types: URDF's, then the dialect of the seed's own implementations. Dojo.jl and
// ConstrainedDynamics.jl read "ball", "fixedorientation", "cylindrical", "cylindricalfree",
// "planaraxis", "planarfree" and (Dojo) "orbital" (joint_selector in their urdf.jl); the other
// prototypes of Dojo's joints/prototypes.jl are accepted in the same lowercase spelling. Each is a
// translational x rotational part of seed 003 App. B with Dojo's axis convention: a part with one
// constrained row constrains along / about the axis, a part with two constrains the two directions
// perpendicular to it (Dojo's constraint_mask: axis_mask3, or axis_mask1 and axis_mask2), so the
// axis is the engine joint frame's z. urdfdom is handed the dialect joints as "floating".
// (Dojo's and ConstrainedDynamics' "planar" is a Planar joint without rotation; maxsim keeps the
// URDF reading, PlanarAxis, and warns when a file that uses the dialect has one.)
struct UrdfJointType {
  const char* name;
  JointType type;
  bool dialect;    // not URDF
  bool uses_axis;  // the joint is built from <axis> (Dojo ignores it for the others)
};
constexpr UrdfJointType kJointTypes[] = {
    {"revolute", JointType::Revolute, false, true},
    {"continuous", JointType::Revolute, false, true},
    {"prismatic", JointType::Prismatic, false, true},
    {"fixed", JointType::Fixed, false, false},
    {"floating", JointType::Floating, false, false},
    {"planar", JointType::PlanarAxis, false, true},
    {"ball", JointType::Spherical, true, false},
    {"spherical", JointType::Spherical, true, false},
    {"fixedorientation", JointType::FixedOrientation, true, false},
    {"cylindrical", JointType::Cylindrical, true, true},
    {"planaraxis", JointType::PlanarAxis, true, true},
    {"freerevolute", JointType::FreeRevolute, true, true},
    {"orbital", JointType::Orbital, true, true},
    {"prismaticorbital", JointType::PrismaticOrbital, true, true},
    {"planarorbital", JointType::PlanarOrbital, true, true},
    {"freeorbital", JointType::FreeOrbital, true, true},
    {"cylindricalfree", JointType::CylindricalFree, true, true},
    {"planarfree", JointType::PlanarFree, true, true},
};

const UrdfJointType* find_joint_type(const char* name) {
  for (const UrdfJointType& t : kJointTypes)
    if (std::strcmp(name, t.name) == 0) return &t;
  return nullptr;
}

std::string joint_type_list() {
  std::string urdf, dialect;
  for (const UrdfJointType& t : kJointTypes) {
    std::string& list = t.dialect ? dialect : urdf;
    list += (list.empty() ? "" : ", ") + std::string(t.name);
  }
  return "URDF joint types: " + urdf + "; Dojo/ConstrainedDynamics extensions: " + dialect;
}

int free_rows_of(JointType type) {
  Joint j;
  j.type = type;
  return j.dof();
}

// A top-level <material>: what a redefinition must repeat.
struct MaterialDef {
  const XMLElement* e = nullptr;
  std::optional<std::vector<double>> rgba;
  std::string texture;
};

// What the tinyxml2 pass keeps per link / joint.
struct LinkXml {
  const XMLElement* e = nullptr;
  std::vector<const XMLElement*> visuals, collisions;
  double lateral_friction = -1;
};
struct JointXml {
  const XMLElement* e = nullptr;
  std::string type, parent, child;
  const UrdfJointType* kind = nullptr;
  Vec3 axis = Vec3::UnitX();  // in the URDF joint frame, unit length (URDF's default: x)
  bool explicit_lower = false, explicit_upper = false;
};
struct LoopXml {
  const XMLElement* e = nullptr;
  std::string name, type, link1, link2;
  const UrdfJointType* kind = nullptr;
  Vec3 xyz1 = Vec3::Zero(), rpy1 = Vec3::Zero(), xyz2 = Vec3::Zero(), rpy2 = Vec3::Zero();
  Vec3 axis = Vec3::UnitX();
  // <dynamics>: one value for every free row, or one per free row (empty: 0)
  std::vector<double> damping, friction, stiffness;
  bool has_limits = false;
  double lower = 0, upper = 0;
};

// A robot-level <nonholonomic> (read_nonholonomic): the constraint with its vectors in the link frame.
struct NonholonomicXml {
  const XMLElement* e = nullptr;
  std::string link;
  NonholonomicConstraint proto;
};

class UrdfReader {
 public:
  UrdfReader(const std::string& path, const LoadOptions& options, LoadReport* report)
      : path_(path), options_(options), report_(report), xml_(options.limits), meshes_(options.limits) {}

  Model load();

 private:
  void prepass(const XMLElement* robot);
  void check_origin(const XMLElement* parent);
  void check_geometry(const XMLElement* owner);
  void check_material(const XMLElement* m);
  void check_link(const XMLElement* e, LinkXml* info);
  void check_joint(const XMLElement* e, JointXml* info);
  void read_loop(const XMLElement* e);
  void read_nonholonomic(const XMLElement* e);
  void read_maxsim(const XMLElement* e);
  void check_tree();

  std::vector<Geom> link_geoms(const urdf::Link& link, const LinkXml& info);
  std::string urdfdom_text(const tinyxml2::XMLDocument& doc) const;

  std::string path_;
  LoadOptions options_;
  LoadReport* report_;
  parse::XmlFiles xml_;
  std::vector<std::string> link_order_;
  std::map<std::string, LinkXml> links_;
  std::vector<std::string> joint_order_;
  std::map<std::string, JointXml> joints_;
  std::vector<LoopXml> loops_;
  std::vector<NonholonomicXml> nonholonomic_;
  const XMLElement* maxsim_elem_ = nullptr;  // <maxsim integrator=...>
  Integrator integrator_ = Integrator::Variational;
  std::map<std::string, MaterialDef> materials_;
  bool rewrite_for_urdfdom_ = false;  // dialect joints, missing limits, capsules, repeated materials
  std::vector<std::string> zero_axis_, no_limit_;  // joints, for one warning each
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
  // sizes as the MJCF loader takes them: a solid of zero extent has no volume, inertia or surface
  auto positive = [&](const char* attr) {
    auto v = xml_.number(shape, attr);
    if (!v) xml_.fail(shape, "<" + s + "> needs a '" + attr + "' attribute");
    if (!(*v > 0))
      xml_.fail(shape, "<" + s + "> " + attr + " must be positive (got " + xml_.text(shape, attr) + ")");
  };
  if (s == "box") {
    auto v = xml_.numbers(shape, "size", 3);
    if (!v) xml_.fail(shape, "<box> needs a 'size' attribute");
    for (double x : *v)
      if (!(x > 0)) xml_.fail(shape, "<box> size must be positive in x, y and z (got '" + xml_.text(shape, "size") + "')");
  } else if (s == "sphere") {
    positive("radius");
  } else if (s == "cylinder") {
    positive("radius");
    positive("length");
  } else if (s == "capsule") {
    // Dojo's extension (src/mechanism/urdf.jl, get_shape): length is the distance between the
    // centres of the two end spheres (Capsule(r, h): a cylinder of height h along z and spheres at
    // z = ±h/2). urdfdom is handed it as a cylinder with the same attributes.
    positive("radius");
    positive("length");
    rewrite_for_urdfdom_ = true;
  } else if (s == "mesh") {
    if (!shape->Attribute("filename")) xml_.fail(shape, "<mesh> needs a 'filename' attribute");
    if (auto scale = xml_.numbers(shape, "scale", 3))
      for (double x : *scale)
        if (x == 0) xml_.fail(shape, "<mesh> scale must not be zero (got '" + xml_.text(shape, "scale") + "')");
  } else {
    xml_.fail(shape, "unsupported geometry <" + s +
                         "> (URDF geometries: box, sphere, cylinder, mesh; Dojo extension: capsule)");
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
    if (*mass > 0)
      if (const std::string err = check_mass_range(*mass, options_.limits); !err.empty())
        xml_.fail_limit(m, "link '" + attr_or(e, "name") + "': " + err);
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
    if (n == "visual" || n == "collision") {
      xml_.count_geom(c, "visual and collision geometries");
      check_geometry(c);
      (n == "visual" ? info->visuals : info->collisions).push_back(c);
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
  info->kind = find_joint_type(type);
  if (!info->kind)
    xml_.fail(e, "joint '" + name + "': unknown joint type '" + info->type + "' (" + joint_type_list() + ")");
  if (info->kind->dialect) rewrite_for_urdfdom_ = true;
  const XMLElement* p = e->FirstChildElement("parent");
  const XMLElement* c = e->FirstChildElement("child");
  if (!p || !p->Attribute("link")) xml_.fail(e, "joint '" + name + "' has no <parent link=...>");
  if (!c || !c->Attribute("link")) xml_.fail(e, "joint '" + name + "' has no <child link=...>");
  info->parent = p->Attribute("link");
  info->child = c->Attribute("link");
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
  // Dojo and ConstrainedDynamics build loop joints with the same joint_selector as tree joints.
  L.kind = find_joint_type(L.type.c_str());
  if (!L.kind || L.kind->type == JointType::Floating)
    xml_.fail(e, "loop joint '" + L.name + "': unknown or unsupported loop joint type '" + L.type +
                     "' (" + joint_type_list() + "; a floating loop joint would constrain nothing)");
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

// <nonholonomic name type> with <link name/>, <radius value/>, <axis xyz/>, <origin xyz/> (a knife
// edge's point) and <direction xyz/>, the vectors in the link frame; nothing else (a parameter
// the kind does not take is refused rather than ignored).
void UrdfReader::read_nonholonomic(const XMLElement* e) {
  NonholonomicXml N;
  N.e = e;
  N.proto.name = attr_or(e, "name");
  const std::string what = "nonholonomic constraint '" + N.proto.name + "'";
  if (N.proto.name.empty()) xml_.fail(e, "<nonholonomic> needs a name");
  const std::string type = attr_or(e, "type");
  if (type.empty()) xml_.fail(e, what + " has no type (" + nonholonomic_kind_list() + ")");
  if (!nonholonomic_kind_from_name(type, &N.proto.kind))
    xml_.fail(e, what + ": unknown type '" + type + "' (" + nonholonomic_kind_list() + ")");
  std::set<std::string> given;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (!given.insert(n).second) xml_.fail(c, what + ": <" + n + "> is given twice");
    if (n == "link") {
      N.link = attr_or(c, "name");
      if (N.link.empty()) xml_.fail(c, what + ": <link> needs a name");
      continue;
    }
    const std::string key = n == "origin" ? "point" : n;
    if (key != "radius" && key != "axis" && key != "point" && key != "direction")
      xml_.fail(c, what + ": unknown element <" + n + "> (link, radius, axis, origin, direction)");
    if (nonholonomic_parameter(N.proto.kind, key) == ParameterUse::None)
      xml_.fail(c, what + ": " + type + " takes no <" + n + ">");
    if (key == "radius") {
      const auto r = xml_.number(c, "value");
      if (!r) xml_.fail(c, what + ": <radius> needs a 'value' attribute");
      if (!(*r > 0)) xml_.fail(c, what + ": radius must be positive (got " + xml_.text(c, "value") + ")");
      N.proto.radius = *r;
    } else if (key == "point") {
      if (c->Attribute("rpy")) xml_.fail(c, what + ": <origin> of a nonholonomic constraint takes xyz only (a point)");
      N.proto.point = xml_.vec3(c, "xyz").value_or(Vec3::Zero());
    } else {
      const auto v = xml_.vec3(c, "xyz");
      if (!v) xml_.fail(c, what + ": <" + n + "> needs an 'xyz' attribute");
      if (!(v->norm() > 0)) xml_.fail(c, what + ": zero " + n);
      (key == "axis" ? N.proto.axis : N.proto.direction) = parse::scaled(*v);
    }
  }
  if (N.link.empty()) xml_.fail(e, what + " needs <link name=...>");
  if (const char* key = missing_nonholonomic_parameter(N.proto.kind, given))
    xml_.fail(e, what + ": " + type + " needs <" + key + (key[0] == 'r' ? " value=...>" : " xyz=...>"));
  nonholonomic_.push_back(N);
}

// <maxsim integrator="variational|energy-momentum"/>: the model's options that URDF has no place for.
void UrdfReader::read_maxsim(const XMLElement* e) {
  if (maxsim_elem_)
    xml_.fail(e, "<maxsim> is given twice (first at line " + std::to_string(maxsim_elem_->GetLineNum()) + ")");
  maxsim_elem_ = e;
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
    if (std::strcmp(a->Name(), "integrator") != 0)
      xml_.fail(e, std::string("<maxsim>: unknown attribute '") + a->Name() + "' (integrator)");
  const std::string value = attr_or(e, "integrator", "variational");
  if (!integrator_from_name(value, &integrator_))
    xml_.fail(e, "<maxsim>: integrator '" + value + "' is not one of variational, energy-momentum");
}

void UrdfReader::prepass(const XMLElement* robot) {
  // Joint types first: an unknown type is the most basic problem of a file.
  for (const XMLElement* c = robot->FirstChildElement("joint"); c; c = c->NextSiblingElement("joint")) {
    const char* type = c->Attribute("type");
    if (!type) xml_.fail(c, "joint '" + attr_or(c, "name") + "' has no type");
    if (!find_joint_type(type))
      xml_.fail(c, "joint '" + attr_or(c, "name") + "': unknown joint type '" + type + "' (" +
                       joint_type_list() + ")");
  }
  for (const XMLElement* c = robot->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "link") {
      const char* name = c->Attribute("name");
      if (!name || !*name) xml_.fail(c, "<link> without a name");
      if (static_cast<long long>(link_order_.size()) >= options_.limits.bodies)
        xml_.fail_limit(c, "more than " + std::to_string(options_.limits.bodies) + " links" +
                         limit_hint("bodies", "bodies=N"));
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
      check_material(c);
      const std::string name = attr_or(c, "name");
      MaterialDef def;
      def.e = c;
      if (const XMLElement* col = c->FirstChildElement("color")) def.rgba = xml_.numbers(col, "rgba", 4);
      if (const XMLElement* tex = c->FirstChildElement("texture")) def.texture = attr_or(tex, "filename");
      auto it = materials_.find(name);
      if (it == materials_.end()) {
        materials_[name] = def;
        continue;
      }
      // urdfdom rejects any second definition. One that repeats the colour and texture says
      // nothing new (ConstrainedDynamics and Dojo keep the last one): it is dropped. A
      // different one would make the colour depend on which definition a reader keeps.
      const MaterialDef& first = it->second;
      if (def.rgba != first.rgba || def.texture != first.texture) {
        auto describe = [&](const MaterialDef& d) {
          std::string out;
          if (const XMLElement* col = d.e->FirstChildElement("color")) out += "rgba '" + xml_.text(col, "rgba") + "'";
          if (!d.texture.empty()) out += (out.empty() ? "" : ", ") + std::string("texture '") + d.texture + "'";
          return out.empty() ? std::string("no colour") : out;
        };
        xml_.fail(c, "material '" + name + "' is defined again with a different colour or texture (" +
                         describe(def) + ") than at " + xml_.where(first.e) + " (" + describe(first) +
                         "); give the second one another name");
      }
      rewrite_for_urdfdom_ = true;
    } else if (n == "loop_joint") {
      read_loop(c);
    } else if (n == "nonholonomic") {
      read_nonholonomic(c);
    } else if (n == "maxsim") {
      read_maxsim(c);
    } else {
      ++ignored_["<" + n + ">"];
    }
  }
  if (links_.empty()) xml_.fail(robot, "the robot has no links");
  check_tree();
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (!zero_axis_.empty())
    report_->warnings.push_back(path_ + ": zero <axis> on joint(s) " + list(zero_axis_) +
                                ": the joint frame's z axis is used, as Dojo's constraint rows read "
                                "a zero axis");
  if (!no_limit_.empty())
    report_->warnings.push_back(path_ + ": revolute/prismatic joint(s) without <limit> " + list(no_limit_) +
                                ": loaded without position limits, as Dojo reads them");
  bool dialect = false;
  for (const auto& [jn, jx] : joints_) dialect = dialect || jx.kind->dialect;
  if (dialect)
    for (const auto& jn : joint_order_)
      if (joints_[jn].type == "planar")
        report_->warnings.push_back(
            xml_.where(joints_[jn].e) + ": joint '" + jn +
            "': 'planar' is read as in URDF (slides in the plane normal to the axis and turns about "
            "the axis, 3 free rows); Dojo and ConstrainedDynamics read it without the rotation");
  for (const auto& L : loops_) {
    for (const std::string* ln : {&L.link1, &L.link2})
      if (!links_.count(*ln))
        xml_.fail(L.e, "loop joint '" + L.name + "' refers to undefined link '" + *ln + "'");
  }
  for (const auto& N : nonholonomic_)
    if (!links_.count(N.link))
      xml_.fail(N.e->FirstChildElement("link"),
                "nonholonomic constraint '" + N.proto.name + "' refers to undefined link '" + N.link + "'");
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
  // Cycles: follow the parents from every link, each link once (a walk stops at a link an
  // earlier walk has finished), so the check is linear in the links.
  enum class Walk { New, OnPath, Done };
  std::map<std::string, Walk> state;
  std::vector<std::string> path;
  for (const auto& ln : link_order_) {
    path.clear();
    std::string cur = ln;
    while (true) {
      Walk& st = state[cur];
      if (st == Walk::Done) break;
      if (st == Walk::OnPath)
        xml_.fail(joints_[parent_joint[cur]].e, "kinematic cycle in the URDF tree through link '" + cur + "'");
      st = Walk::OnPath;
      path.push_back(cur);
      auto it = parent_joint.find(cur);
      if (it == parent_joint.end()) break;
      cur = joints_[it->second].parent;
    }
    for (const auto& p : path) state[p] = Walk::Done;
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

// The file as urdfdom can read it (the tinyxml2 pass has checked the dialect): dialect joints
// become "floating" without <limit> (their type, axis and limits are taken from the tinyxml2 pass),
// revolute / prismatic joints without <limit> get an empty one (effort 0: no range, no force
// limit), <capsule> becomes <cylinder> (link_geoms restores it) and a repeated identical top-level
// material is dropped.
std::string UrdfReader::urdfdom_text(const tinyxml2::XMLDocument& doc) const {
  tinyxml2::XMLDocument copy;
  doc.DeepCopy(&copy);
  XMLElement* robot = copy.RootElement();
  std::set<std::string> materials;
  for (XMLElement* c = robot->FirstChildElement(); c;) {
    XMLElement* next = c->NextSiblingElement();
    const std::string n = c->Name();
    if (n == "joint") {
      const UrdfJointType* kind = find_joint_type(c->Attribute("type"));
      if (kind->dialect) {
        c->SetAttribute("type", "floating");
        while (XMLElement* lim = c->FirstChildElement("limit")) c->DeleteChild(lim);
      } else if ((kind->type == JointType::Revolute || kind->type == JointType::Prismatic) &&
                 !c->FirstChildElement("limit")) {
        XMLElement* lim = copy.NewElement("limit");
        lim->SetAttribute("effort", 0);
        lim->SetAttribute("velocity", 0);
        c->InsertEndChild(lim);
      }
    } else if (n == "material") {
      if (!materials.insert(attr_or(c, "name")).second) robot->DeleteChild(c);
    } else if (n == "link") {
      for (XMLElement* g = c->FirstChildElement(); g; g = g->NextSiblingElement()) {
        const std::string gn = g->Name();
        if (gn != "visual" && gn != "collision") continue;
        if (XMLElement* geo = g->FirstChildElement("geometry"))
          if (XMLElement* shape = geo->FirstChildElement(); shape && std::strcmp(shape->Name(), "capsule") == 0)
            shape->SetName("cylinder");
      }
    }
    c = next;
  }
  tinyxml2::XMLPrinter printer;
  copy.Print(&printer);
  return printer.CStr();
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
      case urdf::Geometry::CYLINDER: {  // or a capsule (urdfdom_text): radius, length along z
        const auto& c = static_cast<const urdf::Cylinder&>(*geo);
        const XMLElement* shape = xml_owner->FirstChildElement("geometry")->FirstChildElement();
        g->type = std::strcmp(shape->Name(), "capsule") == 0 ? GeomType::Capsule : GeomType::Cylinder;
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
          const MeshData* data = nullptr;
          try {
            data = &meshes_.get(file, g->mesh_scale);
          } catch (const LimitError&) {
            throw;
          } catch (const LoadError& e) {
            problem = "mesh '" + m.filename + "': " + e.what();
          }
          if (data) {
            xml_.count_mesh_vertices(mesh_el, data->vertices.size(), "geometries");
            g->mesh_file = file;
            g->vertices = data->vertices;
            g->faces = data->faces;
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
  // urdfdom keeps the elements in file order, as the tinyxml2 pass does (unless its XML parser
  // reads the link differently).
  if (link.collision_array.size() != info.collisions.size() || link.visual_array.size() != info.visuals.size())
    xml_.fail(info.e, "link '" + link.name + "': urdfdom reads its <visual>/<collision> elements differently "
                      "from tinyxml2 (text XML readers disagree on?)");
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
  const std::string content =
      rewrite_for_urdfdom_ ? urdfdom_text(doc) : parse::read_file_bounded(path_, options_.limits.file_bytes);
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

  // urdfdom reads the text with another XML parser (TinyXML), which can read a name differently
  // from tinyxml2 (a bare '&' that starts no entity): what the tinyxml2 pass found must be in
  // urdfdom's model, or the file is refused.
  const std::string disagree =
      ": urdfdom reads this file differently and has no such name (an '&' that starts no entity, "
      "or other text XML readers disagree on; write '&' as &amp;)";
  auto urdf_joint = [&](const std::string& name) {
    urdf::JointConstSharedPtr j = urdf_model->getJoint(name);
    if (!j) xml_.fail(joints_[name].e, "joint '" + name + "'" + disagree);
    return j;
  };

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
  // (a link is posed after its parent: the chain of unposed ancestors is walked up first, without
  // recursion, so a long chain cannot exhaust the stack; each link is posed once)
  std::vector<bool> posed(links.size(), false);
  std::vector<int> pending;
  for (size_t l0 = 0; l0 < links.size(); ++l0) {
    for (int l = static_cast<int>(l0); !posed[l];) {
      pending.push_back(l);
      auto it = parent_joint.find(links[l].name);
      if (it == parent_joint.end()) break;  // root: at the origin
      l = index[joints_[it->second].parent];
    }
    for (; !pending.empty(); pending.pop_back()) {
      const int l = pending.back();
      posed[l] = true;
      auto it = parent_joint.find(links[l].name);
      if (it == parent_joint.end()) continue;
      const int p = index[joints_[it->second].parent];
      const urdf::JointConstSharedPtr uj = urdf_joint(it->second);
      const urdf::Pose& o = uj->parent_to_joint_origin_transform;
      double qx, qy, qz, qw;
      o.rotation.getQuaternion(qx, qy, qz, qw);
      links[l].pos = links[p].pos + quat_to_rot(links[p].quat) * Vec3(o.position.x, o.position.y, o.position.z);
      links[l].quat = quat_normalize(quat_mul(links[p].quat, quat_normalize(Vec4(qw, qx, qy, qz))));
    }
  }

  for (size_t l = 0; l < links.size(); ++l) {
    const urdf::LinkConstSharedPtr ul = urdf_model->getLink(links[l].name);
    if (!ul) xml_.fail(links_[links[l].name].e, "link '" + links[l].name + "'" + disagree);
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
    const urdf::JointConstSharedPtr uj = urdf_joint(it->second);
    JointSpec s;
    s.proto.name = it->second;
    s.parent = index[jx.parent];
    s.child = static_cast<int>(l);
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
    specs.push_back(s);
  }

  BuildResult built;
  build_model(links, specs, options_, &model, &built, report_);
  model.integrator = integrator_;
  std::vector<NonholonomicSpec> nonholonomic;
  for (const NonholonomicXml& N : nonholonomic_)
    nonholonomic.push_back(NonholonomicSpec{N.proto, index[N.link], path_, N.e->GetLineNum()});
  add_nonholonomic(links, built, nonholonomic, &model);

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

  std::map<std::string, std::string> merged_into;  // part -> body
  std::set<std::string> has_parts;
  for (const auto& [part, into] : report_->merged) {
    merged_into[part] = into;
    has_parts.insert(into);
  }
  for (const auto& [ln, issue] : inertia_issues_) {
    auto it = merged_into.find(ln);
    const std::string body = it == merged_into.end() ? ln : it->second;
    if (body == ln && !has_parts.count(ln))
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
