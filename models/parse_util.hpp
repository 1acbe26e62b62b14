// Strict parsing shared by the URDF and MJCF loaders: numbers (a whole attribute must be a list of
// finite numbers, "0.2/2" or "1 2" where 3 are needed are errors), XML files (tinyxml2, with the
// file and line in every message) and small path helpers.
#pragma once

#include <tinyxml2.h>

#include <unordered_set>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/math/quaternion.hpp"

namespace maxsim::parse {

// One finite number, the whole text (surrounding white space allowed). Locale independent.
bool parse_number(std::string_view text, double* out);
// A white-space separated list of finite numbers (empty text gives an empty list).
bool parse_numbers(std::string_view text, std::vector<double>* out);

// Path helpers.
std::string dir_of(const std::string& path);                     // "" -> "."
std::string join_path(const std::string& dir, const std::string& rel);  // rel absolute: rel
bool file_exists(const std::string& path);
std::string lowercase_extension(const std::string& path);        // ".urdf", ".xml", ...

// The whole file, refused (LoadError naming the file) when it is missing, unreadable or larger
// than max_bytes — the size is checked before anything is read, and reading stops there too
// (a file that grows, or reports no size, as /proc files do).
std::string read_file_bounded(const std::string& path, long long max_bytes);
// Size of a regular file before reading it: LoadError when it is above max_bytes (mesh files,
// which assimp reads itself).
void check_file_size(const std::string& path, long long max_bytes);

// A set of parsed XML documents (a file and the files it includes) with error helpers that name
// the file and line of an element.
class XmlFiles {
 public:
  explicit XmlFiles(const LoadLimits& limits = {}) : limits_(limits) {}

  // Loads and parses `path` (LoadError: missing file, malformed XML with its line, a file above
  // LoadLimits::file_bytes, or one with more than LoadLimits::elements start tags — counted on
  // the text, before tinyxml2 builds anything). The document stays owned by this object.
  tinyxml2::XMLDocument& load(const std::string& path);
  const LoadLimits& limits() const { return limits_; }
  // Running totals against LoadLimits::geoms and ::mesh_vertices over the whole model (LimitError
  // at element e once a total passes its bound; `what` names the geoms in the message).
  void count_geom(const tinyxml2::XMLElement* e, const std::string& what);
  void count_mesh_vertices(const tinyxml2::XMLElement* e, std::size_t n, const std::string& what);
  const std::string& file_of(const tinyxml2::XMLNode* node) const;

  [[noreturn]] void fail(const tinyxml2::XMLElement* e, const std::string& message) const;
  [[noreturn]] void fail_limit(const tinyxml2::XMLElement* e, const std::string& message) const;  // LimitError
  std::string where(const tinyxml2::XMLElement* e) const;   // "FILE:LINE"
  static std::string describe(const tinyxml2::XMLElement* e);  // "<body name='x'>"

  // The one attribute reader of the loaders: every attribute they read goes through these, so
  // that a check of the attributes an element may carry has one place to live.
  // The text of an attribute as written, or null when absent.
  const char* attribute(const tinyxml2::XMLElement* e, const char* attr) const;
  // The names of e's attributes, in file order (they do not count as read).
  std::vector<const char*> attribute_names(const tinyxml2::XMLElement* e) const;
  // What the loader read: an attribute whose value went through the readers above, an element
  // of which any attribute was asked for (present or not). The strict check names what the
  // file holds and the loader never read (see models/xml_schema.hpp).
  bool was_read(const tinyxml2::XMLAttribute* a) const { return read_attributes_.count(a) > 0; }
  bool was_asked(const tinyxml2::XMLElement* e) const { return asked_elements_.count(e) > 0; }
  // Typed readers: std::nullopt when absent; LoadError naming attribute, element, file and line
  // when present but malformed.
  std::optional<double> number(const tinyxml2::XMLElement* e, const char* attr) const;
  // Exactly n numbers (n > 0), or between min_n and max_n with the second form.
  std::optional<std::vector<double>> numbers(const tinyxml2::XMLElement* e, const char* attr,
                                             int n) const;
  std::optional<std::vector<double>> numbers(const tinyxml2::XMLElement* e, const char* attr,
                                             int min_n, int max_n) const;
  std::optional<Vec3> vec3(const tinyxml2::XMLElement* e, const char* attr) const;
  std::optional<int> integer(const tinyxml2::XMLElement* e, const char* attr) const;
  // "true"/"false" (and "auto" -> nullopt when allow_auto).
  std::optional<bool> boolean(const tinyxml2::XMLElement* e, const char* attr,
                              bool allow_auto = false) const;
  std::string text(const tinyxml2::XMLElement* e, const char* attr,
                   const std::string& fallback = "") const;

 private:
  LoadLimits limits_;
  long long geoms_ = 0, mesh_vertices_ = 0;
  std::vector<std::unique_ptr<tinyxml2::XMLDocument>> docs_;
  std::map<const tinyxml2::XMLDocument*, std::string> names_;
  mutable std::unordered_set<const tinyxml2::XMLAttribute*> read_attributes_;
  mutable std::unordered_set<const tinyxml2::XMLElement*> asked_elements_;
};

// v itself, or v scaled to unit length when |v|^2 overflows (components beyond 1e154, which a
// file may write), for code that normalizes v next: the result is then the unit vector, not zero
// or NaN. Ordinary vectors pass unchanged, so their results stay what they were, bit for bit.
template <class V>
V scaled(const V& v) {
  return std::isfinite(v.squaredNorm()) ? v : V(v.stableNormalized());
}

// An angle [rad] that only builds a rotation (rpy, euler, axisangle). Beyond a billion radians
// (no real file) it is reduced modulo 2 pi, which leaves the rotation as it is: the rotation
// vector's norm would overflow and make a quaternion of NaN.
inline double rotation_angle(double a) { return std::abs(a) <= 1e9 ? a : std::remainder(a, 2 * M_PI); }

// Roll-pitch-yaw (URDF: fixed axes x, then y, then z) to a quaternion (rotation_angle applied).
Vec4 quat_from_rpy(const Vec3& rpy);

}  // namespace maxsim::parse
