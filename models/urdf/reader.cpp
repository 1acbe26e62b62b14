// The URDF reader from top to bottom: the tinyxml2 pass, urdfdom, the links and joints handed to
// the builder, then the warnings collected on the way.
#include <cstring>
#include <set>

#include "models/inertia.hpp"
#include "models/load_error.hpp"
#include "models/urdf.hpp"
#include "models/urdf/reader.hpp"

namespace maxsim {
namespace urdf_detail {

Model UrdfReader::load() {
  tinyxml2::XMLDocument& doc = xml_.load(path_);
  const XMLElement* robot = doc.RootElement();
  if (std::strcmp(robot->Name(), "robot") != 0)
    xml_.fail(robot, std::string("root element is <") + robot->Name() +
                         ">, expected <robot> (not a URDF robot description)");
  check_names(robot);
  prepass(robot);

  // urdfdom for the standard elements.
  const urdf::ModelInterfaceSharedPtr urdf_model = parse_with_urdfdom(doc);

  Model model;
  model.name = urdf_model->getName();
  model.source_file = path_;
  model.implicit_ground = true;  // URDF describes no world: the robot stands on the ground
  model.opt.contact.ground = true;

  // Zero-configuration poses of the link frames, from the root down.
  std::map<std::string, int> index;
  std::vector<LinkSpec> links;
  for (const auto& ln : link_order_) {
    index[ln] = static_cast<int>(links.size());
    LinkSpec s;
    s.name = ln;
    s.file = path_;
    s.line = links_[ln].e->GetLineNum();
    links.push_back(s);
  }
  std::map<std::string, std::string> parent_joint;
  for (const auto& jn : joint_order_) parent_joint[joints_[jn].child] = jn;
  pose_links(*urdf_model, index, parent_joint, &links);

  for (size_t l = 0; l < links.size(); ++l) {
    const urdf::LinkConstSharedPtr ul = urdf_link(*urdf_model, links[l].name);
    const bool is_world = links[l].name == "world";
    if (ul->inertial && !is_world) {
      const auto& in = *ul->inertial;
      double qx, qy, qz, qw;
      in.origin.rotation.getQuaternion(qx, qy, qz, qw);
      Mat3 I;
      I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      links[l].mass.mass = in.mass;
      links[l].mass.com = Vec3(in.origin.position.x, in.origin.position.y, in.origin.position.z);
      links[l].mass.inertia = rotate_inertia(I, quat_normalize(Vec4(qw, qx, qy, qz)));
    }
    links[l].geoms = link_geoms(*ul, links_[links[l].name]);
  }

  std::vector<JointSpec> specs;
  int friction_count = 0;
  for (int l = 0; l < static_cast<int>(links.size()); ++l)
    specs.push_back(tree_joint(*urdf_model, index, parent_joint, links, l, &friction_count));
  for (const LoopXml& L : loops_) specs.push_back(loop_joint(L, index, links));

  BuildResult built;
  build_model(links, specs, options_, &model, &built, report_);
  model.opt.integrator = integrator_;
  std::vector<NonholonomicSpec> nonholonomic;
  for (const NonholonomicXml& N : nonholonomic_)
    nonholonomic.push_back(NonholonomicSpec{N.proto, index.at(N.link), path_, N.e->GetLineNum()});
  add_nonholonomic(links, built, nonholonomic, &model);
  add_motors(specs, built, &model);
  add_mimics(&model);
  // every link's frame as a site of its name, in the body the link is part of: the frames of fixed
  // links merged into their parent stay reachable (a gripper's panda_hand, panda_grasptarget)
  for (int l = 0; l < static_cast<int>(links.size()); ++l) {
    if (links[l].is_virtual) continue;
    Site site;
    site.name = links[l].name;
    site.body = built.link_body[l];
    link_frame_in_body(links, built, model, l, &site.pos, &site.quat);
    model.sites.push_back(site);
  }
  read_sensors(&model);

  std::map<std::string, std::string> merged_into;  // part -> body
  std::set<std::string> has_parts;
  for (const auto& [part, into] : report_->merged) {
    merged_into[part] = into;
    has_parts.insert(into);
  }
  for (const auto& [ln, issue] : inertia_issues_) {
    auto it = merged_into.find(ln);
    const std::string body = it == merged_into.end() ? ln : it->second;
    if (body == ln && !has_parts.count(ln))
      xml_.fail(issue.first, "link '" + ln + "': " + issue.second);
    report_->warnings.push_back(xml_.where(issue.first) + ": link '" + ln + "': " + issue.second +
                                "; accepted because the link is part of the rigid body '" + body +
                                "'");
  }
  for (const auto& [k, n] : ignored_) report_->ignored.push_back(k + " (" + std::to_string(n) + ")");
  if (!ignored_.empty()) {
    std::string list;
    for (const auto& [k, n] : ignored_) list += (list.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    report_->warnings.push_back(path_ + ": other tools' and unsupported URDF tags and attributes ignored: " + list);
  }
  if (friction_count > 0)
    report_->warnings.push_back(path_ + ": dry friction of " + std::to_string(friction_count) +
                                " joint(s): enforced by the variational integrator (the "
                                "energy-momentum integrator refuses it)");
  validate_or_throw(model, path_);
  return model;
}

}  // namespace urdf_detail

Model load_urdf(const std::string& path, const LoadOptions& options, LoadReport* report) {
  LoadReport local;
  LoadReport* r = report ? report : &local;
  urdf_detail::UrdfReader reader(path, options, r);
  Model model = reader.load();
  apply_inertia_floor(path, options, &model, r);
  return model;
}

}  // namespace maxsim
