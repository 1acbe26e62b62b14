// Contact candidate search: see sim/collision.hpp for the contract and the choices made.
#include "sim/collision.hpp"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btConvexInternalShape.h>
#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/ground.hpp"

namespace maxsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kRimPoints = 8;              // sample points per cylinder rim circle
constexpr double kTieTolerance = 1e-7;     // [m] a feature this close to the core point replaces it
constexpr double kMergeDistance = 1e-6;    // [m] coincident points of one pair are merged
constexpr double kFaceTolerance = 1e-6;    // [m] face axis "as good as" the GJK/EPA distance
constexpr double kTouching = 1e-9;         // [m] core distance below which GJK's normal is unreliable
constexpr double kGapTolerance = 1e-9;     // [m] GJK's distance minus its certified lower bound
// A capsule end sphere stands for its end while the contact direction t satisfies t·axis >= this
// (axis outward at that end): up to 11.5° past the cap's rim, where the ball's point is at most
// r (1 − cos 11.5°) = 0.02 r inside the capsule. A ball keeps a lying capsule's contacts exact
// while it rolls (core + radius); beyond, the end circle's point is used (always on the surface).
constexpr double kCapSlack = -0.2;

btVector3 to_bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
Vec3 to_eigen(const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); }
btTransform to_bt(const Mat3& R, const Vec3& p) {
  const btMatrix3x3 m(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1),
                      R(2, 2));
  return btTransform(m, to_bt(p));
}

// An ellipsoid with its exact support function: support(u) = D² u / |D u|, D = diag(semi-axes).
class EllipsoidShape : public btConvexInternalShape {
 public:
  explicit EllipsoidShape(const Vec3& semi) : semi_(to_bt(semi)) {
    m_shapeType = CUSTOM_CONVEX_SHAPE_TYPE;
    m_implicitShapeDimensions = semi_;
    btConvexInternalShape::setMargin(0);
  }
  btVector3 localGetSupportingVertexWithoutMargin(const btVector3& dir) const override {
    btVector3 du = semi_ * dir;  // D u
    const btScalar len = du.length();
    if (len < 1e-300) return btVector3(semi_.x(), 0, 0);
    return semi_ * du / len;     // D² u / |D u|
  }
  void batchedUnitVectorGetSupportingVertexWithoutMargin(const btVector3* dirs, btVector3* out,
                                                         int n) const override {
    for (int i = 0; i < n; ++i) out[i] = localGetSupportingVertexWithoutMargin(dirs[i]);
  }
  void getAabb(const btTransform& t, btVector3& lo, btVector3& hi) const override {
    const btMatrix3x3& B = t.getBasis();
    btVector3 ext;
    for (int i = 0; i < 3; ++i) {
      const btVector3 row = B[i] * semi_;
      ext[i] = row.length() + getMargin();
    }
    lo = t.getOrigin() - ext;
    hi = t.getOrigin() + ext;
  }
  void calculateLocalInertia(btScalar mass, btVector3& inertia) const override {
    const btVector3 s2 = semi_ * semi_;
    inertia = btVector3(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y()) * (mass / 5);
  }
  const char* getName() const override { return "maxsim::Ellipsoid"; }

 private:
  btVector3 semi_;
};

// Records the points reported by btPolyhedralContactClipping.
struct ClipResult : btDiscreteCollisionDetectorInterface::Result {
  std::vector<std::pair<Vec3, double>>* points = nullptr;  // (point on the incident hull, depth)
  void setShapeIdentifiersA(int, int) override {}
  void setShapeIdentifiersB(int, int) override {}
  void addContactPoint(const btVector3&, const btVector3& point, btScalar depth) override {
    points->emplace_back(to_eigen(point), depth);
  }
};

// Newell normal of a polygon (orientation from its winding).
Vec3 newell_normal(const btConvexPolyhedron& p, const btFace& f) {
  Vec3 n = Vec3::Zero();
  const int m = f.m_indices.size();
  for (int i = 0; i < m; ++i) {
    const Vec3 a = to_eigen(p.m_vertices[f.m_indices[i]]);
    const Vec3 b = to_eigen(p.m_vertices[f.m_indices[(i + 1) % m]]);
    n += 0.5 * a.cross(b);
  }
  return n;
}

// Sets each face plane from its (exact) vertices and orients every face counter-clockwise seen
// from outside (outward = away from the vertex centroid) — the winding btPolyhedralContactClipping
// expects for its side planes.
void finish_faces(btConvexPolyhedron* p) {
  Vec3 centroid = Vec3::Zero();
  for (int i = 0; i < p->m_vertices.size(); ++i) centroid += to_eigen(p->m_vertices[i]);
  centroid /= std::max(1, p->m_vertices.size());
  for (int fi = 0; fi < p->m_faces.size(); ++fi) {
    btFace& f = p->m_faces[fi];
    Vec3 n = newell_normal(*p, f);
    Vec3 fc = Vec3::Zero();
    for (int i = 0; i < f.m_indices.size(); ++i) fc += to_eigen(p->m_vertices[f.m_indices[i]]);
    fc /= f.m_indices.size();
    if (n.dot(fc - centroid) < 0) {  // clockwise from outside: reverse the winding
      for (int i = 0, j = f.m_indices.size() - 1; i < j; ++i, --j)
        std::swap(f.m_indices[i], f.m_indices[j]);
      n = -n;
    }
    n.normalize();
    double d = 0;
    for (int i = 0; i < f.m_indices.size(); ++i) d += n.dot(to_eigen(p->m_vertices[f.m_indices[i]]));
    d /= f.m_indices.size();
    f.m_plane[0] = n.x();
    f.m_plane[1] = n.y();
    f.m_plane[2] = n.z();
    f.m_plane[3] = -d;
  }
}

void make_box_polyhedron(const Vec3& h, btConvexPolyhedron* p) {
  for (int i = 0; i < 8; ++i)
    p->m_vertices.push_back(btVector3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                                      (i & 4) ? h.z() : -h.z()));
  // faces as cyclic vertex lists; finish_faces sets their winding and planes
  const int quads[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  for (int f = 0; f < 6; ++f) {
    btFace face;
    for (int k = 0; k < 4; ++k) face.m_indices.push_back(quads[f][k]);
    p->m_faces.push_back(face);
  }
  finish_faces(p);
}

// Closest points of segments [p1, q1] and [p2, q2] (Ericson, Real-Time Collision Detection 5.1.9).
void closest_segment_segment(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2,
                             Vec3* c1, Vec3* c2) {
  const Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  constexpr double eps = 1e-300;
  double s = 0, t = 0;
  if (a <= eps && e <= eps) {
    s = t = 0;
  } else if (a <= eps) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= eps) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  *c1 = p1 + s * d1;
  *c2 = p2 + t * d2;
}

Vec3 closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double dd = d.squaredNorm();
  if (dd <= 1e-300) return a;
  return a + std::clamp((p - a).dot(d) / dd, 0.0, 1.0) * d;
}

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

}  // namespace

// ---------------------------------------------------------------------------------------------
struct CollisionWorld::Impl {
  struct CGeom {
    int body = kWorld;   // kWorld: a static world geom
    int index = 0;       // in its body's geoms or in model.world_geoms
    GeomType type = GeomType::Sphere;
    Vec3 pos = Vec3::Zero();    // geom frame in the body frame (world for world geoms)
    Mat3 rot = Mat3::Identity();
    Vec3 size = Vec3::Zero();
    double margin = 0, friction = 0, restitution = 0;
    int contype = 1, conaffinity = 1;
    double radius = 0;  // rounding radius around the core (sphere, capsule)
    std::unique_ptr<btConvexShape> shape;       // the core (radius excluded)
    std::unique_ptr<btConvexPolyhedron> poly;   // box, mesh: faces for clipping
    std::vector<Vec3> verts;                    // box corners, mesh hull vertices (geom frame)
    Vec3 local_center = Vec3::Zero(), local_half = Vec3::Zero();  // mesh AABB (geom frame)
    // per call
    Vec3 wpos = Vec3::Zero();
    Mat3 wrot = Mat3::Identity();
    Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();  // AABB enlarged by the search margin
    btTransform tf = btTransform::getIdentity();
  };
  struct CPlane {
    int index = -1;  // -1: the ground half-space
    Vec3 p0 = Vec3::Zero(), n = Vec3::UnitZ();
    double margin = 0, friction = 0, restitution = 0;
    int contype = 1, conaffinity = 1;
  };
  struct Task {
    int body_a, body_b, geom_a, geom_b;
    int ia, ib;      // ia: plane id (plane task) or geom id; ib: geom id
    bool plane;
    bool operator<(const Task& o) const {
      if (body_a != o.body_a) return body_a < o.body_a;
      if (body_b != o.body_b) return body_b < o.body_b;
      if (geom_a != o.geom_a) return geom_a < o.geom_a;
      return geom_b < o.geom_b;
    }
  };
  struct PairPoint {  // world frame
    Vec3 pa, pb, n;
    double ra, rb, d;
  };

  CollisionOptions opt;
  int nbodies = 0;
  std::vector<CGeom> geoms;     // body geoms (body order, geom order), then static world geoms
  std::vector<CPlane> planes;   // the ground first, then world planes
  std::vector<std::vector<int>> body_geoms;  // per body: its geom ids
  std::vector<std::uint64_t> excluded;       // sorted body-pair keys
  std::vector<char> world_excluded;          // per body: never touches world geoms / ground
  btSphereShape point_shape{0.0};            // a point core (radius added analytically)

  // scratch, reused every call
  std::vector<Mat3> Rb;
  std::vector<int> order;
  int last_axis = -1;
  std::vector<Task> tasks;
  std::vector<PairPoint> pts, kept;
  std::vector<char> chosen;
  std::vector<std::pair<Vec3, double>> clip_points;
  btVertexArray clip_v1, clip_v2;
  std::vector<Vec3> world_verts_a, world_verts_b;
  struct Feature {
    Vec3 p;     // point (world)
    double r;   // radius around it (capsule end spheres)
    Vec3 axis;  // capsule end: outward axis direction
  };
  std::vector<Feature> features;

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

  // max of the pair's coefficients, an undeclared one (< 0) taking the world default
  static double combine(double a, double b, double world_default) {
    if (a < 0) a = world_default;
    if (b < 0) b = world_default;
    return std::max(a, b);
  }

  // ---- construction -----------------------------------------------------------------------
  Impl(const Model& model, const CollisionOptions& options) : opt(options) {
    nbodies = static_cast<int>(model.bodies.size());
    body_geoms.resize(nbodies);
    for (int b = 0; b < nbodies; ++b) {
      const auto& gs = model.bodies[b].geoms;
      for (int i = 0; i < static_cast<int>(gs.size()); ++i) {
        if (!gs[i].collision || gs[i].type == GeomType::Plane) continue;
        if (add_geom(gs[i], b, i)) body_geoms[b].push_back(static_cast<int>(geoms.size()) - 1);
      }
    }
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
        planes.push_back(p);
      } else {
        add_geom(g, kWorld, i);
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

    for (int i = 0; i < static_cast<int>(geoms.size()); ++i) order.push_back(i);
    Rb.resize(nbodies);
    tasks.reserve(4 * geoms.size() + 16);
    pts.reserve(64);
    kept.reserve(64);
    chosen.reserve(64);
    clip_points.reserve(64);
    features.reserve(64);
  }

  // Returns false (and adds nothing) for a geom that cannot collide (mesh without vertices).
  bool add_geom(const Geom& src, int body, int index) {
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
    const Vec3 s = src.size;
    switch (src.type) {
      case GeomType::Sphere:
        g.radius = s.x();
        g.shape = std::make_unique<btSphereShape>(s.x());
        break;
      case GeomType::Capsule:
        g.radius = s.x();
        g.shape = std::make_unique<btCapsuleShapeZ>(s.x(), 2 * s.y());
        break;
      case GeomType::Box: {
        auto box = std::make_unique<btBoxShape>(to_bt(s));
        box->setMargin(0);
        g.shape = std::move(box);
        g.poly = std::make_unique<btConvexPolyhedron>();
        make_box_polyhedron(s, g.poly.get());
        for (int i = 0; i < 8; ++i)
          g.verts.emplace_back((i & 1) ? s.x() : -s.x(), (i & 2) ? s.y() : -s.y(),
                               (i & 4) ? s.z() : -s.z());
        break;
      }
      case GeomType::Cylinder: {
        auto cyl = std::make_unique<btCylinderShapeZ>(btVector3(s.x(), s.x(), s.y()));
        cyl->setMargin(0);
        g.shape = std::move(cyl);
        break;
      }
      case GeomType::Ellipsoid:
        g.shape = std::make_unique<EllipsoidShape>(s);
        break;
      case GeomType::Mesh: {
        if (src.vertices.empty()) return false;
        auto hull = std::make_unique<btConvexHullShape>();
        for (const Vec3& v : src.vertices) hull->addPoint(to_bt(v), false);
        hull->recalcLocalAabb();
        hull->setMargin(0);
        if (src.vertices.size() >= 4 && hull->initializePolyhedralFeatures() &&
            hull->getConvexPolyhedron() && hull->getConvexPolyhedron()->m_faces.size() >= 4) {
          g.poly = std::make_unique<btConvexPolyhedron>();
          const btConvexPolyhedron& bp = *hull->getConvexPolyhedron();
          // Bullet's hull computer rounds coordinates (fixed point): snap every hull vertex back
          // to the nearest input vertex, then recompute the face planes exactly.
          for (int i = 0; i < bp.m_vertices.size(); ++i) {
            const Vec3 v = to_eigen(bp.m_vertices[i]);
            double best = kInf;
            Vec3 snapped = v;
            for (const Vec3& w : src.vertices) {
              const double dd = (w - v).squaredNorm();
              if (dd < best) best = dd, snapped = w;
            }
            g.poly->m_vertices.push_back(to_bt(snapped));
            g.verts.push_back(snapped);
          }
          for (int f = 0; f < bp.m_faces.size(); ++f) g.poly->m_faces.push_back(bp.m_faces[f]);
          finish_faces(g.poly.get());
        } else {  // degenerate (flat, a segment, a point): GJK only
          for (const Vec3& v : src.vertices) g.verts.push_back(v);
        }
        Vec3 lo = g.verts.front(), hi = g.verts.front();
        for (const Vec3& v : g.verts) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
        g.local_center = 0.5 * (lo + hi);
        g.local_half = 0.5 * (hi - lo);
        g.shape = std::move(hull);
        break;
      }
      case GeomType::Plane:
        return false;
    }
    geoms.push_back(std::move(g));
    return true;
  }

  // World pose and AABB of a geom on a body at (x, R).
  void place(CGeom& g, const Vec3& x, const Mat3& R) {
    g.wpos = x + R * g.pos;
    g.wrot = R * g.rot;
    g.tf = to_bt(g.wrot, g.wpos);
    const Mat3& W = g.wrot;
    const Vec3 s = g.size;
    Vec3 c = g.wpos, h = Vec3::Zero();
    switch (g.type) {
      case GeomType::Sphere:
        h.setConstant(s.x());
        break;
      case GeomType::Capsule:
        h = s.y() * W.col(2).cwiseAbs() + Vec3::Constant(s.x());
        break;
      case GeomType::Box:
        h = W.cwiseAbs() * s;
        break;
      case GeomType::Cylinder: {
        const Vec3 a = W.col(2);
        for (int i = 0; i < 3; ++i)
          h(i) = s.y() * std::abs(a(i)) + s.x() * std::sqrt(std::max(0.0, 1 - a(i) * a(i)));
        break;
      }
      case GeomType::Ellipsoid:
        for (int i = 0; i < 3; ++i) h(i) = W.row(i).cwiseProduct(s.transpose()).norm();
        break;
      case GeomType::Mesh:
        c += W * g.local_center;
        h = W.cwiseAbs() * g.local_half;
        break;
      case GeomType::Plane:
        h.setZero();
        break;
    }
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
    for (int b = 0; b < nbodies; ++b) {
      if (!x[b].allFinite() || !q[b].allFinite() || q[b].norm() == 0)
        throw std::invalid_argument("CollisionWorld::find_candidates: non-finite pose of body " +
                                    std::to_string(b));
      Rb[b] = quat_to_rot(q[b] / q[b].norm());
      for (int gi : body_geoms[b]) place(geoms[gi], x[b], Rb[b]);
    }
    plane_tasks();  // generated in key order
    const size_t nplane = tasks.size();
    broad_phase();
    std::sort(tasks.begin() + nplane, tasks.end());
    // walk the two sorted runs in merged order
    size_t i = 0, j = nplane;
    while (i < nplane || j < tasks.size()) {
      const bool take_plane = j == tasks.size() || (i < nplane && !(tasks[j] < tasks[i]));
      run(tasks[take_plane ? i++ : j++], x, out);
    }
  }

  void run(const Task& t, const std::vector<Vec3>& x, std::vector<ContactCandidate>* out) {
    pts.clear();
    double friction, restitution;
    if (t.plane) {
      const CPlane& p = planes[t.ia];
      const CGeom& g = geoms[t.ib];
      plane_points(p, g, threshold(p.margin, g.margin));
      friction = combine(p.friction, g.friction, opt.default_friction);
      restitution = combine(p.restitution, g.restitution, opt.default_restitution);
    } else {
      const CGeom& a = geoms[t.ia];
      const CGeom& b = geoms[t.ib];
      pair_points(a, b, threshold(a.margin, b.margin));
      friction = combine(a.friction, b.friction, opt.default_friction);
      restitution = combine(a.restitution, b.restitution, opt.default_restitution);
    }
    if (pts.empty()) return;
    reduce();
    for (const PairPoint& p : pts) emit(t, p, friction, restitution, x, out);
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
        tasks.push_back({geoms[ia].body, geoms[ib].body, geoms[ia].index, geoms[ib].index, ia, ib,
                         false});
      }
    }
  }

  // ---- plane vs primitive: closed form -----------------------------------------------------
  // A point (core c, radius r) of geom g against plane p.
  void plane_point(const CPlane& p, const Vec3& c, double r, double thr) {
    const Vec3 pb = c - r * p.n;
    const double d = p.n.dot(pb - p.p0);
    if (d >= thr) return;
    pts.push_back({pb - d * p.n, pb, p.n, 0.0, r, d});
  }

  // Rim points of a cylinder: 8 per circle, the first at the circle's exact support point in
  // direction `toward` (or along the geom's x axis when the circle faces it squarely).
  template <class F>
  static void rim_points(const CGeom& g, const Vec3& toward, F&& f) {
    const Vec3 a = g.wrot.col(2);
    Vec3 u = toward - toward.dot(a) * a;
    const double len = u.norm();
    u = len > 1e-12 ? Vec3(u / len) : Vec3(g.wrot.col(0));
    const Vec3 v = a.cross(u);
    const double r = g.size.x(), hl = g.size.y();
    for (int side = -1; side <= 1; side += 2) {
      const Vec3 cc = g.wpos + side * hl * a;
      for (int k = 0; k < kRimPoints; ++k) {
        const double th = 2 * M_PI * k / kRimPoints;
        f(Vec3(cc + r * (std::cos(th) * u + std::sin(th) * v)));
      }
    }
  }

  // A capsule end (centre e, outward axis a, radius r) against plane p: the end ball, or past the
  // cap's rim the end circle's lowest point (kCapSlack).
  void plane_capsule_end(const CPlane& p, const Vec3& e, const Vec3& a, double r, double thr) {
    const double ta = -p.n.dot(a);
    if (ta >= kCapSlack) {
      plane_point(p, e, r, thr);
      return;
    }
    const Vec3 perp = -p.n - ta * a;
    const double len = perp.norm();
    if (len > 1e-9) plane_point(p, e + r * perp / len, 0, thr);
  }

  void plane_points(const CPlane& p, const CGeom& g, double thr) {
    const Mat3& W = g.wrot;
    const Vec3 s = g.size;
    switch (g.type) {
      case GeomType::Sphere:
        plane_point(p, g.wpos, s.x(), thr);
        break;
      case GeomType::Capsule:
        plane_capsule_end(p, g.wpos - s.y() * W.col(2), -W.col(2), s.x(), thr);
        plane_capsule_end(p, g.wpos + s.y() * W.col(2), W.col(2), s.x(), thr);
        break;
      case GeomType::Box:
      case GeomType::Mesh:
        for (const Vec3& v : g.verts) plane_point(p, g.wpos + W * v, 0, thr);
        break;
      case GeomType::Cylinder:
        rim_points(g, -p.n, [&](const Vec3& c) { plane_point(p, c, 0, thr); });
        break;
      case GeomType::Ellipsoid: {
        const Vec3 m = W.transpose() * p.n;  // plane normal in the geom frame
        const Vec3 sm = s.cwiseProduct(m);
        const double len = sm.norm();
        const Vec3 local = len > 0 ? Vec3(-s.cwiseProduct(sm) / len) : Vec3::Zero();
        plane_point(p, g.wpos + W * local, 0, thr);
        break;
      }
      case GeomType::Plane:
        break;
    }
  }

  // ---- body vs body ---------------------------------------------------------------------------
  static bool is_round(const CGeom& g) {
    return g.type == GeomType::Sphere || g.type == GeomType::Capsule;
  }
  static void segment(const CGeom& g, Vec3* a, Vec3* b) {
    if (g.type == GeomType::Capsule) {
      *a = g.wpos - g.size.y() * g.wrot.col(2);
      *b = g.wpos + g.size.y() * g.wrot.col(2);
    } else {
      *a = *b = g.wpos;
    }
  }

  // Rounded point pair from core points ca (on A) and cb (on B) with radii; `fallback` is the
  // A -> B direction used when the cores coincide.
  static PairPoint rounded(const Vec3& ca, const Vec3& cb, double ra, double rb,
                           const Vec3& fallback) {
    Vec3 n = cb - ca;
    const double len = n.norm();
    n = len > 1e-12 ? Vec3(n / len) : fallback;
    const Vec3 pa = ca + ra * n, pb = cb - rb * n;
    return {pa, pb, n, ra, rb, n.dot(pb - pa)};
  }

  Vec3 fallback_direction(const CGeom& a, const CGeom& b) const {
    const Vec3 d = b.wpos - a.wpos;
    const double len = d.norm();
    return len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
  }

  // GJK/EPA on two cores (A: shape sa at ta, B: shape sb at tb), radii added. Returns false only
  // if Bullet fails outright (then nothing is reported for the pair).
  bool core_query(const btConvexShape* sa, const btTransform& ta, double ra,
                  const btConvexShape* sb, const btTransform& tb, double rb, const Vec3& fallback,
                  PairPoint* out) const {
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

  void pair_points(const CGeom& A, const CGeom& B, double thr) {
    const Vec3 fb = fallback_direction(A, B);
    PairPoint core;
    if (is_round(A) && is_round(B)) {
      Vec3 a0, a1, b0, b1, ca, cb;
      segment(A, &a0, &a1);
      segment(B, &b0, &b1);
      closest_segment_segment(a0, a1, b0, b1, &ca, &cb);
      Vec3 f = fb;
      if (A.type == GeomType::Capsule && B.type == GeomType::Capsule) {
        const Vec3 c = (a1 - a0).cross(b1 - b0);
        if (c.norm() > 1e-12) f = c.dot(fb) >= 0 ? Vec3(c.normalized()) : Vec3(-c.normalized());
      }
      core = rounded(ca, cb, A.radius, B.radius, f);
      if (core.d >= thr) return;
      feature_points(A, B, core, true, thr);
      feature_points(B, A, core, false, thr);
      add_core(core);
      return;
    }
    // a sphere against a box or cylinder: the exact closest point, one contact
    if (A.type == GeomType::Sphere && has_point_query(B)) {
      if (point_query(B, A.wpos, A.radius, true, fb, &core) && core.d < thr) pts.push_back(core);
      return;
    }
    if (B.type == GeomType::Sphere && has_point_query(A)) {
      if (point_query(A, B.wpos, B.radius, false, fb, &core) && core.d < thr) pts.push_back(core);
      return;
    }
    if (!core_query(A.shape.get(), A.tf, A.radius, B.shape.get(), B.tf, B.radius, fb, &core))
      return;
    if (core.d >= thr) return;
    if (A.poly && B.poly) {
      // The clipped polygon lies on the reference face; when the nearest points are not (an
      // edge or vertex just beyond the face's side, the face still within kFaceTolerance of the
      // distance), it misses them by up to ~1e-4 m: the core point is then added.
      if (clip(A, B, core.d, thr)) {
        add_core(core);
        return;
      }
      pts.push_back(core);
      return;
    }
    // features of each side tested against the other shape
    feature_points(A, B, core, true, thr);
    feature_points(B, A, core, false, thr);
    add_core(core);
  }

  static bool has_point_query(const CGeom& g) {
    return g.type == GeomType::Sphere || g.type == GeomType::Capsule ||
           g.type == GeomType::Box || g.type == GeomType::Cylinder;
  }

  // Exact closest point of O's surface to the ball (p, rho) in closed form (sphere, capsule, box,
  // cylinder). A point inside O is pushed out through the nearest face, so a point lying exactly
  // on a face gets that face's normal (GJK has no direction there). ball_is_a: the ball belongs to
  // the pair's A (the normal then points from the ball to O). `fallback`: A -> B direction when
  // the point is at a sphere's centre or on a capsule's segment.
  bool point_query(const CGeom& O, const Vec3& p, double rho, bool ball_is_a, const Vec3& fallback,
                   PairPoint* out) const {
    Vec3 c, m;  // closest surface point of O, outward unit normal there (toward p)
    const Mat3& W = O.wrot;
    switch (O.type) {
      case GeomType::Sphere:
      case GeomType::Capsule: {
        Vec3 a, b;
        segment(O, &a, &b);
        const Vec3 q = closest_on_segment(p, a, b);
        const Vec3 v = p - q;
        const double len = v.norm();
        m = len > 1e-12 ? Vec3(v / len) : Vec3(ball_is_a ? -fallback : fallback);
        c = q + O.radius * m;
        break;
      }
      case GeomType::Box: {
        const Vec3 l = W.transpose() * (p - O.wpos);
        const Vec3 h = O.size;
        if ((l.cwiseAbs().array() > h.array()).any()) {  // outside: clamp
          const Vec3 cl = l.cwiseMax(-h).cwiseMin(h);
          const Vec3 v = l - cl;
          m = W * v.normalized();
          c = O.wpos + W * cl;
        } else {  // inside or on the surface: the nearest face
          int axis = 0;
          (h - l.cwiseAbs()).minCoeff(&axis);
          const double sign = l(axis) >= 0 ? 1.0 : -1.0;
          Vec3 cl = l;
          cl(axis) = sign * h(axis);
          m = sign * W.col(axis);
          c = O.wpos + W * cl;
        }
        break;
      }
      case GeomType::Cylinder: {
        const Vec3 l = W.transpose() * (p - O.wpos);
        const double r = O.size.x(), hl = O.size.y();
        const double rho_l = l.head<2>().norm();
        const Vec3 radial = rho_l > 1e-12 ? Vec3(l.x() / rho_l, l.y() / rho_l, 0) : Vec3::UnitX();
        if (rho_l > r || std::abs(l.z()) > hl) {  // outside: clamp radially and axially
          const Vec3 cl = std::min(rho_l, r) * radial + std::clamp(l.z(), -hl, hl) * Vec3::UnitZ();
          const Vec3 v = l - cl;
          m = W * v.normalized();
          c = O.wpos + W * cl;
        } else {
          const double to_cap = hl - std::abs(l.z()), to_side = r - rho_l;
          Vec3 cl = l;
          if (to_cap <= to_side) {
            const double sign = l.z() >= 0 ? 1.0 : -1.0;
            cl.z() = sign * hl;
            m = sign * W.col(2);
          } else {
            cl.head<2>() = r * radial.head<2>();
            m = W * radial;
          }
          c = O.wpos + W * cl;
        }
        break;
      }
      default:
        return false;
    }
    const Vec3 on_ball = p - rho * m;
    if (ball_is_a) {
      *out = {on_ball, c, Vec3(-m), rho, O.radius, 0.0};
    } else {
      *out = {c, on_ball, m, O.radius, rho, 0.0};
    }
    out->d = out->n.dot(out->pb - out->pa);
    return true;
  }

  // Puts the core point first unless a feature point is as close (then the features describe
  // the contact: a capsule lying on a box gives its two ends, not a third point between them).
  void add_core(const PairPoint& core) {
    for (const PairPoint& p : pts)
      if (p.d <= core.d + kTieTolerance) return;
    pts.insert(pts.begin(), core);
  }

  // Feature points of S (capsule ends, cylinder rims, and box/mesh vertices against a cylinder)
  // against the other geom O. s_is_a: S is the pair's A.
  void feature_points(const CGeom& S, const CGeom& O, const PairPoint& core, bool s_is_a,
                      double thr) {
    features.clear();
    const Vec3 toward = s_is_a ? core.n : Vec3(-core.n);  // from S to O
    switch (S.type) {
      case GeomType::Capsule:
        features.push_back({S.wpos - S.size.y() * S.wrot.col(2), S.radius, -S.wrot.col(2)});
        features.push_back({S.wpos + S.size.y() * S.wrot.col(2), S.radius, S.wrot.col(2)});
        break;
      case GeomType::Cylinder:
        rim_points(S, toward, [&](const Vec3& c) { features.push_back({c, 0.0, Vec3::Zero()}); });
        break;
      case GeomType::Box:
      case GeomType::Mesh:
        if (O.type == GeomType::Cylinder)
          for (const Vec3& v : S.verts) features.push_back({S.wpos + S.wrot * v, 0.0, Vec3::Zero()});
        break;
      default:
        break;
    }
    auto query = [&](const Vec3& point, double r, PairPoint* p) {
      if (has_point_query(O)) return point_query(O, point, r, s_is_a, core.n, p);
      const btTransform tf(btMatrix3x3::getIdentity(), to_bt(point));
      return s_is_a ? core_query(&point_shape, tf, r, O.shape.get(), O.tf, O.radius, core.n, p)
                    : core_query(O.shape.get(), O.tf, O.radius, &point_shape, tf, r, core.n, p);
    };
    const Vec3& po = s_is_a ? core.pb : core.pa;
    for (const Feature& f : features) {
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
      if (p.d < thr) pts.push_back(p);
    }
  }

  // Face clipping for two polyhedra (box, mesh). Returns false when the contact is not a face
  // contact (edge–edge) or clipping found nothing.
  bool clip(const CGeom& A, const CGeom& B, double core_d, double thr) {
    world_verts_a.clear();
    world_verts_b.clear();
    for (const Vec3& v : A.verts) world_verts_a.push_back(A.wpos + A.wrot * v);
    for (const Vec3& v : B.verts) world_verts_b.push_back(B.wpos + B.wrot * v);
    // best face axis: the face (of either hull) with the largest separation to the other hull
    double best = -kInf;
    int best_face = -1;
    bool on_a = true;
    auto scan = [&](const CGeom& S, const std::vector<Vec3>& other, bool is_a) {
      for (int f = 0; f < S.poly->m_faces.size(); ++f) {
        const btFace& face = S.poly->m_faces[f];
        const Vec3 n = S.wrot * Vec3(face.m_plane[0], face.m_plane[1], face.m_plane[2]);
        const double off = n.dot(S.wpos) - face.m_plane[3];  // plane: n·x = off
        double sep = kInf;
        for (const Vec3& v : other) sep = std::min(sep, n.dot(v));
        sep -= off;
        if (sep > best + 1e-12) best = sep, best_face = f, on_a = is_a;
      }
    };
    scan(A, world_verts_b, true);
    scan(B, world_verts_a, false);
    if (best_face < 0 || best < core_d - kFaceTolerance) return false;
    const CGeom& R = on_a ? A : B;  // reference hull
    const CGeom& I = on_a ? B : A;  // incident hull
    const btFace& face = R.poly->m_faces[best_face];
    const Vec3 nr = R.wrot * Vec3(face.m_plane[0], face.m_plane[1], face.m_plane[2]);
    clip_points.clear();
    ClipResult result;
    result.points = &clip_points;
    // Bullet's separating normal points from the incident hull to the reference hull
    btPolyhedralContactClipping::clipHullAgainstHull(to_bt(Vec3(-nr)), *R.poly, *I.poly, R.tf,
                                                     I.tf, -1e30, thr, clip_v1, clip_v2, result);
    if (clip_points.empty()) return false;
    for (const auto& [point, depth] : clip_points) {
      const Vec3 on_ref = point - depth * nr;
      if (on_a) {
        pts.push_back({on_ref, point, nr, 0.0, 0.0, nr.dot(point - on_ref)});
      } else {
        const Vec3 n = -nr;
        pts.push_back({point, on_ref, n, 0.0, 0.0, n.dot(on_ref - point)});
      }
    }
    return true;
  }

  // Merges coincident points and keeps at most kMaxPairPoints: the deepest, then repeatedly the
  // one farthest from those kept (the spread of the contact patch), in generation order.
  void reduce() {
    kept.clear();
    for (const PairPoint& p : pts) {
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
      pts.swap(kept);
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
    pts.clear();
    for (int i = 0; i < n; ++i)
      if (chosen[i]) pts.push_back(kept[i]);
  }

  void emit(const Task& t, const PairPoint& p, double friction, double restitution,
            const std::vector<Vec3>& x, std::vector<ContactCandidate>* out) const {
    ContactCandidate c;
    c.body_a = t.body_a;
    c.body_b = t.body_b;
    c.geom_a = t.geom_a;
    c.geom_b = t.geom_b;
    c.normal = p.n;
    c.distance = p.n.dot(p.pb - p.pa);
    c.friction = friction;
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
bool CollisionWorld::bodies_may_collide(int a, int b) const {
  return impl_->bodies_may_collide(a, b);
}
int CollisionWorld::num_geoms() const { return static_cast<int>(impl_->geoms.size()); }

}  // namespace maxsim
