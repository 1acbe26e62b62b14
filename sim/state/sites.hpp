// Sites at the Data's state: their poses and velocities (MuJoCo's site_xpos / site_xmat and
// mj_objectVelocity), after each step or for a state set by hand.
#pragma once

#include "sim/constraints/joint.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The site's world pose: origin (Pose::x) and orientation (Pose::q, site → world). Throws
// std::invalid_argument for an index out of range.
Pose site_pose(const Model& model, const Data& data, int site);

// The site's origin velocity and its angular velocity, both world, from the bodies' velocities
// (Data::v, w: the last interval's for the variational step). Throws std::invalid_argument for an
// index out of range.
void site_velocity(const Model& model, const Data& data, int site, Vec3* linear, Vec3* angular);

}  // namespace maxsim
