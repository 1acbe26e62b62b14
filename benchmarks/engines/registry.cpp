// Which engines this build has (each optional engine's file is compiled only when the engine is
// installed, and defines MAXSIM_HAVE_<ENGINE> for this file: CMakeLists.txt).
#include <stdexcept>

#include "benchmarks/engines/engine.hpp"

namespace maxsim::bench {

std::vector<std::string> built_engines() {
  std::vector<std::string> e = {"maxsim"};
#ifdef MAXSIM_HAVE_MUJOCO
  e.push_back("mujoco");
#endif
#ifdef MAXSIM_HAVE_BULLET_DYNAMICS
  e.push_back("bullet");
#endif
#ifdef MAXSIM_HAVE_DART
  e.push_back("dart");
#endif
  return e;
}

std::vector<std::string> missing_engines() {
  std::vector<std::string> e;
#ifndef MAXSIM_HAVE_MUJOCO
  e.push_back("mujoco (libmujoco-dev)");
#endif
#ifndef MAXSIM_HAVE_BULLET_DYNAMICS
  e.push_back("bullet (libbullet-dev with BulletDynamics)");
#endif
#ifndef MAXSIM_HAVE_DART
  e.push_back("dart (libdart-dev)");
#endif
  return e;
}

std::unique_ptr<Engine> make_engine(const std::string& name) {
  if (name == "maxsim") return make_maxsim_engine();
#ifdef MAXSIM_HAVE_MUJOCO
  if (name == "mujoco") return make_mujoco_engine();
#endif
#ifdef MAXSIM_HAVE_BULLET_DYNAMICS
  if (name == "bullet") return make_bullet_engine();
#endif
#ifdef MAXSIM_HAVE_DART
  if (name == "dart") return make_dart_engine();
#endif
  std::string built;
  for (const std::string& e : built_engines()) built += (built.empty() ? "" : ", ") + e;
  throw std::invalid_argument("engine '" + name + "' is not in this build (built: " + built + ")");
}

}  // namespace maxsim::bench
