// libFuzzer harness for the MJCF loader (make fuzz; README "Limits and hostile input"). An input
// is up to three files separated by NUL bytes — model.xml, inc1.xml, inc2.xml in a directory of
// their own — so that <include> (of those, of themselves, of each other) is fuzzed too; then
// fuzz_run.hpp's load_and_run: load, and for what loads a few steps as `maxsim simulate` takes
// them. Includes and meshes may name any file; each file read is bounded by
// LoadLimits::file_bytes (1 MB here), every file is read once per input, and includes nest at
// most 20 deep, so an input cannot read files endlessly.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "testing/hostile_models.hpp"
#include "tests/fuzz/fuzz_run.hpp"

namespace {
const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("maxsim_fuzz_mjcf_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const char* const names[3] = {"model.xml", "inc1.xml", "inc2.xml"};
  for (int k = 0; k < 3; ++k) {
    const size_t nul = k < 2 ? input.find('\0') : std::string_view::npos;
    maxsim::hostile::write_text(work_dir() / names[k], std::string(input.substr(0, nul)));
    input = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  }
  maxsim::fuzz::load_and_run((work_dir() / "model.xml").string(), maxsim::fuzz::fuzz_limits());
  return 0;
}
