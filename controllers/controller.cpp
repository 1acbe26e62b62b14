#include "controllers/controller.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/state/kinematics.hpp"

namespace maxsim {

void set_controller(Data& data, ControlFunction f) { data.controller = std::move(f); }

void set_controller(Data& data, std::shared_ptr<Controller> controller) {
  if (!controller) {
    data.controller = nullptr;
    return;
  }
  data.controller = [c = std::move(controller)](const Model& m, Data& d) { c->control(m, d); };
}

void set_controller_ref(Data& data, Controller& controller) {
  data.controller = [c = &controller](const Model& m, Data& d) { c->control(m, d); };
}

}  // namespace maxsim
