// The collide stage of a step with contacts: a Bullet-backed candidate search (sim/collision.hpp)
// turned into the solver's contacts at every knot.
#pragma once

#include <string>

#include "sim/collision.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Friction cone model (seed 003 §3.3): the exact second-order cone ‖b‖ ≤ μγ (default), or its
// linearization with four directions (eq. 27): |b1| + |b2| ≤ μγ, the square inscribed in the
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
  // (a contact found too late starts deep and is pushed out at recovery_speed). 0.1: under random
  // PD, ANYmal's URDF swings a shank through the other leg's thigh (its knees turn ±9.4 rad) and
  // with a 5 cm cap the pair was found 17 cm deep; the steps that followed did not converge.
  double margin = 0.1;
  // Adaptive margin: each step searches within min_margin + 2Δt(2 v_max + |g|Δt), capped at
  // `margin`, where v_max bounds the speed of any body's geometry (|v| + |ω| R, R the body's
  // geometric radius about its CoM) — twice the distance any pair can close in one step. Slow
  // robots then carry only the contacts that matter (the A1 standing: 30 instead of 38
  // candidates, the box corners of its calves stay out). min_margin = 0.02: with 0.005 the A1
  // drop at Δt = 0.001 left 6–8 of 2000 steps unconverged (contacts entering cold at the
  // trunk's impact jammed the interior point); with 0.02 none, and fewer iterations than the
  // fixed 5 cm (12 instead of 13–14 per step on that suite).
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
};

// Sets data.collide so that every step first searches contact candidates at the current knot.
// The collision world is built here, once; it belongs to this Data (copies of the Data share it,
// so give each thread its own Data and call enable_contacts for each). A model whose description
// switches contacts off (Model::contacts == false) gets no search: data.collide is cleared.
void enable_contacts(const Model& model, Data& data, const ContactOptions& options = {});

// Deepest penetration among the current knot's candidates (0 if none penetrates): the
// physical check "contacts do not sink" uses this, independent of the solver's own slacks.
double max_penetration(const Data& data);

}  // namespace maxsim
