// <material>: the colour check, and top-level materials defined twice (urdfdom refuses any second
// definition; one that repeats the first is dropped for it, another is an error).
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
}

}  // namespace maxsim::urdf_detail
