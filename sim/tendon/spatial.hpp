// The length of a spatial tendon: a path through sites that wraps around spheres and cylinders
// (MuJoCo's <spatial>), with its gradient per body.
#pragma once

#include <utility>
#include <vector>

#include "sim/constraints/joint.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The length of `tendon` (Kind::Spatial) at the bodies' poses (one per Model::bodies), and, when
// `gradient` is not null, its gradient per body it depends on: dL/d(δx world, δθ body), the
// convention of the joint rows (sim/constraints/joint.hpp).
double spatial_tendon_length(const Model& model, const Tendon& tendon, const std::vector<Pose>& poses,
                             std::vector<std::pair<int, Vec6>>* gradient);

}  // namespace maxsim
