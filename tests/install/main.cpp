// A program outside the maxsim tree: tests/install builds it against the installed package (CMake
// and pkg-config, the compiler's default flags) and inside the build (the build's own flags); the
// test compares what the two print. The A1 is dropped onto the ground from its URDF and falls on
// its feet, so the run goes through the loaders, the contact search and the contact solver.
//   install_check A1_URDF [STEPS]   prints the final time, steps that were not Ok, and every
//                                   body's position, orientation and velocities (%.17g)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

int main(int argc, char** argv) {
  using namespace maxsim;
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: install_check A1_URDF [STEPS]\n");
    return 2;
  }
  const int steps = argc == 3 ? std::atoi(argv[2]) : 300;
  try {
    Model model = load_model(argv[1]);
    model.opt.timestep = 0.005;
    Data data(model);
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
      const Joint& joint = model.joints[j];
      const int index = static_cast<int>(j);
      if (joint.type == JointType::Floating) set_joint_coordinates(model, data, index, {0, 0, 0.4, 1, 0, 0, 0}, {});
      if (joint.name.find("thigh_joint") != std::string::npos) set_joint_coordinates(model, data, index, {0.8}, {});
      if (joint.name.find("calf_joint") != std::string::npos) set_joint_coordinates(model, data, index, {-1.5}, {});
    }
    enable_contacts(model, data);
    int not_ok = 0;
    std::size_t most_contacts = 0;
    for (int k = 0; k < steps; ++k) {
      if (step(model, data).status != StepStatus::Ok) ++not_ok;
      if (data.contacts.size() > most_contacts) most_contacts = data.contacts.size();
    }
    std::printf("time %.17g steps %d not_ok %d most_contacts %zu\n", data.time, steps, not_ok, most_contacts);
    for (std::size_t b = 0; b < model.bodies.size(); ++b) {
      std::printf("%s", model.bodies[b].name.c_str());
      for (int k = 0; k < 3; ++k) std::printf(" %.17g", data.x[b](k));
      for (int k = 0; k < 4; ++k) std::printf(" %.17g", data.q[b](k));
      for (int k = 0; k < 3; ++k) std::printf(" %.17g", data.v[b](k));
      for (int k = 0; k < 3; ++k) std::printf(" %.17g", data.w[b](k));
      std::printf("\n");
    }
    return not_ok == 0 && most_contacts > 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "install_check: %s\n", e.what());
    return 1;
  }
}
