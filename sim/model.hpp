// The constant description of a mechanism (Pinocchio's "Model"): bodies, their geometry and the
// joints between them. Built once by a loader or by hand; the per-step state and workspace live
// in `Data` (sim/data.hpp).
//
// Bodies are maximal-coordinate rigid bodies: the body frame has its origin at the centre of mass;
// its orientation is free (loaders keep the link frame's orientation). Joints are a translational
// plus a rotational constraint part (docs/computation.md §3; Brüdigam et al. 2023, Appendix B)
// written in a *joint frame* fixed in each of the two bodies; the joint frame's z axis is the
// joint's primary axis. At the zero configuration the two joint frames coincide.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/options.hpp"
#include "sim/math/quaternion.hpp"

namespace maxsim {

constexpr int kWorld = -1;  // parent index of joints attached to the fixed world

// ---- geometry -------------------------------------------------------------------------------
// The shape of a geom.
// HField: a height field (Model::hfields[Geom::hfield]) fixed in the world, MuJoCo's <hfield>.
enum class GeomType { Plane, Sphere, Box, Capsule, Cylinder, Ellipsoid, Mesh, HField };

// The shape's name as MJCF writes it ("sphere", "box", …).
const char* geom_type_name(GeomType t);

// A shape fixed in a body (or in the world): collision geometry, or visual only.
struct Geom {
  std::string name;             // empty if the description gave none
  GeomType type = GeomType::Sphere;  // its shape
  Vec3 pos = Vec3::Zero();      // geom frame origin in the body frame
  Vec4 quat = quat_identity();  // geom frame orientation in the body frame
  // sphere: (r, -, -); box: half extents; capsule, cylinder: (radius, half length along z, -);
  // ellipsoid: semi-axes; plane: (half x, half y, -) with 0 meaning infinite; mesh: unused.
  Vec3 size = Vec3::Zero();
  std::string mesh_file;            // mesh: resolved path of the file it came from
  Vec3 mesh_scale = Vec3::Ones();   // already applied to `vertices`
  std::vector<Vec3> vertices;       // mesh: vertices in the geom frame (collision uses their hull)
  std::vector<Eigen::Vector3i> faces;
  bool collision = true;            // false: visual only
  double friction = -1;             // sliding friction coefficient; < 0: the world default
  // MJCF's contact dimensionality and priority (MuJoCo's rule, sim/geometry/collision.hpp): 1
  // frictionless, 3 sliding friction, 4 and 6 also torsional friction (rolling is not modelled)
  int condim = 3;
  int priority = 0;
  double torsional_friction = 0.005;  // torque per normal force [m] (MJCF friction's 2nd value)
  double restitution = -1;          // coefficient of restitution; < 0: the world default
  int contype = 1, conaffinity = 1; // MJCF collision filtering bits
  double margin = 0;                // contact candidate search margin [m]
  Eigen::Vector4d rgba = Eigen::Vector4d(0.7, 0.7, 0.7, 1.0);
  int hfield = -1;                  // HField: its height field (Model::hfields)
};

// A height field (MJCF <hfield>, MuJoCo's semantics): elevations on a regular grid of nrow rows
// (along y) and ncol columns (along x) over [-size(0), size(0)] × [-size(1), size(1)] of the frame
// of the geom that uses it. Vertex (r, c) is at x = -size(0) + 2 size(0) c / (ncol - 1),
// y = -size(1) + 2 size(1) r / (nrow - 1), z = size(2) · data[r · ncol + c] (data in [0, 1]; row 0
// is the -y edge, MuJoCo's mjModel order). The solid is the union of the triangular prisms of the
// cells (each cell split along its (r, c)–(r + 1, c + 1) diagonal) down to the base z = -size(3).
struct HeightField {
  std::string name;                    // the asset's name
  int nrow = 0, ncol = 0;              // grid size, each >= 2
  Eigen::Vector4d size = Eigen::Vector4d::Ones();  // (radius x, radius y, elevation z, base depth)
  std::vector<double> data;            // nrow · ncol normalized elevations, row-major
  // Counts changes made through Model::set_hfield_data: a Data's contact search rebuilds its
  // collision world when it differs from the one it was built with.
  unsigned long revision = 0;
};

// A collision geom of the given type and size (see Geom::size) at pos/quat in the body frame.
Geom make_geom(GeomType type, const Vec3& size, const Vec3& pos = Vec3::Zero(),
               const Vec4& quat = quat_identity());

// ---- bodies ---------------------------------------------------------------------------------
// A rigid body in maximal coordinates: its frame's origin is the centre of mass.
struct Body {
  std::string name;                 // the description's link or body name
  double mass = 1.0;                // kg
  Mat3 inertia = Mat3::Identity();  // about the CoM, in the body frame
  Vec3 x0 = Vec3::Zero();           // zero-configuration CoM position (world)
  Vec4 q0 = quat_identity();        // zero-configuration orientation (body -> world)
  Vec3 link_origin = Vec3::Zero();  // the description's link-frame origin, in the body frame
  std::vector<Geom> geoms;          // its geometry, in the body frame
};

// ---- joints ---------------------------------------------------------------------------------
// Translational part, in the joint frame (z = axis): which of x, y, z are constrained.
enum class TransKind { Fixed, Prismatic, Planar, Free };  // xyz | xy (slide z) | z (slide xy) | none
// Rotational part: which relative rotation axes are constrained.
enum class RotKind { Fixed, Revolute, Orbital, Free };    // xyz | xy (turn z) | z (tilt xy) | none

// The 16 prototypes of Brüdigam et al. (2023), Appendix B, and Dojo (translational ×
// rotational part).
enum class JointType {
  Fixed, Prismatic, Planar, FixedOrientation,
  Revolute, Cylindrical, PlanarAxis, FreeRevolute,
  Orbital, PrismaticOrbital, PlanarOrbital, FreeOrbital,
  Spherical, CylindricalFree, PlanarFree, Floating
};

// Constrained rows of each joint type (bit r = row r: translations 0..2, rotations 3..5), in
// the order of JointType (checked against the type table in model.cpp). Inline: the step asks
// for every row of every joint in each residual.
inline constexpr unsigned char kJointConstrainedRows[] = {
    0b111111, 0b111011, 0b111100, 0b111000,  // rotation fixed
    0b011111, 0b011011, 0b011100, 0b011000,  // revolute
    0b100111, 0b100011, 0b100100, 0b100000,  // orbital
    0b000111, 0b000011, 0b000100, 0b000000,  // rotation free
};

TransKind trans_kind(JointType t);  // the type's translational part
RotKind rot_kind(JointType t);      // the type's rotational part
const char* joint_type_name(JointType t);  // "revolute", "spherical", …
// The type of that name (joint_type_name); false if there is none.
bool joint_type_from_name(const std::string& name, JointType* out);

// A joint has six rows: 0..2 translational (joint-frame x, y, z), 3..5 rotational. Each row is
// either constrained (an equality on the next configuration) or free (a minimal coordinate,
// carrying springs, dampers, actuation and limits).
struct Joint {
  std::string name;                    // the description's joint name
  JointType type = JointType::Revolute;  // which rows are constrained
  int parent = kWorld;                 // parent body index, or kWorld
  int child = 0;                       // child body index
  Vec3 parent_anchor = Vec3::Zero();   // joint origin in the parent body frame
  Vec3 child_anchor = Vec3::Zero();    // joint origin in the child body frame
  Vec4 parent_frame = quat_identity(); // joint frame orientation in the parent body frame
  Vec4 child_frame = quat_identity();  // joint frame orientation in the child body frame
  // per row (only free rows are used):
  std::array<double, 6> stiffness{};   // spring, N/m or N·m/rad
  std::array<double, 6> damping{};     // damper, N·s/m or N·m·s/rad
  std::array<double, 6> spring_ref{};  // spring rest coordinate
  std::array<double, 6> lower{};       // limits (with has_limits), docs/computation.md (43)
  std::array<double, 6> upper{};
  std::array<double, 6> effort{};      // actuator effort limit, 0 = none
  std::array<double, 6> velocity{};    // velocity limit (informative), 0 = none
  std::array<double, 6> friction{};    // dry (Coulomb) friction force/torque on the row
  std::array<double, 6> armature{};    // reflected rotor inertia on the row, kg·m² or kg
  // MuJoCo's qpos of the zero configuration of a one-coordinate joint (MJCF `ref`): maxsim's
  // coordinates are measured from the pose the file defines, MuJoCo's from ref
  // (sim/state/state.hpp)
  double ref = 0;
  bool has_limits = false;             // a row has lower < upper, or cone_limit > 0
  // A joint whose three rotations are free (a ball): the largest angle of its relative rotation
  // from the zero configuration, whatever the axis, in (0, π] (MuJoCo's ball `range`; with
  // has_limits; docs/computation.md (115)); 0: none
  double cone_limit = 0;
  bool actuated = true;                // free rows accept joint_force input
  // Rotation rows as Davenport angles (an MJCF body with several hinges through one anchor):
  // the joint-frame axes (0 x, 1 y, 2 z) of the successive hinges, R_rel = R(e_s0, θ_s0)
  // R(e_s1, θ_s1) [R(e_s2, θ_s2)], free row 3 + s_m being hinge m's angle (docs/computation.md
  // (94)–(97)). Two hinges (RotKind::Orbital, {s0, s1} = {0, 1}, s2 = -1): a universal joint whose
  // constrained row 5 is e_s0ᵀ R_rel e_s1. Three (RotKind::Free, a permutation): three angles and
  // no quaternion (nq = dof). s0 < 0: the rows are measured per axis (the other kinds).
  std::array<int, 3> hinge_sequence{-1, -1, -1};
  // Davenport joints whose hinges pass through different points: hinge m + 1's anchor minus hinge
  // m's, in the joint frame at the zero configuration. The anchors (parent_anchor, child_anchor) are
  // then the first hinge's in the parent and the last hinge's in the child, and the translational
  // rows subtract the offset chain the hinges turn (docs/computation.md (98)–(100)). Zero: one anchor.
  std::array<Vec3, 2> hinge_offset{Vec3::Zero(), Vec3::Zero()};
  // Two-hinge Davenport joints whose axes are not orthogonal: the cosine c of the angle between
  // them. Hinge 0 turns about e_s0, hinge 1 about c e_s0 + √(1 − c²) e_s1 (as hinge 0 turns it);
  // the constrained row is e_s0ᵀ R_rel a_1 − c (docs/computation.md (118)). 0: orthogonal.
  double hinge_cosine = 0;
  // Per row, the description's name of a one-coordinate joint that became this row (an MJCF body's
  // hinges and slides merged into one joint); empty: the row is known by the joint's name only.
  std::array<std::string, 6> row_names;
  // Per row, MuJoCo's qpos of that merged hinge or slide at the zero configuration (its `ref`, as
  // Joint::ref for a one-coordinate joint)
  std::array<double, 6> row_ref{};
  // The free rows in the order of the joint's coordinates (sim/state/kinematics.hpp), when the
  // first entry is >= 0: MuJoCo's order of the hinges and slides an MJCF body's joint merges (its
  // joint frame's axes follow their directions). Default (-1): ascending rows. Joints whose
  // rotation is a quaternion (nq > dof) keep the default.
  std::array<int, 6> coordinate_order{-1, -1, -1, -1, -1, -1};

  bool davenport() const { return hinge_sequence[0] >= 0; }  // rotation rows are Davenport angles
  bool hinge_offsets() const { return !hinge_offset[0].isZero(0) || !hinge_offset[1].isZero(0); }  // hinges through several anchors

  // whether row `row` (0..5) is constrained
  bool row_constrained(int row) const { return (kJointConstrainedRows[static_cast<int>(type)] >> row) & 1; }
  int dof() const;                     // number of free rows (velocity coordinates)
  int nq() const;                      // position coordinates: dof, +1 with 3 free rotation rows
                                       // (those rotations are given as a quaternion w, x, y, z,
                                       // unless they are Davenport angles)
  int constrained_rows() const { return 6 - dof(); }  // number of constrained rows
  std::array<int, 6> free_rows() const;  // the free rows in order; first dof() entries are valid
};

// ---- actuators, keyframes (from the description files) ---------------------------------------
// An actuator drives one free row of one joint (MJCF <actuator>, URDF effort limits) from one
// command u (Data::ctrl); sim/actuation.hpp has its force law (MuJoCo's formulas) and applies it
// in every step. Motor: u is the force; Position / Velocity: servos to u; PD: a position servo
// that also tracks a reference rate and takes a feed-forward force (controllers use it; from
// Data::ctrl alone, with rate and feed-forward 0, it is a Position servo with kv on the rate).
struct Actuator {
  // its force law (see above)
  enum class Kind { Motor, Position, Velocity, PD };
  std::string name;        // the description's actuator name
  Kind kind = Kind::Motor; // its force law
  int joint = -1;          // the joint it drives
  int row = -1;            // the joint row it drives (a free row with a scalar coordinate)
  int tendon = -1;         // or (>= 0, joint and row unused) the tendon it pulls (Model::tendons)
  double gear = 1.0;       // transmission: length l = gear·q, joint force = gear·f
  double kp = 0, kv = 0;   // position / velocity servo gains
  bool ctrl_limited = false;               // the command is clamped to [ctrl_lower, ctrl_upper]
  double ctrl_lower = 0, ctrl_upper = 0;   // command range
  bool force_limited = false;              // the force is clamped to [force_lower, force_upper]
  double force_lower = 0, force_upper = 0;  // actuator space (joint force = gear · force)
};

// ---- sites, tendons and couplings (MJCF <site>, <tendon>, <equality joint|tendon>, URDF <mimic>) ----
// A site: a named frame fixed in a body (or the world), a point of spatial tendons and sensors.
struct Site {
  std::string name;             // the description's name (may be empty)
  int body = kWorld;            // the body it is fixed in, or kWorld
  Vec3 pos = Vec3::Zero();      // origin in the body frame (the CoM frame) or the world
  Vec4 quat = quat_identity();  // orientation in the body frame
  // Its volume, the zone of a touch sensor (MJCF type and size: sphere (r), capsule and cylinder
  // (r, half length along z), ellipsoid (semi-axes), box (half extents)).
  GeomType type = GeomType::Sphere;
  Vec3 size = Vec3::Constant(0.005);
};

// ---- sensors (MJCF <sensor>; computed by sim/sensor/sensors.hpp) ------------------------------
// What a sensor measures, with MuJoCo's semantics, frames and units (docs/modeling.md, "Sensors").
enum class SensorType {
  Touch, Accelerometer, Velocimeter, Gyro, Force, Torque, Magnetometer, Rangefinder,  // at a site
  JointPos, JointVel, BallQuat, BallAngVel, JointActuatorFrc,             // a joint
  JointLimitPos, JointLimitVel, JointLimitFrc,                            // a joint's limit
  TendonPos, TendonVel,                                                   // a tendon
  TendonLimitPos, TendonLimitVel, TendonLimitFrc,                         // a tendon's limit
  ActuatorPos, ActuatorVel, ActuatorFrc,                                  // an actuator
  FramePos, FrameQuat, FrameXAxis, FrameYAxis, FrameZAxis, FrameLinVel, FrameAngVel,  // a frame
  FrameLinAcc, FrameAngAcc,
  SubtreeCom, SubtreeLinVel, SubtreeAngMom,                               // a body's subtree
  Clock,                                                                  // the time
};

// A frame fixed in a body (or the world) that a sensor reads: an MJCF site, geom, body (its
// inertial frame) or xbody (its own frame), placed by the loader.
struct SensorFrame {
  int body = kWorld;            // the body it is fixed in, or kWorld
  Vec3 pos = Vec3::Zero();      // origin in the body frame (the CoM frame) or the world
  Vec4 quat = quat_identity();  // orientation in the body frame
};

// A sensor: what it reads (its type and object) and where its values go in Data::sensordata.
struct Sensor {
  std::string name;                       // the description's name (may be empty)
  SensorType type = SensorType::Clock;    // what it measures
  // Touch … Rangefinder: the site (Model::sites); JointPos … JointLimitFrc: the joint;
  // Tendon*: the tendon; Actuator*: the actuator; Subtree*: the body (kWorld: all)
  int object = -1;
  int row = -1;             // joint sensors: the joint row (an MJCF hinge or slide merged into its body's joint)
  SensorFrame frame;        // Frame*: the frame read
  bool relative = false;    // FramePos … FrameAngVel: measured in `ref` instead of the world
  SensorFrame ref;          // (MJCF reftype/refname)
  double noise = 0;         // standard deviation of the noise added when ModelOptions::sensor_noise
  double cutoff = 0;        // > 0: values clamped to ±cutoff (touch, rangefinder: to cutoff; quaternions and axes not)
  int dim = 1;              // its number of values (set by Model::add_sensor)
  int adr = 0;              // its first index in Data::sensordata (set by Model::add_sensor)
};

// One term of a fixed tendon: coef times the scalar coordinate of a free joint row.
struct TendonJointTerm {
  int joint = -1;     // the joint
  int row = -1;       // its free row with a scalar coordinate (row_has_coordinate)
  double coef = 1.0;  // the term's coefficient
};

// One element of a spatial tendon's path, in order (MuJoCo's <spatial> children).
struct TendonPathElement {
  // a point, a wrapping geom, or a pulley
  enum class Kind { Site, Geom, Pulley };
  Kind kind = Kind::Site;                  // what this element is
  int site = -1;          // Site: the site (Model::sites)
  int geom_body = kWorld; // Geom: the wrapping geom, a sphere or cylinder of this body (kWorld:
  int geom = -1;          //   Model::world_geoms) at index `geom` of its geoms
  int sidesite = -1;      // Geom: the site that chooses the side of the wrap, or -1
  double divisor = 1.0;   // Pulley: the following branch's length is divided by it
};

// A tendon: a scalar length L(q) — a linear combination of joint coordinates (fixed) or the length
// of a path through sites that wraps around geoms (spatial) — with a spring, a damper and limits
// on L, and a transmission for actuators (Actuator::tendon).
struct Tendon {
  // a combination of joint coordinates, or a path
  enum class Kind { Fixed, Spatial };
  std::string name;                        // the description's name (may be empty)
  Kind kind = Kind::Fixed;                 // how L is defined
  std::vector<TendonJointTerm> joints;     // Fixed: L = Σ coef·q
  std::vector<TendonPathElement> path;     // Spatial: the path in order
  double stiffness = 0;                    // spring on L, N/m
  double damping = 0;                      // damper on L̇, N·s/m
  // the spring's rest length: a dead band [lower, upper] (equal for a plain spring); when
  // spring_from_zero the length at the zero configuration (MuJoCo's springlength = -1)
  double spring_lower = 0, spring_upper = 0;
  bool spring_from_zero = true;            // the rest length is L at the zero configuration
  bool limited = false;                    // L is kept in [range_lower, range_upper]
  double range_lower = 0;                  // the lower bound of L (with limited)
  double range_upper = 0;                  // the upper bound of L (with limited)
  double frictionloss = 0;                 // dry friction on L̇ (N)
  double armature = 0;                     // inertia on L̈ (kg)
};

// An exact coupling between two scalar coordinates a and b: a = Σ_k polycoef[k] · b^k measured
// from their zero configurations' values (MJCF <equality joint> and <equality tendon>: polycoef,
// URDF <mimic>: offset + multiplier·b). Without b (b = -1) a is held at polycoef[0].
struct Coupling {
  // what a and b are: joint rows or tendons
  enum class Kind { Joint, Tendon };
  std::string name;                   // its name (may be empty)
  Kind kind = Kind::Joint;            // what a and b are
  int a = -1, a_row = -1;             // Joint: joint index and free row; Tendon: tendon index
  int b = -1, b_row = -1;             // the same for b; b = -1: a is held at polycoef[0]
  std::array<double, 5> polycoef{0, 1, 0, 0, 0};  // the polynomial's coefficients, constant first
};

// A named initial state in joint coordinates (MJCF <keyframe>): per joint its position
// coordinates (joint_nq entries, see sim/state/kinematics.hpp) and rates (dof entries); an empty
// vector leaves that joint at its zero configuration / rest.
struct Keyframe {
  std::string name;                          // the keyframe's name (may be empty)
  double time = 0;                           // simulation time [s]
  std::vector<std::vector<double>> joint_q;  // per joint: its position coordinates
  std::vector<std::vector<double>> joint_qd; // per joint: its rates
  std::vector<double> ctrl;                  // the commands (Data::ctrl), or empty
};

// ---- explicit contact pairs (MJCF <contact><pair>) ------------------------------------------
// A geom pair that collides whatever the filters say (contype/conaffinity, the joint filter,
// contact_excludes), with its own coefficients; the collision search tests it in place of the
// dynamic test of the same two geoms (MuJoCo's mj_collision merges pairs so).
struct ContactPair {
  std::string name;       // its name (may be empty)
  int body1 = kWorld;     // the first geom's body (kWorld: Model::world_geoms)
  int geom1 = -1;         // the first geom's index in its body's geoms
  int body2 = kWorld;     // the second geom's body
  int geom2 = -1;         // the second geom's index in its body's geoms
  double friction = -1;   // sliding friction coefficient; < 0: the geoms' combined (max) as for any contact
  double torsional_friction = -1;  // torque per normal force [m] with condim 4 or 6; < 0: the geoms'
  double margin = -1;     // search margin [m]; < 0: the geoms' (max)
  // 1: frictionless, 3: sliding friction, 4 and 6: and torsional friction (rolling friction, the
  // rest of 6, is not modelled)
  int condim = 3;
};

// ---- the world's rules ----------------------------------------------------------------------
// Which bodies of the mechanism never collide because they are joined (sim/geometry/collision.hpp
// applies it, besides Model::contact_excludes). The two description formats define it differently.
enum class CollisionFilter {
  // URDF (PyBullet's convention), and models built in code: two bodies joined by any joint —
  // loop-closing joints included — directly or through a chain of joints whose intermediate
  // bodies have no collision geoms; bodies welded to the world (Fixed joints from it) are part
  // of the world and never touch its geoms or the ground.
  AnyJoint,
  // MJCF (MuJoCo's mj_contactFilter): exactly the body pairs in Model::filtered_pairs, which the
  // MJCF loader fills with each body and its parent in the file's kinematic tree (weld groups,
  // never the world; none with <flag filterparent="disable"/>). Bodies joined only by an
  // <equality> constraint collide.
  ParentChild,
};

// ---- nonholonomic constraints (Celledoni et al. 2019; docs/computation.md (76)) ------------
// Constraints on a body's velocity that no position constraint implies. The ground of the
// rolling kinds is the plane z = 0 of the world, with the contact point straight below the CoM.
enum class NonholonomicKind {
  // A disk of `radius` with its axis `axis` (body frame) horizontal, rolling upright without
  // slipping (the unicycle of Celledoni et al. 2019, §2): CoM height = radius, axis ⟂ e_z, contact
  // point at rest.
  RollingDisk,
  // A ball of `radius` rolling without slipping (Chaplygin's ball when the inertia is uneven):
  // CoM height = radius, contact point at rest.
  RollingBall,
  // A blade at `point` (body frame, from the CoM) along `direction` (body frame) that cannot move
  // sideways in the ground plane: the Chaplygin sleigh of Celledoni et al., §4.2 (hold the body in
  // the plane with a PlanarAxis joint to the world).
  KnifeEdge,
  // The body's angular velocity has no component along `axis` (body frame): the Suslov problem
  // of Celledoni et al., §4.3.
  AngularVelocity,
};

const char* nonholonomic_kind_name(NonholonomicKind k);  // "rolling_disk", "rolling_ball", "knife_edge", "angular_velocity"
// The kind of that name (nonholonomic_kind_name); false if there is none.
bool nonholonomic_kind_from_name(const std::string& name, NonholonomicKind* out);

// A constraint on one body's velocity (Model::nonholonomic); its parameters by kind.
struct NonholonomicConstraint {
  std::string name;                  // its name (may be empty)
  NonholonomicKind kind = NonholonomicKind::RollingDisk;  // what it constrains
  int body = 0;                      // the constrained body
  double radius = 0;                 // rolling kinds
  Vec3 axis = Vec3(1, 0, 0);         // rolling disk: its axis; angular velocity: the blocked axis
  Vec3 point = Vec3::Zero();         // knife edge: the blade's contact point
  Vec3 direction = Vec3(1, 0, 0);    // knife edge: the blade's direction
  // Rows the step solves for it: the velocity rows, and the position rows the kind implies
  // (rolling: the height; upright disk: its axis horizontal), which are held like joint rows.
  int rows() const;
  bool rolling() const { return kind == NonholonomicKind::RollingDisk || kind == NonholonomicKind::RollingBall; }
};

// Which parameters ("radius", "axis", "point", "direction") a kind takes: the one table that
// validate_model, the loaders (which refuse a parameter a kind does not take, and a missing
// required one), `maxsim info` and Python read.
enum class ParameterUse { None, Optional, Required };
ParameterUse nonholonomic_parameter(NonholonomicKind kind, const std::string& key);
// whether the kind takes that parameter at all (optional or required)
inline bool nonholonomic_takes(NonholonomicKind kind, const std::string& key) {
  return nonholonomic_parameter(kind, key) != ParameterUse::None;
}
// "rolling_disk, rolling_ball, knife_edge, angular_velocity" (messages)
std::string nonholonomic_kind_list();

// ---- the model ------------------------------------------------------------------------------
// The constant description of a mechanism (see the top of this file); the state is in Data.
struct Model {
  std::string name;                    // the description's robot or model name
  std::string source_file;             // the description it was loaded from, if any
  std::vector<Body> bodies;            // the moving bodies
  std::vector<Joint> joints;           // the joints, loop-closing ones included
  std::vector<Geom> world_geoms;       // geometry fixed to the world (MJCF planes, static geoms)
  std::vector<Actuator> actuators;     // what Data::ctrl drives
  std::vector<Keyframe> keyframes;     // named initial states (reset_data)
  std::vector<std::pair<int, int>> contact_excludes;  // body pairs that never collide
  CollisionFilter collision_filter = CollisionFilter::AnyJoint;  // which joined bodies never collide
  // CollisionFilter::ParentChild: the body pairs the filter removes; a pair (kWorld, b) makes
  // body b part of the world (an MJCF base welded by LoadOptions::fixed_base).
  std::vector<std::pair<int, int>> filtered_pairs;
  // The description has no world of its own and stands on the ground half-space z >= 0 (URDF);
  // false when its geoms are its world (MJCF). The loaders set opt.contact.ground to it; the
  // `maxsim` command's `--ground auto` follows it.
  bool implicit_ground = false;
  // false: the description switches contacts off (MJCF <flag contact="disable"/> or
  // constraint="disable", <option collision="predefined"> without pairs); enable_contacts then
  // installs no contact search. Joint limits and joint friction are not contacts.
  bool contacts = true;
  // false: actuators apply no force (MJCF <flag actuation="disable"/>); the step's actuation
  // (sim/actuation.hpp) and the controllers' apply_actuators honour it.
  bool actuation = true;
  // The world's rules of a step: time step, gravity, integrator, the solvers' tolerances and
  // limits, the failure policy (sim/options.hpp). Loaders, the command and Python write it.
  ModelOptions opt;
  bool dt_from_file = false;           // the description set the time step
  std::vector<NonholonomicConstraint> nonholonomic;
  std::vector<Site> sites;             // named frames in bodies (tendon paths, sensors)
  std::vector<Sensor> sensors;         // what Data::sensordata holds, in this order
  std::vector<Tendon> tendons;         // fixed and spatial tendons
  std::vector<Coupling> couplings;     // exact couplings between joint rows or tendons
  std::vector<HeightField> hfields;    // height fields (used by GeomType::HField world geoms)
  std::vector<ContactPair> contact_pairs;  // explicit geom pairs (their geoms must have collision on)
  // false: only contact_pairs collide (MJCF <option collision="predefined">); true: the pairs and
  // the geoms the filters let touch
  bool dynamic_contacts = true;

  int add_body(const Body& body);      // returns the body index
  int add_joint(const Joint& joint);   // returns the joint index
  // returns the constraint's index; its axis and direction are normalized
  int add_nonholonomic(const NonholonomicConstraint& constraint);
  // Appends a sensor after the others (its dim and adr set from its type); returns its index.
  // Throws std::invalid_argument naming the sensor when its object does not exist or does not fit
  // its type (validate_sensor, sim/sensor/sensors.hpp).
  int add_sensor(const Sensor& sensor);
  int nsensordata() const;             // Data::sensordata's size (MuJoCo's nsensordata)
  // Look-ups by name (the first of equal names): the index, or UnknownName (sim/names.hpp, a
  // std::out_of_range) when there is none, its message naming the close matches ("no joint named 'hip_flx' in model 'a1' (did you
  // mean 'hip_flex'?)"). A wrong index must never be used silently.
  int body_index(const std::string& name) const;
  int joint_index(const std::string& name) const;
  int actuator_index(const std::string& name) const;
  int keyframe_index(const std::string& name) const;
  int site_index(const std::string& name) const;
  int tendon_index(const std::string& name) const;
  int hfield_index(const std::string& name) const;
  int sensor_index(const std::string& name) const;
  // (joint_index and find_joint also take a row's own name, Joint::row_names: its joint)
  // The same, std::nullopt when there is none (to ask whether a name exists).
  std::optional<int> find_body(const std::string& name) const;
  std::optional<int> find_joint(const std::string& name) const;
  std::optional<int> find_actuator(const std::string& name) const;
  std::optional<int> find_keyframe(const std::string& name) const;
  std::optional<int> find_site(const std::string& name) const;
  std::optional<int> find_tendon(const std::string& name) const;
  std::optional<int> find_hfield(const std::string& name) const;
  std::optional<int> find_sensor(const std::string& name) const;
  // The joint and row of a row known by its own name (Joint::row_names: an MJCF hinge or slide
  // merged into its body's joint), std::nullopt when no row has that name.
  std::optional<std::pair<int, int>> find_joint_row(const std::string& name) const;
  // The body (kWorld: world_geoms) and index among its geoms of the geom named `name`,
  // std::nullopt when none has that name.
  std::optional<std::pair<int, int>> find_geom(const std::string& name) const;
  // Sets the elevations of height field `index` (nrow · ncol values in [0, 1], row 0 at -y, as
  // HeightField::data), e.g. one a file left to be set at run time (<hfield nrow ncol> without
  // data). Contact searches of Data made from this model see it from their next step. Throws
  // std::invalid_argument for a wrong index, size or a value outside [0, 1] (or not finite).
  void set_hfield_data(int index, const std::vector<double>& data);
  int dof() const;                     // sum of the joints' free rows (floating bases included)
  int nu() const { return static_cast<int>(actuators.size()); }  // commands in Data::ctrl
  double total_mass() const;
};

// Builds a joint from the bodies' zero-configuration poses (body.x0, body.q0): `anchor` is the
// joint origin and `axis` its primary axis, both in world coordinates at the zero configuration.
// Bodies must have been added to `model` first; parent may be kWorld.
Joint make_joint(const Model& model, JointType type, int parent, int child, const Vec3& anchor,
                 const Vec3& axis = Vec3(0, 0, 1), const std::string& name = "");

// Checks a model (indices in range, positive masses, inertia positive definite — the triangle
// inequality is the loaders' warning —, unit quaternions, finite numbers). Returns an empty string when valid,
// otherwise a message naming the offending body or joint.
std::string validate_model(const Model& model);

// Inertia tensors of solid primitives about their centre, in the geom frame.
Mat3 inertia_box(double mass, const Vec3& half_extents);
Mat3 inertia_sphere(double mass, double radius);
Mat3 inertia_cylinder(double mass, double radius, double half_length);  // axis z
Mat3 inertia_rod(double mass, double length);                           // thin rod along z

}  // namespace maxsim
