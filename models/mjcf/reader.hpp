// The MJCF reader's state, shared by the files of models/mjcf/ (one per element family); the
// public entry is load_mjcf (models/mjcf.hpp), which documents what is read and how.
#pragma once

#include <sys/stat.h>

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/builder.hpp"
#include "models/inertia.hpp"
#include "models/load.hpp"
#include "models/mesh.hpp"
#include "models/parse_util.hpp"
#include "sim/model.hpp"

namespace maxsim::mjcf_detail {

using tinyxml2::XMLElement;

struct Pose {
  Vec3 p = Vec3::Zero();
  Vec4 q = quat_identity();
};
inline Pose compose(const Pose& a, const Pose& b) {
  return Pose{a.p + quat_to_rot(a.q) * b.p, quat_normalize(quat_mul(a.q, b.q))};
}
inline Pose relative(const Pose& a, const Pose& b) {  // b in frame a
  return Pose{quat_to_rot(a.q).transpose() * (b.p - a.p),
              quat_normalize(quat_mul(quat_conj(a.q), b.q))};
}

// One attribute with the element that holds it (the element itself or a default class).
struct Attr {
  const XMLElement* e = nullptr;
  const char* name = nullptr;
  explicit operator bool() const { return e != nullptr; }
};

struct DefaultClass {
  std::string parent;
  // element type -> attribute -> element holding it
  std::map<std::string, std::map<std::string, const XMLElement*>> attrs;
};

// The (body, geom index) of the geom of that name: in a body, or the world's (kWorld,
// Model::world_geoms); false when there is none (tendons.cpp).

// A joint as MuJoCo sees it (qpos layout).
struct MjJoint {
  std::string name;
  char kind = 'h';  // f free, b ball, h hinge, s slide
  double ref = 0;
  int spec = -1;    // index in specs_
  int row = -1;     // its row of a merged joint (LoadOptions::merge_multi_joint_bodies); -1: its own
  // the joint row of a hinge or slide
  int scalar_row() const { return row >= 0 ? row : kind == 'h' ? 5 : 2; }
};

struct MeshAsset {
  const XMLElement* e = nullptr;
  std::string file;  // resolved path ("" with inline vertices)
  Vec3 scale = Vec3::Ones();
  std::vector<Vec3> vertices;
  std::vector<Eigen::Vector3i> faces;
};

// The children of a body or <worldbody> with <frame>s flattened: each element with the pose of
// its enclosing frames in the body frame and the childclass it inherits.
using Parts = std::vector<std::tuple<const XMLElement*, Pose, std::string>>;

// Bodies, frames and defaults nest at most this deep. tinyxml2 reads at most 100 levels of one
// file, but includes can stack files inside one another, and the reader recurses once per level:
// much deeper nesting overflows an 8 MB stack under AddressSanitizer's larger frames.
constexpr int kMaxNesting = 200;

inline bool is_actuator_type(const std::string& n) {
  return n == "motor" || n == "position" || n == "velocity" || n == "general" ||
         n == "intvelocity" || n == "damper" || n == "cylinder" || n == "muscle" ||
         n == "adhesion";
}

class MjcfReader {
 public:
  MjcfReader(const std::string& path, const LoadOptions& options, LoadReport* report)
      : path_(path), dir_(parse::dir_of(path)), options_(options), report_(report),
        xml_(options.limits), mesh_cache_(options.limits) {}
  Model load();  // reader.cpp

 private:
  // ---- includes (includes.cpp) ----
  // The child elements of e, every <include> replaced by the children of the included file's root.
  std::vector<const XMLElement*> children(const XMLElement* e);
  // Includes are resolved once, before anything is read (resolve_includes on the main file's
  // root): each file is loaded and parsed once however often it is included, and the elements
  // of the expanded model are counted without expanding it, so that a file whose includes
  // multiply (a few files that each include the next ten times) is refused in the time it takes to
  // read those few files. Returns the elements below root, includes expanded, and in *height the
  // levels of includes below it.
  long long resolve_includes(const XMLElement* root, int depth, int* height);

  // ---- strict names (strict.cpp): unknown elements and attributes before the load (errors, or
  // warnings with LoadOptions::lenient); what MJCF defines and the load never read, after it ----
  void check_names(const XMLElement* root);
  void list_ignored(const XMLElement* root);

  // ---- messages: an error at the element's file and line; an ignored feature, for the warning ----
  [[noreturn]] void fail(const XMLElement* e, const std::string& msg) const { xml_.fail(e, msg); }
  void ignore(const std::string& what) { ++ignored_[what]; }

  // ---- attributes, every one read through xml_ (the loaders' one attribute reader): own() the
  // element's own, attr() the element's own or its default class's (defaults.cpp) ----
  void read_default(const XMLElement* e, const std::string& parent, int depth = 0);
  std::string class_of(const XMLElement* e, const std::string& childclass) const;
  Attr attr(const XMLElement* e, const std::string& type, const std::string& cls,
            const char* name) const;
  const char* own(const XMLElement* e, const char* name) const { return xml_.attribute(e, name); }
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
    const char* v = a ? xml_.attribute(a.e, a.name) : nullptr;
    return v ? std::string(v) : fallback;
  }

  // ---- frames and orientations (frames.cpp) ----
  double angle(double v) const { return degree_ ? v * M_PI / 180.0 : v; }
  double rotation_angle(double v) const { return parse::rotation_angle(angle(v)); }
  // Orientation of an element from quat / axisangle / euler / xyaxes / zaxis (defaults too).
  Vec4 orientation(const XMLElement* e, const std::string& type, const std::string& cls) const;
  // Pose of an element relative to its body frame (frame_offset: enclosing <frame>s).
  Pose element_pose(const XMLElement* e, const std::string& type, const std::string& cls,
                    const Pose& body_world, const Pose& frame_offset) const;
  void collect_parts(const XMLElement* container, const Pose& offset, const std::string& childclass,
                     int depth, Parts* out);

  // ---- compiler and option (compiler.cpp) ----
  void read_compiler(const XMLElement* e);
  void read_option(const XMLElement* e, Model* model);
  // boundmass, boundinertia, balanceinertia and settotalmass on the file's bodies.
  void adjust_masses(const XMLElement* root);
  // LoadReport::sources: timestep, gravity, integrator and geom friction (file, class, MuJoCo).
  void record_sources(const Model& model);

  // ---- assets (assets.cpp) ----
  void read_assets(const XMLElement* e);
  void read_hfield(const XMLElement* e);  // hfield.cpp

  // ---- bodies (bodies.cpp), geoms and inertials (geoms.cpp), joints (joints.cpp) ----
  void read_worldbody(const XMLElement* e);
  void read_body(const XMLElement* e, int parent_link, const Pose& parent_world,
                 const std::string& childclass, bool parent_static, int depth);
  Geom read_geom(const XMLElement* e, const std::string& cls, const Pose& body_world,
                 const Pose& frame_offset, bool* ok, double* mass_out, bool* has_mass,
                 MassProps* props);
  MassProps read_inertial(const XMLElement* in, const std::string& body, const Pose& world) const;
  // The joint j of a body posed at `world` (offset: its enclosing <frame>s), moving link
  // `child` against link `parent`.
  void read_joint(const XMLElement* j, const Pose& offset, const std::string& cls,
                  const std::string& name, char kind, int parent, int child, const Pose& world);
  // Virtual bodies get 1e-3 of the mass of their real body with its welded children.
  void weigh_virtual_bodies();
  // LoadOptions::merge_multi_joint_bodies: whether the body's joints (names, kinds) make one
  // joint (a dry run of read_joint, undone), and its type, frame and rows (bodies.cpp).
  struct MergedJoint {
    JointType type = JointType::Fixed;
    Vec4 frame = quat_identity();           // the joint frame in the world
    std::array<int, 3> sequence{-1, -1, -1};  // Joint::hinge_sequence
    std::vector<int> rows;                  // per MuJoCo joint, its row
    Vec3 anchor = Vec3::Zero();             // the first hinge's anchor (world)
    std::array<Vec3, 2> offset{Vec3::Zero(), Vec3::Zero()};  // Joint::hinge_offset
    double cosine = 0;                      // Joint::hinge_cosine
  };
  std::optional<MergedJoint> merge_joints(const Parts& jparts,
                                          const std::vector<std::string>& names,
                                          const std::vector<char>& kinds, int parent, const Pose& world);
  // Replaces the k joint specs read last (one per MuJoCo joint of a body) by the merged joint.
  void merge_specs(const MergedJoint& merged, int first_spec, int first_mj, const std::vector<std::string>& names,
                   const std::vector<char>& kinds);

  // ---- sites (sites.cpp): read with their link, placed in Model::sites after build_model ----
  void read_site(const XMLElement* e, int link, const std::string& cls, const Pose& link_world,
                 const Pose& frame_offset);
  void add_sites(const BuildResult& built, Model* model) const;

  // ---- equality (equality.cpp), actuators (actuators.cpp), contacts (contact.cpp),
  // keyframes (keyframes.cpp), maxsim's declarations (custom.cpp) ----
  void read_equality(const XMLElement* e);
  // <equality joint|tendon> (equality.cpp, after read_tendons) and <tendon> (tendons.cpp), after
  // the model is built; scalar_joint: the joint index and free row of a hinge or slide by name
  void read_couplings(const BuildResult& built, Model* model);
  void read_tendons(const XMLElement* e, const BuildResult& built, Model* model);
  int scalar_joint(const XMLElement* e, const char* name, const BuildResult& built, int* row);
  void read_actuators(const XMLElement* e, Model* model);
  void read_contact(const XMLElement* e, const BuildResult& built, Model* model);
  void read_pair(const XMLElement* x, Model* model);  // contact.cpp
  void set_collision_filter(const BuildResult& built, Model* model) const;
  void read_keyframes(const XMLElement* e, Model* model);
  // <sensor> (sensors.cpp), after the actuators; sensor_frame: the frame an objtype/objname pair
  // (or reftype/refname) names
  void read_sensors(const XMLElement* e, const BuildResult& built, Model* model);
  SensorFrame sensor_frame(const XMLElement* e, const char* type_attr, const char* name_attr,
                           const BuildResult& built, const Model& model) const;
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
  double inertia_groups_[2] = {0, 5};  // inertiagrouprange: the geom groups that carry mass

  std::map<std::string, DefaultClass> classes_;
  std::map<std::string, MeshAsset> meshes_;
  std::map<std::string, Eigen::Vector4d> materials_;
  std::vector<HeightField> hfields_;            // the model's Model::hfields
  std::map<std::string, int> hfield_names_;     // name -> hfields_
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
  std::map<std::string, int> tendon_index_;        // MJCF tendon name -> Model::tendons
  std::vector<const XMLElement*> couplings_;       // <equality joint|tendon>, read after the build
  std::vector<int> actuator_map_;  // MuJoCo actuator index -> model actuator (-1: skipped)
  std::map<std::string, int> ignored_;
  int frictionloss_count_ = 0;
  // <option><flag>: MuJoCo's disable flags that change the model maxsim builds (true = enabled).
  struct Flags {
    bool constraint = true, equality = true, frictionloss = true, limit = true, contact = true,
         passive = true, gravity = true, filterparent = true, clampctrl = true;
  } flags_;
  std::string collision_ = "all";  // <option collision>: all, predefined or dynamic
  // <custom><text name="maxsim:..."> (read_custom)
  std::vector<NonholonomicSpec> nonholonomic_;
  struct SiteSpec {
    std::string name;
    int link = 0;  // 0: the world
    Pose pose;     // in the link frame
    GeomType type = GeomType::Sphere;   // its volume (touch sensors)
    Vec3 size = Vec3::Constant(0.005);
    const XMLElement* e = nullptr;
  };
  std::vector<SiteSpec> sites_;
  const XMLElement* integrator_elem_ = nullptr;
  // Where <option>'s values and the geoms' friction came from (record_sources).
  const XMLElement* timestep_elem_ = nullptr;
  const XMLElement* gravity_elem_ = nullptr;
  const XMLElement* mj_integrator_elem_ = nullptr;
  std::string mj_integrator_ = "Euler";  // <option integrator> as written (MuJoCo's default)
  int friction_own_ = 0, friction_class_ = 0, friction_default_ = 0;  // geoms by source
};

}  // namespace maxsim::mjcf_detail
