// The maxsim engine in one include: model, data, step, kinematics, projection, diagnostics.
#pragma once

#include "sim/data.hpp"
#include "sim/diagnostics.hpp"
#include "sim/kinematics.hpp"
#include "sim/model.hpp"
#include "sim/projection.hpp"
#include "sim/step.hpp"
