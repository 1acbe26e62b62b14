// <asset>: meshes (from a file or inline vertices and faces) and material colours; textures and
// the visual-only assets are skipped.
#include <cmath>

#include "models/load_error.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_assets(const XMLElement* e) {
  for (const XMLElement* c : children(e)) {
    const std::string n = c->Name();
    if (n == "mesh") {
      MeshAsset m;
      m.e = c;
      const std::string cls = class_of(c, "");
      std::string file = str(attr(c, "mesh", cls, "file"));
      std::string name = xml_.text(c, "name");
      if (name.empty()) {
        if (file.empty()) fail(c, "<mesh> needs a name or a file");
        std::string base = file.substr(file.find_last_of('/') + 1);
        name = base.substr(0, base.find_last_of('.'));
      }
      if (meshes_.count(name)) fail(c, "mesh asset '" + name + "' defined twice");
      if (auto s = nums(attr(c, "mesh", cls, "scale"), 3, 3)) m.scale = Vec3((*s)[0], (*s)[1], (*s)[2]);
      if ((m.scale.array() == 0).any()) fail(c, "mesh '" + name + "': scale must not be zero");
      if (!file.empty()) {
        if (strippath_) file = file.substr(file.find_last_of('/') + 1);
        const std::string mdir = !meshdir_.empty() ? meshdir_ : assetdir_;
        m.file = file.front() == '/' ? file : parse::join_path(parse::join_path(dir_, mdir), file);
      } else if (auto v = xml_.numbers(c, "vertex", 3, 1 << 30)) {
        if (v->size() % 3) fail(c, "mesh vertex data must be a multiple of 3 numbers");
        if (static_cast<long long>(v->size() / 3) > options_.limits.mesh_vertices)
          xml_.fail_limit(c, "mesh '" + name + "' has more than " + std::to_string(options_.limits.mesh_vertices) +
                                 " vertices" + limit_hint("mesh_vertices", "mesh-vertices=N"));
        for (size_t i = 0; i + 2 < v->size(); i += 3)
          m.vertices.push_back(Vec3((*v)[i], (*v)[i + 1], (*v)[i + 2]).cwiseProduct(m.scale));
        if (auto f = xml_.numbers(c, "face", 3, 1 << 30)) {
          if (f->size() % 3) fail(c, "mesh face data must be a multiple of 3 indices");
          const double nv = static_cast<double>(m.vertices.size());
          for (double x : *f)
            if (!(x >= 0 && x < nv && x == std::floor(x)))
              fail(c, "mesh face indices must be vertex numbers, integers from 0 to " +
                          std::to_string(m.vertices.size() - 1));
          for (size_t i = 0; i + 2 < f->size(); i += 3)
            m.faces.emplace_back(static_cast<int>((*f)[i]), static_cast<int>((*f)[i + 1]),
                                 static_cast<int>((*f)[i + 2]));
        }
      } else {
        fail(c, "<mesh> needs a 'file' or 'vertex' attribute");
      }
      meshes_[name] = m;
    } else if (n == "material") {
      if (const char* name = own(c, "name")) {
        const std::string cls = class_of(c, "");
        if (auto rgba = nums(attr(c, "material", cls, "rgba"), 4, 4))
          materials_[name] = Eigen::Vector4d((*rgba)[0], (*rgba)[1], (*rgba)[2], (*rgba)[3]);
      }
    } else if (n == "hfield") {
      read_hfield(c);
    } else if (n == "skin") {
      ignore("<asset><" + n + ">");
    }
    // texture, model: visual or MuJoCo 3 composition (attach fails later)
  }
}

}  // namespace maxsim::mjcf_detail
