// A double pendulum built in code and stepped: the README's example, runnable.
// Prints time, the two joint angles, total energy and the constraint violation every 0.5 s.
//   double_pendulum [--view FILE.html]   (the HTML replay of the run, io/replay.hpp)
#include <cstdio>
#include <memory>
#include <string>

#include "io/replay.hpp"
#include "sim/maxsim.hpp"

int main(int argc, char** argv) {
  using namespace maxsim;
  using namespace maxsim::io;
  std::string view;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--view" && i + 1 < argc) {
      view = argv[++i];
    } else {
      std::fprintf(stderr, "usage: double_pendulum [--view FILE.html]\n");
      return 2;
    }
  }
  Model model;
  model.opt.timestep = 0.01;
  // two 1 m, 1 kg rods hanging from the origin along −z, body z along the rod
  for (int i = 0; i < 2; ++i) {
    Body rod;
    rod.name = "link" + std::to_string(i + 1);
    rod.mass = 1.0;
    rod.inertia = inertia_rod(1.0, 1.0);
    rod.x0 = Vec3(0, 0, -0.5 - i);
    Geom shape = make_geom(GeomType::Capsule, Vec3(0.03, 0.5, 0));  // drawn by --view (body z = rod)
    shape.collision = false;
    rod.geoms.push_back(shape);
    model.add_body(rod);
    // revolute about x at the top of each rod; the first hangs from the world
    model.add_joint(make_joint(model, JointType::Revolute, i == 0 ? kWorld : 0, i, Vec3(0, 0, -1.0 * i),
                               Vec3::UnitX(), "joint" + std::to_string(i + 1)));
  }
  Data data(model);
  set_joint_coordinates(model, data, 0, {1.5707963}, {});  // release the first rod horizontally

  std::unique_ptr<ReplayRecorder> replay;
  if (!view.empty()) replay = std::make_unique<ReplayRecorder>(model);

  std::printf("%6s %10s %10s %12s %10s\n", "t", "q1", "q2", "energy", "violation");
  for (int k = 0; k <= 1000; ++k) {
    if (k % 50 == 0) {
      double q1, q2, qd;
      joint_coordinates(model, data, 0, &q1, &qd);
      joint_coordinates(model, data, 1, &q2, &qd);
      std::printf("%6.2f %10.4f %10.4f %12.6f %10.2e\n", data.time, q1, q2, total_energy(model, data),
                  max_constraint_violation(model, data));
    }
    if (replay && k % 2 == 0) replay->record(model, data);
    const StepReport r = step(model, data);
    if (r.status != StepStatus::Ok) {
      std::fprintf(stderr, "step failed: %s (residual %g after %d iterations)\n",
                   step_status_name(r.status), r.residual, r.iterations);
      return 1;
    }
  }
  if (replay) {
    try {
      write_replay_html(model, replay->replay(), view);
      std::printf("replay: %s\n", view.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "double_pendulum: no replay: %s\n", e.what());
      return 2;
    }
  }
  return 0;
}
