// Everything the closed forms do not cover: GJK/EPA on the shapes' cores (sphere: its centre,
// capsule: its segment) with the radii added analytically, checked by a certificate; face
// clipping for two polyhedra; feature points (capsule ends, cylinder rims, vertices against a
// cylinder) tested against the other shape.
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>

#include <algorithm>
#include <cmath>

#include "sim/geometry/narrow_phase.hpp"

namespace maxsim::collision {

namespace {

// Records the points reported by btPolyhedralContactClipping.
struct ClipResult : btDiscreteCollisionDetectorInterface::Result {
  std::vector<std::pair<Vec3, double>>* points = nullptr;  // (point on the incident hull, depth)
  void setShapeIdentifiersA(int, int) override {}
  void setShapeIdentifiersB(int, int) override {}
  void addContactPoint(const btVector3&, const btVector3& point, btScalar depth) override {
    points->emplace_back(to_eigen(point), depth);
  }
};

// ---- GJK with a certificate -------------------------------------------------------------------
// Bullet's GJK (btGjkEpaSolver2::Distance) also stops when a new support point repeats one of
// the last four, which is not convergence when it returns to a vertex it dropped earlier: on box
// pairs in random orientations it then reports a distance too large (1 in ~700 pairs, by up to
// 1.3 cm, and contacts within the margin missed). Its answer is therefore checked: the cores'
// separation along its normal (a lower bound of the distance) must reach the witnesses' distance
// (an upper bound) within kGapTolerance; otherwise the GJK below, which stops only on that
// certificate or when no support point makes progress, takes over from Bullet's normal.

// Support point of a core (without margin, as GJK uses it) in the world direction u.
Vec3 core_support(const btConvexShape* s, const btTransform& t, const Vec3& u) {
  const btVector3 local = t.getBasis().transpose() * to_bt(u);
  return to_eigen(t * s->localGetSupportVertexWithoutMarginNonVirtual(local));
}

// Lower bound of the distance of two cores from a unit direction n (A -> B): their separation.
double core_separation(const btConvexShape* sa, const btTransform& ta, const btConvexShape* sb,
                       const btTransform& tb, const Vec3& n) {
  return n.dot(core_support(sb, tb, -n)) - n.dot(core_support(sa, ta, n));
}

struct SimplexPoint {
  Vec3 w, a, b;  // w = b - a: a point of the Minkowski difference B - A
};

// Nearest point to the origin of the hull of the n <= 4 simplex points: every face of the
// simplex is tried (the minimiser of |x| on its affine hull, kept when its barycentric weights
// are >= 0), smaller faces first, and the nearest wins. A degenerate face (nearly singular Gram
// matrix) is skipped: its nearest point lies on one of its own faces, which are tried too. This
// enumeration cannot pick a wrong region the way incremental region tests can when the simplex
// is flat. Returns the squared distance; `mask` and `weight` give the face and its weights.
double nearest_on_simplex(const SimplexPoint* s, int n, int* mask, double* weight) {
  static constexpr int kOrder[15] = {1, 2, 4, 8, 3, 5, 6, 9, 10, 12, 7, 11, 13, 14, 15};
  double best = kInf;
  for (int m : kOrder) {
    if (m >= (1 << n)) continue;
    int idx[4], k = 0;
    for (int i = 0; i < n; ++i)
      if (m & (1 << i)) idx[k++] = i;
    const Vec3& p0 = s[idx[0]].w;
    double mu[3] = {0, 0, 0};
    if (k > 1) {
      Eigen::Matrix<double, 3, 3> E = Eigen::Matrix<double, 3, 3>::Zero();
      for (int j = 1; j < k; ++j) E.col(j - 1) = s[idx[j]].w - p0;
      const Mat3 G = E.transpose() * E;
      const Vec3 rhs = -(E.transpose() * p0);
      double scale = 1;
      for (int j = 0; j < k - 1; ++j) scale *= G(j, j);
      if (k == 2) {
        if (!(G(0, 0) > 1e-300)) continue;
        mu[0] = rhs(0) / G(0, 0);
      } else if (k == 3) {
        const Eigen::Matrix2d g = G.topLeftCorner<2, 2>();
        const double det = g.determinant();
        if (!(det > 1e-12 * scale)) continue;
        const Eigen::Vector2d x = g.inverse() * rhs.head<2>();
        mu[0] = x(0), mu[1] = x(1);
      } else {
        const double det = G.determinant();
        if (!(det > 1e-12 * scale)) continue;
        const Vec3 x = G.inverse() * rhs;
        mu[0] = x(0), mu[1] = x(1), mu[2] = x(2);
      }
    }
    double lambda[4] = {1, 0, 0, 0};
    for (int j = 1; j < k; ++j) lambda[0] -= mu[j - 1], lambda[j] = mu[j - 1];
    bool inside = true;
    for (int j = 0; j < k; ++j) inside = inside && lambda[j] >= 0;
    if (!inside) continue;
    Vec3 x = Vec3::Zero();
    for (int j = 0; j < k; ++j) x += lambda[j] * s[idx[j]].w;
    const double dd = x.squaredNorm();
    if (dd < best) {
      best = dd;
      *mask = m;
      for (int i = 0; i < 4; ++i) weight[i] = 0;
      for (int j = 0; j < k; ++j) weight[idx[j]] = lambda[j];
    }
  }
  return best;
}

// Closest points of two cores by GJK (Gilbert, Johnson & Keerthi 1988; van den Bergen's
// termination: the gap between |v| and the lower bound v·w/|v|), started from the support
// points along the A -> B direction n0. Returns false when the cores overlap or touch; else the
// witnesses.
bool gjk_closest(const btConvexShape* sa, const btTransform& ta, const btConvexShape* sb,
                 const btTransform& tb, const Vec3& n0, Vec3* wa, Vec3* wb) {
  SimplexPoint s[4];
  auto support = [&](const Vec3& u) {  // of B - A in direction u
    SimplexPoint p;
    p.a = core_support(sa, ta, -u);
    p.b = core_support(sb, tb, u);
    p.w = p.b - p.a;
    return p;
  };
  s[0] = support(-n0);
  int n = 1;
  double weight[4] = {1, 0, 0, 0};
  Vec3 v = s[0].w;
  double lower = -kInf;
  for (int it = 0; it < 64; ++it) {
    const double vv = v.squaredNorm();
    if (vv <= kTouching * kTouching) return false;
    const double len = std::sqrt(vv);
    const SimplexPoint p = support(-v);
    lower = std::max(lower, v.dot(p.w) / len);
    if (len - lower <= 1e-12 * len) break;  // certified
    bool repeated = false;
    for (int i = 0; i < n; ++i) repeated = repeated || p.w == s[i].w;
    if (repeated) break;  // no support point makes progress: converged to rounding
    s[n] = p;
    double trial[4];
    int mask = 0;
    const double dd = nearest_on_simplex(s, n + 1, &mask, trial);
    if (mask == 15) return false;  // the origin is inside the tetrahedron: overlap
    if (!(dd < vv)) break;         // no decrease (rounding): keep the last simplex
    int k = 0;
    Vec3 x = Vec3::Zero();
    for (int i = 0; i <= n; ++i)
      if (mask & (1 << i)) {
        x += trial[i] * s[i].w;
        weight[k] = trial[i];
        s[k++] = s[i];
      }
    n = k;
    v = x;
  }
  *wa = Vec3::Zero();
  *wb = Vec3::Zero();
  for (int i = 0; i < n; ++i) {
    *wa += weight[i] * s[i].a;
    *wb += weight[i] * s[i].b;
  }
  return true;
}

// Face clipping for two polyhedra (box, mesh). Returns false when the contact is not a face
// contact (edge–edge) or clipping found nothing.
bool clip(const CGeom& A, const CGeom& B, double core_d, double thr, NarrowPhase& np) {
  np.world_verts_a.clear();
  np.world_verts_b.clear();
  for (const Vec3& v : A.verts) np.world_verts_a.push_back(A.wpos + A.wrot * v);
  for (const Vec3& v : B.verts) np.world_verts_b.push_back(B.wpos + B.wrot * v);
  // best face axis: the face (of either hull) with the largest separation to the other hull
  double best = -kInf;
  int best_face = -1;
  bool on_a = true;
  // (a face is skipped when one vertex of the other hull — the deepest under the last face
  // scanned, at first the one nearest this hull's centre — already puts its separation at or
  // below the best: the minimum can only be lower, so the result is the same; on the hulls of
  // visual-quality meshes most faces face away)
  auto scan = [&](const CGeom& S, const std::vector<Vec3>& other, bool is_a) {
    if (other.empty()) return;
    size_t hint = 0;
    for (size_t i = 1; i < other.size(); ++i)
      if ((other[i] - S.wpos).squaredNorm() < (other[hint] - S.wpos).squaredNorm()) hint = i;
    for (int f = 0; f < S.poly->m_faces.size(); ++f) {
      const btFace& face = S.poly->m_faces[f];
      const Vec3 n = S.wrot * Vec3(face.m_plane[0], face.m_plane[1], face.m_plane[2]);
      const double off = n.dot(S.wpos) - face.m_plane[3];  // plane: n·x = off
      if (best_face >= 0 && !(n.dot(other[hint]) - off > best + 1e-12)) continue;
      double sep = kInf;
      size_t deepest = hint;
      for (size_t i = 0; i < other.size(); ++i) {
        const double d = n.dot(other[i]);
        if (d < sep) sep = d, deepest = i;
      }
      hint = deepest;
      sep -= off;
      if (sep > best + 1e-12) best = sep, best_face = f, on_a = is_a;
    }
  };
  scan(A, np.world_verts_b, true);
  scan(B, np.world_verts_a, false);
  if (best_face < 0 || best < core_d - kFaceTolerance) return false;
  const CGeom& R = on_a ? A : B;  // reference hull
  const CGeom& I = on_a ? B : A;  // incident hull
  const btFace& face = R.poly->m_faces[best_face];
  const Vec3 nr = R.wrot * Vec3(face.m_plane[0], face.m_plane[1], face.m_plane[2]);
  np.clip_points.clear();
  ClipResult result;
  result.points = &np.clip_points;
  // Bullet's separating normal points from the incident hull to the reference hull
  btPolyhedralContactClipping::clipHullAgainstHull(to_bt(Vec3(-nr)), *R.poly, *I.poly, R.tf,
                                                   I.tf, -1e30, thr, np.clip_v1, np.clip_v2, result);
  if (np.clip_points.empty()) return false;
  for (const auto& [point, depth] : np.clip_points) {
    const Vec3 on_ref = point - depth * nr;
    if (on_a) {
      np.pts.push_back({on_ref, point, nr, 0.0, 0.0, nr.dot(point - on_ref)});
    } else {
      const Vec3 n = -nr;
      np.pts.push_back({point, on_ref, n, 0.0, 0.0, n.dot(on_ref - point)});
    }
  }
  return true;
}

}  // namespace

// GJK/EPA on two cores (A: shape sa at ta, B: shape sb at tb), radii added. Returns false only
// if Bullet fails outright (then nothing is reported for the pair).
bool core_query(const btConvexShape* sa, const btTransform& ta, double ra, const btConvexShape* sb,
                const btTransform& tb, double rb, const Vec3& fallback, PairPoint* out) {
  btGjkEpaSolver2::sResults r;
  const btVector3 guess = tb.getOrigin() - ta.getOrigin();
  const btVector3 g = guess.length2() > 1e-24 ? guess : btVector3(1, 0, 0);
  Vec3 wa, wb, n;
  bool ok = false;
  if (btGjkEpaSolver2::Distance(sa, ta, sb, tb, g, r)) {
    wa = to_eigen(r.witnesses[0]);
    wb = to_eigen(r.witnesses[1]);
    double len = (wb - wa).norm();
    if (len > kTouching) {
      n = (wb - wa) / len;
      ok = true;
      if (len - core_separation(sa, ta, sb, tb, n) > kGapTolerance) {  // not converged
        Vec3 ca, cb;
        ok = gjk_closest(sa, ta, sb, tb, n, &ca, &cb);
        if (ok && (cb - ca).norm() < len) {  // the nearer pair (both are upper bounds)
          wa = ca, wb = cb;
          len = (wb - wa).norm();
          ok = len > kTouching;
          if (ok) n = (wb - wa) / len;
        }
      }
    }
  }
  if (!ok && btGjkEpaSolver2::Penetration(sa, ta, sb, tb, g, r, false)) {
    wa = to_eigen(r.witnesses[0]);
    wb = to_eigen(r.witnesses[1]);
    const double len = (wa - wb).norm();
    if (len > kTouching) {
      n = (wa - wb) / len;  // A's witness lies deepest along A -> B
      ok = true;
    }
  }
  if (!ok) {
    // The cores touch (|distance| < 1e-9): GJK has no direction. Separate B by a micrometre
    // along the fallback direction, take that normal, and shift B's witness back.
    const double shift = 1e-6;
    btTransform tb2 = tb;
    tb2.setOrigin(tb.getOrigin() + to_bt(fallback) * shift);
    if (btGjkEpaSolver2::Distance(sa, ta, sb, tb2, g, r)) {
      wa = to_eigen(r.witnesses[0]);
      wb = to_eigen(r.witnesses[1]) - shift * fallback;
      const Vec3 d = to_eigen(r.witnesses[1]) - wa;
      n = d.norm() > 1e-12 ? Vec3(d.normalized()) : fallback;
      ok = true;
    }
  }
  if (!ok) return false;
  const Vec3 pa = wa + ra * n, pb = wb - rb * n;
  *out = {pa, pb, n, ra, rb, n.dot(pb - pa)};
  return true;
}

// Puts the core point first unless a feature point is as close (then the features describe
// the contact: a capsule lying on a box gives its two ends, not a third point between them).
void add_core(const PairPoint& core, NarrowPhase& np) {
  for (const PairPoint& p : np.pts)
    if (p.d <= core.d + kTieTolerance) return;
  np.pts.insert(np.pts.begin(), core);
}

// Feature points of S (ShapeCollision::features) against the other geom O.
void feature_points(const CGeom& S, const CGeom& O, const PairPoint& core, bool s_is_a, double thr,
                    NarrowPhase& np) {
  np.features.clear();
  const Vec3 toward = s_is_a ? core.n : Vec3(-core.n);  // from S to O
  collision_shape(S.type).features(S, O, toward, &np.features);
  const bool closed_form = collision_shape(O.type).closest_surface != nullptr;
  const btConvexShape* point_core = &np.point.shape;
  auto query = [&](const Vec3& point, double r, PairPoint* p) {
    if (closed_form) return point_query(O, point, r, s_is_a, core.n, p);
    const btTransform tf(btMatrix3x3::getIdentity(), to_bt(point));
    return s_is_a ? core_query(point_core, tf, r, O.shape.get(), O.tf, O.radius, core.n, p)
                  : core_query(O.shape.get(), O.tf, O.radius, point_core, tf, r, core.n, p);
  };
  const Vec3& po = s_is_a ? core.pb : core.pa;
  for (const Feature& f : np.features) {
    // O lies beyond the plane through its witness point with normal `toward`: a lower bound
    const double lb = toward.dot(po) - toward.dot(f.p) - f.r;
    if (lb >= thr) continue;
    PairPoint p;
    if (!query(f.p, f.r, &p)) continue;
    if (f.r > 0) {
      // A capsule end sphere: its point toward O is on the capsule's surface on the end cap
      // (direction · outward axis >= 0). Past the cap's rim by more than kCapSlack the end
      // circle's point toward O is used instead (a deep overlap never yields points deep
      // inside the capsule; a nearly flat capsule keeps its two end balls).
      const Vec3 t = s_is_a ? p.n : Vec3(-p.n);
      const double ta = t.dot(f.axis);
      if (ta < kCapSlack) {
        const Vec3 perp = t - ta * f.axis;
        const double len = perp.norm();
        if (len < 1e-9) continue;
        if (!query(f.p + f.r * perp / len, 0.0, &p)) continue;
      }
    }
    if (p.d < thr) np.pts.push_back(p);
  }
}

// ---- pair functions ----------------------------------------------------------------------------
// Two polyhedra (box, mesh): if a face separation axis (SAT over both hulls' faces) is as good as
// the GJK/EPA distance, that face is clipped against the other hull's most anti-parallel face:
// the contact polygon. Otherwise (edge–edge) the single GJK/EPA point.
void collide_polyhedra(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  if (!A.poly || !B.poly) {  // a degenerate mesh (flat, a segment, a point): no faces
    collide_convex(A, B, thr, np);
    return;
  }
  PairPoint core;
  if (!core_query(A.shape.get(), A.tf, A.radius, B.shape.get(), B.tf, B.radius,
                  fallback_direction(A, B), &core))
    return;
  if (core.d >= thr) {
    np.separation = core.d;
    return;
  }
  // The clipped polygon lies on the reference face; when the nearest points are not (an edge or
  // vertex just beyond the face's side, the face still within kFaceTolerance of the distance),
  // it misses them by up to ~1e-4 m: the core point is then added.
  if (clip(A, B, core.d, thr, np)) {
    add_core(core, np);
    return;
  }
  np.pts.push_back(core);
}

// Any other pair: the closest-point pair plus the feature points of each side tested against
// the other; the closest-point pair is dropped when a feature is as close.
void collide_convex(const CGeom& A, const CGeom& B, double thr, NarrowPhase& np) {
  PairPoint core;
  if (!core_query(A.shape.get(), A.tf, A.radius, B.shape.get(), B.tf, B.radius,
                  fallback_direction(A, B), &core))
    return;
  core_and_features(A, B, core, thr, np);
}

void core_and_features(const CGeom& A, const CGeom& B, const PairPoint& core, double thr, NarrowPhase& np) {
  if (core.d >= thr) {
    np.separation = core.d;
    return;
  }
  feature_points(A, B, core, true, thr, np);
  feature_points(B, A, core, false, thr, np);
  add_core(core, np);
}

}  // namespace maxsim::collision
