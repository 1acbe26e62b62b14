// Per shape: the Bullet core the search runs GJK/EPA on, the bounds of the broad phase, the
// feature points the narrow phase tests; then the per-shape table and the pair table.
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btConvexInternalShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "sim/geometry/narrow_phase.hpp"

namespace maxsim::collision {

namespace {

// An ellipsoid with its exact support function: support(u) = D² u / |D u|, D = diag(semi-axes)
// (Bullet's vector arithmetic, as GJK/EPA has always seen it).
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

// ---- cores: a built and a copied geom make them with the same calls ---------------------------
std::unique_ptr<btConvexShape> sphere_core(const Vec3& s) { return std::make_unique<btSphereShape>(s.x()); }
std::unique_ptr<btConvexShape> capsule_core(const Vec3& s) {
  return std::make_unique<btCapsuleShapeZ>(s.x(), 2 * s.y());
}
std::unique_ptr<btConvexShape> box_core(const Vec3& s) {
  auto box = std::make_unique<btBoxShape>(to_bt(s));
  box->setMargin(0);
  return box;
}
std::unique_ptr<btConvexShape> cylinder_core(const Vec3& s) {
  auto cyl = std::make_unique<btCylinderShapeZ>(btVector3(s.x(), s.x(), s.y()));
  cyl->setMargin(0);
  return cyl;
}
std::unique_ptr<btConvexShape> ellipsoid_core(const Vec3& s) { return std::make_unique<EllipsoidShape>(s); }
std::unique_ptr<btConvexHullShape> hull_core(const btVector3* points, int n) {
  auto hull = std::make_unique<btConvexHullShape>();
  for (int i = 0; i < n; ++i) hull->addPoint(points[i], false);
  hull->recalcLocalAabb();
  hull->setMargin(0);
  return hull;
}

template <std::unique_ptr<btConvexShape> (*core)(const Vec3&)>
std::unique_ptr<btConvexShape> copy_sized(const CGeom& g) {
  return core(g.size);
}
std::unique_ptr<btConvexShape> copy_hull(const CGeom& g) {
  const auto& hull = static_cast<const btConvexHullShape&>(*g.shape);
  return hull_core(hull.getUnscaledPoints(), hull.getNumPoints());
}

// ---- build -------------------------------------------------------------------------------------
bool build_plane(const Geom&, CGeom*) { return false; }  // planes are the world's, apart
bool build_sphere(const Geom& src, CGeom* g) {
  g->radius = src.size.x();
  g->shape = sphere_core(src.size);
  return true;
}
bool build_capsule(const Geom& src, CGeom* g) {
  g->radius = src.size.x();
  g->shape = capsule_core(src.size);
  return true;
}
bool build_box(const Geom& src, CGeom* g) {
  const Vec3 s = src.size;
  g->shape = box_core(s);
  g->poly = std::make_unique<btConvexPolyhedron>();
  make_box_polyhedron(s, g->poly.get());
  for (int i = 0; i < 8; ++i)
    g->verts.emplace_back((i & 1) ? s.x() : -s.x(), (i & 2) ? s.y() : -s.y(), (i & 4) ? s.z() : -s.z());
  return true;
}
bool build_cylinder(const Geom& src, CGeom* g) {
  g->shape = cylinder_core(src.size);
  return true;
}
bool build_ellipsoid(const Geom& src, CGeom* g) {
  g->shape = ellipsoid_core(src.size);
  return true;
}
bool build_mesh(const Geom& src, CGeom* g) {
  if (src.vertices.empty()) return false;
  btAlignedObjectArray<btVector3> points;
  for (const Vec3& v : src.vertices) points.push_back(to_bt(v));
  auto hull = hull_core(&points[0], points.size());
  if (src.vertices.size() >= 4 && hull->initializePolyhedralFeatures() &&
      hull->getConvexPolyhedron() && hull->getConvexPolyhedron()->m_faces.size() >= 4) {
    g->poly = std::make_unique<btConvexPolyhedron>();
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
      g->poly->m_vertices.push_back(to_bt(snapped));
      g->verts.push_back(snapped);
    }
    for (int f = 0; f < bp.m_faces.size(); ++f) g->poly->m_faces.push_back(bp.m_faces[f]);
    finish_faces(g->poly.get());
    // faces the snapping collapsed (two hull vertices onto one input vertex: zero area, no
    // normal) are no faces: Bullet's clipping would pick one and normalize its zero normal
    // (kept in a std::vector and pushed back after resize(0): btAlignedObjectArray's assignment
    // constructs over the live elements and leaks their index arrays)
    std::vector<btFace> faces;
    for (int f = 0; f < g->poly->m_faces.size(); ++f) {
      const btFace& face = g->poly->m_faces[f];
      if (Vec3(face.m_plane[0], face.m_plane[1], face.m_plane[2]).squaredNorm() > 0.5) faces.push_back(face);
    }
    if (static_cast<int>(faces.size()) < g->poly->m_faces.size()) {
      g->poly->m_faces.resize(0);
      for (const btFace& face : faces) g->poly->m_faces.push_back(face);
    }
    // GJK's core from the hull's vertices alone: its support function visits every point it
    // holds, and a visual-quality mesh has thousands inside its hull (a Unitree H1 link's:
    // 98 % of a step in the support loop)
    btAlignedObjectArray<btVector3> corners;
    for (const Vec3& v : g->verts) corners.push_back(to_bt(v));
    hull = hull_core(&corners[0], corners.size());
  } else {  // degenerate (flat, a segment, a point): GJK only
    for (const Vec3& v : src.vertices) g->verts.push_back(v);
  }
  Vec3 lo = g->verts.front(), hi = g->verts.front();
  for (const Vec3& v : g->verts) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  g->local_center = 0.5 * (lo + hi);
  g->local_half = 0.5 * (hi - lo);
  g->shape = std::move(hull);
  return true;
}

// A height field: Impl sets its grid and heights (they are the Model's, not the Geom's); the
// cells' prisms are made per pair (collide_hfield), it has no core of its own.
bool build_hfield(const Geom&, CGeom* g) {
  if (g->nrow < 2 || g->ncol < 2 || g->heights.size() != static_cast<size_t>(g->nrow) * g->ncol) return false;
  double top = 0;
  for (double z : g->heights) top = std::max(top, z);
  g->local_center = Vec3(0, 0, 0.5 * (top - g->base));
  g->local_half = Vec3(g->size.x(), g->size.y(), 0.5 * (top + g->base));
  return true;
}

// ---- bounds (world half extents of the placed geom) ---------------------------------------------
void bounds_none(const CGeom&, Vec3*, Vec3* h) { h->setZero(); }
void bounds_sphere(const CGeom& g, Vec3*, Vec3* h) { h->setConstant(g.size.x()); }
void bounds_capsule(const CGeom& g, Vec3*, Vec3* h) {
  *h = g.size.y() * g.wrot.col(2).cwiseAbs() + Vec3::Constant(g.size.x());
}
void bounds_box(const CGeom& g, Vec3*, Vec3* h) { *h = g.wrot.cwiseAbs() * g.size; }
void bounds_cylinder(const CGeom& g, Vec3*, Vec3* h) {
  const Vec3 a = g.wrot.col(2);
  const Vec3 s = g.size;
  for (int i = 0; i < 3; ++i)
    (*h)(i) = s.y() * std::abs(a(i)) + s.x() * std::sqrt(std::max(0.0, 1 - a(i) * a(i)));
}
void bounds_ellipsoid(const CGeom& g, Vec3*, Vec3* h) {
  for (int i = 0; i < 3; ++i) (*h)(i) = g.wrot.row(i).cwiseProduct(g.size.transpose()).norm();
}
void bounds_mesh(const CGeom& g, Vec3* c, Vec3* h) {
  *c += g.wrot * g.local_center;
  *h = g.wrot.cwiseAbs() * g.local_half;
}

// ---- feature points tested against the other geom -----------------------------------------------
void features_none(const CGeom&, const CGeom&, const Vec3&, std::vector<Feature>*) {}
void features_capsule(const CGeom& s, const CGeom&, const Vec3&, std::vector<Feature>* out) {
  out->push_back({s.wpos - s.size.y() * s.wrot.col(2), s.radius, -s.wrot.col(2)});
  out->push_back({s.wpos + s.size.y() * s.wrot.col(2), s.radius, s.wrot.col(2)});
}
void features_cylinder(const CGeom& s, const CGeom&, const Vec3& toward, std::vector<Feature>* out) {
  rim_points(s, toward, [&](const Vec3& c) { out->push_back({c, 0.0, Vec3::Zero()}); });
}
void features_vertices(const CGeom& s, const CGeom& o, const Vec3&, std::vector<Feature>* out) {
  if (collision_shape(o.type).vertices_probe)
    for (const Vec3& v : s.verts) out->push_back({s.wpos + s.wrot * v, 0.0, Vec3::Zero()});
}

constexpr ShapeCollision kTable[] = {
    // in GeomType order; build, copy_core, bounds, against_plane, features, closest_surface,
    // rounded, polyhedral, vertices_probe. A plane is a world surface apart (CPlane), never a geom.
    {build_plane, nullptr, bounds_none, nullptr, features_none, nullptr, false, false, false},
    {build_sphere, copy_sized<sphere_core>, bounds_sphere, plane_sphere, features_none,
     closest_on_rounded, true, false, false},
    {build_box, copy_sized<box_core>, bounds_box, plane_vertices, features_vertices, closest_on_box,
     false, true, false},
    {build_capsule, copy_sized<capsule_core>, bounds_capsule, plane_capsule, features_capsule,
     closest_on_rounded, true, false, false},
    {build_cylinder, copy_sized<cylinder_core>, bounds_cylinder, plane_cylinder, features_cylinder,
     closest_on_cylinder, false, false, true},
    {build_ellipsoid, copy_sized<ellipsoid_core>, bounds_ellipsoid, plane_ellipsoid, features_none,
     nullptr, false, false, false},
    {build_mesh, copy_hull, bounds_mesh, plane_vertices, features_vertices, nullptr, false, true,
     false},
    // a height field is static world geometry: never against a plane; its prisms are meshes
    {build_hfield, nullptr, bounds_mesh, nullptr, features_none, nullptr, false, false, false},
};
static_assert(std::size(kTable) == static_cast<std::size_t>(GeomType::HField) + 1);

// The pair table: which narrow phase two shapes get (A, B in the task's order).
constexpr PairFunction choose(GeomType a, GeomType b) {
  if (a == GeomType::Plane || b == GeomType::Plane) return nullptr;  // plane tasks are apart
  // a height field is a world geom, so always A; against planes and height fields nothing (MuJoCo)
  if (b == GeomType::HField) return nullptr;
  if (a == GeomType::HField) return collide_hfield;
  const ShapeCollision& sa = kTable[static_cast<int>(a)];
  const ShapeCollision& sb = kTable[static_cast<int>(b)];
  if (sa.rounded && sb.rounded) return collide_rounded;
  if (a == GeomType::Sphere && sb.closest_surface) return collide_ball_shape;
  if (b == GeomType::Sphere && sa.closest_surface) return collide_shape_ball;
  if (a == GeomType::Capsule && sb.closest_surface) return collide_capsule_shape;
  if (b == GeomType::Capsule && sa.closest_surface) return collide_shape_capsule;
  if (sa.polyhedral && sb.polyhedral) return collide_polyhedra;
  return collide_convex;
}

constexpr int kTypes = static_cast<int>(GeomType::HField) + 1;

struct PairTable {
  PairFunction f[kTypes][kTypes] = {};
  constexpr PairTable() {
    for (int a = 0; a < kTypes; ++a)
      for (int b = 0; b < kTypes; ++b) f[a][b] = choose(static_cast<GeomType>(a), static_cast<GeomType>(b));
  }
};
constexpr PairTable kPairs;

}  // namespace

void make_prism(CGeom* p) {
  p->type = GeomType::Mesh;
  p->verts.assign(6, Vec3::Zero());
  btVector3 points[6];
  for (int i = 0; i < 6; ++i) points[i] = btVector3(i % 3 == 1, i % 3 == 2, i < 3 ? 1 : -1);
  p->shape = hull_core(points, 6);
  p->poly = std::make_unique<btConvexPolyhedron>();
  for (int i = 0; i < 6; ++i) p->poly->m_vertices.push_back(points[i]);
  // top 0 1 2, bottom 3 4 5 (vertex i + 3 below vertex i), three sides
  const int faces[5][4] = {{0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
  for (const auto& f : faces) {
    btFace face;
    for (int k = 0; k < 4 && f[k] >= 0; ++k) face.m_indices.push_back(f[k]);
    p->poly->m_faces.push_back(face);
  }
  finish_faces(p->poly.get());
}

void set_prism(CGeom* p, const Vec3* top, double base) {
  auto* hull = static_cast<btConvexHullShape*>(p->shape.get());
  btVector3* points = hull->getUnscaledPoints();
  for (int i = 0; i < 3; ++i) {
    p->verts[i] = top[i];
    p->verts[i + 3] = Vec3(top[i].x(), top[i].y(), -base);
  }
  Vec3 lo = p->verts[0], hi = p->verts[0];
  for (int i = 0; i < 6; ++i) {
    points[i] = to_bt(p->verts[i]);
    p->poly->m_vertices[i] = points[i];
    lo = lo.cwiseMin(p->verts[i]), hi = hi.cwiseMax(p->verts[i]);
  }
  hull->recalcLocalAabb();
  p->local_center = 0.5 * (lo + hi);
  p->local_half = 0.5 * (hi - lo);
  finish_faces(p->poly.get());
}

const ShapeCollision& collision_shape(GeomType type) { return kTable[static_cast<int>(type)]; }

PairFunction pair_function(GeomType a, GeomType b) {
  return kPairs.f[static_cast<int>(a)][static_cast<int>(b)];
}

CGeom::CGeom(const CGeom& other)
    : CGeomData(other),
      shape(other.shape ? collision_shape(other.type).copy_core(other) : nullptr),
      poly(other.poly ? std::make_unique<btConvexPolyhedron>(*other.poly) : nullptr) {}

}  // namespace maxsim::collision
