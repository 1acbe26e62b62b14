#include "sim/contact_search.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/solver/workspace.hpp"

namespace maxsim {

namespace {

// Kinematic trees of the model (bodies joined by joints, the world excluded) and whether each is
// free: attached to the world by nothing, or by one floating joint.
struct Trees {
  std::vector<int> tree;   // per body
  std::vector<char> free;  // per tree
};

Trees kinematic_trees(const Model& model) {
  const int nb = static_cast<int>(model.bodies.size());
  std::vector<int> up(nb);
  for (int b = 0; b < nb; ++b) up[b] = b;
  auto root = [&up](int b) {
    while (up[b] != b) b = up[b] = up[up[b]];
    return b;
  };
  for (const Joint& j : model.joints)
    if (j.parent >= 0 && j.child >= 0) up[root(j.parent)] = root(j.child);
  Trees t;
  t.tree.resize(nb);
  for (int b = 0; b < nb; ++b) t.tree[b] = root(b);
  std::vector<int> to_world(nb, 0), floating(nb, 0);
  for (const Joint& j : model.joints) {
    const int body = j.parent == kWorld ? j.child : j.child == kWorld ? j.parent : -1;
    if (body < 0) continue;
    ++to_world[t.tree[body]];
    if (j.type == JointType::Floating) ++floating[t.tree[body]];
  }
  t.free.resize(nb);
  for (int r = 0; r < nb; ++r) t.free[r] = to_world[r] == 0 || (to_world[r] == 1 && floating[r] == 1);
  return t;
}

// Whether the joints let bodies a and b (a may be kWorld) move apart freely.
bool separable(const Trees& t, int a, int b) {
  if (a == kWorld) return t.free[t.tree[b]];
  return t.tree[a] != t.tree[b] && (t.free[t.tree[a]] || t.free[t.tree[b]]);
}

std::uint64_t geom_pair_key(const ContactCandidate& k) {
  // (body, geom) pairs; body kWorld and geom -1 (the ground) map to 0
  auto id = [](int body, int geom) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(body + 1)) << 16) |
           static_cast<std::uint32_t>(geom + 1);
  };
  return (id(k.body_a, k.geom_a) << 32) | id(k.body_b, k.geom_b);
}

// Geom pairs ignored while they overlap as they did at the start (ContactOptions::start_overlap).
struct StartOverlaps {
  bool initialized = false;
  std::vector<std::uint64_t> pairs;  // sorted
  std::vector<std::uint64_t> still;  // scratch: pairs still overlapping in this search
};

}  // namespace

void enable_contacts(const Model& model, Data& data, const ContactOptions& options) {
  auto bad = [](const char* what, double v, const char* rule) {
    throw std::invalid_argument(std::string("ContactOptions::") + what + " = " + std::to_string(v) + ": must be " + rule);
  };
  if (!(options.friction >= 0) || !std::isfinite(options.friction)) bad("friction", options.friction, "finite and >= 0");
  if (!(options.margin >= 0) || !std::isfinite(options.margin)) bad("margin", options.margin, "finite and >= 0");
  if (!(options.recovery_speed > 0) || !std::isfinite(options.recovery_speed)) bad("recovery_speed", options.recovery_speed, "finite and > 0");
  if (!(options.restitution >= 0 && options.restitution <= 1)) bad("restitution", options.restitution, "in [0, 1]");
  if (!(options.bounce_threshold >= 0) || !std::isfinite(options.bounce_threshold)) bad("bounce_threshold", options.bounce_threshold, "finite and >= 0");
  CollisionOptions co;
  co.ground = options.ground;
  co.margin = options.margin;
  co.default_friction = options.friction;
  co.default_restitution = options.restitution;
  co.exclude_joined = options.exclude_joined;
  if (!(options.min_margin >= 0) || !std::isfinite(options.min_margin)) bad("min_margin", options.min_margin, "finite and >= 0");
  data.collide_setup = [options](const Model& m, Data& d) { enable_contacts(m, d, options); };
  if (!model.contacts) {  // the description switched contacts off: no search at all
    data.collide = nullptr;
    data.min_candidate_distance = 0;
    return;
  }
  auto world = std::make_shared<CollisionWorld>(model, co);
  // geometric radius of each body about its CoM (the body frame's origin), for the speed bound
  // of its surface points
  std::vector<double> radius(model.bodies.size(), 0.0);
  for (size_t b = 0; b < model.bodies.size(); ++b)
    for (const Geom& g : model.bodies[b].geoms) {
      if (!g.collision || g.type == GeomType::Plane) continue;
      double extent = 0;
      switch (g.type) {
        case GeomType::Sphere: extent = g.size.x(); break;
        case GeomType::Capsule: extent = g.size.x() + g.size.y(); break;
        case GeomType::Cylinder: extent = std::hypot(g.size.x(), g.size.y()); break;
        case GeomType::Mesh:
          for (const Vec3& v : g.vertices) extent = std::max(extent, v.norm());
          break;
        default: extent = g.size.norm(); break;  // box, ellipsoid: half extents
      }
      radius[b] = std::max(radius[b], g.pos.norm() + extent + g.margin);
    }
  const bool adaptive = options.adaptive_margin;
  const double min_margin = options.min_margin, max_margin = options.margin;
  if (!(options.start_overlap >= 0) || !std::isfinite(options.start_overlap)) bad("start_overlap", options.start_overlap, "finite and >= 0");
  auto candidates = std::make_shared<std::vector<ContactCandidate>>();
  auto overlaps = std::make_shared<StartOverlaps>();
  const Trees trees = kinematic_trees(model);
  const double start_overlap = options.start_overlap;
  const bool self = options.self_collision;
  const double recovery_speed = options.recovery_speed;
  const double bounce_threshold = options.bounce_threshold;
  const bool linear_cone = options.cone == FrictionCone::Linear;
  const bool relaxed_cone = options.cone == FrictionCone::Relaxed;
  data.collide = [world, candidates, self, recovery_speed, bounce_threshold, linear_cone, relaxed_cone, adaptive,
                  min_margin, max_margin, radius, overlaps, trees, start_overlap](const Model& m, Data& d) {
    if (adaptive) {
      double v_max = 0;
      for (size_t b = 0; b < d.v.size(); ++b) v_max = std::max(v_max, d.v[b].norm() + d.w[b].norm() * radius[b]);
      const double reach = 2.0 * workspace(d).dt * (2.0 * v_max + m.opt.gravity.norm() * workspace(d).dt);
      world->set_margin(std::min(max_margin, min_margin + reach));
    }
    world->find_candidates(d.x, d.q, candidates.get());
    // pairs overlapping at the start that the joints may keep together: ignored until they
    // have separated (a pair is separated once none of its points penetrates)
    StartOverlaps& ov = *overlaps;
    if (!ov.initialized) {
      ov.initialized = true;
      for (const ContactCandidate& k : *candidates)
        if (k.distance < -start_overlap && !separable(trees, k.body_a, k.body_b)) ov.pairs.push_back(geom_pair_key(k));
      std::sort(ov.pairs.begin(), ov.pairs.end());
      ov.pairs.erase(std::unique(ov.pairs.begin(), ov.pairs.end()), ov.pairs.end());
      // (several points per pair: no allocation in later searches)
      ov.pairs.reserve(kMaxPairPoints * ov.pairs.size());
      ov.still.reserve(kMaxPairPoints * ov.pairs.size());
    }
    if (!ov.pairs.empty()) {
      ov.still.clear();
      for (const ContactCandidate& k : *candidates)
        if (k.distance < 0 && std::binary_search(ov.pairs.begin(), ov.pairs.end(), geom_pair_key(k)))
          ov.still.push_back(geom_pair_key(k));
      std::sort(ov.still.begin(), ov.still.end());
      ov.still.erase(std::unique(ov.still.begin(), ov.still.end()), ov.still.end());
      ov.pairs.swap(ov.still);  // the separated ones are contacts again from now on
    }
    // (not contacts: a self-collision switched off, a start overlap still ignored)
    auto kept = [&](const ContactCandidate& k) {
      return (self || k.body_a == kWorld) &&
             (ov.pairs.empty() || !std::binary_search(ov.pairs.begin(), ov.pairs.end(), geom_pair_key(k)));
    };
    // Recovery (ContactOptions::recovery_speed) relaxes all candidates of one body pair and one
    // normal by the same depth, that of the deepest: the pair's constraints are those of the pair
    // moved apart along the normal, so only features that touch first in a real configuration are
    // active together. Relaxed by their own depths, every penetrating feature would be active at
    // once whatever the geometry (a box's four corners and the sphere centred under them: five
    // normal rows of rank 3, impulses free in their null space, sliding friction directions the
    // interior point cannot settle).
    const double recover = recovery_speed * workspace(d).dt;
    bool deep = false;  // (none deeper than that, the usual case: no pair is relaxed at all)
    for (const ContactCandidate& k : *candidates) deep |= k.distance < -recover && kept(k);
    auto recovery_depth = [&](const ContactCandidate& k) {
      double depth = -k.distance;
      if (!deep) return depth;
      for (const ContactCandidate& o : *candidates) {
        if (!(o.distance < -depth) || !kept(o)) continue;
        // the same relative translation: the same ordered pair and normal, or the pair swapped
        // and the normal reversed (parallel to the collision routines' round-off)
        const double along = o.normal.dot(k.normal);
        if ((o.body_a == k.body_a && o.body_b == k.body_b && along > 1 - 1e-9) ||
            (o.body_a == k.body_b && o.body_b == k.body_a && along < -(1 - 1e-9)))
          depth = -o.distance;
      }
      return depth;
    };
    d.min_candidate_distance = 0;
    for (size_t i = 0; i < candidates->size(); ++i) {
      const ContactCandidate& k = (*candidates)[i];
      if (!kept(k)) continue;
      d.contacts.emplace_back();
      Contact& c = d.contacts.back();
      c.body_a = k.body_a;
      c.body_b = k.body_b;
      c.point_a = k.point_a;
      c.point_b = k.point_b;
      c.core_a = k.core_a;
      c.core_b = k.core_b;
      // offset enters φ with a minus sign: lowering it by the allowed depth relaxes φ ≥ 0
      c.offset = k.radius_a + k.radius_b - std::max(0.0, recovery_depth(k) - recover);
      contact_set_normal(&c, k.normal);
      c.friction = k.friction;
      c.restitution = k.restitution;
      c.bounce_threshold = bounce_threshold;
      c.linear_cone = linear_cone && c.friction > 0;
      c.relaxed_cone = relaxed_cone;
      d.min_candidate_distance = std::min(d.min_candidate_distance, k.distance);
    }
  };
}

const char* friction_cone_name(FrictionCone c) {
  switch (c) {
    case FrictionCone::Nonlinear: return "nonlinear";
    case FrictionCone::Linear: return "linear";
    case FrictionCone::Relaxed: return "relaxed";
  }
  return "?";
}

bool friction_cone_from_name(const std::string& name, FrictionCone* out) {
  for (FrictionCone c : {FrictionCone::Nonlinear, FrictionCone::Linear, FrictionCone::Relaxed})
    if (name == friction_cone_name(c)) {
      *out = c;
      return true;
    }
  return false;
}

double max_penetration(const Data& data) { return std::max(0.0, -data.min_candidate_distance); }

}  // namespace maxsim
