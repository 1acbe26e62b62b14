// <default> classes and their resolution: an attribute is the element's own, else its class's
// (the element's class, the enclosing childclass, or "main"), a nested class inheriting its parent's.
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_default(const XMLElement* e, const std::string& parent, int depth) {
  if (depth >= kMaxNesting) fail(e, "<default>s nested more than " + std::to_string(kMaxNesting) + " deep");
  std::string name = "main";
  if (const char* c = own(e, "class")) name = c;
  else if (!parent.empty()) fail(e, "nested <default> needs a 'class' attribute");
  DefaultClass& dc = classes_[name];
  if (!parent.empty()) {
    if (dc.attrs.size() && name != "main") fail(e, "default class '" + name + "' defined twice");
    dc = classes_[parent];  // inherit
    dc.parent = parent;
  }
  for (const XMLElement* c : children(e)) {
    const std::string n = c->Name();
    if (n == "default") continue;
    std::string type = is_actuator_type(n) ? "actuator" : n;
    if (n == "freejoint") type = "joint";
    auto& map = dc.attrs[type];
    for (const char* a : xml_.attribute_names(c)) {
      if (std::strcmp(a, "class") == 0 || std::strcmp(a, "name") == 0) continue;
      map[a] = c;
    }
  }
  for (const XMLElement* c : children(e))
    if (std::strcmp(c->Name(), "default") == 0) read_default(c, name, depth + 1);
}

std::string MjcfReader::class_of(const XMLElement* e, const std::string& childclass) const {
  if (const char* c = own(e, "class")) {
    if (!classes_.count(c)) fail(e, std::string("unknown default class '") + c + "'");
    return c;
  }
  return childclass.empty() ? "main" : childclass;
}

Attr MjcfReader::attr(const XMLElement* e, const std::string& type, const std::string& cls,
                      const char* name) const {
  if (own(e, name)) return Attr{e, name};
  auto c = classes_.find(cls);
  if (c != classes_.end()) {
    auto t = c->second.attrs.find(type);
    if (t != c->second.attrs.end()) {
      auto a = t->second.find(name);
      if (a != t->second.end()) return Attr{a->second, name};
    }
  }
  return Attr{};
}

}  // namespace maxsim::mjcf_detail
