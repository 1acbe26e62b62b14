// The length of a spatial tendon and its gradient (docs/computation.md (89)–(93); MuJoCo's
// <spatial> tendon, mj_tendon).
//
// A spatial tendon's path (Tendon::path) is a sequence of sites, wrapping geoms and pulleys:
//   - consecutive sites are joined by a straight segment;
//   - a geom (sphere or cylinder) between two sites bends the segment around it when the
//     straight segment would cross it, or when its side site asks for a side (sim/tendon/wrap.hpp);
//   - a pulley ends a branch: the branches after it count with length / divisor.
// L = Σ_branches (Σ segment lengths + Σ curve lengths) / divisor.
//
// The gradient is exact: the path is the shortest of its kind (a geodesic around the geom), so
// moving a tangent point along the surface does not change L to first order and each straight
// segment a → b pulls its two end points along u = (b − a)/|b − a| (the tangent points as points
// of the geom's body). A point at r from the CoM of its body (body frame) moved by the right
// perturbation (δx in the world, δθ in the body frame) moves by δx − R [r]× δθ, so a unit pull u
// on it contributes (u, r × Rᵀu): the wrench (world force, body-frame torque) of a tension of 1,
// the same map as JointRows' Jacobians (sim/constraints/joint.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/constraints/joint.hpp"  // Pose, Vec6
#include "sim/model.hpp"

namespace maxsim {

// The length of the spatial tendon `tendon` of `model` at the body poses `poses` (one per body of
// model.bodies). If `gradient` is not null it is cleared and receives dL/d(δx in the world, δθ in
// the body frame) of every body the length depends on: one entry per body (a body appears once,
// in the order it is first met along the path; the world never). A tension T applies the wrench
// −T·gradient (world force, body-frame torque) to each body. The tendon must pass
// validate_spatial_tendon; the gradient is not defined where the path is degenerate (two points
// of a segment at the same place: that segment then pulls nothing).
double spatial_tendon_length(const Model& model, const Tendon& tendon, const std::vector<Pose>& poses,
                             std::vector<std::pair<int, Vec6>>* gradient);

// The points of the tendon's path at `poses`, in the world, in order: sites, tangent points of
// the wraps (two per wrapped geom, one for an inside wrap), for drawing and tests; a pulley
// starts a new polyline (the returned vector has one polyline per branch).
std::vector<std::vector<Vec3>> spatial_tendon_path(const Model& model, const Tendon& tendon,
                                                   const std::vector<Pose>& poses);

// Checks the path of a spatial tendon against MuJoCo's rules: it starts and ends at a site, has
// at least two sites, a geom stands between two sites and is a sphere or a cylinder of positive
// radius, a pulley follows a site and is followed by one, divisors are positive, every index is in
// range. Returns an empty string when valid, otherwise a message naming the offending element.
std::string validate_spatial_tendon(const Model& model, const Tendon& tendon);

// A site's position in the world at the body poses `poses`.
Vec3 site_position(const Model& model, int site, const std::vector<Pose>& poses);

// The zero-configuration poses of the model's bodies (Body::x0, Body::q0).
std::vector<Pose> zero_poses(const Model& model);

}  // namespace maxsim
