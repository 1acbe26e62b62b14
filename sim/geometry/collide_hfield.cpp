// A height field against any shape, as MuJoCo's mjc_ConvexHField treats it: the field is the
// union of its cells' triangular prisms (top triangle, vertical sides, bottom at the base), and
// each prism under the other shape's bounding box is a six-vertex mesh given to the mesh narrow
// phase of that shape (GJK/EPA, face clipping, feature points). A flat or uniformly sloped cell
// is a prism whose top face is the exact surface, so penetration and normal are exact there.
//
// A prism has edges and walls the field does not have: the top edge it shares with a coplanar
// neighbour, the walls inside the field. A point there (its normal tilted toward the other
// shape) is a constraint the union does not impose, and would catch a ball rolling or a box
// sliding over the cell boundary; so a prism's point is kept only where the plane through it
// with its normal supports the field locally (no grid vertex of the cells around the point
// above it): on a top face with the face's normal, on a convex ridge with a normal between its
// faces' normals, on the field's outer walls and on its base.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/geometry/narrow_phase.hpp"

namespace maxsim::collision {

namespace {

constexpr double kOnSurface = 1e-7;  // [m] a witness this close to a face lies on it
constexpr double kSupport = 1e-9;    // [m] a vertex this far above the point's plane: not supported

// Whether the prism point p (field frame) with outward normal n (field frame), found on the
// prism of triangle `tri`, is a point of the field's surface with a normal the field admits (see
// the top of the file).
bool field_admits(const CGeom& H, const Vec3* tri, const Vec3& p, const Vec3& n, double dx, double dy) {
  const Vec3 nt = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalized();  // top normal (up)
  const double top = tri[0].z() - (nt.x() * (p.x() - tri[0].x()) + nt.y() * (p.y() - tri[0].y())) / nt.z();
  if (std::abs(p.z() - top) > kOnSurface) {
    if (p.z() < -H.base + kOnSurface) return true;  // the base
    const double rx = H.size.x(), ry = H.size.y();  // a wall: only the field's outer ones
    return std::abs(p.x()) > rx - kOnSurface || std::abs(p.y()) > ry - kOnSurface;
  }
  if (n.dot(nt) > 1 - 1e-9) return true;  // the face's own normal
  // an edge or vertex: the plane through p must lie above the grid vertices of the cells around p
  const double fx = (p.x() + H.size.x()) / dx, fy = (p.y() + H.size.y()) / dy;
  const int c0 = std::max(0, static_cast<int>(std::ceil(fx - 1e-9)) - 1);
  const int c1 = std::min(H.ncol - 1, static_cast<int>(std::floor(fx + 1e-9)) + 1);
  const int r0 = std::max(0, static_cast<int>(std::ceil(fy - 1e-9)) - 1);
  const int r1 = std::min(H.nrow - 1, static_cast<int>(std::floor(fy + 1e-9)) + 1);
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c) {
      const Vec3 v(-H.size.x() + dx * c, -H.size.y() + dy * r, H.heights[static_cast<size_t>(r) * H.ncol + c]);
      if (n.dot(v - p) > kSupport) return false;
    }
  return true;
}

}  // namespace

void collide_hfield(const CGeom& H, const CGeom& B, double thr, NarrowPhase& np) {
  // B's bounding box in the field's frame, enlarged by the threshold
  Vec3 c = B.wpos, h = Vec3::Zero();
  collision_shape(B.type).bounds(B, &c, &h);
  const Mat3 Rt = H.wrot.transpose();
  const Vec3 lc = Rt * (c - H.wpos);
  const Vec3 lh = Rt.cwiseAbs() * h + Vec3::Constant(thr);
  const Vec3 lo = lc - lh, hi = lc + lh;
  const double rx = H.size.x(), ry = H.size.y();
  const double top = H.local_center.z() + H.local_half.z();
  if (hi.x() < -rx || lo.x() > rx || hi.y() < -ry || lo.y() > ry || lo.z() > top || hi.z() < -H.base) return;
  const double dx = 2 * rx / (H.ncol - 1), dy = 2 * ry / (H.nrow - 1);
  // the cells under the box (clamped before the cast: a far shape gives huge quotients)
  auto cell = [](double v, double d, int n) {
    return static_cast<int>(std::clamp(std::floor(v / d), 0.0, static_cast<double>(n - 2)));
  };
  const int c0 = cell(lo.x() + rx, dx, H.ncol), c1 = cell(hi.x() + rx, dx, H.ncol);
  const int r0 = cell(lo.y() + ry, dy, H.nrow), r1 = cell(hi.y() + ry, dy, H.nrow);
  const PairFunction mesh_pair = pair_function(GeomType::Mesh, B.type);
  if (!mesh_pair) return;
  CGeom& prism = np.prism;
  prism.wpos = H.wpos;
  prism.wrot = H.wrot;
  prism.tf = H.tf;
  np.field_pts.clear();
  auto vertex = [&](int r, int col) {
    return Vec3(-rx + dx * col, -ry + dy * r, H.heights[static_cast<size_t>(r) * H.ncol + col]);
  };
  for (int r = r0; r <= r1; ++r) {
    for (int col = c0; col <= c1; ++col) {
      const Vec3 p00 = vertex(r, col), p01 = vertex(r, col + 1), p10 = vertex(r + 1, col),
                 p11 = vertex(r + 1, col + 1);
      // the cell split along its (r, c)–(r + 1, c + 1) diagonal, both triangles counter-clockwise
      const Vec3 tris[2][3] = {{p00, p01, p11}, {p00, p11, p10}};
      for (const auto& tri : tris) {
        if (lo.z() > std::max({tri[0].z(), tri[1].z(), tri[2].z()})) continue;  // B above the prism
        set_prism(&prism, tri, H.base);
        // each prism's points on their own: the narrow phase's tie rule (add_core) compares
        // the points of one convex pair only
        np.pts.clear();
        mesh_pair(prism, B, thr, np);
        for (const PairPoint& q : np.pts)
          if (field_admits(H, tri, Rt * (q.pa - H.wpos), Rt * q.n, dx, dy)) np.field_pts.push_back(q);
      }
    }
  }
  np.pts.swap(np.field_pts);
  np.separation = -std::numeric_limits<double>::infinity();  // (its prisms' distances are not the pair's)
}

}  // namespace maxsim::collision
