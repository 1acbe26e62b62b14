// a1_walk: the Unitree A1 replays a gait (by default the learned robots/a1/gait.params) for 10 s
// on the ground with hard contacts (Brüdigam et al. 2023, §5.4), writes its trajectory CSV and
// prints a JSON summary as the last line of stdout:
//
//   {"distance_m": .., "duration_s": .., "fell": .., "max_penetration": .., "failed_steps": ..,
//    "steps_per_s": .., ...}
//
// distance_m is the trunk's x displacement, fell says the trunk dropped below 0.15 m or turned
// over (the run stops there), failed_steps counts steps that did not converge or failed.
//
//   a1_walk [--params FILE] [--duration S] [--output FILE.csv] [--every K] [--no-output] [--view FILE.html]
//
// Defaults: robots/a1/gait.params, 10 s, the trajectory in the build directory (a1_walk.csv) with
// a row every 10 steps.
//
// Exit status: 0 the robot walked without falling and every step converged; 1 it fell or a step
// did not converge; 2 bad input.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "io/replay.hpp"
#include "robots/a1/a1_gait.hpp"
#include "io/report.hpp"

using namespace maxsim;
using namespace maxsim::io;

namespace {

int usage(const char* msg) {
  std::fprintf(stderr, "a1_walk: %s\nusage: a1_walk [--params FILE] [--duration S] [--output FILE.csv] [--every K] [--no-output] [--view FILE.html]\n", msg);
  return 2;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string source = MAXSIM_SOURCE_DIR;
  std::string params = source + "/robots/a1/gait.params";
  std::string output = std::string(MAXSIM_BINARY_DIR) + "/a1_walk.csv";  // next to the program
  double duration = 10.0;
  int every = 10;
  std::string view;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--params") {
      const char* v = value();
      if (!v) return usage("--params needs a file");
      params = v;
    } else if (a == "--duration") {
      const char* v = value();
      char* end = nullptr;
      duration = v ? std::strtod(v, &end) : 0;
      if (!v || *end || !(duration > 0)) return usage("--duration needs a positive number");
    } else if (a == "--output") {
      const char* v = value();
      if (!v) return usage("--output needs a file");
      output = v;
    } else if (a == "--every") {
      const char* v = value();
      char* end = nullptr;
      every = v ? static_cast<int>(std::strtol(v, &end, 10)) : 0;
      if (!v || *end || every < 1) return usage("--every needs a positive integer");
    } else if (a == "--no-output") {
      output.clear();
    } else if (a == "--view") {  // the HTML replay of the walk (every K-th step, like the CSV)
      const char* v = value();
      if (!v) return usage("--view needs a file");
      view = v;
    } else {
      return usage(("unknown option " + a).c_str());
    }
  }

  try {
    const a1::Robot robot = a1::load_robot(source);
    GaitParameters gait;
    const bool have_params = std::filesystem::exists(params);
    if (have_params) gait = a1::read_gait(params);
    else std::fprintf(stderr, "a1_walk: %s not found, using the default trot\n", params.c_str());

    io::CsvWriter csv;  // the columns of `maxsim simulate --output`
    if (!output.empty()) csv.open(output, robot.model);
    std::unique_ptr<ReplayRecorder> replay;
    if (!view.empty()) {
      check_writable(view);
      try {  // the walk is the main job: without the viewer's JavaScript it runs without a replay
        load_viewer_js();
        replay = std::make_unique<ReplayRecorder>(robot.model);
      } catch (const io::Error& e) {
        std::fprintf(stderr, "a1_walk: no replay: %s\n", e.what());
        view.clear();
      }
    }
    long long step_index = 0;
    const WorldSurfaces world = world_surfaces(robot.model, robot.model.opt.contact.ground);
    auto observer = [&](const Model& m, const Data& d) {
      const bool record = step_index++ % every == 0;
      if (csv.is_open() && record) csv.write_row(m, d, io::row_diagnostics(m, d, world, step_index == 1));
      if (replay && record) replay->record(m, d);
    };
    const a1::Walk w = a1::walk(robot, gait, duration, observer);
    csv.close();
    if (replay) write_replay_html(robot.model, replay->replay(), view);

    std::printf("A1 %s gait (%s), dt = %g s, friction %g\n", have_params ? "learned" : "default",
                have_params ? params.c_str() : "built in", robot.model.opt.timestep, robot.model.opt.contact.friction);
    std::printf("walked %.3f m forward (%.3f m sideways) in %.2f s%s\n", w.distance, w.lateral, w.duration,
                w.fell ? " and FELL" : "");
    std::printf("steps %d, not converged %d, max penetration %.2e m, %.0f steps/s\n", w.steps,
                w.not_converged_steps, w.max_penetration, w.steps / w.wall_time);
    if (!output.empty()) std::printf("trajectory: %s (every %d steps)\n", output.c_str(), every);
    if (!view.empty()) std::printf("replay: %s (open it in a browser)\n", view.c_str());
    std::printf("{\"distance_m\": %.6f, \"duration_s\": %.6f, \"fell\": %s, \"max_penetration\": %.6g, "
                "\"failed_steps\": %d, \"steps_per_s\": %.1f, \"steps\": %d, \"not_converged_steps\": %d, "
                "\"lateral_m\": %.6f, \"dt\": %g, \"friction\": %g, \"params\": %s, \"trajectory\": %s}\n",
                w.distance, w.duration, w.fell ? "true" : "false", w.max_penetration, w.failed_steps,
                w.steps / w.wall_time, w.steps, w.not_converged_steps, w.lateral, robot.model.opt.timestep,
                robot.model.opt.contact.friction, json_string(have_params ? params : "").c_str(), json_string(output).c_str());
    return w.fell || w.failed_steps > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "a1_walk: %s\n", e.what());
    return 2;
  }
}
