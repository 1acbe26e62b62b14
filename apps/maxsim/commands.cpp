#include "apps/maxsim/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "run/setup.hpp"
#include "apps/maxsim/view_command.hpp"
#include "io/report.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::cli {

using io::CsvWriter;
using io::JsonObject;
using io::RowDiagnostics;

namespace {

constexpr long long kMaxSteps = 1'000'000'000;  // a bound on run length (a typo guard)

// ---- the run --------------------------------------------------------------------------------
struct StateCopy {
  std::vector<Vec3> x, v, w;
  std::vector<Vec4> q;
  std::vector<Vec6> impulse;
  std::vector<Vec3> angle;
  double time = 0;
  void save(const Data& d) {
    x = d.x, q = d.q, v = d.v, w = d.w, impulse = d.joint_impulse, angle = d.joint_angle, time = d.time;
  }
  void restore(Data& d) const {
    d.x = x, d.q = q, d.v = v, d.w = w, d.joint_impulse = impulse, d.joint_angle = angle, d.time = time;
  }
};

struct RunResult {
  long long steps_taken = 0, attempted = 0, failed = 0, not_converged = 0;
  long long relaxed = 0;  // converged with the relaxed-cone last resort (StepReport::relaxed)
  long long iterations_sum = 0;
  int iterations_max = 0;
  double wall = 0;
  RowDiagnostics initial, final;
  double energy_max_drift = 0, max_violation = 0, max_penetration = 0;
  bool stopped = false;  // a Failed step (or a non-finite state) ended the run
  bool output_full = false;  // --max-output-bytes ended the run (stopped is then true too)
  std::string stop_message;
  long long first_nc_step = 0;
  double first_nc_residual = 0;
  StepSummary summary;  // every step's outcome (sim/step_summary.hpp)
};

std::string vec3_json(const Vec3& g) {
  std::string s = "[";
  for (int k = 0; k < 3; ++k) {
    if (k) s += ',';
    s += JsonObject::number(g(k));
  }
  return s + "]";
}

}  // namespace

// ---- simulate / bench -----------------------------------------------------------------------
int run_simulate(const Options& o) {
  const bool bench = o.command == Command::Bench;
  RunSetup setup = setup_model(o);  // load, validate, dt, ground, contacts, initial coordinates
  const LoadedModel& l = setup.loaded;
  Model& m = setup.loaded.model;
  const double dt = setup.dt;
  long long steps = 0;
  if (o.steps) {
    steps = *o.steps;
  } else {
    const double duration = o.duration ? *o.duration : 1.0;
    const double n = duration / dt;
    if (!(n < static_cast<double>(kMaxSteps) + 0.5))
      throw InputError("--duration " + g6(duration) + " s is more than " + std::to_string(kMaxSteps) + " steps of " + g6(dt) + " s");
    steps = std::llround(n);
    if (steps < 1)
      throw InputError((o.duration ? "--duration " : "the default duration ") + g6(duration) +
                       " s is shorter than half a time step (" + g6(dt) + " s)");
  }
  if (steps > kMaxSteps) throw InputError("--steps: at most " + std::to_string(kMaxSteps) + " steps");
  const bool ground = setup.ground;
  const bool contacts = setup.contacts;

  CsvWriter csv;
  if (!bench && !o.output.empty()) csv.open(o.output, m, o.max_output_bytes);
  SimulationView view;  // --view: the HTML replay of the rows the CSV gets
  if (!bench && !o.view.empty())
    view.start(o.view, m, o.model_path, static_cast<std::size_t>(o.max_output_bytes));

  Data d(m);
  setup_state(setup, o, d);  // initial state, projection, lift onto the ground, contact search
  update_sensors(m, d);      // (the first row's sensors: those a state alone gives)
  const double lifted = setup.lifted;

  RunResult r;
  const WorldSurfaces world = world_surfaces(m, ground);  // (constant: measured every step)
  r.initial = io::row_diagnostics(m, d, world, true);
  if (!r.initial.finite()) throw SimulationError("the initial state has non-finite energy or violation");
  r.max_violation = r.initial.violation;
  r.max_penetration = r.initial.penetration;
  const double e0 = r.initial.total();
  // A row or frame that would take the output beyond --max-output-bytes ends the run: what is
  // written stays valid (the CSV ends on a complete row) and the summary says so.
  auto output_full = [&](const char* what, const std::string& file) {
    r.stopped = r.output_full = true;
    r.stop_message = std::string("the ") + what + " " + file + " would grow beyond the output limit of " +
                     std::to_string(o.max_output_bytes) + " bytes (--max-output-bytes) with the state at t = " +
                     g6(d.time) + " s, which is not recorded; the run stopped there (raise the limit, or "
                     "record fewer states with --every)";
  };
  auto record = [&](const RowDiagnostics& row) {
    if (csv.is_open() && !csv.write_row(m, d, row)) output_full("trajectory", o.output);
    else if (view.active() && !view.record(m, d)) output_full("replay", o.view);
  };
  if (csv.is_open() || view.active())
    record(r.initial);

  using Clock = std::chrono::steady_clock;
  StateCopy previous;
  RowDiagnostics last = r.initial;
  const Clock::time_point run_start = Clock::now();
  for (long long k = 1; k <= steps && !r.output_full; ++k) {
    previous.save(d);
    StepReport rep;
    if (bench) {
      const Clock::time_point t0 = Clock::now();
      rep = step(m, d);
      r.wall += std::chrono::duration<double>(Clock::now() - t0).count();
    } else {
      rep = step(m, d);
    }
    ++r.attempted;
    r.summary.add(rep, previous.time);
    r.iterations_sum += rep.iterations;
    r.iterations_max = std::max(r.iterations_max, rep.iterations);
    const double t_before = previous.time;
    if (rep.status == StepStatus::Failed) {
      ++r.failed;
      r.stopped = true;
      r.stop_message = "step " + std::to_string(k) + " (from t = " + g6(t_before) + " s) failed: " +
                       (rep.reason ? std::string(rep.reason)
                                   : "the solver produced no usable iterate (residual " + g6(rep.residual) + " after " +
                                         std::to_string(rep.iterations) + " iterations)") +
                       "; the run stopped";
      previous.restore(d);
      break;
    }
    RowDiagnostics now;
    const bool finite = state_finite(d) && std::isfinite(rep.residual);
    if (finite && !bench) now = io::row_diagnostics(m, d, world);
    if (!finite || !now.finite()) {
      ++r.failed;
      r.stopped = true;
      r.stop_message = "step " + std::to_string(k) + " (from t = " + g6(t_before) +
                       " s) produced a non-finite state; the run stopped";
      previous.restore(d);
      break;
    }
    ++r.steps_taken;
    if (rep.status == StepStatus::Ok && rep.relaxed) ++r.relaxed;
    if (rep.status == StepStatus::NotConverged) {
      if (r.not_converged == 0) {
        r.first_nc_step = k;
        r.first_nc_residual = rep.residual;
      }
      ++r.not_converged;
      ++r.failed;
    }
    if (!bench) {
      last = now;
      r.energy_max_drift = std::max(r.energy_max_drift, std::abs(now.total() - e0));
      r.max_violation = std::max(r.max_violation, now.violation);
      r.max_penetration = std::max(r.max_penetration, now.penetration);
      if ((csv.is_open() || view.active()) && k % o.every == 0)
        record(now);
    }
  }
  if (!bench) r.wall = std::chrono::duration<double>(Clock::now() - run_start).count();
  csv.close();
  view.finish(m);

  r.final = bench ? io::row_diagnostics(m, d, world) : last;
  if (bench) {  // diagnostics at the two ends only: stepping alone is timed
    if (!r.final.finite()) {
      r.final = r.initial;  // cannot happen for a finite state; never print NaN
    }
    r.energy_max_drift = std::abs(r.final.total() - e0);
    r.max_violation = std::max(r.initial.violation, r.final.violation);
    r.max_penetration = std::max(r.initial.penetration, r.final.penetration);
  }

  const double sim_time = d.time;
  const double steps_per_s = r.wall > 0 ? static_cast<double>(r.steps_taken) / r.wall : 0.0;
  const double iterations_mean = r.attempted ? static_cast<double>(r.iterations_sum) / static_cast<double>(r.attempted) : 0.0;
  const char* status = r.output_full ? "output_limit" : r.stopped ? "failed" : r.not_converged ? "not_converged" : "ok";

  if (o.json) {
    JsonObject j;
    j.add("model", l.display_name)
        .add("steps", r.steps_taken)
        .add("dt", dt)
        .add("sim_time", sim_time)
        .add("wall_time_s", r.wall)
        .add("steps_per_s", steps_per_s)
        .add("energy_initial", e0)
        .add("energy_final", r.final.total())
        .add("energy_max_drift", r.energy_max_drift)
        .add("max_constraint_violation", r.max_violation)
        .add("max_penetration", r.max_penetration)
        .add("iterations_mean", iterations_mean)
        .add("iterations_max", r.iterations_max)
        .add("failed_steps", r.failed);
    j.add("command", bench ? "bench" : "simulate")
        .add("file", o.model_path)
        .add("status", status)
        .add("steps_requested", steps)
        .add("not_converged_steps", r.not_converged)
        .add("relaxed_steps", r.relaxed)
        .add("bodies", static_cast<long long>(m.bodies.size()))
        .add("joints", static_cast<long long>(m.joints.size()))
        .add("dof", m.dof())
        .add("ground", ground)
        .add("cone", friction_cone_name(m.opt.contact.cone))
        .add("tolerance", m.opt.solver.tolerance)
        .add_raw("gravity", vec3_json(m.opt.gravity))
        .add("fixed_base", o.fixed_base)
        .add("contacts", contacts)
        .add("integrator", integrator_name(m.opt.integrator))
        .add("lifted_m", lifted)
        .add("load_warnings", static_cast<long long>(l.report.warnings.size()));
    // every step's outcome (StepSummary): relaxed ones whether they converged or not, substepped
    // ones, all iterations, the largest final residual, when the first not-ok / relaxed step began
    j.add("relaxed_steps_all", r.summary.relaxed_steps)
        .add("substepped_steps", r.summary.substepped_steps)
        .add("iterations_total", r.summary.iterations_total)
        .add("residual_max", r.summary.residual_max);
    for (const auto& [key, t] : {std::pair<const char*, double>{"first_not_ok_time", r.summary.first_not_ok_time},
                                 {"first_relaxed_time", r.summary.first_relaxed_time}}) {
      if (std::isnan(t)) j.add_null(key);
      else j.add(key, t);
    }
    if (o.restitution) j.add("restitution", *o.restitution);
    else j.add_null("restitution");
    if (o.friction) j.add("friction", *o.friction);
    else j.add_null("friction");
    if (o.keyframe) j.add("keyframe", *o.keyframe);
    else j.add_null("keyframe");
    std::printf("%s\n", j.str().c_str());
  } else if (bench) {
    std::printf("bench %s: %lld steps of %s s in %s s of stepping: %s steps/s (%sx real time); "
                "Newton iterations mean %s, max %d; failed steps %lld (%lld not converged); relaxed %lld, "
                "substepped %lld\n",
                l.display_name.c_str(), r.steps_taken, g6(dt).c_str(), g6(r.wall).c_str(), g6(steps_per_s).c_str(),
                g6(r.wall > 0 ? sim_time / r.wall : 0.0).c_str(), fmt("%.3g", iterations_mean).c_str(),
                r.iterations_max, r.failed, r.not_converged, r.summary.relaxed_steps, r.summary.substepped_steps);
  } else {
    std::printf("simulate %s: %lld steps of %s s (t = %s s) in %s s (%s steps/s)\n", l.display_name.c_str(),
                r.steps_taken, g6(dt).c_str(), g6(sim_time).c_str(), g6(r.wall).c_str(), g6(steps_per_s).c_str());
    std::printf("  energy: initial %s J, final %s J, max drift %s J\n", g6(e0).c_str(), g6(r.final.total()).c_str(),
                g6(r.energy_max_drift).c_str());
    std::printf("  max constraint violation %s; max penetration %s m (ground %s, contacts %s)\n",
                g6(r.max_violation).c_str(), g6(r.max_penetration).c_str(), ground ? "on" : "off",
                contacts ? "on" : (o.contacts ? "off by the file" : "off"));
    if (lifted > 0) std::printf("  the base was lifted by %s m to stand on the ground\n", g6(lifted).c_str());
    std::printf("  Newton iterations mean %s, max %d; failed steps %lld\n", fmt("%.3g", iterations_mean).c_str(),
                r.iterations_max, r.failed);
    std::printf("  integrator: %s\n", integrator_name(m.opt.integrator));
    if (r.relaxed > 0)
      std::printf("  %lld steps needed the relaxed friction cone (the solver's last resort)\n", r.relaxed);
    // every step's outcome, not only the last one's
    const StepSummary& u = r.summary;
    std::printf("  steps: %lld ok, %lld not converged, %lld failed; %lld on a relaxed fallback, %lld in substeps",
                u.steps - u.not_converged_steps - u.failed_steps, u.not_converged_steps, u.failed_steps,
                u.relaxed_steps, u.substepped_steps);
    if (!std::isnan(u.first_not_ok_time)) std::printf("; the first not ok from t = %s s", g6(u.first_not_ok_time).c_str());
    else if (!std::isnan(u.first_relaxed_time)) std::printf("; the first relaxed from t = %s s", g6(u.first_relaxed_time).c_str());
    std::printf("\n");
    if (csv.is_open() || !o.output.empty()) std::printf("  trajectory: %s\n", o.output.c_str());
  }
  std::fflush(stdout);

  if (r.stopped) std::fprintf(stderr, "maxsim: %s\n", r.stop_message.c_str());
  if (r.not_converged)
    std::fprintf(stderr, "maxsim: %lld of %lld steps did not converge (first: step %lld, residual %s); the results are approximate\n",
                 r.not_converged, r.attempted, r.first_nc_step, g6(r.first_nc_residual).c_str());
  if (r.output_full) return 2;  // the run asked for more output than allowed: a usage problem
  return (r.stopped || r.not_converged) ? 1 : 0;
}

// ---- info -----------------------------------------------------------------------------------
int run_info(const Options& o) {
  const LoadedModel l = load_for_run(o);
  const Model& m = l.model;
  const std::vector<bool> tree = spanning_tree_joints(m);
  int tree_dof = 0, tree_nq = 0, loop_rows = 0;
  std::vector<int> loops;
  for (size_t j = 0; j < m.joints.size(); ++j) {
    if (tree[j]) {
      tree_dof += m.joints[j].dof();
      tree_nq += m.joints[j].nq();
    } else {
      loops.push_back(static_cast<int>(j));
      loop_rows += m.joints[j].constrained_rows();
    }
  }
  std::map<std::string, int> shapes, world_shapes;
  int visual = 0;
  for (const Body& b : m.bodies)
    for (const Geom& g : b.geoms) {
      if (g.collision) ++shapes[geom_type_name(g.type)];
      else ++visual;
    }
  for (const Geom& g : m.world_geoms)
    if (g.collision) ++world_shapes[geom_type_name(g.type)];
  auto shape_list = [](const std::map<std::string, int>& s) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : s) parts.push_back(std::to_string(n) + " " + name);
    return parts.empty() ? std::string("none") : join(parts);
  };
  auto body_name = [&](int b) { return b == kWorld ? std::string("world") : m.bodies[b].name; };
  const int mobility_low = std::max(0, tree_dof - loop_rows);
  const bool ground_auto = m.implicit_ground;
  const char* format = l.urdf ? "URDF" : "MJCF";
  const double dt = m.opt.timestep;  // (the loaders set the format's default)

  if (o.json) {
    auto names_json = [](const std::vector<std::string>& names) {
      std::string s = "[";
      for (size_t i = 0; i < names.size(); ++i) {
        if (i) s += ',';
        s += JsonObject::quote(names[i]);
      }
      return s + "]";
    };
    // [{"name", "kind", "body", and the parameters its kind takes (body frame)}, ...]
    auto nonholonomic_json = [&] {
      std::string s = "[";
      for (const NonholonomicConstraint& c : m.nonholonomic) {
        JsonObject j;
        j.add("name", c.name).add("kind", nonholonomic_kind_name(c.kind)).add("body", body_name(c.body));
        if (nonholonomic_takes(c.kind, "radius")) j.add("radius", c.radius);
        if (nonholonomic_takes(c.kind, "axis")) j.add_raw("axis", vec3_json(c.axis));
        if (nonholonomic_takes(c.kind, "point")) j.add_raw("point", vec3_json(c.point));
        if (nonholonomic_takes(c.kind, "direction")) j.add_raw("direction", vec3_json(c.direction));
        if (s.size() > 1) s += ',';
        s += j.str();
      }
      return s + "]";
    };
    // {"timestep": {"value": ..., "source": ...}, ...}
    auto sources_json = [&] {
      JsonObject j;
      for (const ValueSource& v : l.report.sources) {
        JsonObject e;
        e.add("value", v.value).add("source", v.source);
        j.add_raw(v.name, e.str());
      }
      return j.str();
    };
    auto shapes_json = [](const std::map<std::string, int>& s) {
      JsonObject j;
      for (const auto& [name, n] : s) j.add(name, n);
      return j.str();
    };
    std::vector<std::string> bodies, joints, loop_names, keys;
    for (const Body& b : m.bodies) bodies.push_back(b.name);
    for (const Joint& j : m.joints) joints.push_back(j.name);
    for (int j : loops) loop_names.push_back(m.joints[j].name);
    for (const Keyframe& k : m.keyframes) keys.push_back(k.name);
    JsonObject j;
    j.add("model", l.display_name)
        .add("file", o.model_path)
        .add("format", format)
        .add("bodies", static_cast<long long>(m.bodies.size()))
        .add("joints", static_cast<long long>(m.joints.size()))
        .add("loop_closing_joints", static_cast<long long>(loops.size()))
        .add("tree_dof", tree_dof)
        .add("tree_nq", tree_nq)
        .add("loop_constrained_rows", loop_rows)
        .add("dof", m.dof())
        .add("total_mass", m.total_mass())
        .add("dt", dt)
        .add("dt_from_file", m.dt_from_file)
        .add_raw("gravity", vec3_json(m.opt.gravity))
        .add_raw("collision_shapes", shapes_json(shapes))
        .add_raw("world_collision_shapes", shapes_json(world_shapes))
        .add("ground_auto", ground_auto)
        .add("contacts", m.contacts)
        .add("collision_filter", m.collision_filter == CollisionFilter::ParentChild ? "parent-child" : "any-joint")
        .add("actuators", static_cast<long long>(m.actuators.size()))
        .add("sites", static_cast<long long>(m.sites.size()))
        .add("sensors", static_cast<long long>(m.sensors.size()))
        .add("nsensordata", static_cast<long long>(m.nsensordata()))
        .add("tendons", static_cast<long long>(m.tendons.size()))
        .add("couplings", static_cast<long long>(m.couplings.size()))
        .add("integrator", integrator_name(m.opt.integrator))
        .add_raw("nonholonomic", nonholonomic_json())
        .add_raw("body_names", names_json(bodies))
        .add_raw("joint_names", names_json(joints))
        .add_raw("loop_joint_names", names_json(loop_names))
        .add_raw("keyframes", names_json(keys))
        .add_raw("ignored", names_json(l.report.ignored))
        .add_raw("sources", sources_json())
        .add_raw("warnings", names_json(l.report.warnings));
    std::printf("%s\n", j.str().c_str());
    return 0;
  }

  std::printf("model: %s\n", l.display_name.c_str());
  std::printf("file: %s (%s)\n", o.model_path.c_str(), format);
  std::printf("bodies: %zu (total mass %s kg)\n", m.bodies.size(), g6(m.total_mass()).c_str());
  for (const Body& b : m.bodies) {
    std::map<std::string, int> own;
    for (const Geom& g : b.geoms)
      if (g.collision) ++own[geom_type_name(g.type)];
    std::printf("  %-28s mass %-10s collision: %s\n", b.name.c_str(), g6(b.mass).c_str(), shape_list(own).c_str());
  }
  std::printf("joints: %zu\n", m.joints.size());
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& jt = m.joints[j];
    std::string line = "  " + jt.name + "  " + joint_type_name(jt.type) + "  " + body_name(jt.parent) + " -> " +
                       body_name(jt.child) + "  dof " + std::to_string(jt.dof());
    if (jt.has_limits && jt.dof() > 0) {
      std::vector<std::string> lim;
      const auto rows = jt.free_rows();
      // (appended piecewise: GCC 12 raises a false -Wrestrict on "literal" + std::string&&)
      for (int k = 0; k < jt.dof(); ++k) {
        std::string range = "[";
        range += g6(jt.lower[rows[k]]) + ", " + g6(jt.upper[rows[k]]) + "]";
        lim.push_back(range);
      }
      line += "  limits " + join(lim, " ");
    }
    if (!tree[j]) line += "  (closes a loop)";
    std::printf("%s\n", line.c_str());
  }
  std::printf("loop-closing joints: %zu", loops.size());
  if (!loops.empty()) {
    std::vector<std::string> names;
    for (int j : loops) names.push_back(m.joints[j].name);
    std::printf(" (%s; %d constrained rows)", join(names).c_str(), loop_rows);
  }
  std::printf("\n");
  std::printf("joint coordinates (tree): %d rates, %d positions\n", tree_dof, tree_nq);
  if (loops.empty())
    std::printf("degrees of freedom: %d\n", tree_dof);
  else
    std::printf("degrees of freedom: between %d and %d (the tree's %d minus the rank of the loop constraints)\n",
                mobility_low, tree_dof, tree_dof);
  std::printf("collision shapes: %s", shape_list(shapes).c_str());
  if (visual) std::printf(" (+ %d visual-only)", visual);
  std::printf("\n");
  std::printf("world collision shapes: %s\n", shape_list(world_shapes).c_str());
  std::printf("ground (auto): %s\n", ground_auto ? "on (the description has no world of its own)"
                                                 : "off (the file's geoms are its world)");
  std::printf("contacts: %s\n", m.contacts ? "on" : "off (the file switches them off)");
  std::printf("collision filter: %s\n", m.collision_filter == CollisionFilter::ParentChild
                                            ? "a body and its parent in the file's tree (MuJoCo)"
                                            : "bodies joined by any joint (PyBullet)");
  std::printf("total mass: %s kg\n", g6(m.total_mass()).c_str());
  std::printf("time step: %s s (%s)\n", g6(dt).c_str(), m.dt_from_file ? "from the file" : l.urdf ? "default" : "MuJoCo's default");
  std::printf("gravity: %s %s %s\n", g6(m.opt.gravity.x()).c_str(), g6(m.opt.gravity.y()).c_str(), g6(m.opt.gravity.z()).c_str());
  std::printf("actuators: %zu\n", m.actuators.size());
  std::printf("integrator: %s\n", integrator_name(m.opt.integrator));
  std::printf("nonholonomic constraints: %zu\n", m.nonholonomic.size());
  for (const NonholonomicConstraint& c : m.nonholonomic)
    std::printf("  %s  %s  body %s  %s\n", c.name.c_str(), nonholonomic_kind_name(c.kind), body_name(c.body).c_str(),
                nonholonomic_parameters(c).c_str());
  {
    std::vector<std::string> sites;
    for (const Site& s : m.sites) sites.push_back(s.name.empty() ? "(unnamed)" : s.name);
    std::printf("sites: %zu%s%s\n", m.sites.size(), sites.empty() ? "" : " ", join(sites).c_str());
  }
  std::printf("sensors: %zu (%d values)\n", m.sensors.size(), m.nsensordata());
  for (const Sensor& s : m.sensors)
    std::printf("  %s  %s  dim %d  at %d\n", s.name.empty() ? "(unnamed)" : s.name.c_str(), sensor_type_name(s.type),
                s.dim, s.adr);
  std::printf("tendons: %zu\n", m.tendons.size());
  for (const Tendon& t : m.tendons) {
    std::string what = t.kind == Tendon::Kind::Fixed ? "fixed, " + std::to_string(t.joints.size()) + " joint(s)"
                                                      : "spatial, " + std::to_string(t.path.size()) + " path element(s)";
    if (t.stiffness != 0) what += ", stiffness " + g6(t.stiffness);
    if (t.damping != 0) what += ", damping " + g6(t.damping);
    if (t.limited) what += ", range " + g6(t.range_lower) + " " + g6(t.range_upper);
    std::printf("  %s  %s\n", t.name.empty() ? "(unnamed)" : t.name.c_str(), what.c_str());
  }
  std::printf("couplings: %zu\n", m.couplings.size());
  for (const Coupling& c : m.couplings) {
    auto side = [&m, &c](int index) {
      return c.kind == Coupling::Kind::Joint ? "joint " + m.joints[index].name : "tendon " + m.tendons[index].name;
    };
    std::string poly;
    for (int k = 0; k < 5; ++k)
      if (c.polycoef[k] != 0) {
        if (!poly.empty()) poly.append(" + ");
        poly.append(g6(c.polycoef[k]));
        if (k > 0) poly.append("·b");
        if (k > 1) poly.append("^").append(std::to_string(k));
      }
    std::printf("  %s  %s = %s%s\n", c.name.c_str(), side(c.a).c_str(), poly.empty() ? "0" : poly.c_str(),
                c.b >= 0 ? ("  (b: " + side(c.b) + ")").c_str() : "");
  }
  std::vector<std::string> keys;
  for (const Keyframe& k : m.keyframes) keys.push_back(k.name);
  std::printf("keyframes: %s\n", keys.empty() ? "none" : join(keys).c_str());
  {
    std::vector<std::string> merged;
    for (const auto& [a, b] : l.report.merged)
      if (a != b) merged.push_back(a + " -> " + b);
    if (!merged.empty()) std::printf("merged: %s\n", join(merged).c_str());
  }
  if (!l.report.virtual_bodies.empty())
    std::printf("virtual bodies: %s\n", join(l.report.virtual_bodies).c_str());
  if (!l.report.sources.empty()) {
    std::printf("values from:\n");
    for (const ValueSource& v : l.report.sources)
      std::printf("  %-14s %s  [%s]\n", v.name.c_str(), v.value.c_str(), v.source.c_str());
  }
  if (!l.report.ignored.empty()) std::printf("ignored: %s\n", join(l.report.ignored).c_str());
  for (const std::string& w : l.report.warnings) std::printf("warning: %s\n", w.c_str());
  return 0;
}

}  // namespace maxsim::cli
