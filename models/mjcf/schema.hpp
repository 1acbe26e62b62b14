// MJCF's elements and attributes (MuJoCo 2.2.2's XML reference, with the names MuJoCo 3 added,
// so that a newer file's names are not taken for misspellings) and what maxsim does with each.
#pragma once

#include "models/xml_schema.hpp"

namespace maxsim {

// The MJCF schema: <mujoco> first; <worldbody> and <frame> take <body>'s children.
const parse::Schema& mjcf_schema();

}  // namespace maxsim
