// seed_examples: the examples of Kinon & Betsch (2024) and Celledoni et al. (2019)
// (mechanisms/seed_examples.hpp) run with both integrators, the variational one (VI) and the
// energy–momentum one (EM), with the papers' parameters. Writes
//   CSV/em_<example>.csv               per step: relative energy error, momentum-map errors,
//                                      joint and nonholonomic violations, both integrators
//   OUT/em_<example>_energy.svg        log10 of the relative energy error (every example)
//   OUT/em_<example>_momentum.svg      momentum-map errors (free body, top, loop; the ball's
//                                      angular momentum about its contact point)
//   OUT/em_<example>_constraints.svg   joint and nonholonomic violations (top, loop, disk, sleigh)
//   OUT/em_sleigh_trajectory.svg, OUT/em_sleigh_rho.svg   the sleigh of Celledoni et al., Fig. 3
//   OUT/em_order.svg                   error against step size (every example)
// and prints a Markdown table: per example and integrator the maxima of the relative energy error,
// the momentum-map error and the violations, Newton iterations per step, steps not Ok, steps the
// solver retried as substeps (their diagnostics are the last substep's), and the measured orders.
//
//   seed_examples [--out DIR] [--csv DIR] [--format svg|png]
//
// --out: the images (default docs/images of the source tree); --csv: the CSVs (default the build
// directory, to keep them out of the source tree). The physics is asserted by
// tests/test_energy_momentum.cpp; this program shows it. Exit status 0, 1 if a file cannot be
// written, 2 for bad options.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "io/plot.hpp"
#include "mechanisms/seed_examples.hpp"
#include "sim/state/diagnostics.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;
using namespace maxsim::io;

namespace {

constexpr double kTolerance = 1e-13;  // the solver tolerance of the conservation tests
constexpr size_t kMaxPoints = 2000;   // per plotted series, to keep the SVGs small
const Integrator kIntegrators[] = {Integrator::Variational, Integrator::EnergyMomentum};
const char* short_name(Integrator i) { return i == Integrator::Variational ? "VI" : "EM"; }

using MomentumMap = Vec3 (*)(const Model&, const Data&);

// Chaplygin's ball: gravity and the contact force have no moment about the contact point, which
// moves with the CoM, so the angular momentum about it is conserved (not a momentum map of a
// symmetry, but the nonholonomic system's conserved vector).
Vec3 momentum_about_contact(const Model& model, const Data& d) {
  const Vec3 contact = d.x[0] - model.nonholonomic[0].radius * Vec3::UnitZ();
  return angular_momentum(model, d) - contact.cross(linear_momentum(model, d));
}

struct Case {  // one initial condition of an example
  std::string label, tag;  // for legends and table ("ρ1 = +0.001"), for CSV columns ("_plus")
  SeedExample ex;
};

struct Example {
  std::string name, title;
  std::vector<Case> cases;
  double duration;
  double from = 0;         // conservation is counted from here (after a load)
  unsigned conserved = 0;  // bit k: component k of `momentum` is conserved
  MomentumMap momentum = angular_momentum;
  bool constraint_plot = false;
};

// One run: a case with one integrator, sampled at t = 0 and after every step.
struct Run {
  std::string label, tag;
  bool joints = false, nonholonomic = false;
  std::vector<double> t, energy, joint, rows;  // energy: (E − E0)/|E0|, NaN before `from`
  std::vector<Vec3> momentum;                  // (L − L0)/max(1, |L0|) per component
  std::vector<double> x1, x2, rho1, rho2;      // the sleigh's blade contact and (ρ1, ρ2)
  double max_energy = 0, max_momentum = 0, max_joint = 0, max_rows = 0;  // fmax skips the NaNs
  long iterations = 0;
  int steps = 0, not_ok = 0, substeps = 0;  // substeps: steps the solver retried as smaller ones
};

Run simulate(const Example& e, const Case& c, Integrator integrator) {
  SeedExample ex = c.ex;
  ex.model.opt.integrator = integrator;
  ex.model.opt.solver.tolerance = kTolerance;
  const Model& model = ex.model;
  Data d(model);
  start_seed_example(ex, d);
  Run r;
  r.label = std::string(short_name(integrator)) + (c.label.empty() ? "" : " " + c.label);
  r.tag = std::string(integrator == Integrator::Variational ? "vi" : "em") + c.tag;
  r.joints = !model.joints.empty();
  r.nonholonomic = !model.nonholonomic.empty();
  const bool sleigh = model.name == "chaplygin_sleigh";
  double E0 = NAN;
  Vec3 L0 = Vec3::Constant(NAN);
  // the maxima count the states the steps made (t = 0 is the given one: for the variational
  // integrator its velocities are not yet an interval's, so its rows need not hold)
  auto sample = [&](bool stepped) {
    if (std::isnan(E0) && d.time >= e.from - 1e-9) {
      E0 = total_energy(model, d);
      L0 = e.momentum(model, d);
    }
    r.t.push_back(d.time);
    r.energy.push_back((total_energy(model, d) - E0) / std::abs(E0));
    r.momentum.push_back((e.momentum(model, d) - L0) / std::max(1.0, L0.norm()));
    r.joint.push_back(max_constraint_violation(model, d));
    r.rows.push_back(max_nonholonomic_violation(model, d));
    if (sleigh) {
      const Vec3 blade = d.x[0] + quat_rotate(d.q[0], model.nonholonomic[0].point);
      const Eigen::Vector2d rho = sleigh_rho(d);
      r.x1.push_back(blade.x());
      r.x2.push_back(blade.y());
      r.rho1.push_back(rho(0));
      r.rho2.push_back(rho(1));
    }
    if (!stepped) return;
    r.max_energy = std::fmax(r.max_energy, std::abs(r.energy.back()));
    for (int k = 0; k < 3; ++k)
      if (e.conserved >> k & 1) r.max_momentum = std::fmax(r.max_momentum, std::abs(r.momentum.back()(k)));
    r.max_joint = std::max(r.max_joint, r.joint.back());  // violations: over the whole run, load included
    r.max_rows = std::max(r.max_rows, r.rows.back());
  };
  sample(false);
  r.steps = static_cast<int>(std::lround(e.duration / model.opt.timestep));
  for (int k = 0; k < r.steps; ++k) {
    const StepReport report = step(model, d);
    r.iterations += report.iterations;
    if (report.status != StepStatus::Ok) ++r.not_ok;
    if (report.substeps) ++r.substeps;
    sample(true);
  }
  return r;
}

// The state after `duration` (tolerance 1e-13 as the order tests), measured by `error`.
double error_at(SeedExample ex, Integrator integrator, double duration, const std::function<double(const Data&)>& error) {
  ex.model.opt.integrator = integrator;
  ex.model.opt.solver.tolerance = 1e-13;
  Data d(ex.model);
  start_seed_example(ex, d);
  for (int k = 0; k < static_cast<int>(std::lround(duration / ex.model.opt.timestep)); ++k) step(ex.model, d);
  return error(d);
}

// Suslov's reduced equations J Ω̇ = (JΩ) × Ω + λ e3 with Ω3 = 0, by RK4 with a small step: the
// reference of its order (as tests/test_energy_momentum.cpp).
Eigen::Vector2d suslov_reference(double T) {
  const Mat3 J = make_suslov().model.bodies[0].inertia;
  auto rhs = [&](const Eigen::Vector2d& w) {
    const Vec3 W(w(0), w(1), 0);
    return Eigen::Vector2d(J.topLeftCorner<2, 2>().inverse() * (J * W).cross(W).head<2>());
  };
  Eigen::Vector2d w(1, 0.5);
  const double h = 1e-4;
  for (int k = 0; k < static_cast<int>(std::lround(T / h)); ++k) {
    const Eigen::Vector2d k1 = rhs(w), k2 = rhs(w + 0.5 * h * k1), k3 = rhs(w + 0.5 * h * k2), k4 = rhs(w + h * k3);
    w += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return w;
}

// log10 |y| with zeros clamped to 1e-17, at most kMaxPoints: each point is the largest |y| of
// its bucket of samples, so that decimation keeps the peaks. NaN (before `from`) is a gap.
PlotSeries log_series(const std::string& label, const std::vector<double>& t, const std::vector<double>& y) {
  PlotSeries s{label, {}, {}, ""};
  const size_t stride = (t.size() + kMaxPoints - 1) / kMaxPoints;
  for (size_t i = 0; i < t.size(); i += stride) {
    double m = NAN;
    for (size_t j = i; j < std::min(t.size(), i + stride); ++j) m = std::fmax(m, std::abs(y[j]));
    s.x.push_back(t[i]);
    s.y.push_back(std::log10(std::max(m, 1e-17)));  // NaN stays NaN
  }
  return s;
}

std::vector<double> component(const std::vector<Vec3>& v, int k) {
  std::vector<double> out;
  for (const Vec3& x : v) out.push_back(x(k));
  return out;
}

Plot plot(const std::string& title, const std::string& x_label, const std::string& y_label) {
  Plot p;
  p.title = title;
  p.x_label = x_label;
  p.y_label = y_label;
  return p;
}

std::string fmt(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

int usage(const std::string& msg) {
  std::fprintf(stderr, "seed_examples: %s\nusage: seed_examples [--out DIR] [--csv DIR] [--format svg|png]\n",
               msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = std::string(MAXSIM_SOURCE_DIR) + "/docs/images", csv = MAXSIM_BINARY_DIR, format = "svg";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--out" || a == "--csv" || a == "--format") {
      if (!v || !*v) return usage(a + " needs a value");
      (a == "--out" ? out : a == "--csv" ? csv : format) = v;
      ++i;
    } else {
      return usage("unknown option '" + a + "'");
    }
  }
  if (format != "svg" && format != "png") return usage("--format is svg or png");

  // the papers' parameters (mechanisms/seed_examples.hpp)
  std::vector<Example> examples = {
      {"free_body", "free rigid body (h = 0.05)", {{"", "", make_free_rigid_body(0.05)}}, 2.0, 0, 7},
      {"heavy_top", "heavy top (h = 0.01)", {{"", "", make_heavy_top(0.01)}}, 2.0, 0, 4},
      {"closed_loop", "closed loop (h = 0.1, from t = 1)", {{"", "", make_seed_closed_loop(0.1)}}, 10.0, 1.0, 7},
      {"rolling_disk", "rolling disk (h = 0.05)", {{"", "", make_rolling_disk(0.05)}}, 500.0},
      {"sleigh", "Chaplygin sleigh (h = 0.5)",
       {{"ρ1 = +0.001", "_plus", make_chaplygin_sleigh(0.001, 0.5)},
        {"ρ1 = −0.001", "_minus", make_chaplygin_sleigh(-0.001, 0.5)}}, 200.0},
      {"rolling_ball", "Chaplygin ball (h = 0.05)", {{"", "", make_rolling_ball(0.05)}}, 50.0, 0, 7,
       momentum_about_contact},
      {"suslov", "Suslov problem (h = 0.05)", {{"", "", make_suslov(0.05)}}, 50.0},
  };
  for (Example& e : examples)
    e.constraint_plot = e.name == "heavy_top" || e.name == "closed_loop" || e.name == "rolling_disk" || e.name == "sleigh";

  // ---- the orders: errors for h, h/2, h/4 against exact solutions or a reference ----
  // error: against an exact solution; or (error empty) the distance of `state` from the same
  // integrator's state at step h_min/64, where no exact solution is known (Richardson's test)
  struct Order {
    std::string example, label;
    std::vector<double> h;
    std::function<SeedExample(double)> make;
    double T;
    std::function<double(const Data&)> error;
    std::vector<double> errors[2];  // per integrator
    std::function<Eigen::VectorXd(const Data&)> state = {};
  };
  const Eigen::Vector2d suslov_ref = suslov_reference(2.0);
  std::vector<Order> orders = {
      {"heavy_top", "top CoM t=0.1", {0.004, 0.002, 0.001}, [](double h) { return make_heavy_top(h); }, 0.1,
       [](const Data& d) { return (d.x[0] - heavy_top_com(d.time)).norm(); }, {}},
      {"rolling_disk", "disk CoM t=2", {0.05, 0.025, 0.0125}, [](double h) { return make_rolling_disk(h); }, 2.0,
       [](const Data& d) { return (d.x[0] - rolling_disk_com(d.time)).norm(); }, {}},
      {"suslov", "Suslov Ω t=2", {0.05, 0.025, 0.0125}, [](double h) { return make_suslov(h); }, 2.0,
       [&](const Data& d) { return (d.w[0].head<2>() - suslov_ref).norm(); }, {}},
      {"free_body", "free body pose t=0.5", {0.01, 0.005, 0.0025}, [](double h) { return make_free_rigid_body(h); },
       0.5, {}, {}, body_poses},
      {"closed_loop", "loop poses t=2", {0.1, 0.05, 0.025}, [](double h) { return make_seed_closed_loop(h); }, 2.0, {},
       {}, body_poses},
      {"sleigh", "sleigh pose t=20", {0.5, 0.25, 0.125}, [](double h) { return make_chaplygin_sleigh(0.001, h); }, 20.0,
       {}, {}, body_poses},
      {"rolling_ball", "ball pose t=2", {0.05, 0.025, 0.0125}, [](double h) { return make_rolling_ball(h); }, 2.0, {},
       {}, body_poses},
  };
  Plot order_plot = plot("order: error against step size", "log10 h", "log10 error");
  for (Order& o : orders) {
    for (int i = 0; i < 2; ++i) {
      PlotSeries s{o.label + " " + short_name(kIntegrators[i]), {}, {}, ""};
      std::function<double(const Data&)> error = o.error;
      if (o.state) {
        Eigen::VectorXd ref;
        error_at(o.make(o.h.back() / 64), kIntegrators[i], o.T, [&](const Data& d) {
          ref = o.state(d);
          return 0.0;
        });
        error = [&o, ref](const Data& d) { return (o.state(d) - ref).norm(); };
      }
      for (double h : o.h) {
        o.errors[i].push_back(error_at(o.make(h), kIntegrators[i], o.T, error));
        s.x.push_back(std::log10(h));
        s.y.push_back(std::log10(o.errors[i].back()));
      }
      order_plot.series.push_back(s);
    }
  }

  std::vector<std::string> written;
  auto save = [&](const Plot& p, const std::string& name) {
    const std::string path = out + "/" + name + "." + format;
    write_plot(p, path);
    written.push_back(path);
  };
  try {
    save(order_plot, "em_order");
    std::printf("| example | integrator | max \\|ΔE\\|/E0 | max momentum error | max joint violation | "
                "max nonholonomic violation | Newton it./step | steps not Ok | substepped | order (log2 ratios) |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Example& e : examples) {
      std::vector<Run> runs;
      for (const Case& c : e.cases)
        for (Integrator i : kIntegrators) runs.push_back(simulate(e, c, i));

      // the table
      for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const Integrator integrator = kIntegrators[r % 2];
        std::string order = "—";
        for (const Order& o : orders) {
          if (o.example != e.name) continue;
          const std::vector<double>& err = o.errors[r % 2];
          order = fmt("%.2f", std::log2(err[0] / err[1])) + ", " + fmt("%.2f", std::log2(err[1] / err[2]));
        }
        const std::string& case_label = e.cases[r / 2].label;
        std::printf("| %s%s | %s | %s | %s | %s | %s | %.1f | %d | %d | %s |\n", e.name.c_str(),
                    case_label.empty() ? "" : (" " + case_label).c_str(), short_name(integrator),
                    fmt("%.1e", run.max_energy).c_str(), e.conserved ? fmt("%.1e", run.max_momentum).c_str() : "—",
                    run.joints ? fmt("%.1e", run.max_joint).c_str() : "—",
                    run.nonholonomic ? fmt("%.1e", run.max_rows).c_str() : "—",
                    static_cast<double>(run.iterations) / run.steps, run.not_ok, run.substeps, order.c_str());
      }

      // the CSV: all runs of an example share the time grid
      const std::string csv_path = csv + "/em_" + e.name + ".csv";
      FILE* f = std::fopen(csv_path.c_str(), "w");
      if (!f) throw Error("cannot write " + csv_path);
      std::fprintf(f, "t");
      for (const Run& run : runs) {
        std::fprintf(f, ",%s_energy", run.tag.c_str());
        for (int k = 0; k < 3; ++k)
          if (e.conserved >> k & 1) std::fprintf(f, ",%s_L%d", run.tag.c_str(), k + 1);
        std::fprintf(f, ",%s_joint,%s_nonholonomic", run.tag.c_str(), run.tag.c_str());
      }
      std::fprintf(f, "\n");
      for (size_t i = 0; i < runs[0].t.size(); ++i) {
        std::fprintf(f, "%.6g", runs[0].t[i]);
        auto field = [&](double v) { std::isnan(v) ? std::fprintf(f, ",") : std::fprintf(f, ",%.6e", v); };
        for (const Run& run : runs) {
          field(run.energy[i]);
          for (int k = 0; k < 3; ++k)
            if (e.conserved >> k & 1) field(run.momentum[i](k));
          field(run.joint[i]);
          field(run.rows[i]);
        }
        std::fprintf(f, "\n");
      }
      std::fclose(f);

      // the plots
      Plot energy = plot(e.title + ": energy", "t [s]", "log10 |E − E0| / E0");
      for (const Run& run : runs) energy.series.push_back(log_series(run.label, run.t, run.energy));
      save(energy, "em_" + e.name + "_energy");
      if (e.conserved) {
        Plot p = plot(e.title + (e.momentum == angular_momentum ? ": angular momentum" : ": angular momentum about the contact"),
               "t [s]", "log10 |L_k − L0_k| / max(1, |L0|)");
        for (const Run& run : runs)
          for (int k = 0; k < 3; ++k)
            if (e.conserved >> k & 1)
              p.series.push_back(log_series(run.label + " L" + std::to_string(k + 1), run.t, component(run.momentum, k)));
        save(p, "em_" + e.name + "_momentum");
      }
      if (e.constraint_plot) {
        Plot p = plot(e.title + ": constraint violation", "t [s]", "log10 violation [m, rad, m/s]");
        for (const Run& run : runs) {
          if (run.joints) p.series.push_back(log_series(run.label + " joints", run.t, run.joint));
          if (run.nonholonomic) p.series.push_back(log_series(run.label + " nonholonomic", run.t, run.rows));
        }
        save(p, "em_" + e.name + "_constraints");
      }
      if (e.name == "sleigh") {  // Celledoni et al. Fig. 3: both signs of ρ1 with EM (runs 1, 3), ρ with VI too
        Plot path = plot("Chaplygin sleigh: blade contact (EM)", "x1", "x2");
        Plot rho = plot("Chaplygin sleigh: (ρ1, ρ2)", "ρ1", "ρ2");
        for (const Run& run : runs) {
          if (run.tag.rfind("em", 0) == 0) path.series.push_back({run.label, run.x1, run.x2, ""});
          rho.series.push_back({run.label, run.rho1, run.rho2, ""});
        }
        save(path, "em_sleigh_trajectory");
        save(rho, "em_sleigh_rho");
      }
    }
  } catch (const Error& err) {
    std::fprintf(stderr, "seed_examples: %s\n", err.what());
    return 1;
  }
  for (const std::string& path : written) std::fprintf(stderr, "wrote %s\n", path.c_str());
  return 0;
}
