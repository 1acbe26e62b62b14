// One interface for every physics engine the comparison runs (benchmarks/compare_engines.cpp).
//
// Every engine simulates the same scene: maxsim's reading of the description (its Model: bodies,
// joints, geoms and world) translated into the engine's own objects, or, for an engine with a
// reader of its own (MuJoCo), the same file. Every engine reports its state in maxsim's body
// order and conventions (BodyState), so that one implementation of each metric (penetration,
// creep, loop violation, energy) measures all of them. Each engine is optional at build time;
// engine_registry.cpp lists the built ones and names the missing.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/model.hpp"

namespace maxsim::bench {

// One body's state in maxsim's conventions (sim/data.hpp): centre-of-mass position and orientation
// (body -> world, scalar-first quaternion) of the body frame maxsim uses, linear velocity of the
// centre of mass (world) and angular velocity (body frame).
struct BodyState {
  Vec3 x = Vec3::Zero();
  Vec4 q = quat_identity();
  Vec3 v = Vec3::Zero();
  Vec3 w = Vec3::Zero();
};

// What an engine is given to build a scene.
struct SceneSetup {
  const Model* model = nullptr;  // maxsim's reading of the description (its actuators are ignored)
  std::string file;              // the MJCF or URDF file it came from
  double dt = 0.01;              // time step [s]
  // The start, consistent with the joints: every body's state, and every joint's coordinates and
  // rates in maxsim's conventions (sim/state/kinematics.hpp get_coordinates: measured from the
  // pose the description defines; a ball or floating rotation as a quaternion w x y z).
  std::vector<BodyState> start;
  std::vector<std::vector<double>> start_q, start_qd;
  // MuJoCo's qpos and qvel of the same start (sim/state/state.hpp get_qpos), for MJCF readers
  std::vector<double> start_qpos, start_qvel;
  // Body pairs (a < b; a = kWorld: the world's geoms and the ground) whose geoms overlap at the
  // start and whose joints keep them from parting (a URDF's neighbouring meshes, an arm's first
  // link in its base): maxsim ignores them until they separate (ContactOptions::start_overlap),
  // the translated engines for the whole run (PyBullet leaves a URDF's self-collision off).
  std::vector<std::pair<int, int>> start_overlaps;
  bool overlapping_at_start(int a, int b) const;  // whether {a, b} is one of them
};

// A scene an engine cannot represent (a joint type, a shape, a file format): the comparison
// reports the message in the engine's row instead of a number.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An engine stepping one scene. Contacts: every geom pair maxsim's model lets collide (the MJCF
// contype/conaffinity bits, the excluded pairs, no collision between a joint's two bodies), the
// sliding friction μ of a pair the larger of its geoms' (Geom::friction, < 0: the model's default
// model.opt.contact.friction), no restitution. Gravity model.opt.gravity. The description's
// actuators apply nothing: forces come from set_joint_force only.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;  // "maxsim", "mujoco", "bullet", "dart"
  // Builds the scene at setup's start; throws Unsupported naming what it cannot represent.
  virtual void load(const SceneSetup& setup) = 0;
  // A generalized force on free row `row` (0..2 translations, 3..5 rotations, maxsim's joint frame)
  // of joint `joint` over the next step only [N or N·m]; the row has a scalar coordinate
  // (sim/state/kinematics.hpp row_has_coordinate).
  virtual void set_joint_force(int joint, int row, double force) = 0;
  // Advances one step of setup.dt; false if the engine reports the step as failed (the driver also
  // counts a non-finite state as a failure).
  virtual bool step() = 0;
  // Every body's state, in the model's body order.
  virtual void read(std::vector<BodyState>* bodies) const = 0;
  // The engine's own measure of the mechanical energy, if it defines one other than the one the
  // driver computes from read() (maxsim's variational integrators: the discrete energy they keep);
  // false: none.
  virtual bool own_energy(double* energy) const {
    (void)energy;
    return false;
  }
  // Solver iterations of the last step (0: the engine does not say).
  virtual int iterations() const { return 0; }
};

// The engines this build has, in the order the comparison runs them ("maxsim" first).
std::vector<std::string> built_engines();
// The engines this build lacks, each with the Debian package that brings it.
std::vector<std::string> missing_engines();
// A new engine of that name; throws std::invalid_argument for an engine this build lacks.
std::unique_ptr<Engine> make_engine(const std::string& name);

// The engines' constructors (each defined in its own file, compiled only when the engine is there).
std::unique_ptr<Engine> make_maxsim_engine();
std::unique_ptr<Engine> make_mujoco_engine();
std::unique_ptr<Engine> make_bullet_engine();
std::unique_ptr<Engine> make_dart_engine();

// Shared by the translators: the sliding friction μ of a geom (its own, else the model's default).
inline double geom_friction(const Model& model, const Geom& g) {
  return g.friction >= 0 ? g.friction : model.opt.contact.friction;
}

}  // namespace maxsim::bench

namespace maxsim {
struct Data;  // sim/data.hpp
}

namespace maxsim::bench {

// The setup of a scene at the state `data` holds (its bodies, coordinates and MuJoCo's qpos/qvel):
// set the start with set_coordinates (sim/state/kinematics.hpp) on a Data of `model` first.
SceneSetup make_setup(const Model& model, const std::string& file, double dt, const Data& data);
// Every body's state in `data`, and the reverse: `data`'s bodies placed at `bodies`, its joints'
// unwrapped angles (Data::joint_angle) following them by the shortest turn.
std::vector<BodyState> body_states(const Data& data);
void place_bodies(const Model& model, const std::vector<BodyState>& bodies, Data* data);

}  // namespace maxsim::bench
