// The comparison's scenes (scenes.hpp): generated MJCF, the repository's files, their controls
// and measures.
#include "benchmarks/engines/scenes.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "models/load.hpp"
#include "run/setup.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::bench {
namespace {

namespace fs = std::filesystem;

// ---- generated scenes -----------------------------------------------------------------------------

std::string write_scene(const fs::path& dir, const std::string& name, const std::string& xml) {
  const fs::path p = dir / (name + ".xml");
  std::ofstream(p) << xml;
  return p.string();
}

// A 0.2 m cube (1 kg, μ 0.5) above a floor plane at height z.
std::string box_drop_xml(double z) {
  std::ostringstream x;
  x << "<mujoco model=\"box_drop\"><option timestep=\"0.002\"/><worldbody>\n"
    << "<geom name=\"floor\" type=\"plane\" size=\"5 5 0.1\" friction=\"0.5\"/>\n"
    << "<body name=\"box\" pos=\"0 0 " << z << "\" euler=\"10 20 0\"><freejoint/>"
    << "<geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\" friction=\"0.5\"/></body>\n"
    << "</worldbody></mujoco>\n";
  return x.str();
}

// n 0.2 m cubes (1 kg, μ 0.5) stacked on a floor, each face on the one below.
std::string stack_xml(int n) {
  std::ostringstream x;
  x << "<mujoco model=\"stack\"><option timestep=\"0.002\"/><worldbody>\n"
    << "<geom name=\"floor\" type=\"plane\" size=\"5 5 0.1\" friction=\"0.5\"/>\n";
  for (int i = 0; i < n; ++i)
    x << "<body name=\"box" << i << "\" pos=\"0 0 " << 0.1 + 0.2 * i << "\"><freejoint/>"
      << "<geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\" friction=\"0.5\"/></body>\n";
  x << "</worldbody></mujoco>\n";
  return x.str();
}

// A 0.1 kg box (μ 0.5) pinched between two pads on slides (pushed together by 5 N each, applied as
// joint forces): friction holds up to 2 · 0.5 · 5 = 5 N against a weight of 0.98 N.
std::string pinch_xml() {
  return R"(<mujoco model="pinch"><option timestep="0.002"/><worldbody>
<body name="left" pos="-0.06 0 0.5"><joint name="left" type="slide" axis="1 0 0"/>
  <geom type="box" size="0.01 0.05 0.05" mass="0.1" friction="0.5"/></body>
<body name="right" pos="0.06 0 0.5"><joint name="right" type="slide" axis="-1 0 0"/>
  <geom type="box" size="0.01 0.05 0.05" mass="0.1" friction="0.5"/></body>
<body name="box" pos="0 0 0.5"><freejoint/><geom type="box" size="0.05 0.03 0.03" mass="0.1" friction="0.5"/></body>
</worldbody></mujoco>
)";
}

// n spheres (r 0.25 m, 1 kg) in a row on a floor, each joined to the next by a ball joint at their
// contact point.
std::string sphere_chain_xml(int n) {
  std::ostringstream x;
  x << "<mujoco model=\"sphere_chain\"><option timestep=\"0.01\"/><worldbody>\n"
    << "<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>\n"
    << "<body name=\"s0\" pos=\"0 0 0.25\"><freejoint/><geom type=\"sphere\" size=\"0.25\" mass=\"1\"/>\n";
  for (int i = 1; i < n; ++i)
    x << "<body name=\"s" << i << "\" pos=\"0.5 0 0\"><joint type=\"ball\" pos=\"-0.25 0 0\"/>"
      << "<geom type=\"sphere\" size=\"0.25\" mass=\"1\"/>\n";
  for (int i = 1; i < n; ++i) x << "</body>";
  x << "\n</body></worldbody></mujoco>\n";
  return x.str();
}

// A parallelogram four-bar hanging from two hinges 0.4 m apart (cranks 0.3 m, coupler 0.4 m, rods
// of 1 kg), the loop closed by a point (MJCF connect) at the coupler's end; released at 60° from
// hanging, no contacts, no damping: a conservative loop.
std::string four_bar_xml() {
  const double a = M_PI / 3, l = 0.3;
  const double bx = l * std::sin(a), bz = -l * std::cos(a);
  std::ostringstream x;
  x << "<mujoco model=\"four_bar\"><option timestep=\"0.001\"/>\n"
    << "<default><geom type=\"capsule\" size=\"0.02\" contype=\"0\" conaffinity=\"0\" mass=\"1\"/>"
    << "<joint type=\"hinge\" axis=\"0 1 0\"/></default><worldbody>\n"
    << "<body name=\"crank\" pos=\"0 0 1\"><joint name=\"a\"/><geom fromto=\"0 0 0 " << bx << " 0 " << bz << "\"/>\n"
    << "  <body name=\"coupler\" pos=\"" << bx << " 0 " << bz << "\"><joint name=\"b\"/>"
    << "<geom fromto=\"0 0 0 0.4 0 0\"/></body></body>\n"
    << "<body name=\"rocker\" pos=\"0.4 0 1\"><joint name=\"d\"/><geom fromto=\"0 0 0 " << bx << " 0 " << bz << "\"/></body>\n"
    << "</worldbody><equality><connect body1=\"coupler\" body2=\"rocker\" anchor=\"0.4 0 0\"/></equality></mujoco>\n";
  return x.str();
}

// A scene with its name, file and one-line summary (the rest set field by field).
Scene scene(const std::string& name, const std::string& file, const std::string& summary) {
  Scene s;
  s.name = name;
  s.file = file;
  s.summary = summary;
  return s;
}

// Bricard's orthogonal 6R linkage: six hinges at the corners of a skew hexagon on a cube's edges
// (0.4 m), each axis perpendicular to its two links (a = 0.4 m, α = 90°, no offsets); one link is
// the world's, the loop closed by two points on the last hinge's axis (MJCF connects: a hinge).
// Grübler's count gives 0 degrees of freedom, the linkage has 1: a loop whose rows are redundant
// at every configuration. Rods of 1 kg released under gravity, no contacts, no damping.
std::string bricard_xml() {
  const double c[6][3] = {{1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 1, 1}, {0, 0, 1}, {1, 0, 1}};
  const char* axis[5] = {"1 0 0", "0 0 1", "0 1 0", "1 0 0", "0 0 1"};
  const double s = 0.4;
  auto edge = [&](int a, int b) {  // from corner a to corner b, scaled
    std::ostringstream e;
    e << s * (c[b][0] - c[a][0]) << " " << s * (c[b][1] - c[a][1]) << " " << s * (c[b][2] - c[a][2]);
    return e.str();
  };
  std::ostringstream x;
  x << "<mujoco model=\"bricard\"><option timestep=\"0.001\"/>\n"
    << "<default><geom type=\"capsule\" size=\"0.02\" contype=\"0\" conaffinity=\"0\" mass=\"1\"/>"
    << "<joint type=\"hinge\"/></default><worldbody>\n"
    << "<body name=\"l0\" pos=\"" << s * c[0][0] << " " << s * c[0][1] << " " << 1 + s * c[0][2] << "\">";
  for (int i = 0; i < 5; ++i) {
    if (i > 0) x << "<body name=\"l" << i << "\" pos=\"" << edge(i - 1, i) << "\">";
    x << "<joint name=\"j" << i << "\" axis=\"" << axis[i] << "\"/><geom fromto=\"0 0 0 " << edge(i, i + 1) << "\"/>\n";
  }
  x << "</body></body></body></body></body>\n</worldbody><equality>"
    << "<connect body1=\"l4\" body2=\"world\" anchor=\"" << edge(4, 5) << "\"/>"
    << "<connect body1=\"l4\" body2=\"world\" anchor=\"" << s * (c[5][0] - c[4][0]) << " 0.1 0\"/>"
    << "</equality></mujoco>\n";
  return x.str();
}

// A ragdoll of capsules (torso and head, ball hips and shoulders, hinged knees and elbows; 43 kg)
// standing on a floor, tilted 10° forward: a humanoid falling, with no tendons or multi-hinge
// bodies, so that every engine can run it.
std::string ragdoll_xml() {
  return R"(<mujoco model="ragdoll"><option timestep="0.002"/>
<default><geom type="capsule" friction="0.8" density="1000"/></default>
<worldbody><geom name="floor" type="plane" size="0 0 1"/>
<body name="torso" pos="0 0 1.3" euler="0 10 0"><freejoint/>
  <geom fromto="0 0 -0.2 0 0 0.2" size="0.12"/><geom type="sphere" pos="0 0 0.45" size="0.11"/>
  <body name="thigh_l" pos="0 0.1 -0.36"><joint name="hip_l" type="ball"/><geom fromto="0 0 0 0 0 -0.38" size="0.06"/>
    <body name="shin_l" pos="0 0 -0.42"><joint name="knee_l" type="hinge" axis="0 1 0"/><geom fromto="0 0 0 0 0 -0.4" size="0.05"/></body></body>
  <body name="thigh_r" pos="0 -0.1 -0.36"><joint name="hip_r" type="ball"/><geom fromto="0 0 0 0 0 -0.38" size="0.06"/>
    <body name="shin_r" pos="0 0 -0.42"><joint name="knee_r" type="hinge" axis="0 1 0"/><geom fromto="0 0 0 0 0 -0.4" size="0.05"/></body></body>
  <body name="arm_l" pos="0 0.2 0.2"><joint name="shoulder_l" type="ball"/><geom fromto="0 0.02 -0.02 0 0.02 -0.28" size="0.04"/>
    <body name="forearm_l" pos="0 0.02 -0.33"><joint name="elbow_l" type="hinge" axis="0 1 0"/><geom fromto="0 0 0 0 0 -0.26" size="0.035"/></body></body>
  <body name="arm_r" pos="0 -0.2 0.2"><joint name="shoulder_r" type="ball"/><geom fromto="0 -0.02 -0.02 0 -0.02 -0.28" size="0.04"/>
    <body name="forearm_r" pos="0 -0.02 -0.33"><joint name="elbow_r" type="hinge" axis="0 1 0"/><geom fromto="0 0 0 0 0 -0.26" size="0.035"/></body></body>
</body></worldbody></mujoco>
)";
}

// ---- measures ---------------------------------------------------------------------------------------

double body_displacement(const std::vector<BodyState>& a, const std::vector<BodyState>& b, int i) {
  return (b[i].x - a[i].x).norm();
}
double max_displacement(const Model&, const std::vector<BodyState>& a, const std::vector<BodyState>& b, double) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, body_displacement(a, b, static_cast<int>(i)));
  return d;
}
int body_index(const Model& m, const std::string& name) {
  for (size_t i = 0; i < m.bodies.size(); ++i)
    if (m.bodies[i].name == name) return static_cast<int>(i);
  throw std::runtime_error("no body named " + name);
}
int joint_index(const Model& m, const std::string& name) {
  for (size_t j = 0; j < m.joints.size(); ++j)
    if (m.joints[j].name == name) return static_cast<int>(j);
  throw std::runtime_error("no joint named " + name);
}

// PD toward per-hinge targets on every revolute joint, from the state's own coordinates.
struct HingePd {
  double kp = 0, kd = 0;
  std::function<double(double t, int hinge)> target;  // hinge = index among the revolute joints
  void operator()(double t, const Model& m, const Data& state, Engine& e) const {
    int h = 0;
    for (size_t j = 0; j < m.joints.size(); ++j) {
      if (m.joints[j].type != JointType::Revolute) continue;
      const RowCoordinate c = row_coordinate(m, state, static_cast<int>(j), 5);
      e.set_joint_force(static_cast<int>(j), 5, kp * (target(t, h) - c.q) - kd * c.qd);
      ++h;
    }
  }
};

// The A1 (robots/a1/xml/a1.xml) standing with thigh 0.9 and calf −1.8 rad, its feet on the floor.
void a1_start(Model& m, Data& d) {
  std::vector<double> qpos = {0, 0, 0.5, 1, 0, 0, 0};
  for (int leg = 0; leg < 4; ++leg) qpos.insert(qpos.end(), {0.0, 0.9, -1.8});
  set_coordinates(m, d, split_qpos(m, qpos), std::vector<std::vector<double>>(m.joints.size()));
  const double lift = -lowest_collision_z(m, d);
  for (Vec3& x : d.x) x.z() += lift;
}

}  // namespace

std::vector<Scene> standard_scenes(const std::string& dir, bool quick) {
  const fs::path tmp = dir;
  const std::string src = MAXSIM_SOURCE_DIR;
  const int scale = quick ? 10 : 1;
  std::vector<Scene> s;
  {
    Scene c = scene("box_drop", write_scene(tmp, "box_drop", box_drop_xml(0.6)), "a tilted 0.2 m cube dropped 0.45 m onto a plane");
    c.steps = 1000 / scale;
    c.measure_name = "rest height error [m]";
    c.measure = [](const Model&, const std::vector<BodyState>&, const std::vector<BodyState>& b, double) {
      return std::abs(b[0].x.z() - 0.1);
    };
    s.push_back(c);
  }
  {
    Scene c = scene("slope20_creep", src + "/tests/data/world/slope20_box.xml", "a cube at rest on a 20° slope, μ 0.5 (holds)");
    c.steps = 1000 / scale;
    c.measure_name = "creep [m]";
    c.measure = [](const Model&, const std::vector<BodyState>& a, const std::vector<BodyState>& b, double) {
      return body_displacement(a, b, 0);
    };
    s.push_back(c);
  }
  {
    Scene c = scene("slope30_slide", src + "/tests/data/world/slope30_box.xml", "a cube released on a 30° slope, μ 0.5 (slides)");
    c.steps = 400 / scale;
    c.measure_name = "error of Coulomb's distance [m]";
    c.measure = [](const Model& m, const std::vector<BodyState>& a, const std::vector<BodyState>& b, double t) {
      const double g = -m.opt.gravity.z(), th = M_PI / 6;  // s = ½ g (sin θ − μ cos θ) t²
      return std::abs(body_displacement(a, b, 0) - 0.5 * g * (std::sin(th) - 0.5 * std::cos(th)) * t * t);
    };
    s.push_back(c);
  }
  {
    Scene c = scene("pinch", write_scene(tmp, "pinch", pinch_xml()), "a 0.1 kg box held by two pads pressing 5 N, μ 0.5");
    c.steps = 1000 / scale;
    c.control = [](double, const Model& m, const Data&, Engine& e) {
      e.set_joint_force(joint_index(m, "left"), 2, 5.0);
      e.set_joint_force(joint_index(m, "right"), 2, 5.0);
    };
    c.measure_name = "slip [m]";
    c.measure = [](const Model& m, const std::vector<BodyState>& a, const std::vector<BodyState>& b, double) {
      const int i = body_index(m, "box");
      return a[i].x.z() - b[i].x.z();
    };
    s.push_back(c);
  }
  {
    Scene c = scene("sphere_chain", write_scene(tmp, "sphere_chain", sphere_chain_xml(10)), "10 spheres joined by ball joints at rest on a floor");
    c.dt = 0.01;
    c.steps = 200 / scale;
    c.measure_name = "largest displacement [m]";
    c.measure = max_displacement;
    s.push_back(c);
  }
  {
    Scene c = scene("four_bar", write_scene(tmp, "four_bar", four_bar_xml()), "a hanging parallelogram four-bar swinging, no damping");
    c.dt = 0.001;
    c.steps = 3000 / scale;
    c.conservative = true;
    s.push_back(c);
  }
  {
    Scene c = scene("bricard", write_scene(tmp, "bricard", bricard_xml()), "Bricard's orthogonal 6R loop swinging (mobile against Grübler's count)");
    c.dt = 0.001;
    c.steps = 3000 / scale;
    c.conservative = true;
    c.measure_name = "largest displacement [m]";
    c.measure = max_displacement;
    s.push_back(c);
  }
  {
    Scene c = scene("stack", write_scene(tmp, "stack", stack_xml(5)), "5 cubes stacked on a floor, at rest");
    c.steps = 1000 / scale;
    c.measure_name = "largest displacement [m]";
    c.measure = max_displacement;
    s.push_back(c);
  }
  {
    Scene c = scene("a1_stand", src + "/robots/a1/xml/a1.xml", "the A1 standing under joint PD (kp 60, kd 1.5)");
    c.steps = 1000 / scale;
    c.start = a1_start;
    HingePd pd{60, 1.5, [](double, int h) { return h % 3 == 0 ? 0.0 : h % 3 == 1 ? 0.9 : -1.8; }};
    c.control = pd;
    c.measure_name = "trunk height [m]";
    c.measure = [](const Model&, const std::vector<BodyState>&, const std::vector<BodyState>& b, double) { return b[0].x.z(); };
    s.push_back(c);
  }
  {
    Scene c = scene("a1_random", src + "/robots/a1/xml/a1.xml", "the A1 under PD to random targets (new every 0.1 s)");
    c.steps = 1000 / scale;
    c.start = a1_start;
    // targets uniform within ±0.2 rad of standing, the same sequence in every engine (±0.3 rad tips
    // the A1 over in about half the draws, in every engine: which ones is chance, not physics)
    auto targets = std::make_shared<std::vector<double>>();
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-0.2, 0.2);
    for (int i = 0; i < 12 * 100; ++i) targets->push_back(u(rng));
    HingePd pd{60, 1.5, [targets](double t, int h) {
                 const int k = std::min(99, static_cast<int>(t / 0.1));
                 return (h % 3 == 0 ? 0.0 : h % 3 == 1 ? 0.9 : -1.8) + (*targets)[12 * k + h];
               }};
    c.control = pd;
    c.measure_name = "trunk height [m]";
    c.measure = [](const Model&, const std::vector<BodyState>&, const std::vector<BodyState>& b, double) { return b[0].x.z(); };
    s.push_back(c);
  }
  {
    Scene c = scene("ragdoll_fall", write_scene(tmp, "ragdoll", ragdoll_xml()), "a ragdoll of capsules falling from standing");
    c.steps = 1000 / scale;
    c.measure_name = "torso height [m]";
    c.measure = [](const Model&, const std::vector<BodyState>&, const std::vector<BodyState>& b, double) { return b[0].x.z(); };
    s.push_back(c);
  }
  {
    Scene c = scene("humanoid_fall", src + "/tests/data/models/mujoco_models/humanoid/humanoid.xml", "MuJoCo's humanoid falling from its pose");
    c.dt = 0.005;
    c.steps = 400 / scale;
    c.measure_name = "torso height [m]";
    c.measure = [](const Model&, const std::vector<BodyState>&, const std::vector<BodyState>& b, double) { return b[0].x.z(); };
    s.push_back(c);
  }
  return s;
}

Scene file_scene(const std::string& file, double seconds, double dt) {
  Scene c = scene(fs::path(file).stem().string(), file, "the file's robot falling from its pose");
  // as `maxsim simulate` starts it (run/setup.hpp): loops closed, a URDF base lifted onto the ground
  c.start = [](Model& m, Data& d) {
    project_state(m, d);
    if (m.contacts && m.opt.contact.ground) run::lift_to_ground(m, d);
  };
  if (dt <= 0) dt = load_model(file).opt.timestep;
  c.dt = dt;
  c.steps = std::max(1, static_cast<int>(std::lround(seconds / dt)));
  c.measure_name = "root height [m]";
  c.measure = [](const Model&, const std::vector<BodyState>&, const std::vector<BodyState>& b, double) {
    return b.empty() ? 0.0 : b[0].x.z();
  };
  return c;
}

}  // namespace maxsim::bench
