// The start every engine is given, and the conversion between a Data and BodyStates.
#include "benchmarks/engines/engine.hpp"

#include <algorithm>
#include <numeric>

#include "sim/constraints/joint.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/data.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"

namespace maxsim::bench {

std::vector<BodyState> body_states(const Data& data) {
  std::vector<BodyState> s(data.x.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = {data.x[i], data.q[i], data.v[i], data.w[i]};
  return s;
}

void place_bodies(const Model& model, const std::vector<BodyState>& bodies, Data* data) {
  for (size_t i = 0; i < bodies.size(); ++i) {
    data->x[i] = bodies[i].x;
    data->q[i] = bodies[i].q;
    data->v[i] = bodies[i].v;
    data->w[i] = bodies[i].w;
  }
  // the rotation rows' angles follow the new poses from the last ones by the shortest turn, as
  // the step unwraps them (sim/constraints/joint_constraint.cpp): read back step by step, a hinge
  // keeps its angle past ±π
  JointRows rows;
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    joint_rows(jt, body_pose(*data, jt.parent), body_pose(*data, jt.child), &rows);
    for (int k = 0; k < 3; ++k) data->joint_angle[j](k) += wrap_angle(rows.c(3 + k) - data->joint_angle[j](k));
  }
}

namespace {

// The body pairs of SceneSetup::start_overlaps: maxsim's rule (sim/geometry/contact_search.cpp), a
// pair deeper than start_overlap that the joints keep together — one kinematic tree, two trees
// both held by the world, or the world and a held tree (a tree is free when nothing but a floating
// joint holds it). Per body pair where maxsim's is per geom pair.
std::vector<std::pair<int, int>> find_start_overlaps(const Model& model, const Data& data) {
  const int nb = static_cast<int>(model.bodies.size());
  std::vector<int> tree(nb);
  std::iota(tree.begin(), tree.end(), 0);
  auto root = [&](int b) {
    while (tree[b] != b) b = tree[b] = tree[tree[b]];
    return b;
  };
  for (const Joint& j : model.joints)
    if (j.parent != kWorld && j.child != kWorld) tree[root(j.parent)] = root(j.child);
  std::vector<char> held(nb, 0);
  for (const Joint& j : model.joints)
    if ((j.parent == kWorld || j.child == kWorld) && j.type != JointType::Floating)
      held[root(j.parent == kWorld ? j.child : j.parent)] = 1;
  CollisionOptions co;
  co.ground = model.opt.contact.ground;
  co.margin = 0;
  co.exclude_joined = model.opt.contact.exclude_joined;
  CollisionWorld world(model, co);
  std::vector<ContactCandidate> found;
  world.find_candidates(data.x, data.q, &found);
  std::vector<std::pair<int, int>> pairs;
  for (const ContactCandidate& k : found) {
    if (k.distance >= -model.opt.contact.start_overlap) continue;
    const int tb = root(k.body_b);
    const bool kept_together = k.body_a == kWorld ? held[tb] : root(k.body_a) == tb || (held[root(k.body_a)] && held[tb]);
    if (kept_together) pairs.emplace_back(std::min(k.body_a, k.body_b), std::max(k.body_a, k.body_b));
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

}  // namespace

bool SceneSetup::overlapping_at_start(int a, int b) const {
  return std::binary_search(start_overlaps.begin(), start_overlaps.end(), std::make_pair(std::min(a, b), std::max(a, b)));
}

SceneSetup make_setup(const Model& model, const std::string& file, double dt, const Data& data) {
  SceneSetup s;
  s.model = &model;
  s.file = file;
  s.dt = dt;
  s.start = body_states(data);
  get_coordinates(model, data, &s.start_q, &s.start_qd);
  s.start_qpos = get_qpos(model, data);
  s.start_qvel = get_qvel(model, data);
  if (model.contacts) s.start_overlaps = find_start_overlaps(model, data);
  return s;
}

}  // namespace maxsim::bench
