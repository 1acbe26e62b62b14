// The maxsim engine in one include: model, data, step, actuation, kinematics, state (qpos/qvel,
// reset), projection, diagnostics.
#pragma once

#include "sim/actuation.hpp"
#include "sim/data.hpp"
#include "sim/diagnostics.hpp"
#include "sim/kinematics.hpp"
#include "sim/model.hpp"
#include "sim/projection.hpp"
#include "sim/state.hpp"
#include "sim/step.hpp"
