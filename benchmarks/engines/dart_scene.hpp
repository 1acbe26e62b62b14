// The scene handed from the DART engine (dart_engine.cpp) to its backend (dart_backend.cpp), in
// plain types only.
//
// Why a plain description: maxsim compiles with EIGEN_MAX_ALIGN_BYTES=32 (public definitions of its
// libraries) while libdart.so was compiled with Eigen's default alignment. A translation unit that
// saw both would lay DART's classes out differently from the library and crash, so dart_engine.cpp
// (maxsim's definitions, maxsim headers) and dart_backend.cpp (DART headers, default Eigen) only
// share this header: no Eigen, no maxsim, no DART.
//
// Conventions: vectors are world or body-frame components as stated; quaternions are scalar
// first (w, x, y, z), frame -> parent frame (maxsim's). DART's BodyNode frame of a body is
// maxsim's body frame (origin at the centre of mass), so poses and velocities pass unchanged.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace maxsim::bench {

namespace dart_scene {

using V3 = std::array<double, 3>;
using Q4 = std::array<double, 4>;  // w, x, y, z

// A frame given in another frame (a body's, or the world's).
struct Frame {
  V3 p{0, 0, 0};
  Q4 q{1, 0, 0, 0};
};

// A rigid body: a DART BodyNode whose frame is maxsim's body frame.
struct Body {
  std::string name;
  double mass = 1;
  std::array<double, 9> inertia{1, 0, 0, 0, 1, 0, 0, 0, 1};  // about the CoM, body frame, row-major
  Frame start;      // start pose in the world
  V3 v{0, 0, 0};    // start CoM velocity (world)
  V3 w{0, 0, 0};    // start angular velocity (body frame)
};

// The DART joint types the translation uses.
enum class JointKind {
  Free,      // FreeJoint: dofs (rotation vector, translation), rates (ω, v) in the child joint frame
  Revolute,  // RevoluteJoint about joint-frame z
  Prismatic, // PrismaticJoint along joint-frame z
  Ball,      // BallJoint: dofs the rotation vector, rates ω in the child joint frame
  Weld,      // WeldJoint
  Planar,    // PlanarJoint in the joint frame's xy plane: dofs (x, y, angle about z)
  Translational2D,  // TranslationalJoint2D in the joint frame's xy plane: dofs (x, y)
};

// A joint of a Skeleton's tree (parent created before child). Its frames are the joint frame in
// the parent and in the child body at DART's zero configuration. Per-dof arrays hold the joint's
// number of DART dofs (Free 6, Ball 3, Planar 3, Revolute/Prismatic 1, Weld 0).
struct Joint {
  std::string name;
  JointKind kind = JointKind::Revolute;
  int parent = -1;  // body index, -1: the world (the Skeleton's root joint)
  int child = 0;    // body index
  Frame in_parent, in_child;
  // (DART 6.12 has no armature: dart_engine.cpp leaves it out)
  std::vector<double> damping, stiffness, rest, friction;
  bool limits = false;
  std::vector<double> lower, upper;  // position limits (with `limits`)
  std::vector<double> q, qd;         // start positions and velocities in DART's coordinates
};

// A joint closing a loop: a DART constraint holding `point` (Ball: a revolute or spherical loop
// joint) or the whole relative pose (Weld) between two bodies as they are at the start.
struct LoopJoint {
  std::string name;
  bool weld = false;
  int body_a = -1;  // -1: the world
  int body_b = 0;
  V3 point{0, 0, 0};  // the held point in body_a's frame (the world's if body_a is -1)
  V3 axis{0, 0, 1};   // a revolute loop joint's axis in body_a's frame (for its joint force)
};

enum class GeomKind { Sphere, Box, Capsule, Cylinder, Mesh };

// A collision shape fixed in a body or in the world.
struct Geom {
  std::string name;
  int body = -1;   // -1: fixed in the world
  GeomKind kind = GeomKind::Sphere;
  // Sphere (r); Box: full extents; Capsule, Cylinder: (r, full length of the axis part along z)
  V3 size{0, 0, 0};
  Frame pose;      // in the body frame (the world's for world geoms)
  std::vector<V3> vertices;  // Mesh: vertices in the geom frame (collision uses their convex hull)
  std::vector<std::array<int, 3>> faces;  // Mesh: the description's faces (informative)
  double friction = 0.8;     // this geom's own μ (DynamicsAspect), the pair table decides
};

// The whole scene.
struct Scene {
  std::vector<Body> bodies;
  std::vector<Joint> joints;  // in creation order: a joint's parent body comes earlier
  std::vector<LoopJoint> loops;
  std::vector<Geom> geoms;
  // Per geom pair (i * geoms.size() + j, symmetric): the pair's sliding friction μ when the two
  // may collide, < 0 when they never do.
  std::vector<double> pair_friction;
  V3 gravity{0, 0, -9.81};
  double dt = 0.01;
  // Collision detector: false DART's default (FCL, primitives as meshes), true DART's own
  // (DARTCollisionDetector: spheres and boxes only).
  bool dart_collision_detector = false;
};

}  // namespace dart_scene

// A DART world built from a Scene. Implemented in dart_backend.cpp (which alone sees DART), built
// as a shared library with hidden visibility (see dart_backend.cpp): this class is all it exports.
class __attribute__((visibility("default"))) DartWorld {
 public:
  DartWorld();
  ~DartWorld();
  DartWorld(const DartWorld&) = delete;
  DartWorld& operator=(const DartWorld&) = delete;

  // Builds the Skeletons, shapes, loop constraints and the World, at the scene's start.
  // Throws std::runtime_error when DART refuses something.
  void load(const dart_scene::Scene& scene);
  // Adds a generalized force on dof `dof` of joint `joint` (scene.joints index) for the next step.
  // Free joints: dofs 3..5 take a force along the PARENT joint frame's x, y, z (maxsim's rows),
  // rotated here into DART's child-frame dofs at the current pose.
  void add_force(int joint, int dof, double force);
  // A revolute loop joint's generalized force (a torque on body_b about its axis, the opposite on
  // body_a) for the next step.
  void add_loop_torque(int loop, double torque);
  // One step of scene.dt; clears the forces.
  void step();
  // Body `body`'s CoM position, orientation (w x y z), CoM velocity (world), ω (body frame).
  void body_state(int body, double x[3], double q[4], double v[3], double w[3]) const;
  int num_contacts() const;  // contacts found by the last step's collision detection

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace maxsim::bench
