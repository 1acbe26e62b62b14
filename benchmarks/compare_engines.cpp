// compare_engines — the same scenes in maxsim, MuJoCo, Bullet and DART, measured alike.
//
//   compare_engines [--quick] [--only SCENE,…] [--engines NAME,…] [--json FILE] [--markdown FILE]
//                   [--svg PREFIX]
//   compare_engines --file ROBOT.urdf|.xml [--seconds S] [--dt DT] [same outputs]
//
// Every scene is one description file (generated scenes are written to a temporary directory)
// that maxsim loads; Bullet and DART get maxsim's reading of it translated into their own bodies
// and joints, MuJoCo reads the MJCF itself (benchmarks/engines/engine.hpp). All start from the
// same state, take the same Δt, get the same joint forces from the same controller (computed from
// each engine's own state), and are measured by the same code from the states they report
// (benchmarks/engines/run.hpp): steps per second of the step alone, deepest penetration, largest
// joint or loop violation, energy drift (conservative scenes), the scene's own measure (creep,
// slip, sliding error, …) and failed steps. It prints a table, and writes the JSON rows, a
// Markdown table and SVG bar charts (PREFIX_speed.svg, PREFIX_<measure>.svg).
// --file runs the user's robot falling onto the ground for S seconds (default 2) in every engine
// that reads it. Exit status 0; 2 for bad options or a file maxsim cannot load.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "benchmarks/engines/report.hpp"
#include "benchmarks/engines/run.hpp"
#include "benchmarks/engines/scenes.hpp"

namespace {

namespace fs = std::filesystem;
using namespace maxsim;
using namespace maxsim::bench;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

[[noreturn]] void bad(const std::string& msg) {
  std::fprintf(stderr, "compare_engines: %s\n", msg.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::vector<std::string> only, engines = built_engines();
  std::string json, markdown, svg, file;
  double seconds = 2, dt = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) bad(a + " needs a value");
      return argv[++i];
    };
    auto number = [&]() {
      const std::string v = value();
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !std::isfinite(x) || x <= 0) bad(a + " needs a positive number, not '" + v + "'");
      return x;
    };
    if (a == "--quick") quick = true;
    else if (a == "--only") only = split(value());
    else if (a == "--engines") engines = split(value());
    else if (a == "--json") json = value();
    else if (a == "--markdown") markdown = value();
    else if (a == "--svg") svg = value();
    else if (a == "--file") file = value();
    else if (a == "--seconds") seconds = number();
    else if (a == "--dt") dt = number();
    else bad("unknown option '" + a + "' (see the comment at the top of benchmarks/compare_engines.cpp)");
  }
  // the outputs can be written, before minutes of runs
  for (const std::string& path : {json, markdown, svg.empty() ? std::string() : svg + "_speed.svg"})
    if (!path.empty() && !std::ofstream(path, std::ios::app)) bad("cannot write " + path);
  const std::vector<std::string> built = built_engines();
  for (const std::string& e : engines)
    if (std::find(built.begin(), built.end(), e) == built.end()) {
      std::string list;
      for (const std::string& b : built) list += (list.empty() ? "" : ", ") + b;
      bad("engine '" + e + "' is not in this build (built: " + list + ")");
    }
  for (const std::string& m : missing_engines()) std::printf("not built: %s\n", m.c_str());

  const fs::path tmp = fs::temp_directory_path() / ("maxsim_compare_engines_" + std::to_string(getpid()));
  fs::create_directories(tmp);
  std::vector<Scene> scenes;
  if (!file.empty()) {
    if (!fs::exists(file)) bad("no file '" + file + "'");
    try {
      scenes.push_back(file_scene(file, seconds, dt));
    } catch (const std::exception& e) {
      bad(e.what());
    }
  } else {
    for (Scene& s : standard_scenes(tmp.string(), quick))
      if (only.empty() || std::find(only.begin(), only.end(), s.name) != only.end()) scenes.push_back(std::move(s));
    for (const std::string& o : only) {
      bool found = false;
      for (const Scene& s : scenes) found = found || s.name == o;
      if (!found) bad("no scene '" + o + "'");
    }
  }

  std::vector<RunResult> rows;
  for (const Scene& s : scenes)
    for (const std::string& e : engines) {
      try {
        rows.push_back(run_scene_isolated(s, e));
      } catch (const std::exception& ex) {
        fs::remove_all(tmp);
        bad(s.name + ": " + ex.what());
      }
      print_row(stdout, s, rows.back());
    }
  fs::remove_all(tmp);
  try {
    if (!json.empty()) write_json(json, scenes, rows, built, missing_engines());
    if (!markdown.empty()) write_markdown(markdown, scenes, rows, missing_engines());
    if (!svg.empty()) write_charts(svg, scenes, rows, engines);
  } catch (const std::exception& e) {
    bad(e.what());
  }
  return 0;
}
