#include "sim/step.hpp"
#include "sim/step_stages.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/actuation.hpp"
#include "sim/constraints/equality.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/constraints/joint_limits.hpp"
#include "sim/constraints/tendon.hpp"
#include "sim/sensor/sensors.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/solver/assemble.hpp"
#include "sim/solver/inequality.hpp"
#include "sim/solver/solve.hpp"
#include "sim/solver/workspace.hpp"

namespace maxsim {

namespace {

// One attempt of the failure policy at a step or substep: its length, whether it starts cold (the
// last step's contacts not used as warm start), the interior point's settings and the cone.
struct Attempt {
  double dt = 0;
  bool cold = false;
  InteriorPointOptions interior_point;
  bool relaxed_cone = false;  // the relaxed cone on every surface contact (relaxed_fallback)
};

constexpr const char* kEnergyMomentumRefusal =
    "the energy-momentum integrator handles equality constraints only: no contacts, joint limits, "
    "joint friction, tendons, joint couplings or hinges through different points (integrator_support names them)";
constexpr const char* kNewmarkRefusal =
    "the newmark integrator handles joints only: no contacts, joint limits, joint friction, armature, tendons, "
    "joint couplings or nonholonomic constraints (integrator_support names them)";

}  // namespace

void advance_knot(const Model& model, Data& d) {
  Workspace& ws = workspace(d);
  const SystemLayout& layout = ws.layout;
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);
  const Eigen::VectorXd& s = ws.unknowns;
  for (int i = 0; i < layout.bodies; ++i) {
    d.x[i] = ws.x3[i];
    d.q[i] = ws.q3[i];
    scheme.advance(model, d, ws, i, layout.velocity(s, i), layout.angular(s, i));
  }
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->store(model, d, ws, s, k);
  d.time += ws.dt;
  scheme.finish_knot(model, d);
}

void find_inequalities(const Model& model, Data& d, double dt, bool pair_margins) {
  if (d.contact_search) d.contact_search->collide(model, d, dt, pair_margins);
  append_joint_limits(model, d, dt);
  append_tendon_limits(model, d, dt);
  d.limits_recheck = false;  // (both have read which limits the set state is beyond)
}

namespace {

// Restitution, step after an impact: a contact that continues one which closed in the last step
// at normal speed v⁻ must open at e v⁻ over this step, φ(z3) ≥ e v⁻ Δt (Newton's law on the
// interval velocities; the impact step itself ends at φ = 0 like every hard contact).
void apply_restitution(double dt, Data& d) {
  const auto& prev = workspace(d).previous_contacts;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    const int p = workspace(d).previous_match[c];
    if (ct.restitution <= 0 || p < 0) continue;
    const double bounce = ct.restitution * prev[p].impact_speed;
    if (bounce > ct.bounce_threshold) ct.offset += bounce * dt;
  }
}

// Records the normal approach speed (over the previous interval, at the witness points) of
// restitution contacts that closed in this step: active at z3 (gap within 10 µm) and not
// continuing a contact that was already closed.
void record_impacts(Data& d) {
  const auto& prev = workspace(d).previous_contacts;
  auto point_velocity = [&d](int body, const Vec3& p) -> Vec3 {
    if (body == kWorld) return Vec3::Zero();
    return d.v[body] + quat_rotate(d.q[body], d.w[body].cross(p));
  };
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    Contact& ct = d.contacts[c];
    ct.impact_speed = 0;
    if (ct.restitution <= 0 || ct.joint >= 0 || ct.slack > 1e-5) continue;
    const int p = workspace(d).previous_match[c];
    if (p >= 0 && prev[p].slack <= 1e-5) continue;  // already closed
    const double vn = ct.normal.dot(point_velocity(ct.body_b, ct.point_b) - point_velocity(ct.body_a, ct.point_a));
    if (vn < 0) ct.impact_speed = -vn;
  }
}

// collide: the inequalities of this step at the current knot (surface contacts, then joint
// limits and joint friction), each with its kind; the last step's are kept for warm starts
// unless the attempt starts cold
void collide(const Model& model, Data& d, const Attempt& attempt, bool pair_margins) {
  Workspace& ws = workspace(d);
  ws.previous_contacts.swap(d.contacts);
  if (attempt.cold) ws.previous_contacts.clear();
  d.contacts.clear();
  find_inequalities(model, d, attempt.dt, pair_margins);
  match_inequalities(ws.previous_contacts, d.contacts, &ws.previous_match, &ws.previous_scratch,
                     model.opt.interior_point.warm_match_radius);
  if (attempt.relaxed_cone)
    for (Contact& c : d.contacts) c.relaxed_cone = c.joint < 0 && c.tendon < 0;
  ws.kinds.resize(d.contacts.size());
  for (size_t c = 0; c < d.contacts.size(); ++c) ws.kinds[c] = &inequality_kind(d.contacts[c]);
}

// Inequality nodes are factored at their real size (InequalityKind::node_rows).
void size_nodes(Data& d) {
  Workspace& ws = workspace(d);
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const int node = ws.contact_node[c];
    const int rows = ws.kinds[c]->node_rows(d.contacts[c]);
    if (node >= 0 && ws.ldu.node_size(node) != rows) ws.ldu.set_node_size(node, rows);
  }
}

// Whether the model's joints close a kinematic loop (loop_joints), asked once per workspace: the
// models whose Newton start extrapolates (docs/computation.md (106)).
bool joints_close_loops(const Model& model, Workspace& ws) {
  if (ws.joints_close_loops < 0) {
    const std::vector<bool> in_loop = loop_joints(model);
    ws.joints_close_loops = std::find(in_loop.begin(), in_loop.end(), true) != in_loop.end();
  }
  return ws.joints_close_loops == 1;
}

// The unknowns' first guess: the previous velocities and row impulses (the inequalities' own
// start is the interior point's). On a model whose joints close loops, a step without
// inequalities that follows one of the same length adds the change of velocity that one made
// (docs/computation.md (106)): Newton's first iterate then misses the loop rows by O(Δt³)
// instead of O(Δt²), a miss that near a singular position the rows' near-null direction (the
// other branch) would take up. Trees have no such direction and keep the held velocities.
void warm_start(const Model& model, Data& d) {
  Workspace& ws = workspace(d);
  const SystemLayout& layout = ws.layout;
  Eigen::VectorXd& s = ws.unknowns;
  const IntegratorScheme& scheme = integrator_scheme(model.opt.integrator);
  bool extrapolate = joints_close_loops(model, ws) && d.contacts.empty() && ws.dt == model.opt.timestep &&
                     d.velocity_change_time == d.time;
  const double k = extrapolate ? scheme.warm_extrapolation(ws) : 0.0;
  // a body whose rotation per step the extrapolation changes by more than kMaxTurn is spinning
  // too fast for a linear guess of its rates (a torque-free body at 1.5 rad per step: the
  // held rates converge, the extrapolated ones need half steps)
  constexpr double kMaxTurn = 0.05;  // rad
  for (int i = 0; extrapolate && i < layout.bodies; ++i)
    extrapolate = k * d.velocity_change[i].tail<3>().norm() * ws.dt <= kMaxTurn;
  for (int i = 0; i < layout.bodies; ++i) {
    Vec3 v, w;
    if (scheme.recorded_start(d, ws, i, &v, &w)) {
      layout.velocity(s, i) = v;
      layout.angular(s, i) = w;
      continue;
    }
    if (extrapolate) {
      layout.velocity(s, i) = d.v[i] + k * d.velocity_change[i].head<3>();
      layout.angular(s, i) = scheme.warm_angular(d.w[i] + k * d.velocity_change[i].tail<3>(), ws.dt);
      continue;
    }
    layout.velocity(s, i) = d.v[i];
    layout.angular(s, i) = scheme.warm_angular(d.w[i], ws.dt);
  }
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->warm_start(model, d, ws, k, &s);
}

}  // namespace

namespace {
StepReport step_once(const Model& model, Data& d, const Attempt& attempt);

void save_state(const Data& d, SavedState* s) {  // copy-assignments: no allocation after the first
  s->time = d.time;
  s->x = d.x;
  s->v = d.v;
  s->w = d.w;
  s->q = d.q;
  s->acceleration = d.acceleration;
  s->newmark_mean = d.newmark_mean;
  s->row_acceleration = d.row_acceleration;
  s->acceleration_time = d.acceleration_time;
  s->joint_impulse = d.joint_impulse;
  s->nonholonomic_impulse = d.nonholonomic_impulse;
  s->joint_angle = d.joint_angle;
  s->tendon_impulse = d.tendon_impulse;
  s->tendon_length = d.tendon_length;
  s->coupling_impulse = d.coupling_impulse;
  s->min_candidate_distance = d.min_candidate_distance;
}

void restore_state(const SavedState& s, Data& d) {
  d.time = s.time;
  d.x = s.x;
  d.v = s.v;
  d.w = s.w;
  d.q = s.q;
  d.acceleration = s.acceleration;
  d.newmark_mean = s.newmark_mean;
  d.row_acceleration = s.row_acceleration;
  d.acceleration_time = s.acceleration_time;
  d.joint_impulse = s.joint_impulse;
  d.nonholonomic_impulse = s.nonholonomic_impulse;
  d.joint_angle = s.joint_angle;
  d.tendon_impulse = s.tendon_impulse;
  d.tendon_length = s.tendon_length;
  d.coupling_impulse = s.coupling_impulse;
  d.min_candidate_distance = s.min_candidate_distance;
}

bool has_joint_limit(const std::vector<Contact>& contacts) {
  for (const Contact& ct : contacts)
    if (is_joint_limit(ct)) return true;
  return false;
}

// `base` with its joint limits (and, with `contacts`, its surface contacts) compliant by c
// (docs/computation.md (114)) and at most `iterations` interior-point iterations
Attempt compliant_attempt(const Attempt& base, double c, bool contacts, int iterations) {
  Attempt compliant = base;
  compliant.interior_point.limit_compliance = c;
  if (contacts) compliant.interior_point.contact_compliance = c;
  compliant.interior_point.max_iterations = std::min(compliant.interior_point.max_iterations, iterations);
  return compliant;
}

// Steps after a failed settled start that start from the warm floors whatever the kinematic test
// says (the servo arm pressed onto its floor near a toggle: each settled first attempt of the
// wedge's tens of steps ran to the iteration cap, the unsettled one converged in ~5 iterations).
constexpr int kUnsettledSteps = 10;

// Failure policy: a step with contacts that does not converge is tried again — first, when it
// started settled, from the same warm start unsettled (kUnsettledSteps); then at full
// length, when it ended with a contact sliding into its surface (Painlevé's trap,
// SolverOptions::sticking_retry), cold with the sliding contacts started sticking — cold (without
// its warm start), then (SolverOptions::compliant_limit_fallback, or after a step that a compliant
// attempt ended) cold with compliant joint limits (and contacts),
// then (SolverOptions::conservative_retry, off by default) cold with the conservative interior
// point (no Mehrotra corrector) and once more from where that stopped, and only then as two half steps, recursively to max_retry_depth
// (the shortest substeps make the same attempts and a last warm one) before it is reported. A
// contact-free step goes straight to the half steps: the rotation update (omega_step_quat) needs
// |ω|Δt < 2, which a whipping chain tip can exceed; half steps double that bound. Each attempt is
// an Attempt value: its length, whether it starts cold, its interior-point settings, its cone.
StepReport step_with_retry(const Model& model, Data& d, int depth, const Attempt& attempt) {
  // The shortest substep's attempts are the last resort: each takes its whole iteration budget
  // (InteriorPointOptions::jammed_iterations ends a jammed attempt early only where a shorter
  // step can follow).
  Attempt first = attempt;
  if (depth <= 0) first.interior_point.jammed_iterations = 0;
  Workspace& ws = workspace(d);
  if (ws.saved.size() < static_cast<size_t>(depth + 1)) ws.saved.resize(depth + 1);  // once
  SavedState& saved = ws.saved[depth];
  save_state(d, &saved);
  // after a step that a compliant attempt ended (a wedge lasts many steps) a compliant attempt
  // follows the cold retry, at full length and in every substep; so it does in a step's substeps
  // after one of them gave way (docs/performance.md, "the wedge's substeps")
  const bool top = depth == model.opt.solver.max_retry_depth;
  if (top) ws.last_step_gave_way = ws.gave_way;
  const int after_wedge = top ? ws.gave_way : std::max(ws.last_step_gave_way, ws.gave_way);
  if (top) ws.gave_way = 0;
  if (top && ws.unsettled_steps > 0) --ws.unsettled_steps;
  ws.started_settled = false;
  const bool rigid = first.interior_point.limit_compliance <= 0 && first.interior_point.contact_compliance <= 0;
  // the nearly rigid attempt (SolverOptions::compliant_retry): warm, the limits and contacts
  // compliant by c; its answer stands if it gives by at most compliant_retry_give
  const SolverOptions& so = model.opt.solver;
  const bool retry_nearly_rigid = top && rigid && so.compliant_retry > 0;
  // the last step's inequalities, the nearly rigid attempt's warm start (the attempts before it
  // change d.contacts)
  std::vector<Contact> retry_contacts;
  auto nearly_rigid = [&](StepReport* out) {
    const Attempt attempt = compliant_attempt(first, so.compliant_retry, true, so.compliant_retry_iterations);
    d.contacts = retry_contacts;
    const int before = out->iterations;
    *out = step_once(model, d, attempt);
    out->iterations += before;
    if (out->status != StepStatus::Ok) return false;
    for (int c = 0; c < static_cast<int>(d.contacts.size()); ++c)
      if (!(compliance_epsilon(d, c) * d.contacts[c].gamma <= so.compliant_retry_give)) return false;
    return true;
  };
  StepReport rep;
  bool nearly_rigid_tried = false;  // (at most once a step)
  if (retry_nearly_rigid && ws.nearly_rigid_steps > 0) {
    // a wedge lasts: the step after one the nearly rigid attempt ended starts with it
    --ws.nearly_rigid_steps;
    nearly_rigid_tried = true;
    retry_contacts = d.contacts;  // (the last step's end: its warm start)
    if (nearly_rigid(&rep)) return rep;
    ws.nearly_rigid_steps = 0;
    restore_state(saved, d);
    d.contacts = retry_contacts;
  }
  {
    const int before = rep.iterations;
    rep = step_once(model, d, first);
    rep.iterations += before;
  }
  if (rep.status == StepStatus::Ok) return rep;
  // The retries below change only the interior point's start and settings: a step without
  // contacts (Newton's method) would repeat itself exactly, so it goes straight to the half steps,
  // and at the shortest substep it is reported as it ended.
  const bool interior_point = !d.contacts.empty();  // (the attempt's contact set)
  // At the shortest substep the step is reported as it ends if no attempt converges: the end of
  // the unconverged attempt with the smallest residual stands, not the last one's (an attempt
  // warm-started from another's unconverged end can run off to impulses of 1e4 N s).
  const bool shortest = depth <= 0 && interior_point;
  StepReport best;  // (status Ok: none kept yet)
  // (not a compliant attempt's end: its residual is of other equations, and such an end once
  // kicked the servo arm's joint to 1 800 rad/s)
  bool rep_compliant = false;  // rep is a compliant attempt's
  auto keep_if_best = [&]() {
    if (!shortest || rep.status != StepStatus::NotConverged || rep_compliant) return;
    if (best.status == StepStatus::NotConverged && !(rep.residual < best.residual)) return;
    best = rep;
    save_state(d, &ws.best_end);
    ws.best_end_contacts = d.contacts;
  };
  keep_if_best();
  // another attempt at this length; its report carries the iterations of all attempts so far
  auto attempt_again = [&](const Attempt& attempt) {
    const int before = rep.iterations;
    rep = step_once(model, d, attempt);
    rep.iterations += before;
    rep.relaxed = rep.relaxed || attempt.relaxed_cone;
    rep_compliant = attempt.interior_point.limit_compliance > first.interior_point.limit_compliance ||
                    attempt.interior_point.contact_compliance > first.interior_point.contact_compliance;
    keep_if_best();
  };
  if (top && ws.started_settled) {
    // A first attempt that started settled and failed: the kinematic test took a wedge for a
    // resting contact (its impulse grows from step to step while nothing moves). The same attempt
    // again from the same warm start with the warm floors, and no settled start for the next
    // kUnsettledSteps steps: the wedge lasts (docs/computation.md (62)).
    ws.unsettled_steps = kUnsettledSteps + 1;  // (this step's retry, then the next steps')
    restore_state(saved, d);
    d.contacts.swap(ws.previous_contacts);  // (the last step's end: the first attempt's warm start)
    attempt_again(first);
    if (rep.status == StepStatus::Ok) return rep;
  }
  Attempt warm = first;  // (the same length, warm from where the last attempt stopped)
  warm.cold = false;
  Attempt cold = warm;
  cold.cold = true;
  // a compliant attempt (docs/computation.md (114)): cold, the joint limits compliant and, with
  // `contacts`, the surface contacts too; reported relaxed, its unconverged end never kept
  auto attempt_compliant = [&](bool contacts) {
    if (!contacts && !has_joint_limit(d.contacts)) return false;
    attempt_again(compliant_attempt(cold, so.limit_fallback_compliance, contacts, first.interior_point.compliant_iterations));
    if (rep.status != StepStatus::Ok) return false;
    rep.relaxed = true;
    ws.gave_way = contacts ? 2 : 1;
    return true;
  };
  if (!interior_point && depth <= 0) {
    // the shortest substep of a step without contacts: its loops made compliant, once
    // (SolverOptions::compliant_loop_fallback), reported as it ends
    if (!model.opt.solver.compliant_loop_fallback) return rep;
    const std::vector<bool> in_loop = loop_joints(model);
    if (std::find(in_loop.begin(), in_loop.end(), true) == in_loop.end()) return rep;
    restore_state(saved, d);
    ws.loop_compliance.assign(model.joints.size(), 0.0);
    for (size_t j = 0; j < model.joints.size(); ++j)
      if (in_loop[j]) {
        const Joint& jt = model.joints[j];
        const int body = jt.child != kWorld ? jt.child : jt.parent;
        ws.loop_compliance[j] = model.opt.solver.loop_compliance * first.dt / model.bodies[body].mass;
      }
    attempt_again(warm);
    ws.loop_compliance.clear();
    rep.relaxed = true;
    d.report = rep;
    return rep;
  }
  restore_state(saved, d);
  if (interior_point) {
    // (the last step's end, the first attempt's warm start: the cold attempts below clear it)
    if (retry_nearly_rigid) retry_contacts = ws.previous_contacts;
    // (where nothing slid at the first attempt's start a sticking start changes nothing: the
    // attempt would repeat a cold one)
    if (model.opt.solver.sticking_retry && top && ws.sliding_at_start > 0 &&
        sliding_into_surface(d, model.opt.solver.tolerance, first.interior_point.settled_speed)) {
      // Painlevé's trap (SolverOptions::sticking_retry): the same step cold, the sliding contacts
      // started sticking; at full length only (in the substeps of a wedge it found nothing and
      // doubled the A1 URDF's relaxed steps)
      Attempt sticking = cold;
      sticking.interior_point.sticking_start = true;
      attempt_again(sticking);
      if (rep.status == StepStatus::Ok) return rep;
      restore_state(saved, d);
    }
    if (first.interior_point.warm_start && !ws.previous_contacts.empty()) {
      // the warm start (last impulses, small floors) may have misled it: the same step cold first
      Attempt retry = cold;
      attempt_again(retry);
      if (rep.status == StepStatus::Ok) return rep;
      restore_state(saved, d);
    }
    if (retry_nearly_rigid && !nearly_rigid_tried) {
      // a wedge's squeeze, which the rigid equations leave free, fixed by a compliance whose give
      // is within the contracts (SolverOptions::compliant_retry); the attempts below read how the
      // last one ended
      std::vector<Contact> last_end;
      last_end.swap(d.contacts);
      if (nearly_rigid(&rep)) {
        // (only a step the rigid attempts left starts the memory: where the wedge has ended, the
        // rigid first attempt is the cheaper one again)
        ws.nearly_rigid_steps = so.compliant_retry_steps;
        return rep;
      }
      restore_state(saved, d);
      d.contacts.swap(last_end);
    }
    const bool early_limits = model.opt.solver.compliant_limit_fallback && has_joint_limit(d.contacts);
    if (rigid && (early_limits || after_wedge)) {
      // a wedge (a contact self-locking against joint limits, or against other contacts through
      // the joints that carry it) has an unbounded squeeze: the same length, compliant
      if (attempt_compliant(after_wedge == 2)) return rep;
      restore_state(saved, d);
    }
    if (model.opt.solver.conservative_retry && first.interior_point.mehrotra_corrector) {
      // then cold and conservative: Mehrotra's second-order correction off, steps kept farther
      // from the cone boundaries (InteriorPointOptions::conservative_fraction_to_boundary)
      Attempt conservative = cold;
      conservative.interior_point.mehrotra_corrector = false;
      conservative.interior_point.fraction_to_boundary = first.interior_point.conservative_fraction_to_boundary;
      conservative.interior_point.full_predictor_fraction = 0;
      attempt_again(conservative);
      if (rep.status == StepStatus::Ok) return rep;
      restore_state(saved, d);
      if (rep.status == StepStatus::NotConverged) {
        // and once more with the usual iteration, started from where the conservative one
        // stopped (d.contacts keeps its impulses: step_once warm-starts persisting contacts)
        attempt_again(warm);
        if (rep.status == StepStatus::Ok) return rep;
        restore_state(saved, d);
      }
    }
    // the shortest substep: a last attempt, warm from where the previous one stopped, then one
    // cold with the proximal term on the gap rows (InteriorPointOptions::proximal_retry: exact if
    // it converges), then (SolverOptions::compliant_last_resort) one cold with compliant joint
    // limits (and compliant_contacts_last_resort: one with the contacts too), then
    // (InteriorPointOptions::relaxed_fallback) one cold with the relaxed cone;
    // if none converges, the best unconverged end stands (keep_if_best)
    if (depth <= 0) {
      attempt_again(warm);
      if (rep.status != StepStatus::Ok && first.interior_point.proximal_retry > 0) {
        restore_state(saved, d);
        Attempt proximal = cold;
        proximal.interior_point.proximal = first.interior_point.proximal_retry;
        attempt_again(proximal);
        if (rep.status == StepStatus::Ok) return rep;
      }
      if (rep.status != StepStatus::Ok && model.opt.solver.compliant_last_resort && rigid) {
        // a wedge that no rigid attempt resolved: the limits compliant first (the contacts stay
        // exact), then the contacts too
        restore_state(saved, d);
        bool gave_way = attempt_compliant(false);
        if (!gave_way && model.opt.solver.compliant_contacts_last_resort) {
          restore_state(saved, d);
          gave_way = attempt_compliant(true);
        }
        if (gave_way) {
          d.report = rep;
          return rep;
        }
      }
      if (rep.status != StepStatus::Ok && first.interior_point.relaxed_fallback) {
        restore_state(saved, d);
        Attempt relaxed = cold;
        relaxed.relaxed_cone = true;
        attempt_again(relaxed);
      }
      // (a compliant attempt's unconverged end, when no relaxed-cone attempt followed it, is not
      // comparable: its residual is of other equations)
      const bool best_is_better = rep.status == StepStatus::Failed || rep_compliant || best.residual < rep.residual;
      if (rep.status != StepStatus::Ok && best.status == StepStatus::NotConverged && best_is_better) {
        const int iterations = rep.iterations;
        rep = best;
        rep.iterations = iterations;
        restore_state(ws.best_end, d);
        d.contacts.swap(ws.best_end_contacts);
      }
      d.report = rep;
      return rep;
    }
  }
  // two half steps, the first of them cold
  Attempt half = cold;
  half.dt = 0.5 * first.dt;
  StepReport total;
  total.iterations = rep.iterations;  // the attempts at this length count too: iterations are work
  for (int k = 0; k < 2; ++k) {
    half.cold = k == 0;
    const StepReport r = step_with_retry(model, d, depth - 1, half);
    total.iterations += r.iterations;
    total.residual = std::max(total.residual, r.residual);
    total.relaxed = total.relaxed || r.relaxed;
    if (r.status != StepStatus::Ok) total.status = r.status;
    if (r.status == StepStatus::Failed) break;
  }
  total.substeps = true;
  d.report = total;
  return total;
}
}  // namespace

std::string integrator_support(const Model& model, const Data& d) {
  const Integrator integrator = model.opt.integrator;
  if (integrator == Integrator::Variational) return "";
  const bool newmark = integrator == Integrator::Newmark;
  std::string what;
  auto add = [&what](const std::string& item) { what += (what.empty() ? "" : ", ") + item; };
  if (d.contact_search && d.contact_search->active()) {
    // only a pair of geoms that can ever touch makes contacts possible
    const auto [a, b] = d.contact_search->world()->first_possible_pair();
    auto name = [&model](int body) { return body == kWorld ? std::string("the world") : "body '" + model.bodies[body].name + "'"; };
    if (a != -2) add("contacts (" + name(a) + " and " + name(b) + " can touch)");
  }
  for (const Joint& jt : model.joints) {
    bool friction = false;
    for (double f : jt.friction) friction = friction || f != 0;
    if (jt.has_limits || friction) {
      add(std::string("joint ") + (jt.has_limits ? "limits" : "friction") + " (joint '" + jt.name + "')");
      break;
    }
  }
  if (!model.tendons.empty() || !model.couplings.empty()) add("tendons or joint couplings");
  if (newmark) {
    for (const Joint& jt : model.joints) {  // (a row's inertia: first order only, docs/computation.md §18)
      bool armature = false;
      for (double a : jt.armature) armature = armature || a != 0;
      if (armature) {
        add("armature (joint '" + jt.name + "')");
        break;
      }
    }
    if (!model.nonholonomic.empty()) add("nonholonomic constraints");
  } else {
    for (const Joint& jt : model.joints)  // its translational rows have no offset chain (98)
      if (jt.hinge_offsets()) {
        add("hinges through different points (joint '" + jt.name + "')");
        break;
      }
  }
  if (what.empty()) return "";
  return std::string("the ") + integrator_name(integrator) + " integrator handles " +
         (newmark ? "joints only" : "equality constraints only") + ", not " + what +
         "; use the variational integrator, or switch them off";
}

namespace {
// Data::velocity_change after a step of a model with loops that started at ws.start: kept only
// for one solve of the full Δt without inequalities (the next step's predictor,
// docs/computation.md (106)).
void record_velocity_change(Data& d, const StepReport& rep) {
  const Workspace& ws = workspace(d);
  if (rep.status != StepStatus::Ok || rep.substeps || !d.contacts.empty()) {
    d.velocity_change_time = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  for (size_t i = 0; i < d.v.size(); ++i) {
    d.velocity_change[i].head<3>() = d.v[i] - ws.start.v[i];
    d.velocity_change[i].tail<3>() = d.w[i] - ws.start.w[i];
  }
  d.velocity_change_time = d.time;
}

// An interior-point option that must be finite and >= 0: std::invalid_argument naming it.
void require_finite_nonnegative(double value, const char* name) {
  if (!(value >= 0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("interior_point.") + name + " must be finite and >= 0 (got " +
                                std::to_string(value) + ")");
}
}  // namespace

StepReport step(const Model& model, Data& d) {
  // the contact options as the model holds them now (a bad one throws here, before any change)
  if (d.contact_search) d.contact_search->update(model);
  if (!newmark_parameters_valid(model.opt.newmark_beta, model.opt.newmark_gamma))
    throw std::invalid_argument("newmark_beta must be in (0, 0.5] and newmark_gamma in [0.5, 1] (got " +
                                std::to_string(model.opt.newmark_beta) + ", " +
                                std::to_string(model.opt.newmark_gamma) + ")");
  if (!(model.opt.interior_point.cone_weight > 0) || !std::isfinite(model.opt.interior_point.cone_weight))
    throw std::invalid_argument("interior_point.cone_weight must be finite and positive (got " +
                                std::to_string(model.opt.interior_point.cone_weight) + ")");
  require_finite_nonnegative(model.opt.interior_point.cone_direction_tolerance, "cone_direction_tolerance");
  if (model.opt.interior_point.jammed_iterations < 0 || model.opt.interior_point.jammed_iterations > 64)
    throw std::invalid_argument("interior_point.jammed_iterations must be in [0, 64] (got " +
                                std::to_string(model.opt.interior_point.jammed_iterations) + ")");
  if (model.opt.interior_point.jammed_window < 1 || model.opt.interior_point.jammed_window > 64)
    throw std::invalid_argument("interior_point.jammed_window must be in [1, 64] (got " +
                                std::to_string(model.opt.interior_point.jammed_window) + ")");
  if (model.opt.interior_point.settled_iterations < 0)
    throw std::invalid_argument("interior_point.settled_iterations must be >= 0 (got " +
                                std::to_string(model.opt.interior_point.settled_iterations) + ")");
  if (model.opt.interior_point.compliant_iterations < 1)
    throw std::invalid_argument("interior_point.compliant_iterations must be >= 1 (got " +
                                std::to_string(model.opt.interior_point.compliant_iterations) + ")");
  if (!(model.opt.interior_point.jammed_alpha > 0 && model.opt.interior_point.jammed_alpha <= 1))
    throw std::invalid_argument("interior_point.jammed_alpha must be in (0, 1] (got " +
                                std::to_string(model.opt.interior_point.jammed_alpha) + ")");
  for (const double p : {model.opt.interior_point.proximal, model.opt.interior_point.proximal_retry})
    if (!(p >= 0) || !std::isfinite(p))
      throw std::invalid_argument("interior_point.proximal and proximal_retry must be finite and >= 0 (got " +
                                  std::to_string(p) + ")");
  if (!(model.opt.interior_point.centering_scale > 0 && model.opt.interior_point.centering_scale <= 1))
    throw std::invalid_argument("interior_point.centering_scale must be in (0, 1] (got " +
                                std::to_string(model.opt.interior_point.centering_scale) + ")");
  if (!(model.opt.interior_point.full_predictor_fraction >= 0 && model.opt.interior_point.full_predictor_fraction < 1))
    throw std::invalid_argument("interior_point.full_predictor_fraction must be in [0, 1) (got " +
                                std::to_string(model.opt.interior_point.full_predictor_fraction) + ")");
  require_finite_nonnegative(model.opt.interior_point.joint_friction_rate, "joint_friction_rate");
  require_finite_nonnegative(model.opt.interior_point.joint_friction_start_rate, "joint_friction_start_rate");
  require_finite_nonnegative(model.opt.interior_point.warm_match_radius, "warm_match_radius");
  require_finite_nonnegative(model.opt.interior_point.limit_compliance, "limit_compliance");
  require_finite_nonnegative(model.opt.interior_point.contact_compliance, "contact_compliance");
  if (!(model.opt.solver.limit_fallback_compliance > 0) || !std::isfinite(model.opt.solver.limit_fallback_compliance))
    throw std::invalid_argument("solver.limit_fallback_compliance must be finite and > 0 (got " +
                                std::to_string(model.opt.solver.limit_fallback_compliance) + ")");
  if (!numerical_damping_valid(model.opt.numerical_damping))
    throw std::invalid_argument("numerical_damping must be in [0, 0.5] (got " +
                                std::to_string(model.opt.numerical_damping) + ")");
  const SolverOptions& so = model.opt.solver;
  if (!(so.compliant_retry >= 0) || !std::isfinite(so.compliant_retry) || so.compliant_retry_iterations < 1 ||
      so.compliant_retry_steps < 0 || !(so.compliant_retry_give >= 0))
    throw std::invalid_argument(
        "SolverOptions: compliant_retry must be finite and >= 0, compliant_retry_iterations >= 1, "
        "compliant_retry_steps >= 0 and compliant_retry_give >= 0");
  if (!limit_recovery_time_valid(model.opt.limit_recovery_time))
    throw std::invalid_argument("limit_recovery_time must be >= 0 (got " +
                                std::to_string(model.opt.limit_recovery_time) + ")");
  // control: the controller reads the state at t and sets the inputs held over [t, t + dt]
  // (once per step, also when the failure policy splits the step into substeps)
  if (d.controller) d.controller(model, d);
  apply_actuation(model, d);  // Data::ctrl → row forces, from the state at t like the controller's
  if (model.opt.integrator != Integrator::Variational && !integrator_support(model, d).empty()) {
    StepReport refused;
    refused.status = StepStatus::Failed;
    refused.reason = model.opt.integrator == Integrator::Newmark ? kNewmarkRefusal : kEnergyMomentumRefusal;
    d.report = refused;
    return refused;
  }
  Attempt first;
  first.dt = model.opt.timestep;
  first.interior_point = model.opt.interior_point;
  // the start's velocities for the sensors' accelerations and the loops' predictor, its
  // orientations for the sensors (copy-assignments: no allocation after the first step)
  Workspace& ws = workspace(d);
  StepStart& start = ws.start;
  const bool sensors = !model.sensors.empty() && model.opt.sensors;
  const bool loops = joints_close_loops(model, ws);
  if (sensors || loops) {
    start.v = d.v;
    start.w = d.w;
  }
  if (sensors) start.q = d.q;
  const StepReport rep = step_with_retry(model, d, model.opt.solver.max_retry_depth, first);
  if (loops) record_velocity_change(d, rep);
  if (sensors) step_sensors(model, d, start);
  return rep;
}

namespace {
// controller (in step()) → collide → constraints → assemble and solve → advance
StepReport step_once(const Model& model, Data& d, const Attempt& attempt) {
  Workspace& ws = workspace(d);
  ws.dt = attempt.dt;
  ws.knot_weight = 0.5 + model.opt.numerical_damping;
  const bool accelerations = d.acceleration_time == d.time && d.acceleration.size() == d.v.size();
  ws.newmark_beta = accelerations ? model.opt.newmark_beta : 0.5;
  ws.newmark_gamma = accelerations ? model.opt.newmark_gamma : 1.0;
  StepReport rep;
  int before = 0;
  for (const bool pair_margins : {true, false}) {
    collide(model, d, attempt, pair_margins);
    if (!graph_matches(model, d)) build_graph(model, d);  // the graph changes only with the set's shape
    size_nodes(d);
    apply_restitution(attempt.dt, d);

    step_prepare(model, d);  // knot quantities of z2: joint rows, impulse maps
    warm_start(model, d);
    rep = d.contacts.empty() ? solve_newton(model, d) : solve_interior_point(model, d, attempt.interior_point);
    rep.iterations += before;
    d.report = rep;
    // a candidate left out by the margin per pair that the step's motion could have closed: the
    // step again with every candidate within the whole margin (ContactOptions::pair_margin,
    // docs/computation.md (123)), warm-started as the first was (an attempt that did not converge
    // is the failure policy's: its end is no motion to judge by)
    if (!pair_margins || rep.status != StepStatus::Ok || !d.contact_search ||
        !d.contact_search->missed(d, ws.x3, ws.q3))
      break;
    before = rep.iterations;
    d.contacts.swap(ws.previous_contacts);
  }

  if (rep.status != StepStatus::Failed) {
    record_impacts(d);
    advance_knot(model, d);
  }
  return rep;
}
}  // namespace

}  // namespace maxsim
