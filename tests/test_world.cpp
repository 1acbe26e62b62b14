// The world of a description (README "World rules"): an MJCF file's world is exactly its geoms —
// planes are infinite half-spaces at their own pose, no implicit ground — while URDF stands on the
// ground half-space z >= 0; MuJoCo's collision filter (a body and its parent in the kinematic
// tree, never bodies joined only by an <equality>); and the <option><flag>s the loader honours.
// The physics runs go through the `maxsim` command (its ground rule included) or through the
// same library calls it makes (load_model, enable_contacts with the model's ground rule).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/suite_directory.hpp"
#include "controllers/actuator.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

namespace maxsim {
namespace {

namespace fs = std::filesystem;

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
std::string world_file(const std::string& name) { return repo("tests/data/world/" + name); }
std::string quote(const std::string& s) { return "'" + s + "'"; }

constexpr double kG = 9.81;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

class World : public SuiteDirectory<World> {
 public:
  static constexpr const char* kDirectory = "world";

 protected:
  // One `maxsim simulate` run with --json and --output: its exit status, the summary's raw
  // values and the trajectory.
  struct Run {
    int status = -1;
    std::string out, err, json;
    std::vector<std::string> header;
    std::vector<std::vector<double>> rows;
    // the raw token of a summary key ("" when absent)
    std::string value(const std::string& key) const {
      const std::string k = "\"" + key + "\":";
      const size_t at = json.find(k);
      if (at == std::string::npos) return "";
      const size_t start = at + k.size();
      return json.substr(start, json.find_first_of(",}", start) - start);
    }
    double number(const std::string& key) const { return std::stod(value(key)); }
    double at(size_t row, const std::string& column) const {
      for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == column) return rows.at(row).at(i);
      ADD_FAILURE() << "no column " << column;
      return NAN;
    }
  };
  static Run simulate(const std::string& model, const std::string& args) {
    static int counter = 0;
    const std::string tag = std::to_string(counter++);
    const fs::path out = dir_ / ("out" + tag), err = dir_ / ("err" + tag), csv = dir_ / ("traj" + tag + ".csv");
    const std::string cmd = "timeout 300 " + quote(std::string(MAXSIM_BINARY_DIR) + "/maxsim") + " simulate " +
                            quote(model) + " " + args + " --json --output " + quote(csv.string()) + " >" +
                            quote(out.string()) + " 2>" + quote(err.string());
    Run r;
    const int rc = std::system(cmd.c_str());
    if (rc != -1 && WIFEXITED(rc)) r.status = WEXITSTATUS(rc);
    r.out = read_text(out);
    r.err = read_text(err);
    const size_t last = r.out.find_last_of('{');
    if (last != std::string::npos) r.json = r.out.substr(last);
    std::vector<std::string> lines = split(read_text(csv), '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    if (lines.empty()) return r;
    r.header = split(lines[0], ',');
    for (size_t i = 1; i < lines.size(); ++i) {
      std::vector<double> row;
      for (const std::string& f : split(lines[i], ',')) row.push_back(std::stod(f));
      r.rows.push_back(row);
    }
    return r;
  }

};

// A model loaded and made ready to step as `maxsim simulate` does: the file's time step, the
// ground only where the description asks for it (Model::implicit_ground), contacts as the model
// allows them.
struct Loaded {
  Model model;
  LoadReport report;
  std::unique_ptr<Data> data;
  explicit Loaded(const std::string& path) {
    model = load_model(path, {}, &report);
    data = std::make_unique<Data>(model);
    ContactOptions& co = model.opt.contact;
    co.ground = model.implicit_ground;
    enable_contacts(model, *data);
  }
  // Steps for `seconds`; every step must converge.
  void run(double seconds) {
    const int n = static_cast<int>(std::lround(seconds / model.opt.timestep));
    for (int k = 0; k < n; ++k) {
      const StepReport r = step(model, *data);
      ASSERT_EQ(r.status, StepStatus::Ok) << "step " << k;
    }
  }
  double q(const std::string& joint) const {
    const int j = model.joint_index(joint);
    EXPECT_GE(j, 0) << joint;
    std::vector<double> pos(model.joints[j].nq()), vel(model.joints[j].dof());
    joint_coordinates(model, *data, j, pos.data(), vel.data());
    return pos[0];
  }
  double qd(const std::string& joint) const {
    const int j = model.joint_index(joint);
    std::vector<double> pos(model.joints[j].nq()), vel(model.joints[j].dof());
    joint_coordinates(model, *data, j, pos.data(), vel.data());
    return vel[0];
  }
};

// ---- the world is the file's geoms ----------------------------------------------------------

// A 0.2 m cube (μ 0.5) released on a plane tilted 30° through the origin, 0.5 m uphill: it must
// slide at a = g (sin θ − μ cos θ) = 0.657 m/s² for the whole 2 s (1.31 m), crossing z = 0 — where
// the old implicit ground stopped it after 0.54 m — and stay on the plane. The discrete slide
// after N steps is a Δt² N(N+1)/2, 1/N = 0.1 % above ½ a t² at Δt = 2 ms: 1 % is a real bound.
TEST_F(World, BoxSlidesDownA30DegreePlaneAtCoulombsRate) {
  const Run r = simulate(world_file("slope30_box.xml"), "--duration 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.value("ground"), "false");  // MJCF: no implicit ground
  EXPECT_EQ(r.value("failed_steps"), "0");
  EXPECT_LT(r.number("max_penetration"), 1e-4);
  const double th = M_PI / 6, mu = 0.5, a = kG * (std::sin(th) - mu * std::cos(th));
  const Vec3 downhill(std::cos(th), 0, -std::sin(th)), normal(std::sin(th), 0, std::cos(th));
  auto centre = [&](size_t row) { return Vec3(r.at(row, "box.x"), r.at(row, "box.y"), r.at(row, "box.z")); };
  ASSERT_GT(r.rows.size(), 100u);
  for (size_t k = 0; k < r.rows.size(); ++k)  // on the plane all the way (half height 0.1)
    ASSERT_NEAR(normal.dot(centre(k)), 0.1, 1e-4) << "t = " << r.at(k, "t");
  const size_t last = r.rows.size() - 1;
  const double t = r.at(last, "t");
  ASSERT_NEAR(t, 2.0, 1e-9);
  const double slid = downhill.dot(centre(last) - centre(0));
  EXPECT_NEAR(slid / (0.5 * a * t * t), 1.0, 0.01) << "slid " << slid << " m";
  const Vec3 v(r.at(last, "box.vx"), r.at(last, "box.vy"), r.at(last, "box.vz"));
  EXPECT_NEAR(v.dot(downhill) / (a * t), 1.0, 0.01);
  EXPECT_LT(centre(last).z(), -0.3);  // well below where a floor at z = 0 would have held it

  // --ground on still adds the half-space z >= 0 for whoever asks: the box runs into it
  const Run g = simulate(world_file("slope30_box.xml"), "--duration 2 --ground on");
  EXPECT_EQ(g.value("ground"), "true");
  ASSERT_FALSE(g.rows.empty()) << g.err;
  EXPECT_LT(downhill.dot(Vec3(g.at(g.rows.size() - 1, "box.x"), 0, g.at(g.rows.size() - 1, "box.z")) -
                         Vec3(g.at(0, "box.x"), 0, g.at(0, "box.z"))),
            0.8);
}

// A ball of radius 0.1 dropped from z = −0.7 onto a floor at z = −1 rests with its centre at
// −0.9 (the contacts hold it to ~1e-9 m; 1 mm leaves room for nothing but a wrong world).
TEST_F(World, BallRestsOnAFloorBelowTheOrigin) {
  const Run r = simulate(world_file("ball_low_plane.xml"), "--duration 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.value("ground"), "false");
  const size_t last = r.rows.size() - 1;
  EXPECT_NEAR(r.at(last, "ball.z"), -0.9, 1e-3);
  EXPECT_LT(std::abs(r.at(last, "ball.vz")), 1e-3);  // at rest
  // the penetration diagnostic measures against that floor: the ball never sinks into it
  EXPECT_LT(r.number("max_penetration"), 1e-4);
}

// A cube (μ 0.5) on a 20° plane: tan 20° = 0.36 < μ, static friction holds it; the exact cone
// leaves no creep beyond the solver's tolerance (the contact suite's bound, 1e-4 m in 2 s).
TEST_F(World, FrictionHoldsABoxOnA20DegreePlane) {
  const Run r = simulate(world_file("slope20_box.xml"), "--duration 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t last = r.rows.size() - 1;
  const Vec3 moved(r.at(last, "box.x") - r.at(0, "box.x"), r.at(last, "box.y") - r.at(0, "box.y"),
                   r.at(last, "box.z") - r.at(0, "box.z"));
  EXPECT_LT(moved.norm(), 1e-4);
}

// The --ground auto rule: on for URDF (no world of its own), off for MJCF (whatever planes it
// declares); what `maxsim info` says and what the loaders set.
TEST_F(World, GroundAutoIsOnForUrdfAndOffForMjcf) {
  EXPECT_TRUE(load_model(repo("robots/a1/urdf/a1.urdf")).implicit_ground);
  EXPECT_FALSE(load_model(repo("robots/a1/xml/a1.xml")).implicit_ground);
  EXPECT_FALSE(load_model(world_file("ball_low_plane.xml")).implicit_ground);
  const Run urdf = simulate(repo("tests/data/models/dojo_fourbar/fourbar.urdf"), "--steps 2");
  EXPECT_EQ(urdf.value("ground"), "true") << urdf.out << urdf.err;
}

// The penetration diagnostic sees the same world as the contacts: a ball placed 5 cm into the
// floor at z = −1 reads 0.05 with the ground off, and the ground at z = 0 (when asked for) adds
// its own depth.
TEST_F(World, PenetrationIsMeasuredAgainstTheFilesWorld) {
  Model m = load_model(world_file("ball_low_plane.xml"));
  Data d(m);
  d.x[0] = Vec3(0, 0, -0.95);
  EXPECT_NEAR(max_world_penetration(m, d, false), 0.05, 1e-12);
  EXPECT_NEAR(max_world_penetration(m, d, true), 1.05, 1e-12);  // below z = 0 by 1.05
  d.x[0] = Vec3(0, 0, -0.5);
  EXPECT_EQ(max_world_penetration(m, d, false), 0.0);
  // asked for, the ground is a floor at z = 0 the ball starts 0.8 m below: a single free body is
  // lifted onto it (as a URDF base is), and the penetration is then measured against both
  const Run r = simulate(world_file("ball_low_plane.xml"), "--steps 1 --ground on");
  EXPECT_NEAR(r.number("lifted_m"), 0.8, 1e-9);
  EXPECT_LT(r.number("max_penetration"), 1e-9);
  const Run no = simulate(world_file("ball_low_plane.xml"), "--steps 1 --ground on --contacts off");
  // nothing lifts it without contacts: 0.8 m, and the g Δt² = 4e-5 m it falls in its one step
  EXPECT_NEAR(no.number("max_penetration"), 0.8 + kG * 0.002 * 0.002, 1e-9);
}

// ---- collision filtering as MuJoCo does it --------------------------------------------------

using NamePair = std::pair<std::string, std::string>;

// Body pairs (by name; "world" for world geoms) whose geoms overlap at the file's pose, searched
// with a zero margin as the collide stage does.
std::set<NamePair> touching_pairs(const Model& m) {
  CollisionOptions co;
  co.ground = false;
  co.margin = 0;
  CollisionWorld world(m, co);
  Data d(m);
  std::vector<ContactCandidate> out;
  world.find_candidates(d.x, d.q, &out);
  std::set<NamePair> pairs;
  auto name = [&](int b) { return b == kWorld ? std::string("world") : m.bodies[b].name; };
  for (const ContactCandidate& c : out) {
    if (!(c.distance < 0)) continue;
    std::string a = name(c.body_a), b = name(c.body_b);
    if (b < a) std::swap(a, b);
    pairs.emplace(a, b);
  }
  return pairs;
}

// tests/data/world/filter_cases.xml gathers the cases of MuJoCo's filter (a static body's hinged
// child, a body without geoms between two hinged bodies, a body with three joints, a welded child,
// an equality loop, an equality weld, an <exclude>, contype/conaffinity). The expected sets are
// what MuJoCo 2.2.2's mj_collision reports for the same file (see the file's comment).
TEST_F(World, FilterMatchesMuJoCosContactPairs) {
  const std::string path = world_file("filter_cases.xml");
  const Model m = load_model(path);
  EXPECT_EQ(m.collision_filter, CollisionFilter::ParentChild);
  const std::set<NamePair> mujoco{{"A", "C"},   {"F1", "F2"}, {"L1", "L2"},
                                  {"T1", "T2"}, {"T2", "T3"}, {"flag", "world"}};
  EXPECT_EQ(touching_pairs(m), mujoco);

  // filterparent off: a body then touches its parent (C-D through D's chain of virtual bodies,
  // D-E through the welded D2)
  std::string text = read_text(path);
  text.replace(text.find("<worldbody>"), 0, "<option><flag filterparent=\"disable\"/></option>\n  ");
  const Model nofp = load_model(write("filter_cases_nofp.xml", text));
  std::set<NamePair> more = mujoco;
  more.insert({"C", "D"});
  more.insert({"D", "E"});
  EXPECT_EQ(touching_pairs(nofp), more);

  // The URDF convention on the same bodies: any joint, the loop's and the weld's included,
  // keeps its bodies apart, and so does a chain through bodies without geoms.
  Model urdf_rule = m;
  urdf_rule.collision_filter = CollisionFilter::AnyJoint;
  const std::set<NamePair> pybullet = touching_pairs(urdf_rule);
  for (const NamePair& p : {NamePair{"A", "C"}, NamePair{"F1", "F2"}, NamePair{"L1", "L2"}})
    EXPECT_EQ(pybullet.count(p), 0u) << p.first << "-" << p.second;
}

// A parent and its child with overlapping geoms: no contact by default, a contact with
// filterparent disabled, which turns the child about its hinge out of the parent's ball; two
// bodies hung from the world and joined by an <equality connect> collide (MuJoCo does not filter
// loop closures).
TEST_F(World, ParentChildFilterAndEqualityLoops) {
  // the parent's ball sits on its own hinge axis; the child's ball, 0.2 m from the child's hinge,
  // starts 0.12 m clear of it and swings (3 rad/s, no gravity; the parent's inertia is large, so
  // the reaction barely turns it) through the place where the two overlap: from hinge2 =
  // 0.7864 rad on, if the pair collides
  const std::string body = R"(
  <option timestep="0.005" gravity="0 0 0"/>
  <worldbody>
    <body name="parent" pos="0 0 1">
      <joint name="hinge1" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 0" mass="1000" diaginertia="1000 1000 1000"/>
      <geom type="sphere" size="0.1" mass="0"/>
      <body name="child" pos="0.2 0 0">
        <joint name="hinge2" type="hinge" axis="0 1 0"/>
        <geom type="sphere" size="0.1" pos="0.05 0 -0.2"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";
  auto swing = [](Loaded& l) {
    set_joint_coordinates(l.model, *l.data, l.model.joint_index("hinge2"), {0.0}, {3.0});
    double reached = 0;
    bool touched = false;
    for (int k = 0; k < 200; ++k) {
      l.run(0.005);
      reached = std::max(reached, l.q("hinge2"));
      touched |= !l.data->contacts.empty();
    }
    return std::make_pair(reached, touched);
  };
  Loaded on(write("pc_default.xml", "<mujoco>" + body));
  CollisionWorld cw(on.model, CollisionOptions{});
  EXPECT_FALSE(cw.bodies_may_collide(0, 1));
  const auto [free_swing, touched_on] = swing(on);
  EXPECT_FALSE(touched_on);
  EXPECT_NEAR(free_swing, 3.0, 0.01);  // nothing acts but the parent's small recoil

  Loaded off(write("pc_nofp.xml", "<mujoco><option><flag filterparent=\"disable\"/></option>" + body));
  CollisionWorld cw2(off.model, CollisionOptions{});
  EXPECT_TRUE(cw2.bodies_may_collide(0, 1));
  const auto [stopped, touched_off] = swing(off);
  EXPECT_TRUE(touched_off);
  EXPECT_LT(stopped, 0.7864 + 1e-4);  // held where the balls touch (the parent recoils a little)

  Loaded loop(write("loop.xml", R"(<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="L1" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/></body>
    <body name="L2" pos="0.3 0 1"><joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="-0.05 0 0 0.3 0 0" size="0.05"/></body>
  </worldbody>
  <equality><connect body1="L1" body2="L2" anchor="0.3 0 0"/></equality>
</mujoco>)"));
  ASSERT_EQ(loop.model.joints.size(), 3u);  // two hinges and the connect
  EXPECT_EQ(touching_pairs(loop.model), (std::set<NamePair>{{"L1", "L2"}}));
}

// ---- <option><flag> -------------------------------------------------------------------------

// contact="disable": the file's overlapping geoms stay inside each other, no contact is ever
// searched (the summary says contacts false), and the boxes fall through the floor freely.
TEST_F(World, ContactFlagDisablesContacts) {
  const std::string path = write("nocontact.xml", R"(<mujoco>
  <option timestep="0.01"><flag contact="disable"/></option>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 0.05"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body name="b" pos="0.1 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>)");
  Loaded l(path);
  EXPECT_FALSE(l.model.contacts);
  ASSERT_TRUE(l.data->contact_search.has_value());  // the options are kept, the search is off
  EXPECT_FALSE(l.data->contact_search->active());
  for (int k = 0; k < 100; ++k) {
    ASSERT_EQ(step(l.model, *l.data).status, StepStatus::Ok);
    ASSERT_TRUE(l.data->contacts.empty());
  }
  // free fall: the variational step gives z0 − g Δt² N(N+1)/2 exactly
  EXPECT_NEAR(l.data->x[0].z(), 0.05 - kG * 0.01 * 0.01 * 100 * 101 / 2, 1e-9);
  const Run r = simulate(path, "--steps 10");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.value("contacts"), "false");
  EXPECT_GT(r.number("max_penetration"), 0.1);  // honestly reported: a is half inside the floor
}

// limit="disable": a rod falling from horizontal about a hinge limited to ±0.3 rad stops at the
// limit with it and swings past 1 rad without.
TEST_F(World, LimitFlagLetsAJointPassItsRange) {
  const std::string body = R"(
  <compiler angle="radian"/>
  <option timestep="0.005"/>
  <worldbody>
    <body name="rod" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" range="-0.3 0.3"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02"/>
    </body>
  </worldbody>
</mujoco>)";
  Loaded limited(write("limited.xml", "<mujoco>" + body));
  Loaded free(write("unlimited.xml", "<mujoco><option><flag limit=\"disable\"/></option>" + body));
  EXPECT_TRUE(limited.model.joints[0].has_limits);
  EXPECT_FALSE(free.model.joints[0].has_limits);
  double max_limited = 0, max_free = 0;
  for (int k = 0; k < 200; ++k) {
    limited.run(0.005);
    free.run(0.005);
    max_limited = std::max(max_limited, std::abs(limited.q("hinge")));
    max_free = std::max(max_free, std::abs(free.q("hinge")));
  }
  EXPECT_LT(max_limited, 0.3 + 1e-4);
  EXPECT_GT(max_free, 1.0);
}

// gravity="disable": a free ball stays where it is (the file's gravity is kept by MuJoCo but not
// applied; the loader zeroes Model::gravity).
TEST_F(World, GravityFlag) {
  Loaded l(write("nogravity.xml", R"(<mujoco>
  <option gravity="0 0 -5"><flag gravity="disable"/></option>
  <worldbody><body name="ball" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/></body></worldbody>
</mujoco>)"));
  EXPECT_EQ(l.model.opt.gravity, Vec3::Zero());
  l.run(1.0);
  EXPECT_NEAR(l.data->x[0].z(), 1.0, 1e-12);
}

// passive="disable": no joint springs and dampers. A 1 kg ball on a vertical slide with damping
// 10 N·s/m falls at its terminal speed m g / c = 0.981 m/s after 2 s (τ = 0.1 s), and at g t
// without; a ball on a horizontal slide with stiffness 100 N/m and springref 0.1 m moves towards
// 0.1 with it and stays at 0 without.
TEST_F(World, PassiveFlagRemovesSpringsAndDampers) {
  const std::string body = R"(
  <option timestep="0.002"/>
  <worldbody>
    <body name="falling" pos="0 0 0">
      <joint name="drop" type="slide" axis="0 0 1" damping="10"/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
    <body name="sprung" pos="1 0 0">
      <joint name="spring" type="slide" axis="1 0 0" stiffness="100" springref="0.1"/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
  Loaded on(write("passive.xml", "<mujoco>" + body));
  Loaded off(write("nopassive.xml", "<mujoco><option><flag passive=\"disable\"/></option>" + body));
  on.run(2.0);
  off.run(2.0);
  EXPECT_NEAR(on.qd("drop"), -kG * 1 / 10, 1e-3);
  EXPECT_NEAR(off.qd("drop"), -kG * 2.0, 1e-9);
  EXPECT_GT(std::abs(on.q("spring")), 1e-2);  // oscillates between 0 and 0.2
  EXPECT_NEAR(off.q("spring"), 0.0, 1e-12);
}

// frictionloss="disable": a horizontal 1 kg rod (CoM 0.25 m out, gravity torque 2.45 N·m) held by
// 5 N·m of joint friction stays put with it and falls without.
TEST_F(World, FrictionlossFlag) {
  const std::string body = R"(
  <option timestep="0.005"/>
  <worldbody>
    <body name="rod" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" frictionloss="5"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02"/>
      <inertial pos="0.25 0 0" mass="1" diaginertia="0.001 0.02 0.02"/>
    </body>
  </worldbody>
</mujoco>)";
  Loaded on(write("friction.xml", "<mujoco>" + body));
  Loaded off(write("nofriction.xml", "<mujoco><option><flag frictionloss=\"disable\"/></option>" + body));
  EXPECT_EQ(off.model.joints[0].friction[5], 0.0);
  // the load says where the friction acts
  bool said = false;
  for (const std::string& w : on.report.warnings)
    said = said || w.find("frictionloss of 1 joint(s): dry joint friction, enforced by the variational "
                          "integrator") != std::string::npos;
  EXPECT_TRUE(said);
  on.run(1.0);
  off.run(1.0);
  EXPECT_LT(std::abs(on.q("hinge")), 1e-6);
  EXPECT_GT(std::abs(off.q("hinge")), 0.5);
}

// equality="disable": a box welded to the world by an <equality weld> hangs in the air with it
// and falls freely without (the loop-closing joint is not built).
TEST_F(World, EqualityFlag) {
  const std::string body = R"(
  <option timestep="0.01"/>
  <worldbody><body name="box" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body></worldbody>
  <equality><weld body1="box"/></equality>
</mujoco>)";
  Loaded on(write("weld.xml", "<mujoco>" + body));
  Loaded off(write("noweld.xml", "<mujoco><option><flag equality=\"disable\"/></option>" + body));
  EXPECT_EQ(on.model.joints.size(), 2u);
  EXPECT_EQ(off.model.joints.size(), 1u);
  on.run(1.0);
  off.run(1.0);
  EXPECT_NEAR(on.data->x[0].z(), 1.0, 1e-6);
  EXPECT_NEAR(off.data->x[0].z(), 1.0 - kG * 0.01 * 0.01 * 100 * 101 / 2, 1e-9);
}

// constraint="disable" switches off contacts, limits, joint friction and equalities at once;
// <option collision="predefined"> without <pair>s switches off contacts (MuJoCo then tests the
// predefined pairs only).
TEST_F(World, ConstraintFlagAndPredefinedCollisions) {
  const std::string body = R"(
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 0.5"><joint name="j" type="hinge" range="-10 10" frictionloss="1"/>
      <geom type="sphere" size="0.1"/></body>
    <body name="b" pos="1 0 0.5"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody>
  <equality><connect body1="b" anchor="0 0 0"/></equality>
</mujoco>)";
  const Model all = load_model(write("all.xml", "<mujoco>" + body));
  EXPECT_TRUE(all.contacts);
  EXPECT_TRUE(all.joints[0].has_limits);
  EXPECT_EQ(all.joints.size(), 3u);
  const Model none = load_model(write("none.xml", "<mujoco><option><flag constraint=\"disable\"/></option>" + body));
  EXPECT_FALSE(none.contacts);
  EXPECT_FALSE(none.joints[0].has_limits);
  EXPECT_EQ(none.joints[0].friction[5], 0.0);
  EXPECT_EQ(none.joints.size(), 2u);
  const Model pairs = load_model(write("pairs.xml", "<mujoco><option collision=\"predefined\"/>" + body));
  EXPECT_FALSE(pairs.contacts);
  EXPECT_TRUE(pairs.joints[0].has_limits);
  EXPECT_TRUE(load_model(write("dyn.xml", "<mujoco><option collision=\"dynamic\"/>" + body)).contacts);
}

// Flags maxsim does not represent are named in the load warning; clampctrl="disable" drops the
// control ranges; actuation="disable" makes the actuators push with zero force; a value other
// than enable/disable is an error with the file's line.
TEST_F(World, OtherFlags) {
  const std::string body = R"(
  <worldbody><body name="a"><joint name="j" type="hinge"/><geom type="sphere" size="0.1"/></body></worldbody>
  <actuator><motor joint="j" ctrlrange="-1 1" gear="3"/></actuator>
</mujoco>)";
  LoadReport report;
  const Model m = load_model(write("other.xml", R"(<mujoco>
  <option><flag warmstart="disable" energy="enable" clampctrl="disable" contact="enable" actuation="disable"/></option>)" + body),
                             {}, &report);
  ASSERT_EQ(report.warnings.size(), 1u);
  const std::string& w = report.warnings[0];
  EXPECT_NE(w.find("<flag warmstart=\"disable\">"), std::string::npos) << w;
  EXPECT_NE(w.find("<flag energy=\"enable\">"), std::string::npos) << w;
  for (const char* honoured : {"clampctrl", "contact", "actuation"}) EXPECT_EQ(w.find(honoured), std::string::npos) << w;
  ASSERT_EQ(m.actuators.size(), 1u);
  EXPECT_FALSE(m.actuators[0].ctrl_limited);
  EXPECT_FALSE(m.actuation);
  const Model on = load_model(write("actuated.xml", "<mujoco>" + body));
  EXPECT_TRUE(on.actuators[0].ctrl_limited);
  for (const Model* model : {&m, &on}) {  // a unit command: 3 N·m with actuation, 0 without
    Data d(*model);
    const std::vector<Actuator> act = actuators_from_model(*model);
    ActuatorCommands c(act.size());
    c.ctrl[0] = 1.0;
    apply_actuators(*model, d, act, c);
    EXPECT_EQ(d.joint_force[0](5), model->actuation ? 3.0 : 0.0);
  }
  try {
    load_model(write("badflag.xml", "<mujoco>\n<option><flag contact=\"off\"/></option></mujoco>"));
    ADD_FAILURE() << "a bad flag value loaded";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("badflag.xml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("enable or disable"), std::string::npos) << e.what();
  }
}

// <freejoint> takes no joint defaults (MuJoCo: it is <joint type="free"> with stiffness, damping,
// frictionloss and armature 0, so that a class written for hinges does not damp a free body);
// <joint type="free"> does take them. A ball thrown at 1 m/s in zero gravity keeps its speed with
// the first and is slowed by the class's damper with the second. The corpus humanoid's root
// (<freejoint> under a class with damping .2, armature .01) is checked as MuJoCo 2.2.2 loads it.
TEST_F(World, FreejointTakesNoJointDefaults) {
  const std::string text = R"(<mujoco>
  <option gravity="0 0 0" timestep="0.01"/>
  <default><joint damping="0.5" armature="0.1" frictionloss="0.2"/></default>
  <worldbody>
    <body name="plain" pos="0 0 1"><freejoint name="plain_root"/><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="classed" pos="2 0 1"><joint name="classed_root" type="free"/><geom type="sphere" size="0.1" mass="1"/></body>
  </worldbody>
</mujoco>)";
  Loaded l(write("freejoint.xml", text));
  const Joint& plain = l.model.joints[l.model.joint_index("plain_root")];
  const Joint& classed = l.model.joints[l.model.joint_index("classed_root")];
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(plain.damping[r], 0.0);
    EXPECT_EQ(plain.armature[r], 0.0);
    EXPECT_EQ(plain.friction[r], 0.0);
    EXPECT_EQ(classed.damping[r], 0.5);
    EXPECT_EQ(classed.armature[r], 0.1);
  }
  l.data->v[0].x() = 1.0;
  l.data->v[1].x() = 1.0;
  l.run(1.0);
  EXPECT_NEAR(l.data->v[0].x(), 1.0, 1e-12);
  EXPECT_LT(l.data->v[1].x(), 0.9);

  const Model h = load_model(repo("tests/data/models/mujoco_models/humanoid/humanoid.xml"));
  const Joint& root = h.joints[h.joint_index("root")];
  const auto abdomen = *h.find_joint_row("abdomen_z");  // a row of the waist's merged joint
  EXPECT_EQ(root.damping[0], 0.0);
  EXPECT_EQ(root.armature[3], 0.0);
  EXPECT_EQ(h.joints[abdomen.first].armature[abdomen.second], 0.01);  // the class's hinge defaults still apply to hinges
}

}  // namespace
}  // namespace maxsim
