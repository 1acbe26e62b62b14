// What the fuzzers do with one input, shared with the regression test of their findings
// (tests/test_hostile.cpp): load the file, and when it loads, set it up as `maxsim simulate`
// sets a file up and take a few steps. A clean refusal is a LoadError (or the command's
// InputError / SimulationError); anything else — another exception, a crash, a sanitizer
// report, a run that does not end — is a finding.
#pragma once

#include <string>

#include "run/options.hpp"
#include "run/setup.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::fuzz {

// Bounds for fuzzing: small enough that every input is quick, with every check still on the
// input's path (the defaults' code paths are the same, only the numbers differ).
inline LoadLimits fuzz_limits() {
  LoadLimits l;
  l.file_bytes = 1 << 20;
  l.elements = 100'000;
  l.bodies = 1'000;
  l.geoms = 10'000;
  l.mesh_vertices = 100'000;
  return l;
}

struct Outcome {
  bool loaded = false;
  std::string refusal;  // the loader's or the command's message when it did not load or start
};

// Simulation only for small models (max_bodies), for `steps` steps: under the fuzz build's
// sanitizers a step with contacts runs about 50 times slower than in a release build (a hard
// start of 17 bodies, the contacts' retries: 8 s).
inline Outcome load_and_run(const std::string& path, const LoadLimits& limits, int steps = 2,
                            int max_bodies = 20) {
  Outcome out;
  try {
    const Model m = load_model(path, [&] {
      LoadOptions o;
      o.limits = limits;
      return o;
    }());
    out.loaded = true;
    if (static_cast<int>(m.bodies.size()) > max_bodies) return out;
  } catch (const LoadError& e) {
    out.refusal = e.what();
    return out;
  }
  run::Options o;
  o.command = run::Command::Simulate;
  o.model_path = path;
  o.limits = limits;
  o.steps = steps;
  try {
    run::RunSetup setup = run::setup_model(o);
    Data d(setup.loaded.model);
    run::setup_state(setup, o, d);
    for (int k = 0; k < steps; ++k)
      if (step(setup.loaded.model, d).status == StepStatus::Failed) break;
  } catch (const run::InputError& e) {
    out.refusal = e.what();
  } catch (const run::SimulationError& e) {
    out.refusal = e.what();
  }
  return out;
}

}  // namespace maxsim::fuzz
