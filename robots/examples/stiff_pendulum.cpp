// stiff_pendulum: seed 004's figures with every integrator. Its stiff pendulum (1 kg at 1 m on a
// massless truss, g = 9.8, ω = 3.13 rad/s, torque 9 sin(0.1 t) N·m at the pivot, θ(0) = 0,
// 100 s) at steps of 0.1 to 6 s with the variational (VI), energy–momentum (EM, and EM with
// numerical damping ν = 0.1) and Newmark (trapezoidal NM, Fox–Goodwin FG) steps, against RK4 at
// 1 ms. Writes
//   OUT/seed004_angle_<integrator>.svg   θ(t) per step size and the reference (clipped to ±π)
//   OUT/seed004_force_<integrator>.svg   the pivot's constraint force |λ| (N) per step size
// and prints a Markdown table: per integrator and step size the largest |θ − θ_ref|, steps not
// Ok, Newton iterations per step (mean / max).
//
//   stiff_pendulum [--out DIR] [--format svg|png]
//
// --out: the images (default docs/images of the source tree). The physics is asserted by
// tests/test_newmark.cpp and tests/test_energy_momentum.cpp; this program shows it. Exit status 0,
// 1 if a file cannot be written, 2 for bad options.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/plot.hpp"
#include "mechanisms/seed_examples.hpp"
#include "models/load.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;
using namespace maxsim::io;

namespace {

struct Scheme {
  const char* tag;    // file names and the table
  const char* title;  // plot titles
  Integrator integrator;
  double nu = 0, beta = 0.25;
};
const Scheme kSchemes[] = {
    {"vi", "variational", Integrator::Variational},
    {"em", "energy-momentum", Integrator::EnergyMomentum},
    {"em_damped", "energy-momentum, nu = 0.1", Integrator::EnergyMomentum, 0.1},
    {"nm", "Newmark, trapezoidal", Integrator::Newmark},
    {"fg", "Newmark, Fox-Goodwin", Integrator::Newmark, 0, 1.0 / 12},
};
const double kSteps[] = {0.1, 0.6, 0.79, 1.0, 2.0, 6.0};

struct Run {
  std::vector<double> t, theta, force;
  double worst = 0, iterations = 0;
  int not_ok = 0, max_iterations = 0;
};

// The torque acts at the step's midpoint for VI and EM (their force is the interval's) and at its
// end for Newmark (the collocation point).
Run simulate(Model m, const Scheme& s, double dt, std::vector<double>* ref_t, std::vector<double>* ref_theta) {
  StiffPendulumReference ref;
  m.opt.integrator = s.integrator;
  m.opt.numerical_damping = s.nu;
  m.opt.newmark_beta = s.beta;
  m.opt.timestep = dt;
  Data d(m);
  Run r;
  const double at = s.integrator == Integrator::Newmark ? 1.0 : 0.5;
  const int steps = static_cast<int>(std::lround(100 / dt));
  for (int k = 0; k < steps; ++k) {
    d.ctrl[0] = 9 * std::sin(0.1 * (d.time + at * dt));
    const StepReport rep = step(m, d);
    if (rep.status != StepStatus::Ok) ++r.not_ok;
    r.iterations += rep.iterations;
    r.max_iterations = std::max(r.max_iterations, rep.iterations);
    ref.advance(dt);
    if (ref_t) {
      ref_t->push_back(ref.t);
      ref_theta->push_back(ref.theta);
    }
    const double q = get_qpos(m, d)[0];
    r.t.push_back(d.time);
    r.theta.push_back(std::abs(q) > M_PI ? NAN : q);  // (a run that went over the top: a gap)
    r.force.push_back(d.joint_impulse[0].head<3>().norm() / dt);
    r.worst = std::max(r.worst, std::abs(q - ref.theta));
  }
  r.iterations /= steps;
  return r;
}

int usage(const std::string& msg) {
  std::fprintf(stderr, "stiff_pendulum: %s\nusage: stiff_pendulum [--out DIR] [--format svg|png]\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = std::string(MAXSIM_SOURCE_DIR) + "/docs/images", format = "svg";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--out" || a == "--format") && i + 1 < argc) {
      (a == "--out" ? out : format) = argv[++i];
    } else {
      return usage("unknown option or missing value: " + a);
    }
  }
  if (format != "svg" && format != "png") return usage("--format: '" + format + "' is not svg or png");

  const std::string path = (std::filesystem::temp_directory_path() / "maxsim_seed004_pendulum.xml").string();
  std::ofstream(path) << R"(<mujoco model="stiff_pendulum"><option gravity="0 0 -9.8"><flag contact="disable"/></option>
    <worldbody><body name="bob"><joint name="pivot" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-6 1e-6 1e-6"/></body></worldbody>
    <actuator><motor name="T" joint="pivot"/></actuator></mujoco>)";
  const Model model = load_model(path);

  std::printf("| integrator | Δt (s) | max \\|θ − θ_ref\\| (rad) | steps not Ok | Newton it./step (max) |\n");
  std::printf("|---|---|---|---|---|\n");
  try {
    for (const Scheme& s : kSchemes) {
      Plot angle, force;
      angle.title = std::string("seed 004's stiff pendulum: ") + s.title;
      angle.x_label = force.x_label = "t [s]";
      angle.y_label = "theta [rad]";
      angle.y_min = -M_PI;
      angle.y_max = M_PI;
      force.title = std::string("pivot constraint force: ") + s.title;
      force.y_label = "|lambda| [N]";
      force.y_min = 0;
      force.y_max = 40;
      std::vector<double> ref_t, ref_theta;
      for (const double dt : kSteps) {
        const bool first = ref_t.empty();
        const Run r = simulate(model, s, dt, first ? &ref_t : nullptr, first ? &ref_theta : nullptr);
        std::printf("| %s | %g | %.3f | %d | %.1f (%d) |\n", s.title, dt, r.worst, r.not_ok, r.iterations,
                    r.max_iterations);
        char label[32];
        std::snprintf(label, sizeof label, "dt = %g s", dt);
        angle.series.push_back({label, r.t, r.theta, ""});
        std::vector<double> f = r.force;
        for (double& x : f) x = std::min(x, 40.0);
        force.series.push_back({label, r.t, f, ""});
      }
      angle.series.push_back({"RK4 reference", ref_t, ref_theta, "#000000"});  // (every 0.1 s)
      write_plot(angle, out + "/seed004_angle_" + s.tag + "." + format);
      write_plot(force, out + "/seed004_force_" + s.tag + "." + format);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stiff_pendulum: %s\n", e.what());
    return 1;
  }
  return 0;
}
