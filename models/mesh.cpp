#include "models/mesh.hpp"

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <utility>
#include <vector>
#include <sstream>

#include "models/load_error.hpp"
#include "models/parse_util.hpp"

namespace maxsim {

MeshData load_mesh_file(const std::string& path, const Vec3& scale, const LoadLimits& limits) {
  if (!parse::file_exists(path)) throw LoadError(path, "mesh file not found");
  parse::check_file_size(path, limits.file_bytes);
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  // Only positions matter: drop normals, texture coordinates and colours so that vertices shared
  // by several faces (STL stores one normal per face) are joined.
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                              aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                  aiComponent_COLORS | aiComponent_TEXCOORDS |
                                  aiComponent_BONEWEIGHTS | aiComponent_ANIMATIONS |
                                  aiComponent_TEXTURES | aiComponent_LIGHTS |
                                  aiComponent_CAMERAS | aiComponent_MATERIALS);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_RemoveComponent | aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                aiProcess_SortByPType);
  if (!scene || !scene->mRootNode)
    throw LoadError(path, std::string("cannot read mesh: ") + importer.GetErrorString());
  MeshData out;
  // the node tree, depth first without recursion (a file decides how deep it is)
  std::vector<std::pair<const aiNode*, aiMatrix4x4>> stack{{scene->mRootNode, aiMatrix4x4()}};
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    const aiMatrix4x4 T = parent * node->mTransformation;
    for (unsigned k = 0; k < node->mNumMeshes; ++k) {
      const aiMesh* m = scene->mMeshes[node->mMeshes[k]];
      if (static_cast<long long>(out.vertices.size()) + m->mNumVertices > limits.mesh_vertices)
        throw LimitError(path, "mesh has more than " + std::to_string(limits.mesh_vertices) +
                                  " vertices" + limit_hint("mesh_vertices", "mesh-vertices=N"));
      const int base = static_cast<int>(out.vertices.size());
      for (unsigned i = 0; i < m->mNumVertices; ++i) {
        const aiVector3D p = T * m->mVertices[i];
        out.vertices.emplace_back(p.x * scale.x(), p.y * scale.y(), p.z * scale.z());
      }
      for (unsigned f = 0; f < m->mNumFaces; ++f) {
        const aiFace& face = m->mFaces[f];
        if (face.mNumIndices != 3) continue;  // points and lines carry no surface
        out.faces.emplace_back(base + static_cast<int>(face.mIndices[0]),
                               base + static_cast<int>(face.mIndices[1]),
                               base + static_cast<int>(face.mIndices[2]));
      }
    }
    for (unsigned c = node->mNumChildren; c-- > 0;) stack.emplace_back(node->mChildren[c], T);
  }
  if (out.vertices.empty() || out.faces.empty()) throw LoadError(path, "mesh has no triangles");
  if (scale.x() * scale.y() * scale.z() < 0)
    for (auto& f : out.faces) std::swap(f(1), f(2));
  return out;
}

const MeshData& MeshCache::get(const std::string& path, const Vec3& scale) {
  std::ostringstream key;
  key.precision(17);
  key << path << '|' << scale.x() << ' ' << scale.y() << ' ' << scale.z();
  auto it = cache_.find(key.str());
  if (it != cache_.end()) return *it->second;
  auto data = std::make_unique<MeshData>(load_mesh_file(path, scale, limits_));
  return *cache_.emplace(key.str(), std::move(data)).first->second;
}

std::string resolve_resource(const std::string& uri, const std::string& base_dir,
                             const std::vector<std::string>& package_paths, std::string* tried) {
  std::vector<std::string> candidates;
  const std::string pkg = "package://";
  const std::string file = "file://";
  if (uri.rfind(pkg, 0) == 0) {
    const std::string rest = uri.substr(pkg.size());  // NAME/REST
    for (const auto& p : package_paths)
      if (!p.empty()) candidates.push_back(parse::join_path(p, rest));
    const std::string d0 = base_dir;
    const std::string d1 = parse::dir_of(d0);
    const std::string d2 = parse::dir_of(d1);
    candidates.push_back(parse::join_path(d0, rest));
    candidates.push_back(parse::join_path(d1, rest));
    candidates.push_back(parse::join_path(d2, rest));
  } else if (uri.rfind(file, 0) == 0) {
    candidates.push_back(uri.substr(file.size()));
  } else {
    candidates.push_back(parse::join_path(base_dir, uri));
  }
  for (const auto& c : candidates)
    if (parse::file_exists(c)) return c;
  if (tried) {
    std::string t;
    for (const auto& c : candidates) t += (t.empty() ? "" : ", ") + c;
    *tried = t;
  }
  return "";
}

}  // namespace maxsim
