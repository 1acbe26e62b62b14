// Sensors: MuJoCo's sensor semantics over maxsim's state (sim/sensor/sensors.hpp).
#include "sim/sensor/sensors.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "sim/actuation.hpp"
#include "sim/constraints/joint.hpp"
#include "sim/constraints/tendon.hpp"
#include "sim/geometry/ray.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/sites.hpp"

namespace maxsim {

namespace {

struct TypeInfo {
  SensorType type;
  const char* name;
  int dim;
  SensorStage stage;
};
constexpr TypeInfo kTypes[] = {
    {SensorType::Touch, "touch", 1, SensorStage::Acceleration},
    {SensorType::Accelerometer, "accelerometer", 3, SensorStage::Acceleration},
    {SensorType::Velocimeter, "velocimeter", 3, SensorStage::Velocity},
    {SensorType::Gyro, "gyro", 3, SensorStage::Velocity},
    {SensorType::Force, "force", 3, SensorStage::Acceleration},
    {SensorType::Torque, "torque", 3, SensorStage::Acceleration},
    {SensorType::Magnetometer, "magnetometer", 3, SensorStage::Position},
    {SensorType::Rangefinder, "rangefinder", 1, SensorStage::Position},
    {SensorType::JointPos, "jointpos", 1, SensorStage::Position},
    {SensorType::JointVel, "jointvel", 1, SensorStage::Velocity},
    {SensorType::BallQuat, "ballquat", 4, SensorStage::Position},
    {SensorType::BallAngVel, "ballangvel", 3, SensorStage::Velocity},
    {SensorType::JointActuatorFrc, "jointactuatorfrc", 1, SensorStage::Acceleration},
    {SensorType::JointLimitPos, "jointlimitpos", 1, SensorStage::Acceleration},
    {SensorType::JointLimitVel, "jointlimitvel", 1, SensorStage::Acceleration},
    {SensorType::JointLimitFrc, "jointlimitfrc", 1, SensorStage::Acceleration},
    {SensorType::TendonPos, "tendonpos", 1, SensorStage::Position},
    {SensorType::TendonVel, "tendonvel", 1, SensorStage::Velocity},
    {SensorType::TendonLimitPos, "tendonlimitpos", 1, SensorStage::Acceleration},
    {SensorType::TendonLimitVel, "tendonlimitvel", 1, SensorStage::Acceleration},
    {SensorType::TendonLimitFrc, "tendonlimitfrc", 1, SensorStage::Acceleration},
    {SensorType::ActuatorPos, "actuatorpos", 1, SensorStage::Position},
    {SensorType::ActuatorVel, "actuatorvel", 1, SensorStage::Velocity},
    {SensorType::ActuatorFrc, "actuatorfrc", 1, SensorStage::Acceleration},
    {SensorType::FramePos, "framepos", 3, SensorStage::Position},
    {SensorType::FrameQuat, "framequat", 4, SensorStage::Position},
    {SensorType::FrameXAxis, "framexaxis", 3, SensorStage::Position},
    {SensorType::FrameYAxis, "frameyaxis", 3, SensorStage::Position},
    {SensorType::FrameZAxis, "framezaxis", 3, SensorStage::Position},
    {SensorType::FrameLinVel, "framelinvel", 3, SensorStage::Velocity},
    {SensorType::FrameAngVel, "frameangvel", 3, SensorStage::Velocity},
    {SensorType::FrameLinAcc, "framelinacc", 3, SensorStage::Acceleration},
    {SensorType::FrameAngAcc, "frameangacc", 3, SensorStage::Acceleration},
    {SensorType::SubtreeCom, "subtreecom", 3, SensorStage::Position},
    {SensorType::SubtreeLinVel, "subtreelinvel", 3, SensorStage::Velocity},
    {SensorType::SubtreeAngMom, "subtreeangmom", 3, SensorStage::Velocity},
    {SensorType::Clock, "clock", 1, SensorStage::Position},
};

const TypeInfo& info(SensorType t) {
  for (const TypeInfo& i : kTypes)
    if (i.type == t) return i;
  throw std::invalid_argument("unknown sensor type " + std::to_string(static_cast<int>(t)));
}

bool reads_site(SensorType t) { return t <= SensorType::Rangefinder; }
bool reads_joint(SensorType t) { return t >= SensorType::JointPos && t <= SensorType::JointLimitFrc; }
bool reads_tendon(SensorType t) { return t >= SensorType::TendonPos && t <= SensorType::TendonLimitFrc; }
bool reads_actuator(SensorType t) { return t >= SensorType::ActuatorPos && t <= SensorType::ActuatorFrc; }
bool reads_frame(SensorType t) { return t >= SensorType::FramePos && t <= SensorType::FrameAngAcc; }
bool reads_subtree(SensorType t) { return t >= SensorType::SubtreeCom && t <= SensorType::SubtreeAngMom; }
bool scalar_row_sensor(SensorType t) {
  return t == SensorType::JointPos || t == SensorType::JointVel || t == SensorType::JointActuatorFrc ||
         (t >= SensorType::JointLimitPos && t <= SensorType::JointLimitFrc);
}

// Per body, the spanning tree's joint whose child it is (the joint through which it hangs from its
// parent; -1 for none) and its parent body along the tree (kWorld for the roots).
struct BodyTree {
  std::vector<int> joint, parent;
};
BodyTree body_tree(const Model& model) {
  BodyTree t{std::vector<int>(model.bodies.size(), -1), std::vector<int>(model.bodies.size(), kWorld)};
  const std::vector<bool> tree = spanning_tree_joints(model);
  for (size_t j = model.joints.size(); j-- > 0;)  // (the first tree joint of a child wins)
    if (tree[j] && model.joints[j].child >= 0) {
      t.joint[model.joints[j].child] = static_cast<int>(j);
      t.parent[model.joints[j].child] = model.joints[j].parent;
    }
  return t;
}

bool in_subtree(const std::vector<int>& parent, int body, int root) {
  if (root == kWorld) return true;
  for (int b = body, guard = 0; b != kWorld && guard <= static_cast<int>(parent.size()); b = parent[b], ++guard)
    if (b == root) return true;
  return false;
}

// The frame's world pose, the world velocity of its origin and its world angular velocity.
struct FrameState {
  Vec3 pos = Vec3::Zero();
  Mat3 R = Mat3::Identity();
  Vec4 quat = quat_identity();
  Vec3 linvel = Vec3::Zero(), angvel = Vec3::Zero();
};

FrameState frame_state(const Data& d, const SensorFrame& f, bool velocities) {
  FrameState s;
  const Pose p = fixed_frame_pose(d, f.body, f.pos, f.quat);
  s.pos = p.x;
  s.quat = p.q;
  s.R = quat_to_rot(p.q);
  if (velocities) fixed_frame_velocity(d, f.body, f.pos, &s.linvel, &s.angvel);
  return s;
}

// Whether world point p lies in the site's volume (a touch sensor's zone).
bool inside_site(const Site& site, const FrameState& f, const Vec3& p) {
  const Vec3 l = f.R.transpose() * (p - f.pos);
  const Vec3& s = site.size;
  switch (site.type) {
    case GeomType::Sphere: return l.norm() <= s(0);
    case GeomType::Capsule: return Vec3(l(0), l(1), std::max(0.0, std::abs(l(2)) - s(1))).norm() <= s(0);
    case GeomType::Cylinder: return l.head<2>().norm() <= s(0) && std::abs(l(2)) <= s(1);
    case GeomType::Ellipsoid: return (l.array() / s.array()).matrix().squaredNorm() <= 1.0;
    case GeomType::Box: return (l.cwiseAbs().array() <= s.array()).all();
    default: return false;
  }
}

// MuJoCo's qpos of a scalar joint row at maxsim's zero coordinate (the file's ref).
double row_ref(const Joint& jt, int row) { return jt.nq() == 1 ? jt.ref : jt.row_ref[row]; }

// The scalar row a joint sensor reads: its own, or the joint's only free row with a coordinate.
int sensor_row(const Model& model, const Sensor& s) {
  if (s.row >= 0) return s.row;
  const Joint& jt = model.joints[s.object];
  int found = -1, count = 0;
  for (int r = 0; r < 6; ++r)
    if (row_has_coordinate(jt, r)) {
      found = r;
      ++count;
    }
  return count == 1 ? found : -1;
}

// The sum of the actuators' forces on a joint row (actuator space times gear: joint space).
double row_actuator_force(const Model& model, const std::vector<double>& force, int joint, int row) {
  double f = 0;
  for (size_t a = 0; a < model.actuators.size() && a < force.size(); ++a)
    if (model.actuators[a].tendon < 0 && model.actuators[a].joint == joint && model.actuators[a].row == row)
      f += model.actuators[a].gear * force[a];
  return f;
}

// A tendon's length rate at the bodies' velocities.
double tendon_rate(const Model& model, const Data& d, int t) {
  BodyGradient g;
  tendon_length(model, d, t, &g);
  return gradient_rate(g, d);
}

// The actuator's length (MuJoCo's actuator_length: gear × the joint's qpos or the tendon's length)
// and its rate.
void actuator_length(const Model& model, const Data& d, int a, double* length, double* rate) {
  const Actuator& act = model.actuators[a];
  if (act.tendon >= 0) {
    *length = act.gear * tendon_length(model, d, act.tendon);
    *rate = act.gear * tendon_rate(model, d, act.tendon);
    return;
  }
  const RowCoordinate c = row_coordinate(model, d, act.joint, act.row);
  *length = act.gear * (c.q + row_ref(model.joints[act.joint], act.row));
  *rate = act.gear * c.qd;
}

// The wrench the body receives from its parent through joint j over the last step, divided by
// Δt: force (world) and torque about the body's CoM (world). The joint's row impulses
// (constrained and free rows, folded limits included) and its other limits' impulses, mapped by the rows at the step's start as
// the step maps them (sim/integrator/variational_scheme.cpp).
void joint_wrench(const Model& model, const Data& d, int j, Vec3* force, Vec3* torque) {
  force->setZero();
  torque->setZero();
  const Workspace* ws = d.solver_state.find();
  if (!ws || ws->rows2.size() != model.joints.size() || !(ws->dt > 0) ||
      d.joint_impulse.size() != model.joints.size())
    return;
  Vec6 u = d.joint_impulse[j];
  Vec6 cone = Vec6::Zero();  // a ball joint's cone limit: its impulse along the angle's gradient
  for (const Contact& c : d.contacts) {
    if (c.joint != j || c.dry_limit != 0 || c.folded) continue;  // (those are in u already)
    if (c.row == kJointConeRow)  // (its map over the step that ended at the knot rows3 holds)
      cone += c.side * c.gamma * joint_cone_map_row(model.joints[j], ws->rows2[j].q_rel, ws->rows3[j].q_rel).Jb.transpose();
    else if (c.row >= 0 && c.row < 6) u(c.row) += c.side * c.gamma;
  }
  // J_bᵀu is the wrench the row impulses apply to the child (sim/constraints/joint.hpp)
  const Vec6 w = (ws->rows2[j].Jb.transpose() * u + cone) / ws->dt;
  const int b = model.joints[j].child;
  *force = w.head<3>();
  *torque = quat_to_rot(d.q[b]) * w.tail<3>();
}

// Splitmix64 and Box–Muller: the sensor noise (reproducible from Data::sensor_noise_state).
double gaussian(std::uint64_t* state) {
  auto next = [&]() {
    std::uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  const double u1 = std::max(next(), 1e-300), u2 = next();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

struct Context {
  const StepStart* start = nullptr;  // (a step's sensors only)
  std::optional<BodyTree> tree;      // (computed once, when a force or subtree sensor asks)
  const BodyTree& body_tree(const Model& model) {
    if (!tree) tree = maxsim::body_tree(model);
    return *tree;
  }
};

// The frame origin's acceleration over the last step minus gravity, and its angular acceleration
// (both world): the change of the origin's velocity, each end at its own orientation, over Δt.
void frame_acceleration(const Model& model, const Data& d, const Context& ctx, const SensorFrame& f, Vec3* linear,
                        Vec3* angular) {
  *linear = -model.opt.gravity;
  angular->setZero();
  const StepStart* s = ctx.start;
  if (!s || f.body == kWorld || f.body >= static_cast<int>(s->v.size()) || !(model.opt.timestep > 0)) return;
  const int b = f.body;
  const Mat3 R0 = quat_to_rot(s->q[b]), R1 = quat_to_rot(d.q[b]);
  const Vec3 w0 = R0 * s->w[b], w1 = R1 * d.w[b];
  const Vec3 v0 = s->v[b] + w0.cross(R0 * f.pos), v1 = d.v[b] + w1.cross(R1 * f.pos);
  *linear += (v1 - v0) / model.opt.timestep;
  *angular = (w1 - w0) / model.opt.timestep;
}

// The limit inequality of the last step on a joint row or a tendon (Contact::joint/row or
// Contact::tendon), or null.
const Contact* active_limit(const Data& d, int joint, int row, int tendon) {
  for (const Contact& c : d.contacts)
    if (c.dry_limit == 0 && ((joint >= 0 && c.joint == joint && c.row == row) || (tendon >= 0 && c.tendon == tendon)))
      return &c;
  return nullptr;
}

void evaluate(const Model& model, Data& d, const Sensor& s, Context& ctx, double* out) {
  const SensorStage stage = sensor_stage(s.type);
  switch (s.type) {
    case SensorType::Clock: out[0] = d.time; return;
    case SensorType::JointPos:
    case SensorType::JointVel: {
      const int row = sensor_row(model, s);
      const RowCoordinate c = row_coordinate(model, d, s.object, row);
      out[0] = s.type == SensorType::JointPos ? c.q + row_ref(model.joints[s.object], row) : c.qd;
      return;
    }
    case SensorType::BallQuat:
    case SensorType::BallAngVel: {
      double q[7], qd[6];
      joint_coordinates(model, d, s.object, q, qd);
      const int nq = model.joints[s.object].nq(), dof = model.joints[s.object].dof();
      if (s.type == SensorType::BallQuat)
        for (int k = 0; k < 4; ++k) out[k] = q[nq - 4 + k];
      else
        for (int k = 0; k < 3; ++k) out[k] = qd[dof - 3 + k];
      return;
    }
    case SensorType::JointActuatorFrc:
      out[0] = row_actuator_force(model, d.actuator_force, s.object, sensor_row(model, s));
      return;
    case SensorType::JointLimitPos:
    case SensorType::JointLimitVel:
    case SensorType::JointLimitFrc:
    case SensorType::TendonLimitPos:
    case SensorType::TendonLimitVel:
    case SensorType::TendonLimitFrc: {
      // while the step had the limit's inequality: φ = side·(value − bound) ≥ 0, its rate, γ/Δt
      const bool joint = s.type <= SensorType::JointLimitFrc;
      const int row = joint ? sensor_row(model, s) : -1;
      const Contact* c = ctx.start ? active_limit(d, joint ? s.object : -1, row, joint ? -1 : s.object) : nullptr;
      const Workspace* ws = d.solver_state.find();
      out[0] = 0;
      if (!c || !ws || !(ws->dt > 0)) return;
      double value, rate;
      if (joint && row == kJointConeRow) {  // a ball's cone: the rotation's angle and its rate
        const Joint& jt = model.joints[s.object];
        const JointConeRow cone =
            joint_cone_row(jt, joint_relative_rotation(jt, body_pose(d, jt.parent).q, d.q[jt.child]));
        value = cone.angle;
        rate = cone.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
        if (jt.parent != kWorld) rate += cone.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
      } else if (joint) {
        const RowCoordinate rc = row_coordinate(model, d, s.object, row);
        value = rc.q;
        rate = rc.qd;
      } else {
        value = tendon_length(model, d, s.object);
        rate = tendon_rate(model, d, s.object);
      }
      const int kind = static_cast<int>(s.type) - static_cast<int>(joint ? SensorType::JointLimitPos : SensorType::TendonLimitPos);
      out[0] = kind == 0 ? c->side * (value - c->bound) : kind == 1 ? c->side * rate : c->gamma / ws->dt;
      return;
    }
    case SensorType::TendonPos: out[0] = tendon_length(model, d, s.object); return;
    case SensorType::TendonVel: out[0] = tendon_rate(model, d, s.object); return;
    case SensorType::ActuatorPos:
    case SensorType::ActuatorVel: {
      double l, r;
      actuator_length(model, d, s.object, &l, &r);
      out[0] = s.type == SensorType::ActuatorPos ? l : r;
      return;
    }
    case SensorType::ActuatorFrc: {
      if (ctx.start) {
        out[0] = s.object < static_cast<int>(d.actuator_force.size()) ? d.actuator_force[s.object] : 0.0;
        return;
      }
      // from the command at the current state, as MuJoCo's mj_forward (and as apply_actuation)
      const Actuator& a = model.actuators[s.object];
      const double u = s.object < static_cast<int>(d.ctrl.size()) ? d.ctrl[s.object] : 0.0;
      double q, qd;
      if (a.tendon >= 0) {
        q = tendon_length(model, d, a.tendon);
        qd = tendon_rate(model, d, a.tendon);
      } else {
        const RowCoordinate c = row_coordinate(model, d, a.joint, a.row);
        q = c.q;
        qd = c.qd;
      }
      out[0] = model.actuation ? actuator_force(a, u, q, qd) : 0.0;
      return;
    }
    default: break;
  }
  if (reads_frame(s.type)) {
    const bool vel = stage == SensorStage::Velocity;
    const FrameState f = frame_state(d, s.frame, vel);
    FrameState r;
    if (s.relative) r = frame_state(d, s.ref, vel);
    const Mat3 Rr = s.relative ? r.R : Mat3::Identity();
    Eigen::Map<Vec3> o(out);
    switch (s.type) {
      case SensorType::FramePos: o = Rr.transpose() * (f.pos - (s.relative ? r.pos : Vec3::Zero())); return;
      case SensorType::FrameQuat: {
        Vec4 q = s.relative ? quat_mul(quat_conj(r.quat), f.quat) : f.quat;
        q = quat_normalize(q);
        for (int k = 0; k < 4; ++k) out[k] = q(k);
        return;
      }
      case SensorType::FrameXAxis: o = Rr.transpose() * f.R.col(0); return;
      case SensorType::FrameYAxis: o = Rr.transpose() * f.R.col(1); return;
      case SensorType::FrameZAxis: o = Rr.transpose() * f.R.col(2); return;
      case SensorType::FrameLinVel:
        o = s.relative ? Vec3(Rr.transpose() * (f.linvel - r.linvel - r.angvel.cross(f.pos - r.pos))) : f.linvel;
        return;
      case SensorType::FrameAngVel: o = Rr.transpose() * (f.angvel - (s.relative ? r.angvel : Vec3::Zero())); return;
      case SensorType::FrameLinAcc:
      case SensorType::FrameAngAcc: {
        Vec3 a, alpha;
        frame_acceleration(model, d, ctx, s.frame, &a, &alpha);
        o = s.type == SensorType::FrameLinAcc ? a : alpha;
        return;
      }
      default: return;
    }
  }
  if (reads_subtree(s.type)) {
    const std::vector<int>& parents = ctx.body_tree(model).parent;
    double mass = 0;
    Vec3 com = Vec3::Zero(), lin = Vec3::Zero();
    for (size_t b = 0; b < model.bodies.size(); ++b)
      if (in_subtree(parents, static_cast<int>(b), s.object)) {
        mass += model.bodies[b].mass;
        com += model.bodies[b].mass * d.x[b];
        lin += model.bodies[b].mass * d.v[b];
      }
    if (mass > 0) {
      com /= mass;
      lin /= mass;
    }
    Eigen::Map<Vec3> o(out);
    if (s.type == SensorType::SubtreeCom) o = com;
    else if (s.type == SensorType::SubtreeLinVel) o = lin;
    else {  // about the subtree's CoM, world frame
      Vec3 L = Vec3::Zero();
      for (size_t b = 0; b < model.bodies.size(); ++b)
        if (in_subtree(parents, static_cast<int>(b), s.object)) {
          const Body& body = model.bodies[b];
          const Mat3 R = quat_to_rot(d.q[b]);
          L += body.mass * (d.x[b] - com).cross(d.v[b] - lin) + R * (body.inertia * d.w[b]);
        }
      o = L;
    }
    return;
  }
  // site sensors
  const Site& site = model.sites[s.object];
  const FrameState f = frame_state(d, site_frame(model, s.object), true);
  Eigen::Map<Vec3> o(out);
  switch (s.type) {
    case SensorType::Magnetometer: o = f.R.transpose() * model.opt.magnetic; return;
    case SensorType::Rangefinder:  // along the site's z axis, its own body excluded (MuJoCo's)
      out[0] = ray_distance(model, d, f.pos, f.R.col(2), site.body);
      return;
    case SensorType::Velocimeter: o = f.R.transpose() * f.linvel; return;
    case SensorType::Gyro: o = f.R.transpose() * f.angvel; return;
    case SensorType::Accelerometer: {  // (at rest it reads +g up)
      Vec3 a, alpha;
      frame_acceleration(model, d, ctx, site_frame(model, s.object), &a, &alpha);
      o = f.R.transpose() * a;
      return;
    }
    case SensorType::Touch: {
      double sum = 0;
      const Workspace* ws = d.solver_state.find();
      if (ctx.start && site.body != kWorld && ws && ws->dt > 0)
        for (const Contact& c : d.contacts) {
          if (c.joint >= 0 || c.tendon >= 0 || (c.body_a != site.body && c.body_b != site.body)) continue;
          const Pose pa = body_pose(d, c.body_a), pb = body_pose(d, c.body_b);
          const Vec3 p = 0.5 * (pa.x + quat_rotate(pa.q, c.point_a) + pb.x + quat_rotate(pb.q, c.point_b));
          if (inside_site(site, f, p)) sum += c.gamma / ws->dt;
        }
      out[0] = sum;
      return;
    }
    case SensorType::Force:
    case SensorType::Torque: {
      Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
      const int j = ctx.body_tree(model).joint[site.body];
      if (ctx.start && j >= 0) joint_wrench(model, d, j, &force, &torque);
      if (s.type == SensorType::Force) {
        o = f.R.transpose() * force;
      } else {  // about the site: τ_site = τ_com + (x_com − p_site) × F
        o = f.R.transpose() * (torque + (d.x[site.body] - f.pos).cross(force));
      }
      return;
    }
    default: return;
  }
}

// Noise (when on) and cutoff, as MuJoCo applies them.
void finish(const Model& model, Data& d, const Sensor& s, double* out) {
  const bool unit = s.type == SensorType::FrameQuat || s.type == SensorType::BallQuat ||
                    (s.type >= SensorType::FrameXAxis && s.type <= SensorType::FrameZAxis);
  if (model.opt.sensor_noise && s.noise > 0 && !unit)
    for (int k = 0; k < s.dim; ++k) out[k] += s.noise * gaussian(&d.sensor_noise_state);
  if (s.cutoff > 0 && !unit)
    for (int k = 0; k < s.dim; ++k)
      out[k] = s.type == SensorType::Touch || s.type == SensorType::Rangefinder ? std::min(out[k], s.cutoff)
                                                                                : std::clamp(out[k], -s.cutoff, s.cutoff);
}

void compute(const Model& model, Data& d, Context& ctx, bool all) {
  if (static_cast<int>(d.sensordata.size()) != model.nsensordata())
    d.sensordata.assign(static_cast<size_t>(model.nsensordata()), 0.0);
  for (const Sensor& s : model.sensors) {
    const SensorStage stage = sensor_stage(s.type);
    if (!all && stage == SensorStage::Acceleration && s.type != SensorType::ActuatorFrc) continue;
    double* out = d.sensordata.data() + s.adr;
    evaluate(model, d, s, ctx, out);
    finish(model, d, s, out);
  }
}

}  // namespace

const char* sensor_type_name(SensorType type) { return info(type).name; }

bool sensor_type_from_name(const std::string& name, SensorType* out) {
  for (const TypeInfo& i : kTypes)
    if (name == i.name) {
      *out = i.type;
      return true;
    }
  return false;
}

int sensor_dimension(SensorType type) { return info(type).dim; }

SensorFrame site_frame(const Model& model, int site) {
  const Site& s = site_at(model, site);
  return SensorFrame{s.body, s.pos, s.quat};
}
SensorStage sensor_stage(SensorType type) { return info(type).stage; }

std::string validate_sensor(const Model& model, const Sensor& s) {
  const std::string who = std::string(sensor_type_name(s.type)) + " sensor" + (s.name.empty() ? "" : " '" + s.name + "'");
  auto in_range = [](int i, size_t n) { return i >= 0 && i < static_cast<int>(n); };
  if (!(s.noise >= 0) || !std::isfinite(s.noise)) return who + ": noise must be finite and >= 0";
  if (!(s.cutoff >= 0) || !std::isfinite(s.cutoff)) return who + ": cutoff must be finite and >= 0";
  auto missing = [&](const char* what, size_t n) {
    return who + (s.object < 0 ? std::string(": needs a ") + what
                               : ": no " + std::string(what) + " " + std::to_string(s.object) + " (the model has " + std::to_string(n) + ")");
  };
  if (reads_site(s.type) && !in_range(s.object, model.sites.size())) return missing("site", model.sites.size());
  if (reads_tendon(s.type) && !in_range(s.object, model.tendons.size())) return missing("tendon", model.tendons.size());
  if (reads_actuator(s.type) && !in_range(s.object, model.actuators.size())) return missing("actuator", model.actuators.size());
  if (reads_subtree(s.type) && s.object != kWorld && !in_range(s.object, model.bodies.size()))
    return who + ": no body " + std::to_string(s.object);
  auto frame_ok = [&](const SensorFrame& f) {
    return (f.body == kWorld || in_range(f.body, model.bodies.size())) && f.pos.allFinite() && f.quat.allFinite() &&
           std::abs(f.quat.norm() - 1) < 1e-9;
  };
  if (reads_frame(s.type) && (!frame_ok(s.frame) || (s.relative && !frame_ok(s.ref))))
    return who + ": its frame needs a body of the model, a finite position and a unit quaternion";
  if (reads_joint(s.type)) {
    if (!in_range(s.object, model.joints.size())) return missing("joint", model.joints.size());
    const Joint& jt = model.joints[s.object];
    const bool limit = s.type >= SensorType::JointLimitPos && s.type <= SensorType::JointLimitFrc;
    if (limit && s.row == kJointConeRow) {  // a ball's cone limit
      if (jt.type != JointType::Spherical || jt.davenport())
        return who + ": joint '" + jt.name + "' is not a ball joint (row " + std::to_string(kJointConeRow) +
               " reads a ball's cone limit)";
    } else if (scalar_row_sensor(s.type)) {
      const int row = sensor_row(model, s);
      if (row < 0 || row > 5 || !row_has_coordinate(jt, row))
        return who + ": joint '" + jt.name + "' has no hinge or slide row with a scalar coordinate" +
               (s.row >= 0 ? " at row " + std::to_string(s.row) : " (name one of its rows)");
    } else if (rot_kind(jt.type) != RotKind::Free || jt.davenport()) {
      return who + ": joint '" + jt.name + "' is not a ball joint (its rotation is not free)";
    }
  }
  if ((s.type == SensorType::Force || s.type == SensorType::Torque) && in_range(s.object, model.sites.size()) &&
      model.sites[s.object].body == kWorld)
    return who + ": site '" + model.sites[s.object].name + "' is fixed in the world (a force sensor's site needs a body)";
  return "";
}

void update_sensors(const Model& model, Data& data) {
  Context ctx;
  compute(model, data, ctx, false);
}

void step_sensors(const Model& model, Data& data, const StepStart& start) {
  Context ctx;
  ctx.start = &start;
  compute(model, data, ctx, true);
}

}  // namespace maxsim
