// maxsim — the command-line tool: `maxsim info | simulate | bench MODEL [options]`.
// Exit status: 0 success, 1 the simulation failed, 2 bad input or usage. Errors go to stderr.
#include <cstdio>
#include <exception>
#include <new>
#include <string_view>

#include "apps/maxsim/commands.hpp"
#include "apps/maxsim/plot_command.hpp"
#include "apps/maxsim/view_command.hpp"
#include "io/error.hpp"
#include "run/options.hpp"

int main(int argc, char** argv) {
  using namespace maxsim::cli;
  // view and plot read files other than a model; they parse their own arguments
  // (view_command.hpp, plot_command.hpp)
  if (argc >= 2 && std::string_view(argv[1]) == "view") return maxsim::view_main(argc, argv);
  if (argc >= 2 && std::string_view(argv[1]) == "plot") return maxsim::plot_main(argc, argv);
  Options options;
  try {
    options = parse_args(argc, argv);
  } catch (const InputError& e) {
    if (argc < 2)
      std::fprintf(stderr, "maxsim: %s\n%s", e.what(), usage_text());
    else
      std::fprintf(stderr, "maxsim: %s\n(run 'maxsim --help' for the usage)\n", e.what());
    return 2;
  }
  try {
    switch (options.command) {
      case Command::Help:
        std::fputs(usage_text(), stdout);
        return 0;
      case Command::Version:
        std::puts("maxsim 0.1.0");
        return 0;
      case Command::Info:
        return run_info(options);
      case Command::Simulate:
      case Command::Bench:
        return run_simulate(options);
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "maxsim: %s\n", e.what());
    return 2;
  } catch (const maxsim::io::Error& e) {  // an output file that cannot be written
    std::fprintf(stderr, "maxsim: %s\n", e.what());
    return 2;
  } catch (const SimulationError& e) {
    std::fprintf(stderr, "maxsim: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "maxsim: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "maxsim: internal error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "maxsim: internal error\n");
    return 1;
  }
  return 1;
}
