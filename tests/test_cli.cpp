// The `maxsim` command (README "The maxsim command"): runs the built binary on repository models and on broken
// files, and checks the contract — exit statuses, the trajectory CSV (columns generated from the
// model, rows, finite numbers) and the one-line JSON summary (keys, values).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "testing/hostile_models.hpp"
#include "tests/suite_directory.hpp"
#include "models/load.hpp"
#include "sim/model.hpp"

namespace maxsim {
namespace {

namespace fs = std::filesystem;

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
const std::string kA1Urdf = repo("robots/a1/urdf/a1.urdf");
const std::string kA1Xml = repo("robots/a1/xml/a1.xml");
const std::string kFourbar = repo("tests/data/models/dojo_fourbar/fourbar.urdf");
const std::string kAnt = repo("tests/data/models/gym_mujoco/ant.xml");
const std::string kCassie = repo("tests/data/models/agility_cassie/cassie.xml");
const std::string kSleighXml = repo("tests/data/nonholonomic/sleigh.xml");    // energy-momentum, 2 constraints
const std::string kSleighUrdf = repo("tests/data/nonholonomic/sleigh.urdf");
const std::string kDiskXml = repo("tests/data/nonholonomic/disk.xml");        // variational, 2 constraints

const char* const kSummaryKeys[] = {
    "model", "steps", "dt", "sim_time", "wall_time_s", "steps_per_s", "energy_initial", "energy_final",
    "energy_max_drift", "max_constraint_violation", "max_penetration", "iterations_mean",
    "iterations_max", "failed_steps"};

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out = split(s, '\n');
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

bool strict_double(const std::string& s, double* v) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*v);
}

// ---- a small JSON reader for the one-level summary objects -----------------------------------
struct JsonValue {
  enum Kind { String, Number, Bool, Null, Other } kind = Null;
  std::string text;  // the string's content, or the raw token
  double number = 0;
};

// Parses {"k": v, ...} with string/number/true/false/null values (nested arrays and objects are
// kept raw). Returns false on a syntax error.
bool parse_json_object(const std::string& s, std::map<std::string, JsonValue>* out) {
  size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  auto string = [&](std::string* str) {
    if (i >= s.size() || s[i] != '"') return false;
    ++i;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        if (++i >= s.size()) return false;
        const char e = s[i];
        if (e == 'u') {
          if (i + 4 >= s.size()) return false;
          *str += '?';
          i += 4;
        } else {
          *str += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        }
        ++i;
      } else {
        *str += s[i++];
      }
    }
    if (i >= s.size()) return false;
    ++i;
    return true;
  };
  ws();
  if (i >= s.size() || s[i] != '{') return false;
  ++i;
  ws();
  if (i < s.size() && s[i] == '}') return ++i, true;
  while (true) {
    ws();
    std::string key;
    if (!string(&key)) return false;
    ws();
    if (i >= s.size() || s[i] != ':') return false;
    ++i;
    ws();
    JsonValue v;
    if (i >= s.size()) return false;
    if (s[i] == '"') {
      v.kind = JsonValue::String;
      if (!string(&v.text)) return false;
    } else if (s[i] == '[' || s[i] == '{') {
      v.kind = JsonValue::Other;
      int depth = 0;
      const size_t start = i;
      do {
        if (s[i] == '"') {
          std::string skip;
          if (!string(&skip)) return false;
          continue;
        }
        if (s[i] == '[' || s[i] == '{') ++depth;
        if (s[i] == ']' || s[i] == '}') --depth;
        ++i;
      } while (depth > 0 && i < s.size());
      if (depth != 0) return false;
      v.text = s.substr(start, i - start);
    } else {
      const size_t start = i;
      while (i < s.size() && s[i] != ',' && s[i] != '}' && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      v.text = s.substr(start, i - start);
      if (v.text == "true" || v.text == "false") v.kind = JsonValue::Bool;
      else if (v.text == "null") v.kind = JsonValue::Null;
      else if (strict_double(v.text, &v.number)) v.kind = JsonValue::Number;
      else return false;
    }
    (*out)[key] = v;
    ws();
    if (i >= s.size()) return false;
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (s[i] == '}') {
      ++i;
      ws();
      return i == s.size();
    }
    return false;
  }
}

// ---- running the binary ----------------------------------------------------------------------
struct Result {
  int status = -1;  // exit status; -1 when killed by a signal (a crash) or not run
  std::string out, err;
  std::map<std::string, JsonValue> json;  // the last stdout line, when it is a JSON object
  bool has_json = false;
};

class Cli : public SuiteDirectory<Cli> {
 public:
  static constexpr const char* kDirectory = "cli";

 protected:
  // Runs `maxsim ARGS` (ARGS already shell-quoted where needed), stdout and stderr to files.
  static Result run(const std::string& args) {
    static int counter = 0;
    const std::string binary = std::string(MAXSIM_BINARY_DIR) + "/maxsim";
    if (!fs::exists(binary)) {
      ADD_FAILURE() << binary << " does not exist: build the maxsim target first";
      return {};
    }
    const std::string tag = std::to_string(counter++);
    const fs::path out = dir_ / ("out" + tag), err = dir_ / ("err" + tag);
    const std::string cmd = "timeout 300 " + quote(binary) + " " + args +
                            " >" + quote(out.string()) + " 2>" + quote(err.string());
    Result r;
    const int rc = std::system(cmd.c_str());
    if (rc != -1 && WIFEXITED(rc)) r.status = WEXITSTATUS(rc);
    r.out = read_file(out);
    r.err = read_file(err);
    const std::vector<std::string> ls = lines(r.out);
    if (!ls.empty() && !ls.back().empty() && ls.back()[0] == '{') r.has_json = parse_json_object(ls.back(), &r.json);
    return r;
  }

};

void expect_summary(const Result& r) {
  ASSERT_TRUE(r.has_json) << "stdout: " << r.out << "\nstderr: " << r.err;
  for (const char* key : kSummaryKeys) {
    ASSERT_TRUE(r.json.count(key)) << "missing key " << key;
    const JsonValue& v = r.json.at(key);
    if (std::string(key) == "model")
      EXPECT_EQ(v.kind, JsonValue::String);
    else
      EXPECT_EQ(v.kind, JsonValue::Number) << key << " = " << v.text;
  }
}

// The contract's columns, generated independently from the loaded model.
std::vector<std::string> expected_columns(const Model& m) {
  std::vector<std::string> cols{"t"};
  for (const Body& b : m.bodies)
    for (const char* s : {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"})
      cols.push_back(b.name + "." + s);
  for (const Joint& j : m.joints) {
    for (int k = 0; k < j.nq(); ++k) cols.push_back(j.name + ".q" + std::to_string(k));
    for (int k = 0; k < j.dof(); ++k) cols.push_back(j.name + ".v" + std::to_string(k));
  }
  for (const char* s : {"energy.kinetic", "energy.potential", "energy.total", "violation.max", "penetration.max",
                        "solver.iterations", "solver.residual"})
    cols.push_back(s);
  return cols;
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  bool all_finite = true;
  int column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
  double at(size_t row, const std::string& name) const { return rows.at(row).at(column(name)); }
};

Csv read_csv(const fs::path& p) {
  Csv c;
  const std::vector<std::string> ls = lines(read_file(p));
  if (ls.empty()) return c;
  c.header = split(ls[0], ',');
  for (size_t i = 1; i < ls.size(); ++i) {
    std::vector<double> row;
    for (const std::string& f : split(ls[i], ',')) {
      double v = 0;
      if (!strict_double(f, &v)) {
        c.all_finite = false;
        ADD_FAILURE() << "line " << i + 1 << ": '" << f << "' is not a finite number";
      }
      row.push_back(v);
    }
    EXPECT_EQ(row.size(), c.header.size()) << "line " << i + 1;
    c.rows.push_back(row);
  }
  return c;
}

// ---- info -----------------------------------------------------------------------------------
TEST_F(Cli, InfoA1Urdf) {
  const Result r = run("info " + quote(kA1Urdf));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bodies: 13"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trunk"), std::string::npos);
  for (const char* leg : {"FR", "FL", "RR", "RL"})
    for (const char* part : {"hip", "thigh", "calf"}) {
      const std::string name = std::string(leg) + "_" + part + "_joint";
      EXPECT_NE(r.out.find(name), std::string::npos) << name;
    }
  EXPECT_NE(r.out.find("loop-closing joints: 0"), std::string::npos);
  EXPECT_NE(r.out.find("joint coordinates (tree): 18"), std::string::npos);
  EXPECT_NE(r.out.find("collision shapes: 10 box, 4 cylinder, 4 sphere"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(Cli, InfoCassieLoops) {
  const Result r = run("info " + quote(kCassie));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("loop-closing joints: 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("keyframes: home"), std::string::npos);
}

TEST_F(Cli, InfoJson) {
  const Result r = run("info " + quote(kCassie) + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(r.has_json) << r.out;
  EXPECT_EQ(r.json.at("loop_closing_joints").number, 4);
  EXPECT_EQ(r.json.at("model").text, "cassie");
  EXPECT_EQ(r.json.at("ground_auto").text, "false");
}

// ---- simulate ---------------------------------------------------------------------------------
// A model with sensors gets one column per sensor value after the solver's (DESIGN §8):
// sensor.NAME for a scalar, sensor.NAME.k for a vector. The pendulum of tests/data/sensors'
// every_sensor.xml falls with contacts off: the clock follows t, the hip's jointpos column is its
// qpos (the joint's own column plus its ref), the first row already has the state's sensors.
TEST_F(Cli, SimulateWritesSensorColumns) {
  const std::string file = repo("tests/data/sensors/every_sensor.xml");
  const fs::path csv = path("sensors.csv");
  const Result r = run("simulate " + quote(file) + " --steps 20 --output " + quote(csv.string()) + " --every 10 --contacts off");
  ASSERT_EQ(r.status, 0) << r.err;
  const Model m = load_model(file);
  const Csv c = read_csv(csv);
  ASSERT_EQ(c.header.size(), 1 + 13 * m.bodies.size() + 14 + 12 + 7 + static_cast<size_t>(m.nsensordata()));
  EXPECT_EQ(c.header[c.header.size() - static_cast<size_t>(m.nsensordata())], "sensor.hip_pos");
  EXPECT_EQ(c.header.back(), "sensor.range_knee");
  const std::vector<std::string> quat(c.header.end() - m.nsensordata() + m.sensors[4].adr,
                                      c.header.end() - m.nsensordata() + m.sensors[4].adr + 4);
  EXPECT_EQ(quat, (std::vector<std::string>{"sensor.ankle_quat.0", "sensor.ankle_quat.1", "sensor.ankle_quat.2", "sensor.ankle_quat.3"}));
  ASSERT_EQ(c.rows.size(), 3u);
  const double ref = 5 * M_PI / 180;  // the hip's ref="5" (degrees)
  for (size_t i = 0; i < c.rows.size(); ++i) {
    EXPECT_NEAR(c.at(i, "sensor.time"), c.at(i, "t"), 1e-12);
    EXPECT_NEAR(c.at(i, "sensor.hip_pos"), c.at(i, "hip.q0") + ref, 1e-12);
    EXPECT_NEAR(c.at(i, "sensor.ankle_quat.0"), c.at(i, "ankle.q0"), 1e-12);
  }
}

TEST_F(Cli, SimulateA1CsvAndJson) {
  const fs::path csv = path("a1.csv");
  const Result r = run("simulate " + quote(kA1Urdf) + " --steps 50 --output " + quote(csv.string()) +
                       " --every 10 --json --contacts off");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;

  LoadReport report;
  const Model m = load_model(kA1Urdf, LoadOptions{}, &report);
  ASSERT_EQ(m.bodies.size(), 13u);
  const std::vector<std::string> expected = expected_columns(m);
  size_t joint_columns = 0;
  for (const Joint& j : m.joints) joint_columns += static_cast<size_t>(j.nq() + j.dof());
  EXPECT_EQ(expected.size(), 1 + 13 * m.bodies.size() + joint_columns + 7);

  const Csv c = read_csv(csv);
  EXPECT_EQ(c.header, expected);
  ASSERT_GE(c.header.size(), 14u);
  const std::vector<std::string> first(c.header.begin(), c.header.begin() + 14);
  EXPECT_EQ(first, (std::vector<std::string>{"t", "trunk.x", "trunk.y", "trunk.z", "trunk.qw", "trunk.qx", "trunk.qy",
                                             "trunk.qz", "trunk.vx", "trunk.vy", "trunk.vz", "trunk.wx", "trunk.wy",
                                             "trunk.wz"}));
  const std::vector<std::string> last(c.header.end() - 7, c.header.end());
  EXPECT_EQ(last, (std::vector<std::string>{"energy.kinetic", "energy.potential", "energy.total", "violation.max",
                                            "penetration.max", "solver.iterations", "solver.residual"}));
  ASSERT_EQ(c.rows.size(), 6u);  // t = 0, then every 10 of 50 steps
  EXPECT_TRUE(c.all_finite);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    EXPECT_NEAR(c.rows[i][0], 0.1 * static_cast<double>(i), 1e-12);
    EXPECT_NEAR(c.at(i, "energy.total"), c.at(i, "energy.kinetic") + c.at(i, "energy.potential"), 1e-9);
  }
  EXPECT_EQ(c.at(0, "solver.iterations"), 0);
  EXPECT_GT(c.at(5, "trunk.vz"), -9.81 * 0.5 - 0.1);  // falling freely (contacts off)
  EXPECT_LT(c.at(5, "trunk.vz"), -9.81 * 0.5 + 0.1);

  expect_summary(r);
  EXPECT_EQ(r.json.at("steps").number, 50);
  EXPECT_EQ(r.json.at("failed_steps").number, 0);
  EXPECT_EQ(r.json.at("relaxed_steps").number, 0);
  EXPECT_EQ(r.json.at("dt").number, 0.01);
  EXPECT_NEAR(r.json.at("sim_time").number, 0.5, 1e-12);
  EXPECT_EQ(r.json.at("model").text, "a1_description");
  EXPECT_EQ(r.json.at("status").text, "ok");
  EXPECT_LT(r.json.at("max_constraint_violation").number, 1e-8);
  EXPECT_NEAR(r.json.at("energy_initial").number, c.at(0, "energy.total"), 1e-9);
  EXPECT_NEAR(r.json.at("energy_final").number, c.at(5, "energy.total"), 1e-9);
  // the URDF ground is on by default; with contacts off nothing holds the robot up: it sinks
  EXPECT_EQ(r.json.at("ground").text, "true");
  EXPECT_EQ(r.json.at("contacts").text, "false");
  EXPECT_NEAR(r.json.at("max_penetration").number, c.at(5, "penetration.max"), 1e-12);
  EXPECT_GT(r.json.at("max_penetration").number, 1.0);
}

// Contacts are on by default: the URDF's floating base (at the origin, legs through the floor) is
// lifted onto the ground and the robot falls onto it without sinking.
TEST_F(Cli, SimulateA1WithContacts) {
  const fs::path csv = path("a1_contacts.csv");
  const Result r = run("simulate " + quote(kA1Urdf) + " --duration 0.5 --dt 0.005 --output " + quote(csv.string()) +
                       " --every 10 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_summary(r);
  EXPECT_EQ(r.json.at("contacts").text, "true");
  EXPECT_EQ(r.json.at("failed_steps").number, 0);
  // the zero pose reaches 0.4 m (thigh + calf) + 0.02 m (foot sphere) below the hips
  EXPECT_NEAR(r.json.at("lifted_m").number, 0.42, 0.02);
  EXPECT_LT(r.json.at("max_penetration").number, 1e-4);
  const Csv c = read_csv(csv);
  ASSERT_EQ(c.rows.size(), 11u);
  EXPECT_GT(c.at(0, "trunk.z"), 0.4);
  for (size_t i = 0; i < c.rows.size(); ++i) EXPECT_LT(c.at(i, "penetration.max"), 1e-4);
  // (unpowered, it folds onto its trunk: lower than it started, still above the ground)
  EXPECT_LT(c.at(10, "trunk.z"), c.at(0, "trunk.z"));
  EXPECT_GT(c.at(10, "trunk.z"), 0.0);
  // a bad restitution is named, exit 2
  const Result bad = run("simulate " + quote(kA1Urdf) + " --steps 1 --restitution 1.5");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--restitution"), std::string::npos) << bad.err;
  // the same drop with the linearized friction cone
  const Result lin = run("simulate " + quote(kA1Urdf) + " --duration 0.5 --dt 0.005 --cone linear --json");
  ASSERT_EQ(lin.status, 0) << lin.err;
  EXPECT_EQ(lin.json.at("cone").text, "linear");
  EXPECT_EQ(lin.json.at("failed_steps").number, 0);
  EXPECT_LT(lin.json.at("max_penetration").number, 1e-4);
}

TEST_F(Cli, SimulateHumanReadableAndDefaults) {
  const Result r = run("simulate " + quote(kA1Xml) + " --duration 0.1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(r.has_json);
  EXPECT_NE(r.out.find("failed steps 0"), std::string::npos) << r.out;
  const Result j = run("simulate " + quote(kA1Xml) + " --duration 0.1 --json --ground off");
  ASSERT_EQ(j.status, 0) << j.err;
  expect_summary(j);
  // the A1 MJCF sets its own time step; the duration is rounded to whole steps
  const double dt = j.json.at("dt").number;
  EXPECT_GT(dt, 0);
  EXPECT_EQ(j.json.at("steps").number, std::round(0.1 / dt));
  // the file's own pose (qpos0: trunk at 0.3 m, legs straight) has the feet 0.12 m inside its
  // floor plane; the diagnostic measures against the file's world whatever --ground says, and no
  // MJCF robot is lifted (the contacts push it out at their recovery speed)
  EXPECT_NEAR(j.json.at("max_penetration").number, 0.12, 1e-9);
  EXPECT_EQ(j.json.at("lifted_m").number, 0);
  EXPECT_EQ(j.json.at("ground").text, "false");
}

TEST_F(Cli, FourbarKeepsItsLoopClosed) {
  const Result r = run("simulate " + quote(kFourbar) + " --steps 200 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_summary(r);
  EXPECT_LT(r.json.at("max_constraint_violation").number, 1e-8);
  // moving: start away from rest (the projection closes the loop again)
  const Result m = run("simulate " + quote(kFourbar) + " --steps 200 --json --q jointb1=0.3");
  ASSERT_EQ(m.status, 0) << m.err;
  expect_summary(m);
  EXPECT_LT(m.json.at("max_constraint_violation").number, 1e-8);
  EXPECT_GT(m.json.at("energy_max_drift").number, 0);  // the file's joint dampers take energy out
}

TEST_F(Cli, CassieKeyframe) {
  const fs::path with = path("cassie_home.csv"), without = path("cassie_zero.csv");
  const Result r = run("simulate " + quote(kCassie) + " --keyframe home --steps 20 --every 20 --json --output " +
                       quote(with.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  expect_summary(r);
  EXPECT_EQ(r.json.at("failed_steps").number, 0);
  EXPECT_LT(r.json.at("max_constraint_violation").number, 1e-6);
  EXPECT_EQ(r.json.at("keyframe").text, "home");
  const Result z = run("simulate " + quote(kCassie) + " --steps 1 --output " + quote(without.string()));
  ASSERT_EQ(z.status, 0) << z.err;
  const Csv a = read_csv(with), b = read_csv(without);
  ASSERT_EQ(a.rows.size(), 2u);
  ASSERT_FALSE(b.rows.empty());
  // the keyframe's hip pitch (0.497301) and pelvis height (1.0059301), up to the projection
  // that closes the four loops
  EXPECT_NEAR(a.at(0, "left-hip-pitch.q0"), 0.497301, 1e-3);
  EXPECT_NEAR(a.at(0, "right-hip-pitch.q0"), 0.497301, 1e-3);
  EXPECT_NE(a.at(0, "left-hip-pitch.q0"), b.at(0, "left-hip-pitch.q0"));
  const int pelvis_z = a.column("cassie-pelvis_joint.q2");
  ASSERT_GE(pelvis_z, 0);
  EXPECT_NEAR(a.rows[0][pelvis_z], 1.0059301, 1e-3);
}

// Commands (simulate --ctrl, --ctrl-file, keyframe ctrl) on the A1's MJCF scene: its
// position servos hold the keyframe's stance from its ctrl, fall without it; a --ctrl-file of
// constant columns runs the same states as --ctrl to the last digit; a file that varies in time
// changes the run; bad files exit 2 naming the problem.
TEST_F(Cli, ControlsFromTheCommandLine) {
  const std::string scene = quote(repo("robots/a1/menagerie_variant/scene.xml"));
  // (the scene sets no time step: MuJoCo's 0.002 s, 500 steps; --every 500 records t = 0 and 1 s)
  const std::string base = "simulate " + scene + " --keyframe home --duration 1 --every 500 --output ";
  const fs::path held = path("a1_held.csv"), file = path("a1_file.csv"), zero = path("a1_zero.csv");
  Result r = run(base + quote(held.string()) + " --ctrl FR_hip=0.2 --ctrl RL_calf=-1.6");
  ASSERT_EQ(r.status, 0) << r.err;
  // the keyframe's servo targets (0, 0.9, −1.8 per leg), two of them replaced
  const fs::path ctrl = path("a1_ctrl.csv");
  {
    std::ofstream out(ctrl);
    out << "t,FR_hip,RL_calf\n0,0.2,-1.6\n10,0.2,-1.6\n";
  }
  r = run(base + quote(file.string()) + " --ctrl-file " + quote(ctrl.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(held), read_file(file));
  const Csv a = read_csv(held);
  ASSERT_EQ(a.rows.size(), 2u);
  const int trunk_z = a.column("trunk.z");
  ASSERT_GE(trunk_z, 0) << "columns: " << a.header.size();
  EXPECT_GT(a.rows[1][trunk_z], 0.2);  // standing (keyframe trunk height 0.27 m)
  EXPECT_NEAR(a.at(1, "FR_hip_joint.q0"), 0.2, 0.05);  // the servo (kp 100) near its target
  // without the keyframe's commands the position servos pull every joint to 0: the legs
  // straighten and fold under the trunk's weight
  r = run("simulate " + scene + " --keyframe home --duration 1 --every 500 --ctrl-file " + quote(ctrl.string()) +
          " --output " + quote(zero.string()) + " --ctrl FR_thigh=0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_csv(zero).at(1, "FR_thigh_joint.q0"), a.at(1, "FR_thigh_joint.q0"));
  // a ramp changes the run
  {
    std::ofstream out(ctrl);
    out << "t,FR_hip\n0,0\n0.5,0.3\n";
  }
  r = run(base + quote(file.string()) + " --ctrl-file " + quote(ctrl.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(read_csv(file).at(1, "FR_hip_joint.q0"), 0.3, 0.05);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"t,FR_hip,nosuch\n0,1,2\n", "unknown actuator 'nosuch'"},
      {"time,FR_hip\n0,1\n", "the first column must be 't'"},
      {"t\n0\n", "no actuator columns"},
      {"t,FR_hip\n0,1\n0,2\n", "row 2: times must increase"},
      {"t,FR_hip\n0,\n", "row 1: the value for actuator 'FR_hip' is not a finite number"},
      {"t,FR_hip\n0,abc\n", "column 'FR_hip': 'abc' is not a finite number"},
      {"t,FR_hip,FR_hip\n0,1,2\n", "appears twice"},
  };
  for (const auto& [text, message] : bad) {
    {
      std::ofstream out(ctrl);
      out << text;
    }
    r = run("simulate " + scene + " --steps 1 --ctrl-file " + quote(ctrl.string()));
    EXPECT_EQ(r.status, 2) << text << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << text << "\nexpected '" << message << "' in: " << r.err;
  }
}

TEST_F(Cli, InitialJointCoordinates) {
  const fs::path set = path("a1_q.csv"), plain = path("a1_plain.csv");
  const Result r = run("simulate " + quote(kA1Urdf) + " --steps 1 --q FR_hip_joint=0.3 --qd FL_calf_joint=-1.5 " +
                       "--q trunk_joint=0,0,0.5,1,0,0,0 --output " + quote(set.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  const Result p = run("simulate " + quote(kA1Urdf) + " --steps 1 --output " + quote(plain.string()));
  ASSERT_EQ(p.status, 0) << p.err;
  const Csv a = read_csv(set), b = read_csv(plain);
  ASSERT_EQ(a.rows.size(), 2u);
  ASSERT_EQ(b.rows.size(), 2u);
  EXPECT_NEAR(a.at(0, "FR_hip_joint.q0"), 0.3, 1e-12);
  EXPECT_NEAR(b.at(0, "FR_hip_joint.q0"), 0.0, 1e-12);
  EXPECT_NEAR(a.at(0, "FL_calf_joint.v0"), -1.5, 1e-12);
  EXPECT_NEAR(a.at(0, "trunk_joint.q2"), 0.5, 1e-12);
  EXPECT_NEAR(a.at(0, "FR_thigh_joint.q0"), b.at(0, "FR_thigh_joint.q0"), 1e-12);
  // --option=value spelling
  const Result e = run("simulate " + quote(kA1Urdf) + " --steps=1 --q=FR_hip_joint=0.3 --json");
  EXPECT_EQ(e.status, 0) << e.err;
}

TEST_F(Cli, GravityToleranceAndModelOptions) {
  const Result r = run("simulate " + quote(kAnt) + " --steps 20 --json --gravity '0 0 0' --tol 1e-9 "
                       "--friction 0.8 --cone linear --fixed-base --ground on --limit-recovery-time inf");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_summary(r);
  // at rest without gravity; the ant's zero pose sits beyond its ankle limits, held there (not
  // pulled in: --limit-recovery-time inf), whose interior-point complementarity (γ·s ≤ 1e-8) leaves
  // impulses of that order: 5e-7 J measured
  EXPECT_NEAR(r.json.at("energy_max_drift").number, 0, 1e-6);
  EXPECT_EQ(r.json.at("tolerance").number, 1e-9);
  EXPECT_EQ(r.json.at("friction").number, 0.8);
  EXPECT_EQ(r.json.at("cone").text, "linear");
  EXPECT_EQ(r.json.at("fixed_base").text, "true");
}

// ---- the integrator and nonholonomic constraints ------------------------------------------------
TEST_F(Cli, InfoListsNonholonomicConstraintsAndIntegrator) {
  for (const std::string& file : {kSleighXml, kSleighUrdf}) {
    const Result r = run("info " + quote(file));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("integrator: energy-momentum\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nonholonomic constraints: 2\n"), std::string::npos) << r.out;
    // in the body frame: the runner's point and direction as the sleigh's body sees them
    EXPECT_NE(r.out.find("  blade  knife_edge  body sleigh  point 0.3 0.2 0, direction "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  suslov  angular_velocity  body top  axis 0 0 1\n"), std::string::npos) << r.out;
  }
  const Result d = run("info " + quote(kDiskXml));
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("integrator: variational\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("  roll  rolling_disk  body disk  radius 0.5, axis 0 1 0\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("  ball_roll  rolling_ball  body ball  radius 0.2\n"), std::string::npos) << d.out;
  const Result a1 = run("info " + quote(kA1Urdf));
  EXPECT_NE(a1.out.find("nonholonomic constraints: 0\n"), std::string::npos) << a1.out;

  const Result j = run("info " + quote(kSleighXml) + " --json");
  ASSERT_EQ(j.status, 0) << j.err;
  ASSERT_TRUE(j.has_json) << j.out;
  EXPECT_EQ(j.json.at("integrator").text, "energy-momentum");
  const std::string& nh = j.json.at("nonholonomic").text;  // (an array: kept raw)
  EXPECT_EQ(nh.rfind("[{\"name\":\"blade\",\"kind\":\"knife_edge\",\"body\":\"sleigh\",\"point\":[0.3,0.2,0],", 0), 0u) << nh;
  EXPECT_NE(nh.find("{\"name\":\"suslov\",\"kind\":\"angular_velocity\",\"body\":\"top\",\"axis\":[0,0,1]}]"),
            std::string::npos) << nh;
}

TEST_F(Cli, IntegratorOption) {
  // the file's integrator by default; --integrator overrides it; the summary names it
  const Result em = run("simulate " + quote(kSleighXml) + " --steps 5 --contacts off --json");
  ASSERT_EQ(em.status, 0) << em.err;
  expect_summary(em);
  EXPECT_EQ(em.json.at("integrator").text, "energy-momentum");
  const Result var = run("simulate " + quote(kSleighXml) + " --steps 5 --integrator variational --json");
  ASSERT_EQ(var.status, 0) << var.err;
  EXPECT_EQ(var.json.at("integrator").text, "variational");
  const Result a1 = run("simulate " + quote(kA1Urdf) + " --steps 5 --json --contacts off");
  ASSERT_EQ(a1.status, 0) << a1.err;
  EXPECT_EQ(a1.json.at("integrator").text, "variational");  // nothing declared
  const Result disk = run("simulate " + quote(kDiskXml) + " --steps 5 --integrator=energy-momentum --contacts off");
  ASSERT_EQ(disk.status, 0) << disk.err;
  EXPECT_NE(disk.out.find("  integrator: energy-momentum\n"), std::string::npos) << disk.out;
  const Result bench = run("bench " + quote(kSleighUrdf) + " --steps 5 --contacts off --json");
  ASSERT_EQ(bench.status, 0) << bench.err;
  EXPECT_EQ(bench.json.at("integrator").text, "energy-momentum");
  // --numerical-damping in [0, 0.5] (ModelOptions::numerical_damping)
  const Result damped = run("simulate " + quote(kSleighXml) + " --steps 5 --contacts off --numerical-damping 0.1 --json");
  ASSERT_EQ(damped.status, 0) << damped.err;
  for (const char* bad : {"0.7", "-0.1", "x"}) {
    const Result r = run("simulate " + quote(kSleighXml) + " --steps 5 --contacts off --numerical-damping " + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--numerical-damping"), std::string::npos) << r.err;
  }
  // --limit-recovery-time TAU|inf >= 0 (ModelOptions::limit_recovery_time)
  for (const char* bad : {"-1", "x", "nan"}) {
    const Result r = run("simulate " + quote(kAnt) + " --steps 1 --limit-recovery-time " + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--limit-recovery-time"), std::string::npos) << r.err;
  }
  // --integrator newmark with --newmark "BETA GAMMA" (ModelOptions::newmark_beta, newmark_gamma)
  const Result nm = run("simulate " + quote(kFourbar) + " --steps 5 --contacts off --integrator newmark --newmark \"0.3 0.6\" --json");
  ASSERT_EQ(nm.status, 0) << nm.err;
  EXPECT_EQ(nm.json.at("integrator").text, "newmark");
  for (const char* bad : {"\"0.6 0.5\"", "\"0.25 0.4\"", "\"0.25\"", "\"0.25 0.5 1\"", "x"}) {
    const Result r = run("simulate " + quote(kFourbar) + " --steps 5 --contacts off --integrator newmark --newmark " + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--newmark"), std::string::npos) << r.err;
  }
  const Result refused = run("simulate " + quote(kA1Urdf) + " --steps 5 --integrator newmark");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("the newmark integrator handles joints only, not contacts"), std::string::npos) << refused.err;
}

// ---- bench --------------------------------------------------------------------------------------
TEST_F(Cli, BenchJson) {
  const Result r = run("bench " + quote(kA1Urdf) + " --steps 20 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_summary(r);
  EXPECT_EQ(r.json.at("steps").number, 20);
  EXPECT_EQ(r.json.at("failed_steps").number, 0);
  EXPECT_GT(r.json.at("steps_per_s").number, 0);
  const Result h = run("bench " + quote(kFourbar) + " --steps 20 --q jointb1=0.2");
  ASSERT_EQ(h.status, 0) << h.err;
  EXPECT_NE(h.out.find("steps/s"), std::string::npos) << h.out;
}

// ---- failures -------------------------------------------------------------------------------
TEST_F(Cli, UnreachableToleranceExitsOne) {
  const fs::path csv = path("nc.csv");
  const Result r = run("simulate " + quote(kFourbar) + " --steps 3 --json --tol 1e-300 --q jointb1=0.3 --output " +
                       quote(csv.string()));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  expect_summary(r);
  EXPECT_EQ(r.json.at("failed_steps").number, 3);
  EXPECT_EQ(r.json.at("status").text, "not_converged");
  // every step's outcome: each was substepped and ended on the loop's compliant fallback, which
  // did not converge either (so none counts among the converged relaxed_steps)
  EXPECT_EQ(r.json.at("not_converged_steps").number, 3);
  EXPECT_EQ(r.json.at("substepped_steps").number, 3);
  EXPECT_EQ(r.json.at("relaxed_steps_all").number, 3);
  EXPECT_EQ(r.json.at("relaxed_steps").number, 0);
  EXPECT_EQ(r.json.at("first_not_ok_time").number, 0);
  EXPECT_EQ(r.json.at("iterations_total").number, 3 * r.json.at("iterations_mean").number);
  EXPECT_NE(r.err.find("did not converge"), std::string::npos) << r.err;
  const Csv c = read_csv(csv);  // the rows are still written, all finite
  EXPECT_EQ(c.rows.size(), 4u);
  EXPECT_TRUE(c.all_finite);
}

struct BadCase {
  std::string args;
  std::string message;  // expected in stderr
};

TEST_F(Cli, BadInputExitsTwo) {
  const std::string a1 = quote(kA1Urdf), sim = "simulate " + a1 + " ";
  const std::vector<BadCase> cases = {
      {"", "no command"},
      {"frobnicate " + a1, "unknown command 'frobnicate'"},
      {"--frobnicate", "unknown option '--frobnicate'"},
      {sim + "--bogus", "unknown option '--bogus'"},
      {sim + "--dt 0.1x", "'0.1x' is not a finite number"},
      {sim + "--dt 1e", "'1e' is not a finite number"},
      {sim + "--dt nan", "'nan' is not a finite number"},
      {sim + "--dt -1", "--dt must be positive"},
      {sim + "--dt", "--dt needs a value"},
      {sim + "--steps 0", "--steps must be positive"},
      {sim + "--steps 1.5", "'1.5' is not an integer"},
      {sim + "--every -2", "--every must be positive"},
      {sim + "--duration 0", "--duration must be positive"},
      {sim + "--steps 5 --duration 1", "exclude each other"},
      {sim + "--q nosuchjoint=1", "unknown joint 'nosuchjoint'"},
      {sim + "--q FR_hip_joint=1,2", "'FR_hip_joint' (revolute) takes 1 value, got 2"},
      {sim + "--qd trunk_joint=1,2", "'trunk_joint' (floating) takes 6 values"},
      {sim + "--q FR_hip_joint=", "expected JOINT=V"},
      {sim + "--q FR_hip_joint=0.1,x", "not a list of finite numbers"},
      {sim + "--ground maybe", "'maybe' is not one of auto, on, off"},
      {sim + "--cone round", "'round' is not one of nonlinear, linear, relaxed"},
      {sim + "--gravity '0 -9.81'", "--gravity"},
      {sim + "--friction -0.5", "--friction must be >= 0"},
      {sim + "--tol 0", "--tol must be positive"},
      {sim + "--keyframe home", "the model has no keyframes"},
      {sim + "--ctrl nosuch=1", "--ctrl: unknown actuator 'nosuch' (actuators: 'FR_hip_joint'"},
      {sim + "--ctrl FR_hip_joint", "expected ACTUATOR=U"},
      {sim + "--ctrl FR_hip_joint=1,2", "one command per actuator"},
      {sim + "--ctrl FR_hip_joint=nan", "not a list of finite numbers"},
      {sim + "--ctrl-file " + quote((fs::path(MAXSIM_BINARY_DIR) / "no_such_ctrl.csv").string()), "cannot open"},
      {sim + "--output " + quote((fs::path(MAXSIM_BINARY_DIR) / "no_such_dir" / "x.csv").string()), "cannot write"},
      {"simulate " + quote(kCassie) + " --keyframe nosuch", "unknown keyframe 'nosuch'"},
      {"simulate " + quote(repo("tests/data/models/no_such_robot.urdf")), "no_such_robot.urdf"},
      {"info " + quote(repo("tests/data/models/no_such_robot.xml")), "no_such_robot.xml"},
      {"simulate " + quote(repo("tests/data/broken/negative_mass.urdf")), "negative mass"},
      {"simulate " + quote(repo("tests/data/broken/malformed.xml")), "malformed XML"},
      {"info " + quote(repo("tests/data/broken/cycle.urdf")), "cycle"},
      {"bench " + a1 + " --steps 10 --output x.csv", "bench does not take the option --output"},
      {"bench " + a1, "--steps"},
      {"info " + a1 + " --steps 3", "info does not take the option --steps"},
      {"simulate", "missing MODEL"},
      {sim + a1, "unexpected argument"},
      {sim + "--integrator rk4", "--integrator: 'rk4' is not one of variational, energy-momentum"},
      {sim + "--integrator", "--integrator needs a value"},
      {"info " + a1 + " --integrator variational", "info does not take the option --integrator"},
      // the energy-momentum integrator takes equalities only: the message names what it meets and
      // the options that help
      // (the URDF sleigh stands on the ground; the MJCF one has no geom pair that can touch and runs)
      {"simulate " + quote(kSleighUrdf) + " --steps 2",
       "handles equality constraints only, not contacts (the world and body 'top' can touch); use the variational "
       "integrator, or switch them off (options: --integrator variational (the file asks for energy-momentum), or "
       "--contacts off to step without contacts)"},
      {"bench " + quote(kSleighUrdf) + " --steps 2", "not contacts"},
      {sim + "--integrator energy-momentum --contacts off",
       "not joint limits (joint 'FR_hip_joint'); use the variational integrator, or switch them off (options: "
       "--integrator variational)"},
      {sim + "--integrator energy-momentum", "not contacts (the world and body 'trunk' can touch), joint limits"},
  };
  for (const BadCase& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << "maxsim " << c.args << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos)
        << "maxsim " << c.args << "\nexpected '" << c.message << "' in stderr: " << r.err;
  }
}

TEST_F(Cli, EveryBrokenFileFailsCleanly) {
  for (const auto& entry : fs::directory_iterator(repo("tests/data/broken"))) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".urdf" && ext != ".xml") continue;
    const Result r = run("simulate " + quote(entry.path().string()) + " --steps 2");
    if (entry.path().filename() == "missing_visual_mesh.urdf") {  // a warning, not an error
      EXPECT_EQ(r.status, 0) << r.err;
      continue;
    }
    EXPECT_EQ(r.status, 2) << entry.path() << ": " << r.err;
    EXPECT_NE(r.err.find(entry.path().filename().string()), std::string::npos)
        << "the message names the file: " << r.err;
  }
}

// Hostile input (README "Limits and hostile input"): the loader's bounds, zero sizes, absurd masses
// and non-finite numbers end with exit status 2 and the loader's message; --limit raises a bound.
TEST_F(Cli, HostileInputExitsTwo) {
  auto hostile = [](const std::string& f) { return quote(repo("tests/data/hostile/" + f)); };
  const fs::path bomb = hostile::write_include_bomb(path("bomb"));
  const std::string a1 = quote(kA1Urdf);
  const std::vector<BadCase> cases = {
      {"info " + quote(bomb.string()), "bomb.xml:1: the <include> of 'b1.xml' makes the model more than 4000000 XML elements"},
      {"simulate " + quote(bomb.string()) + " --steps 1", "LoadLimits::elements; maxsim --limit elements=N"},
      {"simulate " + hostile("zero_box.urdf"), "zero_box.urdf:8: <box> size must be positive"},
      {"simulate " + hostile("zero_sphere.xml"), "zero_sphere.xml:6: geom of type sphere needs 1 positive size value"},
      {"simulate " + hostile("mass_1e300.urdf"), "mass_1e300.urdf:7: link 'arm': mass 1e+300 kg is outside the plausible range"},
      {"info " + hostile("mass_1e-300.xml"), "mass_1e-300.xml:6: body 'arm': mass 1e-300 kg"},
      {"info " + hostile("nan_origin.urdf"), "'nan 0 0' is not a list of (finite) numbers"},
      {"info " + hostile("nan_pos.xml"), "'0 nan 0.3' is not a list of (finite) numbers"},
      {"info " + a1 + " --limit bodies=5", "a1.urdf:187: more than 5 links (LoadLimits::bodies; maxsim --limit bodies=N)"},
      {"info " + a1 + " --limit file-bytes=1000", "bytes is larger than 1000 bytes"},
      {"info " + a1 + " --limit bodies", "--limit: expected NAME=VALUE"},
      {"info " + a1 + " --limit bodies=0", "--limit bodies must be a positive whole number"},
      {"info " + a1 + " --limit bodies=1.5", "--limit bodies must be a positive whole number"},
      {"info " + a1 + " --limit atoms=5", "--limit: unknown bound 'atoms'"},
      {"info " + a1 + " --limit mass=1", "--limit mass: expected LO,HI"},
      {"info " + a1 + " --limit mass=2,1", "expected 0 <= LO < HI"},
      {"simulate " + a1 + " --max-output-bytes 0", "--max-output-bytes must be a positive whole number"},
  };
  for (const BadCase& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << "maxsim " << c.args << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos)
        << "maxsim " << c.args << "\nexpected '" << c.message << "' in stderr: " << r.err;
  }
  // raised bounds load (1e6 is a whole number); a widened mass range lets an absurd mass load, and
  // the projection that then cannot start the run says why
  const fs::path small_bomb = hostile::write_include_bomb(path("small_bomb"), 3);  // 10^4 geoms
  EXPECT_EQ(run("info " + quote(small_bomb.string()) + " --limit elements=1e4").status, 2);
  EXPECT_EQ(run("info " + quote(small_bomb.string()) + " --limit elements=2e4 --json").status, 0);
  const Result light = run("simulate " + hostile("mass_1e-300.urdf") + " --limit mass=0,1 --limit inertia=0,1");
  EXPECT_EQ(light.status, 1) << light.err;
  for (const char* piece : {"no consistent initial state", "cannot be solved in double precision",
                            "The body masses span 1e-300 to 1 kg", "Check the masses, inertias and joints in"})
    EXPECT_NE(light.err.find(piece), std::string::npos) << piece << " in: " << light.err;
  // a loop that cannot close (Dojo's four-bar with a loop anchor 8 m off)
  std::string fourbar = read_file(kFourbar);
  const std::string anchor = "<link1 link=\"link2\" rpy=\"0 0 0\" xyz=\"0 0 -1.0\"/>";
  ASSERT_NE(fourbar.find(anchor), std::string::npos);
  fourbar.replace(fourbar.find(anchor), anchor.size(), "<link1 link=\"link2\" rpy=\"0 0 0\" xyz=\"0 0 -9.0\"/>");
  hostile::write_text(path("fourbar_far.urdf"), fourbar);
  const Result far = run("simulate " + quote(path("fourbar_far.urdf").string()) + " --steps 1");
  EXPECT_EQ(far.status, 1) << far.err;
  for (const char* piece : {"the initial pose cannot satisfy the joint constraints", "after 50 projection iterations joint '",
                            "is off by", "check the joint origins and loop anchors in"})
    EXPECT_NE(far.err.find(piece), std::string::npos) << piece << " in: " << far.err;
}

// --max-output-bytes: the run stops before the CSV would pass the limit; the CSV ends on a
// complete row and the summary is still written (status output_limit, exit status 2).
TEST_F(Cli, OutputLimitStopsTheRun) {
  const fs::path csv = path("limited.csv");
  const Result r = run("simulate " + quote(kA1Urdf) + " --fixed-base --steps 1000 --json --max-output-bytes 20000 --output " +
                       quote(csv.string()));
  EXPECT_EQ(r.status, 2) << r.err;
  expect_summary(r);
  EXPECT_EQ(r.json.at("status").text, "output_limit");
  EXPECT_NE(r.err.find("would grow beyond the output limit of 20000 bytes (--max-output-bytes)"), std::string::npos) << r.err;
  const std::string text = read_file(csv);
  EXPECT_LE(text.size(), 20000u);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const Csv c = read_csv(csv);
  EXPECT_TRUE(c.all_finite);
  ASSERT_GE(c.rows.size(), 2u);
  for (const auto& row : c.rows) EXPECT_EQ(row.size(), c.header.size());
  // the steps the summary counts are the rows after t = 0, and one more that was not recorded
  EXPECT_EQ(r.json.at("steps").number, static_cast<double>(c.rows.size()));
  // a limit the header alone exceeds is refused before the run
  const Result h = run("simulate " + quote(kA1Urdf) + " --steps 5 --max-output-bytes 100 --output " + quote(csv.string()));
  EXPECT_EQ(h.status, 2);
  EXPECT_NE(h.err.find("the CSV header alone is"), std::string::npos) << h.err;
  // a limit that is not reached changes nothing
  const Result ok = run("simulate " + quote(kA1Urdf) + " --fixed-base --steps 5 --json --max-output-bytes 1e6 --output " +
                        quote(csv.string()));
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(read_csv(csv).rows.size(), 6u);
}

TEST_F(Cli, HelpAndVersion) {
  const Result h = run("--help");
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.out.find("maxsim simulate MODEL"), std::string::npos);
  for (const char* option : {"--limit NAME=VALUE", "bodies=N", "mass=LO,HI", "--max-output-bytes N"})
    EXPECT_NE(h.out.find(option), std::string::npos) << option;
  const Result s = run("simulate --help");
  EXPECT_EQ(s.status, 0);
  const Result v = run("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.out.find("maxsim"), std::string::npos);
}

// A misspelled MJCF attribute: info, simulate and bench exit 2 naming file, line and the name
// it was meant to be; --lenient loads the file with a warning. info lists what the file uses
// that maxsim ignores and where the options came from.
TEST_F(Cli, LenientAndIgnoredNames) {
  const fs::path file = path("axsi.xml");
  {
    std::ofstream out(file);
    out << "<mujoco>\n<worldbody>\n<body name=\"b\" pos=\"0 0 1\">\n<joint name=\"j\" axsi=\"0 1 0\"/>\n"
           "<geom type=\"sphere\" size=\"0.1\" solref=\"0.02 1\"/>\n</body>\n</worldbody>\n</mujoco>\n";
  }
  for (const char* cmd : {"info ", "simulate ", "bench --steps 2 "}) {
    Result r = run(std::string(cmd) + quote(file.string()));
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_NE(r.err.find(file.string() + ":4: unknown attribute 'axsi' in <joint name='j'> (did you mean 'axis'?)"),
              std::string::npos) << r.err;
    r = run(std::string(cmd) + quote(file.string()) + " --lenient --steps 2");
    if (std::string(cmd) == "info ") r = run("info " + quote(file.string()) + " --lenient");
    EXPECT_EQ(r.status, 0) << cmd << r.err;
  }
  const Result info = run("info " + quote(file.string()) + " --lenient");
  EXPECT_NE(info.out.find("warning: " + file.string() + ":4: unknown attribute 'axsi'"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("ignored: <geom solref> (1)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("time step: 0.002 s (MuJoCo's default)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("timestep       0.002  [MuJoCo default]"), std::string::npos) << info.out;
  const Result json = run("info " + quote(file.string()) + " --lenient --json");
  ASSERT_EQ(json.status, 0);
  EXPECT_NE(json.out.find("\"ignored\":[\"\\u003cgeom solref\\u003e (1)\"]"), std::string::npos) << json.out;  // (JSON escapes <, >)
}

// An MJCF body's merged joints (docs/modeling.md): --q takes one MuJoCo joint by its own name, the
// merged joint lists its values in the file's joint order (rootx, rootz, rooty), and one value is
// what a row's name takes.
TEST_F(Cli, SimulateQByMergedRowName) {
  const fs::path csv = path("cheetah.csv");
  const std::string cheetah = quote(repo("tests/data/models/gym_mujoco/half_cheetah.xml"));
  const Result r = run("simulate " + cheetah + " --steps 1 --contacts off --output " + quote(csv.string()) +
                       " --q rooty=0.3 --q rootz=0.1 --q bthigh=-0.2");
  ASSERT_EQ(r.status, 0) << r.err;
  const Csv c = read_csv(csv);
  EXPECT_NEAR(c.at(0, "rootx+rootz+rooty.q0"), 0.0, 1e-12);
  EXPECT_NEAR(c.at(0, "rootx+rootz+rooty.q1"), 0.1, 1e-12);
  EXPECT_NEAR(c.at(0, "rootx+rootz+rooty.q2"), 0.3, 1e-12);
  EXPECT_NEAR(c.at(0, "bthigh.q0"), -0.2, 1e-12);
  const Result two = run("simulate " + cheetah + " --steps 1 --q rooty=0.3,0.2");
  EXPECT_EQ(two.status, 2);
  EXPECT_NE(two.err.find("rooty"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace maxsim

