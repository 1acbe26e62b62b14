// The contact candidate search's world: the collision geoms and planes built once from the
// Model, the filters (joints, excludes, contype/conaffinity), the broad phase, and per pair the
// narrow phase the pair table picks, whose points are merged, capped and emitted in body frames.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/geometry/collision.hpp"
#include "sim/geometry/narrow_phase.hpp"
#include "sim/geometry/ground.hpp"

namespace maxsim {

using namespace collision;

struct CollisionWorld::Impl {
  struct Task {
    int body_a, body_b, geom_a, geom_b;
    int ia, ib;      // ia: plane id (plane task) or geom id; ib: geom id
    bool plane;
    int pair = -1;   // an explicit pair (Model::contact_pairs, in `pairs`) or -1
    bool operator<(const Task& o) const {
      if (body_a != o.body_a) return body_a < o.body_a;
      if (body_b != o.body_b) return body_b < o.body_b;
      if (geom_a != o.geom_a) return geom_a < o.geom_a;
      return geom_b < o.geom_b;
    }
  };

  CollisionOptions opt;
  int nbodies = 0;
  std::vector<CGeom> geoms;     // body geoms (body order, geom order), then static world geoms
  std::vector<CPlane> planes;   // the ground first, then world planes
  std::vector<std::vector<int>> body_geoms;  // per body: its geom ids
  std::vector<std::uint64_t> excluded;       // sorted body-pair keys
  std::vector<char> world_excluded;          // per body: never touches world geoms / ground
  // explicit pairs (Model::contact_pairs) as tasks, sorted by key, with their coefficients; the
  // keys of their geom pairs, which the dynamic search then skips
  struct Pair {
    Task task;
    double friction, torsion, margin;  // < 0: the geoms' (as a dynamic contact)
    int condim;                        // the pair's
  };
  std::vector<Pair> pairs;
  std::vector<std::uint64_t> pair_keys;        // geom id pairs (key of the two ids)
  std::vector<std::uint64_t> plane_pair_keys;  // (plane id, geom id)
  bool dynamic = true;                         // Model::dynamic_contacts

  // scratch, reused every call
  std::vector<Mat3> Rb;
  std::vector<int> order;  // the broad phase's sweep order, kept for the next call
  int last_axis = -1;
  std::vector<Task> tasks;
  NarrowPhase np;
  // per pair of geoms (ia · n + ib, models of at most kMaxCachedGeoms geoms): the distance the
  // last narrow phase measured beyond its threshold and the two geoms' poses then; −∞ when none
  struct Separation {
    double d = -std::numeric_limits<double>::infinity();
    Vec3 pa, pb;
    Mat3 Ra, Rb;
  };
  static constexpr int kMaxCachedGeoms = 256;
  std::vector<Separation> separations;
  std::vector<PairPoint> kept;
  std::vector<char> chosen;

  static std::uint64_t key(int a, int b) {
    if (a > b) std::swap(a, b);
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a + 1)) << 32) |
           static_cast<std::uint32_t>(b + 1);
  }

  bool bodies_may_collide(int a, int b) const {
    if (a == b) return false;
    if (a == kWorld || b == kWorld) {
      const int body = a == kWorld ? b : a;
      return body >= 0 && body < nbodies && !world_excluded[body];
    }
    return !std::binary_search(excluded.begin(), excluded.end(), key(a, b));
  }

  static bool affinity(int ct_a, int ca_a, int ct_b, int ca_b) {
    return (ct_a & ca_b) || (ct_b & ca_a);
  }

  // The bodies of the first geom pair the searches can ever test (the filters above at any pose:
  // explicit pairs, then body–plane, then geom–geom); {-2, -2} if none. kWorld for the world.
  // (The geoms and filters are fixed once built: it is searched for once, integrator_support asks
  // at every step of an energy–momentum run.)
  std::pair<int, int> first_possible_pair() const {
    if (!first_pair) first_pair = search_first_possible_pair();
    return *first_pair;
  }
  mutable std::optional<std::pair<int, int>> first_pair;
  std::pair<int, int> search_first_possible_pair() const {
    if (!pairs.empty()) return {pairs.front().task.body_a, pairs.front().task.body_b};
    if (!dynamic) return {-2, -2};
    for (int b = 0; b < nbodies; ++b) {
      if (world_excluded[b]) continue;
      for (const CPlane& p : planes)
        for (int gi : body_geoms[b])
          if (affinity(p.contype, p.conaffinity, geoms[gi].contype, geoms[gi].conaffinity)) return {kWorld, b};
    }
    for (size_t i = 0; i < geoms.size(); ++i)
      for (size_t j = i + 1; j < geoms.size(); ++j) {
        const CGeom& gi = geoms[i];
        const CGeom& gj = geoms[j];
        if (gi.body != gj.body && affinity(gi.contype, gi.conaffinity, gj.contype, gj.conaffinity) &&
            bodies_may_collide(gi.body, gj.body))
          return {std::min(gi.body, gj.body), std::max(gi.body, gj.body)};
      }
    return {-2, -2};
  }

  // max of the pair's coefficients, an undeclared one (< 0) taking the world default
  static double combine(double a, double b, double world_default) {
    if (a < 0) a = world_default;
    if (b < 0) b = world_default;
    return std::max(a, b);
  }

  // MuJoCo's mixing of two geoms' friction and condim (collision.hpp): the higher priority's,
  // else max and the larger condim; returns the condim (its effect is applied by the caller)
  template <class A, class B>
  int mix(const A& a, const B& b, double* friction, double* torsion) const {
    double fa = a.friction < 0 ? opt.default_friction : a.friction;
    double fb = b.friction < 0 ? opt.default_friction : b.friction;
    int condim = std::max(a.condim, b.condim);
    if (a.priority != b.priority) {
      const bool first = a.priority > b.priority;
      *friction = first ? fa : fb;
      *torsion = first ? a.torsion : b.torsion;
      condim = first ? a.condim : b.condim;
    } else {
      *friction = std::max(fa, fb);
      *torsion = std::max(a.torsion, b.torsion);
    }
    return condim;
  }

  // ---- construction -----------------------------------------------------------------------
  Impl(const Model& model, const CollisionOptions& options) : opt(options) {
    nbodies = static_cast<int>(model.bodies.size());
    body_geoms.resize(nbodies);
    // per body (and the world, last) and model geom index: the collision geom id, or the plane
    // id encoded as -2 - id, or -1 (not collision geometry)
    std::vector<std::vector<int>> id_of(nbodies + 1);
    for (int b = 0; b < nbodies; ++b) {
      const auto& gs = model.bodies[b].geoms;
      id_of[b].assign(gs.size(), -1);
      for (int i = 0; i < static_cast<int>(gs.size()); ++i) {
        // planes and height fields are world geometry (ignored on moving bodies)
        if (!gs[i].collision || gs[i].type == GeomType::Plane || gs[i].type == GeomType::HField) continue;
        if (add_geom(model, gs[i], b, i)) {
          body_geoms[b].push_back(static_cast<int>(geoms.size()) - 1);
          id_of[b][i] = static_cast<int>(geoms.size()) - 1;
        }
      }
    }
    id_of[nbodies].assign(model.world_geoms.size(), -1);
    if (opt.ground) {
      CPlane g;
      g.index = -1;
      g.friction = opt.default_friction;
      g.restitution = opt.default_restitution;
      planes.push_back(g);
    }
    for (int i = 0; i < static_cast<int>(model.world_geoms.size()); ++i) {
      const Geom& g = model.world_geoms[i];
      if (!g.collision) continue;
      if (g.type == GeomType::Plane) {
        CPlane p;
        p.index = i;
        p.p0 = g.pos;
        p.n = quat_to_rot(quat_normalize(g.quat)).col(2);
        p.margin = g.margin;
        p.friction = g.friction;
        p.restitution = g.restitution;
        p.contype = g.contype;
        p.conaffinity = g.conaffinity;
        p.condim = g.condim;
        p.priority = g.priority;
        p.torsion = g.torsional_friction;
        planes.push_back(p);
        id_of[nbodies][i] = -2 - (static_cast<int>(planes.size()) - 1);
      } else if (add_geom(model, g, kWorld, i)) {
        id_of[nbodies][i] = static_cast<int>(geoms.size()) - 1;
      }
    }
    // static world geoms: pose fixed once
    for (CGeom& g : geoms)
      if (g.body == kWorld) place(g, Vec3::Zero(), Mat3::Identity());

    // bodies welded into the world or excluded from it (shared with the penetration diagnostic)
    const std::vector<bool> apart = bodies_apart_from_world(model);
    world_excluded.assign(apart.begin(), apart.end());
    auto exclude = [&](int a, int b) {  // body pairs (pairs with the world are in `apart`)
      if (a == b || a < 0 || b < 0 || a >= nbodies || b >= nbodies) return;
      excluded.push_back(key(a, b));
    };
    if (model.collision_filter == CollisionFilter::ParentChild) {
      if (opt.exclude_joined)
        for (const auto& [a, b] : model.filtered_pairs) exclude(a, b);
    } else if (opt.exclude_joined) {
      // Joined = one joint apart, or a chain of joints whose intermediate bodies have no
      // collision geoms.
      std::vector<std::vector<int>> adjacent(nbodies);
      for (const Joint& j : model.joints) {
        if (j.parent == kWorld || j.parent < 0 || j.child < 0 || j.parent >= nbodies ||
            j.child >= nbodies)
          continue;
        adjacent[j.parent].push_back(j.child);
        adjacent[j.child].push_back(j.parent);
      }
      std::vector<int> stack, seen(nbodies, -1);
      for (int b = 0; b < nbodies; ++b) {
        if (body_geoms[b].empty()) continue;
        stack.assign(1, b);
        seen[b] = b;
        while (!stack.empty()) {
          const int u = stack.back();
          stack.pop_back();
          for (int v : adjacent[u]) {
            if (seen[v] == b) continue;
            seen[v] = b;
            if (body_geoms[v].empty()) stack.push_back(v);  // pass through geom-less bodies
            else exclude(b, v);
          }
        }
      }
    }
    for (const auto& [a, b] : model.contact_excludes) exclude(a, b);
    std::sort(excluded.begin(), excluded.end());
    excluded.erase(std::unique(excluded.begin(), excluded.end()), excluded.end());

    dynamic = model.dynamic_contacts;
    for (size_t k = 0; k < model.contact_pairs.size(); ++k) {
      const ContactPair& cp = model.contact_pairs[k];
      auto id = [&](int body, int geom) {
        const int slot = body == kWorld ? nbodies : body;
        if (slot < 0 || slot > nbodies || geom < 0 || geom >= static_cast<int>(id_of[slot].size())) return -1;
        return id_of[slot][geom];
      };
      int a = id(cp.body1, cp.geom1), b = id(cp.body2, cp.geom2);
      if (a == -1 || b == -1) continue;  // not collision geometry (a mesh without vertices)
      if (b <= -2) std::swap(a, b);      // a plane first
      if (b <= -2) continue;             // two planes
      Pair p;
      p.friction = cp.friction;
      p.torsion = cp.torsional_friction;
      p.margin = cp.margin;
      p.condim = cp.condim;
      if (a <= -2) {  // plane and geom
        const int pi = -2 - a;
        p.task = {kWorld, geoms[b].body, planes[pi].index, geoms[b].index, pi, b, true, 0};
        plane_pair_keys.push_back(key(pi, b));
      } else {
        if (geoms[a].body == geoms[b].body) continue;  // one body: they never move apart
        if (geoms[a].body > geoms[b].body) std::swap(a, b);  // A: the lower body (the world first)
        p.task = {geoms[a].body, geoms[b].body, geoms[a].index, geoms[b].index, a, b, false, 0};
        pair_keys.push_back(key(a, b));
      }
      pairs.push_back(p);
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.task < y.task; });
    for (int k = 0; k < static_cast<int>(pairs.size()); ++k) pairs[k].task.pair = k;
    std::sort(pair_keys.begin(), pair_keys.end());
    std::sort(plane_pair_keys.begin(), plane_pair_keys.end());

    for (int i = 0; i < static_cast<int>(geoms.size()); ++i) order.push_back(i);
    Rb.resize(nbodies);
    tasks.reserve(4 * geoms.size() + pairs.size() + 16);
    np.pts.reserve(64);
    kept.reserve(64);
    chosen.reserve(64);
    np.clip_points.reserve(64);
    np.features.reserve(64);
    np.field_pts.reserve(64);
    make_prism(&np.prism);
  }

  Impl(const Impl&) = default;

  // A copy's scratch as large as the original's: it steps without allocating as the original does.
  void reserve_like(const Impl& o) {
    Rb.reserve(o.Rb.capacity());
    order.reserve(o.order.capacity());
    tasks.reserve(o.tasks.capacity());
    np.pts.reserve(o.np.pts.capacity());
    np.field_pts.reserve(o.np.field_pts.capacity());
    np.features.reserve(o.np.features.capacity());
    np.clip_points.reserve(o.np.clip_points.capacity());
    np.clip_v1.reserve(o.np.clip_v1.capacity());
    np.clip_v2.reserve(o.np.clip_v2.capacity());
    np.world_verts_a.reserve(o.np.world_verts_a.capacity());
    np.world_verts_b.reserve(o.np.world_verts_b.capacity());
    kept.reserve(o.kept.capacity());
    chosen.reserve(o.chosen.capacity());
  }

  // Returns false (and adds nothing) for a geom that cannot collide (mesh without vertices).
  bool add_geom(const Model& model, const Geom& src, int body, int index) {
    CGeom g;
    g.body = body;
    g.index = index;
    g.type = src.type;
    g.pos = src.pos;
    g.rot = quat_to_rot(quat_normalize(src.quat));
    g.size = src.size;
    g.margin = src.margin;
    g.friction = src.friction;
    g.restitution = src.restitution;
    g.contype = src.contype;
    g.conaffinity = src.conaffinity;
    g.condim = src.condim;
    g.priority = src.priority;
    g.torsion = src.torsional_friction;
    if (src.type == GeomType::HField) {  // the heights are the model's (Model::hfields)
      if (src.hfield < 0 || src.hfield >= static_cast<int>(model.hfields.size()))
        throw std::invalid_argument("CollisionWorld: hfield geom '" + src.name + "' refers to height field " +
                                    std::to_string(src.hfield) + " of " + std::to_string(model.hfields.size()));
      const HeightField& hf = model.hfields[src.hfield];
      g.nrow = hf.nrow;
      g.ncol = hf.ncol;
      g.size = Vec3(hf.size(0), hf.size(1), hf.size(2));
      g.base = hf.size(3);
      g.heights.resize(hf.data.size());
      for (size_t k = 0; k < hf.data.size(); ++k) g.heights[k] = hf.size(2) * hf.data[k];
    }
    if (!collision_shape(src.type).build(src, &g)) return false;
    geoms.push_back(std::move(g));
    return true;
  }

  // World pose and AABB of a geom on a body at (x, R).
  void place(CGeom& g, const Vec3& x, const Mat3& R) {
    g.wpos = x + R * g.pos;
    g.wrot = R * g.rot;
    g.tf = to_bt(g.wrot, g.wpos);
    Vec3 c = g.wpos, h = Vec3::Zero();
    collision_shape(g.type).bounds(g, &c, &h);
    const double e = 0.5 * opt.margin + g.margin;
    g.lo = c - h - Vec3::Constant(e);
    g.hi = c + h + Vec3::Constant(e);
  }

  // ---- the search ---------------------------------------------------------------------------
  void find(const std::vector<Vec3>& x, const std::vector<Vec4>& q,
            std::vector<ContactCandidate>* out) {
    if (static_cast<int>(x.size()) < nbodies || static_cast<int>(q.size()) < nbodies)
      throw std::invalid_argument("CollisionWorld::find_candidates: " + std::to_string(nbodies) +
                                  " body poses expected");
    out->clear();
    tasks.clear();
    if (separations.empty() && geoms.size() <= kMaxCachedGeoms) separations.resize(geoms.size() * geoms.size());
    for (int b = 0; b < nbodies; ++b) {
      if (!x[b].allFinite() || !q[b].allFinite() || q[b].norm() == 0)
        throw std::invalid_argument("CollisionWorld::find_candidates: non-finite pose of body " +
                                    std::to_string(b));
      Rb[b] = quat_to_rot(q[b] / q[b].norm());
      for (int gi : body_geoms[b]) place(geoms[gi], x[b], Rb[b]);
    }
    if (dynamic) plane_tasks();  // generated in key order
    const size_t nplane = tasks.size();
    if (dynamic) broad_phase();
    for (const Pair& p : pairs) tasks.push_back(p.task);  // (the dynamic ones of their geoms skipped)
    std::sort(tasks.begin() + nplane, tasks.end());
    // walk the two sorted runs in merged order
    size_t i = 0, j = nplane;
    while (i < nplane || j < tasks.size()) {
      const bool take_plane = j == tasks.size() || (i < nplane && !(tasks[j] < tasks[i]));
      run(tasks[take_plane ? i++ : j++], x, out);
    }
  }

  // How far any point of geom g can have moved since it was at (p, R): its frame's shift plus the
  // largest turn of an offset within the geom's reach from its frame (‖ΔR‖₂ ≤ ‖ΔR‖_F).
  double moved(const CGeom& g, const Vec3& p, const Mat3& R) const {
    const Vec3 c = 0.5 * (g.lo + g.hi);
    const Vec3 h = 0.5 * (g.hi - g.lo) - Vec3::Constant(0.5 * opt.margin + g.margin);
    const double reach = (c - g.wpos).norm() + h.cwiseMax(0.0).norm();
    return (g.wpos - p).norm() + (g.wrot - R).norm() * reach;
  }

  void run(const Task& t, const std::vector<Vec3>& x, std::vector<ContactCandidate>* out) {
    np.pts.clear();
    np.separation = -std::numeric_limits<double>::infinity();
    double friction, torsion, restitution, margin;
    int condim;
    const Pair* pair = t.pair >= 0 ? &pairs[t.pair] : nullptr;
    // an explicit pair's margin replaces the geoms' (combined with max otherwise); the threshold
    // is the search margin plus it
    auto geom_margin = [&](double ma, double mb) { return pair && pair->margin >= 0 ? pair->margin : std::max(ma, mb); };
    if (t.plane) {
      const CPlane& p = planes[t.ia];
      const CGeom& g = geoms[t.ib];
      margin = geom_margin(p.margin, g.margin);
      if (const auto f = collision_shape(g.type).against_plane) f(p, g, opt.margin + margin, np);
      condim = mix(p, g, &friction, &torsion);
      restitution = combine(p.restitution, g.restitution, opt.default_restitution);
    } else {
      const CGeom& a = geoms[t.ia];
      const CGeom& b = geoms[t.ib];
      margin = geom_margin(a.margin, b.margin);
      const double thr = opt.margin + margin;
      Separation* sep = separations.empty() ? nullptr : &separations[t.ia * geoms.size() + t.ib];
      // a pair the last narrow phase found beyond its threshold, whose geoms have not moved
      // enough since to come within it, would be found beyond it again: not queried (GJK's
      // distance exceeds the true one by far less than kSeparationSlack)
      constexpr double kSeparationSlack = 1e-4;  // m
      if (sep && sep->d >= thr &&
          sep->d - moved(a, sep->pa, sep->Ra) - moved(b, sep->pb, sep->Rb) - kSeparationSlack >= thr)
        return;
      if (const PairFunction f = pair_function(a.type, b.type)) f(a, b, thr, np);
      if (sep) {
        sep->d = np.pts.empty() ? np.separation : -std::numeric_limits<double>::infinity();
        if (sep->d > -std::numeric_limits<double>::infinity()) {
          sep->pa = a.wpos, sep->pb = b.wpos;
          sep->Ra = a.wrot, sep->Rb = b.wrot;
        }
      }
      condim = mix(a, b, &friction, &torsion);
      restitution = combine(a.restitution, b.restitution, opt.default_restitution);
    }
    if (pair) {  // the pair's own condim and coefficients replace the geoms' mix
      if (pair->friction >= 0) friction = pair->friction;
      if (pair->torsion >= 0) torsion = pair->torsion;
      condim = pair->condim;
    }
    if (condim == 1) friction = 0;
    if (condim < 4) torsion = 0;
    if (np.pts.empty()) return;
    reduce();
    for (const PairPoint& p : np.pts) emit(t, p, friction, torsion, restitution, margin, x, out);
  }

  double threshold(double ma, double mb) const { return opt.margin + std::max(ma, mb); }

  // Body–plane tasks in key order (body, plane: the ground first then world planes by index,
  // geom), skipping geoms whose AABB is beyond the threshold.
  void plane_tasks() {
    for (int b = 0; b < nbodies; ++b) {
      if (world_excluded[b]) continue;
      for (int pi = 0; pi < static_cast<int>(planes.size()); ++pi) {
        const CPlane& p = planes[pi];
        for (int gi : body_geoms[b]) {
          const CGeom& g = geoms[gi];
          if (!affinity(p.contype, p.conaffinity, g.contype, g.conaffinity)) continue;
          // lower bound of the distance from the (unenlarged) AABB
          const Vec3 c = 0.5 * (g.lo + g.hi);
          const Vec3 h = 0.5 * (g.hi - g.lo) - Vec3::Constant(0.5 * opt.margin + g.margin);
          const double lb = p.n.dot(c - p.p0) - p.n.cwiseAbs().dot(h);
          if (lb >= threshold(p.margin, g.margin)) continue;
          if (!plane_pair_keys.empty() &&
              std::binary_search(plane_pair_keys.begin(), plane_pair_keys.end(), key(pi, gi)))
            continue;  // an explicit pair tests them
          tasks.push_back({kWorld, b, p.index, g.index, pi, gi, true});
        }
      }
    }
  }

  void broad_phase() {
    const int n = static_cast<int>(geoms.size());
    if (n < 2) return;
    // axis of the largest spread of the AABB centres
    Vec3 mean = Vec3::Zero(), sq = Vec3::Zero();
    for (const CGeom& g : geoms) {
      const Vec3 c = 0.5 * (g.lo + g.hi);
      mean += c;
      sq += c.cwiseProduct(c);
    }
    mean /= n;
    const Vec3 var = sq / n - mean.cwiseProduct(mean);
    int axis = 0;
    var.maxCoeff(&axis);
    auto less = [&](int i, int j) {
      const double a = geoms[i].lo(axis), b = geoms[j].lo(axis);
      return a < b || (a == b && i < j);
    };
    if (axis != last_axis) {
      std::sort(order.begin(), order.end(), less);
      last_axis = axis;
    } else {  // insertion sort: O(n) for coherent motion
      for (int i = 1; i < n; ++i) {
        const int v = order[i];
        int j = i - 1;
        while (j >= 0 && less(v, order[j])) {
          order[j + 1] = order[j];
          --j;
        }
        order[j + 1] = v;
      }
    }
    for (int i = 0; i < n; ++i) {
      const CGeom& gi = geoms[order[i]];
      for (int j = i + 1; j < n; ++j) {
        const CGeom& gj = geoms[order[j]];
        if (gj.lo(axis) > gi.hi(axis)) break;
        if ((gi.lo.array() > gj.hi.array()).any() || (gj.lo.array() > gi.hi.array()).any())
          continue;
        if (gi.body == gj.body) continue;
        if (!affinity(gi.contype, gi.conaffinity, gj.contype, gj.conaffinity)) continue;
        if (!bodies_may_collide(gi.body, gj.body)) continue;
        int ia = order[i], ib = order[j];
        // A: the lower body index (the world first); within a body pair, by geom index
        if (geoms[ia].body > geoms[ib].body) std::swap(ia, ib);
        if (!pair_keys.empty() && std::binary_search(pair_keys.begin(), pair_keys.end(), key(ia, ib)))
          continue;  // an explicit pair tests them
        tasks.push_back({geoms[ia].body, geoms[ib].body, geoms[ia].index, geoms[ib].index, ia, ib,
                         false});
      }
    }
  }


  // Merges coincident points and keeps at most kMaxPairPoints: the deepest, then repeatedly the
  // one farthest from those kept (the spread of the contact patch), in generation order.
  void reduce() {
    kept.clear();
    for (const PairPoint& p : np.pts) {
      const Vec3 m = 0.5 * (p.pa + p.pb);
      bool dup = false;
      for (const PairPoint& k : kept)
        if ((0.5 * (k.pa + k.pb) - m).norm() < kMergeDistance && k.n.dot(p.n) > 1 - 1e-6) {
          dup = true;
          break;
        }
      if (!dup) kept.push_back(p);
    }
    const int n = static_cast<int>(kept.size());
    if (n <= kMaxPairPoints) {
      np.pts.swap(kept);
      return;
    }
    chosen.assign(n, 0);
    int deepest = 0;
    for (int i = 1; i < n; ++i)
      if (kept[i].d < kept[deepest].d) deepest = i;
    chosen[deepest] = 1;
    for (int count = 1; count < kMaxPairPoints; ++count) {
      int far = -1;
      double far_d = -1;
      for (int i = 0; i < n; ++i) {
        if (chosen[i]) continue;
        double dmin = kInf;
        for (int j = 0; j < n; ++j)
          if (chosen[j]) dmin = std::min(dmin, (kept[i].pb - kept[j].pb).squaredNorm());
        if (dmin > far_d) far_d = dmin, far = i;
      }
      chosen[far] = 1;
    }
    np.pts.clear();
    for (int i = 0; i < n; ++i)
      if (chosen[i]) np.pts.push_back(kept[i]);
  }

  void emit(const Task& t, const PairPoint& p, double friction, double torsion, double restitution,
            double margin, const std::vector<Vec3>& x, std::vector<ContactCandidate>* out) const {
    ContactCandidate c;
    c.margin = margin;
    c.body_a = t.body_a;
    c.body_b = t.body_b;
    c.geom_a = t.geom_a;
    c.geom_b = t.geom_b;
    c.normal = p.n;
    c.distance = p.n.dot(p.pb - p.pa);
    c.friction = friction;
    c.torsion = torsion;
    c.restitution = restitution;
    c.radius_a = p.ra;
    c.radius_b = p.rb;
    const Vec3 core_a = p.pa - p.ra * p.n, core_b = p.pb + p.rb * p.n;
    if (t.body_a == kWorld) {
      c.point_a = p.pa;
      c.core_a = core_a;
    } else {
      const Mat3& R = Rb[t.body_a];
      c.point_a = R.transpose() * (p.pa - x[t.body_a]);
      c.core_a = R.transpose() * (core_a - x[t.body_a]);
    }
    const Mat3& R = Rb[t.body_b];
    c.point_b = R.transpose() * (p.pb - x[t.body_b]);
    c.core_b = R.transpose() * (core_b - x[t.body_b]);
    out->push_back(c);
  }
};

// ---------------------------------------------------------------------------------------------
CollisionWorld::CollisionWorld(const Model& model, const CollisionOptions& options)
    : impl_(std::make_unique<Impl>(model, options)) {}
CollisionWorld::~CollisionWorld() = default;
CollisionWorld::CollisionWorld(const CollisionWorld& other)
    : impl_(other.impl_ ? std::make_unique<Impl>(*other.impl_) : nullptr) {
  if (impl_) impl_->reserve_like(*other.impl_);
}
CollisionWorld& CollisionWorld::operator=(const CollisionWorld& other) {
  if (this != &other) *this = CollisionWorld(other);
  return *this;
}
CollisionWorld::CollisionWorld(CollisionWorld&&) noexcept = default;
CollisionWorld& CollisionWorld::operator=(CollisionWorld&&) noexcept = default;

void CollisionWorld::find_candidates(const std::vector<Vec3>& x, const std::vector<Vec4>& q,
                                     std::vector<ContactCandidate>* out) {
  impl_->find(x, q, out);
}

const CollisionOptions& CollisionWorld::options() const { return impl_->opt; }
void CollisionWorld::set_margin(double margin) {
  if (!(margin >= 0) || !std::isfinite(margin))
    throw std::invalid_argument("CollisionWorld::set_margin: the margin must be finite and >= 0");
  impl_->opt.margin = margin;
}
std::pair<int, int> CollisionWorld::first_possible_pair() const { return impl_->first_possible_pair(); }

bool CollisionWorld::bodies_may_collide(int a, int b) const {
  return impl_->bodies_may_collide(a, b);
}
int CollisionWorld::num_geoms() const { return static_cast<int>(impl_->geoms.size()); }

}  // namespace maxsim
