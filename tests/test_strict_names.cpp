// Strict names: an MJCF element or attribute MuJoCo does not define (a misspelling) is refused at
// its file and line with the nearest name, as MuJoCo refuses it; LoadOptions::lenient loads the
// file without it and names it in a warning. What MJCF defines and maxsim ignores loads and is
// listed (LoadReport::ignored). URDF keeps its ecosystem's rule: other tools' tags are listed as
// ignored, names one or two letters from the URDF name that belongs there are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "models/load.hpp"
#include "models/load_error.hpp"
#include "models/mjcf/schema.hpp"
#include "models/urdf/schema.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/strict_" + name;
  std::ofstream(path) << text;
  return path;
}

// The refusal of `path`: its line and message (line -1 when it loads).
std::pair<int, std::string> refusal(const std::string& path) {
  try {
    load_model(path);
  } catch (const LoadError& e) {
    return {e.line(), e.what()};
  }
  return {-1, ""};
}

bool contains(const std::vector<std::string>& v, const std::string& piece) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(piece) != std::string::npos; });
}

const char* kArm = R"(<mujoco>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" axsi="0 1 0"/>
      <geom type="capsule" szie="0.05 0.2" fromto="0 0 0 0.4 0 0"/>
    </body>
  </worldbody>
  <actuator>
    <positon joint="hinge" kp="10"/>
  </actuator>
</mujoco>
)";

}  // namespace

// Each misspelling is refused at its own line with the name it was meant to be; with lenient the
// file loads and the misspelled names have no effect (the default axis z, no actuator).
TEST(StrictNames, MjcfMisspellingsAreRefusedAtTheirLine) {
  std::string text = kArm;
  const std::string axsi = write_temp("axsi.xml", text);
  const auto [line, msg] = refusal(axsi);
  EXPECT_EQ(line, 4);
  EXPECT_NE(msg.find(axsi + ":4: unknown attribute 'axsi' in <joint name='hinge'> (did you mean 'axis'?)"),
            std::string::npos) << msg;

  text.replace(text.find("axsi"), 4, "axis");
  const std::string szie = write_temp("szie.xml", text);
  const auto [line2, msg2] = refusal(szie);
  EXPECT_EQ(line2, 5);
  EXPECT_NE(msg2.find("unknown attribute 'szie' in <geom> (did you mean 'size'?)"), std::string::npos) << msg2;

  text.replace(text.find("szie"), 4, "size");
  const std::string positon = write_temp("positon.xml", text);
  const auto [line3, msg3] = refusal(positon);
  EXPECT_EQ(line3, 9);
  EXPECT_NE(msg3.find("unknown element <positon> in <actuator> (did you mean 'position'?)"), std::string::npos) << msg3;

  text.replace(text.find("positon"), 7, "position");
  const Model fixed = load_model(write_temp("fixed.xml", text));
  EXPECT_EQ(fixed.nu(), 1);
}

TEST(StrictNames, MjcfLenientLoadsWithoutTheMisspelledNames) {
  std::string text = kArm;
  text.replace(text.find("szie"), 4, "size");
  const std::string path = write_temp("lenient.xml", text);
  LoadOptions lenient;
  lenient.lenient = true;
  LoadReport r;
  const Model m = load_model(path, lenient, &r);
  EXPECT_EQ(m.nu(), 0);  // <positon> is not an actuator
  ASSERT_EQ(m.joints.size(), 1u);
  // the joint keeps MJCF's default axis z: the body frame's z in the world
  const Joint& j = m.joints[0];
  EXPECT_EQ(j.type, JointType::Revolute);
  EXPECT_TRUE(contains(r.warnings, path + ":4: unknown attribute 'axsi'")) << r.warnings.size();
  EXPECT_TRUE(contains(r.warnings, path + ":9: unknown element <positon>"));
}

// A misspelling in an included file is named at that file's line.
TEST(StrictNames, MjcfMisspellingInAnIncludedFile) {
  const std::string inc = write_temp("inc_part.xml", "<mujoco>\n  <worldbody>\n    <geom type=\"sphere\" size=\"0.1\" frction=\"1\"/>\n  </worldbody>\n</mujoco>\n");
  const std::string main = write_temp("inc_main.xml", "<mujoco>\n  <include file=\"strict_inc_part.xml\"/>\n</mujoco>\n");
  const auto [line, msg] = refusal(main);
  EXPECT_EQ(line, 3);
  EXPECT_EQ(msg.rfind(inc + ":3: unknown attribute 'frction' in <geom> (did you mean 'friction'?)", 0), 0u) << msg;
}

// What MuJoCo defines and maxsim does not model loads, listed with its count; what maxsim reads
// is not listed.
TEST(StrictNames, MjcfKnownButIgnoredNamesAreListed) {
  const std::string path = write_temp("ignored.xml", R"(<mujoco>
  <visual><global offwidth="800"/></visual>
  <default><geom solref="0.01 1" friction="0.7"/></default>
  <worldbody>
    <light pos="0 0 3"/>
    <body name="b" pos="0 0 1">
      <joint name="j" axis="0 1 0" damping="0.1" solreflimit="0.02 1"/>
      <geom type="sphere" size="0.1" solimp="0.9 0.95 0.001" priority="1" group="1"/>
    </body>
  </worldbody>
  <sensor><jointpos joint="j" user="1"/><user objtype="body" objname="b" dim="1"/></sensor>
</mujoco>
)");
  LoadReport r;
  const Model m = load_model(path, {}, &r);
  EXPECT_EQ(m.bodies.size(), 1u);
  const std::vector<std::string>& ig = r.ignored;
  for (const char* piece : {"<visual><global> (1)", "<geom solref> (1)", "<joint solreflimit> (1)", "<geom solimp> (1)",
                            "<sensor><user> (1)", "<jointpos user> (1)"})
    EXPECT_TRUE(contains(ig, piece)) << piece;
  EXPECT_TRUE(contains(ig, "<light> (1)"));
  for (const char* read : {"friction", "damping", "axis", "<geom size", "<joint name", "group", "priority", "<sensor><jointpos>"})  // (group: inertiagrouprange)
    EXPECT_FALSE(contains(ig, read)) << read;
  EXPECT_TRUE(r.warnings.empty() || !contains(r.warnings, "unknown"));
}

const char* kUrdf = R"(<robot name="r">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision group="feet"><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/>
    <axis xzy="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <gazebo reference="base"><mu1>0.5</mu1></gazebo>
  <transmission name="t"><type>x</type></transmission>
</robot>
)";

// URDF: <axis xzy> and <orgin> are refused at their line; other tools' tags and attributes
// (<gazebo>, <transmission>, Drake's <collision group>) load and are listed.
TEST(StrictNames, UrdfMisspellingsRefusedOtherToolsTagsListed) {
  std::string text = kUrdf;
  const std::string xzy = write_temp("xzy.urdf", text);
  const auto [line, msg] = refusal(xzy);
  EXPECT_EQ(line, 11);
  EXPECT_NE(msg.find("unknown attribute 'xzy' in <axis> (did you mean 'xyz'?)"), std::string::npos) << msg;

  text.replace(text.find("xzy"), 3, "xyz");
  std::string orgin = text;
  orgin.replace(orgin.find("<axis"), 0, "<orgin xyz=\"0 0 1\"/>");
  const auto [line2, msg2] = refusal(write_temp("orgin.urdf", orgin));
  EXPECT_EQ(line2, 11);
  EXPECT_NE(msg2.find("unknown element <orgin> in <joint> (did you mean 'origin'?)"), std::string::npos) << msg2;

  LoadOptions lenient;
  lenient.lenient = true;
  LoadReport rl;
  const Model ml = load_model(write_temp("orgin_lenient.urdf", orgin), lenient, &rl);
  EXPECT_EQ(ml.joints.size(), 2u);  // (the floating base and j)
  EXPECT_TRUE(contains(rl.warnings, ":11: unknown element <orgin> in <joint>"));

  LoadReport r;
  const Model m = load_model(write_temp("clean.urdf", text), {}, &r);
  EXPECT_EQ(m.bodies.size(), 2u);
  for (const char* piece : {"<gazebo> (1)", "<transmission> (1)", "<collision group> (1)"})
    EXPECT_TRUE(contains(r.ignored, piece)) << piece;
}

// An unknown URDF joint type stays an error at its line, lenient or not (it is not a name a
// warning can drop: the joint would have no type).
TEST(StrictNames, UrdfUnknownJointTypeRefused) {
  std::string text = kUrdf;
  text.replace(text.find("xzy"), 3, "xyz");
  text.replace(text.find("revolute"), 8, "revolut");
  LoadOptions lenient;
  lenient.lenient = true;
  for (const LoadOptions& o : {LoadOptions{}, lenient}) {
    try {
      load_model(write_temp("revolut.urdf", text), o);
      FAIL() << "joint type 'revolut' accepted";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.line(), 9);
      EXPECT_NE(std::string(e.what()).find("unknown joint type 'revolut'"), std::string::npos) << e.what();
    }
  }
}

// docs/modeling.md's support tables are the schemas the strict parser uses, rendered
// (MAXSIM_UPDATE_DOCS=1 rewrites them).
TEST(StrictNames, SupportTablesInTheDocsMatchTheSchemas) {
  const std::string path = std::string(MAXSIM_SOURCE_DIR) + "/docs/modeling.md";
  std::string doc;
  {
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    doc.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const bool update = std::getenv("MAXSIM_UPDATE_DOCS") != nullptr;
  for (const auto& [format, schema] : {std::pair<std::string, const parse::Schema*>{"mjcf", &mjcf_schema()},
                                       std::pair<std::string, const parse::Schema*>{"urdf", &urdf_schema()}}) {
    const std::string open = "<!-- support-table:" + format + " -->\n", close = "<!-- /support-table:" + format + " -->";
    const size_t a = doc.find(open), b = doc.find(close);
    ASSERT_NE(a, std::string::npos) << open;
    ASSERT_NE(b, std::string::npos) << close;
    const std::string table = parse::support_table_markdown(*schema);
    if (update) doc.replace(a + open.size(), b - a - open.size(), table);
    else EXPECT_EQ(doc.substr(a + open.size(), b - a - open.size()), table) << format << ": MAXSIM_UPDATE_DOCS=1 rewrites it";
  }
  if (update) std::ofstream(path) << doc;
  // every element and attribute the table calls supported is one the schema knows, and the
  // misspellings of the tests above are not
  EXPECT_TRUE(mjcf_schema().knows(mjcf_schema().child(mjcf_schema().child(0, "worldbody"), "body"), "pos"));
  EXPECT_EQ(mjcf_schema().child(mjcf_schema().child(0, "actuator"), "positon"), -1);
}
