#include "io/replay.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "io/report.hpp"
#include "sim/constraints/contact.hpp"
#include "sim/state/diagnostics.hpp"

// Where the build put the bundle, and where `cmake --install` puts it (CMakeLists.txt,
// cmake/install.cmake); either may be empty.
#ifndef MAXSIM_VIEWER_JS_PATH
#define MAXSIM_VIEWER_JS_PATH ""
#endif
#ifndef MAXSIM_VIEWER_JS_INSTALLED
#define MAXSIM_VIEWER_JS_INSTALLED ""
#endif

namespace maxsim::io {

namespace {

constexpr const char* kPoseFields[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
constexpr const char* kContactFields[6] = {"x", "y", "z", "fx", "fy", "fz"};
constexpr const char* kScalarColumns[3] = {"energy.total", "violation.max", "penetration.max"};

// ---- JSON and binary helpers -----------------------------------------------------------------------
std::string json_number(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

template <class V>
std::string json_array(const V& v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    s += i ? "," : "";
    s += json_number(v[i]);
  }
  return s + "]";
}

// The binary part of the page: sections aligned to 8 bytes (typed arrays need it).
class Blob {
 public:
  template <class T>
  std::size_t add(const T* data, std::size_t count) {
    while (bytes_.size() % 8) bytes_.push_back(0);
    const std::size_t offset = bytes_.size();
    const auto* p = reinterpret_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + count * sizeof(T));
    return offset;
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

std::vector<std::uint8_t> gzip(const std::vector<std::uint8_t>& in) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("zlib: deflateInit2 failed");
  std::vector<std::uint8_t> out(deflateBound(&zs, static_cast<uLong>(in.size())) + 64);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw Error("zlib: compression failed");
  return out;
}

std::string base64(const std::vector<std::uint8_t>& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  o.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
    o += k[v >> 18], o += k[(v >> 12) & 63], o += k[(v >> 6) & 63], o += k[v & 63];
  }
  if (i + 1 == in.size()) {
    const std::uint32_t v = in[i] << 16;
    o += k[v >> 18], o += k[(v >> 12) & 63], o += "==";
  } else if (i + 2 == in.size()) {
    const std::uint32_t v = (in[i] << 16) | (in[i + 1] << 8);
    o += k[v >> 18], o += k[(v >> 12) & 63], o += k[(v >> 6) & 63], o += '=';
  }
  return o;
}

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}


// Meshes are stored once however many geoms use them (the A1's four calves share one).
struct MeshTable {
  std::vector<const Geom*> meshes;
  std::multimap<std::uint64_t, int> by_hash;

  int index_of(const Geom& g) {
    std::uint64_t h = fnv1a(g.vertices.data(), g.vertices.size() * sizeof(Vec3));
    h = fnv1a(g.faces.data(), g.faces.size() * sizeof(Eigen::Vector3i), h);
    auto [lo, hi] = by_hash.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      const Geom& o = *meshes[it->second];
      if (o.vertices == g.vertices && o.faces == g.faces) return it->second;
    }
    meshes.push_back(&g);
    by_hash.emplace(h, static_cast<int>(meshes.size() - 1));
    return static_cast<int>(meshes.size() - 1);
  }
};

std::string geom_json(const Geom& g, int body, MeshTable* meshes) {
  std::string s = "{\"body\":" + std::to_string(body) + ",\"type\":\"" + geom_type_name(g.type) + "\"";
  if (!g.name.empty()) s += ",\"name\":" + JsonObject::quote(g.name);
  s += ",\"size\":" + json_array(g.size, 3) + ",\"pos\":" + json_array(g.pos, 3) + ",\"quat\":" + json_array(g.quat, 4) +
       ",\"rgba\":" + json_array(g.rgba, 4) + ",\"visual\":" + (g.collision ? "false" : "true");
  if (g.type == GeomType::Mesh) s += ",\"mesh\":" + std::to_string(meshes->index_of(g));
  return s + "}";
}

// A height field geom as the page draws it: the field's surface as a mesh, two triangles per cell
// split along the (r, c)–(r + 1, c + 1) diagonal as the contact search splits it (HeightField);
// the solid's sides and base are not drawn. No vertices (the geom is skipped) while the field has
// no data, e.g. one a file leaves to be set at run time.
Geom hfield_surface(const Model& model, const Geom& g) {
  Geom mesh = g;
  mesh.type = GeomType::Mesh;
  mesh.hfield = -1;
  if (g.hfield < 0 || g.hfield >= static_cast<int>(model.hfields.size())) return mesh;
  const HeightField& f = model.hfields[g.hfield];
  if (f.nrow < 2 || f.ncol < 2 || f.data.size() != static_cast<std::size_t>(f.nrow) * f.ncol) return mesh;
  mesh.mesh_file = f.name;
  mesh.vertices.reserve(f.data.size());
  for (int r = 0; r < f.nrow; ++r)
    for (int c = 0; c < f.ncol; ++c)
      mesh.vertices.emplace_back(-f.size(0) + 2 * f.size(0) * c / (f.ncol - 1), -f.size(1) + 2 * f.size(1) * r / (f.nrow - 1),
                                 f.size(2) * f.data[static_cast<std::size_t>(r) * f.ncol + c]);
  for (int r = 0; r + 1 < f.nrow; ++r)
    for (int c = 0; c + 1 < f.ncol; ++c) {
      const int v00 = r * f.ncol + c, v01 = v00 + 1, v10 = v00 + f.ncol, v11 = v10 + 1;
      mesh.faces.emplace_back(v00, v01, v11);
      mesh.faces.emplace_back(v00, v11, v10);
    }
  return mesh;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Text inside <script>: "</script" and "<!--" would end or confuse the element; in JavaScript
// source "<\/" and "<\!--" mean the same inside strings and regular expressions, where they occur.
std::string script_safe(std::string js) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"</script", "<\\/script"},
                                 std::pair<std::string, std::string>{"</SCRIPT", "<\\/SCRIPT"},
                                 std::pair<std::string, std::string>{"<!--", "<\\!--"}}) {
    for (std::size_t p = js.find(from); p != std::string::npos; p = js.find(from, p + to.size())) js.replace(p, from.size(), to);
  }
  return js;
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else o += c;
  }
  return o;
}

}  // namespace

// ---- trajectories ----------------------------------------------------------------------------------
Replay replay_from_csv(const Model& model, const CsvTable& table) {
  Replay r;
  r.trajectory_file = table.path;
  const int tcol = table.column("t");
  if (tcol < 0) throw Error(table.path + ": no column 't' (is this a maxsim trajectory CSV?)");
  // bodies in the CSV: every "B.qw" column names one
  std::set<std::string> model_bodies;
  for (const Body& b : model.bodies) model_bodies.insert(b.name);
  std::vector<std::string> extra;
  for (const std::string& c : table.columns)
    if (c.size() > 3 && c.compare(c.size() - 3, 3, ".qw") == 0 && !model_bodies.count(c.substr(0, c.size() - 3)))
      extra.push_back(c.substr(0, c.size() - 3));
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size() && i < 10; ++i) {
      s += i ? ", " : "";
      s += "'" + v[i] + "'";
    }
    return s + (v.size() > 10 ? ", ..." : "");
  };
  std::vector<std::string> missing;
  std::vector<std::array<int, 7>> cols(model.bodies.size());
  for (std::size_t b = 0; b < model.bodies.size(); ++b) {
    for (int k = 0; k < 7; ++k) {
      cols[b][k] = table.column(model.bodies[b].name + "." + kPoseFields[k]);
      if (cols[b][k] < 0) {
        missing.push_back(model.bodies[b].name + "." + kPoseFields[k]);
        break;
      }
    }
  }
  if (!missing.empty() || !extra.empty()) {
    std::string msg = table.path + " does not fit the model";
    if (!model.source_file.empty()) msg += " " + model.source_file;
    if (!missing.empty()) msg += ": no column " + list(missing);
    if (!extra.empty()) msg += std::string(missing.empty() ? ": " : "; ") + "the CSV has bodies the model has not: " + list(extra);
    std::vector<std::string> names;
    for (const Body& b : model.bodies) names.push_back(b.name);
    msg += " (the model's bodies: " + list(names) + ")";
    throw Error(msg);
  }
  const std::size_t n = table.rows(), nb = model.bodies.size();
  r.times = table.values[tcol];
  r.poses.resize(n * nb * 7);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(r.times[i])) throw Error(table.path + ": data row " + std::to_string(i + 1) + " has no time");
    if (i > 0 && r.times[i] < r.times[i - 1])
      throw Error(table.path + ": the time decreases at data row " + std::to_string(i + 1) + " (t = " +
                      json_number(r.times[i]) + " after " + json_number(r.times[i - 1]) + ")");
    for (std::size_t b = 0; b < nb; ++b)
      for (int k = 0; k < 7; ++k) {
        const double v = table.values[cols[b][k]][i];
        if (!std::isfinite(v))
          throw Error(table.path + ": data row " + std::to_string(i + 1) + ": column '" + table.columns[cols[b][k]] + "' is empty");
        r.poses[(i * nb + b) * 7 + k] = static_cast<float>(v);
      }
  }
  // contacts: contact.K.{x,y,z,fx,fy,fz} for K = 0, 1, ... while the columns exist
  std::vector<std::array<int, 6>> slots;
  for (int k = 0;; ++k) {
    std::array<int, 6> c{};
    bool all = true;
    for (int f = 0; f < 6; ++f) {
      c[f] = table.column("contact." + std::to_string(k) + "." + kContactFields[f]);
      all = all && c[f] >= 0;
    }
    if (!all) break;
    slots.push_back(c);
  }
  if (!slots.empty()) {
    r.contact_counts.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (const auto& c : slots) {
        bool active = true;
        for (int f = 0; f < 6; ++f) active = active && std::isfinite(table.values[c[f]][i]);
        if (!active) continue;
        ++r.contact_counts[i];
        for (int f = 0; f < 6; ++f) r.contacts.push_back(static_cast<float>(table.values[c[f]][i]));
      }
  }
  for (const char* s : kScalarColumns)
    if (table.column(s) >= 0) r.scalars.emplace_back(s, table.get(s));
  return r;
}

ReplayRecorder::ReplayRecorder(const Model& model) : bodies_(model.bodies.size()) {
  replay_.scalars = {{"energy.total", {}}, {"violation.max", {}}};
}

std::size_t Replay::frame_bytes() const {
  std::size_t n = sizeof(double) * times.size() + sizeof(float) * (poses.size() + contacts.size()) +
                  sizeof(std::uint32_t) * contact_counts.size();
  for (const auto& s : scalars) n += sizeof(double) * s.second.size();
  return n;
}

void ReplayRecorder::record(const Model& model, const Data& d) {
  replay_.times.push_back(d.time);
  for (std::size_t b = 0; b < bodies_; ++b) {
    for (int k = 0; k < 3; ++k) replay_.poses.push_back(static_cast<float>(d.x[b](k)));
    for (int k = 0; k < 4; ++k) replay_.poses.push_back(static_cast<float>(d.q[b](k)));
  }
  std::uint32_t count = 0;
  for (const Contact& c : d.contacts) {
    if (!is_surface_contact(c)) continue;  // joint and tendon limits, joint friction: no points
    const Vec3 p = c.body_b == kWorld ? c.point_b : Vec3(d.x[c.body_b] + quat_rotate(d.q[c.body_b], c.point_b));
    const Vec3 f = (c.gamma * c.normal + c.tangent * c.b) / model.opt.timestep;
    for (int k = 0; k < 3; ++k) replay_.contacts.push_back(static_cast<float>(p(k)));
    for (int k = 0; k < 3; ++k) replay_.contacts.push_back(static_cast<float>(f(k)));
    ++count;
  }
  replay_.contact_counts.push_back(count);
  replay_.scalars[0].second.push_back(total_energy(model, d));
  replay_.scalars[1].second.push_back(max_constraint_violation(model, d));
}

// ---- the page --------------------------------------------------------------------------------------
namespace {

// The places the bundle may be, in order: the build tree's (a library used where it was built),
// then the installed one — share/maxsim beside the running program's bin/ (an installed tree that
// was moved, or installed with `cmake --install --prefix`), then the prefix the build was
// configured with.
std::vector<std::string> viewer_js_candidates() {
  std::vector<std::string> paths;
  if (*MAXSIM_VIEWER_JS_PATH) paths.emplace_back(MAXSIM_VIEWER_JS_PATH);
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && !exe.empty())
    paths.push_back((exe.parent_path().parent_path() / "share/maxsim/maxsim_viewer.js").string());
  if (*MAXSIM_VIEWER_JS_INSTALLED) paths.emplace_back(MAXSIM_VIEWER_JS_INSTALLED);
  return paths;
}

}  // namespace

std::string viewer_js_path() {
  if (const char* env = std::getenv("MAXSIM_VIEWER_JS"); env && *env) return env;
  for (const std::string& path : viewer_js_candidates()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return {};
}

std::string load_viewer_js() {
  const std::string path = viewer_js_path();
  std::string js = path.empty() ? std::string() : read_file(path);
  if (js.empty()) {
    std::string tried = path;
    if (path.empty())
      for (const std::string& candidate : viewer_js_candidates()) tried += (tried.empty() ? "" : ", ") + candidate;
    throw Error("the viewer's JavaScript (three.js bundle) is missing" +
                    (tried.empty() ? std::string() : ": not found at " + tried) +
                    ". Get it with `make deps` (runs `npm ci` in web/) and rebuild (`make build`; the build "
                    "bundles web/src/viewer.js with three.js), or set MAXSIM_VIEWER_JS to a built maxsim_viewer.js");
  }
  return js;
}

std::string replay_html(const Model& model, const Replay& r, const std::string& viewer_js) {
  const std::size_t n = r.frames(), nb = model.bodies.size();
  if (r.poses.size() != n * nb * 7)
    throw Error("replay: " + std::to_string(r.poses.size()) + " pose values for " + std::to_string(n) +
                    " frames of " + std::to_string(nb) + " bodies");
  if (n == 0) throw Error("replay: no frames");
  if (!r.contact_counts.empty() && r.contact_counts.size() != n)
    throw Error("replay: contact counts for " + std::to_string(r.contact_counts.size()) + " of " + std::to_string(n) + " frames");

  Blob blob;
  MeshTable meshes;
  std::deque<Geom> surfaces;  // height fields' surfaces (MeshTable keeps their addresses)
  std::string geoms = "[";
  bool first = true;
  auto add_geom = [&](const Geom& geom, int body) {
    const Geom& g = geom.type == GeomType::HField ? surfaces.emplace_back(hfield_surface(model, geom)) : geom;
    if (g.type == GeomType::Mesh && (g.vertices.empty() || g.faces.empty())) return;
    geoms += first ? "" : ",";
    geoms += geom_json(g, body, &meshes);
    first = false;
  };
  for (std::size_t b = 0; b < nb; ++b)
    for (const Geom& g : model.bodies[b].geoms) add_geom(g, static_cast<int>(b));
  for (const Geom& g : model.world_geoms) add_geom(g, -1);
  geoms += "]";

  std::string mesh_json = "[";
  for (std::size_t i = 0; i < meshes.meshes.size(); ++i) {
    const Geom& g = *meshes.meshes[i];
    std::vector<float> v;
    v.reserve(g.vertices.size() * 3);
    for (const Vec3& p : g.vertices)
      for (int k = 0; k < 3; ++k) v.push_back(static_cast<float>(p(k)));
    const std::size_t vo = blob.add(v.data(), v.size());
    std::size_t io = 0;
    int index_bytes = 2;
    if (g.vertices.size() <= 65535) {
      std::vector<std::uint16_t> idx;
      for (const auto& f : g.faces)
        for (int k = 0; k < 3; ++k) idx.push_back(static_cast<std::uint16_t>(f(k)));
      io = blob.add(idx.data(), idx.size());
    } else {
      index_bytes = 4;
      std::vector<std::uint32_t> idx;
      for (const auto& f : g.faces)
        for (int k = 0; k < 3; ++k) idx.push_back(static_cast<std::uint32_t>(f(k)));
      io = blob.add(idx.data(), idx.size());
    }
    const std::string name = g.mesh_file.empty() ? "mesh" + std::to_string(i) : std::filesystem::path(g.mesh_file).filename().string();
    mesh_json += i ? "," : "";
    mesh_json += "{\"name\":" + JsonObject::quote(name) + ",\"vertices\":" + std::to_string(vo) +
                 ",\"vertex_count\":" + std::to_string(g.vertices.size()) + ",\"indices\":" + std::to_string(io) +
                 ",\"index_count\":" + std::to_string(g.faces.size() * 3) + ",\"index_bytes\":" + std::to_string(index_bytes) + "}";
  }
  mesh_json += "]";

  const std::size_t times_off = blob.add(r.times.data(), n);
  const std::size_t poses_off = blob.add(r.poses.data(), r.poses.size());
  std::string contacts_json = "null";
  if (!r.contact_counts.empty()) {
    const std::size_t co = blob.add(r.contact_counts.data(), n);
    const std::size_t cd = blob.add(r.contacts.data(), r.contacts.size());
    // arrows: the model's weight drawn as 0.5 m
    const double weight = std::max(1e-9, model.total_mass() * std::max(1e-9, model.opt.gravity.norm()));
    contacts_json = "{\"counts\":" + std::to_string(co) + ",\"data\":" + std::to_string(cd) +
                    ",\"total\":" + std::to_string(r.contacts.size() / 6) + ",\"force_scale\":" + json_number(0.5 / weight) + "}";
  }
  std::string scalars_json = "[";
  bool sfirst = true;
  for (const auto& [name, values] : r.scalars) {
    if (values.size() != n) continue;
    const std::size_t so = blob.add(values.data(), n);
    scalars_json += sfirst ? "" : ",";
    scalars_json += "{\"name\":" + JsonObject::quote(name) + ",\"offset\":" + std::to_string(so) + "}";
    sfirst = false;
  }
  scalars_json += "]";

  std::string bodies_json = "[";
  for (std::size_t b = 0; b < nb; ++b) {
    bodies_json += b ? "," : "";
    bodies_json += JsonObject::quote(model.bodies[b].name);
  }
  bodies_json += "]";

  const std::string name = !model.name.empty() ? model.name
                           : !r.model_file.empty() ? std::filesystem::path(r.model_file).stem().string()
                                                   : std::string("model");
  const std::string title = r.title.empty() ? name : r.title;
  const std::vector<std::uint8_t> packed = gzip(blob.bytes());

  std::string json = "{\"format\":\"maxsim-replay-1\",\"title\":" + JsonObject::quote(title) + ",\"model\":" + JsonObject::quote(name) +
                     ",\"model_file\":" + JsonObject::quote(r.model_file) + ",\"trajectory_file\":" + JsonObject::quote(r.trajectory_file) +
                     ",\"bodies\":" + bodies_json + ",\"geoms\":" + geoms + ",\"meshes\":" + mesh_json +
                     ",\"frames\":" + std::to_string(n) + ",\"times\":" + std::to_string(times_off) +
                     ",\"poses\":" + std::to_string(poses_off) + ",\"contacts\":" + contacts_json +
                     ",\"scalars\":" + scalars_json + ",\"gravity\":" + json_array(model.opt.gravity, 3) +
                     ",\"blob_bytes\":" + std::to_string(blob.bytes().size()) + ",\"blob_encoding\":\"gzip\"}";

  std::string html;
  html.reserve(packed.size() * 4 / 3 + viewer_js.size() + json.size() + 1024);
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"maxsim view\">\n<title>maxsim replay: ";
  html += html_escape(title);
  html += "</title>\n</head>\n<body>\n<script type=\"application/json\" id=\"maxsim-replay\">";
  html += json;
  html += "</script>\n<script type=\"application/octet-stream\" id=\"maxsim-blob\">";
  html += base64(packed);
  html += "</script>\n<script>\n";
  html += script_safe(viewer_js);
  html += "\n</script>\n</body>\n</html>\n";
  return html;
}

void check_writable(const std::string& path) {
  if (path.empty()) throw Error("empty output file name");
  const bool existed = std::filesystem::exists(path);
  std::FILE* f = std::fopen(path.c_str(), "ab");
  if (!f) throw Error(path + ": cannot write the replay: " + std::strerror(errno));
  std::fclose(f);
  if (!existed) std::remove(path.c_str());
}

void write_html_file(const std::string& path, const std::string& html) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot write the replay: " + std::strerror(errno));
  f.write(html.data(), static_cast<std::streamsize>(html.size()));
  f.close();
  if (!f) throw Error(path + ": write error");
}

void write_replay_html(const Model& model, const Replay& replay, const std::string& path) {
  write_html_file(path, replay_html(model, replay, load_viewer_js()));
}

}  // namespace maxsim::io
