// The URDF reader's state, shared by the files of models/urdf/ (one per element family); the
// public entry is load_urdf (models/urdf.hpp), which documents what is read and how.
#pragma once

#include <urdf_model/model.h>
#include <urdf_world/types.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/builder.hpp"
#include "models/load.hpp"
#include "models/mesh.hpp"
#include "models/parse_util.hpp"
#include "sim/model.hpp"

namespace maxsim::urdf_detail {

using tinyxml2::XMLElement;

// A joint type a URDF may name (joint_types.cpp): URDF's, then the dialect of Dojo.jl and
// ConstrainedDynamics.jl, each mapped to the engine joint of that name.
struct UrdfJointType {
  const char* name;
  JointType type;
  bool dialect;    // not URDF
  bool uses_axis;  // the joint is built from <axis> (Dojo ignores it for the others)
};
const UrdfJointType* find_joint_type(const char* name);  // null: unknown
std::string joint_type_list();                           // for messages
int free_rows_of(JointType type);

// A top-level <material>: what a redefinition must repeat.
struct MaterialDef {
  const XMLElement* e = nullptr;
  std::optional<std::vector<double>> rgba;
  std::string texture;
};

// What the tinyxml2 pass keeps per link / joint.
struct LinkXml {
  const XMLElement* e = nullptr;
  std::vector<const XMLElement*> visuals, collisions;
  double lateral_friction = -1;
};
struct JointXml {
  const XMLElement* e = nullptr;
  std::string type, parent, child;
  const UrdfJointType* kind = nullptr;
  Vec3 axis = Vec3::UnitX();  // in the URDF joint frame, unit length (URDF's default: x)
  bool explicit_lower = false, explicit_upper = false;
};
struct LoopXml {
  const XMLElement* e = nullptr;
  std::string name, type, link1, link2;
  const UrdfJointType* kind = nullptr;
  Vec3 xyz1 = Vec3::Zero(), rpy1 = Vec3::Zero(), xyz2 = Vec3::Zero(), rpy2 = Vec3::Zero();
  Vec3 axis = Vec3::UnitX();
  // <dynamics>: one value for every free row, or one per free row (empty: 0)
  std::vector<double> damping, friction, stiffness;
  bool has_limits = false;
  double lower = 0, upper = 0;
};

// A robot-level <nonholonomic> (read_nonholonomic): the constraint with its vectors in the link frame.
struct NonholonomicXml {
  const XMLElement* e = nullptr;
  std::string link;
  NonholonomicConstraint proto;
};

class UrdfReader {
 public:
  UrdfReader(const std::string& path, const LoadOptions& options, LoadReport* report)
      : path_(path), options_(options), report_(report), xml_(options.limits), meshes_(options.limits) {}

  Model load();  // reader.cpp

 private:
  // ---- the tinyxml2 pass (prepass.cpp): checks with file:line, and what urdfdom cannot read ----
  void prepass(const XMLElement* robot);
  // URDF's names (strict.cpp): misspellings refused, other tools' tags listed as ignored.
  void check_names(const XMLElement* robot);
  void check_tree();
  // links, inertials and geometry (links.cpp)
  void check_origin(const XMLElement* parent);
  void check_geometry(const XMLElement* owner);
  void check_link(const XMLElement* e, LinkXml* info);
  // materials (materials.cpp)
  void check_material(const XMLElement* m);
  void read_material(const XMLElement* c);  // a top-level <material>
  // joints and loop joints (joints.cpp)
  void check_joint(const XMLElement* e, JointXml* info);
  void read_loop(const XMLElement* e);
  // maxsim's extension tags (extensions.cpp)
  void read_nonholonomic(const XMLElement* e);
  void read_maxsim(const XMLElement* e);

  // ---- urdfdom (urdfdom.cpp) ----
  // The file as urdfdom can read it, when the tinyxml2 pass found something to rewrite.
  std::string urdfdom_text(const tinyxml2::XMLDocument& doc) const;
  urdf::ModelInterfaceSharedPtr parse_with_urdfdom(const tinyxml2::XMLDocument& doc) const;
  // urdfdom's joint / link of that name; LoadError at the tinyxml2 element when urdfdom has none.
  urdf::JointConstSharedPtr urdf_joint(const urdf::ModelInterface& model, const std::string& name);
  urdf::LinkConstSharedPtr urdf_link(const urdf::ModelInterface& model, const std::string& name);

  // ---- from urdfdom's model to the builder's specs ----
  // The link frames at the zero configuration, from the root down (links.cpp).
  void pose_links(const urdf::ModelInterface& model, const std::map<std::string, int>& index,
                  const std::map<std::string, std::string>& parent_joint, std::vector<LinkSpec>* links);
  std::vector<Geom> link_geoms(const urdf::Link& link, const LinkXml& info);
  // The tree joint of links[l] (joints.cpp); *friction counts the joints with dry friction.
  JointSpec tree_joint(const urdf::ModelInterface& model, const std::map<std::string, int>& index,
                       const std::map<std::string, std::string>& parent_joint,
                       const std::vector<LinkSpec>& links, int l, int* friction);
  JointSpec loop_joint(const LoopXml& loop, const std::map<std::string, int>& index,
                       const std::vector<LinkSpec>& links);
  // One motor per movable single-coordinate tree joint.
  static void add_motors(const std::vector<JointSpec>& specs, const BuildResult& built, Model* model);

  std::string path_;
  LoadOptions options_;
  LoadReport* report_;
  parse::XmlFiles xml_;
  std::vector<std::string> link_order_;
  std::map<std::string, LinkXml> links_;
  std::vector<std::string> joint_order_;
  std::map<std::string, JointXml> joints_;
  std::vector<LoopXml> loops_;
  std::vector<NonholonomicXml> nonholonomic_;
  const XMLElement* maxsim_elem_ = nullptr;  // <maxsim integrator=...>
  std::vector<const XMLElement*> sensors_xml_;  // <maxsim><sensor>, read once the sites exist
  void read_sensors(Model* model) const;        // (extensions.cpp)
  Integrator integrator_ = Integrator::Variational;
  std::map<std::string, MaterialDef> materials_;
  bool rewrite_for_urdfdom_ = false;  // dialect joints, missing limits, capsules, repeated materials
  std::vector<std::string> zero_axis_, no_limit_;  // joints, for one warning each
  std::map<std::string, int> ignored_;
  struct MimicXml {
    const XMLElement* e = nullptr;
    std::string joint, leader;  // the joint that mimics, the joint it follows
    double multiplier = 1, offset = 0;
    bool fixed = false;  // the joint that mimics is fixed (the tag is moot, warned)
  };
  std::vector<MimicXml> mimics_;
  // the mimics as couplings (joints.cpp), after the build
  void add_mimics(Model* model) const;
  std::map<std::string, std::pair<const XMLElement*, std::string>> inertia_issues_;
  MeshCache meshes_;
};

}  // namespace maxsim::urdf_detail
