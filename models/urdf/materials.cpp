// <material>: the colour check, and top-level materials defined twice (urdfdom refuses any second
// definition, so it is dropped for it: the first wins; one with another colour is named in a
// warning with both lines — colour is visual only).
#include "models/urdf/reader.hpp"

namespace maxsim::urdf_detail {

void UrdfReader::check_material(const XMLElement* m) {
  if (const XMLElement* c = m->FirstChildElement("color")) {
    if (!xml_.attribute(c, "rgba")) xml_.fail(c, "<color> needs an rgba attribute");
    xml_.numbers(c, "rgba", 4);
  }
}

void UrdfReader::read_material(const XMLElement* c) {
  check_material(c);
  const std::string name = xml_.text(c, "name");
  MaterialDef def;
  def.e = c;
  if (const XMLElement* col = c->FirstChildElement("color")) def.rgba = xml_.numbers(col, "rgba", 4);
  if (const XMLElement* tex = c->FirstChildElement("texture")) def.texture = xml_.text(tex, "filename");
  auto it = materials_.find(name);
  if (it == materials_.end()) {
    materials_[name] = def;
    return;
  }
  // urdfdom rejects any second definition: it is dropped, the first wins. One with another
  // colour or texture makes the colour depend on the reader (ConstrainedDynamics and Dojo keep
  // the last one): a warning.
  const MaterialDef& first = it->second;
  if (def.rgba != first.rgba || def.texture != first.texture) {
    auto describe = [&](const MaterialDef& d) {
      std::string out;
      if (const XMLElement* col = d.e->FirstChildElement("color")) out += "rgba '" + xml_.text(col, "rgba") + "'";
      if (!d.texture.empty()) out += (out.empty() ? "" : ", ") + std::string("texture '") + d.texture + "'";
      return out.empty() ? std::string("no colour") : out;
    };
    report_->warnings.push_back(xml_.where(c) + ": material '" + name + "' is defined again with a different colour or texture (" +
                                describe(def) + ") than at " + xml_.where(first.e) + " (" + describe(first) +
                                "); the first definition is used");
  }
  rewrite_for_urdfdom_ = true;
}

}  // namespace maxsim::urdf_detail
