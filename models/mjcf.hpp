// MJCF (MuJoCo XML) loader, through tinyxml2.
//
// Supported: <compiler angle eulerseq meshdir assetdir autolimits inertiafromgeom coordinate
// settotalmass boundmass boundinertia balanceinertia discardvisual strippath>, <option timestep
// gravity collision> and its <flag> (see below), <default> with nested classes and childclass,
// <include>,
// <worldbody> with nested <body> and <frame> (pos, quat, euler, axisangle, xyaxes, zaxis),
// <inertial mass diaginertia fullinertia pos + orientation> or inertia from geoms (density, default
// 1000, or geom mass; sphere, capsule, box, cylinder, ellipsoid, mesh: the exact solid of a closed
// mesh, its bounding box when the mesh is open), joints (hinge, slide, ball, free; pos, axis,
// range/limited, ref, springref, stiffness, damping, armature, frictionloss), <freejoint>, geoms
// (plane, sphere, capsule, ellipsoid, cylinder, box, mesh; size, fromto, friction (the sliding
// coefficient), contype/conaffinity (both 0: visual only), margin, rgba or material rgba, mass,
// density), <asset><mesh file scale vertex face> and <material rgba>, <actuator> motor / position /
// velocity / general on joints and tendons (gear, ctrlrange/ctrllimited, forcerange/forcelimited,
// kp, kv; general with fixed gain and a motor, position or velocity bias), <tendon> fixed and
// spatial (Model::tendons), <equality joint|tendon> (Model::couplings), <equality connect> (a Spherical
// joint between body1 and body2 at the anchor, given in body1's frame: a loop) and <equality weld>
// (a Fixed joint), <contact><exclude>, <keyframe> (qpos, qvel, ctrl, time).
//
// The world (README "World rules"): the file's geoms are the world — planes are infinite
// half-spaces at their own pose, static bodies merge into it — and there is no implicit ground
// (Model::implicit_ground = false). Collisions are filtered as MuJoCo's mj_contactFilter does
// (Model::collision_filter = ParentChild; Model::filtered_pairs lists each body with its parent
// in the file's tree, by weld groups, never the world; bodies joined only by an <equality>
// collide), besides contype/conaffinity and <contact><exclude>.
//
// <option><flag> (MuJoCo reads the first <flag>): constraint, equality, frictionloss, limit,
// contact, passive, gravity, filterparent, clampctrl and actuation are honoured in the Model
// built — "disable" drops loop-closing equality joints, Joint::friction, joint limits,
// Model::contacts, joint springs and dampers (armature stays), Model::gravity, the parent pairs,
// actuator control ranges, and sets Model::actuation = false; constraint="disable" is all of the
// first four. <option collision="predefined"> (only <contact><pair>s, which are not supported)
// switches contacts off. Other flags set to a value other than MuJoCo's default (warmstart,
// energy, override, ...) are named in the warning.
//
// Conventions:
//  * The zero configuration is the pose the file describes (MuJoCo's qpos0). Hinge and slide
//    coordinates are qpos - ref; their limits (range - ref) and spring reference
//    (springref - ref) are shifted accordingly.
//  * autolimits defaults to true (MuJoCo >= 2.3): a range without limited="false" is a limit.
//  * coordinate="global" (old dialect) is supported: positions, axes and fromto in world frame.
//  * A body without joints is welded to its parent: merged into it (or into the world for static
//    bodies), like URDF fixed joints.
//  * A body whose joints are slides along orthogonal axes followed by one to three hinges with
//    orthogonal axes (the cheetah's root, the humanoid's hips; through different anchors, the
//    humanoid's ankles, with Joint::hinge_offset and LoadOptions::merge_offset_hinges) is one body with
//    one joint (LoadOptions::merge_multi_joint_bodies): a row per MJCF joint, named after it
//    (Joint::row_names), the hinges' rows Davenport angles (Joint::hinge_sequence), coordinates in
//    the file's joint order (Joint::coordinate_order); three hinges only when the middle one's
//    range stays within ±80°. Any other body with several joints becomes a chain: one intermediate
//    "virtual" body "<body>/<joint>" after each joint but the last, with mass 1e-3 times the
//    body's mass (with its welded children), CoM at that joint's anchor and the inertia of a solid
//    sphere of radius 0.01 m. Each MJCF joint is then one engine joint, applied in file order as
//    MuJoCo composes them. LoadReport::virtual_bodies lists them; the total mass grows by those
//    small masses.
//  * Cameras, lights, textures and visual settings are ignored silently.
//  * One warning lists the unsupported elements that were ignored (sensors, contact pairs,
//    actuators on sites, ...). Unsupported physics that cannot be ignored is a LoadError:
//    <equality distance/flex>, tendon frictionloss, weld relpose, <composite>,
//    <flexcomp>, <replicate>, <attach>, hfield/sdf geoms, free joints below the top level.
//  * Joint frictionloss is stored in Joint::friction (with a warning).
//  * Keyframes: per joint, hinge/slide 1 value (qpos - ref), ball 4 (w x y z) and 3 rates (body
//    angular velocity), free 7 (position, quaternion of the body origin) and 6 rates (world
//    linear velocity, body angular velocity), in MuJoCo's order of the file's joints; ctrl follows
//    the loaded actuators.
//  * condim is not represented (Geom has no field): the sliding friction coefficient is kept.
//  * maxsim's own declarations, in <custom><text name data> (MuJoCo stores it unread, so the file
//    stays a MuJoCo file): name="maxsim:integrator" data="variational|energy-momentum" sets
//    Model::integrator; name="maxsim:nonholonomic:NAME" data="KIND body=BODY radius=R axis=x,y,z
//    point=x,y,z direction=x,y,z" (the keys KIND takes: models/builder.hpp
//    nonholonomic_parameter) adds a Model::nonholonomic constraint, vectors in the MJCF body's
//    frame. Other <custom> entries are MuJoCo's and are skipped; a bad maxsim:* one is an error.
#pragma once

#include <string>

#include "models/load.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Loads an MJCF file (see the top of this file); load_model calls it for .xml and .mjcf.
Model load_mjcf(const std::string& path, const LoadOptions& options, LoadReport* report);

}  // namespace maxsim
