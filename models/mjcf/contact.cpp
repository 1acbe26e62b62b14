// <contact><exclude>, <contact><pair> and MuJoCo's parent-child collision filter.
#include <algorithm>
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_contact(const XMLElement* e, const BuildResult& built, Model* model) {
  for (const XMLElement* x : children(e)) {
    if (std::strcmp(x->Name(), "pair") == 0) {
      read_pair(x, model);
      continue;
    }
    if (std::strcmp(x->Name(), "exclude") != 0) {
      ignore("<contact><" + std::string(x->Name()) + ">");
      continue;
    }
    const char* b1 = own(x, "body1");
    const char* b2 = own(x, "body2");
    if (!b1 || !b2) fail(x, "<exclude> needs body1 and body2");
    auto l1 = body_link_.find(b1), l2 = body_link_.find(b2);
    if (l1 == body_link_.end()) fail(x, std::string("exclude refers to undefined body '") + b1 + "'");
    if (l2 == body_link_.end()) fail(x, std::string("exclude refers to undefined body '") + b2 + "'");
    const int i1 = built.link_body[l1->second], i2 = built.link_body[l2->second];
    if (i1 != i2) model->contact_excludes.emplace_back(i1, i2);
  }
}

// <pair geom1 geom2>: MuJoCo's explicit pair (mjCPair), tested whatever the filters say. Its
// friction (the sliding value), margin and condim; those it leaves out are the geoms' as for any
// contact. Its geoms become collision geometry even when contype = conaffinity = 0. With
// <option collision="predefined"> only the pairs collide; with "dynamic" the pairs are unused.
void MjcfReader::read_pair(const XMLElement* x, Model* model) {
  const std::string cls = class_of(x, "");
  const char* n1 = own(x, "geom1");
  const char* n2 = own(x, "geom2");
  if (!n1 || !n2) fail(x, "<pair> needs geom1 and geom2");
  ContactPair p;
  if (const char* name = own(x, "name")) p.name = name;
  auto find = [&](const char* name, int* body, int* index) -> Geom& {
    for (size_t b = 0; b < model->bodies.size(); ++b)
      for (size_t i = 0; i < model->bodies[b].geoms.size(); ++i)
        if (model->bodies[b].geoms[i].name == name) {
          *body = static_cast<int>(b);
          *index = static_cast<int>(i);
          return model->bodies[b].geoms[i];
        }
    for (size_t i = 0; i < model->world_geoms.size(); ++i)
      if (model->world_geoms[i].name == name) {
        *body = kWorld;
        *index = static_cast<int>(i);
        return model->world_geoms[i];
      }
    fail(x, std::string("pair refers to undefined geom '") + name + "'");
  };
  Geom& g1 = find(n1, &p.body1, &p.geom1);
  Geom& g2 = find(n2, &p.body2, &p.geom2);
  if (p.body1 == p.body2)
    fail(x, std::string("pair of geoms '") + n1 + "' and '" + n2 + "' of one body (they never move apart)");
  if ((g1.type == GeomType::Plane || g1.type == GeomType::HField) &&
      (g2.type == GeomType::Plane || g2.type == GeomType::HField))
    fail(x, "pair of two planes or height fields (MuJoCo has no collision for them)");
  if (auto f = nums(attr(x, "pair", cls, "friction"), 1, 5)) {
    for (double v : *f)
      if (!(v >= 0)) fail(x, "pair friction must not be negative");
    p.friction = (*f)[0];
    if (f->size() >= 3) p.torsional_friction = (*f)[2];  // (tangent 1, tangent 2, spin, roll 1, roll 2)
  }
  if (auto m = num(attr(x, "pair", cls, "margin"))) {
    if (!(*m >= 0)) fail(x, "pair margin must not be negative");
    p.margin = *m;
  }
  if (auto c = integer(attr(x, "pair", cls, "condim"))) {
    if (*c != 1 && *c != 3 && *c != 4 && *c != 6) fail(x, "pair condim must be 1, 3, 4 or 6");
    if (*c == 6) ignore("pair condim 6's rolling friction (read as 4: sliding and torsional)");
    p.condim = *c;
  }
  if (auto gap = num(attr(x, "pair", cls, "gap")); gap && *gap != 0) ignore("pair gap");
  if (collision_ == "dynamic") {  // MuJoCo tests no pair then
    ignore("<contact><pair> with <option collision=\"dynamic\">");
    return;
  }
  g1.collision = g2.collision = true;
  model->contact_pairs.push_back(p);
  if (collision_ == "predefined") {  // only the pairs collide
    model->dynamic_contacts = false;
    model->contacts = flags_.contact && flags_.constraint;
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

}  // namespace maxsim::mjcf_detail
