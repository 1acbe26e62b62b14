// The three commands of the `maxsim` tool (README "The maxsim command"). Each returns the exit
// status (0 success, 1 simulation failed) and throws InputError (status 2) or SimulationError
// (status 1).
#pragma once

#include "run/options.hpp"

namespace maxsim::cli {

using namespace maxsim::run;  // (the options and the set-up of a run are the run/ library's)

int run_info(const Options& options);
int run_simulate(const Options& options);  // simulate and bench

}  // namespace maxsim::cli
