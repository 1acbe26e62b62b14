// <tendon>: fixed tendons (a linear combination of hinge and slide coordinates) and spatial tendons
// (a path through sites, wrapping geoms and pulleys) into Model::tendons, with their spring,
// damper, armature, spring length and limits (MuJoCo 2.2.2's semantics; sim/constraints/tendon.hpp).
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

namespace {

int find_site(const Model& model, const std::string& name) { return model.find_site(name).value_or(-1); }

}  // namespace

int MjcfReader::scalar_joint(const XMLElement* e, const char* name, const BuildResult& built, int* row) {
  auto it = joint_index_.find(name);
  if (it == joint_index_.end()) fail(e, std::string("refers to undefined joint '") + name + "'");
  const MjJoint& mj = mj_joints_[it->second];
  if (mj.kind != 'h' && mj.kind != 's')
    fail(e, std::string("joint '") + name + "' is a ball or free joint: only hinge and slide joints have a scalar coordinate");
  const int j = built.spec_joint[mj.spec];
  if (j < 0) fail(e, std::string("joint '") + name + "' was merged away");
  *row = mj.scalar_row();
  return j;
}

void MjcfReader::read_tendons(const XMLElement* e, const BuildResult& built, Model* model) {
  for (const XMLElement* c : children(e)) {
    const std::string n = c->Name();
    if (n != "fixed" && n != "spatial") fail(c, "unknown tendon type <" + n + "> (fixed or spatial)");
    const std::string cls = class_of(c, "");
    Tendon t;
    t.kind = n == "fixed" ? Tendon::Kind::Fixed : Tendon::Kind::Spatial;
    if (const char* nm = own(c, "name")) t.name = nm;
    if (!t.name.empty() && tendon_index_.count(t.name)) fail(c, "tendon '" + t.name + "' is defined twice");
    t.stiffness = num(attr(c, "tendon", cls, "stiffness")).value_or(0.0);
    t.damping = num(attr(c, "tendon", cls, "damping")).value_or(0.0);
    t.armature = num(attr(c, "tendon", cls, "armature")).value_or(0.0);
    if (t.stiffness < 0 || t.damping < 0 || t.armature < 0) fail(c, "tendon stiffness, damping and armature must be >= 0");
    if (!flags_.passive) t.stiffness = t.damping = 0;  // <flag passive="disable"/>: no springs or dampers
    t.frictionloss = num(attr(c, "tendon", cls, "frictionloss")).value_or(0.0);
    if (!(t.frictionloss >= 0)) fail(c, "tendon frictionloss must be >= 0");
    if (!flags_.frictionloss || !flags_.constraint) t.frictionloss = 0;  // <flag frictionloss="disable"/>
    if (auto len = nums(attr(c, "tendon", cls, "springlength"), 1, 2)) {
      const double lo = (*len)[0], hi = len->size() > 1 ? (*len)[1] : lo;
      if (lo >= 0) {  // (negative: the length at the reference configuration, MuJoCo's default)
        if (hi < lo) fail(c, "tendon springlength: the upper end of the dead band is below the lower");
        t.spring_from_zero = false;
        t.spring_lower = lo;
        t.spring_upper = hi;
      }
    }
    auto range = nums(attr(c, "tendon", cls, "range"), 2, 2);
    auto limited = boolean(attr(c, "tendon", cls, "limited"), true);
    t.limited = limited ? *limited : (autolimits_ && range.has_value());
    if (t.limited) {
      if (!range) fail(c, "tendon is limited but has no range");
      t.range_lower = (*range)[0];
      t.range_upper = (*range)[1];
      if (!(t.range_lower < t.range_upper)) fail(c, "tendon range: lower bound must be below the upper bound");
      if (!flags_.limit || !flags_.constraint) t.limited = false;  // <flag limit="disable"/>
    }
    for (const XMLElement* p : children(c)) {
      const std::string pn = p->Name();
      if (t.kind == Tendon::Kind::Fixed) {
        if (pn != "joint") fail(p, "a fixed tendon takes <joint> elements, not <" + pn + ">");
        const char* jn = own(p, "joint");
        if (!jn) fail(p, "tendon <joint> needs 'joint'");
        TendonJointTerm term;
        term.joint = scalar_joint(p, jn, built, &term.row);
        auto coef = xml_.number(p, "coef");
        if (!coef) fail(p, "tendon <joint> needs 'coef'");
        term.coef = *coef;
        t.joints.push_back(term);
        continue;
      }
      TendonPathElement el;
      if (pn == "site") {
        const char* sn = own(p, "site");
        if (!sn) fail(p, "tendon <site> needs 'site'");
        el.site = find_site(*model, sn);
        if (el.site < 0) fail(p, std::string("tendon refers to undefined site '") + sn + "'");
      } else if (pn == "geom") {
        const char* gn = own(p, "geom");
        if (!gn) fail(p, "tendon <geom> needs 'geom'");
        el.kind = TendonPathElement::Kind::Geom;
        const auto found = model->find_geom(gn);
        if (!found) fail(p, std::string("tendon refers to undefined geom '") + gn + "'");
        el.geom_body = found->first;
        el.geom = found->second;
        const std::vector<Geom>& geoms = el.geom_body == kWorld ? model->world_geoms : model->bodies[el.geom_body].geoms;
        const GeomType type = geoms[el.geom].type;
        if (type != GeomType::Sphere && type != GeomType::Cylinder)
          fail(p, std::string("tendon wrapping geom '") + gn + "' must be a sphere or a cylinder");
        if (const char* ss = own(p, "sidesite")) {
          el.sidesite = find_site(*model, ss);
          if (el.sidesite < 0) fail(p, std::string("tendon refers to undefined site '") + ss + "'");
        }
      } else if (pn == "pulley") {
        el.kind = TendonPathElement::Kind::Pulley;
        auto divisor = xml_.number(p, "divisor");
        if (!divisor || !(*divisor > 0)) fail(p, "tendon <pulley> needs a positive 'divisor'");
        el.divisor = *divisor;
      } else {
        fail(p, "a spatial tendon takes <site>, <geom> and <pulley> elements, not <" + pn + ">");
      }
      t.path.push_back(el);
    }
    if (t.kind == Tendon::Kind::Fixed && t.joints.empty()) fail(c, "fixed tendon has no <joint>");
    if (t.kind == Tendon::Kind::Spatial && t.path.size() < 2) fail(c, "spatial tendon needs at least two sites");
    if (!t.name.empty()) tendon_index_[t.name] = static_cast<int>(model->tendons.size());
    model->tendons.push_back(t);
  }
}

}  // namespace maxsim::mjcf_detail
