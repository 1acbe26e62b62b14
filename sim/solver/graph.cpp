// The system graph of a step (docs/computation.md §5): nodes are the bodies, the
// joints, the nonholonomic constraints and the inequalities; an edge joins each constraint node to
// each of its bodies. Built once per topology; the failure policy and every step reuse it.
#include <algorithm>
#include <map>

#include "sim/constraints/tendon.hpp"
#include "sim/integrator/integrator.hpp"
#include "sim/solver/inequality.hpp"
#include "sim/solver/workspace.hpp"

namespace maxsim {

SolverStateHandle::SolverStateHandle() = default;
SolverStateHandle::~SolverStateHandle() = default;
SolverStateHandle::SolverStateHandle(SolverStateHandle&& other) noexcept = default;
SolverStateHandle& SolverStateHandle::operator=(SolverStateHandle&& other) noexcept = default;
SolverStateHandle::SolverStateHandle(const SolverStateHandle& other)
    : state_(other.state_ ? std::make_unique<Workspace>(*other.state_) : nullptr) {}
SolverStateHandle& SolverStateHandle::operator=(const SolverStateHandle& other) {
  if (this == &other) return *this;
  if (!other.state_) {
    state_.reset();
  } else if (state_) {
    *state_ = *other.state_;  // copy-assigned: the arrays keep their storage
  } else {
    state_ = std::make_unique<Workspace>(*other.state_);
  }
  return *this;
}
Workspace& SolverStateHandle::get() {
  if (!state_) state_ = std::make_unique<Workspace>();
  return *state_;
}

const Workspace kEmptyWorkspace;
Workspace& workspace(const Model& model, Data& data) {
  if (!workspace(data).built) {  // (a step sets its own)
    workspace(data).dt = model.opt.timestep;
    workspace(data).knot_weight = 0.5 + model.opt.numerical_damping;
  }
  if (!graph_matches(model, data)) build_graph(model, data);
  return workspace(data);
}

namespace {

// A floating joint without spring, damper, armature, dry friction or limits (Workspace::passive).
bool passive_floating(const Joint& jt) {
  if (jt.type != JointType::Floating || jt.has_limits) return false;
  for (int r = 0; r < 6; ++r)
    if (jt.stiffness[r] != 0 || jt.damping[r] != 0 || jt.armature[r] != 0 || jt.friction[r] != 0) return false;
  return true;
}

// Whether the equality constraints close a loop (through the world too): their rows may then be
// redundant, and the post-order keeps the loop's last pivot the one that absorbs the redundancy
// (regularized). Without such a loop every multiplier's rows are independent, and with
// SolverOptions::bodies_first the bodies go first (BlockLdu::analyze). Nodes [0, equality_nodes)
// are the bodies and equality nodes.
// `tendons` false: the loops a tendon's node closes do not count (a tendon's row is one of its
// own, never redundant with the joints').
bool equality_loop(const Model& model, const Workspace& ws, int equality_nodes, bool tendons = true) {
  std::vector<int> parent(equality_nodes + 1);  // union–find; the last element is the world
  for (int i = 0; i <= equality_nodes; ++i) parent[i] = i;
  auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  auto join = [&](int a, int b) {  // false: already connected (a loop)
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent[a] = b;
    return true;
  };
  auto tendon_node = [&](int v) {
    return v >= ws.layout.tendon_node(0) && v < ws.layout.tendon_node(0) + ws.layout.tendons;
  };
  for (const auto& [a, b] : ws.edges)
    if (a < equality_nodes && b < equality_nodes && (tendons || (!tendon_node(a) && !tendon_node(b))) && !join(a, b))
      return true;
  for (size_t j = 0; j < model.joints.size(); ++j)
    if (!ws.passive[j] && model.joints[j].parent == kWorld &&
        !join(ws.layout.joint_node(static_cast<int>(j)), equality_nodes))
      return true;
  return false;
}

// The DFS root that keeps the touching contacts' fill least (docs/computation.md §6): a contact
// placed last is a later neighbour of every node between its body and the root, so eliminating
// such a node costs ~(1 + k)² block updates, k the contacts placed last below it. The root is the
// body of the joints' tree that minimizes Σ (1 + k_v)² over the other bodies plus k² at the root
// (a biped on both feet: its pelvis, not its torso; on one foot: that foot); `root` (the body held
// by the world, or the first floating one) where no contact is placed last, where another body
// costs no less, or where the tree is large (over 256 bodies: the search is quadratic).
// (SolverOptions::fill_least_root; measured in docs/performance.md, "the root where the contacts are")
int fill_least_root(const Model& model, const Workspace& ws, const Data& d, const std::vector<char>& placement,
                    int root) {
  const int nb = static_cast<int>(model.bodies.size());
  if (root < 0 || root >= nb || nb > 256) return root;
  std::vector<int> weight(nb, 0);
  int total = 0;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const int node = ws.contact_node[c];
    if (node < 0 || placement[node] != kPlaceLast) continue;
    for (const int b : {d.contacts[c].body_a, d.contacts[c].body_b})
      if (b != kWorld) {
        ++weight[b];
        ++total;
      }
  }
  if (total == 0) return root;
  // the joints' tree (a joint of a passive floating body is not an edge)
  std::vector<std::vector<int>> tree(nb);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    if (ws.passive[j] || jt.parent == kWorld) continue;
    tree[jt.parent].push_back(jt.child);
    tree[jt.child].push_back(jt.parent);
  }
  std::vector<int> parent(nb), order, below(nb), stack;
  order.reserve(nb);
  // the cost with root r, and the bodies of r's component (the candidates)
  auto cost = [&](int r) {
    std::fill(parent.begin(), parent.end(), -2);
    order.clear();
    parent[r] = -1;
    stack.assign(1, r);
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      order.push_back(v);
      for (const int w : tree[v])
        if (parent[w] == -2) {
          parent[w] = v;
          stack.push_back(w);
        }
    }
    long long sum = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int v = *it;
      below[v] = weight[v];
      for (const int w : tree[v])
        if (parent[w] == v) below[v] += below[w];
      sum += v == r ? static_cast<long long>(below[v]) * below[v] : static_cast<long long>(1 + below[v]) * (1 + below[v]);
    }
    return sum;
  };
  long long best = cost(root);
  const std::vector<int> candidates = order;
  int best_root = root;
  for (const int r : candidates) {
    if (r == root) continue;
    const long long c = cost(r);
    if (c < best) {
      best = c;
      best_root = r;
    }
  }
  return best_root;
}

// A contact candidate predicted open over the step (SolverOptions::open_candidate_gap): its gap
// at z2 above the threshold, also after its bodies' centres of mass approach for two steps.
bool predicted_open(const Model& model, const Data& d, int c) {
  const double threshold = model.opt.solver.open_candidate_gap;
  const Contact& ct = d.contacts[c];
  if (!(threshold >= 0) || !is_surface_contact(ct)) return false;
  const Pose a2 = ct.body_a == kWorld ? Pose{} : body_pose(d, ct.body_a), b2 = body_pose(d, ct.body_b);
  ContactKinematics k;
  contact_kinematics(ct, a2, b2, a2, b2, 1.0, &k);
  double approach = 0;
  if (d.v.size() == d.x.size()) {
    const Vec3 va = ct.body_a == kWorld ? Vec3::Zero() : d.v[ct.body_a];
    approach = std::max(0.0, ct.normal.dot(va - d.v[ct.body_b])) * 2.0 * workspace(d).dt;
  }
  return k.phi > threshold && k.phi - approach > threshold;
}

// Node sizes and the rows whose pivots may be regularized, the same in both factorizations
// (ws.ldu and ws.velocity_ldu), for the graph build_graph laid out in ws.
void configure_ldu(const Model& model, const Workspace& ws, BlockLdu* ldu) {
  const int nj = static_cast<int>(model.joints.size());
  const int nn = static_cast<int>(model.nonholonomic.size());
  const int nt = static_cast<int>(model.tendons.size()), ncp = static_cast<int>(model.couplings.size());
  const int nc = static_cast<int>(ws.contact_node.size());
  for (int j = 0; j < nj; ++j)  // identity rows: one real row, the rest the padding's identity
    if (ws.passive[j]) ldu->set_node_size(ws.layout.joint_node(j), 1);
  for (int j = 0; j < nj; ++j) {
    unsigned mask = 0;
    for (int r = 0; r < 6; ++r)
      if (model.joints[j].row_constrained(r)) mask |= 1u << r;
    ldu->set_regularized_rows(ws.layout.joint_node(j), mask);
  }
  for (int k = 0; k < nn; ++k) {
    const int rows = model.nonholonomic[k].rows();
    ldu->set_node_size(ws.layout.nonholonomic_node(k), rows);
    ldu->set_regularized_rows(ws.layout.nonholonomic_node(k), (1u << rows) - 1);
  }
  for (int t = 0; t < nt; ++t) ldu->set_node_size(ws.layout.tendon_node(t), 2);
  for (int k = 0; k < ncp; ++k) {  // (a coupling may repeat what the joints already impose)
    ldu->set_node_size(ws.layout.coupling_node(k), 1);
    ldu->set_regularized_rows(ws.layout.coupling_node(k), 1u);
  }
  for (int c = 0; c < nc; ++c)  // redundant contacts
    if (ws.contact_node[c] >= 0) ldu->set_regularized_rows(ws.contact_node[c], 0b1111, true);
}

// ws.ldu.analyze of the graph laid out in ws (multiplier: every node from `bodies` on), or its
// analysis kept from when the graph had the same inputs (Workspace::analyses).
void analyze_graph(Workspace& ws, int n, int bodies, int root, const std::vector<char>& multiplier,
                   bool bodies_first, const std::vector<char>& placement) {
  constexpr int kAnalysesKept = 16;
  for (const Workspace::GraphAnalysis& a : ws.analyses)
    if (a.nodes == n && a.bodies == bodies && a.root == root && a.bodies_first == bodies_first &&
        a.edges == ws.edges && a.placement == placement) {
      ws.ldu.assign_analysis(a.symbolic);
      return;
    }
  ws.ldu.analyze(n, ws.edges, root, &multiplier, bodies_first, &placement);
  if (static_cast<int>(ws.analyses.size()) < kAnalysesKept) ws.analyses.emplace_back();
  Workspace::GraphAnalysis& a = ws.analyses[ws.analyses_next];
  ws.analyses_next = (ws.analyses_next + 1) % kAnalysesKept;
  a.nodes = n;
  a.bodies = bodies;
  a.root = root;
  a.bodies_first = bodies_first;
  a.edges = ws.edges;
  a.placement = placement;
  a.symbolic = ws.ldu.symbolic_copy();
}

}  // namespace

bool graph_matches(const Model& model, const Data& d) {
  const Workspace& ws = workspace(d);
  if (!ws.built || ws.kinds.size() != d.contacts.size()) return false;
  if (ws.contact_bodies.size() != d.contacts.size()) return false;
  for (size_t c = 0; c < d.contacts.size(); ++c)
    if (ws.contact_bodies[c] != std::make_pair(d.contacts[c].body_a, d.contacts[c].body_b) ||
        (ws.contact_node[c] >= 0) != ws.kinds[c]->has_node())
      return false;
  if (ws.passive.size() != model.joints.size()) return false;
  if (ws.nonholonomic_edge.size() != model.nonholonomic.size()) return false;  // (added after the Data)
  if (ws.graph_integrator != model.opt.integrator) return false;
  if (ws.graph_bodies_first != model.opt.solver.bodies_first) return false;
  if (ws.graph_open_gap != model.opt.solver.open_candidate_gap) return false;
  if (ws.graph_closed_last != model.opt.solver.closed_contacts_last) return false;
  if (ws.graph_fill_root != model.opt.solver.fill_least_root) return false;
  if (ws.graph_all_last != (model.opt.solver.reuse_iterations > 0)) return false;
  if (model.opt.solver.open_candidate_gap >= 0) {  // (the order changes when a candidate opens or closes)
    if (ws.contact_first.size() != d.contacts.size()) return false;
    for (size_t c = 0; c < d.contacts.size(); ++c)
      if (ws.contact_node[c] >= 0 &&
          static_cast<bool>(ws.contact_first[c]) != predicted_open(model, d, static_cast<int>(c)))
        return false;
  }
  for (size_t j = 0; j < model.joints.size(); ++j)
    if (static_cast<bool>(ws.passive[j]) != passive_floating(model.joints[j])) return false;
  if (ws.tendon_active.size() != model.tendons.size() || ws.coupling_edges.size() != model.couplings.size())
    return false;
  for (size_t t = 0; t < model.tendons.size(); ++t)
    if (static_cast<bool>(ws.tendon_active[t]) != tendon_active(model, static_cast<int>(t))) return false;
  return true;
}

void build_graph(const Model& model, Data& d) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  const int nc = static_cast<int>(d.contacts.size());
  const int nn = static_cast<int>(model.nonholonomic.size());
  Workspace& ws = workspace(d);
  ws.built = true;
  ws.knot_current = false;
  if (ws.kinds.size() != static_cast<size_t>(nc)) {  // contacts set by hand, not by a collide stage
    ws.kinds.resize(nc);
    for (int c = 0; c < nc; ++c) ws.kinds[c] = &inequality_kind(d.contacts[c]);
  }
  ws.layout = SystemLayout{nb, nj, nn, nb + nj + nn};
  // nodes: bodies 0..nb-1, joints nb..nb+nj-1, contacts after them; an edge per node-body pair
  ws.edges.clear();
  ws.parent_edge.assign(nj, -1);
  ws.child_edge.assign(nj, -1);
  ws.passive.assign(nj, 0);
  int root = -1;
  bool floating_root = false;  // (the root's body floats: fill_least_root may move the root)
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = model.joints[j];
    ws.passive[j] = passive_floating(jt);
    if (ws.passive[j]) {  // an isolated node: its rows are U = Δt·(joint_force + actuators) (step_residual)
      if (jt.parent == kWorld && root < 0) {
        root = jt.child;
        floating_root = true;
      }
      continue;
    }
    if (jt.parent != kWorld) {
      ws.parent_edge[j] = static_cast<int>(ws.edges.size());
      ws.edges.emplace_back(ws.layout.joint_node(j), jt.parent);
    } else if (root < 0) {
      root = jt.child;  // eliminate towards the body held by the world
      floating_root = jt.type == JointType::Floating;
    }
    ws.child_edge[j] = static_cast<int>(ws.edges.size());
    ws.edges.emplace_back(ws.layout.joint_node(j), jt.child);
  }
  // energy–momentum: a joint's force maps depend on both its bodies (em_joint_force_jacobian), a
  // coupling between the bodies that the Newton matrix carries on an edge of its own
  ws.graph_integrator = model.opt.integrator;
  ws.body_edge.assign(nj, -1);
  ws.body_edge_forward.assign(nj, 1);
  if (integrator_scheme(model.opt.integrator).couples_bodies()) {
    std::map<std::pair<int, int>, int> pair_edge;
    for (int j = 0; j < nj; ++j) {
      const Joint& jt = model.joints[j];
      if (ws.passive[j] || jt.parent == kWorld) continue;
      const std::pair<int, int> key(std::min(jt.parent, jt.child), std::max(jt.parent, jt.child));
      auto [it, added] = pair_edge.emplace(key, static_cast<int>(ws.edges.size()));
      if (added) ws.edges.emplace_back(jt.parent, jt.child);
      ws.body_edge[j] = it->second;
      ws.body_edge_forward[j] = ws.edges[it->second].first == jt.parent;
    }
  }
  // nonholonomic constraints: a multiplier node of its rows on its body
  d.nonholonomic_impulse.resize(nn, Vec6::Zero());
  ws.nonholonomic_edge.assign(nn, -1);
  for (int k = 0; k < nn; ++k) {
    ws.nonholonomic_edge[k] = static_cast<int>(ws.edges.size());
    ws.edges.emplace_back(ws.layout.nonholonomic_node(k), model.nonholonomic[k].body);
  }
  // tendons: a node of two rows (impulse, length) with an edge to every body its length depends on,
  // when something acts on it (tendon_active); couplings: a node of one row with an edge to every
  // body of its two coordinates
  const int nt = static_cast<int>(model.tendons.size()), ncp = static_cast<int>(model.couplings.size());
  ws.layout.tendons = nt;
  ws.layout.couplings = ncp;
  ws.tendon_active.assign(nt, 0);
  ws.tendon_bodies.resize(nt);
  ws.tendon_edges.resize(nt);
  ws.tendon_grad2.resize(nt);
  ws.tendon_grad3.resize(nt);
  ws.tendon_length2.assign(nt, 0.0);
  ws.tendon_length3.assign(nt, 0.0);
  ws.tendon_rate2.assign(nt, 0.0);
  ws.tendon_zero_length.assign(nt, 0.0);
  ws.tendon_servo.assign(nt, TendonServo{});
  ws.tendon_poses.resize(nb);
  for (int t = 0; t < nt; ++t) {
    ws.tendon_active[t] = tendon_active(model, t);
    ws.tendon_bodies[t] = tendon_bodies(model, t);
    ws.tendon_grad2[t].assign(ws.tendon_bodies[t].size(), Vec6::Zero());
    ws.tendon_grad3[t].assign(ws.tendon_bodies[t].size(), Vec6::Zero());
    ws.tendon_zero_length[t] = tendon_zero_length(model, t);
    ws.tendon_edges[t].assign(ws.tendon_bodies[t].size(), -1);
    if (!ws.tendon_active[t]) continue;
    for (size_t i = 0; i < ws.tendon_bodies[t].size(); ++i) {
      ws.tendon_edges[t][i] = static_cast<int>(ws.edges.size());
      ws.edges.emplace_back(ws.layout.tendon_node(t), ws.tendon_bodies[t][i]);
    }
  }
  ws.coupling_bodies.resize(ncp);
  ws.coupling_edges.resize(ncp);
  ws.coupling_grad2.resize(ncp);
  ws.coupling_grad3.resize(ncp);
  ws.coupling_value.assign(ncp, 0.0);
  d.tendon_impulse.resize(nt, 0.0);
  d.tendon_length.resize(nt, 0.0);
  d.tendon_force.resize(nt, 0.0);
  d.coupling_impulse.resize(ncp, 0.0);
  for (int k = 0; k < ncp; ++k) {
    const Coupling& c = model.couplings[k];
    std::vector<int>& bodies = ws.coupling_bodies[k];
    bodies.clear();
    auto add = [&bodies](int b) {
      if (b != kWorld && std::find(bodies.begin(), bodies.end(), b) == bodies.end()) bodies.push_back(b);
    };
    for (const int index : {c.a, c.b}) {
      if (index < 0) continue;
      if (c.kind == Coupling::Kind::Tendon) {
        for (int b : ws.tendon_bodies[index]) add(b);
      } else {
        add(model.joints[index].parent);
        add(model.joints[index].child);
      }
    }
    ws.coupling_grad2[k].assign(bodies.size(), Vec6::Zero());
    ws.coupling_grad3[k].assign(bodies.size(), Vec6::Zero());
    ws.coupling_edges[k].assign(bodies.size(), -1);
    for (size_t i = 0; i < bodies.size(); ++i) {
      ws.coupling_edges[k][i] = static_cast<int>(ws.edges.size());
      ws.edges.emplace_back(ws.layout.coupling_node(k), bodies[i]);
    }
  }
  ws.contact_bodies.resize(nc);
  ws.contact_node.assign(nc, -1);
  ws.contact_edge_a.assign(nc, -1);
  ws.contact_edge_b.assign(nc, -1);
  int n = nb + nj + nn + nt + ncp;
  for (int c = 0; c < nc; ++c) {
    const Contact& ct = d.contacts[c];
    ws.contact_bodies[c] = {ct.body_a, ct.body_b};
    if (!ws.kinds[c]->has_node()) continue;  // joint friction: eliminated into its joint's row
    ws.contact_node[c] = n++;
    if (ct.body_a != kWorld) {
      ws.contact_edge_a[c] = static_cast<int>(ws.edges.size());
      ws.edges.emplace_back(ws.contact_node[c], ct.body_a);
    }
    ws.contact_edge_b[c] = static_cast<int>(ws.edges.size());
    ws.edges.emplace_back(ws.contact_node[c], ct.body_b);
  }
  // joint nodes carry multipliers (zero diagonal on constrained rows) and contact nodes become
  // singular on their own as the interior point converges (a sticking contact's η → 0): neither
  // is eliminated before its bodies
  std::vector<char> multiplier(n, 0);
  for (int j = nb; j < n; ++j) multiplier[j] = 1;
  ws.layout.nodes = n;
  // the candidates predicted open first, the other surface contacts last, as loop closures
  // (SolverOptions::open_candidate_gap, closed_contacts_last); bodies first (an option) only where
  // the post-order can fail: inequality nodes joining branches of a tree (a tree alone is Baraff's
  // order, exact and better conditioned for long chains)
  const int equality_nodes = nb + nj + nn + nt + ncp;
  ws.graph_bodies_first = model.opt.solver.bodies_first;
  ws.graph_open_gap = model.opt.solver.open_candidate_gap;
  ws.graph_closed_last = model.opt.solver.closed_contacts_last;
  ws.graph_fill_root = model.opt.solver.fill_least_root;
  ws.graph_all_last = model.opt.solver.reuse_iterations > 0;
  ws.contact_first.assign(nc, 0);
  std::vector<char> placement(n, kPlaceByOrder);
  for (int c = 0; c < nc; ++c) {
    if (ws.contact_node[c] < 0) continue;
    ws.contact_first[c] = predicted_open(model, d, c);
    // (reusing the smooth part's factors: every inequality node not predicted open goes last)
    const bool last =
        ws.graph_all_last || (model.opt.solver.closed_contacts_last && is_surface_contact(d.contacts[c]));
    placement[ws.contact_node[c]] = ws.contact_first[c] ? kPlaceFirst : last ? kPlaceLast : kPlaceByOrder;
  }
  const bool loop = equality_loop(model, ws, equality_nodes);
  const bool bodies_first = ws.graph_bodies_first && n > equality_nodes && !loop;
  // (the root of a loop of joints and connections is where the post-order leaves the loop's
  // redundancy, docs/computation.md §6: kept)
  if (model.opt.solver.fill_least_root && model.opt.solver.closed_contacts_last && floating_root && !bodies_first &&
      !equality_loop(model, ws, equality_nodes, false))
    root = fill_least_root(model, ws, d, placement, root);
  analyze_graph(ws, n, nb, root, multiplier, bodies_first, placement);
  configure_ldu(model, ws, &ws.ldu);
  ws.graph_root = root;
  // a placed state's velocity projection (project_state) with the bodies first where equality
  // constraints close a loop: the multipliers' pivots are then blocks of −J M⁻¹ Jᵀ; in the
  // post-order, rows exactly redundant on the loop and nearly so 1e-14 off it amplified round-off
  // ~1e10 (Cassie's placed velocities were noisy at 1e-2). Analyzed when first used: its
  // minimum-degree order over every contact node cost more than the step's own analysis.
  ws.velocity_ldu_separate = loop;
  ws.velocity_ldu_stale = loop;
  ws.rows2.resize(nj);
  ws.rows3.resize(nj);
  ws.joint_block_a.resize(nj);
  ws.joint_block_b.resize(nj);
  ws.joint_frame_a.resize(nj);
  ws.joint_frame_b.resize(nj);
  for (int j = 0; j < nj; ++j) {  // (each step's prepare sets them again)
    ws.joint_frame_a[j] = quat_to_rot(model.joints[j].parent_frame);
    ws.joint_frame_b[j] = quat_to_rot(model.joints[j].child_frame);
  }
  ws.joint_rate2.resize(nj);
  ws.row_damping.resize(nj);
  ws.x3.resize(nb);
  ws.q3.resize(nb);
  ws.em_interval.resize(nb);
  ws.em_row_torque.resize(nb);
  ws.newmark_w3.resize(nb);
  ws.em_map_a.resize(nj);
  ws.em_map_b.resize(nj);
  ws.nonholonomic_rows.resize(nn);
  ws.contact_map_a.resize(nc);
  ws.contact_map_b.resize(nc);
  ws.contact_kin.resize(nc);
  ws.cone_lin.resize(nc);
  ws.spin_lin.resize(nc);
  ws.spin_axis_a.resize(nc);
  ws.spin_axis_b.resize(nc);
  ws.fold_inverse.resize(nc);
  ws.fold_gain.resize(nc);
  ws.fold_offset.resize(nc);
  ws.fold_row_scale.resize(nc);
  const int size = ws.layout.size();
  ws.unknowns.setZero(size);
  ws.trial.setZero(size);
  ws.residual.setZero(size);
  ws.trial_residual.setZero(size);
  ws.delta.setZero(size);
}

void analyze_velocity_ldu(const Model& model, Workspace& ws) {
  if (!ws.velocity_ldu_stale) return;
  const int n = ws.layout.nodes;
  std::vector<char> multiplier(n, 0);  // (every node but the bodies, as in build_graph)
  for (int j = static_cast<int>(model.bodies.size()); j < n; ++j) multiplier[j] = 1;
  ws.velocity_ldu.analyze(n, ws.edges, ws.graph_root, &multiplier, true);
  configure_ldu(model, ws, &ws.velocity_ldu);
  ws.velocity_ldu_stale = false;
}

}  // namespace maxsim
