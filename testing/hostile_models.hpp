// Generated descriptions for the loaders' bounds and timings (tests/test_hostile.cpp,
// benchmarks/bench_load.cpp): long URDF chains and stars, a wide MJCF tree, and the MJCF include
// bomb (a few small files, each including the next one many times).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace maxsim::hostile {

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// One URDF link: 1 kg, a 0.1 m collision box.
inline std::string urdf_link(int i) {
  return "  <link name=\"l" + std::to_string(i) +
         "\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" "
         "iyz=\"0\" izz=\"0.01\"/></inertial><collision><geometry><box size=\"0.1 0.1 0.1\"/>"
         "</geometry></collision></link>\n";
}

// A revolute joint from link `parent` to link `child`, its origin `xyz` in the parent's frame.
inline std::string urdf_joint(int parent, int child, const std::string& xyz) {
  return "  <joint name=\"j" + std::to_string(child) + "\" type=\"revolute\"><parent link=\"l" +
         std::to_string(parent) + "\"/><child link=\"l" + std::to_string(child) + "\"/><origin xyz=\"" +
         xyz + "\"/><axis xyz=\"1 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n";
}

// n links, each hinged 0.1 m above the previous one (a URDF is flat XML however long the chain).
// leaf_first: links and joints listed from the free end, so nothing finds a parent before its
// child.
inline std::string urdf_chain(int n, bool leaf_first = false) {
  std::string links, joints;
  for (int k = 0; k < n; ++k) {
    const int i = leaf_first ? n - 1 - k : k;
    links += urdf_link(i);
    if (i > 0) joints += urdf_joint(i - 1, i, "0 0 0.1");
  }
  return "<robot name=\"chain\">\n" + links + joints + "</robot>\n";
}

// A hub and n - 1 links hinged to it, side by side 0.2 m apart.
inline std::string urdf_star(int n) {
  std::string text = "<robot name=\"star\">\n" + urdf_link(0);
  for (int i = 1; i < n; ++i)
    text += urdf_link(i) + urdf_joint(0, i, std::to_string(0.2 * i) + " 0 0.1");
  return text + "</robot>\n";
}

// An MJCF torso with n - 1 hinged children (a wide tree: MJCF nests bodies, and tinyxml2 reads at
// most 100 levels, so a long MJCF chain cannot be written in one file).
inline std::string mjcf_star(int n) {
  std::string text = "<mujoco model=\"star\">\n<worldbody>\n<body name=\"hub\" pos=\"0 0 1\">\n"
                     "<freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\"/>\n";
  for (int i = 1; i < n; ++i)
    text += "<body name=\"b" + std::to_string(i) + "\" pos=\"" + std::to_string(0.2 * i) +
            " 0 0\"><joint type=\"hinge\" axis=\"1 0 0\"/><geom type=\"sphere\" size=\"0.05\"/></body>\n";
  return text + "</body>\n</worldbody>\n</mujoco>\n";
}

// The include bomb: bomb.xml includes b1.xml `fanout` times, b1.xml includes b2.xml `fanout`
// times, ..., and b`levels`.xml holds `fanout` geoms: fanout^(levels + 1) geoms from a few hundred
// bytes per file (6 levels of 10: 10 million geoms in about 2 KB). Returns the main file.
inline std::filesystem::path write_include_bomb(const std::filesystem::path& dir, int levels = 6,
                                                int fanout = 10) {
  std::filesystem::create_directories(dir);
  auto name = [](int level) {  // (appended piecewise: GCC 12 raises a false -Wrestrict on "b" + std::string&&)
    std::string n = "b";
    n += std::to_string(level);
    n += ".xml";
    return n;
  };
  auto includes = [&](int next) {
    std::string s;
    for (int k = 0; k < fanout; ++k) s += "<include file=\"" + name(next) + "\"/>";
    return s;
  };
  write_text(dir / "bomb.xml", "<mujoco><worldbody>" + includes(1) + "</worldbody></mujoco>\n");
  for (int l = 1; l < levels; ++l) write_text(dir / name(l), "<mujoco>" + includes(l + 1) + "</mujoco>\n");
  std::string geoms;
  for (int k = 0; k < fanout; ++k) geoms += "<geom size=\"0.1\"/>";
  write_text(dir / name(levels), "<mujoco>" + geoms + "</mujoco>\n");
  return dir / "bomb.xml";
}

// `levels` MJCF bodies nested in one another, 90 to a file (tinyxml2 reads at most 100 levels
// of one file): nest0.xml holds the first 90 and includes nest1.xml inside its innermost body,
// and so on. Returns the main file.
inline std::filesystem::path write_nested_bodies(const std::filesystem::path& dir, int levels) {
  std::filesystem::create_directories(dir);
  constexpr int kPerFile = 90;
  const int files = (levels + kPerFile - 1) / kPerFile;
  for (int f = 0; f < files; ++f) {
    const int n = std::min(kPerFile, levels - f * kPerFile);
    std::string open, close;
    for (int i = 0; i < n; ++i) {
      open += "<body name=\"n" + std::to_string(f * kPerFile + i) +
              "\"><joint type=\"hinge\"/><geom type=\"sphere\" size=\"0.01\"/>";
      close += "</body>";
    }
    const std::string inner = f + 1 < files ? "<include file=\"nest" + std::to_string(f + 1) + ".xml\"/>" : "";
    const std::string body = open + inner + close;
    write_text(dir / ("nest" + std::to_string(f) + ".xml"),
               f == 0 ? "<mujoco><worldbody>" + body + "</worldbody></mujoco>\n" : "<mujoco>" + body + "</mujoco>\n");
  }
  return dir / "nest0.xml";
}

}  // namespace maxsim::hostile
