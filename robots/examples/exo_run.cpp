// exo_run: one rehabilitation routine of the arm exoskeleton (Brüdigam et al. 2023, §5.4, Fig. 14):
// the exoskeleton of robots/exoskeleton/exoskeleton.urdf worn by a healthy or a spastic patient
// (two kinematic loops through the spring-damper cuffs), its four motors under PD control
// tracking the shoulder and elbow flexion sinusoids (robots/exoskeleton/exoskeleton.hpp). Prints
// a few readable lines and, as the LAST line of stdout, a JSON summary with
//   max_elbow_torque_nm     largest |elbow (eFE) motor torque| over the routine
//   rms_tracking_error_rad  RMS over time of the shoulder (sFE) and elbow (eFE) tracking errors
//   max_loop_violation      largest violation of the two cuffs' constrained rows (m, rad)
//   failed_steps            steps that did not converge or failed
// and more (see exo::summary_json).
//
//   exo_run --patient healthy|spastic [--gains FILE] [--output TRAJ.csv] [--every K]
//           [--view RUN.html] [--plot TORQUE.svg|.png]
//
// Without --gains the clinical default gains (exo::clinical_gains) are used; robots/exoskeleton/
// gains_tuned.params holds the gains exo_tune found. --output writes the `maxsim simulate`
// trajectory CSV (every K-th step, default 10; `maxsim view` and `maxsim plot` read it), --view a
// 3D replay (HTML), --plot the elbow torque over time with the 5 N·m comfort limit.
//
// Exit status: 0 the routine ran with every step converged; 1 a step did not converge or failed;
// 2 bad input (unknown option, missing or unknown patient, unreadable gains file, unwritable output).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "io/plot.hpp"
#include "io/replay.hpp"
#include "io/report.hpp"
#include "robots/exoskeleton/exoskeleton.hpp"

using namespace maxsim;
using namespace maxsim::io;

namespace {

int usage(const std::string& msg) {
  std::fprintf(stderr,
               "exo_run: %s\nusage: exo_run --patient healthy|spastic [--gains FILE] [--output TRAJ.csv] [--every K]\n"
               "               [--view RUN.html] [--plot TORQUE.svg|.png]\n",
               msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string source = MAXSIM_SOURCE_DIR;
  std::string patient_name, gains_file, output, view, plot;
  int every = 10;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {  // --name=value
      v = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      has_inline = true;
    }
    auto value = [&]() -> bool {  // the option's value: inline or the next argument
      if (has_inline) return true;
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    if (a == "--patient") {
      if (!value()) return usage("--patient needs a value (healthy or spastic)");
      patient_name = v;
    } else if (a == "--gains") {
      if (!value() || v.empty()) return usage("--gains needs a file");
      gains_file = v;
    } else if (a == "--output") {
      if (!value() || v.empty()) return usage("--output needs a file");
      output = v;
    } else if (a == "--every") {
      if (!value()) return usage("--every needs a positive integer");
      char* end = nullptr;
      const long k = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || k < 1 || k > 1000000000) return usage("--every needs a positive integer, got '" + v + "'");
      every = static_cast<int>(k);
    } else if (a == "--view") {
      if (!value() || v.empty()) return usage("--view needs a file");
      view = v;
    } else if (a == "--plot") {
      if (!value() || v.empty()) return usage("--plot needs a file (.svg or .png)");
      plot = v;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: exo_run --patient healthy|spastic [--gains FILE] [--output TRAJ.csv] [--every K]\n"
                  "               [--view RUN.html] [--plot TORQUE.svg|.png]\n");
      return 0;
    } else {
      return usage("unknown option '" + a + "'");
    }
  }
  if (patient_name.empty()) return usage("--patient is required (healthy or spastic)");
  if (patient_name != "healthy" && patient_name != "spastic")
    return usage("unknown patient '" + patient_name + "' (healthy or spastic)");
  if (!plot.empty()) {
    const std::string ext = plot.size() >= 4 ? plot.substr(plot.size() - 4) : "";
    if (ext != ".svg" && ext != ".png" && ext != ".SVG" && ext != ".PNG")
      return usage("--plot needs a .svg or .png file, got '" + plot + "'");
  }

  exo::Routine routine;
  exo::Gains gains = exo::clinical_gains();
  exo::Exoskeleton e;
  try {
    if (!gains_file.empty()) gains = exo::read_gains(gains_file);
    e = exo::load_exoskeleton(source, exo::patient_by_name(patient_name), routine.dt, !view.empty());
    if (!view.empty()) check_writable(view);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "exo_run: %s\n", ex.what());
    return 2;
  }

  exo::Summary s;
  std::vector<exo::Sample> trace;
  try {
    io::CsvWriter csv;  // the columns of `maxsim simulate --output`
    if (!output.empty()) csv.open(output, e.model);
    std::unique_ptr<ReplayRecorder> recorder;
    if (!view.empty()) recorder = std::make_unique<ReplayRecorder>(e.model);
    long long k = 0;
    const int frame_every = std::max(1, static_cast<int>(std::lround(1.0 / 30.0 / routine.dt)));  // 30 frames/s
    const WorldSurfaces world = world_surfaces(e.model, false);  // (no contacts: hung on its frame)
    auto observer = [&](const Model& m, const Data& d) {
      if (csv.is_open() && k % every == 0) csv.write_row(m, d, io::row_diagnostics(m, d, world, k == 0));
      if (recorder && k % frame_every == 0) recorder->record(m, d);
      ++k;
    };
    s = exo::run_routine(e, gains, routine, &trace, observer);
    csv.close();
    if (recorder) {
      recorder->replay().title = "arm exoskeleton, " + patient_name + " patient";
      recorder->replay().model_file = exo::urdf_path(source);
      write_replay_html(e.model, recorder->replay(), view);
    }
    if (!plot.empty()) {
      Plot p;
      p.title = "elbow torque, " + patient_name + ", " + (gains_file.empty() ? std::string("clinical gains") : "gains " + gains_file);
      p.x_label = "t [s]";
      p.y_label = "N m";
      const double T = routine.duration, c = exo::kComfortTorque, gap = std::nan("");
      PlotSeries tau{"elbow torque", {}, {}, ""}, lim{"comfort limit 5 N m", {0, T, gap, 0, T}, {c, c, gap, -c, -c}, "#555555"};
      for (const exo::Sample& smp : trace) {
        tau.x.push_back(smp.t);
        tau.y.push_back(smp.elbow_torque);
      }
      p.series = {tau, lim};
      write_plot(p, plot);
    }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "exo_run: %s\n", ex.what());
    return 2;
  }

  std::printf("arm exoskeleton, %s patient, %s gains (shoulder kp %g kd %g, elbow kp %g kd %g)\n",
              patient_name.c_str(), gains_file.empty() ? "clinical" : gains_file.c_str(), gains.shoulder_kp,
              gains.shoulder_kd, gains.elbow_kp, gains.elbow_kd);
  std::printf("routine: %g s at dt = %g s (%d steps), %.2f s wall time\n", routine.duration, routine.dt, s.steps,
              s.wall_time);
  std::printf("max elbow torque %.3f N m (comfort limit %g N m: %s)\n", s.max_elbow_torque, exo::kComfortTorque,
              s.max_elbow_torque < exo::kComfortTorque ? "within" : "EXCEEDED");
  std::printf("RMS tracking error %.4f rad (shoulder %.4f, elbow %.4f; bound %g rad)\n", s.rms_tracking_error,
              s.rms_shoulder_error, s.rms_elbow_error, exo::kTrackingBound);
  std::printf("loops: max violation %.2e, cuff spring force up to %.1f N (deflection %.2f mm)\n",
              s.max_loop_violation, s.max_cuff_force, 1e3 * s.max_cuff_deflection);
  if (!output.empty()) std::printf("trajectory: %s (every %d steps)\n", output.c_str(), every);
  if (!view.empty()) std::printf("replay: %s\n", view.c_str());
  if (!plot.empty()) std::printf("plot: %s\n", plot.c_str());
  std::printf("%s\n", exo::summary_json(s, routine).c_str());
  return s.failed_steps > 0 ? 1 : 0;
}
