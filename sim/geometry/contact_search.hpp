// The collide stage of a step with contacts: a Bullet-backed candidate search (sim/geometry/collision.hpp)
// turned into the solver's contacts at every knot, by a ContactSearch that a Data owns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/geometry/collision.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct Data;  // sim/data.hpp, which holds a Data's ContactSearch

// Friction cone model: the exact second-order cone ‖b‖ ≤ μγ (default), or its linearization
// with four directions: |b1| + |b2| ≤ μγ, the square inscribed in the
// circle — the full μγ along each tangent axis, μγ/√2 along the diagonals, and the sliding
// friction of a diagonal slide points along the nearest pyramid edge rather than against the
// velocity (the known price of the linearization). Relaxed: Anitescu's convex relaxation of the
// exact cone (RelaxedContact): Coulomb's friction with a sliding contact's gap held open by
// μΔt|v_t| over the step (the model of MuJoCo's and Drake's convex solvers, here without their
// compliance); sticking and separating contacts are exact.
enum class FrictionCone { Nonlinear, Linear, Relaxed };
const char* friction_cone_name(FrictionCone c);  // "nonlinear", "linear", "relaxed"
bool friction_cone_from_name(const std::string& name, FrictionCone* out);  // false: no such cone

struct ContactOptions {
  bool ground = true;          // the half-space z >= 0
  double friction = 0.8;       // default μ for geoms without their own (combined with max)
  // Candidate search margin [m], added to geom margins: must cover the approach within one step
  // (a contact found too late starts deep and is pushed out at recovery_speed); 0.1 covers a leg
  // swung through another by a legged robot's fastest joints.
  double margin = 0.1;
  // Adaptive margin: each step searches within min_margin + 2Δt(2 v_max + |g|Δt), capped at
  // `margin`, where v_max bounds the speed of any body's geometry (|v| + |ω| R, R the body's
  // geometric radius about its CoM) — twice the distance any pair can close in one step. Slow
  // robots then carry only the contacts that matter. min_margin: contacts that enter cold at an
  // impact jam the interior point unless they are found this far ahead.
  bool adaptive_margin = true;
  double min_margin = 0.02;
  bool exclude_joined = true;  // the model's joint filter applies (Model::collision_filter)
  // Contacts between two moving bodies (a robot's own links, stacked objects). PyBullet turns a
  // URDF robot's self-collision off by default; switch it off here for the same behaviour.
  bool self_collision = true;
  // A contact found already penetrating (a body placed into the ground, a contact the search
  // found late) is pushed out at most this fast [m/s]: its gap constraint becomes
  // φ(z3) ≥ −max(0, depth − recovery_speed·Δt) instead of φ(z3) ≥ 0. A hard φ(z3) ≥ 0 would
  // remove any depth within one step and launch the body at depth/Δt (Baumgarte's problem,
  // without a spring). The depth is the deepest among the contacts of the same body pair with
  // the same normal, shared by all of them (the pair as if moved apart along the normal: a
  // shallower point is not made active with it). Pairs that do not penetrate are exact: their
  // constraints stay φ ≥ 0.
  double recovery_speed = 0.2;
  // Coefficient of restitution for geom pairs that declare none (Geom::restitution; pairs
  // combine with max). 0: perfectly inelastic hard contact. Impacts slower than
  // bounce_threshold [m/s] stay inelastic (see Contact::restitution).
  double restitution = 0;
  double bounce_threshold = 0.05;
  FrictionCone cone = FrictionCone::Nonlinear;
  // Geom pairs that overlap deeper than this [m] in the first search (the state the simulation
  // starts from) and that the joints may keep from separating — two bodies of one kinematic
  // tree, two trees neither of which is free (hung on a single floating joint to the world), or
  // a body of a tree fixed to the world against a world geom — are not contacts until they have
  // separated once (MoveIt's "collision by default" pairs). Meshes of neighbouring links that
  // overlap at every pose (a Panda's wrist), a slider that rests a little below its table:
  // demanding their separation at recovery_speed is an infeasible step, and the file's author
  // never meant them to touch. Pairs that can separate (a floating body in the ground, two free
  // bodies) are pushed apart at recovery_speed instead.
  double start_overlap = 1e-6;

  bool operator==(const ContactOptions&) const = default;
};

// The contact search of one Data: its options, its own collision world built from the model,
// and what it remembers between steps (the pairs that overlapped at the start). A copy builds a
// collision world of its own (Bullet objects are never shared) and keeps the original's state,
// so a copied Data steps exactly like the original; copies may run on different threads. It
// serves the Model it was built for, like the Data that holds it.
class ContactSearch {
 public:
  // Checks the options (std::invalid_argument naming the option) and builds the search. A model
  // whose description switches contacts off (Model::contacts == false) gets an inactive search.
  ContactSearch(const Model& model, const ContactOptions& options);

  const ContactOptions& options() const { return options_; }
  bool active() const { return world_.has_value(); }  // false: it finds nothing
  const CollisionWorld* world() const { return world_ ? &*world_ : nullptr; }

  // The collide stage of a step of length dt: appends the contacts at data's current knot to
  // data.contacts and sets data.min_candidate_distance (an inactive search does neither).
  void collide(const Model& model, Data& data, double dt);

 private:
  bool separable(int a, int b) const;  // the joints let bodies a and b (a may be kWorld) part
  bool kept(const ContactCandidate& k) const;  // not a switched-off self-collision or start overlap
  void update_start_overlaps();
  double recovery_depth(const ContactCandidate& k, bool deep) const;

  ContactOptions options_;
  std::optional<CollisionWorld> world_;
  std::vector<double> radius_;   // per body: geometric radius about its CoM (adaptive margin)
  std::vector<int> tree_;        // per body: its kinematic tree (bodies joined by joints)
  std::vector<char> free_tree_;  // per tree: attached to the world by nothing or one floating joint
  // geom pairs ignored while they overlap as at the start (ContactOptions::start_overlap), sorted
  bool overlaps_started_ = false;
  std::vector<std::uint64_t> overlaps_, still_overlapping_;
  std::vector<ContactCandidate> candidates_;  // scratch of every search
};

// Gives data a new contact search (ContactSearch above) with these options: every step then
// first searches contact candidates at the current knot. Nothing changes if the options throw.
void enable_contacts(const Model& model, Data& data, const ContactOptions& options = {});

// Deepest penetration among the current knot's candidates (0 if none penetrates): the
// physical check "contacts do not sink" uses this, independent of the solver's own slacks.
double max_penetration(const Data& data);

}  // namespace maxsim
