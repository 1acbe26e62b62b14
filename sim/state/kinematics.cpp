#include "sim/state/kinematics.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace maxsim {

namespace {

// Relative motion of a joint from its coordinates: translation t and its rate (parent joint frame),
// rotation q_rel and the relative angular velocity in the child joint frame.
struct RelativeMotion {
  Vec3 t = Vec3::Zero(), t_rate = Vec3::Zero();
  Vec4 q_rel = quat_identity();
  Vec3 w_rel = Vec3::Zero();
};

Pose zero_pose(const Model& model, int body) {
  return body == kWorld ? Pose{} : Pose{model.bodies[body].x0, model.bodies[body].q0};
}

// Orbital joint: the relative angular velocity (child joint frame) that moves the two angles
// a = 2 atan2(qx, qw), b = 2 atan2(qy, qw) of q_rel = (qw, qx, qy, 0) at the rates (da, db) and
// keeps the constrained qz at zero. Its z component is not zero once both angles are: q̇_rel is
// solved from da, db and qz' = 0 (with q̇_rel ⊥ q_rel), then ω = 2 V(q_rel* ⊗ q̇_rel).
Vec3 orbital_angular_velocity(const Vec4& q_rel, double da, double db) {
  const double w = q_rel(0), x = q_rel(1), y = q_rel(2);
  Mat3 A;  // d/dt of 2 atan2(x, w), 2 atan2(y, w), and of |q|² / 2, in (ẇ, ẋ, ẏ)
  A << -x, w, 0, -y, 0, w, w, x, y;
  const Vec3 rhs(0.5 * da * (w * w + x * x), 0.5 * db * (w * w + y * y), 0.0);
  const Vec3 d = A.partialPivLu().solve(rhs);
  const Vec4 q_dot(d(0), d(1), d(2), 0.0);
  return 2.0 * Hmat().transpose() * Lmat(q_rel).transpose() * q_dot;
}

// Joint::coordinate_order: coordinate i is free row order[i]; `ascending` gets them by row.
std::vector<double> rows_ascending(const Joint& jt, const std::vector<double>& values) {
  if (jt.coordinate_order[0] < 0 || values.empty()) return values;
  const std::array<int, 6> rows = jt.free_rows();
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[std::find(rows.begin(), rows.end(), jt.coordinate_order[i]) - rows.begin()] = values[i];
  return out;
}

RelativeMotion relative_motion(const Model& model, const Joint& jt, const std::vector<double>& q_given,
                               const std::vector<double>& qd_given) {
  RelativeMotion m;
  // (each vector alone: either may be empty; a wrong count is refused below)
  const bool order_q = static_cast<int>(q_given.size()) == jt.nq();
  const bool order_qd = static_cast<int>(qd_given.size()) == jt.dof();
  const std::vector<double> q = order_q ? rows_ascending(jt, q_given) : q_given;
  const std::vector<double> qd = order_qd ? rows_ascending(jt, qd_given) : qd_given;
  if (q.empty()) {  // the description's own pose (a floating base's is not the origin)
    JointRows rows;
    joint_rows(jt, zero_pose(model, jt.parent), zero_pose(model, jt.child), &rows);
    for (int r = 0; r < 3; ++r)
      if (!jt.row_constrained(r)) m.t(r) = rows.c(r);
    m.q_rel = rows.q_rel;
  }
  const bool zero_q = q.empty(), zero_qd = qd.empty();
  if ((!zero_q && static_cast<int>(q.size()) != jt.nq()) ||
      (!zero_qd && static_cast<int>(qd.size()) != jt.dof()))
    throw std::invalid_argument("joint '" + jt.name + "' takes " + std::to_string(jt.nq()) +
                                " position and " + std::to_string(jt.dof()) + " rate values");
  for (double value : q)
    if (!std::isfinite(value)) throw std::invalid_argument("joint '" + jt.name + "': non-finite coordinate");
  for (double value : qd)
    if (!std::isfinite(value)) throw std::invalid_argument("joint '" + jt.name + "': non-finite rate");
  int iq = 0, iv = 0;
  for (int r = 0; r < 3; ++r) {
    if (jt.row_constrained(r)) continue;
    if (!zero_q) m.t(r) = q[iq];
    if (!zero_qd) m.t_rate(r) = qd[iv];
    ++iq;
    ++iv;
  }
  if (jt.davenport()) {  // the hinges' angles by joint-frame axis (docs/computation.md (96))
    Vec3 theta = Vec3::Zero(), rate = Vec3::Zero();
    for (int k = 0; k < 3; ++k) {
      if (jt.row_constrained(3 + k)) continue;
      if (!zero_q) theta(k) = q[iq];
      if (!zero_qd) rate(k) = qd[iv];
      ++iq;
      ++iv;
    }
    Vec3 omega;
    const Mat3 R = davenport_rotation(jt, theta, rate, &omega);
    if (!zero_q) m.q_rel = rot_to_quat(R);
    m.w_rel = R.transpose() * omega;
    Vec3 at = theta;
    if (zero_q && (!zero_qd || jt.hinge_offsets())) {  // rates about the description's own pose
      JointRows rows;
      joint_rows(jt, zero_pose(model, jt.parent), zero_pose(model, jt.child), &rows);
      at = rows.c.tail<3>();
      for (int k = 0; k < 3; ++k)
        if (jt.row_constrained(3 + k)) at(k) = 0;
      const Mat3 R0 = davenport_rotation(jt, at, rate, &omega);
      if (!zero_qd) m.w_rel = R0.transpose() * omega;
    }
    if (jt.hinge_offsets()) {  // the last anchor where the hinges carry it (docs/computation.md (98))
      Mat3 dv;
      m.t += davenport_offset(jt, at, &dv);
      m.t_rate += dv * rate;
    }
    return m;
  }
  switch (rot_kind(jt.type)) {
    case RotKind::Fixed:
      break;
    case RotKind::Revolute:
      if (!zero_q) m.q_rel = quat_axis_angle(Vec3::UnitZ(), q[iq]);
      if (!zero_qd) m.w_rel.z() = qd[iv];
      break;
    case RotKind::Orbital:
      if (!zero_q) m.q_rel = quat_normalize(Vec4(1.0, std::tan(0.5 * q[iq]), std::tan(0.5 * q[iq + 1]), 0.0));
      if (!zero_qd) m.w_rel = orbital_angular_velocity(m.q_rel, qd[iv], qd[iv + 1]);
      break;
    case RotKind::Free:
      if (!zero_q) {
        const Vec4 qq(q[iq], q[iq + 1], q[iq + 2], q[iq + 3]);
        if (qq.norm() < 1e-9) throw std::invalid_argument("joint '" + jt.name + "': zero quaternion");
        m.q_rel = qq / qq.norm();
      }
      if (!zero_qd) m.w_rel = Vec3(qd[iv], qd[iv + 1], qd[iv + 2]);
      break;
  }
  return m;
}

struct BodyMotion {
  Vec3 x;
  Vec4 q;
  Vec3 v;      // world
  Vec3 w_world;
};

// The tree grown from the world: repeated passes over the joints (those with use[j]) in index
// order, each taking a joint with exactly one end already reached (`take(j)`, which reaches the
// other end), until a pass takes none. A pass is replayed as events ordered by (pass, joint
// index) — a joint is looked at again only when one of its bodies is reached — so a long chain
// listed leaf first costs a heap of events, not one pass over all joints per body. take(j, b):
// joint j reaches body b (its other end was reached before). Returns the reached bodies.
template <class Take>
std::vector<bool> grow_from_world(const Model& model, const std::vector<bool>& use, Take take) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  std::vector<std::vector<int>> incident(nb);
  for (int j = 0; j < nj; ++j) {
    if (!use[j]) continue;
    const Joint& jt = model.joints[j];
    if (jt.parent != kWorld) incident[jt.parent].push_back(j);
    if (jt.child != kWorld) incident[jt.child].push_back(j);
  }
  std::vector<bool> known(nb, false), done(nj, false);
  auto is_known = [&](int b) { return b == kWorld || known[b]; };
  using Event = std::pair<long long, int>;  // (pass, joint)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  for (int j = 0; j < nj; ++j)
    if (use[j] && (model.joints[j].parent == kWorld || model.joints[j].child == kWorld)) events.emplace(0, j);
  while (!events.empty()) {
    const auto [pass, j] = events.top();
    events.pop();
    if (done[j]) continue;
    const Joint& jt = model.joints[j];
    if (is_known(jt.parent) == is_known(jt.child)) {  // both reached: never taken
      done[j] = true;
      continue;
    }
    done[j] = true;
    const int reached = is_known(jt.parent) ? jt.child : jt.parent;
    take(j, reached);
    known[reached] = true;
    // the rest of this pass sees the body; joints before j in the next pass
    for (int k : incident[reached])
      if (!done[k]) events.emplace(k > j ? pass : pass + 1, k);
  }
  return known;
}

}  // namespace

// joint_coordinates with the free rows in ascending order (Joint::coordinate_order ignored)
void joint_coordinates_by_row(const Model& model, const Data& d, int j, double* q, double* qd, const JointRows* given);

namespace {

// The spanning tree of the joints and the order of its walk from the world ((joint, body it
// reaches), grow_from_world over the tree's joints).
struct TreeWalk {
  std::vector<bool> tree;
  std::vector<std::pair<int, int>> order;
};

// (asked by every qpos and qvel read, size and placement: the thread's last tree is reused while the
// model has the same bodies and joint ends, all the tree depends on)
const TreeWalk& tree_walk(const Model& model) {
  thread_local struct {
    int bodies = -1;
    std::vector<std::pair<int, int>> ends;
    TreeWalk walk;
  } last;
  const size_t nj = model.joints.size();
  bool same = last.bodies == static_cast<int>(model.bodies.size()) && last.ends.size() == nj;
  for (size_t j = 0; same && j < nj; ++j)
    same = last.ends[j].first == model.joints[j].parent && last.ends[j].second == model.joints[j].child;
  if (same) return last.walk;
  TreeWalk walk;
  walk.tree.assign(nj, false);
  grow_from_world(model, std::vector<bool>(nj, true), [&](int j, int) { walk.tree[j] = true; });
  grow_from_world(model, walk.tree, [&](int j, int reached) { walk.order.emplace_back(j, reached); });
  last.bodies = static_cast<int>(model.bodies.size());
  last.ends.resize(nj);
  for (size_t j = 0; j < nj; ++j) last.ends[j] = {model.joints[j].parent, model.joints[j].child};
  last.walk = std::move(walk);
  return last.walk;
}

}  // namespace

std::vector<bool> spanning_tree_joints(const Model& model) { return tree_walk(model).tree; }

std::vector<bool> loop_joints(const Model& model) {
  // Tarjan's bridges, iteratively: a DFS over the bodies and the world (node nb), joints as edges
  // (parallel joints between two bodies are a loop); a tree edge (u, v) is a bridge when nothing
  // below v reaches u or above (low[v] > order[u]).
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  auto node = [nb](int b) { return b == kWorld ? nb : b; };
  std::vector<std::vector<int>> incident(nb + 1);
  for (int j = 0; j < nj; ++j) {
    incident[node(model.joints[j].parent)].push_back(j);
    incident[node(model.joints[j].child)].push_back(j);
  }
  std::vector<bool> loop(nj, true);
  std::vector<int> order(nb + 1, -1), low(nb + 1, 0), via(nb + 1, -1);
  std::vector<std::pair<int, size_t>> stack;  // (node, next incident joint)
  int counter = 0;
  for (int root = 0; root <= nb; ++root) {
    if (order[root] >= 0) continue;
    order[root] = low[root] = counter++;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      if (next < incident[u].size()) {
        const int j = incident[u][next++];
        if (j == via[u]) continue;  // the joint we came by (not a parallel one)
        const int a = node(model.joints[j].parent), b = node(model.joints[j].child);
        const int w = a == u ? b : a;
        if (order[w] >= 0) {
          low[u] = std::min(low[u], order[w]);
        } else {
          order[w] = low[w] = counter++;
          via[w] = j;
          stack.emplace_back(w, 0);
        }
        continue;
      }
      const int v = u;
      stack.pop_back();
      if (stack.empty()) break;
      const int parent = stack.back().first;
      low[parent] = std::min(low[parent], low[v]);
      if (low[v] > order[parent]) loop[via[v]] = false;
    }
  }
  return loop;
}

namespace {
// set_coordinates' walk; without `poses` the unwrapped angles are left as they are (the poses the
// walk places are those d has when it was placed from the same q).
// `changed` (non-null): the joints whose coordinates differ from the placement d holds; only the
// bodies past them are placed again (the others keep d's pose and velocity, which are those the
// whole walk gives them).
void place_tree(const Model& model, Data& d, const std::vector<std::vector<double>>& q,
                const std::vector<std::vector<double>>& qd, bool poses, const std::vector<bool>* changed = nullptr) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  if (static_cast<int>(q.size()) != nj || static_cast<int>(qd.size()) != nj)
    throw std::invalid_argument("set_coordinates: one coordinate vector per joint expected");
  std::vector<BodyMotion> body(nb);
  for (int i = 0; i < nb; ++i) body[i] = {d.x[i], d.q[i], d.v[i], quat_to_rot(d.q[i]) * d.w[i]};
  const TreeWalk& walk = tree_walk(model);
  const std::vector<bool>& tree = walk.tree;
  auto motion = [&](int b) { return b == kWorld ? BodyMotion{Vec3::Zero(), quat_identity(), Vec3::Zero(), Vec3::Zero()} : body[b]; };
  std::vector<bool> moved(changed ? nb : 0, false);  // (with `changed`: the bodies placed again)
  // tree joints in the order of the walk from the world, each placing the body it reaches
  for (const auto& [j, reached] : walk.order) {
    const Joint& jt = model.joints[j];
    if (changed) {
      const int from = reached == jt.child ? jt.parent : jt.child;
      if (!(*changed)[j] && (from == kWorld || !moved[from])) continue;
      moved[reached] = true;
    }
    const RelativeMotion rel = relative_motion(model, jt, q[j], qd[j]);
    const Mat3 Rpf = quat_to_rot(jt.parent_frame), Rcf = quat_to_rot(jt.child_frame);
    if (reached == jt.child) {
      const BodyMotion a = motion(jt.parent);
      const Mat3 Ra = quat_to_rot(a.q);
      const Mat3 Rpj = Ra * Rpf;
      const Vec4 q_cj = quat_mul(quat_mul(a.q, jt.parent_frame), rel.q_rel);
      BodyMotion b;
      b.q = quat_normalize(quat_mul(q_cj, quat_conj(jt.child_frame)));
      const Mat3 Rb = quat_to_rot(b.q);
      const Vec3 anchor_a = a.x + Ra * jt.parent_anchor;
      const Vec3 anchor_b = anchor_a + Rpj * rel.t;
      b.x = anchor_b - Rb * jt.child_anchor;
      b.w_world = a.w_world + Rb * Rcf * rel.w_rel;
      const Vec3 v_anchor_b = a.v + a.w_world.cross(anchor_b - a.x) + Rpj * rel.t_rate;
      b.v = v_anchor_b + b.w_world.cross(b.x - anchor_b);
      body[jt.child] = b;
    } else {
      const BodyMotion b = body[jt.child];
      const Mat3 Rb = quat_to_rot(b.q);
      const Vec4 q_cj = quat_mul(b.q, jt.child_frame);
      const Vec4 q_pj = quat_mul(q_cj, quat_conj(rel.q_rel));
      BodyMotion a;
      a.q = quat_normalize(quat_mul(q_pj, quat_conj(jt.parent_frame)));
      const Mat3 Ra = quat_to_rot(a.q);
      const Mat3 Rpj = quat_to_rot(q_pj);
      const Vec3 anchor_b = b.x + Rb * jt.child_anchor;
      const Vec3 anchor_a = anchor_b - Rpj * rel.t;
      a.x = anchor_a - Ra * jt.parent_anchor;
      a.w_world = b.w_world - Rb * Rcf * rel.w_rel;
      const Vec3 v_anchor_b = b.v + b.w_world.cross(anchor_b - b.x);
      const Vec3 v_anchor_a = v_anchor_b - a.w_world.cross(Rpj * rel.t) - Rpj * rel.t_rate;
      a.v = v_anchor_a + a.w_world.cross(a.x - anchor_a);
      body[jt.parent] = a;
    }
  }
  for (int i = 0; i < nb; ++i) {
    if (changed && !moved[i]) continue;  // (as it was: its angular velocity not turned twice)
    d.x[i] = body[i].x;
    d.q[i] = body[i].q;
    d.v[i] = body[i].v;
    d.w[i] = quat_to_rot(body[i].q).transpose() * body[i].w_world;
  }
  if (!poses) return;  // (the unwrapped angles are those of the same poses and q)
  // free rotation rows restart their unwrapped angles from the new configuration; a revolute
  // given an angle beyond ±π keeps it
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = model.joints[j];
    if (changed && !(*changed)[j] && !(jt.parent != kWorld && moved[jt.parent]) && !(jt.child != kWorld && moved[jt.child]))
      continue;  // (its bodies kept their poses: so does its angle)
    JointRows rows;
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    d.joint_angle[j] = rows.c.tail<3>();
    if (rot_kind(jt.type) == RotKind::Revolute && tree[j] && !q[j].empty())
      d.joint_angle[j](2) = rows_ascending(jt, q[j])[jt.nq() - 1];
    if (jt.davenport() && tree[j] && static_cast<int>(q[j].size()) == jt.nq()) {  // angles beyond ±π keep them
      const std::vector<double> by_row = rows_ascending(jt, q[j]);
      int at = jt.nq();
      for (int k = 2; k >= 0; --k)
        if (!jt.row_constrained(3 + k)) d.joint_angle[j](k) = by_row[--at];
    }
  }
}

}  // namespace

void set_coordinates(const Model& model, Data& d, const std::vector<std::vector<double>>& q,
                     const std::vector<std::vector<double>>& qd) {
  place_tree(model, d, q, qd, true);
}

void set_coordinate_rates(const Model& model, Data& d, const std::vector<std::vector<double>>& q,
                          const std::vector<std::vector<double>>& qd) {
  place_tree(model, d, q, qd, false);
}

void set_changed_coordinates(const Model& model, Data& d, const std::vector<std::vector<double>>& q,
                             const std::vector<std::vector<double>>& qd, const std::vector<bool>& changed) {
  if (changed.size() != model.joints.size())
    throw std::invalid_argument("set_changed_coordinates: one flag per joint expected");
  place_tree(model, d, q, qd, true, &changed);
}

void joint_coordinates(const Model& model, const Data& d, int j, double* q_out, double* qd_out, const JointRows* rows) {
  const Joint& jt = model.joints[j];
  double q_rows[7], qd_rows[6];  // by ascending row, then put in Joint::coordinate_order
  const bool ordered = jt.coordinate_order[0] >= 0;
  double* q = ordered ? q_rows : q_out;
  double* qd = ordered ? qd_rows : qd_out;
  if (ordered) {
    const std::array<int, 6> free = jt.free_rows();
    joint_coordinates_by_row(model, d, j, q, qd, rows);
    for (int i = 0; i < jt.dof(); ++i) {
      const long at = std::find(free.begin(), free.end(), jt.coordinate_order[i]) - free.begin();
      q_out[i] = q[at];
      qd_out[i] = qd[at];
    }
    return;
  }
  joint_coordinates_by_row(model, d, j, q, qd, rows);
}

void joint_coordinates_by_row(const Model& model, const Data& d, int j, double* q, double* qd, const JointRows* given) {
  const Joint& jt = model.joints[j];
  const Pose a = body_pose(d, jt.parent), b = body_pose(d, jt.child);
  // (the rows read below — translations, free rotations' q_rel, the angles' rows of joints that are
  // not RotKind::Free — do not depend on a free-rotation reference or the integrator's row form)
  JointRows evaluated;
  if (!given) joint_rows(jt, a, b, &evaluated);
  const JointRows& rows = given ? *given : evaluated;
  Vec6 rate = Vec6::Zero();
  if (jt.parent != kWorld) rate += rows.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
  rate += rows.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
  int iq = 0, iv = 0;
  for (int r = 0; r < 3; ++r) {
    if (jt.row_constrained(r)) continue;
    q[iq++] = rows.c(r);
    qd[iv++] = rate(r);
  }
  if (jt.davenport()) {  // the hinges' (unwrapped) angles and rates by joint-frame axis
    for (int k = 0; k < 3; ++k) {
      if (jt.row_constrained(3 + k)) continue;
      q[iq++] = d.joint_angle[j](k);
      qd[iv++] = rate(3 + k);
    }
    return;
  }
  switch (rot_kind(jt.type)) {
    case RotKind::Fixed:
      break;
    case RotKind::Revolute:
      q[iq] = d.joint_angle[j](2);
      qd[iv] = rate(5);
      break;
    case RotKind::Orbital:
      q[iq] = rows.c(3);
      q[iq + 1] = rows.c(4);
      qd[iv] = rate(3);
      qd[iv + 1] = rate(4);
      break;
    case RotKind::Free: {
      const Vec4 qr = rows.q_rel(0) < 0 ? Vec4(-rows.q_rel) : rows.q_rel;
      for (int k = 0; k < 4; ++k) q[iq + k] = qr(k);
      const Vec3 wa = jt.parent == kWorld ? Vec3::Zero() : Vec3(quat_to_rot(a.q) * d.w[jt.parent]);
      const Vec3 wb = quat_to_rot(b.q) * d.w[jt.child];
      const Vec3 w_rel = quat_to_rot(quat_mul(b.q, jt.child_frame)).transpose() * (wb - wa);
      for (int k = 0; k < 3; ++k) qd[iv + k] = w_rel(k);
      break;
    }
  }
}

void get_coordinates(const Model& model, const Data& d, std::vector<std::vector<double>>* q,
                     std::vector<std::vector<double>>* qd) {
  q->resize(model.joints.size());
  qd->resize(model.joints.size());
  for (size_t j = 0; j < model.joints.size(); ++j) {
    (*q)[j].resize(model.joints[j].nq());
    (*qd)[j].resize(model.joints[j].dof());
    joint_coordinates(model, d, static_cast<int>(j), (*q)[j].data(), (*qd)[j].data());
  }
}

void set_joint_coordinates(const Model& model, Data& d, int j, const std::vector<double>& q,
                           const std::vector<double>& qd) {
  std::vector<std::vector<double>> Q, QD;
  get_coordinates(model, d, &Q, &QD);
  Q.at(j) = q;
  QD.at(j) = qd;
  set_coordinates(model, d, Q, QD);
}

bool row_has_coordinate(const Joint& joint, int row) {
  if (row < 0 || row > 5 || joint.row_constrained(row)) return false;
  return row < 3 || rot_kind(joint.type) != RotKind::Free || joint.davenport();
}

int row_coordinate_index(const Joint& jt, int row) {
  // joint_coordinates lists the free rows in order (revolute: row 5; orbital: rows 3 and 4;
  // Davenport: the free rotation rows by axis), or in Joint::coordinate_order
  if (jt.coordinate_order[0] >= 0)
    return static_cast<int>(std::find(jt.coordinate_order.begin(), jt.coordinate_order.end(), row) -
                            jt.coordinate_order.begin());
  int index = 0;
  for (int r = 0; r < row; ++r)
    if (!jt.row_constrained(r)) ++index;
  return index;
}

RowCoordinate row_coordinate(const Model& model, const Data& data, int joint, int row) {
  if (joint < 0 || joint >= static_cast<int>(model.joints.size()))
    throw std::invalid_argument("row_coordinate: joint index " + std::to_string(joint) + " out of range");
  const Joint& jt = model.joints[joint];
  if (!row_has_coordinate(jt, row))
    throw std::invalid_argument("joint '" + jt.name + "' row " + std::to_string(row) +
                                " has no scalar coordinate (constrained, or a ball/free rotation)");
  const int index = row_coordinate_index(jt, row);
  double q[7], qd[6];
  joint_coordinates(model, data, joint, q, qd);
  return RowCoordinate{q[index], qd[index]};
}

}  // namespace maxsim
