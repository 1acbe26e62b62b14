// Spatial tendon length and gradient (docs/computation.md (89)–(93)).
#include "sim/tendon/spatial.hpp"

#include <cmath>

#include "sim/tendon/wrap.hpp"

namespace maxsim {

namespace {

using Element = TendonPathElement;

const Geom& path_geom(const Model& model, const Element& e) {
  return e.geom_body == kWorld ? model.world_geoms[e.geom] : model.bodies[e.geom_body].geoms[e.geom];
}

// A point of the path: where it is and which body carries it.
struct PathPoint {
  Vec3 p;
  int body;
};

// Adds the pull of a unit tension along u at the world point p of `body` (92).
void add_pull(const std::vector<Pose>& poses, int body, const Vec3& p,
              const Vec3& u, double scale, std::vector<std::pair<int, Vec6>>* gradient) {
  if (body == kWorld) return;
  const Pose& pose = poses[body];
  const Mat3 R = quat_to_rot(pose.q);
  const Vec3 r = R.transpose() * (p - pose.x);
  Vec6 g;
  g.head<3>() = scale * u;
  g.tail<3>() = scale * r.cross(R.transpose() * u);
  for (auto& [b, v] : *gradient)
    if (b == body) {
      v += g;
      return;
    }
  gradient->emplace_back(body, g);
}

// The length of the segment a → b; its gradient: a pulled towards b and b towards a (92).
double segment(const std::vector<Pose>& poses, const PathPoint& a,
               const PathPoint& b, double scale, std::vector<std::pair<int, Vec6>>* gradient) {
  const Vec3 d = b.p - a.p;
  const double len = d.norm();
  if (gradient && a.body != b.body && len > 0) {
    const Vec3 u = d / len;
    add_pull(poses, a.body, a.p, -u, scale, gradient);
    add_pull(poses, b.body, b.p, u, scale, gradient);
  }
  return len;
}

// Walks the path as MuJoCo's mj_tendon does; `points`, if not null, receives the polylines.
double walk(const Model& model, const Tendon& tendon, const std::vector<Pose>& poses,
            std::vector<std::pair<int, Vec6>>* gradient, std::vector<std::vector<Vec3>>* points) {
  if (gradient) gradient->clear();
  const std::vector<Element>& path = tendon.path;
  const int n = static_cast<int>(path.size());
  auto site_point = [&](int s) { return PathPoint{site_position(model, s, poses), model.sites[s].body}; };
  double length = 0, divisor = 1;
  if (points) points->assign(1, {});
  int j = 0;
  while (j < n - 1) {
    const Element& e0 = path[j];
    const Element& e1 = path[j + 1];
    if (e0.kind == Element::Kind::Pulley || e1.kind == Element::Kind::Pulley) {
      if (e0.kind == Element::Kind::Pulley) {
        divisor = e0.divisor;
        if (points) points->emplace_back();
      }
      ++j;
      continue;
    }
    const double scale = 1 / divisor;
    const PathPoint a = site_point(e0.site);
    if (points) points->back().push_back(a.p);
    if (e1.kind == Element::Kind::Geom) {
      const PathPoint b = site_point(path[j + 2].site);
      // the geom's frame in the world
      const Geom& g = path_geom(model, e1);
      Vec3 gx = g.pos;
      Mat3 gR = quat_to_rot(g.quat);
      if (e1.geom_body != kWorld) {
        const Mat3 R = quat_to_rot(poses[e1.geom_body].q);
        gx = poses[e1.geom_body].x + R * g.pos;
        gR = R * gR;
      }
      Vec3 side;
      if (e1.sidesite >= 0) side = gR.transpose() * (site_position(model, e1.sidesite, poses) - gx);
      WrapPath w;
      if (wrap_geom(g.type, g.size.x(), gR.transpose() * (a.p - gx), gR.transpose() * (b.p - gx),
                    e1.sidesite >= 0 ? &side : nullptr, &w)) {
        const PathPoint t0{gx + gR * w.t0, e1.geom_body}, t1{gx + gR * w.t1, e1.geom_body};
        length += (segment(poses, a, t0, scale, gradient) + w.curve +
                   segment(poses, t1, b, scale, gradient)) * scale;
        if (points) {
          points->back().push_back(t0.p);
          if (w.curve > 0) points->back().push_back(t1.p);
        }
      } else {
        length += segment(poses, a, b, scale, gradient) * scale;
      }
      j += 2;
      if (points && (j == n - 1 || path[j + 1].kind == Element::Kind::Pulley)) points->back().push_back(b.p);
    } else {
      const PathPoint b = site_point(e1.site);
      length += segment(poses, a, b, scale, gradient) * scale;
      j += 1;
      if (points && (j == n - 1 || path[j + 1].kind == Element::Kind::Pulley)) points->back().push_back(b.p);
    }
  }
  return length;
}

}  // namespace

Vec3 site_position(const Model& model, int site, const std::vector<Pose>& poses) {
  const Site& s = model.sites[site];
  if (s.body == kWorld) return s.pos;
  const Pose& p = poses[s.body];
  return p.x + quat_to_rot(p.q) * s.pos;
}

std::vector<Pose> zero_poses(const Model& model) {
  std::vector<Pose> poses(model.bodies.size());
  for (size_t i = 0; i < poses.size(); ++i) poses[i] = Pose{model.bodies[i].x0, model.bodies[i].q0};
  return poses;
}

double spatial_tendon_length(const Model& model, const Tendon& tendon, const std::vector<Pose>& poses,
                             std::vector<std::pair<int, Vec6>>* gradient) {
  return walk(model, tendon, poses, gradient, nullptr);
}

std::vector<std::vector<Vec3>> spatial_tendon_path(const Model& model, const Tendon& tendon,
                                                   const std::vector<Pose>& poses) {
  std::vector<std::vector<Vec3>> points;
  walk(model, tendon, poses, nullptr, &points);
  return points;
}

std::string validate_spatial_tendon(const Model& model, const Tendon& tendon) {
  const std::string who = "spatial tendon '" + tendon.name + "'";
  const std::vector<Element>& path = tendon.path;
  const int n = static_cast<int>(path.size());
  const int nsites = static_cast<int>(model.sites.size());
  const int nbodies = static_cast<int>(model.bodies.size());
  auto is_site = [&](int k) { return k >= 0 && k < n && path[k].kind == Element::Kind::Site; };
  int sites = 0;
  for (int k = 0; k < n; ++k) {
    const Element& e = path[k];
    const std::string at = who + ", path element " + std::to_string(k + 1);
    switch (e.kind) {
      case Element::Kind::Site:
        if (e.site < 0 || e.site >= nsites) return at + ": site index " + std::to_string(e.site) + " out of range";
        ++sites;
        break;
      case Element::Kind::Geom: {
        if (e.geom_body < kWorld || e.geom_body >= nbodies)
          return at + ": body index " + std::to_string(e.geom_body) + " out of range";
        const int ngeoms = static_cast<int>(e.geom_body == kWorld ? model.world_geoms.size()
                                                                  : model.bodies[e.geom_body].geoms.size());
        if (e.geom < 0 || e.geom >= ngeoms) return at + ": geom index " + std::to_string(e.geom) + " out of range";
        const Geom& g = path_geom(model, e);
        if (g.type != GeomType::Sphere && g.type != GeomType::Cylinder)
          return at + ": a tendon wraps only around a sphere or a cylinder, not a " + geom_type_name(g.type);
        if (!(g.size.x() > 0) || !std::isfinite(g.size.x())) return at + ": the wrapping geom's radius must be positive";
        if (!is_site(k - 1) || !is_site(k + 1)) return at + ": a wrapping geom must stand between two sites";
        if (e.sidesite < -1 || e.sidesite >= nsites)
          return at + ": side site index " + std::to_string(e.sidesite) + " out of range";
        break;
      }
      case Element::Kind::Pulley:
        if (!(e.divisor > 0) || !std::isfinite(e.divisor)) return at + ": a pulley's divisor must be positive";
        if (!is_site(k - 1) || !is_site(k + 1)) return at + ": a pulley must stand between two sites";
        break;
    }
  }
  if (n == 0 || !is_site(0) || !is_site(n - 1)) return who + ": the path must start and end at a site";
  if (sites < 2) return who + ": the path needs at least two sites";
  return "";
}

}  // namespace maxsim
