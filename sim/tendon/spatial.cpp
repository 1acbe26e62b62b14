// Placeholder until the spatial tendon's path geometry lands here: a model with a spatial tendon
// is refused with a clear message.
#include "sim/tendon/spatial.hpp"

#include <stdexcept>

namespace maxsim {

double spatial_tendon_length(const Model&, const Tendon& tendon, const std::vector<Pose>&,
                             std::vector<std::pair<int, Vec6>>*) {
  throw std::invalid_argument("tendon '" + tendon.name + "': spatial tendons need sim/tendon/spatial.cpp");
}

}  // namespace maxsim
