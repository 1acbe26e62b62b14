// URDF's names, checked as its ecosystem reads them: other tools' tags (<gazebo>, <transmission>,
// namespaced ones, any tag or attribute not near a URDF name) are skipped and listed as ignored,
// but a tag or attribute one or two letters from the URDF name that belongs there (<orgin>,
// <inertia> outside <inertial>, <axis xzy>, <inertia iyx>) is a misspelling: refused with
// file:line and the nearest name, a warning with LoadOptions::lenient.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "models/urdf/reader.hpp"
#include "models/urdf/schema.hpp"

namespace maxsim::urdf_detail {

void UrdfReader::check_names(const XMLElement* robot) {
  const parse::Schema& schema = urdf_schema();
  auto problem = [&](const XMLElement* e, const std::string& msg) {
    if (!options_.lenient) xml_.fail(e, msg + " (the lenient option loads the file without it)");
    report_->warnings.push_back(xml_.where(e) + ": " + msg + ": ignored (lenient)");
  };
  auto tag = [](const XMLElement* parent, const XMLElement* c) {
    std::string key = "<";
    key += parent->Name();
    key += "><";
    key += c->Name();
    key += '>';
    return key;
  };
  std::vector<std::pair<const XMLElement*, int>> stack{{robot, 0}};
  while (!stack.empty()) {
    const auto [e, node] = stack.back();
    stack.pop_back();
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
      if (std::strchr(a->Name(), ':') || schema.knows(node, a->Name())) continue;
      const std::string near = parse::nearest_name(a->Name(), schema.attribute_names(node));
      if (!near.empty()) {
        problem(e, std::string("unknown attribute '") + a->Name() + "' in " + parse::XmlFiles::describe(e) +
                       " (did you mean '" + near + "'?)");
      } else {  // another tool's attribute (Drake's <collision group>)
        std::string key = "<";
        key += e->Name();
        key += ' ';
        key += a->Name();
        key += '>';
        ++ignored_[key];
      }
    }
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
      const int k = schema.child(node, c->Name());
      if (k >= 0 && schema.node(k).support == parse::Support::Supported) {
        stack.emplace_back(c, k);
        continue;
      }
      if (node == 0) continue;  // (the top level's other tags: listed by the prepass)
      if (k >= 0) {  // a URDF tag maxsim ignores (<mimic>, <safety_controller>)
        ++ignored_[tag(e, c)];
        continue;
      }
      const std::string near =
          std::strchr(c->Name(), ':') ? std::string() : parse::nearest_name(c->Name(), schema.child_names(node));
      if (!near.empty())
        problem(c, std::string("unknown element <") + c->Name() + "> in <" + e->Name() + "> (did you mean '" + near +
                       "'?)");
      else
        ++ignored_[tag(e, c)];
    }
  }
  // top-level tags near a URDF name (<lnik>, <jiont>) are misspellings too
  for (const XMLElement* c = robot->FirstChildElement(); c; c = c->NextSiblingElement())
    if (schema.child(0, c->Name()) < 0 && !std::strchr(c->Name(), ':'))
      if (const std::string near = parse::nearest_name(c->Name(), schema.child_names(0)); !near.empty())
        problem(c, std::string("unknown element <") + c->Name() + "> in <robot> (did you mean '" + near + "'?)");
}

}  // namespace maxsim::urdf_detail
