// URDF loader: urdfdom for the standard elements, a tinyxml2 pass first for what urdfdom cannot
// say well (file:line of errors, strict numbers, tree checks) and for what it ignores or rejects
// (<loop_joint>, pybullet <contact><lateral_friction>, the Dojo dialect below).
//
// Mapping: revolute, continuous -> Revolute (row 5); prismatic -> Prismatic (row 2); fixed ->
// merged (or Fixed); floating -> Floating; planar -> PlanarAxis (translation in the plane
// perpendicular to the axis, rows 0 and 1, plus rotation about the axis, row 5: a URDF planar
// joint keeps the orientation, PlanarAxis adds the in-plane rotation, the closest engine joint).
// The dialect of ConstrainedDynamics.jl and Dojo.jl is read too: joint types ball / spherical,
// fixedorientation, cylindrical, cylindricalfree, planaraxis, planarfree, orbital and Dojo's other
// prototypes freerevolute, prismaticorbital, planarorbital, freeorbital, each the engine joint of
// that name (JointType, sim/model.hpp) with the joint frame's z on <axis> (Dojo's constraint
// masks); ball, spherical and fixedorientation take no axis and use the URDF joint frame.
// <capsule radius length> (length between the end-sphere centres, along z).
// Revolute / prismatic joints without <limit> load unlimited, a zero <axis> is taken as z (both
// with one warning each). A <limit lower upper> range on a dialect joint with several free rows is
// an error. A top-level material defined again with the same colour and texture is accepted
// (urdfdom is handed the file without the repetition); with another colour or texture it is an
// error naming both lines. "planar" keeps URDF's meaning (PlanarAxis); Dojo's reading (no
// rotation) is named in a warning for files that use the dialect. <loop_joint> takes the same
// types (not floating).
// A link named "world" is the world; a link fixed to it keeps a Fixed joint to the world when it
// has mass (bodies with mass are never dropped) and becomes part of the world when it has none.
// A root link that is not attached to "world" gets a Floating
// joint (Fixed with LoadOptions::fixed_base) unless it has no mass (nor any link fixed to it):
// then it is static, part of the world (the pybullet convention for a massless base; Dojo's
// four-bar base_link).
// Continuous joints keep explicit <limit lower upper> (lower < upper) as limits: the A1 URDF
// declares its thigh joints continuous with limits, which its MJCF twin enforces.
// Every revolute/continuous/prismatic joint gets a Motor actuator named after it (gear 1,
// force limit = effort when > 0).
// <loop_joint name type><link1 link xyz rpy/><link2 link xyz rpy/><axis xyz/></loop_joint>: the
// joint frame is given in each link's frame, the axis in that joint frame; it becomes one more
// joint (parent link1, child link2). If the two frames do not coincide at the zero configuration
// the model still loads with a warning giving the gap (no threshold: ConstrainedDynamics'
// four-bar is open by ~1 m at its zero configuration and is meant to be assembled by the
// projection onto the constraints at the simulation start); the joint frames stay the file's.
// <nonholonomic name type><link name/><radius value/><axis xyz/><origin xyz/><direction xyz/>
// </nonholonomic> (type rolling_disk, rolling_ball, knife_edge, angular_velocity; origin: the knife
// edge's point) is a Model::nonholonomic constraint on the body of that link, its vectors given in
// the link frame; a parameter the type does not take is an error. <maxsim integrator/> sets
// Model::integrator ("variational", "energy-momentum"). urdfdom ignores both elements.
//
// Inertia checks happen per link with the line of its <inertia>: negative mass is always an
// error; an inertia that is not positive definite or violates the triangle inequality is an error
// for a link that is a body of its own and a warning for a part merged into a body by fixed
// joints (the merged body is checked by validate_model). A moving body without mass is an error.
// Unknown top-level elements (<transmission>, <gazebo>, ...) are listed in one warning; <mimic>
// is an exact coupling q = offset + multiplier·q_leader (Model::couplings).
#pragma once

#include <string>

#include "models/load.hpp"
#include "sim/model.hpp"

namespace maxsim {

// Loads a URDF file (see the top of this file); load_model calls it for .urdf.
Model load_urdf(const std::string& path, const LoadOptions& options, LoadReport* report);

}  // namespace maxsim
