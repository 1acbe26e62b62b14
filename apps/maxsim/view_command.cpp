// `maxsim view` and `maxsim simulate --view` (io/replay.hpp writes the pages).
#include "apps/maxsim/view_command.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "run/options.hpp"
#include "io/plot.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"

namespace maxsim {

using namespace io;  // (Replay, CsvTable and the functions that read and write them)

// ---- `maxsim view` ------------------------------------------------------------------------------------
namespace {
const char* view_usage() {
  return "usage: maxsim view MODEL TRAJ.csv [-o OUT.html] [--title T] [--lenient]\n"
         "  MODEL     the URDF/MJCF file the trajectory was simulated with (its visual geometry is drawn)\n"
         "  TRAJ.csv  a trajectory of `maxsim simulate --output` (body pose columns B.x .. B.qz)\n"
         "  -o FILE   the self-contained HTML replay (default: TRAJ with .html)\n"
         "  --lenient load an MJCF file with unknown elements or attributes (with a warning)\n";
}
}  // namespace

int view_main(int argc, const char* const* argv) {
  auto fail = [](const std::string& msg) {
    std::fprintf(stderr, "maxsim view: %s\n", msg.c_str());
    return 2;
  };
  std::vector<std::string> positional;
  std::string out, title;
  LoadOptions load_options;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "-h" || arg == "--help") {
      std::fputs(view_usage(), stdout);
      return 0;
    }
    if (arg.size() <= 1 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    if (const std::size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg == "-o" || arg == "--output" || arg == "--title") {
      if (i + 1 >= argc) return fail("option " + arg + " needs a value");
      value = argv[++i];
    }
    if (arg == "--lenient") load_options.lenient = true;
    else if (arg == "-o" || arg == "--output") out = value;
    else if (arg == "--title") title = value;
    else return fail("unknown option '" + arg + "'\n" + view_usage());
  }
  if (positional.size() != 2)
    return fail((positional.size() < 2 ? std::string("missing ") + (positional.empty() ? "MODEL and TRAJ.csv" : "TRAJ.csv")
                                        : "unexpected argument '" + positional[2] + "'") + "\n" + view_usage());
  const std::string& model_path = positional[0];
  const std::string& csv_path = positional[1];
  if (out.empty()) out = std::filesystem::path(csv_path).replace_extension(".html").string();
  if (out == csv_path) return fail("the output " + out + " would overwrite the trajectory");
  try {
    const std::string js = load_viewer_js();  // first: the cheapest way to fail
    check_writable(out);
    Model model;
    try {
      model = load_model(model_path, load_options);
    } catch (const LoadError& e) {
      return fail(e.what());
    }
    const CsvTable table = read_csv_table(csv_path);
    Replay replay = replay_from_csv(model, table);
    replay.model_file = model_path;
    replay.title = title;
    const std::string html = replay_html(model, replay, js);
    io::write_html_file(out, html);
    std::printf("replay: %s (%zu frames, %zu bodies, %.1f MB)\n", out.c_str(), replay.frames(), model.bodies.size(),
                html.size() / 1e6);
  } catch (const io::Error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {  // out of memory, a file system error
    std::fprintf(stderr, "maxsim: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}

// ---- `maxsim simulate --view` -----------------------------------------------------------------------------
namespace cli {
bool SimulationView::record(const Model& model, const Data& data) {
  Replay& r = recorder_.replay();
  const std::size_t times = r.times.size(), poses = r.poses.size(), counts = r.contact_counts.size(),
                    contacts = r.contacts.size();
  recorder_.record(model, data);
  if (r.frame_bytes() <= max_bytes_) return true;
  r.times.resize(times);  // the frame that crossed the limit is taken back
  r.poses.resize(poses);
  r.contact_counts.resize(counts);
  r.contacts.resize(contacts);
  for (auto& s : r.scalars) s.second.resize(times);
  return false;
}

void SimulationView::start(const std::string& path, const Model& model, const std::string& model_file,
                           std::size_t max_bytes) {
  try {
    viewer_js_ = load_viewer_js();
    check_writable(path);
  } catch (const io::Error& e) {
    throw InputError("--view: " + std::string(e.what()));
  }
  path_ = path;
  max_bytes_ = max_bytes;
  recorder_ = ReplayRecorder(model);
  recorder_.replay().model_file = model_file;
}

void SimulationView::finish(const Model& model) {
  if (!active()) return;
  try {
    io::write_html_file(path_, replay_html(model, recorder_.replay(), viewer_js_));
  } catch (const io::Error& e) {
    throw InputError("--view: " + std::string(e.what()));
  }
}
}  // namespace cli

}  // namespace maxsim
