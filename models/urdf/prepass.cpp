// The tinyxml2 pass over <robot>: every element checked with its file and line before urdfdom
// reads the file, the tree checked (one root, no cycles, no link with two parents).
#include "models/urdf/reader.hpp"

namespace maxsim::urdf_detail {

void UrdfReader::prepass(const XMLElement* robot) {
  // Joint types first: an unknown type is the most basic problem of a file.
  for (const XMLElement* c = robot->FirstChildElement("joint"); c; c = c->NextSiblingElement("joint")) {
    const char* type = xml_.attribute(c, "type");
    if (!type) xml_.fail(c, "joint '" + xml_.text(c, "name") + "' has no type");
    if (!find_joint_type(type))
      xml_.fail(c, "joint '" + xml_.text(c, "name") + "': unknown joint type '" + type + "' (" +
                       joint_type_list() + ")");
  }
  for (const XMLElement* c = robot->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "link") {
      const char* name = xml_.attribute(c, "name");
      if (!name || !*name) xml_.fail(c, "<link> without a name");
      if (static_cast<long long>(link_order_.size()) >= options_.limits.bodies)
        xml_.fail_limit(c, "more than " + std::to_string(options_.limits.bodies) + " links" +
                         limit_hint("bodies", "bodies=N"));
      auto it = links_.find(name);
      if (it != links_.end())
        xml_.fail(c, std::string("duplicate link '") + name + "' (first defined at line " +
                         std::to_string(it->second.e->GetLineNum()) + ")");
      check_link(c, &links_[name]);
      link_order_.push_back(name);
    } else if (n == "joint") {
      const std::string name = xml_.text(c, "name");
      auto it = joints_.find(name);
      if (it != joints_.end())
        xml_.fail(c, "duplicate joint '" + name + "' (first defined at line " +
                         std::to_string(it->second.e->GetLineNum()) + ")");
      check_joint(c, &joints_[name]);
      joint_order_.push_back(name);
    } else if (n == "material") {
      read_material(c);
    } else if (n == "loop_joint") {
      read_loop(c);
    } else if (n == "nonholonomic") {
      read_nonholonomic(c);
    } else if (n == "maxsim") {
      read_maxsim(c);
    } else {
      ++ignored_["<" + n + ">"];
    }
  }
  if (links_.empty()) xml_.fail(robot, "the robot has no links");
  check_tree();
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (!zero_axis_.empty())
    report_->warnings.push_back(path_ + ": zero <axis> on joint(s) " + list(zero_axis_) +
                                ": the joint frame's z axis is used, as Dojo's constraint rows read "
                                "a zero axis");
  if (!no_limit_.empty())
    report_->warnings.push_back(path_ + ": revolute/prismatic joint(s) without <limit> " + list(no_limit_) +
                                ": loaded without position limits, as Dojo reads them");
  bool dialect = false;
  for (const auto& [jn, jx] : joints_) dialect = dialect || jx.kind->dialect;
  if (dialect)
    for (const auto& jn : joint_order_)
      if (joints_[jn].type == "planar")
        report_->warnings.push_back(
            xml_.where(joints_[jn].e) + ": joint '" + jn +
            "': 'planar' is read as in URDF (slides in the plane normal to the axis and turns about "
            "the axis, 3 free rows); Dojo and ConstrainedDynamics read it without the rotation");
  for (const auto& L : loops_) {
    for (const std::string* ln : {&L.link1, &L.link2})
      if (!links_.count(*ln))
        xml_.fail(L.e, "loop joint '" + L.name + "' refers to undefined link '" + *ln + "'");
  }
  for (const auto& N : nonholonomic_)
    if (!links_.count(N.link))
      xml_.fail(N.e->FirstChildElement("link"),
                "nonholonomic constraint '" + N.proto.name + "' refers to undefined link '" + N.link + "'");
}

void UrdfReader::check_tree() {
  std::map<std::string, std::string> parent_joint;  // child link -> joint name
  for (const auto& jn : joint_order_) {
    const JointXml& j = joints_[jn];
    for (const std::string* ln : {&j.parent, &j.child}) {
      if (!links_.count(*ln)) {
        const XMLElement* where = j.e->FirstChildElement(ln == &j.parent ? "parent" : "child");
        xml_.fail(where, "joint '" + jn + "' refers to undefined link '" + *ln + "'");
      }
    }
    if (j.parent == j.child) xml_.fail(j.e, "joint '" + jn + "' connects link '" + j.parent + "' to itself");
    auto it = parent_joint.find(j.child);
    if (it != parent_joint.end())
      xml_.fail(j.e, "link '" + j.child + "' has two parent joints, '" + it->second + "' (line " +
                         std::to_string(joints_[it->second].e->GetLineNum()) + ") and '" + jn +
                         "': a URDF must be a tree (close loops with <loop_joint>)");
    parent_joint[j.child] = jn;
  }
  // Cycles: follow the parents from every link, each link once (a walk stops at a link an
  // earlier walk has finished), so the check is linear in the links.
  enum class Walk { New, OnPath, Done };
  std::map<std::string, Walk> state;
  std::vector<std::string> path;
  for (const auto& ln : link_order_) {
    path.clear();
    std::string cur = ln;
    while (true) {
      Walk& st = state[cur];
      if (st == Walk::Done) break;
      if (st == Walk::OnPath)
        xml_.fail(joints_[parent_joint[cur]].e, "kinematic cycle in the URDF tree through link '" + cur + "'");
      st = Walk::OnPath;
      path.push_back(cur);
      auto it = parent_joint.find(cur);
      if (it == parent_joint.end()) break;
      cur = joints_[it->second].parent;
    }
    for (const auto& p : path) state[p] = Walk::Done;
  }
  std::vector<std::string> roots;
  for (const auto& ln : link_order_)
    if (!parent_joint.count(ln)) roots.push_back(ln);
  if (roots.size() > 1) {
    std::string list;
    for (const auto& r : roots) list += (list.empty() ? "'" : ", '") + r + "'";
    xml_.fail(links_[roots[1]].e, "several root links (" + list +
                                      "): a URDF must be one tree (attach them with joints)");
  }
}

}  // namespace maxsim::urdf_detail
