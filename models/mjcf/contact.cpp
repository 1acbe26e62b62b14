// <contact><exclude> and MuJoCo's parent-child collision filter.
#include <algorithm>
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_contact(const XMLElement* e, const BuildResult& built, Model* model) {
  for (const XMLElement* x : children(e)) {
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
