#include "sim/geometry/contact_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/data.hpp"
#include "sim/geometry/shape.hpp"
#include "sim/math/quaternion.hpp"

namespace maxsim {

namespace {

// Kinematic trees of the model (bodies joined by joints, the world excluded) and whether each is
// free: attached to the world by nothing, or by one floating joint.
void kinematic_trees(const Model& model, std::vector<int>* tree, std::vector<char>* free) {
  const int nb = static_cast<int>(model.bodies.size());
  std::vector<int> up(nb);
  for (int b = 0; b < nb; ++b) up[b] = b;
  auto root = [&up](int b) {
    while (up[b] != b) b = up[b] = up[up[b]];
    return b;
  };
  for (const Joint& j : model.joints)
    if (j.parent >= 0 && j.child >= 0) up[root(j.parent)] = root(j.child);
  tree->resize(nb);
  for (int b = 0; b < nb; ++b) (*tree)[b] = root(b);
  std::vector<int> to_world(nb, 0), floating(nb, 0);
  for (const Joint& j : model.joints) {
    const int body = j.parent == kWorld ? j.child : j.child == kWorld ? j.parent : -1;
    if (body < 0) continue;
    ++to_world[(*tree)[body]];
    if (j.type == JointType::Floating) ++floating[(*tree)[body]];
  }
  free->resize(nb);
  for (int r = 0; r < nb; ++r) (*free)[r] = to_world[r] == 0 || (to_world[r] == 1 && floating[r] == 1);
}

std::uint64_t geom_pair_key(const ContactCandidate& k) {
  // (body, geom) pairs; body kWorld and geom -1 (the ground) map to 0
  auto id = [](int body, int geom) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(body + 1)) << 16) |
           static_cast<std::uint32_t>(geom + 1);
  };
  return (id(k.body_a, k.geom_a) << 32) | id(k.body_b, k.geom_b);
}

void check_options(const ContactOptions& options) {
  auto bad = [](const char* what, double v, const char* rule) {
    throw std::invalid_argument(std::string("ContactOptions::") + what + " = " + std::to_string(v) + ": must be " + rule);
  };
  if (!(options.friction >= 0) || !std::isfinite(options.friction)) bad("friction", options.friction, "finite and >= 0");
  if (!(options.margin >= 0) || !std::isfinite(options.margin)) bad("margin", options.margin, "finite and >= 0");
  if (!(options.recovery_speed > 0) || !std::isfinite(options.recovery_speed)) bad("recovery_speed", options.recovery_speed, "finite and > 0");
  if (!(options.restitution >= 0 && options.restitution <= 1)) bad("restitution", options.restitution, "in [0, 1]");
  if (!(options.bounce_threshold >= 0) || !std::isfinite(options.bounce_threshold)) bad("bounce_threshold", options.bounce_threshold, "finite and >= 0");
  if (!std::isfinite(options.torsion_gap)) bad("torsion_gap", options.torsion_gap, "finite");
  if (!(options.min_margin >= 0) || !std::isfinite(options.min_margin)) bad("min_margin", options.min_margin, "finite and >= 0");
  if (!(options.pair_min_margin >= 0) || !std::isfinite(options.pair_min_margin))
    bad("pair_min_margin", options.pair_min_margin, "finite and >= 0");
  if (!(options.hold_depth >= 0) || !std::isfinite(options.hold_depth)) bad("hold_depth", options.hold_depth, "finite and >= 0");
  if (!(options.start_overlap >= 0) || !std::isfinite(options.start_overlap)) bad("start_overlap", options.start_overlap, "finite and >= 0");
}

}  // namespace

ContactSearch::ContactSearch(const Model& model) : options_(model.opt.contact) {
  check_options(options_);
  if (!model.contacts) return;  // the description switched contacts off: no search at all
  build_world(model);
  // geometric radius of each body about its CoM (the body frame's origin), for the speed bound
  // of its surface points
  radius_.assign(model.bodies.size(), 0.0);
  std::vector<double> sizes;  // the moving geoms' bounding radii
  for (size_t b = 0; b < model.bodies.size(); ++b)
    for (const Geom& g : model.bodies[b].geoms) {
      const Shape& shape = shape_of(g.type);
      if (!g.collision || !shape.bounded) continue;
      const double size = shape.bounding_radius(g);
      radius_[b] = std::max(radius_[b], g.pos.norm() + size + g.margin);
      sizes.push_back(size);
    }
  if (!sizes.empty()) {
    std::nth_element(sizes.begin(), sizes.begin() + sizes.size() / 2, sizes.end());
    geom_scale_ = sizes[sizes.size() / 2];
  }
  kinematic_trees(model, &tree_, &free_tree_);
}

void ContactSearch::build_world(const Model& model) {
  hfield_revisions_.clear();
  for (const HeightField& h : model.hfields) hfield_revisions_.push_back(h.revision);
  CollisionOptions co;
  co.ground = options_.ground;
  co.margin = options_.margin;
  co.default_friction = options_.friction;
  co.default_restitution = options_.restitution;
  co.exclude_joined = options_.exclude_joined;
  world_.emplace(model, co);
}

bool ContactSearch::hfields_changed(const Model& model) const {
  if (model.hfields.size() != hfield_revisions_.size()) return true;
  for (size_t i = 0; i < model.hfields.size(); ++i)
    if (model.hfields[i].revision != hfield_revisions_[i]) return true;
  return false;
}

void ContactSearch::update(const Model& model) {
  const ContactOptions& o = model.opt.contact;
  // heights set at run time (Model::set_hfield_data): the field's collision geometry anew
  if (world_ && hfields_changed(model)) build_world(model);
  if (o == options_) return;
  check_options(o);
  const bool reshaped = o.ground != options_.ground || o.margin != options_.margin ||
                        o.adaptive_margin != options_.adaptive_margin || o.friction != options_.friction ||
                        o.restitution != options_.restitution || o.exclude_joined != options_.exclude_joined;
  options_ = o;
  // (the start overlaps are the model's geometry's, kept: a new world finds the same pairs)
  if (reshaped && world_) build_world(model);
}

bool ContactSearch::separable(int a, int b) const {
  if (a == kWorld) return free_tree_[tree_[b]];
  return tree_[a] != tree_[b] && (free_tree_[tree_[a]] || free_tree_[tree_[b]]);
}

// Pairs overlapping at the start that the joints may keep together: ignored until they have
// separated (a pair is separated once none of its points penetrates).
void ContactSearch::update_start_overlaps() {
  if (!overlaps_started_) {
    overlaps_started_ = true;
    for (const ContactCandidate& k : candidates_)
      if (k.distance < -options_.start_overlap && !separable(k.body_a, k.body_b)) overlaps_.push_back(geom_pair_key(k));
    std::sort(overlaps_.begin(), overlaps_.end());
    overlaps_.erase(std::unique(overlaps_.begin(), overlaps_.end()), overlaps_.end());
    // (several points per pair: no allocation in later searches)
    overlaps_.reserve(kMaxPairPoints * overlaps_.size());
    still_overlapping_.reserve(kMaxPairPoints * overlaps_.size());
  }
  if (!overlaps_.empty()) {
    still_overlapping_.clear();
    for (const ContactCandidate& k : candidates_)
      if (k.distance < 0 && std::binary_search(overlaps_.begin(), overlaps_.end(), geom_pair_key(k)))
        still_overlapping_.push_back(geom_pair_key(k));
    std::sort(still_overlapping_.begin(), still_overlapping_.end());
    still_overlapping_.erase(std::unique(still_overlapping_.begin(), still_overlapping_.end()), still_overlapping_.end());
    overlaps_.swap(still_overlapping_);  // the separated ones are contacts again from now on
  }
}

bool ContactSearch::kept(const ContactCandidate& k) const {
  return (options_.self_collision || k.body_a == kWorld) &&
         (overlaps_.empty() || !std::binary_search(overlaps_.begin(), overlaps_.end(), geom_pair_key(k)));
}

// Recovery (ContactOptions::recovery_speed) relaxes all candidates of one body pair and one
// normal by the same depth, that of the deepest: the pair's constraints are those of the pair
// moved apart along the normal, so only features that touch first in a real configuration are
// active together. Relaxed by their own depths, every penetrating feature would be active at
// once whatever the geometry (a box's four corners and the sphere centred under them: five
// normal rows of rank 3, impulses free in their null space, sliding friction directions the
// interior point cannot settle). deep: some kept candidate is deeper than the recovery allows.
double ContactSearch::recovery_depth(const ContactCandidate& k, bool deep) const {
  double depth = -k.distance;
  if (!deep) return depth;
  for (const ContactCandidate& o : candidates_) {
    if (!(o.distance < -depth) || !kept(o)) continue;
    // the same relative translation: the same ordered pair and normal, or the pair swapped
    // and the normal reversed (parallel to the collision routines' round-off)
    const double along = o.normal.dot(k.normal);
    if ((o.body_a == k.body_a && o.body_b == k.body_b && along > 1 - 1e-9) ||
        (o.body_a == k.body_b && o.body_b == k.body_a && along < -(1 - 1e-9)))
      depth = -o.distance;
  }
  return depth;
}

void ContactSearch::collide(const Model& m, Data& d, double dt, bool pair_margins) {
  update(m);
  deferred_.clear();
  if (!world_) return;
  // the floor no larger than a typical geom: on a small creature (a rodent's bones, 8 mm) a
  // floor of centimetres makes every pair of its limbs a candidate at rest ((42))
  const double floor = std::min(options_.min_margin, geom_scale_);
  const double fall = m.opt.gravity.norm() * dt;
  pair_margins = pair_margins && options_.adaptive_margin && options_.pair_margin;
  if (options_.adaptive_margin) {
    speed_.resize(d.v.size());
    double v_max = 0;
    for (size_t b = 0; b < d.v.size(); ++b) {
      speed_[b] = d.v[b].norm() + d.w[b].norm() * radius_[b];
      v_max = std::max(v_max, speed_[b]);
    }
    const double reach = 2.0 * dt * (2.0 * v_max + fall);
    world_->set_margin(std::min(options_.margin, floor + reach));
  }
  // (after missed() found a pair beyond the whole margin that the step's motion could close: this
  // search, the step's second, reaches as far as that motion, once)
  const double whole = world_->options().margin;
  margin_ = !pair_margins && motion_margin_ > whole ? motion_margin_ : whole;
  motion_margin_ = 0;
  if (margin_ != whole) world_->set_margin(margin_);
  world_->find_candidates(d.x, d.q, &candidates_);
  if (margin_ != whole) world_->set_margin(whole);
  if (pair_margins) {
    // each candidate within its own two bodies' reach; those left out are remembered (missed()).
    // Two moving bodies' pair of geoms is kept only if its nearest point lies within the reach
    // with the floor of pair_min_margin, and then with every point within the reach with the
    // margin's floor (the narrow phase lists a pair's points together: a turning pair's far
    // features stay listed as with the one floor)
    auto speed = [this](int b) { return b == kWorld ? 0.0 : speed_[b]; };
    const double pair_floor = std::min(options_.pair_min_margin, floor);
    size_t n = 0;
    for (size_t first = 0; first < candidates_.size();) {
      const std::uint64_t key = geom_pair_key(candidates_[first]);
      size_t last = first + 1;
      double nearest = candidates_[first].distance;
      for (; last < candidates_.size() && geom_pair_key(candidates_[last]) == key; ++last)
        nearest = std::min(nearest, candidates_[last].distance);
      const ContactCandidate& k = candidates_[first];
      const double reach = 2.0 * dt * (speed(k.body_a) + speed(k.body_b) + fall);
      const bool world = k.body_a == kWorld || k.body_b == kWorld;
      const bool pair_kept = world || nearest < std::min(options_.margin, pair_floor + reach) + k.margin;
      for (size_t i = first; i < last; ++i) {
        const ContactCandidate& c = candidates_[i];
        if (pair_kept && c.distance < std::min(options_.margin, floor + reach) + c.margin) {
          candidates_[n++] = c;
        } else if (kept(c)) {
          deferred_.push_back({c.body_a, c.body_b, c.distance});
        }
      }
      first = last;
    }
    candidates_.resize(n);
  }
  update_start_overlaps();
  const double recover = options_.recovery_speed * dt;
  bool deep = false;  // (none deeper than that, the usual case: no pair is relaxed at all)
  for (const ContactCandidate& k : candidates_) deep |= k.distance < -recover && kept(k);
  const bool linear_cone = options_.cone == FrictionCone::Linear;
  const bool relaxed_cone = options_.cone == FrictionCone::Relaxed;
  d.min_candidate_distance = 0;
  for (const ContactCandidate& k : candidates_) {
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
    // (ContactOptions::hold_depth: a shallow one held where it is)
    const double depth = recovery_depth(k, deep);
    c.offset = k.radius_a + k.radius_b - (depth < options_.hold_depth ? std::max(0.0, depth) : std::max(0.0, depth - recover));
    contact_set_normal(&c, k.normal);
    c.friction = k.friction;
    // (ContactOptions::torsion_gap; the pyramid and relaxed cones leave it out)
    c.torsion = k.distance < options_.torsion_gap ? k.torsion : 0.0;
    c.restitution = k.restitution;
    c.bounce_threshold = options_.bounce_threshold;
    c.linear_cone = linear_cone && c.friction > 0;
    c.relaxed_cone = relaxed_cone;
    d.min_candidate_distance = std::min(d.min_candidate_distance, k.distance);
  }
}

bool ContactSearch::missed(const Data& d, const std::vector<Vec3>& x3, const std::vector<Vec4>& q3) {
  if (!world_) return false;
  // a point at R from the centre of mass turns through the chord 2 R sin(θ/2)
  const int nb = static_cast<int>(x3.size());
  shift_.resize(nb);
  chord_.resize(nb);
  double first = 0, second = 0;  // the two largest motions
  for (int b = 0; b < nb; ++b) {
    const Vec4 turn = quat_mul(quat_conj(d.q[b]), q3[b]);
    const double half_sine = turn.tail<3>().norm() / turn.norm();
    shift_[b] = x3[b] - d.x[b];
    chord_[b] = 2.0 * half_sine * radius_[b];
    const double moved = shift_[b].norm() + chord_[b];
    if (moved > first) {
      second = first;
      first = moved;
    } else if (moved > second) {
      second = moved;
    }
  }
  auto moved = [&](int b) { return b == kWorld ? 0.0 : shift_[b].norm() + chord_[b]; };
  for (const Deferred& k : deferred_)
    if (k.distance <= moved(k.body_a) + moved(k.body_b)) return true;
  // A pair beyond the whole margin closes only if its bodies moved farther than the margin (a
  // leg whipped by a stiff servo within one step: the margin follows the speeds at the knot);
  // such a pair is judged by its bodies' relative motion, which a robot falling as a whole does
  // not have.
  if (first + second < margin_) return false;
  auto closing = [&](int a, int b) {
    if (a == kWorld || b == kWorld) return moved(a) + moved(b);
    return (shift_[b] - shift_[a]).norm() + chord_[a] + chord_[b];
  };
  const double reach = first + second;
  world_->set_margin(reach);
  world_->find_candidates(d.x, d.q, &candidates_);
  world_->set_margin(margin_);
  for (const ContactCandidate& k : candidates_)
    if (k.distance >= margin_ + k.margin && k.distance <= closing(k.body_a, k.body_b) && kept(k)) {
      motion_margin_ = reach;
      return true;
    }
  return false;
}

void enable_contacts(const Model& model, Data& data) {
  ContactSearch search(model);
  data.contact_search = std::move(search);
  if (!data.contact_search->active()) data.min_candidate_distance = 0;
}

// (FrictionCone is declared with the contact options in sim/options.hpp)
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
