// The scenes compare_engines runs in every engine (issue 38's list): contacts at rest and sliding,
// a grasp, a loop, a stack, a quadruped under control, a humanoid falling.
#pragma once

#include <string>
#include <vector>

#include "benchmarks/engines/run.hpp"

namespace maxsim::bench {

// The standard scenes; generated descriptions are written into the existing directory `dir`.
// quick: a tenth of the steps (a check that everything runs, not the table's numbers).
std::vector<Scene> standard_scenes(const std::string& dir, bool quick);

// A user's robot (URDF or MJCF) falling from its file's pose for `seconds`, at Δt `dt` (≤ 0: the
// file's); throws what load_model throws.
Scene file_scene(const std::string& file, double seconds, double dt);

}  // namespace maxsim::bench
