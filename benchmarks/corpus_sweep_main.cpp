// corpus_sweep — every model of the corpus run as `maxsim simulate FILE` runs it, from its own
// initial state, from each keyframe and under a random joint PD (benchmarks/corpus_sweep.hpp).
//
//   corpus_sweep [--duration S | --quick] [--only SUBSTRING]... [--json FILE] [--markdown]
//                [--expect-refusals FILE] [--known-failures FILE] [--root DIR] [--no-mujoco]
//
// Exit status: 0 no row has a failed or unconverged step (and every refusal is expected), 1
// otherwise, 2 bad options.
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "run/options.hpp"
#include "benchmarks/corpus_sweep.hpp"

namespace {

const char* kUsage =
    "usage: corpus_sweep [options]\n"
    "  --duration S             simulated seconds per scenario (default 3)\n"
    "  --quick                  0.5 s per scenario\n"
    "  --only SUBSTRING         only files whose relative path contains it (repeatable: any of them)\n"
    "  --json FILE              write every row as JSON\n"
    "  --markdown               print the table in Markdown (the README's) instead of fixed width\n"
    "  --known-failures FILE    rows still open (FILE  SCENARIO  NOTE per line): their failed or\n"
    "                           unconverged steps are reported but do not fail the sweep; such a\n"
    "                           row that runs clean does\n"
    "  --expect-refusals FILE   refusals the corpus expects (FILE  REASON per line); any other\n"
    "                           refusal, or a listed file that loads, fails the sweep\n"
    "  --root DIR               the source tree the corpus is found in (default: this build's)\n"
    "  --no-mujoco              leave out the MuJoCo columns\n"
    "exit status: 0 no failed or unconverged step, 1 some, 2 bad options\n";

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace maxsim;
  SweepOptions options;
  std::vector<std::string> only;
  std::string json_path, refusals_path, known_path;
  std::string root = MAXSIM_SOURCE_DIR;
  bool markdown = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string_view a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Usage(std::string(a) + " needs a value");
        return argv[++i];
      };
      if (a == "--help" || a == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      } else if (a == "--duration") {
        const std::string v = value();
        if (!run::parse_double(v, &options.duration) || !(options.duration > 0))
          throw Usage("--duration: '" + v + "' is not a positive number of seconds");
      } else if (a == "--quick") {
        options.duration = 0.5;
      } else if (a == "--only") {
        only.push_back(value());
      } else if (a == "--json") {
        json_path = value();
      } else if (a == "--markdown") {
        markdown = true;
      } else if (a == "--expect-refusals") {
        refusals_path = value();
      } else if (a == "--known-failures") {
        known_path = value();
      } else if (a == "--root") {
        root = value();
      } else if (a == "--no-mujoco") {
        options.mujoco = false;
      } else {
        throw Usage("unknown option '" + std::string(a) + "'");
      }
    }
  } catch (const Usage& e) {
    std::fprintf(stderr, "corpus_sweep: %s\n%s", e.what(), kUsage);
    return 2;
  }

  std::vector<ExpectedRefusal> expected;
  if (!refusals_path.empty()) {
    try {
      expected = read_expected_refusals(refusals_path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "corpus_sweep: %s\n", e.what());
      return 2;
    }
  }
  std::vector<KnownFailure> known;
  if (!known_path.empty()) {
    try {
      known = read_known_failures(known_path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "corpus_sweep: %s\n", e.what());
      return 2;
    }
  }
  std::vector<std::string> files;
  for (const std::string& f : corpus_files(root)) {
    bool keep = only.empty();
    for (const std::string& s : only) keep = keep || f.find(s) != std::string::npos;
    if (keep) files.push_back(f);
  }
  if (files.empty()) {  // a mistyped --only must not pass as an empty, successful sweep
    std::fprintf(stderr, "corpus_sweep: no corpus file under %s matches the --only filter\n", root.c_str());
    return 2;
  }

  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  std::vector<SweepRow> rows;
  for (size_t i = 0; i < files.size(); ++i) {
    const Clock::time_point t0 = Clock::now();
    std::vector<SweepRow> r = sweep_file(root, files[i], options);
    std::fprintf(stderr, "[%zu/%zu] %s: %zu scenario%s, %.1f s\n", i + 1, files.size(), files[i].c_str(), r.size(),
                 r.size() == 1 ? "" : "s", std::chrono::duration<double>(Clock::now() - t0).count());
    rows.insert(rows.end(), r.begin(), r.end());
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();

  const bool with_mujoco = options.mujoco && sweep_has_mujoco();
  std::vector<SweepRow> open_rows, checked_rows;  // pinned as known failures / all others
  for (const SweepRow& r : rows) (is_known_failure(r, known) ? open_rows : checked_rows).push_back(r);
  const std::vector<std::string> failures = sweep_failures(checked_rows);
  const std::vector<std::string> known_failures = sweep_failures(open_rows);
  const std::vector<std::string> known_problems = check_known_failures(rows, known);
  const std::vector<std::string> refusal_problems = refusals_path.empty() ? std::vector<std::string>{}
                                                                          : check_refusals(rows, expected);
  std::string refused;
  long long n_refused = 0;
  for (const SweepRow& r : rows)
    if (!r.loaded) {
      ++n_refused;
      refused += (markdown ? "* `" : "  ") + r.file + (markdown ? "`: " : ": ") + r.refusal + "\n";
    }
  std::fputs((markdown ? sweep_markdown(rows, with_mujoco) : sweep_table(rows, with_mujoco)).c_str(), stdout);
  if (!refused.empty()) std::printf("\nrefused (%lld):\n%s", n_refused, refused.c_str());
  if (!failures.empty()) {
    std::printf("\nrows with failed or unconverged steps (%zu):\n", failures.size());
    for (const std::string& f : failures) std::printf("%s%s\n", markdown ? "* " : "  ", f.c_str());
  }
  if (!known_failures.empty()) {
    std::printf("\nknown failures, pinned in %s (%zu):\n", known_path.c_str(), known_failures.size());
    for (const std::string& f : known_failures) std::printf("%s%s\n", markdown ? "* " : "  ", f.c_str());
  }
  if (!known_problems.empty()) {
    std::printf("\nknown failures not as pinned (%s):\n", known_path.c_str());
    for (const std::string& p : known_problems) std::printf("%s%s\n", markdown ? "* " : "  ", p.c_str());
  }
  if (!refusal_problems.empty()) {
    std::printf("\nrefusals not as expected (%s):\n", refusals_path.c_str());
    for (const std::string& p : refusal_problems) std::printf("%s%s\n", markdown ? "* " : "  ", p.c_str());
  }
  std::printf("\n%zu files, %zu rows (%.3g s per scenario): %lld refused, %zu rows with failed or unconverged steps; "
              "%.1f s%s\n",
              files.size(), rows.size(), options.duration, n_refused, failures.size() + known_failures.size(), wall,
              with_mujoco ? (" (MuJoCo " + sweep_mujoco_version() + " columns included)").c_str() : "");
  std::fflush(stdout);

  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << sweep_json(rows, options);
    if (!out) {
      std::fprintf(stderr, "corpus_sweep: cannot write %s\n", json_path.c_str());
      return 2;
    }
  }
  return failures.empty() && refusal_problems.empty() && known_problems.empty() ? 0 : 1;
}
