// Tendon lengths, couplings' coordinates and the tendon limits of a step (see tendon.hpp).
#include "sim/constraints/tendon.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/constraints/joint_limits.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/tendon/spatial.hpp"

namespace maxsim {

double gradient_rate(const BodyGradient& gradient, const Data& d) {
  double rate = 0;
  for (const auto& [b, g] : gradient) rate += g.head<3>().dot(d.v[b]) + g.tail<3>().dot(d.w[b]);
  return rate;
}

void add_body_gradient(BodyGradient* out, int body, const Vec6& g, double scale) {
  if (body == kWorld) return;
  for (auto& [b, v] : *out)
    if (b == body) {
      v += scale * g;
      return;
    }
  out->emplace_back(body, scale * g);
}

double joint_row_value(const JointRows& rows, int r, double angle) {
  return r < 3 ? rows.c(r) : angle + wrap_angle(rows.c(r) - angle);
}

void add_joint_row_gradient(const Joint& joint, const JointRows& rows, int r, double scale, BodyGradient* out) {
  add_body_gradient(out, joint.parent, rows.Ja.row(r).transpose(), scale);
  add_body_gradient(out, joint.child, rows.Jb.row(r).transpose(), scale);
}

namespace {

// MuJoCo's qpos of a one-coordinate joint is maxsim's coordinate plus Joint::ref.
double qpos_offset(const Joint& joint) { return joint.dof() == 1 ? joint.ref : 0.0; }

std::vector<Pose> current_poses(const Data& d) {
  std::vector<Pose> poses(d.x.size());
  for (size_t i = 0; i < poses.size(); ++i) poses[i] = Pose{d.x[i], d.q[i]};
  return poses;
}

}  // namespace

double tendon_length(const Model& model, const Data& d, int t, BodyGradient* gradient) {
  const Tendon& tendon = model.tendons.at(t);
  if (gradient) gradient->clear();
  if (tendon.kind == Tendon::Kind::Spatial) return spatial_tendon_length(model, tendon, current_poses(d), gradient);
  double length = 0;
  JointRows rows;
  for (const TendonJointTerm& term : tendon.joints) {
    const Joint& jt = model.joints[term.joint];
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    const double angle = term.row >= 3 ? d.joint_angle[term.joint](term.row - 3) : 0.0;
    length += term.coef * (joint_row_value(rows, term.row, angle) + qpos_offset(jt));
    if (gradient) add_joint_row_gradient(jt, rows, term.row, term.coef, gradient);
  }
  return length;
}

double tendon_zero_length(const Model& model, int t) {
  const Tendon& tendon = model.tendons.at(t);
  if (tendon.kind == Tendon::Kind::Spatial) {
    std::vector<Pose> poses(model.bodies.size());
    for (size_t i = 0; i < poses.size(); ++i) poses[i] = Pose{model.bodies[i].x0, model.bodies[i].q0};
    return spatial_tendon_length(model, tendon, poses, nullptr);
  }
  double length = 0;
  for (const TendonJointTerm& term : tendon.joints) length += term.coef * qpos_offset(model.joints[term.joint]);
  return length;
}

std::vector<int> tendon_bodies(const Model& model, int t) {
  const Tendon& tendon = model.tendons.at(t);
  std::vector<int> bodies;
  auto add = [&bodies](int b) {
    if (b != kWorld && std::find(bodies.begin(), bodies.end(), b) == bodies.end()) bodies.push_back(b);
  };
  for (const TendonJointTerm& term : tendon.joints) {
    add(model.joints[term.joint].parent);
    add(model.joints[term.joint].child);
  }
  for (const TendonPathElement& e : tendon.path) {
    if (e.kind == TendonPathElement::Kind::Site) add(model.sites[e.site].body);
    if (e.kind == TendonPathElement::Kind::Geom) add(e.geom_body);
    if (e.sidesite >= 0) add(model.sites[e.sidesite].body);
  }
  return bodies;
}

bool tendon_active(const Model& model, int t) {
  const Tendon& tendon = model.tendons[t];
  if (tendon.stiffness != 0 || tendon.damping != 0 || tendon.armature != 0 || tendon.limited || tendon.frictionloss > 0)
    return true;
  if (!model.actuation) return false;
  for (const Actuator& a : model.actuators)
    if (a.tendon == t) return true;
  return false;
}

double coupling_coordinate(const Model& model, const Data& d, const Coupling& c, bool a, BodyGradient* gradient) {
  const int index = a ? c.a : c.b, row = a ? c.a_row : c.b_row;
  if (gradient) gradient->clear();
  if (c.kind == Coupling::Kind::Tendon) return tendon_length(model, d, index, gradient) - tendon_zero_length(model, index);
  const Joint& jt = model.joints[index];
  JointRows rows;
  joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
  if (gradient) add_joint_row_gradient(jt, rows, row, 1.0, gradient);
  return joint_row_value(rows, row, row >= 3 ? d.joint_angle[index](row - 3) : 0.0);
}

double coupling_polynomial(const Coupling& c, double x, double* derivative) {
  double value = 0, slope = 0;
  for (int k = 4; k >= 0; --k) {  // Horner, with the derivative alongside
    slope = slope * x + value;
    value = value * x + c.polycoef[k];
  }
  if (derivative) *derivative = slope;
  return value;
}

double coupling_violation(const Model& model, const Data& d, int k) {
  const Coupling& c = model.couplings.at(k);
  const double b = c.b >= 0 ? coupling_coordinate(model, d, c, false) : 0.0;
  return coupling_coordinate(model, d, c, true) - coupling_polynomial(c, b);
}

bool tendon_servo_implicit(const Actuator& a) {
  return a.tendon >= 0 && !a.force_limited && (a.kind == Actuator::Kind::Position || a.kind == Actuator::Kind::Velocity);
}

TendonServo tendon_servo(const Model& model, const Data& d, int t) {
  TendonServo servo;
  if (!model.actuation) return servo;
  for (size_t i = 0; i < model.actuators.size() && i < d.ctrl.size(); ++i) {
    const Actuator& a = model.actuators[i];
    if (a.tendon != t || !tendon_servo_implicit(a)) continue;
    const double u = a.ctrl_limited ? std::clamp(d.ctrl[i], a.ctrl_lower, a.ctrl_upper) : d.ctrl[i];
    // g f = g kp (u − g L) − kv g² L̇  (position),   g kv (u − g L̇)  (velocity)
    if (a.kind == Actuator::Kind::Position) {
      servo.force += a.gear * a.kp * u;
      servo.stiffness += a.kp * a.gear * a.gear;
    } else {
      servo.force += a.gear * a.kv * u;
    }
    servo.damping += a.kv * a.gear * a.gear;
  }
  return servo;
}

void append_tendon_limits(const Model& model, Data& d, double dt, double margin) {
  const int first_node = static_cast<int>(model.bodies.size() + model.joints.size() + model.nonholonomic.size());
  BodyGradient& gradient = workspace(d).tendon_scratch;  // (its storage kept between steps)
  // a frictionless inequality on tendon t's node, acting on its length ℓ (a limit, or with
  // dry_limit its friction)
  auto on_node = [&](size_t t) {
    Contact c;
    c.body_a = kWorld;
    c.body_b = first_node + static_cast<int>(t);
    c.friction = 0;
    c.tendon = static_cast<int>(t);
    return c;
  };
  const bool recheck = d.limits_recheck;  // (cleared by find_inequalities)
  if (recheck) d.tendon_limits_recovering.assign(model.tendons.size(), 0);
  for (size_t t = 0; t < model.tendons.size(); ++t) {
    const Tendon& tendon = model.tendons[t];
    if (tendon.frictionloss > 0) {
      // dry friction on the length's rate: the 1-D cone |b1| ≤ frictionloss·Δt, always active
      Contact c = on_node(t);
      c.dry_limit = tendon.frictionloss * dt;
      d.contacts.push_back(c);
    }
    if (!tendon.limited || !(tendon.range_lower < tendon.range_upper)) continue;
    const double length = tendon_length(model, d, static_cast<int>(t), &gradient);
    // the rate over the last interval bounds how far the length can move in one step
    const double rate = gradient_rate(gradient, d);
    const double reach = margin + 2.0 * std::abs(rate) * dt;
    for (const double side : {1.0, -1.0}) {
      double bound = side > 0 ? tendon.range_lower : tendon.range_upper;
      // beyond it at the start: moved back by a fraction per step; beyond it later: held where it
      // is (as joint limits)
      const std::uint8_t bit = side > 0 ? 1 : 2;
      const double gap = side * (length - bound);
      const bool beyond = gap < 0;
      if (recheck && beyond) d.tendon_limits_recovering[t] |= bit;
      if (!beyond) d.tendon_limits_recovering[t] &= static_cast<std::uint8_t>(~bit);
      if (gap > reach) continue;
      if (beyond)
        bound = d.tendon_limits_recovering[t] & bit ? recovering_bound(length, bound, dt, model.opt.limit_recovery_time)
                                                    : length;
      Contact c = on_node(t);
      c.bound = bound;
      c.side = side;
      d.contacts.push_back(c);
    }
  }
}

std::string validate_tendons(const Model& model) {
  const int nj = static_cast<int>(model.joints.size()), nt = static_cast<int>(model.tendons.size());
  const int nsite = static_cast<int>(model.sites.size());
  auto finite = [](double v) { return std::isfinite(v); };
  for (int t = 0; t < nt; ++t) {
    const Tendon& tendon = model.tendons[t];
    const std::string who = "tendon '" + tendon.name + "'";
    if (!finite(tendon.stiffness) || !finite(tendon.damping) || !finite(tendon.armature) || tendon.stiffness < 0 ||
        tendon.damping < 0 || tendon.armature < 0)
      return who + ": stiffness, damping and armature must be finite and >= 0";
    if (!finite(tendon.spring_lower) || !finite(tendon.spring_upper) || tendon.spring_lower > tendon.spring_upper)
      return who + ": spring length range must be finite and ordered";
    if (tendon.limited && !(tendon.range_lower < tendon.range_upper))
      return who + ": limited with range lower >= upper";
    if (!finite(tendon.frictionloss) || tendon.frictionloss < 0) return who + ": frictionloss must be finite and >= 0";
    if (tendon.kind == Tendon::Kind::Fixed) {
      if (tendon.joints.empty()) return who + ": a fixed tendon needs at least one joint";
      for (const TendonJointTerm& term : tendon.joints) {
        if (term.joint < 0 || term.joint >= nj) return who + ": joint index out of range";
        if (!row_has_coordinate(model.joints[term.joint], term.row))
          return who + ": joint '" + model.joints[term.joint].name + "' row " + std::to_string(term.row) +
                 " has no scalar coordinate";
        if (!finite(term.coef)) return who + ": coef must be finite";
      }
    } else {
      if (tendon.path.size() < 2) return who + ": a spatial tendon needs at least two sites";
      for (const TendonPathElement& e : tendon.path) {
        if (e.kind == TendonPathElement::Kind::Site && (e.site < 0 || e.site >= nsite))
          return who + ": site index out of range";
        if (e.sidesite >= nsite) return who + ": sidesite index out of range";
      }
    }
  }
  for (const Coupling& c : model.couplings) {
    const std::string who = "coupling '" + c.name + "'";
    for (double p : c.polycoef)
      if (!finite(p)) return who + ": polycoef must be finite";
    for (const bool a : {true, false}) {
      const int index = a ? c.a : c.b, row = a ? c.a_row : c.b_row;
      if (!a && index < 0) continue;
      if (c.kind == Coupling::Kind::Tendon) {
        if (index < 0 || index >= nt) return who + ": tendon index out of range";
      } else {
        if (index < 0 || index >= nj) return who + ": joint index out of range";
        if (!row_has_coordinate(model.joints[index], row))
          return who + ": joint '" + model.joints[index].name + "' row " + std::to_string(row) +
                 " has no scalar coordinate";
      }
    }
    if (c.b >= 0 && c.a == c.b && (c.kind == Coupling::Kind::Tendon || c.a_row == c.b_row))
      return who + ": couples a coordinate to itself";
  }
  for (const Actuator& a : model.actuators)
    if (a.tendon >= nt) return "actuator '" + a.name + "': tendon index out of range";
  return "";
}

}  // namespace maxsim
