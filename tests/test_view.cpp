// HTML replays (io/replay.hpp): the page holds the model's bodies, geoms and meshes (each
// mesh once), every frame's time and poses in its binary blob; trajectories that do not fit the
// model are refused with a message naming the columns; `maxsim view` and `simulate --view` write
// pages and fail with exit status 2 on bad input or a missing viewer bundle. The viewer's
// JavaScript is replaced by a stub here (the browser test, tests/browser, runs the real one).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/maxsim/view_command.hpp"
#include "io/replay.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"

namespace maxsim {

using namespace io;
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The content of <script ... id="ID">...</script>.
std::string script_content(const std::string& html, const std::string& id) {
  const std::string open = "id=\"" + id + "\">";
  const size_t a = html.find(open);
  if (a == std::string::npos) return {};
  const size_t b = html.find("</script>", a);
  return html.substr(a + open.size(), b - a - open.size());
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t k = s.find(what); k != std::string::npos; k = s.find(what, k + 1)) ++n;
  return n;
}

// A number that follows "key": in the JSON text.
double json_number(const std::string& json, const std::string& key) {
  const size_t k = json.find("\"" + key + "\":");
  if (k == std::string::npos) return -1;
  return std::strtod(json.c_str() + k + key.size() + 3, nullptr);
}

std::vector<std::uint8_t> unpack_blob(const std::string& b64) {
  std::vector<std::uint8_t> bytes;
  unsigned v = 0;
  int bits = 0;
  for (char c : b64) {
    const char* k = std::strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", c);
    if (!k || c == '\0') continue;  // '=' padding
    v = (v << 6) | static_cast<unsigned>(k - "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<std::uint8_t>((v >> bits) & 255));
    }
  }
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);  // gzip
  std::vector<std::uint8_t> out(1 << 16);
  zs.next_in = bytes.data();
  zs.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (zs.total_out == out.size()) out.resize(out.size() * 2);
    zs.next_out = out.data() + zs.total_out;
    zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
    rc = inflate(&zs, Z_NO_FLUSH);
  }
  EXPECT_EQ(rc, Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

Geom tetrahedron(double s) {
  Geom g = make_geom(GeomType::Mesh, Vec3::Zero());
  g.vertices = {Vec3(0, 0, 0), Vec3(s, 0, 0), Vec3(0, s, 0), Vec3(0, 0, s)};
  g.faces = {Eigen::Vector3i(0, 2, 1), Eigen::Vector3i(0, 1, 3), Eigen::Vector3i(0, 3, 2), Eigen::Vector3i(1, 2, 3)};
  g.collision = false;
  return g;
}

// Two bodies that share a mesh, a few primitives, and a world plane.
Model small_model() {
  Model m;
  m.name = "two bodies";
  Body base;
  base.name = "base";
  base.geoms = {make_geom(GeomType::Box, Vec3(0.1, 0.2, 0.3)), tetrahedron(0.1)};
  m.add_body(base);
  Body arm;
  arm.name = "arm";
  arm.x0 = Vec3(0, 0, -0.5);
  arm.geoms = {make_geom(GeomType::Capsule, Vec3(0.05, 0.2, 0)), tetrahedron(0.1), tetrahedron(0.2)};
  m.add_body(arm);
  m.add_joint(make_joint(m, JointType::Revolute, kWorld, 0, Vec3::Zero(), Vec3::UnitX()));
  m.add_joint(make_joint(m, JointType::Revolute, 0, 1, Vec3(0, 0, -0.2), Vec3::UnitX()));
  m.world_geoms.push_back(make_geom(GeomType::Plane, Vec3::Zero()));
  return m;
}

TEST(ReplayHtml, HoldsBodiesGeomsMeshesOnceAndEveryFrame) {
  const Model m = small_model();
  Data d(m);
  ReplayRecorder rec(m);
  for (int k = 0; k < 5; ++k) {
    d.time = 0.1 * k;
    d.x[1] = Vec3(0.01 * k, 0, -0.5);
    rec.record(m, d);
  }
  ASSERT_EQ(rec.replay().frames(), 5u);
  const std::string js = "/* viewer stub */ var s = '</script><!-- x';";
  const std::string html = replay_html(m, rec.replay(), js);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "</script>"), 3u);  // data, blob, viewer: the stub's "</script>" is escaped
  EXPECT_NE(html.find("var s = '<\\/script><\\!-- x';"), std::string::npos);

  const std::string json = script_content(html, "maxsim-replay");
  EXPECT_NE(json.find("\"bodies\":[\"base\",\"arm\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"title\":\"two bodies\""), std::string::npos);
  EXPECT_EQ(json_number(json, "frames"), 5);
  EXPECT_EQ(count(json, "\"type\":\"mesh\""), 3u);   // three mesh geoms ...
  EXPECT_EQ(count(json, "\"vertex_count\""), 2u);    // ... of two distinct meshes
  EXPECT_EQ(count(json, "\"type\":\"box\""), 1u);
  EXPECT_EQ(count(json, "\"type\":\"capsule\""), 1u);
  EXPECT_NE(json.find("{\"body\":-1,\"type\":\"plane\""), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"energy.total\""), std::string::npos);

  // the blob: its size, the frame times and the poses as recorded
  const std::vector<std::uint8_t> blob = unpack_blob(script_content(html, "maxsim-blob"));
  ASSERT_EQ(static_cast<double>(blob.size()), json_number(json, "blob_bytes"));
  const size_t times = static_cast<size_t>(json_number(json, "times"));
  const size_t poses = static_cast<size_t>(json_number(json, "poses"));
  ASSERT_EQ(times % 8, 0u);
  ASSERT_LE(poses + 5 * 2 * 7 * sizeof(float), blob.size());
  for (int k = 0; k < 5; ++k) {
    double t;
    std::memcpy(&t, &blob[times + k * sizeof(double)], sizeof t);
    EXPECT_DOUBLE_EQ(t, 0.1 * k);
    float arm[7];
    std::memcpy(arm, &blob[poses + (k * 2 + 1) * 7 * sizeof(float)], sizeof arm);
    EXPECT_FLOAT_EQ(arm[0], static_cast<float>(0.01 * k));
    EXPECT_FLOAT_EQ(arm[2], -0.5f);
    EXPECT_FLOAT_EQ(arm[3], 1.0f);  // qw
  }
}

// A height field is drawn as its surface: one mesh of the field's grid, two triangles per cell,
// each vertex where the contact search puts it (HeightField); a field without data is not drawn.
TEST(ReplayHtml, DrawsAHeightFieldAsItsSurface) {
  Model m = small_model();
  HeightField f;
  f.name = "terrain";
  f.nrow = 3;
  f.ncol = 4;
  f.size = Eigen::Vector4d(2.0, 1.0, 0.5, 0.1);
  for (int k = 0; k < 12; ++k) f.data.push_back(0.05 * k);
  m.hfields.push_back(f);
  Geom g = make_geom(GeomType::HField, Vec3::Zero(), Vec3(0.3, 0, 0));
  g.hfield = 0;
  m.world_geoms.push_back(g);
  HeightField later = f;  // its data left to be set at run time
  later.name = "later";
  later.data.clear();
  m.hfields.push_back(later);
  g.hfield = 1;
  m.world_geoms.push_back(g);

  Data d(m);
  ReplayRecorder rec(m);
  rec.record(m, d);
  const std::string json = script_content(replay_html(m, rec.replay(), ""), "maxsim-replay");
  EXPECT_EQ(count(json, "\"type\":\"hfield\""), 0u) << json;
  EXPECT_EQ(count(json, "{\"body\":-1,\"type\":\"mesh\""), 1u) << json;  // the field with data only
  EXPECT_NE(json.find("\"pos\":[0.3,0,0]"), std::string::npos) << json;  // the geom's own frame
  const size_t at = json.find("{\"name\":\"terrain\"");
  ASSERT_NE(at, std::string::npos) << json;
  const std::string mesh = json.substr(at);
  EXPECT_EQ(json_number(mesh, "vertex_count"), 12);
  EXPECT_EQ(json_number(mesh, "index_count"), 2 * 6 * 3);  // 2 × 3 cells, two triangles each

  const std::vector<std::uint8_t> blob = unpack_blob(script_content(replay_html(m, rec.replay(), ""), "maxsim-blob"));
  const size_t vertices = static_cast<size_t>(json_number(mesh, "vertices"));
  ASSERT_LE(vertices + 12 * 3 * sizeof(float), blob.size());
  float v[36];
  std::memcpy(v, &blob[vertices], sizeof v);
  // vertex (r, c) = (1, 2): x = −2 + 4·2/3, y = −1 + 2·1/2 = 0, z = 0.5 · data[6] = 0.15
  EXPECT_FLOAT_EQ(v[3 * 6 + 0], static_cast<float>(-2.0 + 4.0 * 2 / 3));
  EXPECT_FLOAT_EQ(v[3 * 6 + 1], 0.0f);
  EXPECT_FLOAT_EQ(v[3 * 6 + 2], 0.15f);
  // the last vertex is the (+x, +y) corner
  EXPECT_FLOAT_EQ(v[3 * 11 + 0], 2.0f);
  EXPECT_FLOAT_EQ(v[3 * 11 + 1], 1.0f);
  EXPECT_FLOAT_EQ(v[3 * 11 + 2], static_cast<float>(0.5 * 0.55));
}

TEST(ReplayHtml, RefusesInconsistentReplays) {
  const Model m = small_model();
  Replay r;
  EXPECT_THROW(replay_html(m, r, ""), io::Error);  // no frames
  r.times = {0, 1};
  r.poses.assign(2 * 2 * 7 - 1, 0.f);
  EXPECT_THROW(replay_html(m, r, ""), io::Error);  // one pose value short
}

// Recorded contacts are the solver's: a 1 kg cube resting on the ground shows its four corners
// on z = 0 with upward forces that carry its weight.
TEST(ReplayRecorder, RecordsContactPointsAndForces) {
  Model m;
  Body box;
  box.name = "box";
  box.inertia = inertia_box(1.0, Vec3(0.25, 0.25, 0.25));
  box.x0 = Vec3(0, 0, 0.3);
  box.geoms.push_back(make_geom(GeomType::Box, Vec3(0.25, 0.25, 0.25)));
  m.add_body(box);
  Data d(m);
  enable_contacts(m, d);
  ReplayRecorder rec(m);
  for (int k = 0; k < 100; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    rec.record(m, d);
  }
  const Replay& r = rec.replay();
  ASSERT_EQ(r.contact_counts.back(), 4u);
  size_t first = 0;
  for (size_t i = 0; i + 1 < r.frames(); ++i) first += r.contact_counts[i];
  double fz = 0;
  for (size_t c = first; c < first + 4; ++c) {
    const float* p = &r.contacts[c * 6];
    EXPECT_NEAR(std::abs(p[0]), 0.25, 1e-3);
    EXPECT_NEAR(std::abs(p[1]), 0.25, 1e-3);
    EXPECT_NEAR(p[2], 0.0, 1e-3);
    EXPECT_GT(p[5], 0.f);  // pushes the box up
    fz += p[5];
  }
  EXPECT_NEAR(fz, 9.81, 1e-3);
}

// ---- trajectories from CSV tables -------------------------------------------------------------
CsvTable table(const std::vector<std::string>& cols, const std::vector<std::vector<double>>& rows) {
  CsvTable t;
  t.path = "traj.csv";
  t.columns = cols;
  t.values.assign(cols.size(), {});
  for (const auto& row : rows)
    for (size_t c = 0; c < cols.size(); ++c) t.values[c].push_back(row[c]);
  return t;
}

std::vector<std::string> pose_columns(const std::vector<std::string>& bodies) {
  std::vector<std::string> cols{"t"};
  for (const auto& b : bodies)
    for (const char* f : {"x", "y", "z", "qw", "qx", "qy", "qz"}) cols.push_back(b + "." + f);
  return cols;
}

std::string error_of(const Model& m, const CsvTable& t) {
  try {
    replay_from_csv(m, t);
  } catch (const io::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReplayFromCsv, ReadsPosesContactsAndScalars) {
  const Model m = small_model();
  std::vector<std::string> cols = pose_columns({"base", "arm"});
  for (int k = 0; k < 2; ++k)
    for (const char* f : {"x", "y", "z", "fx", "fy", "fz"}) cols.push_back("contact." + std::to_string(k) + "." + f);
  cols.push_back("energy.total");
  const double e = NAN;
  std::vector<std::vector<double>> rows = {
      {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, -0.5, 1, 0, 0, 0, /*c0*/ 1, 2, 3, 0, 0, 9, /*c1*/ e, e, e, e, e, e, 5},
      {0.5, 0, 0, 0, 1, 0, 0, 0, 0.1, 0, -0.5, 1, 0, 0, 0, e, e, e, e, e, e, e, e, e, e, e, e, 4},
      {1.0, 0, 0, 0, 1, 0, 0, 0, 0.2, 0, -0.5, 1, 0, 0, 0, 1, 2, 3, 0, 0, 9, 4, 5, 6, 0, 1, 0, 3}};
  const Replay r = replay_from_csv(m, table(cols, rows));
  ASSERT_EQ(r.frames(), 3u);
  EXPECT_EQ(r.poses.size(), 3u * 2 * 7);
  EXPECT_FLOAT_EQ(r.poses[(2 * 2 + 1) * 7 + 0], 0.2f);  // arm.x at t = 1
  EXPECT_EQ(r.contact_counts, (std::vector<std::uint32_t>{1, 0, 2}));
  ASSERT_EQ(r.contacts.size(), 3u * 6);
  EXPECT_FLOAT_EQ(r.contacts[5], 9.f);
  EXPECT_FLOAT_EQ(r.contacts[12], 4.f);
  ASSERT_EQ(r.scalars.size(), 1u);
  EXPECT_EQ(r.scalars[0].first, "energy.total");
  EXPECT_EQ(r.scalars[0].second[2], 3);
  const std::string html = replay_html(m, r, "");
  EXPECT_NE(html.find("\"force_scale\":"), std::string::npos);
}

TEST(ReplayFromCsv, RefusesTrajectoriesOfOtherModels) {
  const Model m = small_model();
  const std::vector<double> row(15, 0.0);
  // a body of the model has no columns
  std::string err = error_of(m, table(pose_columns({"base"}), {std::vector<double>(8, 0.0)}));
  EXPECT_NE(err.find("does not fit the model"), std::string::npos) << err;
  EXPECT_NE(err.find("no column 'arm.x'"), std::string::npos) << err;
  EXPECT_NE(err.find("the model's bodies: 'base', 'arm'"), std::string::npos) << err;
  // one pose column missing
  std::vector<std::string> cols = pose_columns({"base", "arm"});
  cols.back() = "arm.q_z";
  err = error_of(m, table(cols, {row}));
  EXPECT_NE(err.find("'arm.qz'"), std::string::npos) << err;
  // a body the model does not have
  err = error_of(m, table(pose_columns({"base", "arm", "leg"}), {std::vector<double>(22, 0.0)}));
  EXPECT_NE(err.find("bodies the model has not: 'leg'"), std::string::npos) << err;
  // no time, time going back, an empty pose field
  cols = pose_columns({"base", "arm"});
  cols[0] = "time";
  EXPECT_NE(error_of(m, table(cols, {row})).find("no column 't'"), std::string::npos);
  std::vector<double> later = row, earlier = row;
  later[0] = 1, earlier[0] = 0.5;
  EXPECT_NE(error_of(m, table(pose_columns({"base", "arm"}), {later, earlier})).find("decreases at data row 2"),
            std::string::npos);
  std::vector<double> hole = row;
  hole[9] = NAN;
  err = error_of(m, table(pose_columns({"base", "arm"}), {row, hole}));
  EXPECT_NE(err.find("data row 2: column 'arm.y' is empty"), std::string::npos) << err;
}

// ---- the commands ---------------------------------------------------------------------------------
class ViewCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("maxsim_test_view_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "stub.js") << "/* viewer stub */\n";
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }
  struct Result {
    int status = -1;
    std::string out, err;
  };
  // Runs `maxsim ARGS` with MAXSIM_VIEWER_JS = `bundle` (the stub by default).
  static Result run(const std::string& args, const std::string& bundle = "") {
    static int counter = 0;
    const std::string tag = std::to_string(counter++);
    const std::string cmd = "MAXSIM_VIEWER_JS='" + (bundle.empty() ? path("stub.js") : bundle) + "' timeout 300 '" +
                            std::string(MAXSIM_BINARY_DIR) + "/maxsim' " + args + " >'" + path("out" + tag) + "' 2>'" +
                            path("err" + tag) + "'";
    Result r;
    const int rc = std::system(cmd.c_str());
    if (rc != -1 && WIFEXITED(rc)) r.status = WEXITSTATUS(rc);
    r.out = read_file(path("out" + tag));
    r.err = read_file(path("err" + tag));
    return r;
  }
  static fs::path dir_;
};
fs::path ViewCli::dir_;

const std::string kA1 = std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/urdf/a1.urdf";
const std::string kFourbar = std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/dojo_fourbar/fourbar.urdf";

TEST_F(ViewCli, SimulateViewAndViewWriteTheSameFrames) {
  const Result sim = run("simulate '" + kA1 + "' --fixed-base --dt 0.01 --duration 0.2 --every 2 --q FR_thigh_joint=1 "
                         "--output '" + path("a1.csv") + "' --view '" + path("a1_sim.html") + "'");
  ASSERT_EQ(sim.status, 0) << sim.err;
  const Result view = run("view '" + kA1 + "' '" + path("a1.csv") + "' -o '" + path("a1.html") + "' --title 'A1 test'");
  ASSERT_EQ(view.status, 0) << view.err;
  EXPECT_NE(view.out.find("11 frames, 13 bodies"), std::string::npos) << view.out;
  const Model a1 = load_model(kA1);
  for (const std::string file : {"a1_sim.html", "a1.html"}) {
    const std::string html = read_file(path(file));
    const std::string json = script_content(html, "maxsim-replay");
    EXPECT_EQ(json_number(json, "frames"), 11) << file;  // t = 0, then every 2nd of 20 steps
    for (const Body& b : a1.bodies) EXPECT_NE(json.find("\"" + b.name + "\""), std::string::npos) << b.name;
    EXPECT_EQ(count(json, "\"vertex_count\""), 5u) << file;  // trunk, hip, thigh, thigh_mirror, calf
    EXPECT_NE(html.find("/* viewer stub */"), std::string::npos);
  }
  EXPECT_NE(read_file(path("a1.html")).find("<title>maxsim replay: A1 test</title>"), std::string::npos);
}

TEST_F(ViewCli, ErrorsExitTwo) {
  ASSERT_EQ(run("simulate '" + kA1 + "' --fixed-base --duration 0.05 --output '" + path("short.csv") + "'").status, 0);
  // the trajectory of another model
  Result r = run("view '" + kFourbar + "' '" + path("short.csv") + "' -o '" + path("x.html") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("does not fit the model"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("x.html")));
  // no viewer bundle: says how to get it, for view and for simulate --view (before simulating)
  r = run("view '" + kA1 + "' '" + path("short.csv") + "' -o '" + path("x.html") + "'", path("missing.js"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("make deps"), std::string::npos) << r.err;
  r = run("simulate '" + kA1 + "' --fixed-base --duration 0.05 --view '" + path("x.html") + "'", path("missing.js"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--view: the viewer's JavaScript"), std::string::npos) << r.err;
  // bad files and usage
  r = run("view '" + kA1 + "' '" + path("none.csv") + "' -o '" + path("x.html") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("none.csv"), std::string::npos) << r.err;
  r = run("view '" + path("none.urdf") + "' '" + path("short.csv") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(run("view '" + kA1 + "'").status, 2);
  EXPECT_EQ(run("view '" + kA1 + "' '" + path("short.csv") + "' --bogus").status, 2);
  r = run("view '" + kA1 + "' '" + path("short.csv") + "' -o '" + path("no/dir/x.html") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_EQ(run("simulate '" + kA1 + "' --view").status, 2);  // needs a value
  EXPECT_EQ(run("bench '" + kA1 + "' --steps 1 --view '" + path("x.html") + "'").status, 2);
  // the default output name: TRAJ with .html
  ASSERT_EQ(run("view '" + kA1 + "' '" + path("short.csv") + "'").status, 0);
  EXPECT_TRUE(fs::exists(path("short.html")));
}

}  // namespace
}  // namespace maxsim
