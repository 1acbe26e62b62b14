// exo_plots: the elbow torque of the arm exoskeleton over the rehabilitation routine for the
// clinical and the tuned gains, healthy and spastic patient (Brüdigam et al. 2023, Fig. 14c–d).
// Runs the four routines (robots/exoskeleton/exoskeleton.hpp) and writes two plots with the
// ±5 N·m comfort limit:
//   DIR/exo_elbow_torque_clinical.svg   clinical gains: healthy within, spastic exceeds (Fig. 14c)
//   DIR/exo_elbow_torque_tuned.svg      tuned gains: both within (Fig. 14d)
// and prints the four runs' summaries, one JSON object per line.
//
//   exo_plots [--gains FILE] [--dir DIR] [--format svg|png]
//
// --gains: the tuned gains (default robots/exoskeleton/gains_tuned.params); --dir: where the
// images go (default docs/images of the source tree). Exit status 0, or 2 for bad input.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "io/plot.hpp"
#include "robots/exoskeleton/exoskeleton.hpp"

using namespace maxsim;
using namespace maxsim::io;

namespace {

int usage(const std::string& msg) {
  std::fprintf(stderr, "exo_plots: %s\nusage: exo_plots [--gains FILE] [--dir DIR] [--format svg|png]\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string source = MAXSIM_SOURCE_DIR;
  std::string gains_file = source + "/robots/exoskeleton/gains_tuned.params";
  std::string dir = source + "/docs/images";
  std::string format = "svg";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--gains" || a == "--dir" || a == "--format") {
      if (!v || !*v) return usage(a + " needs a value");
      (a == "--gains" ? gains_file : a == "--dir" ? dir : format) = v;
      ++i;
    } else {
      return usage("unknown option '" + a + "'");
    }
  }
  if (format != "svg" && format != "png") return usage("--format is svg or png");

  try {
    const exo::Routine routine;
    const exo::Gains tuned = exo::read_gains(gains_file);
    const exo::Exoskeleton healthy = exo::load_exoskeleton(source, exo::healthy_patient(), routine.dt);
    const exo::Exoskeleton spastic = exo::load_exoskeleton(source, exo::spastic_patient(), routine.dt);
    struct Set {
      const char* name;
      const char* title;
      exo::Gains gains;
    };
    const Set sets[] = {
        {"clinical", "clinical gains (Brüdigam et al. 2023, Fig. 14c)", exo::clinical_gains()},
        {"tuned", "tuned gains (Brüdigam et al. 2023, Fig. 14d)", tuned},
    };
    for (const Set& set : sets) {
      Plot p;
      p.title = set.title;
      p.x_label = "t [s]";
      p.y_label = "elbow motor torque [N m]";
      p.y_min = -7;
      p.y_max = 7;
      for (const exo::Exoskeleton* e : {&healthy, &spastic}) {
        std::vector<exo::Sample> trace;
        const exo::Summary s = exo::run_routine(*e, set.gains, routine, &trace);
        PlotSeries series{e->patient.name + " (max " + std::to_string(s.max_elbow_torque).substr(0, 4) + " N m)", {}, {},
                          e == &healthy ? "#1f77b4" : "#d62728"};
        for (const exo::Sample& smp : trace) {
          series.x.push_back(smp.t);
          series.y.push_back(smp.elbow_torque);
        }
        p.series.push_back(std::move(series));
        std::printf("%s\n", exo::summary_json(s, routine).c_str());
      }
      const double T = routine.duration, lim = exo::kComfortTorque, gap = std::nan("");
      p.series.push_back({"comfort limit 5 N m", {0, T, gap, 0, T}, {lim, lim, gap, -lim, -lim}, "#555555"});
      const std::string path = dir + "/exo_elbow_torque_" + set.name + "." + format;
      write_plot(p, path);
      std::printf("wrote %s\n", path.c_str());
    }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "exo_plots: %s\n", ex.what());
    return 2;
  }
  return 0;
}
