// <compiler> and <option> (with its <flag>), and the compiler's mass adjustments.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_compiler(const XMLElement* e) {
  if (const char* a = own(e, "angle")) {
    if (std::strcmp(a, "degree") == 0) degree_ = true;
    else if (std::strcmp(a, "radian") == 0) degree_ = false;
    else fail(e, std::string("compiler angle must be degree or radian, got '") + a + "'");
  }
  if (const char* s = own(e, "eulerseq")) {
    eulerseq_ = s;
    if (eulerseq_.size() != 3 || eulerseq_.find_first_not_of("xyzXYZ") != std::string::npos)
      fail(e, "compiler eulerseq must be 3 letters from xyzXYZ, got '" + eulerseq_ + "'");
  }
  if (const char* s = own(e, "meshdir")) meshdir_ = s;
  if (const char* s = own(e, "assetdir")) assetdir_ = s;
  if (auto b = xml_.boolean(e, "autolimits")) autolimits_ = *b;
  if (const char* s = own(e, "inertiafromgeom")) {
    if (std::strcmp(s, "true") == 0) inertia_from_geom_ = 1;
    else if (std::strcmp(s, "false") == 0) inertia_from_geom_ = -1;
    else if (std::strcmp(s, "auto") == 0) inertia_from_geom_ = 0;
    else fail(e, std::string("compiler inertiafromgeom must be true, false or auto, got '") + s + "'");
  }
  if (const char* s = own(e, "coordinate")) {
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
  if (auto r = xml_.numbers(e, "inertiagrouprange", 2)) {
    if ((*r)[0] != std::floor((*r)[0]) || (*r)[1] != std::floor((*r)[1]))
      fail(e, "compiler inertiagrouprange must be two integers");
    inertia_groups_[0] = (*r)[0];
    inertia_groups_[1] = (*r)[1];
  }
  if (auto b = xml_.boolean(e, "discardvisual")) discardvisual_ = *b;
  if (auto b = xml_.boolean(e, "strippath")) strippath_ = *b;
}

void MjcfReader::read_option(const XMLElement* e, Model* model) {
  if (auto dt = xml_.number(e, "timestep")) {
    if (!(*dt > 0)) fail(e, "option timestep must be positive");
    model->opt.timestep = *dt;
    model->dt_from_file = true;
    timestep_elem_ = e;
  }
  if (auto g = xml_.vec3(e, "gravity")) {
    model->opt.gravity = *g;
    gravity_elem_ = e;
  }
  if (auto b = xml_.vec3(e, "magnetic")) model->opt.magnetic = *b;  // (magnetometer sensors)
  // MuJoCo's integrators all become maxsim's variational step, which treats the free rows'
  // springs, dampers and armature implicitly already (docs/computation.md); info names the mapping.
  if (const char* i = own(e, "integrator")) {
    if (std::strcmp(i, "Euler") != 0 && std::strcmp(i, "implicit") != 0 &&
        std::strcmp(i, "implicitfast") != 0 && std::strcmp(i, "RK4") != 0)
      fail(e, std::string("option integrator must be Euler, implicit, implicitfast or RK4, got '") + i + "'");
    mj_integrator_ = i;
    mj_integrator_elem_ = e;
  }
  for (const char* a : {"viscosity", "density"}) {
    if (auto v = xml_.number(e, a); v && *v != 0) ignore(std::string("<option ") + a + "> (fluid forces)");
  }
  if (auto w = xml_.vec3(e, "wind"); w && w->norm() > 0) ignore("<option wind>");
  if (const char* c = own(e, "collision")) {
    if (std::strcmp(c, "all") != 0 && std::strcmp(c, "predefined") != 0 && std::strcmp(c, "dynamic") != 0)
      fail(e, std::string("option collision must be all, predefined or dynamic, got '") + c + "'");
    collision_ = c;
  }
  // MuJoCo reads the first <flag> only.
  const XMLElement* f = e->FirstChildElement("flag");
  if (!f) return;
  auto flag = [&](const char* name, bool* on) {
    const char* v = own(f, name);
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
  flag("sensor", &model->opt.sensors);            // (disabled: steps leave sensordata alone)
  flag("sensornoise", &model->opt.sensor_noise);  // (MuJoCo 2.2.2: off unless enabled)
  // Not represented: flags that tune MuJoCo's own solver or statistics. A value other than
  // MuJoCo's default is named in the warning.
  for (const char* k : {"warmstart", "refsafe", "midphase", "eulerdamp", "nativeccd"}) {
    bool on = true;
    flag(k, &on);
    if (!on) ignore(std::string("<flag ") + k + "=\"disable\">");
  }
  for (const char* k : {"override", "energy", "fwdinv", "invdiscrete", "multiccd", "island"}) {
    bool on = false;
    flag(k, &on);
    if (on) ignore(std::string("<flag ") + k + "=\"enable\">");
  }
}

void MjcfReader::record_sources(const Model& model) {
  auto g6 = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  auto from = [&](const XMLElement* e) { return e ? xml_.where(e) : std::string("MuJoCo default"); };
  auto& src = report_->sources;
  src.push_back({"timestep", g6(model.opt.timestep), from(timestep_elem_)});
  src.push_back({"gravity", g6(model.opt.gravity.x()) + " " + g6(model.opt.gravity.y()) + " " + g6(model.opt.gravity.z()),
                 from(gravity_elem_)});
  src.push_back({"integrator",
                 std::string(integrator_name(model.opt.integrator)) + " (MuJoCo's " + mj_integrator_ +
                     " mapped to it: its step is implicit in the joints' springs and dampers)",
                 integrator_elem_ ? xml_.where(integrator_elem_) + " (maxsim:integrator)" : from(mj_integrator_elem_)});
  src.push_back({"geom friction",
                 std::to_string(friction_own_) + " geom(s) from the file, " + std::to_string(friction_class_) +
                     " from default classes, " + std::to_string(friction_default_) + " at MuJoCo's default " +
                     g6(model.opt.contact.friction),
                 "file, default class, MuJoCo default"});
}

// On the file's bodies, before virtual bodies get their mass.
void MjcfReader::adjust_masses(const XMLElement* root) {
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
}

}  // namespace maxsim::mjcf_detail
