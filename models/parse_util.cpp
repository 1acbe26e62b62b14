#include "models/parse_util.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <vector>
#include <sys/stat.h>

namespace maxsim::parse {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool parse_token(std::string_view tok, double* out) {
  if (tok.empty()) return false;
  if (tok.front() == '+') tok.remove_prefix(1);  // from_chars does not take a leading '+'
  if (tok.empty() || tok.front() == '+' || (tok.front() == '-' && tok.size() > 1 && tok[1] == '+'))
    return false;
  double v = 0;
  const auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (res.ec != std::errc() || res.ptr != tok.data() + tok.size()) return false;
  if (!std::isfinite(v)) return false;
  *out = v;
  return true;
}
}  // namespace

bool parse_number(std::string_view text, double* out) { return parse_token(trim(text), out); }

bool parse_numbers(std::string_view text, std::vector<double>* out) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i >= text.size()) break;
    size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    double v;
    if (!parse_token(text.substr(i, j - i), &v)) return false;
    out->push_back(v);
    i = j;
  }
  return true;
}

std::string dir_of(const std::string& path) {
  const size_t p = path.find_last_of('/');
  if (p == std::string::npos) return ".";
  if (p == 0) return "/";
  return path.substr(0, p);
}

std::string join_path(const std::string& dir, const std::string& rel) {
  if (rel.empty()) return dir;
  if (rel.front() == '/' || dir.empty()) return rel;
  if (dir.back() == '/') return dir + rel;
  return dir + "/" + rel;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string lowercase_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

void check_file_size(const std::string& path, long long max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw LoadError(path, "cannot open file (missing or unreadable)");
  if (st.st_size > max_bytes)
    throw LimitError(path, "file of " + std::to_string(st.st_size) + " bytes is larger than " +
                              std::to_string(max_bytes) + " bytes" +
                              limit_hint("file_bytes", "file-bytes=N"));
}

std::string read_file_bounded(const std::string& path, long long max_bytes) {
  check_file_size(path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LoadError(path, "cannot open file (missing or unreadable)");
  std::string content;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    const std::streamsize n = in.gcount();
    if (static_cast<long long>(content.size()) + n > max_bytes)
      throw LimitError(path, "file is larger than " + std::to_string(max_bytes) + " bytes" +
                                limit_hint("file_bytes", "file-bytes=N"));
    content.append(buf, static_cast<size_t>(n));
  }
  if (in.bad()) throw LoadError(path, "cannot read file");
  return content;
}

void XmlFiles::count_geom(const tinyxml2::XMLElement* e, const std::string& what) {
  if (++geoms_ > limits_.geoms)
    fail_limit(e, "more than " + std::to_string(limits_.geoms) + " " + what + limit_hint("geoms", "geoms=N"));
}

void XmlFiles::count_mesh_vertices(const tinyxml2::XMLElement* e, std::size_t n, const std::string& what) {
  mesh_vertices_ += static_cast<long long>(n);
  if (mesh_vertices_ > limits_.mesh_vertices)
    fail_limit(e, "the meshes of the " + what + " so far have more than " +
                      std::to_string(limits_.mesh_vertices) + " vertices" +
                      limit_hint("mesh_vertices", "mesh-vertices=N"));
}

tinyxml2::XMLDocument& XmlFiles::load(const std::string& path) {
  const std::string content = read_file_bounded(path, limits_.file_bytes);
  // Start tags ('<' before a name): at least the elements tinyxml2 would build, so a file with
  // too many is refused before its document takes memory.
  long long tags = 0;
  for (size_t i = 0; i + 1 < content.size(); ++i)
    if (content[i] == '<' && (std::isalpha(static_cast<unsigned char>(content[i + 1])) ||
                              content[i + 1] == '_' || content[i + 1] == ':'))
      ++tags;
  if (tags > limits_.elements)
    throw LimitError(path, "more than " + std::to_string(limits_.elements) + " XML elements (" +
                              std::to_string(tags) + " start tags)" +
                              limit_hint("elements", "elements=N"));
  auto doc = std::make_unique<tinyxml2::XMLDocument>();
  if (doc->Parse(content.data(), content.size()) != tinyxml2::XML_SUCCESS) {
    std::string detail = doc->ErrorStr() ? doc->ErrorStr() : "";
    // tinyxml2's text repeats the line ("... Line number=N: ..."); keep its description.
    const size_t colon = detail.find(": ");
    if (detail.find("Line number=") != std::string::npos && colon != std::string::npos)
      detail = detail.substr(colon + 2);
    std::string msg = std::string("malformed XML (") + doc->ErrorName() + ")";
    if (!detail.empty()) msg += ": " + detail;
    throw LoadError(path, doc->ErrorLineNum(), msg);
  }
  if (!doc->RootElement()) throw LoadError(path, "malformed XML: no root element");
  names_[doc.get()] = path;
  docs_.push_back(std::move(doc));
  return *docs_.back();
}

const std::string& XmlFiles::file_of(const tinyxml2::XMLNode* node) const {
  static const std::string unknown;
  if (!node) return unknown;
  auto it = names_.find(node->GetDocument());
  return it == names_.end() ? unknown : it->second;
}

std::string XmlFiles::describe(const tinyxml2::XMLElement* e) {
  std::string s = std::string("<") + e->Name();
  if (const char* n = e->Attribute("name")) s += std::string(" name='") + n + "'";
  return s + ">";
}

std::string XmlFiles::where(const tinyxml2::XMLElement* e) const {
  std::string s = file_of(e);
  if (e && e->GetLineNum() > 0) {
    s += ':';
    s += std::to_string(e->GetLineNum());
  }
  return s;
}

void XmlFiles::fail(const tinyxml2::XMLElement* e, const std::string& message) const {
  throw LoadError(file_of(e), e ? e->GetLineNum() : 0, message);
}

void XmlFiles::fail_limit(const tinyxml2::XMLElement* e, const std::string& message) const {
  throw LimitError(file_of(e), e ? e->GetLineNum() : 0, message);
}

const char* XmlFiles::attribute(const tinyxml2::XMLElement* e, const char* attr) const {
  asked_elements_.insert(e);
  const tinyxml2::XMLAttribute* a = e->FindAttribute(attr);
  if (!a) return nullptr;
  read_attributes_.insert(a);
  return a->Value();
}

std::vector<const char*> XmlFiles::attribute_names(const tinyxml2::XMLElement* e) const {
  std::vector<const char*> out;
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) out.push_back(a->Name());
  return out;
}

std::optional<double> XmlFiles::number(const tinyxml2::XMLElement* e, const char* attr) const {
  const char* v = attribute(e, attr);
  if (!v) return std::nullopt;
  double d;
  if (!parse_number(v, &d))
    fail(e, std::string("attribute '") + attr + "' of " + describe(e) + ": '" + v +
                "' is not a (finite) number");
  return d;
}

std::optional<std::vector<double>> XmlFiles::numbers(const tinyxml2::XMLElement* e,
                                                     const char* attr, int n) const {
  return numbers(e, attr, n, n);
}

std::optional<std::vector<double>> XmlFiles::numbers(const tinyxml2::XMLElement* e,
                                                     const char* attr, int min_n,
                                                     int max_n) const {
  const char* v = attribute(e, attr);
  if (!v) return std::nullopt;
  std::vector<double> out;
  if (!parse_numbers(v, &out))
    fail(e, std::string("attribute '") + attr + "' of " + describe(e) + ": '" + v +
                "' is not a list of (finite) numbers");
  const int n = static_cast<int>(out.size());
  if (n < min_n || n > max_n) {
    std::string expect = min_n == max_n ? std::to_string(min_n)
                         : max_n >= 1000 ? "at least " + std::to_string(min_n)
                                         : std::to_string(min_n) + " to " + std::to_string(max_n);
    fail(e, std::string("attribute '") + attr + "' of " + describe(e) + ": expected " + expect +
                " number" + (max_n == 1 ? "" : "s") + ", got " + std::to_string(n) + " ('" + v +
                "')");
  }
  return out;
}

std::optional<Vec3> XmlFiles::vec3(const tinyxml2::XMLElement* e, const char* attr) const {
  auto v = numbers(e, attr, 3);
  if (!v) return std::nullopt;
  return Vec3((*v)[0], (*v)[1], (*v)[2]);
}

std::optional<int> XmlFiles::integer(const tinyxml2::XMLElement* e, const char* attr) const {
  const char* v = attribute(e, attr);
  if (!v) return std::nullopt;
  std::string_view s = trim(v);
  int out = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
  if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size())
    fail(e, std::string("attribute '") + attr + "' of " + describe(e) + ": '" + v +
                "' is not an integer");
  return out;
}

std::optional<bool> XmlFiles::boolean(const tinyxml2::XMLElement* e, const char* attr,
                                      bool allow_auto) const {
  const char* v = attribute(e, attr);
  if (!v) return std::nullopt;
  const std::string s(trim(v));
  if (s == "true") return true;
  if (s == "false") return false;
  if (allow_auto && s == "auto") return std::nullopt;
  fail(e, std::string("attribute '") + attr + "' of " + describe(e) + ": '" + v +
              "' is not " + (allow_auto ? "true, false or auto" : "true or false"));
}

std::string XmlFiles::text(const tinyxml2::XMLElement* e, const char* attr,
                           const std::string& fallback) const {
  const char* v = attribute(e, attr);
  return v ? std::string(v) : fallback;
}

Vec4 quat_from_rpy(const Vec3& rpy) {
  const Vec4 qx = quat_axis_angle(Vec3::UnitX(), rotation_angle(rpy.x()));
  const Vec4 qy = quat_axis_angle(Vec3::UnitY(), rotation_angle(rpy.y()));
  const Vec4 qz = quat_axis_angle(Vec3::UnitZ(), rotation_angle(rpy.z()));
  return quat_mul(qz, quat_mul(qy, qx));
}

}  // namespace maxsim::parse
