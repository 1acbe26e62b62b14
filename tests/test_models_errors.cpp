// Bad input to the description loaders: every case throws LoadError with a specific message that
// names the file and, where the XML gives it, the line. Hand-made broken files are in
// tests/data/broken; the corpus's own broken files (README: "fail by design") are used as well.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/load.hpp"
#include "models/load_error.hpp"

namespace maxsim {
namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }
std::string broken(const std::string& f) { return repo("tests/data/broken/" + f); }
std::string corpus(const std::string& f) { return repo("tests/data/models/" + f); }

// Loads `path`, expects a LoadError at `line` (0: no line) whose message contains every piece.
void expect_error(const std::string& path, int line, const std::vector<std::string>& pieces,
                  const LoadOptions& options = {}) {
  SCOPED_TRACE(path);
  try {
    std::vector<std::string> warnings;
    load_model(path, options, &warnings);
    ADD_FAILURE() << "no LoadError";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.line(), line) << what;
    EXPECT_EQ(what.rfind(e.file(), 0), 0u) << "message starts with the file: " << what;
    if (line > 0) {
      EXPECT_NE(what.find(e.file() + ":" + std::to_string(line) + ": "), std::string::npos) << what;
    }
    for (const auto& p : pieces) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' in: " << what;
  }
}

TEST(ModelsErrors, MissingFileAndFormat) {
  expect_error(broken("no_such_file.urdf"), 0, {"no_such_file.urdf", "cannot open file"});
  expect_error(broken("no_such_file.xml"), 0, {"cannot open file"});
  expect_error(broken("README.md"), 0, {"unknown description format '.md'"});
}

TEST(ModelsErrors, MalformedXml) {
  expect_error(broken("malformed.urdf"), 4, {"malformed XML", "inertial"});
  expect_error(broken("malformed.xml"), 3, {"malformed XML", "body"});
  // DART's deliberately invalid file: plain text
  expect_error(corpus("dart_urdf_tests/invalid.urdf"), 1, {"malformed XML"});
  // DART's <world> file is not a robot description
  expect_error(corpus("dart_urdf_tests/testWorld.urdf"), 1, {"root element is <world>", "expected <robot>"});
}

TEST(ModelsErrors, BadNumbers) {
  expect_error(broken("bad_number.urdf"), 20, {"attribute 'xyz' of <origin>", "'0 0 abc'", "not a list of (finite) numbers"});
  expect_error(broken("partial_number.urdf"), 21, {"attribute 'xyz' of <axis>", "expected 3 numbers, got 2"});
  expect_error(broken("bad_number.xml"), 5, {"attribute 'size' of <geom>", "'0.1 0.1 x'"});
  // gym walker2d: pos="0.2/2 0 0.1" (MuJoCo rejects it too)
  expect_error(corpus("gym_mujoco/walker2d.xml"), 23,
               {"attribute 'pos' of <body name='foot'>", "'0.2/2 0 0.1'"});
}

TEST(ModelsErrors, Mass) {
  expect_error(broken("negative_mass.urdf"), 13, {"link 'arm'", "negative mass (-2)"});
  expect_error(broken("negative_mass.xml"), 5, {"body 'b'", "negative mass (-1)"});
  expect_error(broken("zero_mass.urdf"), 10, {"'arm' has zero mass but can move", "revolute joint 'j'"});
  expect_error(broken("zero_mass.xml"), 4, {"'b' has zero mass but can move", "revolute joint 'swing'"});
  // DART's joint-properties file has no inertials at all: its moving links have no mass
  expect_error(corpus("dart_urdf_tests/joint_properties.urdf"), 25, {"'link_1' has zero mass but can move"});
}

TEST(ModelsErrors, Inertia) {
  expect_error(broken("not_positive_definite.urdf"), 14, {"link 'arm'", "inertia is not positive definite"});
  // (a positive definite inertia off the triangle inequality loads with a warning:
  // tests/test_seed_files.cpp)
}

TEST(ModelsErrors, JointTypes) {
  expect_error(broken("unknown_joint_type.urdf"), 17, {"joint 'j'", "unknown joint type 'hinge'"});
  expect_error(broken("unknown_joint_type.xml"), 4, {"joint 'u'", "unknown joint type 'universal'"});
}

TEST(ModelsErrors, TreeStructure) {
  expect_error(broken("undefined_link.urdf"), 19, {"joint 'j'", "undefined link 'forearm'"});
  expect_error(broken("duplicate_link.urdf"), 17, {"duplicate link 'arm'", "first defined at line 10"});
  expect_error(broken("two_parents.urdf"), 38, {"link 'b' has two parent joints", "'jb'", "'jab'"});
  expect_error(broken("cycle.urdf"), 24, {"kinematic cycle", "link 'a'"});
}

TEST(ModelsErrors, UrdfdomMessagesAreKept) {
  // a robot without a name passes our checks; urdfdom's own message is reported
  expect_error(broken("no_robot_name.urdf"), 0, {"urdfdom rejected the file", "No name given for the robot"});
}

TEST(ModelsErrors, Meshes) {
  expect_error(broken("missing_collision_mesh.urdf"), 10,
               {"link 'base'", "collision mesh 'meshes/does_not_exist.stl' not found"});
  expect_error(broken("missing_collision_mesh.xml"), 8, {"mesh 'ghost'", "mesh file not found"});
  // DART's KR5 and WAM files reference meshes that are not shipped with them
  expect_error(corpus("dart_urdf_tests/KR5_sixx_R650.urdf"), 44, {"collision mesh 'meshes/base_link.STL' not found"});
  // (WAM's <inertia iyx> is a misspelling, refused first: tests/test_strict_names.cpp)
  expect_error(corpus("dart_urdf_tests/wam.urdf"), 215, {"unknown attribute 'iyx' in <inertia>"});
  // a missing visual mesh is only a warning
  std::vector<std::string> warnings;
  Model m = load_model(broken("missing_visual_mesh.urdf"), {}, &warnings);
  EXPECT_EQ(m.bodies.size(), 1u);
  ASSERT_EQ(m.bodies[0].geoms.size(), 1u);  // the box; the visual mesh was dropped
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("missing_visual_mesh.urdf:10: link 'base': visual mesh"), std::string::npos) << warnings[0];
}

TEST(ModelsErrors, UnsupportedMjcf) {
  expect_error(broken("equality_joint.xml"), 13, {"refers to undefined joint 'jc'"});
  expect_error(corpus("mujoco_models/humanoid/22_humanoids.xml"), 39, {"unsupported MJCF element <replicate>"});
  expect_error(broken("bad_keyframe.xml"), 9, {"keyframe 'k'", "qpos has 2 values", "nq = 1"});
  expect_error(broken("missing_include.xml"), 2, {"included file 'not_here.xml' not found"});
  expect_error(broken("undefined_class.xml"), 5, {"unknown default class 'nope'"});
}

}  // namespace
}  // namespace maxsim
