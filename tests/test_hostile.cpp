// Hostile input to the description loaders (README "Limits and hostile input"): every
// bound of LoadLimits refuses with a LimitError naming the file, line and bound, well before the
// input costs much time or memory; the include bomb is refused at once; zero sizes, absurd masses
// and non-finite numbers are refused alike in URDF and MJCF; the checks over the tree are linear
// and never recurse per link; every file of tests/data/hostile (the fuzzers' findings and the
// hand-made cases) ends as tests/data/hostile/expected.txt says; and a projection that cannot
// start a run says why.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mechanisms/builders.hpp"
#include "testing/hostile_models.hpp"
#include "tests/suite_directory.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/maxsim.hpp"
#include "tests/fuzz/fuzz_run.hpp"

namespace maxsim {
namespace {

namespace fs = std::filesystem;

fs::path repo(const std::string& rel) { return fs::path(MAXSIM_SOURCE_DIR) / rel; }

class Hostile : public SuiteDirectory<Hostile> {
 public:
  static constexpr const char* kDirectory = "hostile";

 protected:
  static std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    hostile::write_text(p, text);
    return p.string();
  }
};

LoadOptions with(const std::function<void(LoadLimits&)>& set) {
  LoadOptions o;
  set(o.limits);
  return o;
}

// Loads `path` and expects a LimitError (a LoadError) whose message contains every piece; returns it.
std::string expect_limit(const std::string& path, const LoadOptions& options,
                         const std::vector<std::string>& pieces, int line = -1) {
  SCOPED_TRACE(path);
  try {
    load_model(path, options);
    ADD_FAILURE() << "loaded";
  } catch (const LimitError& e) {
    const std::string what = e.what();
    for (const auto& p : pieces) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' in: " << what;
    if (line >= 0) {
      EXPECT_EQ(e.line(), line) << what;
    }
    EXPECT_EQ(what.rfind(e.file(), 0), 0u) << "starts with the file: " << what;
    return what;
  } catch (const LoadError& e) {
    ADD_FAILURE() << "a LoadError that is not a LimitError: " << e.what();
  }
  return "";
}

std::string expect_refusal(const std::string& path, const std::vector<std::string>& pieces) {
  SCOPED_TRACE(path);
  try {
    load_model(path);
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    for (const auto& p : pieces) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' in: " << what;
    return what;
  }
  return "";
}

// ---- the include bomb ------------------------------------------------------------------------

TEST_F(Hostile, IncludeBombIsRefusedAtOnce) {
  const fs::path bomb = hostile::write_include_bomb(dir_ / "bomb");  // 10^7 geoms from ~2 KB
  // refused by counting, before anything is expanded (0.00 s and 9 MB measured; the memory is
  // asserted below, in a process of its own)
  expect_limit(bomb.string(), {}, {"bomb.xml:1:", "the <include> of 'b1.xml'", "more than 4000000 XML elements",
                                   "1000000 in each copy", "LoadLimits::elements", "--limit elements=N"});
  // one level less (10^6 geoms): 1.1 million elements pass the element bound, a lower geom bound
  // stops it
  const fs::path smaller = hostile::write_include_bomb(dir_ / "bomb5", 5);
  expect_limit(smaller.string(), with([](LoadLimits& l) { l.geoms = 500000; }),
               {"more than 500000 geoms", "--limit geoms=N"});
}

TEST_F(Hostile, IncludeBombTakesLittleMemoryInItsOwnProcess) {
  const fs::path bomb = hostile::write_include_bomb(dir_ / "bomb_rss");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the child loads and says how it ended
    int code = 3;
    try {
      load_model(bomb.string());
      code = 1;
    } catch (const LimitError&) {
      code = 0;
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  int status = 0;
  struct rusage usage {};
  ASSERT_EQ(::wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: loaded, 2: another exception";
  // the child's peak resident memory, the parent's pages included (it is a fork): before the
  // bound the bomb took 23.5 GB
  EXPECT_LT(usage.ru_maxrss, 300 * 1024) << "kB";
}

TEST_F(Hostile, IncludesAreReadOnceAndNestAtMostTwentyDeep) {
  // one file included under several names is one file: its includes of itself are a cycle
  file("names/a.xml", "<mujoco><include file=\"./b.xml\"/></mujoco>\n");
  file("names/b.xml", "<mujoco><include file=\"../names/a.xml\"/></mujoco>\n");
  expect_refusal((dir_ / "names/a.xml").string(), {"recursive <include>"});
  // 21 levels of distinct files
  for (int k = 0; k <= 21; ++k)
    file("deep/d" + std::to_string(k) + ".xml",
         k < 21 ? "<mujoco><include file=\"d" + std::to_string(k + 1) + ".xml\"/></mujoco>\n"
                : "<mujoco><worldbody><geom type=\"plane\" size=\"1 1 1\"/></worldbody></mujoco>\n");
  expect_refusal((dir_ / "deep/d0.xml").string(), {"<include>s nested more than 20 deep"});
  EXPECT_NO_THROW(load_model((dir_ / "deep/d2.xml").string()));  // 19 levels
  // a file included many times, not nested: read once, counted every time
  std::string many = "<mujoco><worldbody>";
  for (int k = 0; k < 50; ++k) many += "<include file=\"geom.xml\"/>";
  file("many/main.xml", many + "</worldbody></mujoco>\n");
  file("many/geom.xml", "<mujoco><geom type=\"plane\" size=\"1 1 1\"/><geom type=\"plane\" size=\"1 1 1\"/></mujoco>\n");
  EXPECT_EQ(load_model((dir_ / "many/main.xml").string()).world_geoms.size(), 100u);
  expect_limit((dir_ / "many/main.xml").string(), with([](LoadLimits& l) { l.elements = 90; }),
               {"main.xml:1:", "more than 90 XML elements"});
}

TEST_F(Hostile, NestingIsBoundedBeforeItExhaustsTheStack) {
  // the reader recurses per level of bodies, frames and defaults; includes stack files of 100
  // levels each, so the nesting has a bound of its own (200: fine under AddressSanitizer too)
  const Model m = load_model(hostile::write_nested_bodies(dir_ / "nest200", 200).string());
  EXPECT_EQ(m.bodies.size(), 200u);
  expect_refusal(hostile::write_nested_bodies(dir_ / "nest201", 201).string(), {"nest2.xml:1:", "bodies nested more than 200 deep"});
  expect_refusal(hostile::write_nested_bodies(dir_ / "nest1800", 1800).string(), {"bodies nested more than 200 deep"});
  auto nested_defaults = [](const std::string& prefix, const std::string& inner) {
    std::string open, close;
    for (int k = 0; k < 95; ++k) {
      open += "<default class=\"" + prefix + std::to_string(k) + "\">";
      close += "</default>";
    }
    return "<mujoco>" + open + inner + close + "</mujoco>\n";
  };
  file("defaults/d0.xml", "<mujoco><default><include file=\"d1.xml\"/></default><worldbody/></mujoco>\n");
  file("defaults/d1.xml", nested_defaults("a", "<include file=\"d2.xml\"/>"));
  file("defaults/d2.xml", nested_defaults("b", "<include file=\"d3.xml\"/>"));
  file("defaults/d3.xml", nested_defaults("c", ""));
  expect_refusal((dir_ / "defaults/d0.xml").string(), {"<default>s nested more than 200 deep"});
}

// ---- each bound ------------------------------------------------------------------------------

TEST_F(Hostile, EveryBoundRefusesWithFileLineAndHowToRaiseIt) {
  const std::string chain = file("chain50.urdf", hostile::urdf_chain(50));
  // links: the 11th <link> (line 12) is one too many
  expect_limit(chain, with([](LoadLimits& l) { l.bodies = 10; }), {"more than 10 links", "--limit bodies=N"}, 12);
  expect_limit(chain, with([](LoadLimits& l) { l.geoms = 20; }), {"more than 20 visual and collision", "--limit geoms=N"}, 22);
  expect_limit(chain, with([](LoadLimits& l) { l.elements = 100; }), {"more than 100 XML elements", "--limit elements=N"});
  expect_limit(chain, with([](LoadLimits& l) { l.file_bytes = 1000; }),
               {"bytes is larger than 1000 bytes", "LoadLimits::file_bytes", "--limit file-bytes=N"});
  EXPECT_NO_THROW(load_model(chain, with([](LoadLimits& l) { l.bodies = 50; })));

  const std::string star = file("star.xml", hostile::mjcf_star(50));
  expect_limit(star, with([](LoadLimits& l) { l.bodies = 10; }), {"more than 10 bodies", "--limit bodies=N"}, 14);
  expect_limit(star, with([](LoadLimits& l) { l.geoms = 10; }), {"more than 10 geoms"}, 14);
  expect_limit(star, with([](LoadLimits& l) { l.elements = 20; }), {"more than 20 XML elements"});

  // mesh vertices: one file above the bound, and the sum over the geoms (each geom holds a copy)
  const std::string cube = repo("tests/data/loader/cube.stl").string();
  auto mesh_urdf = [&](const std::string& name, int geoms) {
    std::string visuals;
    for (int k = 0; k < geoms; ++k)
      visuals += "<visual><geometry><mesh filename=\"" + cube + "\"/></geometry></visual>";
    return file(name, "<robot name=\"m\"><link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" "
                      "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>" + visuals + "</link></robot>\n");
  };
  const std::string one = mesh_urdf("mesh1.urdf", 1), three = mesh_urdf("mesh3.urdf", 3);
  const size_t nv = load_model(one).bodies[0].geoms[0].vertices.size();
  ASSERT_GT(nv, 3u);
  // (a visual mesh that cannot be read is only a warning; one beyond a bound is refused)
  expect_limit(one, with([&](LoadLimits& l) { l.mesh_vertices = static_cast<long long>(nv) - 1; }),
               {"mesh has more than", "--limit mesh-vertices=N"});
  expect_limit(three, with([&](LoadLimits& l) { l.mesh_vertices = 2 * static_cast<long long>(nv) + 1; }),
               {"the meshes of the geometries so far have more than"}, 1);
  expect_limit(one, with([&](LoadLimits& l) { l.file_bytes = static_cast<long long>(fs::file_size(cube)) - 1; }),
               {"cube.stl", "larger than"});
  EXPECT_NO_THROW(load_model(three, with([&](LoadLimits& l) { l.mesh_vertices = 3 * static_cast<long long>(nv); })));

  // MJCF: the same bounds on its meshes
  const std::string mj = file("mesh.xml", "<mujoco><asset><mesh name=\"c\" file=\"" + cube +
                                              "\"/></asset><worldbody><body><freejoint/><geom type=\"mesh\" "
                                              "mesh=\"c\"/><geom type=\"mesh\" mesh=\"c\"/></body></worldbody></mujoco>\n");
  expect_limit(mj, with([&](LoadLimits& l) { l.mesh_vertices = static_cast<long long>(nv) + 1; }),
               {"the meshes of the geoms so far have more than"});
}

TEST_F(Hostile, ADescriptionIsRefusedBeforeItIsRead) {
  // a file larger than the bound is refused by its size, before it is read
  const std::string big = file("big.urdf", "<robot name=\"big\">" + std::string(4 << 20, ' ') + "</robot>\n");
  expect_limit(big, with([](LoadLimits& l) { l.file_bytes = 1 << 20; }), {"larger than 1048576 bytes"});
  // start tags are counted on the text: a file of empty elements is refused before tinyxml2 builds them
  std::string tags = "<mujoco><worldbody>";
  for (int k = 0; k < 20000; ++k) tags += "<a/>";
  const std::string flat = file("flat.xml", tags + "</worldbody></mujoco>\n");
  expect_limit(flat, with([](LoadLimits& l) { l.elements = 10000; }), {"more than 10000 XML elements (20002 start tags)"});
}

// ---- plausible physics -----------------------------------------------------------------------

TEST_F(Hostile, MassAndInertiaRangesCanBeWidened) {
  const std::string heavy = repo("tests/data/hostile/mass_1e300.urdf").string();
  expect_limit(heavy, {}, {"mass_1e300.urdf:7:", "link 'arm': mass 1e+300 kg", "[1e-12, 1e+09] kg",
                           "--limit mass=LO,HI"}, 7);
  // allowed, it loads (and then the inertia range applies)
  EXPECT_NO_THROW(load_model(heavy, with([](LoadLimits& l) {
    l.mass_max = 1e301;
    l.inertia_max = 1e301;
  })));
  const std::string light = repo("tests/data/hostile/mass_1e-300.xml").string();
  expect_limit(light, {}, {"body 'arm': mass 1e-300 kg"}, 6);
  EXPECT_NO_THROW(load_model(light, with([](LoadLimits& l) {
    l.mass_min = 0;
    l.inertia_min = 0;
  })));
  // massless links that are welded or merged stay as they were (the corpus has them)
  EXPECT_NO_THROW(load_model(repo("tests/data/models/franka_panda/panda.urdf").string()));
  // gym's pusher goal (4e-10 kg) is why the lower bound is 1e-12 kg
  EXPECT_NO_THROW(load_model(repo("tests/data/models/gym_mujoco/pusher.xml").string()));
}

TEST_F(Hostile, ZeroSizesAreRefusedInBothFormats) {
  // (a URDF sphere of radius 0 is a point contact, Drake's convention: tests/test_seed_files.cpp;
  // a negative radius is refused)
  const std::string sphere_urdf = file("sphere_neg.urdf", "<robot name=\"b\"><link name=\"a\"><inertial><mass value=\"1\"/>"
                                                          "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>"
                                                          "</inertial><collision><geometry><sphere radius=\"-0.1\"/></geometry>"
                                                          "</collision></link></robot>\n");
  expect_refusal(sphere_urdf, {"<sphere> radius must not be negative (got -0.1)"});
  const std::string box_urdf = file("box0.urdf", "<robot name=\"b\"><link name=\"a\"><inertial><mass value=\"1\"/>"
                                                 "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>"
                                                 "</inertial><visual><geometry><box size=\"0.1 0.1 -0.1\"/></geometry>"
                                                 "</visual></link></robot>\n");
  expect_refusal(box_urdf, {"<box> size must be positive"});
  const std::string box_mjcf = file("box0.xml", "<mujoco><worldbody><body><freejoint/><geom type=\"box\" size=\"0.1 0.1 0\"/>"
                                                "</body></worldbody></mujoco>\n");
  expect_refusal(box_mjcf, {"geom of type box needs 3 positive size values"});
}

TEST_F(Hostile, HugeFiniteAxesAndAnglesAreTheRotationsTheyDescribe) {
  const Vec3 diagonal = Vec3(1, 1, 0).normalized();
  for (const char* f : {"huge_axis.xml", "huge_axis.urdf"}) {
    SCOPED_TRACE(f);
    const Model m = load_model(repo(std::string("tests/data/hostile/") + f).string());
    const Joint& j = m.joints.back();
    const Vec3 axis = quat_to_rot(m.bodies[j.child].q0) * quat_to_rot(j.child_frame).col(2);
    EXPECT_LT((axis - diagonal).norm(), 1e-12) << axis.transpose();
  }
  // quat="1e300 1e300 0 0": 90 degrees about x
  const Model q = load_model(repo("tests/data/hostile/huge_quat.xml").string());
  EXPECT_LT((q.bodies[0].q0 - Vec4(std::sqrt(0.5), std::sqrt(0.5), 0, 0)).norm(), 1e-12);
  // euler="1e300 0 0" (radian): the rotation of remainder(1e300, 2 pi) about x
  const Model e = load_model(repo("tests/data/hostile/huge_euler.xml").string());
  EXPECT_LT((e.bodies[0].q0 - quat_axis_angle(Vec3::UnitX(), std::remainder(1e300, 2 * M_PI))).norm(), 1e-12);
}

// ---- the files of tests/data/hostile ---------------------------------------------------------

TEST(HostileFiles, EachEndsAsExpected) {
  const fs::path dir = repo("tests/data/hostile");
  std::map<std::string, std::string> expected;  // file -> "loads" or a piece of the refusal
  {
    std::ifstream in(dir / "expected.txt");
    ASSERT_TRUE(in) << "tests/data/hostile/expected.txt";
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const size_t gap = line.find_first_of(" \t");
      ASSERT_NE(gap, std::string::npos) << line;
      const size_t text = line.find_first_not_of(" \t", gap);
      ASSERT_NE(text, std::string::npos) << line;
      expected[line.substr(0, gap)] = line.substr(text);
    }
  }
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".urdf" || ext == ".xml")) files.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    auto it = expected.find(f);
    if (it == expected.end()) {
      ADD_FAILURE() << f << " has no line in expected.txt";
      continue;
    }
    fuzz::Outcome out;
    out = fuzz::load_and_run((dir / f).string(), fuzz::fuzz_limits());
    if (it->second == "loads") {
      EXPECT_TRUE(out.loaded) << out.refusal;
    } else {
      EXPECT_NE(out.refusal.find(it->second), std::string::npos) << "refusal: " << out.refusal;
    }
    expected.erase(it);
  }
  for (const auto& [f, text] : expected) ADD_FAILURE() << "expected.txt names " << f << ", which does not exist";
}

// ---- linear time, no recursion per link ------------------------------------------------------

// Load times in proportion to size are measured in benchmarks/bench_load.cpp (LoadUrdfChain,
// LoadMjcfStar, … at 1k/10k/100k), never asserted here: the machines are shared and noisy.
TEST_F(Hostile, AHundredThousandLinkChainLoadsAndStartsWithoutDeepRecursion) {
  const std::string chain = file("c100k.urdf", hostile::urdf_chain(100000, true));
  LoadOptions options;
  options.fixed_base = true;
  const Model m = load_model(chain, options);
  ASSERT_EQ(m.bodies.size(), 100000u);
  Data d(m);  // system graph and LDU analysis
  const std::vector<std::vector<double>> none(m.joints.size());
  set_coordinates(m, d, none, none);
  EXPECT_TRUE(project_state(m, d).converged);
  const std::vector<bool> tree = spanning_tree_joints(m);
  EXPECT_EQ(std::count(tree.begin(), tree.end(), true), 100000);
}

// ---- a projection that cannot start a run says why -------------------------------------------

TEST_F(Hostile, ProjectionFailureNamesTheJointAndTheReason) {
  // a loop that cannot close: a four-bar whose loop joint's anchor is 100 m off
  Model m = make_fourbar(0.01);
  const std::vector<bool> tree = spanning_tree_joints(m);
  const int loop = static_cast<int>(std::find(tree.begin(), tree.end(), false) - tree.begin());
  ASSERT_LT(loop, static_cast<int>(m.joints.size()));
  m.joints[loop].child_anchor += Vec3(100, 0, 0);
  Data d(m);
  const ProjectionReport r = project_state(m, d);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.failure, ProjectionReport::Failure::IterationLimit);
  EXPECT_EQ(r.worst_joint, loop);
  EXPECT_GE(r.worst_row, 0);
  EXPECT_GT(r.violation, 1e-3);
  // masses 1e300 apart: the system cannot be factored
  Model light = make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  light.bodies[1].mass = 1e-300;
  light.bodies[1].inertia = 1e-301 * Mat3::Identity();
  Data dl(light);
  set_joint_coordinates(light, dl, 0, {0.3}, {1.0});
  const ProjectionReport rl = project_state(light, dl);
  EXPECT_FALSE(rl.converged);
  EXPECT_TRUE(rl.failure == ProjectionReport::Failure::Singular ||
              rl.failure == ProjectionReport::Failure::VelocitySingular ||
              rl.failure == ProjectionReport::Failure::NonFinite);
}

}  // namespace
}  // namespace maxsim
