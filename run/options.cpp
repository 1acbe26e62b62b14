#include "run/options.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <system_error>

namespace maxsim::run {

const char* ground_name(Ground g) {
  switch (g) {
    case Ground::Auto: return "auto";
    case Ground::On: return "on";
    case Ground::Off: return "off";
  }
  return "?";
}

const char* usage_text() {
  static const std::string text = [] {
    const LoadLimits d;
    auto g = [](double v) {  // %g with the exponent as it is written by hand: 1e-9, 1e9
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", v);
      std::string s(buf);
      if (const size_t e = s.find('e'); e != std::string::npos) {
        size_t k = e + 1;
        if (s[k] == '+') s.erase(k, 1);
        else if (s[k] == '-') ++k;
        while (k + 1 < s.size() && s[k] == '0') s.erase(k, 1);
      }
      return s;
    };
    return std::string(
         "usage:\n"
         "  maxsim info MODEL [--json] [--fixed-base] [--lenient] [--limit NAME=VALUE]\n"
         "  maxsim simulate MODEL [options]\n"
         "  maxsim bench MODEL --steps N [options] [--json]\n"
         "  maxsim view MODEL TRAJ.csv -o RUN.html      (3D replay in one HTML file; --help)\n"
         "  maxsim plot TRAJ.csv -o PLOT.svg|.png --columns A,B   (time plots; --help)\n"
         "  maxsim --help | --version\n"
         "MODEL is a URDF (.urdf) or MJCF (.xml, .mjcf) file.\n"
         "options (simulate; bench takes all but --output, --every, --view and --max-output-bytes):\n"
         "  --dt S                time step (default: the model's, else 0.01)\n"
         "  --duration S | --steps N   length of the run (default: 1 s)\n"
         "  --output FILE.csv     trajectory, one row at t=0 then every K steps\n"
         "  --every K             record every K-th step (default 1)\n"
         "  --view RUN.html       also write a 3D replay of the recorded states (maxsim view)\n"
         "  --json                print the run summary as one JSON object (last line of stdout)\n"
         "  --keyframe NAME       MJCF keyframe as initial state\n"
         "  --q JOINT=V1,V2,..    initial joint coordinates (repeatable)\n"
         "  --qd JOINT=V1,V2,..   initial joint rates (repeatable)\n"
         "  --ctrl ACTUATOR=U     command of an actuator, held (repeatable; after the keyframe's)\n"
         "  --ctrl-file FILE.csv  commands over time: column t, one column per actuator name,\n"
         "                        linearly interpolated (held before the first, after the last row)\n"
         "  --ground auto|on|off  half-space z >= 0 (auto: on for URDF, as declared for MJCF)\n"
         "  --friction MU         friction for geoms that declare none (>= 0; default: MJCF 1, as\n"
         "                        MuJoCo's, URDF 0.8)\n"
         "  --contacts on|off     hard contacts with friction (default on)\n"
         "  --restitution E       coefficient of restitution in [0, 1] (default 0: inelastic)\n"
         "  --gravity \"GX GY GZ\"  gravity vector (m/s^2)\n"
         "  --fixed-base          weld the floating base to the world\n"
         "  --lenient             load an MJCF file with unknown elements or attributes (MuJoCo\n"
         "                        refuses them: a misspelling), naming each in a warning\n"
         "  --tol EPS             Newton solver tolerance (default ") + g(SolverOptions().tolerance) + ")\n" +
         "  --cone nonlinear|linear|relaxed  friction cone model (default nonlinear)\n"
         "  --integrator variational|energy-momentum|newmark  time stepping (default: the model's,\n"
         "                        else variational); energy-momentum and newmark take no contacts,\n"
         "                        joint limits or joint friction (--contacts off)\n"
         "  --newmark \"BETA GAMMA\"  newmark only: its parameters, BETA in (0, 0.5], GAMMA in [0.5, 1]\n"
         "                        (default \"0.25 0.5\": the trapezoidal rule; \"0.0833 0.5\": Fox-Goodwin)\n"
         "  --numerical-damping NU  energy-momentum only: the step's numerical damping in [0, 0.5]\n"
         "                        (default 0: energy kept; > 0 damps fast swings, for large steps)\n"
         "  --limit-recovery-time TAU  seconds in which a joint or tendon limit the run starts beyond\n"
         "                        is pulled back in (Δt/TAU of the violation per step; 'inf': held\n"
         "                        where it is; default: MJCF files 0.04, others inf)\n"
         "  --max-output-bytes N  stop the run before the CSV (or --view's recorded frames) would\n"
         "                        grow beyond N bytes (default 2e9)\n"
         "  --limit NAME=VALUE    a bound of the model loader (info, simulate, bench; repeatable):\n" +
         "                          file-bytes=N     each file read (default " + std::to_string(d.file_bytes) + ")\n" +
         "                          elements=N       XML elements, includes expanded (" + std::to_string(d.elements) + ")\n" +
         "                          bodies=N         links / bodies (" + std::to_string(d.bodies) + ")\n" +
         "                          geoms=N          geometries (" + std::to_string(d.geoms) + ")\n" +
         "                          mesh-vertices=N  vertices of all mesh geoms (" + std::to_string(d.mesh_vertices) + ")\n" +
         "                          mass=LO,HI       plausible link mass, kg (" + g(d.mass_min) + "," + g(d.mass_max) + ")\n" +
         "                          inertia=LO,HI    plausible principal moments, kg m^2 (" + g(d.inertia_min) + "," +
         g(d.inertia_max) + ")\n" +
         "exit status: 0 success, 1 simulation failed, 2 bad input or usage\n";
  }();
  return text.c_str();
}

bool parse_double(std::string_view s, double* out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+' || s.front() == ' ') return false;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool parse_integer(std::string_view s, long long* out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return false;
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  *out = v;
  return true;
}

bool parse_double_list(std::string_view s, std::vector<double>* out) {
  out->clear();
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  size_t i = 0;
  while (i < s.size() && blank(s[i])) ++i;
  if (i == s.size()) return false;
  while (true) {
    size_t j = i;
    while (j < s.size() && !blank(s[j]) && s[j] != ',') ++j;
    double v = 0;
    if (!parse_double(s.substr(i, j - i), &v)) return false;
    out->push_back(v);
    // separator: blanks, at most one comma, blanks
    size_t k = j;
    while (k < s.size() && blank(s[k])) ++k;
    if (k < s.size() && s[k] == ',') {
      ++k;
      while (k < s.size() && blank(s[k])) ++k;
      if (k == s.size()) return false;  // trailing comma: an empty item
    }
    if (k == s.size()) return true;
    if (k == j) return false;  // cannot happen (j stopped at a separator), kept for safety
    i = k;
  }
}

namespace {

enum Allowed : unsigned { kInfo = 1, kSimulate = 2, kBench = 4, kRun = kSimulate | kBench,
                          kAll = kInfo | kSimulate | kBench };

struct OptionSpec {
  const char* name;
  bool takes_value;
  unsigned allowed;
};

constexpr OptionSpec kOptions[] = {
    {"--dt", true, kRun},          {"--duration", true, kRun},   {"--steps", true, kRun},
    {"--output", true, kSimulate}, {"--every", true, kSimulate}, {"--json", false, kAll},
    {"--keyframe", true, kRun},    {"--q", true, kRun},          {"--qd", true, kRun},
    {"--ground", true, kRun},      {"--friction", true, kRun},   {"--gravity", true, kRun},
    {"--fixed-base", false, kAll}, {"--tol", true, kRun},        {"--cone", true, kRun},
    {"--contacts", true, kRun},    {"--restitution", true, kRun},
    {"--view", true, kSimulate},   {"--max-output-bytes", true, kSimulate},
    {"--limit", true, kAll},       {"--ctrl", true, kRun},       {"--ctrl-file", true, kRun},
    {"--integrator", true, kRun},  {"--lenient", false, kAll},
    {"--numerical-damping", true, kRun},
    {"--limit-recovery-time", true, kRun},
    {"--newmark", true, kRun},
};

const char* command_name(Command c) {
  switch (c) {
    case Command::Info: return "info";
    case Command::Simulate: return "simulate";
    case Command::Bench: return "bench";
    default: return "maxsim";
  }
}

unsigned command_bit(Command c) {
  return c == Command::Info ? kInfo : c == Command::Simulate ? kSimulate : kBench;
}

[[noreturn]] void fail(const std::string& message) { throw InputError(message); }

std::string quoted(std::string_view s) {
  std::string q(1, '\'');
  q += s;
  q += '\'';
  return q;
}

double positive_number(const std::string& option, const std::string& value) {
  double v = 0;
  if (!parse_double(value, &v)) fail(option + ": " + quoted(value) + " is not a finite number");
  if (!(v > 0)) fail(option + " must be positive (got " + value + ")");
  return v;
}

long long positive_integer(const std::string& option, const std::string& value) {
  long long v = 0;
  if (!parse_integer(value, &v)) {
    const bool digits = !value.empty() && value.find_first_not_of("+-0123456789") == std::string::npos;
    fail(option + ": " + quoted(value) + (digits ? " is too large" : " is not an integer"));
  }
  if (v <= 0) fail(option + " must be positive (got " + value + ")");
  return v;
}

// A positive whole number, written as an integer or as a number with an exponent (1e6).
long long whole_number(const std::string& what, const std::string& value) {
  double v = 0;
  if (!parse_double(value, &v)) fail(what + ": " + quoted(value) + " is not a number");
  if (!(v >= 1 && v <= 9e18 && v == std::floor(v)))
    fail(what + " must be a positive whole number (got " + value + ")");
  return static_cast<long long>(v);
}

JointValues joint_values(const std::string& option, const std::string& value) {
  const size_t eq = value.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    fail(option + (option == "--ctrl" ? ": expected ACTUATOR=U" : ": expected JOINT=V or JOINT=V1,V2,...") + " (got " +
         quoted(value) + ")");
  JointValues jv;
  jv.option = option;
  jv.joint = value.substr(0, eq);
  const std::string list = value.substr(eq + 1);
  if (!parse_double_list(list, &jv.values))
    fail(option + " " + jv.joint + ": " + quoted(list) + " is not a list of finite numbers");
  return jv;
}

}  // namespace

void apply_limit(const std::string& setting, LoadLimits* limits) {
  const size_t eq = setting.find('=');
  const std::string name = setting.substr(0, eq);
  if (eq == std::string::npos || eq + 1 == setting.size())
    fail("--limit: expected NAME=VALUE (got " + quoted(setting) + ")");
  const std::string value = setting.substr(eq + 1);
  const std::string what = "--limit " + name;
  if (name == "file-bytes") limits->file_bytes = whole_number(what, value);
  else if (name == "elements") limits->elements = whole_number(what, value);
  else if (name == "bodies") limits->bodies = whole_number(what, value);
  else if (name == "geoms") limits->geoms = whole_number(what, value);
  else if (name == "mesh-vertices") limits->mesh_vertices = whole_number(what, value);
  else if (name == "mass" || name == "inertia") {
    std::vector<double> v;
    if (!parse_double_list(value, &v) || v.size() != 2)
      fail(what + ": expected LO,HI, two finite numbers (got " + quoted(value) + ")");
    if (!(v[0] >= 0 && v[0] < v[1])) fail(what + ": expected 0 <= LO < HI (got " + quoted(value) + ")");
    (name == "mass" ? limits->mass_min : limits->inertia_min) = v[0];
    (name == "mass" ? limits->mass_max : limits->inertia_max) = v[1];
  } else {
    fail("--limit: unknown bound " + quoted(name) +
         " (file-bytes, elements, bodies, geoms, mesh-vertices, mass, inertia)");
  }
}

Options parse_args(int argc, const char* const* argv) {
  Options o;
  if (argc < 2) fail("no command given (info, simulate, bench, view or plot)");
  const std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    o.command = Command::Help;
    return o;
  }
  if (cmd == "--version" || cmd == "version") {
    o.command = Command::Version;
    return o;
  }
  if (cmd == "info") o.command = Command::Info;
  else if (cmd == "simulate") o.command = Command::Simulate;
  else if (cmd == "bench") o.command = Command::Bench;
  else if (!cmd.empty() && cmd[0] == '-')
    fail("unknown option " + quoted(cmd) + " (the command comes first: info, simulate, bench, view or plot)");
  else
    fail("unknown command " + quoted(cmd) + " (commands: info, simulate, bench, view, plot)");
  const std::string cname = command_name(o.command);

  bool only_positional = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    const bool is_option = !only_positional && arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (!o.model_path.empty())
        fail(cname + ": unexpected argument " + quoted(arg) + " (the model is " + quoted(o.model_path) + ")");
      if (arg.empty()) fail(cname + ": empty model path");
      o.model_path = arg;
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      o.command = Command::Help;
      return o;
    }
    std::string name = arg, value;
    bool inline_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    const OptionSpec* spec = nullptr;
    for (const auto& s : kOptions)
      if (name == s.name) spec = &s;
    if (!spec) fail("unknown option " + quoted(name));
    if (!(spec->allowed & command_bit(o.command)))
      fail(cname + " does not take the option " + name);
    if (spec->takes_value) {
      if (!inline_value) {
        if (i + 1 >= argc) fail("option " + name + " needs a value");
        value = argv[++i];
      }
    } else if (inline_value) {
      fail("option " + name + " takes no value");
    }

    if (name == "--dt") o.dt = positive_number(name, value);
    else if (name == "--duration") o.duration = positive_number(name, value);
    else if (name == "--steps") o.steps = positive_integer(name, value);
    else if (name == "--every") o.every = positive_integer(name, value);
    else if (name == "--output") {
      if (value.empty()) fail("--output needs a file name");
      o.output = value;
    } else if (name == "--view") {
      if (value.empty()) fail("--view needs a file name");
      o.view = value;
    } else if (name == "--json") o.json = true;
    else if (name == "--fixed-base") o.fixed_base = true;
    else if (name == "--lenient") o.lenient = true;
    else if (name == "--keyframe") {
      if (value.empty()) fail("--keyframe needs a name");
      o.keyframe = value;
    } else if (name == "--ctrl") {
      const JointValues jv = joint_values(name, value);
      if (jv.values.size() != 1) fail("--ctrl " + jv.joint + ": one command per actuator (got " + quoted(value) + ")");
      o.ctrl.emplace_back(jv.joint, jv.values[0]);
    } else if (name == "--ctrl-file") {
      if (value.empty()) fail("--ctrl-file needs a file name");
      o.ctrl_file = value;
    } else if (name == "--q") o.q.push_back(joint_values(name, value));
    else if (name == "--qd") o.qd.push_back(joint_values(name, value));
    else if (name == "--ground") {
      if (value == "auto") o.ground = Ground::Auto;
      else if (value == "on") o.ground = Ground::On;
      else if (value == "off") o.ground = Ground::Off;
      else fail("--ground: " + quoted(value) + " is not one of auto, on, off");
    } else if (name == "--cone") {
      if (!friction_cone_from_name(value, &o.cone)) fail("--cone: " + quoted(value) + " is not one of nonlinear, linear, relaxed");
    } else if (name == "--integrator") {
      Integrator i;
      if (!integrator_from_name(value, &i)) fail("--integrator: " + quoted(value) + " is not one of variational, energy-momentum, newmark");
      o.integrator = i;
    } else if (name == "--newmark") {
      std::istringstream in(value);
      double beta = 0, gamma = 0;
      std::string rest;
      if (!(in >> beta >> gamma) || (in >> rest) || !std::isfinite(beta) || !std::isfinite(gamma))
        fail("--newmark: " + quoted(value) + " is not two numbers \"BETA GAMMA\"");
      if (!newmark_parameters_valid(beta, gamma))
        fail("--newmark: BETA must be in (0, 0.5] and GAMMA in [0.5, 1] (got " + value + ")");
      o.newmark = std::pair{beta, gamma};
    } else if (name == "--numerical-damping") {
      double nu = 0;
      if (!parse_double(value, &nu)) fail("--numerical-damping: " + quoted(value) + " is not a finite number");
      if (!numerical_damping_valid(nu)) fail("--numerical-damping must be in [0, 0.5] (got " + value + ")");
      o.numerical_damping = nu;
    } else if (name == "--limit-recovery-time") {
      double tau = std::numeric_limits<double>::infinity();
      if (value != "inf" && !parse_double(value, &tau))
        fail("--limit-recovery-time: " + quoted(value) + " is not a number of seconds or 'inf'");
      if (!limit_recovery_time_valid(tau)) fail("--limit-recovery-time must be >= 0 (got " + value + ")");
      o.limit_recovery_time = tau;
    } else if (name == "--contacts") {
      if (value == "on") o.contacts = true;
      else if (value == "off") o.contacts = false;
      else fail("--contacts: " + quoted(value) + " is not one of on, off");
    } else if (name == "--restitution") {
      double e = 0;
      if (!parse_double(value, &e)) fail("--restitution: " + quoted(value) + " is not a finite number");
      if (e < 0 || e > 1) fail("--restitution must be in [0, 1] (got " + value + ")");
      o.restitution = e;
    } else if (name == "--friction") {
      double mu = 0;
      if (!parse_double(value, &mu)) fail("--friction: " + quoted(value) + " is not a finite number");
      if (mu < 0) fail("--friction must be >= 0 (got " + value + ")");
      o.friction = mu;
    } else if (name == "--gravity") {
      std::vector<double> g;
      if (!parse_double_list(value, &g) || g.size() != 3)
        fail("--gravity: expected three finite numbers \"GX GY GZ\" (got " + quoted(value) + ")");
      o.gravity = std::array<double, 3>{g[0], g[1], g[2]};
    } else if (name == "--tol") o.tol = positive_number(name, value);
    else if (name == "--max-output-bytes") o.max_output_bytes = whole_number(name, value);
    else if (name == "--limit") apply_limit(value, &o.limits);
  }
  if (o.model_path.empty()) fail(cname + ": missing MODEL (a .urdf, .xml or .mjcf file)");
  if (o.steps && o.duration) fail("--steps and --duration exclude each other");
  if (o.command == Command::Bench && !o.steps && !o.duration)
    fail("bench: --steps N (or --duration S) is required");
  return o;
}

}  // namespace maxsim::run
