// The MJCF reader from top to bottom: the file's sections in the order their dependencies need,
// then the Model built from them.
#include <cstring>

#include "models/inertia.hpp"
#include "models/load_error.hpp"
#include "models/mjcf.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim {
namespace mjcf_detail {

Model MjcfReader::load() {
  tinyxml2::XMLDocument& doc = xml_.load(path_);
  const XMLElement* root = doc.RootElement();
  if (std::strcmp(root->Name(), "mujoco") != 0)
    xml_.fail(root, std::string("root element is <") + root->Name() +
                        ">, expected <mujoco> (not an MJCF model)");
  Model model;
  model.source_file = path_;
  model.name = xml_.text(root, "model");
  // MuJoCo's defaults for what the file leaves out (XML reference, <option> and <geom>).
  model.opt.gravity = Vec3(0, 0, -9.81);
  model.opt.timestep = 0.002;
  model.opt.contact.friction = 1.0;  // geom friction "1 0.005 0.0001": sliding μ = 1
  model.opt.contact.ground = false;  // the file's geoms are its world (no half-space of our own)
  model.opt.limit_recovery_time = 0.04;  // soft limits pull a pose back into range (ModelOptions)

  int include_height = 0;
  resolve_includes(root, 0, &include_height);
  check_names(root);
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
  if (!flags_.gravity) model.opt.gravity.setZero();
  // MuJoCo's collision detection runs only with contacts and constraints on; "predefined" makes
  // it test the <contact><pair>s only (read_pair switches contacts back on for them).
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
  for (const XMLElement* c : top)
    if (std::strcmp(c->Name(), "worldbody") == 0) read_worldbody(c);

  adjust_masses(root);
  // Plausible masses (after the compiler's adjustments: they are what the model gets).
  const int nlinks = static_cast<int>(links_.size());
  for (int l = 1; l < nlinks; ++l) {
    if (links_[l].is_virtual || !(links_[l].mass.mass > 0)) continue;
    if (const std::string err = check_mass_range(links_[l].mass.mass, options_.limits); !err.empty())
      throw LimitError(links_[l].file, links_[l].line, "body '" + links_[l].name + "': " + err);
  }
  weigh_virtual_bodies();
  if (discardvisual_)
    for (auto& l : links_)
      std::erase_if(l.geoms, [](const Geom& g) { return !g.collision; });

  if (flags_.equality && flags_.constraint) {  // <flag equality="disable"/>: no loop closures
    for (const XMLElement* c : top)
      if (std::strcmp(c->Name(), "equality") == 0) read_equality(c);
  }

  BuildResult built;
  build_model(links_, specs_, options_, &model, &built, report_);
  add_sites(built, &model);
  model.hfields = std::move(hfields_);

  for (const XMLElement* c : top)  // (before the actuators, which may pull on them)
    if (std::strcmp(c->Name(), "tendon") == 0) read_tendons(c, built, &model);
  read_couplings(built, &model);
  for (const XMLElement* c : top) {
    const std::string n = c->Name();
    if (n == "actuator") {
      read_actuators(c, &model);
    } else if (n == "contact") {
      read_contact(c, built, &model);
    } else if (n == "custom") {
      read_custom(c, &model);
    } else if (n == "tendon" || n == "sensor" || n == "deformable" || n == "extension" ||
               n == "visual" || n == "statistic" || n == "size" ||
               n == "keyframe" || n == "compiler" || n == "option" || n == "default" ||
               n == "asset" || n == "worldbody" || n == "equality") {
      if (n == "deformable")
        for (const XMLElement* x : children(c)) ignore("<" + n + "><" + x->Name() + ">");
      else if (n == "extension")
        ignore("<extension>");
    } else {
      ignore("<" + n + ">");
    }
  }
  // Actuators point at specs until now.
  for (auto& a : model.actuators) {
    if (!flags_.clampctrl) a.ctrl_limited = false;  // <flag clampctrl="disable"/>
    if (a.tendon >= 0) continue;  // (a tendon transmission: no joint)
    const int j = built.spec_joint[a.joint];
    if (j < 0) throw LoadError(path_, "internal loader error: actuated joint was merged");
    a.joint = j;
  }
  for (const XMLElement* c : top)  // (after the actuators' joints are mapped)
    if (std::strcmp(c->Name(), "sensor") == 0) read_sensors(c, built, &model);
  set_collision_filter(built, &model);
  add_nonholonomic(links_, built, nonholonomic_, &model);
  for (const XMLElement* c : top)
    if (std::strcmp(c->Name(), "keyframe") == 0) read_keyframes(c, &model);

  list_ignored(root);
  record_sources(model);
  for (const auto& [k, n] : ignored_) report_->ignored.push_back(k + " (" + std::to_string(n) + ")");
  if (!ignored_.empty()) {
    std::string list;
    for (const auto& [k, n] : ignored_) list += (list.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    report_->warnings.push_back(path_ + ": unsupported MJCF features ignored: " + list);
  }
  if (frictionloss_count_ > 0)
    report_->warnings.push_back(path_ + ": frictionloss of " + std::to_string(frictionloss_count_) +
                                " joint(s): dry joint friction, enforced by the variational "
                                "integrator (the energy-momentum integrator refuses it)");
  validate_or_throw(model, path_);
  return model;
}

}  // namespace mjcf_detail

Model load_mjcf(const std::string& path, const LoadOptions& options, LoadReport* report) {
  LoadReport local;
  LoadReport* r = report ? report : &local;
  mjcf_detail::MjcfReader reader(path, options, r);
  Model model = reader.load();
  apply_inertia_floor(path, options, &model, r);
  return model;
}

}  // namespace maxsim
