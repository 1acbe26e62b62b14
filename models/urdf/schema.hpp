// URDF's elements and attributes (the ROS URDF XML specification, with the dialects maxsim reads:
// Dojo's <loop_joint>, capsules, PyBullet's <contact>, maxsim's <nonholonomic> and <maxsim>) and
// what maxsim does with each. Other tools' tags (<gazebo>, <transmission>, …) are not errors.
#pragma once

#include "models/xml_schema.hpp"

namespace maxsim {

// The URDF schema: <robot> first.
const parse::Schema& urdf_schema();

}  // namespace maxsim
