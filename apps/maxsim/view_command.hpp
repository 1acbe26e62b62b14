// `maxsim view` and `maxsim simulate --view` (io/replay.hpp makes the pages).
#pragma once

#include <cstddef>
#include <string>

#include "io/replay.hpp"
#include "run/options.hpp"

namespace maxsim {

// ---- the command line --------------------------------------------------------------------------
// maxsim view MODEL TRAJ.csv [-o OUT.html] [--title T]; argv[1] is "view". Returns the exit
// status: 0, or 2 with a message on stderr (bad usage, model or CSV, CSV/model mismatch, missing
// viewer bundle, unwritable output).
int view_main(int argc, const char* const* argv);

namespace cli {
using namespace maxsim::run;  // InputError
// `maxsim simulate --view OUT.html`: start() checks the bundle and the output file (throws
// InputError), record() takes the frames simulate writes to its CSV, finish() writes the page.
class SimulationView {
 public:
  // Frames beyond max_bytes of frame data are not recorded (record returns false).
  void start(const std::string& path, const Model& model, const std::string& model_file,
             std::size_t max_bytes = static_cast<std::size_t>(-1));
  bool active() const { return !path_.empty(); }
  bool record(const Model& model, const Data& data);
  void finish(const Model& model);

 private:
  std::string path_, viewer_js_;
  std::size_t max_bytes_ = static_cast<std::size_t>(-1);
  io::ReplayRecorder recorder_{Model{}};
};
}  // namespace cli

}  // namespace maxsim
