#include "run/setup.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/plot.hpp"
#include "models/load_error.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::run {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string g6(double v) { return fmt("%.6g", v); }

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

namespace {

// The ground half-space z >= 0: --ground auto follows the description (Model::implicit_ground:
// URDF has no world of its own; an MJCF file's geoms are its world, planes at their own poses).
bool ground_on(const Options& o, const Model& m) {
  return o.ground == Ground::On || (o.ground == Ground::Auto && m.implicit_ground);
}

// ---- initial state --------------------------------------------------------------------------
std::string joint_names_hint(const Model& m) {
  std::vector<std::string> names;
  for (const Joint& j : m.joints)
    if (j.dof() > 0) names.push_back(j.name);
  if (names.empty()) return " (the model has no movable joints)";
  if (names.size() > 40) {
    names.resize(40);
    names.push_back("...");
  }
  return " (joints: " + join(names) + ")";
}

// The order of a multi-value joint's coordinates (sim/state/kinematics.hpp): the free translations by
// joint-frame axis, then the rotation (orbital: its two angles a, b).
std::string value_layout(const Joint& j, bool positions) {
  if (j.dof() < 2) return "";
  if (j.coordinate_order[0] >= 0) {  // the rows' own names (an MJCF body's hinges and slides)
    std::string out;
    for (int i = 0; i < j.dof(); ++i) out += (i ? " " : "") + j.row_names[j.coordinate_order[i]];
    return " (" + out + ")";
  }
  static const char* const kPositions[3] = {"x ", "y ", "z "};
  static const char* const kRates[3] = {"vx ", "vy ", "vz "};
  std::string out;
  for (int r = 0; r < 3; ++r)
    if (!j.row_constrained(r)) out += positions ? kPositions[r] : kRates[r];
  if (j.davenport()) {
    static const char* const kAngles[3] = {"ax ", "ay ", "az "};
    static const char* const kAngleRates[3] = {"dax ", "day ", "daz "};
    for (int k = 0; k < 3; ++k)
      if (!j.row_constrained(3 + k)) out += positions ? kAngles[k] : kAngleRates[k];
  } else switch (rot_kind(j.type)) {
    case RotKind::Fixed: break;
    case RotKind::Revolute: out += positions ? "angle" : "rate"; break;
    case RotKind::Orbital: out += positions ? "a b" : "da db"; break;
    case RotKind::Free: out += positions ? "qw qx qy qz" : "wx wy wz"; break;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return " (" + out + ")";
}

// Joint coordinate vectors of the initial state: keyframe, then --q / --qd (InputError on bad
// names or counts).
void initial_coordinates(const Model& m, const Options& o, std::vector<std::vector<double>>* q,
                         std::vector<std::vector<double>>* qd) {
  const size_t nj = m.joints.size();
  q->assign(nj, {});
  qd->assign(nj, {});
  if (o.keyframe) {
    const int index = m.find_keyframe(*o.keyframe).value_or(-1);
    if (index < 0) {
      std::vector<std::string> names;
      for (const Keyframe& k : m.keyframes) names.push_back("'" + k.name + "'");
      throw InputError("unknown keyframe '" + *o.keyframe + "'" +
                       (names.empty() ? " (the model has no keyframes)" : " (keyframes: " + join(names) + ")"));
    }
    const Keyframe& key = m.keyframes[index];
    for (size_t j = 0; j < nj; ++j) {
      if (j < key.joint_q.size()) (*q)[j] = key.joint_q[j];
      if (j < key.joint_qd.size()) (*qd)[j] = key.joint_qd[j];
    }
  }
  const std::vector<bool> tree = spanning_tree_joints(m);
  for (const auto* list : {&o.q, &o.qd}) {
    for (const JointValues& jv : *list) {
      const bool positions = list == &o.q;
      const int j = m.find_joint(jv.joint).value_or(-1);
      if (j < 0) throw InputError(jv.option + ": unknown joint '" + jv.joint + "'" + joint_names_hint(m));
      const Joint& jt = m.joints[j];
      if (jt.name != jv.joint) {  // one row of a merged joint by its own name (Joint::row_names)
        const int row = m.find_joint_row(jv.joint)->second;
        if (jv.values.size() != 1)
          throw InputError(jv.option + ": joint '" + jv.joint + "' takes 1 value, got " + std::to_string(jv.values.size()));
        if (!tree[j])
          throw InputError(jv.option + ": joint '" + jv.joint +
                           "' closes a kinematic loop; its coordinates follow from the other joints");
        std::vector<double>& values = (positions ? *q : *qd)[j];
        if (values.empty()) values.assign(positions ? jt.nq() : jt.dof(), 0.0);
        values[row_coordinate_index(jt, row)] = jv.values[0];
        continue;
      }
      const int expected = positions ? jt.nq() : jt.dof();
      if (expected == 0)
        throw InputError(jv.option + ": joint '" + jv.joint + "' is " + joint_type_name(jt.type) +
                         " and has no coordinates");
      if (!tree[j])
        throw InputError(jv.option + ": joint '" + jv.joint +
                         "' closes a kinematic loop; its coordinates follow from the other joints");
      if (static_cast<int>(jv.values.size()) != expected)
        throw InputError(jv.option + ": joint '" + jv.joint + "' (" + joint_type_name(jt.type) + ") takes " +
                         std::to_string(expected) + (expected == 1 ? " value" : " values") +
                         value_layout(jt, positions) + ", got " + std::to_string(jv.values.size()));
      if (positions && rot_kind(jt.type) == RotKind::Free && !jt.davenport()) {
        const size_t n = jv.values.size();
        const double norm = std::sqrt(jv.values[n - 4] * jv.values[n - 4] + jv.values[n - 3] * jv.values[n - 3] +
                                      jv.values[n - 2] * jv.values[n - 2] + jv.values[n - 1] * jv.values[n - 1]);
        if (!(norm > 1e-9)) throw InputError(jv.option + ": joint '" + jv.joint + "': zero quaternion");
      }
      (positions ? *q : *qd)[j] = jv.values;
    }
  }
}

// Quoted actuator names for messages: " (actuators: 'a', 'b')" or that there are none.
std::string actuator_names_hint(const Model& m) {
  if (m.actuators.empty()) return " (the model has no actuators)";
  std::vector<std::string> names;
  for (const Actuator& a : m.actuators) names.push_back("'" + a.name + "'");
  return " (actuators: " + join(names) + ")";
}

int actuator_by_name(const Model& m, const std::string& what, const std::string& name) {
  const int i = m.find_actuator(name).value_or(-1);
  if (i < 0) throw InputError(what + ": unknown actuator '" + name + "'" + actuator_names_hint(m));
  return i;
}

// The commands at the start (keyframe, then --ctrl) and the --ctrl-file schedule.
void initial_commands(const Model& m, const Options& o, std::vector<double>* ctrl0,
                      std::shared_ptr<const ControlSchedule>* schedule) {
  ctrl0->assign(m.actuators.size(), 0.0);
  if (o.keyframe) {
    const Keyframe& key = m.keyframes[m.keyframe_index(*o.keyframe)];  // (checked by initial_coordinates)
    for (size_t i = 0; i < key.ctrl.size() && i < ctrl0->size(); ++i) (*ctrl0)[i] = key.ctrl[i];
  }
  for (const auto& [name, u] : o.ctrl) (*ctrl0)[actuator_by_name(m, "--ctrl", name)] = u;
  if (o.ctrl_file.empty()) return;
  const std::string what = "--ctrl-file " + o.ctrl_file;
  io::CsvTable table;
  try {
    table = io::read_csv_table(o.ctrl_file);
  } catch (const io::Error& e) {
    throw InputError("--ctrl-file: " + std::string(e.what()));
  }
  if (table.column("t") != 0) throw InputError(what + ": the first column must be 't' (time in s)");
  if (table.columns.size() < 2) throw InputError(what + ": no actuator columns after 't'");
  auto s = std::make_shared<ControlSchedule>();
  for (size_t c = 1; c < table.columns.size(); ++c) s->actuators.push_back(actuator_by_name(m, what, table.columns[c]));
  s->time = table.values[0];
  s->values.assign(table.rows(), std::vector<double>(table.columns.size() - 1));
  for (size_t r = 0; r < table.rows(); ++r)
    for (size_t c = 1; c < table.columns.size(); ++c) s->values[r][c - 1] = table.values[c][r];
  const std::string problem = validate_schedule(m, *s);
  // (rows of the file count from its second line: the header is line 1)
  if (!problem.empty()) throw InputError(what + ": " + problem + " (row 1 is the file's line 2)");
  *schedule = std::move(s);
}

// Why the projection onto the constraints failed, in words a user can act on.
std::string projection_failure(const Model& m, const ProjectionReport& pr, const std::string& file) {
  const std::string where = worst_row_description(m, pr);
  if (pr.failure == ProjectionReport::Failure::IterationLimit)
    return "no consistent initial state: the initial pose cannot satisfy the joint constraints — after " +
           std::to_string(pr.iterations) + " projection iterations " + where +
           ". A kinematic loop that cannot close with these link lengths and anchors, or initial "
           "coordinates (--q, --qd, --keyframe) that pull joints apart, do this; check the joint "
           "origins and loop anchors in " + file + ", or the initial coordinates";
  // the matrix of masses, inertias and constraint rows could not be factored
  double mlo = 0, mhi = 0, ilo = 0, ihi = 0;
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const Vec3 e = Eigen::SelfAdjointEigenSolver<Mat3>(m.bodies[b].inertia, Eigen::EigenvaluesOnly).eigenvalues();
    mlo = b ? std::min(mlo, m.bodies[b].mass) : m.bodies[b].mass;
    mhi = b ? std::max(mhi, m.bodies[b].mass) : m.bodies[b].mass;
    ilo = b ? std::min(ilo, e.minCoeff()) : e.minCoeff();
    ihi = b ? std::max(ihi, e.maxCoeff()) : e.maxCoeff();
  }
  return std::string("no consistent initial state: projecting the initial ") +
         (pr.failure == ProjectionReport::Failure::VelocitySingular ? "velocities" : "pose") +
         " onto the joint constraints needs a linear system that cannot be solved in double precision" +
         (where.empty() ? "" : " (" + where + ")") + ". The body masses span " + g6(mlo) + " to " +
         g6(mhi) + " kg and the inertias' principal moments " + g6(ilo) + " to " + g6(ihi) +
         " kg m^2; values far apart, or joints whose rows repeat one another, make it singular. Check "
         "the masses, inertias and joints in " + file;
}

// Places the bodies and projects onto the constraints (SimulationError when that fails).
void apply_initial_state(const Model& m, Data& d, const std::vector<std::vector<double>>& q,
                         const std::vector<std::vector<double>>& qd, const std::string& file) {
  try {
    set_coordinates(m, d, q, qd);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("initial state: ") + e.what());
  }
  if (!state_finite(d))
    throw SimulationError("the initial state is not finite (are the --q / --qd values too large?)");
  const ProjectionReport pr = project_state(m, d);
  if (!state_finite(d))
    throw SimulationError("no consistent initial state: the projection onto the joint constraints diverged");
  if (!pr.converged) throw SimulationError(projection_failure(m, pr, file));
}

}  // namespace

LoadedModel load_for_run(const Options& o) {
  LoadedModel l;
  LoadOptions lo;
  lo.fixed_base = o.fixed_base;
  lo.lenient = o.lenient;
  lo.limits = o.limits;
  try {
    l.model = load_model(o.model_path, lo, &l.report);
  } catch (const LoadError& e) {
    throw InputError(e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(o.model_path + ": " + e.what());
  }
  if (const std::string bad = validate_model(l.model); !bad.empty())
    throw InputError(o.model_path + ": " + bad);
  std::string ext = std::filesystem::path(o.model_path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  l.urdf = ext == ".urdf";
  l.display_name = !l.model.name.empty() ? l.model.name : std::filesystem::path(o.model_path).stem().string();
  return l;
}

RunSetup setup_model(const Options& o) {
  RunSetup s;
  s.loaded = load_for_run(o);
  Model& m = s.loaded.model;
  if (o.gravity) m.opt.gravity = Vec3((*o.gravity)[0], (*o.gravity)[1], (*o.gravity)[2]);
  if (o.integrator) m.opt.integrator = *o.integrator;
  if (o.numerical_damping) m.opt.numerical_damping = *o.numerical_damping;
  if (o.limit_recovery_time) m.opt.limit_recovery_time = *o.limit_recovery_time;
  if (o.newmark) std::tie(m.opt.newmark_beta, m.opt.newmark_gamma) = *o.newmark;
  s.dt = o.dt ? *o.dt : m.opt.timestep;
  if (!(std::isfinite(s.dt) && s.dt > 0)) throw InputError(o.model_path + ": the model's time step is not positive");
  m.opt.timestep = s.dt;
  if (o.tol) m.opt.solver.tolerance = *o.tol;
  s.ground = ground_on(o, m);
  s.contacts = o.contacts && m.contacts;  // the file may switch them off
  m.opt.contact.ground = s.ground;
  if (o.friction) m.opt.contact.friction = *o.friction;
  if (o.restitution) m.opt.contact.restitution = *o.restitution;
  m.opt.contact.cone = o.cone;
  initial_coordinates(m, o, &s.q0, &s.qd0);
  initial_commands(m, o, &s.ctrl0, &s.schedule);
  return s;
}

void setup_state(RunSetup& s, const Options& o, Data& d) {
  Model& m = s.loaded.model;
  apply_initial_state(m, d, s.q0, s.qd0, o.model_path);
  d.time = 0;
  s.lifted = 0;
  if (s.contacts) {
    if (s.ground) s.lifted = lift_to_ground(m, d);
    enable_contacts(m, d);
  }
  d.ctrl = s.ctrl0;
  if (s.schedule) set_controller(d, std::make_shared<ScheduleController>(s.schedule));
  // (checked on the Data as it will be stepped: the contact search is installed by now)
  if (const std::string refused = integrator_support(m, d); !refused.empty()) {
    std::string hint = o.integrator ? "--integrator variational" : "--integrator variational (the file asks for " +
                                                                       std::string(integrator_name(m.opt.integrator)) + ")";
    if (d.contact_search && d.contact_search->active()) hint += ", or --contacts off to step without contacts";
    throw InputError(o.model_path + ": " + refused + " (options: " + hint + ")");
  }
}

double lift_to_ground(Model& m, Data& d) {
  int to_world = 0;
  Joint* base = nullptr;
  for (Joint& j : m.joints)
    if (j.parent == kWorld || j.child == kWorld) {
      ++to_world;
      base = &j;
    }
  if (to_world != 1 || !(base->type == JointType::Floating || base->type == JointType::Fixed)) return 0.0;
  const double depth = max_ground_penetration(m, d);
  if (!(depth > 0)) return 0.0;
  for (Vec3& x : d.x) x.z() += depth;
  // the weld moves with the robot (its world-side anchor is in the world frame)
  if (base->type == JointType::Fixed) (base->parent == kWorld ? base->parent_anchor : base->child_anchor).z() += depth;
  return depth;
}

std::string nonholonomic_parameters(const NonholonomicConstraint& c) {
  auto vec = [](const Vec3& v) { return g6(v.x()) + " " + g6(v.y()) + " " + g6(v.z()); };
  std::vector<std::string> parts;
  // (the parameters the loaders read for the kind, in their order)
  if (nonholonomic_takes(c.kind, "radius")) parts.push_back("radius " + g6(c.radius));
  if (nonholonomic_takes(c.kind, "axis")) parts.push_back("axis " + vec(c.axis));
  if (nonholonomic_takes(c.kind, "point")) parts.push_back("point " + vec(c.point));
  if (nonholonomic_takes(c.kind, "direction")) parts.push_back("direction " + vec(c.direction));
  return join(parts);
}

bool state_finite(const Data& d) {
  for (size_t i = 0; i < d.x.size(); ++i)
    if (!d.x[i].allFinite() || !d.q[i].allFinite() || !d.v[i].allFinite() || !d.w[i].allFinite()) return false;
  return std::isfinite(d.time);
}

}  // namespace maxsim::run
