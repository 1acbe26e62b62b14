// maxsim's extension tags, which urdfdom ignores: <nonholonomic> constraints, <maxsim>'s model
// options and its <sensor>s.
#include <cstring>
#include <set>

#include "models/urdf/reader.hpp"
#include "sim/sensor/sensors.hpp"

namespace maxsim::urdf_detail {

// <nonholonomic name type> with <link name/>, <radius value/>, <axis xyz/>, <origin xyz/> (a knife
// edge's point) and <direction xyz/>, the vectors in the link frame; nothing else (a parameter
// the kind does not take is refused rather than ignored).
void UrdfReader::read_nonholonomic(const XMLElement* e) {
  NonholonomicXml N;
  N.e = e;
  N.proto.name = xml_.text(e, "name");
  const std::string what = "nonholonomic constraint '" + N.proto.name + "'";
  if (N.proto.name.empty()) xml_.fail(e, "<nonholonomic> needs a name");
  const std::string type = xml_.text(e, "type");
  if (type.empty()) xml_.fail(e, what + " has no type (" + nonholonomic_kind_list() + ")");
  if (!nonholonomic_kind_from_name(type, &N.proto.kind))
    xml_.fail(e, what + ": unknown type '" + type + "' (" + nonholonomic_kind_list() + ")");
  std::set<std::string> given;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (!given.insert(n).second) xml_.fail(c, what + ": <" + n + "> is given twice");
    if (n == "link") {
      N.link = xml_.text(c, "name");
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
      if (xml_.attribute(c, "rpy")) xml_.fail(c, what + ": <origin> of a nonholonomic constraint takes xyz only (a point)");
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
  for (const char* a : xml_.attribute_names(e))
    if (std::strcmp(a, "integrator") != 0)
      xml_.fail(e, std::string("<maxsim>: unknown attribute '") + a + "' (integrator)");
  const std::string value = xml_.text(e, "integrator", "variational");
  if (!integrator_from_name(value, &integrator_))
    xml_.fail(e, "<maxsim>: integrator '" + value + "' is not one of variational, energy-momentum");
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "sensor") != 0) xml_.fail(c, std::string("<maxsim>: unknown element <") + c->Name() + "> (sensor)");
    sensors_xml_.push_back(c);
  }
}

// <maxsim><sensor name type link ref_link joint actuator noise cutoff/>: an MJCF sensor type on a
// link's frame (every link is a site of its name: site sensors, frame sensors, the subtree of
// link's body), a joint or an actuator (a joint's motor, named after the joint).
void UrdfReader::read_sensors(Model* model) const {
  static const std::set<std::string> kAttributes{"name", "type", "link", "ref_link", "joint", "actuator", "noise", "cutoff"};
  for (const XMLElement* e : sensors_xml_) {
    for (const char* a : xml_.attribute_names(e))  // (maxsim's own tag: every name is known)
      if (!kAttributes.count(a))
        xml_.fail(e, std::string("<sensor>: unknown attribute '") + a + "' (name, type, link, ref_link, joint, actuator, noise, cutoff)");
    Sensor s;
    const std::string type = xml_.text(e, "type");
    if (!sensor_type_from_name(type, &s.type)) xml_.fail(e, "<sensor>: unknown type '" + type + "' (an MJCF sensor: gyro, framepos, jointpos, …)");
    s.name = xml_.text(e, "name");
    if (!s.name.empty() && model->find_sensor(s.name)) xml_.fail(e, "sensor '" + s.name + "' is defined twice");
    const std::string who = type + " sensor" + (s.name.empty() ? "" : " '" + s.name + "'");
    if (auto v = xml_.number(e, "noise")) s.noise = *v;
    if (auto v = xml_.number(e, "cutoff")) s.cutoff = *v;
    auto site_of = [&](const char* attribute) {
      const std::string link = xml_.text(e, attribute);
      const std::optional<int> i = model->find_site(link);
      if (!i) xml_.fail(e, who + ": no link named '" + link + "' (" + attribute + ")");
      return *i;
    };
    const bool frame = s.type >= SensorType::FramePos && s.type <= SensorType::FrameAngAcc;
    const bool subtree = s.type >= SensorType::SubtreeCom && s.type <= SensorType::SubtreeAngMom;
    if (xml_.attribute(e, "link")) {
      const int site = site_of("link");
      if (frame) s.frame = site_frame(*model, site);
      else if (subtree) s.object = model->sites[site].body;
      else s.object = site;
    } else if (subtree) {
      s.object = kWorld;
    }
    if (xml_.attribute(e, "ref_link")) {
      s.relative = true;
      s.ref = site_frame(*model, site_of("ref_link"));
    }
    if (xml_.attribute(e, "joint")) {
      const std::string joint = xml_.text(e, "joint");
      const std::optional<int> j = model->find_joint(joint);
      if (!j) xml_.fail(e, who + ": no joint named '" + joint + "' (a fixed joint is merged away)");
      s.object = *j;
    }
    if (xml_.attribute(e, "actuator")) {
      const std::string actuator = xml_.text(e, "actuator");
      const std::optional<int> a = model->find_actuator(actuator);
      if (!a) xml_.fail(e, who + ": no actuator named '" + actuator + "'");
      s.object = *a;
    }
    const std::string problem = validate_sensor(*model, s);
    if (!problem.empty()) xml_.fail(e, problem);
    model->add_sensor(s);
  }
}

}  // namespace maxsim::urdf_detail
