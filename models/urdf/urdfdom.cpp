// urdfdom: the file rewritten where maxsim reads more than urdfdom, parsed with urdfdom's messages
// collected instead of printed, and the names both readers must agree on.
#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <cstring>
#include <mutex>
#include <set>

#include "models/load_error.hpp"
#include "models/urdf/reader.hpp"

namespace maxsim::urdf_detail {

namespace {
// urdfdom reports through console_bridge; collect its messages instead of printing them.
class CaptureOutput : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) {
      if (!messages.empty()) messages += "; ";
      messages += text;
    }
  }
  std::string messages;
};
std::mutex g_console_mutex;
}  // namespace

// The file as urdfdom can read it (the tinyxml2 pass has checked the dialect): dialect joints
// become "floating" without <limit> (their type, axis and limits are taken from the tinyxml2 pass),
// revolute / prismatic joints without <limit> get an empty one (effort 0: no range, no force
// limit), <capsule> becomes <cylinder> (link_geoms restores it) and a repeated identical top-level
// material is dropped.
std::string UrdfReader::urdfdom_text(const tinyxml2::XMLDocument& doc) const {
  tinyxml2::XMLDocument copy;
  doc.DeepCopy(&copy);
  XMLElement* robot = copy.RootElement();
  std::set<std::string> materials;
  for (XMLElement* c = robot->FirstChildElement(); c;) {
    XMLElement* next = c->NextSiblingElement();
    const std::string n = c->Name();
    if (n == "joint") {
      const UrdfJointType* kind = find_joint_type(xml_.attribute(c, "type"));
      if (kind->dialect) {
        c->SetAttribute("type", "floating");
        while (XMLElement* lim = c->FirstChildElement("limit")) c->DeleteChild(lim);
      } else if ((kind->type == JointType::Revolute || kind->type == JointType::Prismatic) &&
                 !c->FirstChildElement("limit")) {
        XMLElement* lim = copy.NewElement("limit");
        lim->SetAttribute("effort", 0);
        lim->SetAttribute("velocity", 0);
        c->InsertEndChild(lim);
      }
    } else if (n == "material") {
      if (!materials.insert(xml_.text(c, "name")).second) robot->DeleteChild(c);
    } else if (n == "link") {
      for (XMLElement* g = c->FirstChildElement(); g; g = g->NextSiblingElement()) {
        const std::string gn = g->Name();
        if (gn != "visual" && gn != "collision") continue;
        if (XMLElement* geo = g->FirstChildElement("geometry"))
          if (XMLElement* shape = geo->FirstChildElement(); shape && std::strcmp(shape->Name(), "capsule") == 0)
            shape->SetName("cylinder");
      }
    }
    c = next;
  }
  tinyxml2::XMLPrinter printer;
  copy.Print(&printer);
  return printer.CStr();
}

urdf::ModelInterfaceSharedPtr UrdfReader::parse_with_urdfdom(const tinyxml2::XMLDocument& doc) const {
  const std::string content =
      rewrite_for_urdfdom_ ? urdfdom_text(doc) : parse::read_file_bounded(path_, options_.limits.file_bytes);
  urdf::ModelInterfaceSharedPtr urdf_model;
  std::string urdf_messages;
  {
    std::lock_guard<std::mutex> lock(g_console_mutex);
    CaptureOutput capture;
    console_bridge::useOutputHandler(&capture);
    try {
      urdf_model = urdf::parseURDF(content);
    } catch (const std::exception& e) {
      capture.messages += e.what();
    }
    console_bridge::restorePreviousOutputHandler();
    urdf_messages = capture.messages;
  }
  if (!urdf_model)
    throw LoadError(path_, "urdfdom rejected the file: " +
                               (urdf_messages.empty() ? std::string("(no message)") : urdf_messages));
  return urdf_model;
}

// urdfdom reads the text with another XML parser (TinyXML), which can read a name differently
// from tinyxml2 (a bare '&' that starts no entity): what the tinyxml2 pass found must be in
// urdfdom's model, or the file is refused.
namespace {
const char* const kDisagree =
    ": urdfdom reads this file differently and has no such name (an '&' that starts no entity, "
    "or other text XML readers disagree on; write '&' as &amp;)";
}  // namespace

urdf::JointConstSharedPtr UrdfReader::urdf_joint(const urdf::ModelInterface& model, const std::string& name) {
  urdf::JointConstSharedPtr j = model.getJoint(name);
  if (!j) xml_.fail(joints_[name].e, "joint '" + name + "'" + kDisagree);
  return j;
}

urdf::LinkConstSharedPtr UrdfReader::urdf_link(const urdf::ModelInterface& model, const std::string& name) {
  urdf::LinkConstSharedPtr l = model.getLink(name);
  if (!l) xml_.fail(links_[name].e, "link '" + name + "'" + kDisagree);
  return l;
}

}  // namespace maxsim::urdf_detail
