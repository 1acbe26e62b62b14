// libFuzzer harness for the URDF loader (make fuzz; README "Limits and hostile input"): each
// input is written to a file of its own directory and given to fuzz_run.hpp's load_and_run —
// load, and for what loads a few steps as `maxsim simulate` takes them. Mesh file names in an
// input may name any file; LoadLimits::file_bytes (1 MB here) bounds what one input can read.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "testing/hostile_models.hpp"
#include "tests/fuzz/fuzz_run.hpp"

namespace {
const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("maxsim_fuzz_urdf_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file = work_dir() / "model.urdf";
  maxsim::hostile::write_text(file, std::string(reinterpret_cast<const char*>(data), size));
  maxsim::fuzz::load_and_run(file.string(), maxsim::fuzz::fuzz_limits());
  return 0;
}
