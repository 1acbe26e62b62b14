// The maxsim engine in one include: model and its options, data, step, actuation, the contact
// search, kinematics, state (qpos/qvel, reset), projection, diagnostics.
#pragma once

#include "sim/actuation.hpp"
#include "sim/data.hpp"
#include "sim/derivatives/transition.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/model.hpp"
#include "sim/options.hpp"
#include "sim/sensor/sensors.hpp"
#include "sim/solver/projection.hpp"
#include "sim/state/diagnostics.hpp"
#include "sim/state/jacobian.hpp"
#include "sim/state/sites.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"
#include "sim/step.hpp"
