#include "models/load.hpp"

#include <cstdlib>

#include "models/load_error.hpp"
#include "models/mjcf.hpp"
#include "models/parse_util.hpp"
#include "models/urdf.hpp"

namespace maxsim {

std::vector<std::string> package_search_path(const LoadOptions& options) {
  std::vector<std::string> out = options.package_paths;
  if (const char* env = std::getenv("MAXSIM_PACKAGE_PATH")) {
    std::string s(env);
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find(':', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) out.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

Model load_model(const std::string& path, const LoadOptions& options, LoadReport* report) {
  LoadReport local;
  LoadReport* r = report ? report : &local;
  const std::string ext = parse::lowercase_extension(path);
  if (ext == ".urdf") return load_urdf(path, options, r);
  if (ext == ".xml" || ext == ".mjcf") return load_mjcf(path, options, r);
  throw LoadError(path, "unknown description format '" + ext +
                            "' (expected .urdf for URDF, .xml or .mjcf for MJCF)");
}

Model load_model(const std::string& path, const LoadOptions& options,
                 std::vector<std::string>* warnings) {
  LoadReport report;
  Model m = load_model(path, options, &report);
  if (warnings) warnings->insert(warnings->end(), report.warnings.begin(), report.warnings.end());
  return m;
}

}  // namespace maxsim
