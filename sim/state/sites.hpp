// Sites at the Data's state: their poses and velocities (MuJoCo's site_xpos / site_xmat and
// mj_objectVelocity), after each step or for a state set by hand.
#pragma once

#include "sim/constraints/joint.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Model::sites[site]; throws std::invalid_argument for an index out of range.
const Site& site_at(const Model& model, int site);

// A frame fixed in a body (origin pos, orientation quat in the body frame; the world's for
// kWorld): its world pose, and its origin's velocity and angular velocity (both world). Sites and
// sensor frames are such frames.
Pose fixed_frame_pose(const Data& data, int body, const Vec3& pos, const Vec4& quat);
void fixed_frame_velocity(const Data& data, int body, const Vec3& pos, Vec3* linear, Vec3* angular);

// The site's world pose: origin (Pose::x) and orientation (Pose::q, site → world). Throws
// std::invalid_argument for an index out of range.
Pose site_pose(const Model& model, const Data& data, int site);

// The site's origin velocity and its angular velocity, both world, from the bodies' velocities
// (Data::v, w: the last interval's for the variational step). Throws std::invalid_argument for an
// index out of range.
void site_velocity(const Model& model, const Data& data, int site, Vec3* linear, Vec3* angular);

}  // namespace maxsim
