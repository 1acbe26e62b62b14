#include "sim/contact_search.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace maxsim {

void enable_contacts(const Model& model, Data& data, const ContactOptions& options) {
  auto bad = [](const char* what, double v, const char* rule) {
    throw std::invalid_argument(std::string("ContactOptions::") + what + " = " + std::to_string(v) + ": must be " + rule);
  };
  if (!(options.friction >= 0) || !std::isfinite(options.friction)) bad("friction", options.friction, "finite and >= 0");
  if (!(options.margin >= 0) || !std::isfinite(options.margin)) bad("margin", options.margin, "finite and >= 0");
  if (!(options.recovery_speed > 0) || !std::isfinite(options.recovery_speed)) bad("recovery_speed", options.recovery_speed, "finite and > 0");
  if (!(options.restitution >= 0 && options.restitution <= 1)) bad("restitution", options.restitution, "in [0, 1]");
  if (!(options.bounce_threshold >= 0) || !std::isfinite(options.bounce_threshold)) bad("bounce_threshold", options.bounce_threshold, "finite and >= 0");
  CollisionOptions co;
  co.ground = options.ground;
  co.margin = options.margin;
  co.default_friction = options.friction;
  co.default_restitution = options.restitution;
  co.exclude_joined = options.exclude_joined;
  if (!(options.min_margin >= 0) || !std::isfinite(options.min_margin)) bad("min_margin", options.min_margin, "finite and >= 0");
  if (!model.contacts) {  // the description switched contacts off: no search at all
    data.collide = nullptr;
    data.min_candidate_distance = 0;
    return;
  }
  auto world = std::make_shared<CollisionWorld>(model, co);
  // geometric radius of each body about its CoM (the body frame's origin), for the speed bound
  // of its surface points
  std::vector<double> radius(model.bodies.size(), 0.0);
  for (size_t b = 0; b < model.bodies.size(); ++b)
    for (const Geom& g : model.bodies[b].geoms) {
      if (!g.collision || g.type == GeomType::Plane) continue;
      double extent = 0;
      switch (g.type) {
        case GeomType::Sphere: extent = g.size.x(); break;
        case GeomType::Capsule: extent = g.size.x() + g.size.y(); break;
        case GeomType::Cylinder: extent = std::hypot(g.size.x(), g.size.y()); break;
        case GeomType::Mesh:
          for (const Vec3& v : g.vertices) extent = std::max(extent, v.norm());
          break;
        default: extent = g.size.norm(); break;  // box, ellipsoid: half extents
      }
      radius[b] = std::max(radius[b], g.pos.norm() + extent + g.margin);
    }
  const bool adaptive = options.adaptive_margin;
  const double min_margin = options.min_margin, max_margin = options.margin;
  auto candidates = std::make_shared<std::vector<ContactCandidate>>();
  const bool self = options.self_collision;
  const double recovery_speed = options.recovery_speed;
  const double bounce_threshold = options.bounce_threshold;
  const bool linear_cone = options.cone == FrictionCone::Linear;
  data.collide = [world, candidates, self, recovery_speed, bounce_threshold, linear_cone, adaptive,
                  min_margin, max_margin, radius](const Model& m, Data& d) {
    if (adaptive) {
      double v_max = 0;
      for (size_t b = 0; b < d.v.size(); ++b) v_max = std::max(v_max, d.v[b].norm() + d.w[b].norm() * radius[b]);
      const double reach = 2.0 * d.ws.dt * (2.0 * v_max + m.gravity.norm() * d.ws.dt);
      world->set_margin(std::min(max_margin, min_margin + reach));
    }
    world->find_candidates(d.x, d.q, candidates.get());
    d.min_candidate_distance = 0;
    for (size_t i = 0; i < candidates->size(); ++i) {
      const ContactCandidate& k = (*candidates)[i];
      if (!self && k.body_a != kWorld) continue;
      d.contacts.emplace_back();
      Contact& c = d.contacts.back();
      c.body_a = k.body_a;
      c.body_b = k.body_b;
      c.point_a = k.point_a;
      c.point_b = k.point_b;
      c.core_a = k.core_a;
      c.core_b = k.core_b;
      // offset enters φ with a minus sign: lowering it by the allowed depth relaxes φ ≥ 0
      c.offset = k.radius_a + k.radius_b - std::max(0.0, -k.distance - recovery_speed * d.ws.dt);
      contact_set_normal(&c, k.normal);
      c.friction = k.friction;
      c.restitution = k.restitution;
      c.bounce_threshold = bounce_threshold;
      c.linear_cone = linear_cone && c.friction > 0;
      d.min_candidate_distance = std::min(d.min_candidate_distance, k.distance);
    }
  };
}

double max_penetration(const Data& data) { return std::max(0.0, -data.min_candidate_distance); }

}  // namespace maxsim
