// The collide stage of a step with contacts: a Bullet-backed candidate search (sim/geometry/collision.hpp)
// turned into the solver's contacts at every knot, by a ContactSearch that a Data owns.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/geometry/collision.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct Data;  // sim/data.hpp, which holds a Data's ContactSearch

// The contact search of one Data: its own collision world built from the model and its contact
// options (Model::opt.contact), and what it remembers between steps (the pairs that overlapped at
// the start). It reads the options from the model at every search, so a change to
// model.opt.contact applies from the next step, as any other option does; the collision world is
// rebuilt then if the change reshapes it. A copy builds a collision world of its own (Bullet
// objects are never shared) and keeps the original's state, so a copied Data steps exactly like
// the original; copies may run on different threads. It serves the Model it was built for, like
// the Data that holds it.
class ContactSearch {
 public:
  // Checks model.opt.contact (std::invalid_argument naming the option) and builds the search. A
  // model whose description switches contacts off (Model::contacts == false) gets an inactive search.
  explicit ContactSearch(const Model& model);

  bool active() const { return world_.has_value(); }  // false: it finds nothing
  const CollisionWorld* world() const { return world_ ? &*world_ : nullptr; }  // null when inactive

  // Takes model.opt.contact if it changed since the last search: checks it (std::invalid_argument
  // naming the option, the search unchanged) and rebuilds the collision world if the change
  // reshapes it (ground, margin, adaptive_margin, default friction or restitution, exclude_joined)
  // or a height field's data changed (HeightField::revision, Model::set_hfield_data).
  void update(const Model& model);

  // Rebuilds the collision world from `model` (a copy whose geoms' friction, restitution or
  // shapes differ), keeping what the search remembers between steps. An inactive search stays so.
  void rebuild(const Model& model) {
    if (world_) build_world(model);
  }

  // The collide stage of a step of length dt: appends the contacts at data's current knot to
  // data.contacts and sets data.min_candidate_distance (an inactive search does neither).
  // pair_margins: the margin per pair (ContactOptions::pair_margin) if the options ask for it;
  // false searches every pair within the whole margin.
  void collide(const Model& model, Data& data, double dt, bool pair_margins = true);

  // Whether a pair of geoms the last search did not make a contact could have closed over the
  // motion from data's knot to (x3, q3): its distance not more than the distance its two bodies'
  // geometry moved (|Δx| + 2 sin(θ/2) R each) — a candidate left out by the margin per pair, or,
  // when two bodies moved farther than the whole margin, a pair beyond it (searched again at the
  // knot within their motion, the pair judged by its bodies' relative motion). Then that step
  // must be solved again with collide(..., false), which then searches within that motion
  // (docs/computation.md (123)).
  bool missed(const Data& data, const std::vector<Vec3>& x3, const std::vector<Vec4>& q3);

 private:
  void build_world(const Model& model);
  bool separable(int a, int b) const;
  bool hfields_changed(const Model& model) const;  // a revision differs from the world's  // the joints let bodies a and b (a may be kWorld) part
  bool kept(const ContactCandidate& k) const;  // not a switched-off self-collision or start overlap
  void update_start_overlaps();
  double recovery_depth(const ContactCandidate& k, bool deep) const;

  ContactOptions options_;  // the model's options as of the last search
  std::optional<CollisionWorld> world_;
  std::vector<double> radius_;   // per body: geometric radius about its CoM (adaptive margin)
  std::vector<double> speed_;    // per body: |v| + |ω| R at the last search (adaptive margin)
  double geom_scale_ = INFINITY; // the median bounding radius of the bodies' collision geoms (adaptive margin)
  std::vector<int> tree_;        // per body: its kinematic tree (bodies joined by joints)
  std::vector<char> free_tree_;  // per tree: attached to the world by nothing or one floating joint
  // geom pairs ignored while they overlap as at the start (ContactOptions::start_overlap), sorted
  bool overlaps_started_ = false;
  std::vector<std::uint64_t> overlaps_, still_overlapping_;
  std::vector<ContactCandidate> candidates_;  // scratch of every search
  // the last search's candidates left out by the margin per pair (missed())
  struct Deferred {
    int body_a, body_b;
    double distance;
  };
  std::vector<Deferred> deferred_;
  double margin_ = 0;          // the whole margin of the last search [m]
  double motion_margin_ = 0;   // the next search's margin when missed() found a pair beyond it
  std::vector<Vec3> shift_;    // scratch of missed(): per body, its CoM's motion over the step
  std::vector<double> chord_;  // ... and the chord its farthest geometry turned through
  std::vector<unsigned long> hfield_revisions_;  // HeightField::revision the world was built with
};

// Gives data a new contact search (ContactSearch above) with the model's contact options
// (Model::opt.contact): every step then first searches contact candidates at the current knot.
// Nothing changes if the options throw.
void enable_contacts(const Model& model, Data& data);

// Deepest penetration among the current knot's candidates (0 if none penetrates): the
// physical check "contacts do not sink" uses this, independent of the solver's own slacks.
double max_penetration(const Data& data);

}  // namespace maxsim
