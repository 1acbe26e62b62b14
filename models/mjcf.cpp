#include "models/mjcf.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "models/builder.hpp"
#include "models/inertia.hpp"
#include "models/load_error.hpp"
#include "models/mesh.hpp"
#include "models/parse_util.hpp"

namespace maxsim {

namespace {

using tinyxml2::XMLElement;

struct Pose {
  Vec3 p = Vec3::Zero();
  Vec4 q = quat_identity();
};
Pose compose(const Pose& a, const Pose& b) {
  return Pose{a.p + quat_to_rot(a.q) * b.p, quat_normalize(quat_mul(a.q, b.q))};
}
Pose relative(const Pose& a, const Pose& b) {  // b in frame a
  return Pose{quat_to_rot(a.q).transpose() * (b.p - a.p),
              quat_normalize(quat_mul(quat_conj(a.q), b.q))};
}

// One attribute with the element that holds it (the element itself or a default class).
struct Attr {
  const XMLElement* e = nullptr;
  const char* name = nullptr;
  explicit operator bool() const { return e != nullptr; }
  const char* value() const { return e ? e->Attribute(name) : nullptr; }
};

struct DefaultClass {
  std::string parent;
  // element type -> attribute -> element holding it
  std::map<std::string, std::map<std::string, const XMLElement*>> attrs;
};

// A joint as MuJoCo sees it (qpos layout).
struct MjJoint {
  std::string name;
  char kind = 'h';  // f free, b ball, h hinge, s slide
  double ref = 0;
  int spec = -1;    // index in specs_
};

struct MeshAsset {
  const XMLElement* e = nullptr;
  std::string file;  // resolved path ("" with inline vertices)
  Vec3 scale = Vec3::Ones();
  std::vector<Vec3> vertices;
  std::vector<Eigen::Vector3i> faces;
};

// Bodies, frames and defaults nest at most this deep. tinyxml2 reads at most 100 levels of one
// file, but includes can stack files inside one another, and the reader recurses once per level:
// with AddressSanitizer's larger frames, 475 levels of bodies overflowed an 8 MB stack.
constexpr int kMaxNesting = 200;

bool is_actuator_type(const std::string& n) {
  return n == "motor" || n == "position" || n == "velocity" || n == "general" ||
         n == "intvelocity" || n == "damper" || n == "cylinder" || n == "muscle" ||
         n == "adhesion";
}

class MjcfReader {
 public:
  MjcfReader(const std::string& path, const LoadOptions& options, LoadReport* report)
      : path_(path), dir_(parse::dir_of(path)), options_(options), report_(report),
        xml_(options.limits), mesh_cache_(options.limits) {}
  Model load();

 private:
  // ---- XML helpers ----
  // The child elements of e, every <include> replaced by the children of the included file's root.
  std::vector<const XMLElement*> children(const XMLElement* e);
  // Includes are resolved once, before anything is read (resolve_includes on the main file's
  // root): each file is loaded and parsed once however often it is included, and the elements
  // of the expanded model are counted without expanding it, so that a file whose includes
  // multiply (a few files that each include the next ten times) is refused in the time it takes to
  // read those few files. Returns the elements below root, includes expanded, and in *height the
  // levels of includes below it.
  long long resolve_includes(const XMLElement* root, int depth, int* height);
  void ignore(const std::string& what) { ++ignored_[what]; }
  [[noreturn]] void fail(const XMLElement* e, const std::string& msg) const { xml_.fail(e, msg); }

  // Defaults.
  void read_default(const XMLElement* e, const std::string& parent, int depth = 0);
  std::string class_of(const XMLElement* e, const std::string& childclass) const;
  Attr attr(const XMLElement* e, const std::string& type, const std::string& cls,
            const char* name) const;
  std::optional<std::vector<double>> nums(const Attr& a, int min_n, int max_n) const {
    if (!a) return std::nullopt;
    return xml_.numbers(a.e, a.name, min_n, max_n);
  }
  std::optional<double> num(const Attr& a) const {
    if (!a) return std::nullopt;
    return xml_.number(a.e, a.name);
  }
  std::optional<int> integer(const Attr& a) const {
    if (!a) return std::nullopt;
    return xml_.integer(a.e, a.name);
  }
  std::optional<bool> boolean(const Attr& a, bool allow_auto) const {
    if (!a) return std::nullopt;
    return xml_.boolean(a.e, a.name, allow_auto);
  }
  std::string str(const Attr& a, const std::string& fallback = "") const {
    const char* v = a.value();
    return v ? std::string(v) : fallback;
  }
  double angle(double v) const { return degree_ ? v * M_PI / 180.0 : v; }
  double rotation_angle(double v) const { return parse::rotation_angle(angle(v)); }
  // Orientation of an element from quat / axisangle / euler / xyaxes / zaxis (defaults too).
  Vec4 orientation(const XMLElement* e, const std::string& type, const std::string& cls) const;
  // Pose of an element relative to its body frame (frame_offset: enclosing <frame>s).
  Pose element_pose(const XMLElement* e, const std::string& type, const std::string& cls,
                    const Pose& body_world, const Pose& frame_offset) const;

  // Sections.
  void read_compiler(const XMLElement* e);
  void read_option(const XMLElement* e, Model* model);
  void read_assets(const XMLElement* e);
  void read_body(const XMLElement* e, int parent_link, const Pose& parent_world,
                 const std::string& childclass, bool parent_static, int depth);
  void collect_parts(const XMLElement* container, const Pose& offset, const std::string& childclass, int depth,
                     std::vector<std::tuple<const XMLElement*, Pose, std::string>>* out);
  Geom read_geom(const XMLElement* e, const std::string& cls, const Pose& body_world,
                 const Pose& frame_offset, bool* ok, double* mass_out, bool* has_mass,
                 MassProps* props);
  void read_equality(const XMLElement* e);
  void read_actuators(const XMLElement* e, Model* model);
  void set_collision_filter(const BuildResult& built, Model* model) const;
  void read_keyframes(const XMLElement* e, Model* model);
  void read_custom(const XMLElement* e, Model* model);
  NonholonomicSpec read_nonholonomic(const XMLElement* e, const std::string& name, const std::string& data) const;

  std::string path_, dir_;
  LoadOptions options_;
  LoadReport* report_;
  parse::XmlFiles xml_;
  struct IncludedFile {
    const XMLElement* root = nullptr;
    long long elements = -1;  // below the root, includes expanded (-1: being counted)
    int height = 0;           // levels of includes below it
  };
  std::map<std::pair<dev_t, ino_t>, IncludedFile> included_;  // by file identity
  std::map<const XMLElement*, const IncludedFile*> include_target_;
  std::map<const XMLElement*, std::vector<const XMLElement*>> include_cache_;

  // compiler
  bool degree_ = true;
  std::string eulerseq_ = "xyz";
  std::string meshdir_, assetdir_;
  bool autolimits_ = true;
  int inertia_from_geom_ = 0;  // 0 auto, 1 true, -1 false
  bool global_ = false;
  std::optional<double> settotalmass_;
  double boundmass_ = 0, boundinertia_ = 0;
  bool balanceinertia_ = false, discardvisual_ = false, strippath_ = false;

  std::map<std::string, DefaultClass> classes_;
  std::map<std::string, MeshAsset> meshes_;
  std::map<std::string, Eigen::Vector4d> materials_;
  MeshCache mesh_cache_;
  std::set<std::string> missing_meshes_;

  std::vector<LinkSpec> links_;
  std::vector<JointSpec> specs_;
  std::vector<int> real_link_of_virtual_;  // per link: the real body link (virtual) or itself
  std::vector<int> link_parent_;          // per link: its tree parent link (-1: none)
  // MuJoCo's view of the tree, for its collision filter: per link, the parent body's link (the
  // world: 0; -1 for virtual links and the world) and the number of joints of the body.
  std::vector<int> body_parent_;
  std::vector<int> body_joints_;
  std::map<std::string, int> body_link_;  // MJCF body name -> link
  std::map<std::string, int> joint_index_;  // MJCF joint name -> mj_joints_
  std::vector<MjJoint> mj_joints_;
  int body_counter_ = 0;
  std::vector<std::pair<const XMLElement*, std::pair<std::string, std::string>>> excludes_;
  std::vector<int> actuator_map_;  // MuJoCo actuator index -> model actuator (-1: skipped)
  std::map<std::string, int> ignored_;
  int frictionloss_count_ = 0;
  // <option><flag>: MuJoCo's disable flags that change the model maxsim builds (true = enabled).
  struct Flags {
    bool constraint = true, equality = true, frictionloss = true, limit = true, contact = true,
         passive = true, gravity = true, filterparent = true, clampctrl = true;
  } flags_;
  std::string collision_ = "all";  // <option collision>: all, predefined or dynamic
  std::vector<const XMLElement*> keyframe_elems_;
  // <custom><text name="maxsim:..."> (read_custom)
  std::vector<NonholonomicSpec> nonholonomic_;
  const XMLElement* integrator_elem_ = nullptr;
};

// ---- XML helpers ----------------------------------------------------------------------------

std::vector<const XMLElement*> MjcfReader::children(const XMLElement* e) {
  std::vector<const XMLElement*> out;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "include") != 0) {
      out.push_back(c);
      continue;
    }
    auto cached = include_cache_.find(c);
    if (cached == include_cache_.end()) {
      auto target = include_target_.find(c);
      if (target == include_target_.end()) fail(c, "internal loader error: unresolved <include>");
      cached = include_cache_.emplace(c, children(target->second->root)).first;
    }
    out.insert(out.end(), cached->second.begin(), cached->second.end());
  }
  return out;
}

long long MjcfReader::resolve_includes(const XMLElement* root, int depth, int* height_out) {
  constexpr int kMaxIncludeDepth = 20;
  const long long limit = options_.limits.elements;
  long long count = 0;
  int height = 0;
  std::vector<const XMLElement*> stack;
  for (const XMLElement* c = root->FirstChildElement(); c; c = c->NextSiblingElement()) stack.push_back(c);
  while (!stack.empty()) {
    const XMLElement* c = stack.back();
    stack.pop_back();
    if (std::strcmp(c->Name(), "include") != 0) {
      if (++count > limit)
        xml_.fail_limit(c, "more than " + std::to_string(limit) + " XML elements" +
                               limit_hint("elements", "elements=N"));
      for (const XMLElement* k = c->FirstChildElement(); k; k = k->NextSiblingElement()) stack.push_back(k);
      continue;
    }
    const char* file = c->Attribute("file");
    if (!file) fail(c, "<include> needs a 'file' attribute");
    std::string p = parse::join_path(dir_, file);
    if (!parse::file_exists(p)) {
      const std::string alt = parse::join_path(parse::dir_of(xml_.file_of(c)), file);
      if (parse::file_exists(alt)) p = alt;
    }
    struct stat st;
    if (!parse::file_exists(p) || ::stat(p.c_str(), &st) != 0)
      fail(c, std::string("included file '") + file + "' not found (looked for " + p + ")");
    // (one file under several names — relative, absolute, linked — is one file)
    IncludedFile& f = included_[{st.st_dev, st.st_ino}];
    if (!f.root) {
      if (depth + 1 > kMaxIncludeDepth)
        fail(c, "<include>s nested more than " + std::to_string(kMaxIncludeDepth) + " deep (at '" + p + "')");
      const XMLElement* r = xml_.load(p).RootElement();
      if (std::strcmp(r->Name(), "mujoco") != 0)
        xml_.fail(r, std::string("included file's root is <") + r->Name() + ">, expected <mujoco>");
      f.root = r;
      int h = 0;
      const long long n = resolve_includes(r, depth + 1, &h);
      f.elements = n;
      f.height = h;
    } else if (f.elements < 0) {
      fail(c, "recursive <include> of '" + p + "'");
    } else if (depth + 1 + f.height > kMaxIncludeDepth) {
      fail(c, "<include>s nested more than " + std::to_string(kMaxIncludeDepth) + " deep (at '" + p + "')");
    }
    include_target_[c] = &f;
    height = std::max(height, f.height + 1);
    count += f.elements;
    if (count > limit)
      xml_.fail_limit(c, "the <include> of '" + std::string(file) + "' makes the model more than " +
                             std::to_string(limit) + " XML elements (" + std::to_string(f.elements) +
                             " in each copy of that file)" + limit_hint("elements", "elements=N"));
  }
  *height_out = height;
  return count;
}

void MjcfReader::read_default(const XMLElement* e, const std::string& parent, int depth) {
  if (depth >= kMaxNesting) fail(e, "<default>s nested more than " + std::to_string(kMaxNesting) + " deep");
  std::string name = "main";
  if (const char* c = e->Attribute("class")) name = c;
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
    for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) {
      if (std::strcmp(a->Name(), "class") == 0 || std::strcmp(a->Name(), "name") == 0) continue;
      map[a->Name()] = c;
    }
  }
  for (const XMLElement* c : children(e))
    if (std::strcmp(c->Name(), "default") == 0) read_default(c, name, depth + 1);
}

std::string MjcfReader::class_of(const XMLElement* e, const std::string& childclass) const {
  if (const char* c = e->Attribute("class")) {
    if (!classes_.count(c)) fail(e, std::string("unknown default class '") + c + "'");
    return c;
  }
  return childclass.empty() ? "main" : childclass;
}

Attr MjcfReader::attr(const XMLElement* e, const std::string& type, const std::string& cls,
                      const char* name) const {
  if (e->Attribute(name)) return Attr{e, name};
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

Vec4 MjcfReader::orientation(const XMLElement* e, const std::string& type,
                             const std::string& cls) const {
  static const char* kinds[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  // the element's own specifier first, then its class's
  const XMLElement* holder = nullptr;
  const char* kind = nullptr;
  for (const char* k : kinds) {
    if (e->Attribute(k)) {
      if (kind) fail(e, std::string("multiple orientation specifiers ('") + kind + "' and '" + k + "')");
      holder = e;
      kind = k;
    }
  }
  if (!kind) {
    for (const char* k : kinds) {
      Attr a = attr(e, type, cls, k);
      if (a) {
        holder = a.e;
        kind = k;
        break;
      }
    }
  }
  if (!kind) return quat_identity();
  const std::string k = kind;
  if (k == "quat") {
    auto v = *xml_.numbers(holder, "quat", 4);
    Vec4 q(v[0], v[1], v[2], v[3]);
    if (q.norm() < 1e-12) fail(holder, "zero quaternion");
    return quat_normalize(parse::scaled(q));
  }
  if (k == "axisangle") {
    auto v = *xml_.numbers(holder, "axisangle", 4);
    Vec3 a(v[0], v[1], v[2]);
    if (a.norm() < 1e-12) fail(holder, "axisangle with a zero axis");
    return quat_axis_angle(parse::scaled(a), rotation_angle(v[3]));
  }
  if (k == "euler") {
    auto v = *xml_.numbers(holder, "euler", 3);
    if (eulerseq_.size() != 3) fail(holder, "compiler eulerseq must have 3 letters");
    Vec4 q = quat_identity();
    for (int i = 0; i < 3; ++i) {
      const char c = eulerseq_[i];
      const char l = static_cast<char>(std::tolower(c));
      Vec3 axis = l == 'x' ? Vec3::UnitX() : l == 'y' ? Vec3::UnitY() : Vec3::UnitZ();
      const Vec4 r = quat_axis_angle(axis, rotation_angle(v[i]));
      q = (c >= 'a' && c <= 'z') ? quat_mul(q, r) : quat_mul(r, q);  // rotating : fixed axes
    }
    return quat_normalize(q);
  }
  if (k == "xyaxes") {
    auto v = *xml_.numbers(holder, "xyaxes", 6);
    Vec3 x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
    if (x.norm() < 1e-12) fail(holder, "xyaxes with a zero x axis");
    x = parse::scaled(x);
    x.normalize();
    y = parse::scaled(y);
    y -= x * x.dot(y);
    if (y.norm() < 1e-12) fail(holder, "xyaxes with parallel axes");
    y.normalize();
    Mat3 R;
    R.col(0) = x;
    R.col(1) = y;
    R.col(2) = x.cross(y);
    return rot_to_quat(R);
  }
  auto v = *xml_.numbers(holder, "zaxis", 3);
  Vec3 z(v[0], v[1], v[2]);
  if (z.norm() < 1e-12) fail(holder, "zaxis of zero length");
  return quat_z_to(parse::scaled(z));
}

Pose MjcfReader::element_pose(const XMLElement* e, const std::string& type,
                              const std::string& cls, const Pose& body_world,
                              const Pose& frame_offset) const {
  Pose local;
  if (auto p = nums(attr(e, type, cls, "pos"), 3, 3)) local.p = Vec3((*p)[0], (*p)[1], (*p)[2]);
  local.q = orientation(e, type, cls);
  if (global_) return relative(body_world, local);
  return compose(frame_offset, local);
}

// ---- compiler, option, assets ---------------------------------------------------------------

void MjcfReader::read_compiler(const XMLElement* e) {
  if (const char* a = e->Attribute("angle")) {
    if (std::strcmp(a, "degree") == 0) degree_ = true;
    else if (std::strcmp(a, "radian") == 0) degree_ = false;
    else fail(e, std::string("compiler angle must be degree or radian, got '") + a + "'");
  }
  if (const char* s = e->Attribute("eulerseq")) {
    eulerseq_ = s;
    if (eulerseq_.size() != 3 || eulerseq_.find_first_not_of("xyzXYZ") != std::string::npos)
      fail(e, "compiler eulerseq must be 3 letters from xyzXYZ, got '" + eulerseq_ + "'");
  }
  if (const char* s = e->Attribute("meshdir")) meshdir_ = s;
  if (const char* s = e->Attribute("assetdir")) assetdir_ = s;
  if (auto b = xml_.boolean(e, "autolimits")) autolimits_ = *b;
  if (const char* s = e->Attribute("inertiafromgeom")) {
    if (std::strcmp(s, "true") == 0) inertia_from_geom_ = 1;
    else if (std::strcmp(s, "false") == 0) inertia_from_geom_ = -1;
    else if (std::strcmp(s, "auto") == 0) inertia_from_geom_ = 0;
    else fail(e, std::string("compiler inertiafromgeom must be true, false or auto, got '") + s + "'");
  }
  if (const char* s = e->Attribute("coordinate")) {
    if (std::strcmp(s, "global") == 0) global_ = true;
    else if (std::strcmp(s, "local") == 0) global_ = false;
    else fail(e, std::string("compiler coordinate must be local or global, got '") + s + "'");
  }
  if (auto v = xml_.number(e, "settotalmass")) {
    if (*v > 0) settotalmass_ = *v;
  }
  if (auto v = xml_.number(e, "boundmass")) boundmass_ = *v;
  if (auto v = xml_.number(e, "boundinertia")) boundinertia_ = *v;
  if (auto b = xml_.boolean(e, "balanceinertia")) balanceinertia_ = *b;
  if (auto b = xml_.boolean(e, "discardvisual")) discardvisual_ = *b;
  if (auto b = xml_.boolean(e, "strippath")) strippath_ = *b;
}

void MjcfReader::read_option(const XMLElement* e, Model* model) {
  if (auto dt = xml_.number(e, "timestep")) {
    if (!(*dt > 0)) fail(e, "option timestep must be positive");
    model->dt = *dt;
    model->dt_from_file = true;
  }
  if (auto g = xml_.vec3(e, "gravity")) model->gravity = *g;
  for (const char* a : {"viscosity", "density"}) {
    if (auto v = xml_.number(e, a); v && *v != 0) ignore(std::string("<option ") + a + "> (fluid forces)");
  }
  if (auto w = xml_.vec3(e, "wind"); w && w->norm() > 0) ignore("<option wind>");
  if (const char* c = e->Attribute("collision")) {
    if (std::strcmp(c, "all") != 0 && std::strcmp(c, "predefined") != 0 && std::strcmp(c, "dynamic") != 0)
      fail(e, std::string("option collision must be all, predefined or dynamic, got '") + c + "'");
    collision_ = c;
  }
  // MuJoCo reads the first <flag> only.
  const XMLElement* f = e->FirstChildElement("flag");
  if (!f) return;
  auto flag = [&](const char* name, bool* on) {
    const char* v = f->Attribute(name);
    if (!v) return;
    if (std::strcmp(v, "enable") == 0) *on = true;
    else if (std::strcmp(v, "disable") == 0) *on = false;
    else fail(f, std::string("flag ") + name + " must be enable or disable, got '" + v + "'");
  };
  flag("constraint", &flags_.constraint);
  flag("equality", &flags_.equality);
  flag("frictionloss", &flags_.frictionloss);
  flag("limit", &flags_.limit);
  flag("contact", &flags_.contact);
  flag("passive", &flags_.passive);
  flag("gravity", &flags_.gravity);
  flag("filterparent", &flags_.filterparent);
  flag("clampctrl", &flags_.clampctrl);
  flag("actuation", &model->actuation);
  // Not represented: flags that tune MuJoCo's own solver, sensors or statistics. A value other
  // than MuJoCo's default is named in the warning.
  for (const char* k : {"warmstart", "refsafe", "sensor", "midphase", "eulerdamp", "nativeccd"}) {
    bool on = true;
    flag(k, &on);
    if (!on) ignore(std::string("<flag ") + k + "=\"disable\">");
  }
  for (const char* k : {"override", "energy", "fwdinv", "invdiscrete", "sensornoise", "multiccd", "island"}) {
    bool on = false;
    flag(k, &on);
    if (on) ignore(std::string("<flag ") + k + "=\"enable\">");
  }
}

void MjcfReader::read_assets(const XMLElement* e) {
  for (const XMLElement* c : children(e)) {
    const std::string n = c->Name();
    if (n == "mesh") {
      MeshAsset m;
      m.e = c;
      const std::string cls = class_of(c, "");
      std::string file = str(attr(c, "mesh", cls, "file"));
      std::string name = c->Attribute("name") ? c->Attribute("name") : "";
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
      if (const char* name = c->Attribute("name")) {
        const std::string cls = class_of(c, "");
        if (auto rgba = nums(attr(c, "material", cls, "rgba"), 4, 4))
          materials_[name] = Eigen::Vector4d((*rgba)[0], (*rgba)[1], (*rgba)[2], (*rgba)[3]);
      }
    } else if (n == "hfield" || n == "skin") {
      ignore("<asset><" + n + ">");
    }
    // texture, model: visual or MuJoCo 3 composition (attach fails later)
  }
}

// ---- bodies ---------------------------------------------------------------------------------

void MjcfReader::collect_parts(const XMLElement* container, const Pose& offset,
                               const std::string& childclass, int depth,
                               std::vector<std::tuple<const XMLElement*, Pose, std::string>>* out) {
  for (const XMLElement* c : children(container)) {
    const std::string n = c->Name();
    if (n == "frame") {
      const std::string cls = c->Attribute("childclass") ? c->Attribute("childclass") : childclass;
      if (c->Attribute("childclass") && !classes_.count(cls))
        fail(c, "unknown default class '" + cls + "'");
      Pose local;
      if (auto p = xml_.vec3(c, "pos")) local.p = *p;
      local.q = orientation(c, "frame", class_of(c, childclass));
      if (depth + 1 >= kMaxNesting) fail(c, "<frame>s nested more than " + std::to_string(kMaxNesting) + " deep");
      collect_parts(c, compose(offset, local), cls, depth + 1, out);
      continue;
    }
    out->emplace_back(c, offset, childclass);
  }
}

Geom MjcfReader::read_geom(const XMLElement* e, const std::string& cls, const Pose& body_world,
                           const Pose& frame_offset, bool* ok, double* mass_out, bool* has_mass,
                           MassProps* props) {
  *ok = true;
  xml_.count_geom(e, "geoms");
  Geom g;
  if (const char* n = e->Attribute("name")) g.name = n;
  const std::string type = str(attr(e, "geom", cls, "type"), "sphere");
  if (type == "plane") g.type = GeomType::Plane;
  else if (type == "sphere") g.type = GeomType::Sphere;
  else if (type == "capsule") g.type = GeomType::Capsule;
  else if (type == "ellipsoid") g.type = GeomType::Ellipsoid;
  else if (type == "cylinder") g.type = GeomType::Cylinder;
  else if (type == "box") g.type = GeomType::Box;
  else if (type == "mesh") g.type = GeomType::Mesh;
  else
    fail(e, "unsupported geom type '" + type +
                "' (supported: plane, sphere, capsule, ellipsoid, cylinder, box, mesh)");
  std::vector<double> size = nums(attr(e, "geom", cls, "size"), 1, 3).value_or(std::vector<double>{});
  size.resize(3, 0.0);
  auto fromto = nums(attr(e, "geom", cls, "fromto"), 6, 6);
  if (fromto && (g.type == GeomType::Capsule || g.type == GeomType::Cylinder ||
                 g.type == GeomType::Box || g.type == GeomType::Ellipsoid)) {
    Vec3 a((*fromto)[0], (*fromto)[1], (*fromto)[2]), b((*fromto)[3], (*fromto)[4], (*fromto)[5]);
    Pose pa{a, quat_identity()}, pb{b, quat_identity()};
    if (global_) {
      pa = relative(body_world, pa);
      pb = relative(body_world, pb);
    } else {
      pa = compose(frame_offset, pa);
      pb = compose(frame_offset, pb);
    }
    const Vec3 d = pb.p - pa.p;
    if (d.norm() < 1e-12) fail(e, "geom fromto with coincident end points");
    g.pos = 0.5 * (pa.p + pb.p);
    g.quat = quat_z_to(d);
    const double hl = 0.5 * d.norm();
    if (g.type == GeomType::Capsule || g.type == GeomType::Cylinder) size[1] = hl;
    else size[2] = hl;
  } else {
    const Pose p = element_pose(e, "geom", cls, body_world, frame_offset);
    g.pos = p.p;
    g.quat = p.q;
  }
  auto need = [&](int k) {
    for (int i = 0; i < k; ++i)
      if (!(size[i] > 0))
        fail(e, "geom of type " + type + " needs " + std::to_string(k) + " positive size value" +
                    (k > 1 ? "s" : "") + " (or fromto for the length)");
  };
  switch (g.type) {
    case GeomType::Sphere: need(1); g.size = Vec3(size[0], 0, 0); break;
    case GeomType::Capsule:
    case GeomType::Cylinder: need(2); g.size = Vec3(size[0], size[1], 0); break;
    case GeomType::Box:
    case GeomType::Ellipsoid: need(3); g.size = Vec3(size[0], size[1], size[2]); break;
    case GeomType::Plane: g.size = Vec3(size[0], size[1], 0); break;
    case GeomType::Mesh: break;
  }
  if (auto f = nums(attr(e, "geom", cls, "friction"), 1, 3)) g.friction = (*f)[0];
  g.contype = integer(attr(e, "geom", cls, "contype")).value_or(1);
  g.conaffinity = integer(attr(e, "geom", cls, "conaffinity")).value_or(1);
  g.collision = !(g.contype == 0 && g.conaffinity == 0);
  if (auto m = num(attr(e, "geom", cls, "margin"))) g.margin = *m;
  if (auto c = integer(attr(e, "geom", cls, "condim")); c && *c > 3)
    ignore("geom condim " + std::to_string(*c) + " (torsional/rolling friction)");
  if (auto rgba = nums(attr(e, "geom", cls, "rgba"), 4, 4)) {
    g.rgba = Eigen::Vector4d((*rgba)[0], (*rgba)[1], (*rgba)[2], (*rgba)[3]);
  } else if (Attr m = attr(e, "geom", cls, "material")) {
    auto it = materials_.find(m.value());
    g.rgba = it != materials_.end() ? it->second : Eigen::Vector4d(0.5, 0.5, 0.5, 1);
  } else {
    g.rgba = Eigen::Vector4d(0.5, 0.5, 0.5, 1);
  }
  std::optional<double> mass = num(attr(e, "geom", cls, "mass"));
  const double density = num(attr(e, "geom", cls, "density")).value_or(1000.0);
  if (mass && *mass < 0) fail(e, "geom mass must not be negative");
  if (density < 0) fail(e, "geom density must not be negative");
  *has_mass = mass ? *mass > 0 : density > 0;
  if (g.type == GeomType::Mesh) {
    const std::string mname = str(attr(e, "geom", cls, "mesh"));
    if (mname.empty()) fail(e, "mesh geom without a 'mesh' attribute");
    auto it = meshes_.find(mname);
    if (it == meshes_.end()) fail(e, "geom refers to undefined mesh '" + mname + "'");
    const MeshAsset& ma = it->second;
    auto count_vertices = [&](size_t n) { xml_.count_mesh_vertices(e, n, "geoms"); };
    if (!ma.file.empty()) {
      try {
        const MeshData& d = mesh_cache_.get(ma.file, ma.scale);
        count_vertices(d.vertices.size());
        g.vertices = d.vertices;
        g.faces = d.faces;
        g.mesh_file = ma.file;
        g.mesh_scale = ma.scale;
      } catch (const LimitError&) {
        throw;
      } catch (const LoadError& err) {
        // A missing visual mesh is a warning; one that collides or carries mass is an error.
        const bool needed = g.collision || (props && *has_mass);
        if (needed)
          fail(e, "mesh '" + mname + "' (" + xml_.where(ma.e) + "): " + err.what());
        if (missing_meshes_.insert(mname).second)
          report_->warnings.push_back(xml_.where(ma.e) + ": mesh '" + mname + "': " + err.what() +
                                      "; the visual geoms using it are dropped");
        *ok = false;
        return g;
      }
    } else {
      count_vertices(ma.vertices.size());
      g.vertices = ma.vertices;
      g.faces = ma.faces;
      g.mesh_scale = ma.scale;
    }
  }
  *mass_out = 0;
  if (props && g.type != GeomType::Plane) {
    const SolidProps s = solid_props(g);
    double m = mass ? *mass : density * s.volume;
    if (m > 0 && s.volume > 0) {
      MassProps mp;
      mp.mass = m;
      mp.com = s.centroid;
      mp.inertia = s.unit_inertia * (m / s.volume);
      *props = transform_mass(mp, g.pos, g.quat);
      *mass_out = m;
    }
  }
  return g;
}

void MjcfReader::read_body(const XMLElement* e, int parent_link, const Pose& parent_world,
                           const std::string& inherited_class, bool parent_static, int depth) {
  if (++body_counter_ > options_.limits.bodies)
    xml_.fail_limit(e, "more than " + std::to_string(options_.limits.bodies) + " bodies" +
                           limit_hint("bodies", "bodies=N"));
  if (depth >= kMaxNesting) fail(e, "bodies nested more than " + std::to_string(kMaxNesting) + " deep");
  std::string name = e->Attribute("name") ? e->Attribute("name") : "";
  if (name.empty()) name = "body" + std::to_string(body_counter_);
  if (body_link_.count(name)) fail(e, "duplicate body name '" + name + "'");
  std::string childclass = inherited_class;
  if (const char* cc = e->Attribute("childclass")) {
    if (!classes_.count(cc)) fail(e, std::string("unknown default class '") + cc + "'");
    childclass = cc;
  }
  if (e->Attribute("mocap") && xml_.boolean(e, "mocap").value_or(false))
    ignore("mocap body (treated as static)");
  // Body frame in the world at qpos0.
  Pose local;
  if (auto p = xml_.vec3(e, "pos")) local.p = *p;
  local.q = orientation(e, "body", "main");
  const Pose world = global_ ? local : compose(parent_world, local);

  std::vector<std::tuple<const XMLElement*, Pose, std::string>> parts;
  collect_parts(e, Pose{}, childclass, 0, &parts);

  // Mass properties and geometry in the body frame.
  const XMLElement* inertial = nullptr;
  for (auto& t : parts)
    if (std::strcmp(std::get<0>(t)->Name(), "inertial") == 0) {
      if (inertial) fail(std::get<0>(t), "body '" + name + "' has two <inertial> elements");
      inertial = std::get<0>(t);
    }
  const bool use_geoms = inertia_from_geom_ == 1 || (inertia_from_geom_ == 0 && !inertial);
  std::vector<Geom> geoms;
  MassProps from_geoms;
  bool any_geom_mass = false;
  const bool mocap = e->Attribute("mocap") && xml_.boolean(e, "mocap").value_or(false);
  for (auto& [c, offset, cls_in] : parts) {
    const std::string n = c->Name();
    if (n == "geom") {
      const std::string cls = class_of(c, cls_in);
      bool ok, has_mass;
      double m;
      MassProps mp;
      Geom g = read_geom(c, cls, world, offset, &ok, &m, &has_mass, use_geoms ? &mp : nullptr);
      if (!ok) continue;
      if (m > 0) {
        from_geoms = combine_mass(from_geoms, mp);
        any_geom_mass = true;
      }
      geoms.push_back(g);
    }
  }
  MassProps mass;
  if (use_geoms) {
    mass = from_geoms;
    (void)any_geom_mass;
  } else if (inertial) {
    const XMLElement* in = inertial;
    auto m = xml_.number(in, "mass");
    if (!m) fail(in, "<inertial> needs a 'mass' attribute");
    if (*m < 0) fail(in, "body '" + name + "': negative mass (" + xml_.text(in, "mass") + ")");
    Pose ip;
    if (auto p = xml_.vec3(in, "pos")) ip.p = *p;
    else fail(in, "<inertial> needs a 'pos' attribute");
    ip.q = orientation(in, "inertial", "main");
    if (global_) ip = relative(world, ip);
    Mat3 I;
    if (auto d = xml_.numbers(in, "diaginertia", 3)) {
      I = Vec3((*d)[0], (*d)[1], (*d)[2]).asDiagonal();
    } else if (auto f = xml_.numbers(in, "fullinertia", 6)) {
      const auto& v = *f;
      I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
    } else {
      fail(in, "<inertial> needs 'diaginertia' or 'fullinertia'");
    }
    if (*m > 0) {
      const std::string err = check_mass_inertia(*m, I);
      if (!err.empty() && !balanceinertia_) fail(in, "body '" + name + "': " + err);
    }
    mass.mass = *m;
    mass.com = ip.p;
    mass.inertia = rotate_inertia(I, ip.q);
  }

  // Joints.
  std::vector<std::tuple<const XMLElement*, Pose, std::string>> jparts;
  for (auto& t : parts) {
    const std::string n = std::get<0>(t)->Name();
    if (n == "joint" || n == "freejoint") jparts.push_back(t);
  }
  const bool is_static = jparts.empty() && parent_static;

  // Virtual links for all joints but the last.
  const int k = static_cast<int>(jparts.size());
  std::vector<std::string> jnames(k);
  std::vector<char> jkinds(k);
  for (int i = 0; i < k; ++i) {
    const XMLElement* j = std::get<0>(jparts[i]);
    const std::string cls = class_of(j, std::get<2>(jparts[i]));
    std::string jn = j->Attribute("name") ? j->Attribute("name") : "";
    if (jn.empty()) jn = k == 1 ? name + "_joint" : name + "_joint" + std::to_string(i + 1);
    if (joint_index_.count(jn)) fail(j, "duplicate joint name '" + jn + "'");
    jnames[i] = jn;
    const std::string type =
        std::strcmp(j->Name(), "freejoint") == 0 ? "free" : str(attr(j, "joint", cls, "type"), "hinge");
    if (type == "free") jkinds[i] = 'f';
    else if (type == "ball") jkinds[i] = 'b';
    else if (type == "hinge") jkinds[i] = 'h';
    else if (type == "slide") jkinds[i] = 's';
    else fail(j, "joint '" + jn + "': unknown joint type '" + type + "' (MJCF types: hinge, slide, ball, free)");
    if (jkinds[i] == 'f') {
      if (k > 1) fail(j, "body '" + name + "': a free joint must be the body's only joint");
      if (!parent_static)
        fail(j, "body '" + name + "': free joints are only allowed in bodies attached to the world");
    }
  }
  int prev = parent_link;
  std::vector<int> chain;  // link receiving each joint
  for (int i = 0; i + 1 < k; ++i) {
    LinkSpec v;
    v.name = name + "/" + jnames[i];
    v.file = xml_.file_of(e);
    v.line = std::get<0>(jparts[i])->GetLineNum();
    v.pos = world.p;
    v.quat = world.q;
    v.is_virtual = true;
    chain.push_back(static_cast<int>(links_.size()));
    links_.push_back(v);
    link_parent_.push_back(prev);
    real_link_of_virtual_.push_back(-1);  // fixed below
    body_parent_.push_back(-1);
    body_joints_.push_back(0);
    prev = chain.back();
  }
  LinkSpec body;
  body.name = name;
  body.file = xml_.file_of(e);
  body.line = e->GetLineNum();
  body.pos = world.p;
  body.quat = world.q;
  body.mass = mass;
  body.geoms = geoms;
  const int body_index = static_cast<int>(links_.size());
  for (int v : chain) real_link_of_virtual_[v] = body_index;
  links_.push_back(body);
  link_parent_.push_back(prev);
  real_link_of_virtual_.push_back(body_index);
  body_parent_.push_back(parent_link);
  body_joints_.push_back(k);
  chain.push_back(body_index);
  body_link_[name] = body_index;

  if (k == 0) {
    for (const Geom& g : geoms)
      if (g.type == GeomType::Plane && !is_static)
        fail(e, "body '" + name + "': plane geoms are only allowed in static bodies");
    JointSpec s;
    s.proto.type = JointType::Fixed;
    s.parent = parent_link;
    s.child = body_index;
    s.static_weld = parent_static;
    s.anchor = world.p;
    s.file = body.file;
    s.line = body.line;
    specs_.push_back(s);
  } else {
    for (const Geom& g : geoms)
      if (g.type == GeomType::Plane) fail(e, "body '" + name + "': plane geoms are only allowed in static bodies");
  }
  for (int i = 0; i < k; ++i) {
    const XMLElement* j = std::get<0>(jparts[i]);
    const Pose& offset = std::get<1>(jparts[i]);
    const std::string cls = class_of(j, std::get<2>(jparts[i]));
    JointSpec s;
    s.proto.name = jnames[i];
    s.parent = i == 0 ? parent_link : chain[i - 1];
    s.child = chain[i];
    s.file = xml_.file_of(j);
    s.line = j->GetLineNum();
    MjJoint mj;
    mj.name = jnames[i];
    mj.kind = jkinds[i];
    // anchor and axis
    Vec3 pos = Vec3::Zero(), axis = Vec3::UnitZ();
    if (auto p = nums(attr(j, "joint", cls, "pos"), 3, 3)) pos = Vec3((*p)[0], (*p)[1], (*p)[2]);
    if (auto a = nums(attr(j, "joint", cls, "axis"), 3, 3)) axis = Vec3((*a)[0], (*a)[1], (*a)[2]);
    if (axis.norm() < 1e-12) fail(j, "joint '" + jnames[i] + "': zero axis");
    axis = parse::scaled(axis);
    Vec3 anchor_w, axis_w;
    if (global_) {
      anchor_w = pos;
      axis_w = axis.normalized();
    } else {
      const Pose pw = compose(world, compose(offset, Pose{pos, quat_identity()}));
      anchor_w = pw.p;
      axis_w = quat_to_rot(compose(world, offset).q) * axis.normalized();
    }
    s.anchor = anchor_w;
    s.axis = axis_w;
    std::vector<int> rows;
    int row = -1;
    switch (jkinds[i]) {
      case 'f':
        s.proto.type = JointType::Floating;
        s.frames = FrameRule::FreeBase;
        s.anchor = world.p;
        rows = {0, 1, 2, 3, 4, 5};
        break;
      case 'b':
        s.proto.type = JointType::Spherical;
        s.frames = FrameRule::ChildBody;
        rows = {3, 4, 5};
        break;
      case 'h':
        s.proto.type = JointType::Revolute;
        row = 5;
        rows = {5};
        break;
      default:
        s.proto.type = JointType::Prismatic;
        row = 2;
        rows = {2};
        break;
    }
    const bool angular = jkinds[i] == 'h';
    auto conv = [&](double v) { return angular ? angle(v) : v; };
    const double ref = row >= 0 ? conv(num(attr(j, "joint", cls, "ref")).value_or(0)) : 0;
    mj.ref = ref;
    const double springref = row >= 0 ? conv(num(attr(j, "joint", cls, "springref")).value_or(0)) : 0;
    double stiffness = num(attr(j, "joint", cls, "stiffness")).value_or(0);
    double damping = num(attr(j, "joint", cls, "damping")).value_or(0);
    double armature = num(attr(j, "joint", cls, "armature")).value_or(0);
    double frictionloss = num(attr(j, "joint", cls, "frictionloss")).value_or(0);
    // <freejoint> is MuJoCo's shortcut for a free joint that inherits no joint defaults (its only
    // attributes are name and group): a free body has no spring, damper, armature or friction
    // loss, whatever the classes give hinges. (<joint type="free"> does take the defaults.)
    if (std::strcmp(j->Name(), "freejoint") == 0) stiffness = damping = armature = frictionloss = 0;
    if (stiffness < 0 || damping < 0 || armature < 0 || frictionloss < 0)
      fail(j, "joint '" + jnames[i] + "': stiffness, damping, armature and frictionloss must not be negative");
    // Disabled by <flag>: MuJoCo then computes no passive forces (springs and dampers; armature
    // is inertia and stays) and no friction-loss rows.
    if (!flags_.passive) stiffness = damping = 0;
    if (!flags_.frictionloss || !flags_.constraint) frictionloss = 0;
    for (int r : rows) {
      s.proto.damping[r] = damping;
      s.proto.armature[r] = armature;
      s.proto.friction[r] = frictionloss;
      if (jkinds[i] != 'f') s.proto.stiffness[r] = stiffness;
    }
    if (frictionloss > 0) ++frictionloss_count_;
    auto range = nums(attr(j, "joint", cls, "range"), 2, 2);
    std::optional<bool> limited = boolean(attr(j, "joint", cls, "limited"), true);
    const bool is_limited = limited ? *limited : (autolimits_ && range.has_value());
    if (is_limited && jkinds[i] != 'f') {
      if (!range) fail(j, "joint '" + jnames[i] + "' is limited but has no range");
      if (!flags_.limit || !flags_.constraint) {
        // <flag limit="disable"/>: the range stays in the file, MuJoCo makes no limit rows
      } else if (jkinds[i] == 'b') {
        ignore("ball joint range (cone limit)");
      } else {
        const double lo = conv((*range)[0]), hi = conv((*range)[1]);
        if (lo > hi) fail(j, "joint '" + jnames[i] + "': range lower bound above the upper bound");
        if (lo < hi) {
          s.proto.has_limits = true;
          s.proto.lower[row] = lo - ref;
          s.proto.upper[row] = hi - ref;
        }
      }
    }
    if (row >= 0) s.proto.spring_ref[row] = springref - ref;
    s.proto.ref = ref;
    mj.spec = static_cast<int>(specs_.size());
    joint_index_[mj.name] = static_cast<int>(mj_joints_.size());
    mj_joints_.push_back(mj);
    specs_.push_back(s);
  }

  (void)mocap;
  for (auto& [c, offset, cls_in] : parts) {
    const std::string n = c->Name();
    if (n == "body") {
      // (a body inside a <frame>: the frame is composed into its parent pose)
      read_body(c, body_index, compose(world, offset), cls_in, is_static, depth + 1);
    } else if (n == "inertial" || n == "geom" || n == "joint" || n == "freejoint" ||
               n == "site" || n == "camera" || n == "light") {
      // handled above / ignored on purpose (sites: markers for sensors and tendons)
    } else if (n == "composite" || n == "flexcomp" || n == "replicate" || n == "attach" ||
               n == "plugin") {
      fail(c, "unsupported MJCF element <" + n + "> (it would change the model)");
    } else {
      ignore("<" + n + ">");
    }
  }
}

// ---- equality, actuators, keyframes ---------------------------------------------------------

void MjcfReader::read_equality(const XMLElement* eq) {
  for (const XMLElement* c : children(eq)) {
    const std::string n = c->Name();
    const std::string cls = class_of(c, "");
    if (n == "joint" || n == "tendon" || n == "distance" || n == "flex")
      fail(c, "equality " + n + " coupling is not supported");
    if (n != "connect" && n != "weld") {
      ignore("<equality><" + n + ">");
      continue;
    }
    if (auto active = boolean(attr(c, "equality", cls, "active"), false); active && !*active) {
      ignore("inactive <equality>");
      continue;
    }
    if (c->Attribute("site1") || c->Attribute("site2"))
      fail(c, "equality " + n + " between sites is not supported (use body1/body2)");
    const char* b1 = c->Attribute("body1");
    if (!b1) fail(c, "equality " + n + " needs 'body1'");
    const char* b2 = c->Attribute("body2");
    auto find = [&](const char* bn) {
      if (!bn || std::strcmp(bn, "world") == 0) return 0;
      auto it = body_link_.find(bn);
      if (it == body_link_.end()) fail(c, std::string("equality refers to undefined body '") + bn + "'");
      return it->second;
    };
    const int l1 = find(b1), l2 = find(b2);
    if (l1 == l2) fail(c, "equality " + n + " connects body '" + std::string(b1) + "' to itself");
    JointSpec s;
    s.tree = false;
    s.parent = l1 == 0 ? -1 : l1;
    s.child = l2;
    s.file = xml_.file_of(c);
    s.line = c->GetLineNum();
    if (const char* nm = c->Attribute("name")) s.proto.name = nm;
    const Pose p1{links_[l1].pos, links_[l1].quat};
    if (n == "connect") {
      auto a = xml_.vec3(c, "anchor");
      if (!a) fail(c, "equality connect needs 'anchor'");
      s.proto.type = JointType::Spherical;
      s.anchor = global_ ? *a : compose(p1, Pose{*a, quat_identity()}).p;
      if (s.proto.name.empty())
        s.proto.name = std::string(b1) + "_" + (b2 ? b2 : "world") + "_connect";
    } else {
      if (auto rp = xml_.numbers(c, "relpose", 7)) {
        if (Vec4((*rp)[3], (*rp)[4], (*rp)[5], (*rp)[6]).norm() > 0)
          fail(c, "equality weld relpose is not supported (welds hold the relative pose of the file)");
      }
      s.proto.type = JointType::Fixed;
      s.anchor = links_[l2].pos;
      if (s.proto.name.empty())
        s.proto.name = std::string(b1) + "_" + (b2 ? b2 : "world") + "_weld";
    }
    if (s.child == 0) {  // the world as body2: the world is the parent
      s.child = l1;
      s.parent = -1;
    }
    specs_.push_back(s);
  }
}

// MuJoCo's parent-child filter (engine_collision_driver.c, mj_collideGeoms → mj_contactFilter):
// geoms of one weld body never collide, and with filterparent on (the default) neither do those
// of weld bodies w1, w2 (both not the world) where w1 is the weld body of w2's parent or the
// other way round. A weld body is a body with joints together with its jointless descendants;
// the world's is 0. Equality constraints take no part. In maxsim the weld bodies are the merged
// bodies, and an MJCF body with several joints is a chain of virtual bodies without geoms.
void MjcfReader::set_collision_filter(const BuildResult& built, Model* model) const {
  model->collision_filter = CollisionFilter::ParentChild;
  model->filtered_pairs.clear();
  const int nlinks = static_cast<int>(links_.size());
  std::vector<int> weld(nlinks, -1);  // links come after their parents
  weld[0] = 0;
  for (int l = 1; l < nlinks; ++l)
    if (!links_[l].is_virtual) weld[l] = body_joints_[l] > 0 ? l : weld[body_parent_[l]];
  const int nb = static_cast<int>(model->bodies.size());
  std::vector<int> body_weld(nb, -1);  // virtual bodies (no geoms) keep -1
  for (int l = 1; l < nlinks; ++l)
    if (weld[l] >= 0 && built.link_body[l] != kWorld) body_weld[built.link_body[l]] = weld[l];
  auto weld_parent = [&](int w) { return weld[body_parent_[w]]; };
  // The pairs (a, b), a < b, in one weld body or in a weld body and its parent's: each body meets
  // the bodies of its own weld and of its weld's parent, found through a list per weld, so the
  // work is that of the pairs themselves.
  std::vector<std::vector<int>> weld_bodies(nlinks);
  for (int b = 0; b < nb; ++b)
    if (body_weld[b] > 0) weld_bodies[body_weld[b]].push_back(b);
  for (int a = 0; a < nb; ++a) {
    const int wa = body_weld[a];
    if (wa <= 0) continue;
    for (int b : weld_bodies[wa])
      if (b > a) model->filtered_pairs.emplace_back(a, b);
    if (!flags_.filterparent) continue;
    const int wp = weld_parent(wa);
    if (wp <= 0 || wp == wa) continue;
    for (int b : weld_bodies[wp])  // (b's weld is a's weld's parent: the pair either way round)
      model->filtered_pairs.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(model->filtered_pairs.begin(), model->filtered_pairs.end());
  model->filtered_pairs.erase(std::unique(model->filtered_pairs.begin(), model->filtered_pairs.end()),
                              model->filtered_pairs.end());
  // A free base that LoadOptions::fixed_base welded to the world becomes part of it (MuJoCo has
  // no such option; a base welded into its floor would otherwise make the contacts infeasible).
  for (size_t s = 0; s < specs_.size(); ++s) {
    const int j = built.spec_joint[s];
    if (specs_[s].tree && specs_[s].proto.type == JointType::Floating && j >= 0 &&
        model->joints[j].type == JointType::Fixed && model->joints[j].parent == kWorld)
      model->filtered_pairs.emplace_back(kWorld, model->joints[j].child);
  }
}

void MjcfReader::read_actuators(const XMLElement* act, Model* model) {
  for (const XMLElement* c : children(act)) {
    const std::string n = c->Name();
    const int mj_index = static_cast<int>(actuator_map_.size());
    actuator_map_.push_back(-1);
    (void)mj_index;
    if (n == "plugin" || !is_actuator_type(n)) {
      ignore("<actuator><" + n + ">");
      continue;
    }
    if (n != "motor" && n != "position" && n != "velocity" && n != "general") {
      ignore("<actuator><" + n + ">");
      continue;
    }
    const std::string cls = class_of(c, "");
    const char* jn = c->Attribute("joint");
    if (!jn) jn = c->Attribute("jointinparent");
    if (!jn) {
      ignore("actuator without a joint transmission (tendon/site/body)");
      continue;
    }
    auto it = joint_index_.find(jn);
    if (it == joint_index_.end()) fail(c, std::string("actuator refers to undefined joint '") + jn + "'");
    const MjJoint& mj = mj_joints_[it->second];
    if (mj.kind != 'h' && mj.kind != 's') {
      ignore("actuator on a ball or free joint");
      continue;
    }
    Actuator a;
    if (const char* nm = c->Attribute("name")) a.name = nm;
    else a.name = std::string(jn) + "_" + n;
    a.row = mj.kind == 'h' ? 5 : 2;
    a.joint = mj.spec;  // spec index for now; mapped to the joint after building
    if (auto g = nums(attr(c, "actuator", cls, "gear"), 1, 6)) a.gear = (*g)[0];
    auto ctrlrange = nums(attr(c, "actuator", cls, "ctrlrange"), 2, 2);
    auto ctrllimited = boolean(attr(c, "actuator", cls, "ctrllimited"), true);
    a.ctrl_limited = ctrllimited ? *ctrllimited : (autolimits_ && ctrlrange.has_value());
    if (a.ctrl_limited) {
      if (!ctrlrange) fail(c, "actuator is ctrllimited but has no ctrlrange");
      a.ctrl_lower = (*ctrlrange)[0];
      a.ctrl_upper = (*ctrlrange)[1];
      if (a.ctrl_lower > a.ctrl_upper) fail(c, "actuator ctrlrange lower bound above the upper bound");
    }
    auto forcerange = nums(attr(c, "actuator", cls, "forcerange"), 2, 2);
    auto forcelimited = boolean(attr(c, "actuator", cls, "forcelimited"), true);
    a.force_limited = forcelimited ? *forcelimited : (autolimits_ && forcerange.has_value());
    if (a.force_limited) {
      if (!forcerange) fail(c, "actuator is forcelimited but has no forcerange");
      a.force_lower = (*forcerange)[0];
      a.force_upper = (*forcerange)[1];
    }
    if (n == "motor") {
      a.kind = Actuator::Kind::Motor;
    } else if (n == "position") {
      a.kind = Actuator::Kind::Position;
      a.kp = num(attr(c, "actuator", cls, "kp")).value_or(1.0);
      a.kv = num(attr(c, "actuator", cls, "kv")).value_or(0.0);
    } else if (n == "velocity") {
      a.kind = Actuator::Kind::Velocity;
      a.kv = num(attr(c, "actuator", cls, "kv")).value_or(1.0);
    } else {  // general: recognise the motor / position / velocity forms
      std::vector<double> gain = nums(attr(c, "actuator", cls, "gainprm"), 1, 10).value_or(std::vector<double>{1});
      std::vector<double> bias = nums(attr(c, "actuator", cls, "biasprm"), 1, 10).value_or(std::vector<double>{});
      gain.resize(10, 0.0);
      bias.resize(10, 0.0);
      const std::string gaintype = str(attr(c, "actuator", cls, "gaintype"), "fixed");
      const std::string biastype = str(attr(c, "actuator", cls, "biastype"), "none");
      const std::string dyntype = str(attr(c, "actuator", cls, "dyntype"), "none");
      if (dyntype != "none") ignore("actuator activation dynamics (dyntype)");
      if (gaintype != "fixed") {
        ignore("general actuator with gaintype " + gaintype);
        continue;
      }
      const double g0 = gain[0];
      if (biastype == "none" || (bias[0] == 0 && bias[1] == 0 && bias[2] == 0)) {
        a.kind = Actuator::Kind::Motor;
        a.gear *= g0;
      } else if (biastype == "affine" && bias[0] == 0 && std::abs(bias[1] + g0) <= 1e-12 * std::abs(g0)) {
        a.kind = Actuator::Kind::Position;
        a.kp = g0;
        a.kv = -bias[2];
      } else if (biastype == "affine" && bias[0] == 0 && bias[1] == 0 &&
                 std::abs(bias[2] + g0) <= 1e-12 * std::abs(g0)) {
        a.kind = Actuator::Kind::Velocity;
        a.kv = g0;
      } else {
        ignore("general actuator with an unsupported bias");
        continue;
      }
    }
    actuator_map_.back() = static_cast<int>(model->actuators.size());
    model->actuators.push_back(a);
  }
}

void MjcfReader::read_keyframes(const XMLElement* kf, Model* model) {
  int nq = 0, nv = 0;
  for (const auto& j : mj_joints_) {
    nq += j.kind == 'f' ? 7 : j.kind == 'b' ? 4 : 1;
    nv += j.kind == 'f' ? 6 : j.kind == 'b' ? 3 : 1;
  }
  const int nu = static_cast<int>(actuator_map_.size());
  std::map<std::string, int> model_joint;  // (Model::joint_index searches: once per joint)
  for (size_t j = 0; j < model->joints.size(); ++j) model_joint.emplace(model->joints[j].name, static_cast<int>(j));
  auto joint_of = [&](const std::string& name) {
    auto it = model_joint.find(name);
    return it == model_joint.end() ? -1 : it->second;
  };
  for (const XMLElement* c : children(kf)) {
    if (std::strcmp(c->Name(), "key") != 0) {
      ignore("<keyframe><" + std::string(c->Name()) + ">");
      continue;
    }
    Keyframe k;
    k.name = c->Attribute("name") ? c->Attribute("name") : "key" + std::to_string(model->keyframes.size());
    k.time = xml_.number(c, "time").value_or(0);
    k.joint_q.assign(model->joints.size(), {});
    k.joint_qd.assign(model->joints.size(), {});
    if (auto q = xml_.numbers(c, "qpos", 0, 1 << 30)) {
      if (static_cast<int>(q->size()) != nq)
        fail(c, "keyframe '" + k.name + "': qpos has " + std::to_string(q->size()) +
                    " values, the model has nq = " + std::to_string(nq));
      int at = 0;
      for (const auto& j : mj_joints_) {
        const int n = j.kind == 'f' ? 7 : j.kind == 'b' ? 4 : 1;
        std::vector<double> v(q->begin() + at, q->begin() + at + n);
        at += n;
        if (n == 1) v[0] -= j.ref;
        if (n >= 4) {  // normalise the quaternion part
          Eigen::Map<Vec4> qq(v.data() + (n - 4));
          if (qq.norm() < 1e-12) fail(c, "keyframe '" + k.name + "': zero quaternion for joint '" + j.name + "'");
          qq = parse::scaled(Vec4(qq));
          qq.normalize();
        }
        const int ji = joint_of(j.name);
        // (a free joint turned Fixed by LoadOptions::fixed_base takes no coordinates)
        if (ji >= 0 && model->joints[ji].nq() == n) k.joint_q[ji] = v;
      }
    }
    if (auto qd = xml_.numbers(c, "qvel", 0, 1 << 30)) {
      if (static_cast<int>(qd->size()) != nv)
        fail(c, "keyframe '" + k.name + "': qvel has " + std::to_string(qd->size()) +
                    " values, the model has nv = " + std::to_string(nv));
      int at = 0;
      for (const auto& j : mj_joints_) {
        const int n = j.kind == 'f' ? 6 : j.kind == 'b' ? 3 : 1;
        std::vector<double> v(qd->begin() + at, qd->begin() + at + n);
        at += n;
        const int ji = joint_of(j.name);
        if (ji >= 0 && model->joints[ji].dof() == n) k.joint_qd[ji] = v;
      }
    }
    if (auto u = xml_.numbers(c, "ctrl", 0, 1 << 30)) {
      if (static_cast<int>(u->size()) != nu)
        fail(c, "keyframe '" + k.name + "': ctrl has " + std::to_string(u->size()) +
                    " values, the model has nu = " + std::to_string(nu));
      k.ctrl.assign(model->actuators.size(), 0.0);
      for (int i = 0; i < nu; ++i)
        if (actuator_map_[i] >= 0) k.ctrl[actuator_map_[i]] = (*u)[i];
    }
    model->keyframes.push_back(k);
  }
}

// ---- the whole file -------------------------------------------------------------------------

// ---- maxsim's own declarations -------------------------------------------------------------
// MuJoCo refuses elements it does not know, but stores <custom><text name data> without reading
// it: maxsim's declarations live there, so that one file loads in both. Names that do not start
// with "maxsim:" and <numeric>/<tuple> stay MuJoCo's.
void MjcfReader::read_custom(const XMLElement* e, Model* model) {
  for (const XMLElement* x : children(e)) {
    if (std::strcmp(x->Name(), "text") != 0) continue;
    const std::string name = xml_.text(x, "name");
    if (name.rfind("maxsim:", 0) != 0) continue;
    const char* data = x->Attribute("data");
    if (!data) fail(x, name + ": needs a data attribute");
    if (name == "maxsim:integrator") {
      if (integrator_elem_)
        fail(x, "maxsim:integrator is declared twice (first at line " + std::to_string(integrator_elem_->GetLineNum()) + ")");
      integrator_elem_ = x;
      std::istringstream words(data);
      std::string value, extra;
      words >> value >> extra;
      if (!extra.empty() || !integrator_from_name(value, &model->integrator))
        fail(x, std::string("maxsim:integrator: '") + data + "' is not one of variational, energy-momentum");
    } else if (name.rfind("maxsim:nonholonomic:", 0) == 0) {
      nonholonomic_.push_back(read_nonholonomic(x, name, data));
    } else {
      fail(x, "unknown maxsim declaration '" + name + "' (maxsim:integrator, maxsim:nonholonomic:NAME)");
    }
  }
}

// data="KIND body=BODY key=value ...", vectors as x,y,z in the MJCF body's frame.
NonholonomicSpec MjcfReader::read_nonholonomic(const XMLElement* e, const std::string& name,
                                               const std::string& data) const {
  NonholonomicSpec s;
  s.proto.name = name.substr(std::strlen("maxsim:nonholonomic:"));
  s.file = xml_.file_of(e);
  s.line = e->GetLineNum();
  if (s.proto.name.empty()) fail(e, name + ": the constraint needs a name (maxsim:nonholonomic:NAME)");
  std::istringstream words(data);
  std::string kind;
  words >> kind;
  if (kind.empty())
    fail(e, name + ": data is empty; expected \"KIND body=BODY ...\" with KIND one of " + nonholonomic_kind_list());
  if (!nonholonomic_kind_from_name(kind, &s.proto.kind))
    fail(e, name + ": unknown kind '" + kind + "' (" + nonholonomic_kind_list() + ")");
  std::set<std::string> given;
  for (std::string word; words >> word;) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      fail(e, name + ": '" + word + "' is not key=value");
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (!given.insert(key).second) fail(e, name + ": " + key + " is given twice");
    if (key == "body") {
      const auto it = body_link_.find(value);
      if (it == body_link_.end()) fail(e, name + ": unknown body '" + value + "'");
      s.link = it->second;
      continue;
    }
    if (key != "radius" && key != "axis" && key != "point" && key != "direction")
      fail(e, name + ": unknown key '" + key + "' (body, radius, axis, point, direction)");
    if (nonholonomic_parameter(s.proto.kind, key) == ParameterUse::None)
      fail(e, name + ": " + kind + " takes no " + key);
    if (key == "radius") {
      if (!parse::parse_number(value, &s.proto.radius))
        fail(e, name + ": radius '" + value + "' is not a (finite) number");
      if (!(s.proto.radius > 0)) fail(e, name + ": radius must be positive (got " + value + ")");
      continue;
    }
    // x,y,z: three finite numbers separated by commas (no blanks: the words are split at them)
    std::string spaced = value;
    std::replace(spaced.begin(), spaced.end(), ',', ' ');
    std::vector<double> numbers;
    if (std::count(value.begin(), value.end(), ',') != 2 || !parse::parse_numbers(spaced, &numbers) || numbers.size() != 3)
      fail(e, name + ": " + key + " '" + value + "' is not three finite numbers x,y,z");
    const Vec3 v(numbers[0], numbers[1], numbers[2]);
    if (key == "point") {
      s.proto.point = v;
    } else {
      if (!(v.norm() > 0)) fail(e, name + ": " + key + " must not be zero");
      (key == "axis" ? s.proto.axis : s.proto.direction) = parse::scaled(v);
    }
  }
  if (s.link < 0) fail(e, name + ": needs body=BODY");
  if (const char* key = missing_nonholonomic_parameter(s.proto.kind, given))
    fail(e, name + ": " + kind + " needs " + key + "=" + (key[0] == 'r' ? "R" : "x,y,z"));
  return s;
}

Model MjcfReader::load() {
  tinyxml2::XMLDocument& doc = xml_.load(path_);
  const XMLElement* root = doc.RootElement();
  if (std::strcmp(root->Name(), "mujoco") != 0)
    xml_.fail(root, std::string("root element is <") + root->Name() +
                        ">, expected <mujoco> (not an MJCF model)");
  Model model;
  model.source_file = path_;
  model.name = root->Attribute("model") ? root->Attribute("model") : "";
  model.gravity = Vec3(0, 0, -9.81);

  int include_height = 0;
  resolve_includes(root, 0, &include_height);
  const std::vector<const XMLElement*> top = children(root);
  for (const XMLElement* c : top)
    if (std::strcmp(c->Name(), "compiler") == 0) read_compiler(c);
  classes_["main"];
  for (const XMLElement* c : top)
    if (std::strcmp(c->Name(), "default") == 0) read_default(c, "");
  for (const XMLElement* c : top) {
    const std::string n = c->Name();
    if (n == "option") read_option(c, &model);
    else if (n == "asset") read_assets(c);
  }
  if (!flags_.gravity) model.gravity.setZero();
  // MuJoCo's collision detection runs only with contacts and constraints on; "predefined" makes
  // it test the <contact><pair>s only, which are not supported (see the warning).
  model.contacts = flags_.contact && flags_.constraint && collision_ != "predefined";

  // The world: link 0, part of the world.
  LinkSpec world;
  world.name = "world";
  world.file = path_;
  world.line = root->GetLineNum();
  links_.push_back(world);
  link_parent_.push_back(-1);
  real_link_of_virtual_.push_back(0);
  body_parent_.push_back(-1);
  body_joints_.push_back(0);
  body_link_["world"] = 0;
  JointSpec ws;
  ws.proto.type = JointType::Fixed;
  ws.child = 0;
  ws.static_weld = true;
  specs_.push_back(ws);
  for (const XMLElement* c : top) {
    if (std::strcmp(c->Name(), "worldbody") != 0) continue;
    std::vector<std::tuple<const XMLElement*, Pose, std::string>> parts;
    collect_parts(c, Pose{}, "", 0, &parts);
    for (auto& [e, offset, cls_in] : parts) {
      const std::string n = e->Name();
      if (n == "geom") {
        bool ok, has_mass;
        double m;
        Geom g = read_geom(e, class_of(e, cls_in), Pose{}, offset, &ok, &m, &has_mass, nullptr);
        if (ok) links_[0].geoms.push_back(g);
      } else if (n == "body") {
        read_body(e, 0, offset, cls_in, true, 0);
      } else if (n == "joint" || n == "freejoint" || n == "inertial") {
        fail(e, "<" + n + "> is not allowed in <worldbody>");
      } else if (n == "site" || n == "camera" || n == "light") {
      } else if (n == "composite" || n == "flexcomp" || n == "replicate" || n == "attach" ||
                 n == "plugin") {
        fail(e, "unsupported MJCF element <" + n + "> (it would change the model)");
      } else {
        ignore("<" + n + ">");
      }
    }
  }

  // Compiler mass adjustments (on the file's bodies, before virtual bodies get their mass).
  const int nlinks = static_cast<int>(links_.size());
  for (int l = 1; l < nlinks; ++l) {
    if (links_[l].is_virtual) continue;
    MassProps& m = links_[l].mass;
    if (boundmass_ > 0 && m.mass < boundmass_) m.mass = boundmass_;
    if (boundinertia_ > 0 || balanceinertia_) {
      Eigen::SelfAdjointEigenSolver<Mat3> es(m.inertia);
      Vec3 d = es.eigenvalues();
      if (boundinertia_ > 0) d = d.cwiseMax(boundinertia_);
      if (balanceinertia_ && (d(0) + d(1) < d(2) || d(0) + d(2) < d(1) || d(1) + d(2) < d(0)))
        d.setConstant(d.mean());
      m.inertia = es.eigenvectors() * d.asDiagonal() * es.eigenvectors().transpose();
    }
  }
  if (settotalmass_) {
    double total = 0;
    for (int l = 1; l < nlinks; ++l)
      if (!links_[l].is_virtual) total += links_[l].mass.mass;
    if (!(total > 0)) xml_.fail(root, "compiler settotalmass on a model without mass");
    const double s = *settotalmass_ / total;
    for (int l = 1; l < nlinks; ++l) {
      links_[l].mass.mass *= s;
      links_[l].mass.inertia *= s;
    }
  }
  // Plausible masses (after the compiler's adjustments: they are what the model gets).
  for (int l = 1; l < nlinks; ++l) {
    if (links_[l].is_virtual || !(links_[l].mass.mass > 0)) continue;
    if (const std::string err = check_mass_range(links_[l].mass.mass, options_.limits); !err.empty())
      throw LimitError(links_[l].file, links_[l].line, "body '" + links_[l].name + "': " + err);
  }
  // Virtual bodies: 1e-3 of the mass of the real body with its welded (jointless) children.
  {
    std::vector<double> welded(nlinks, 0.0);
    std::vector<int> tree_spec(nlinks, -1);
    for (int s = 0; s < static_cast<int>(specs_.size()); ++s)
      if (specs_[s].tree) tree_spec[specs_[s].child] = s;
    for (int l = nlinks - 1; l >= 1; --l) {  // children come after parents
      welded[l] += links_[l].mass.mass;
      const JointSpec& s = specs_[tree_spec[l]];
      if (s.proto.type == JointType::Fixed && s.parent > 0) welded[s.parent] += welded[l];
    }
    for (int l = 1; l < nlinks; ++l) {
      if (!links_[l].is_virtual) continue;
      const int real = real_link_of_virtual_[l];
      const double m = 1e-3 * welded[real];
      links_[l].mass.mass = m;
      // CoM at the anchor of the joint that moves this virtual body
      const JointSpec& s = specs_[tree_spec[l]];
      links_[l].mass.com = quat_to_rot(links_[l].quat).transpose() * (s.anchor - links_[l].pos);
      links_[l].mass.inertia = inertia_sphere(m, 0.01);
    }
  }
  if (discardvisual_)
    for (auto& l : links_)
      std::erase_if(l.geoms, [](const Geom& g) { return !g.collision; });

  if (flags_.equality && flags_.constraint) {  // <flag equality="disable"/>: no loop closures
    for (const XMLElement* c : top)
      if (std::strcmp(c->Name(), "equality") == 0) read_equality(c);
  }

  BuildResult built;
  build_model(links_, specs_, options_, &model, &built, report_);

  for (const XMLElement* c : top) {
    const std::string n = c->Name();
    if (n == "actuator") {
      read_actuators(c, &model);
    } else if (n == "contact") {
      for (const XMLElement* x : children(c)) {
        if (std::strcmp(x->Name(), "exclude") != 0) {
          ignore("<contact><" + std::string(x->Name()) + ">");
          continue;
        }
        const char* b1 = x->Attribute("body1");
        const char* b2 = x->Attribute("body2");
        if (!b1 || !b2) fail(x, "<exclude> needs body1 and body2");
        auto l1 = body_link_.find(b1), l2 = body_link_.find(b2);
        if (l1 == body_link_.end()) fail(x, std::string("exclude refers to undefined body '") + b1 + "'");
        if (l2 == body_link_.end()) fail(x, std::string("exclude refers to undefined body '") + b2 + "'");
        const int i1 = built.link_body[l1->second], i2 = built.link_body[l2->second];
        if (i1 != i2) model.contact_excludes.emplace_back(i1, i2);
      }
    } else if (n == "custom") {
      read_custom(c, &model);
    } else if (n == "tendon" || n == "sensor" || n == "deformable" || n == "extension" ||
               n == "visual" || n == "statistic" || n == "size" ||
               n == "keyframe" || n == "compiler" || n == "option" || n == "default" ||
               n == "asset" || n == "worldbody" || n == "equality") {
      if (n == "tendon" || n == "sensor" || n == "deformable")
        for (const XMLElement* x : children(c)) ignore("<" + n + "><" + x->Name() + ">");
      else if (n == "extension")
        ignore("<extension>");
    } else {
      ignore("<" + n + ">");
    }
  }
  // Actuators point at specs until now.
  for (auto& a : model.actuators) {
    const int j = built.spec_joint[a.joint];
    if (j < 0) throw LoadError(path_, "internal loader error: actuated joint was merged");
    a.joint = j;
    if (!flags_.clampctrl) a.ctrl_limited = false;  // <flag clampctrl="disable"/>
  }
  set_collision_filter(built, &model);
  add_nonholonomic(links_, built, nonholonomic_, &model);
  for (const XMLElement* c : top)
    if (std::strcmp(c->Name(), "keyframe") == 0) read_keyframes(c, &model);

  if (!ignored_.empty()) {
    std::string list;
    for (const auto& [k, n] : ignored_) list += (list.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    report_->warnings.push_back(path_ + ": unsupported MJCF features ignored: " + list);
  }
  if (frictionloss_count_ > 0)
    report_->warnings.push_back(path_ + ": frictionloss of " + std::to_string(frictionloss_count_) +
                                " joint(s) stored in Joint::friction (enforced only where the "
                                "engine supports joint friction)");
  validate_or_throw(model, path_);
  return model;
}

}  // namespace

Model load_mjcf(const std::string& path, const LoadOptions& options, LoadReport* report) {
  LoadReport local;
  MjcfReader reader(path, options, report ? report : &local);
  return reader.load();
}

}  // namespace maxsim
