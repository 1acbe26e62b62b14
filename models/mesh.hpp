// Mesh files (STL, OBJ, DAE and whatever else assimp reads) as triangle soups for geoms, and the
// URDF/ROS file-name resolution (relative paths, file://, package://).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/load.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct MeshData {
  std::vector<Vec3> vertices;               // scaled, in the mesh file's frame
  std::vector<Eigen::Vector3i> faces;       // triangles (outward winding kept for mirrored scales)
};

// Loads every mesh of the file with its node transforms applied (COLLADA <unit> scale included,
// its up-axis ignored as ROS tools do: URDF meshes are in the link frame), then scales the
// vertices by `scale` (a negative determinant flips the triangle winding back). Throws LoadError
// naming the file when it is missing, unreadable, larger than limits.file_bytes (checked before
// assimp reads it), has more than limits.mesh_vertices vertices or no triangles.
MeshData load_mesh_file(const std::string& path, const Vec3& scale = Vec3::Ones(),
                        const LoadLimits& limits = {});

// Loads each (file, scale) once per loader run.
class MeshCache {
 public:
  explicit MeshCache(const LoadLimits& limits) : limits_(limits) {}
  const MeshData& get(const std::string& path, const Vec3& scale);

 private:
  LoadLimits limits_;
  std::map<std::string, std::unique_ptr<MeshData>> cache_;
};

// Resolves a URDF mesh file name:
//   package://NAME/REST -> P/NAME/REST for P in package_paths, then the directory of the
//                          description and its two parents (ROS layouts NAME/urdf/x.urdf and
//                          pybullet layouts where NAME is a folder beside the file);
//   file:///abs/path    -> /abs/path;   relative -> relative to base_dir;   absolute -> itself.
// Returns the first existing candidate; otherwise "" and, in *tried, the candidates looked at.
std::string resolve_resource(const std::string& uri, const std::string& base_dir,
                             const std::vector<std::string>& package_paths,
                             std::string* tried = nullptr);

}  // namespace maxsim
