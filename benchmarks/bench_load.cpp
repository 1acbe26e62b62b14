// Loading time of long descriptions (README "Limits and hostile input"): every check of the
// loaders, the builder and Model set-up is meant to be linear in the links.
//
//   LoadUrdfChain/N          load_model of an N-link URDF chain (links parent first)
//   LoadUrdfChainLeafFirst/N the same chain listed from its free end
//   LoadUrdfStar/N           a hub with N - 1 links hinged to it
//   LoadMjcfStar/N           an MJCF body with N - 1 hinged children
//   SetupUrdfChain/N         load, then Data (graph and LDU analysis), coordinates and projection
//
// The counter `s_per_link` (seconds per link) makes linear growth visible in one run. The files are generated once
// into a temporary directory.
#ifdef MAXSIM_HAVE_MODELS
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/load.hpp"
#include "sim/maxsim.hpp"
#include "testing/hostile_models.hpp"

namespace {

using namespace maxsim;
namespace fs = std::filesystem;

// The file for (kind, n), written on first use.
const std::string& generated(const std::string& kind, int n) {
  static std::map<std::pair<std::string, int>, std::string> files;
  auto it = files.find({kind, n});
  if (it != files.end()) return it->second;
  const fs::path dir = fs::temp_directory_path() / ("maxsim_bench_load_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const bool mjcf = kind == "mjcf_star";
  const fs::path path = dir / (kind + "_" + std::to_string(n) + (mjcf ? ".xml" : ".urdf"));
  if (kind == "chain") hostile::write_text(path, hostile::urdf_chain(n));
  else if (kind == "chain_leaf_first") hostile::write_text(path, hostile::urdf_chain(n, true));
  else if (kind == "star") hostile::write_text(path, hostile::urdf_star(n));
  else hostile::write_text(path, hostile::mjcf_star(n));
  return files.emplace(std::make_pair(kind, n), path.string()).first->second;
}

// Seconds per link (shown with an SI prefix: 7u is 7 µs).
void per_link(benchmark::State& state, int n) {
  state.counters["s_per_link"] = benchmark::Counter(static_cast<double>(state.iterations()) * n,
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void load(benchmark::State& state, const std::string& kind) {
  const int n = static_cast<int>(state.range(0));
  const std::string& path = generated(kind, n);
  for (auto _ : state) {
    Model m = load_model(path);
    benchmark::DoNotOptimize(m.bodies.data());
  }
  per_link(state, n);
}

void LoadUrdfChain(benchmark::State& state) { load(state, "chain"); }
void LoadUrdfChainLeafFirst(benchmark::State& state) { load(state, "chain_leaf_first"); }
void LoadUrdfStar(benchmark::State& state) { load(state, "star"); }
void LoadMjcfStar(benchmark::State& state) { load(state, "mjcf_star"); }

void SetupUrdfChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string& path = generated("chain", n);
  for (auto _ : state) {
    LoadOptions options;
    options.fixed_base = true;
    Model m = load_model(path, options);
    Data d(m);
    set_coordinates(m, d, std::vector<std::vector<double>>(m.joints.size()),
                    std::vector<std::vector<double>>(m.joints.size()));
    benchmark::DoNotOptimize(project_state(m, d).converged);
  }
  per_link(state, n);
}

BENCHMARK(LoadUrdfChain)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(LoadUrdfChainLeafFirst)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(LoadUrdfStar)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(LoadMjcfStar)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(SetupUrdfChain)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
#endif  // MAXSIM_HAVE_MODELS
