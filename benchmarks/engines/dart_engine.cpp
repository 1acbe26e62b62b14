// The DART engine of the comparison: maxsim's Model translated into DART 6.12 objects.
//
// This file sees maxsim (its Eigen definitions) and never DART; dart_backend.cpp sees DART and
// never maxsim; they share the plain description of dart_scene.hpp (why: see there).
//
// Translated:
//   * bodies: one DART BodyNode per body whose frame IS maxsim's body frame (origin at the CoM,
//     local CoM 0, maxsim's full inertia), so poses and velocities are read back unchanged;
//   * trees: the joints of spanning_tree_joints (bodies not connected to the world: a tree grown
//     from their lowest-index body, whose root gets a FreeJoint); one Skeleton per joint to the
//     world. A joint's DART frames are maxsim's joint frames in each body (anchor + frame), so
//     DART's zero configuration is the pose the description defines, as maxsim's coordinates.
//     Revolute -> RevoluteJoint (joint z), Prismatic -> PrismaticJoint (joint z), Spherical ->
//     BallJoint, Fixed -> WeldJoint, Floating -> FreeJoint, PlanarAxis (slides x y, hinge z:
//     an MJCF planar root such as half_cheetah's) -> PlanarJoint (XY plane), Planar (slides x y,
//     no rotation: an MJCF object on a table) -> TranslationalJoint2D (XY plane). A tree joint the
//     spanning tree enters from its child is built reversed (DART parent = maxsim child): its
//     coordinates, limits and forces change sign (revolute, prismatic) or are inverted (ball);
//   * joint rows: damping, springs (stiffness, rest = spring_ref), dry friction, position limits
//     (has_limits, scalar coordinates only). Forces (set_joint_force): the DART dof of the row,
//     a floating joint's translational rows along the parent joint frame (rotated by the
//     backend into FreeJoint's child-frame dofs);
//   * loop-closing joints (not in the tree): revolute and spherical -> BallJointConstraint at
//     the parent anchor (a hinge closure then only holds the point, not the axis: planar loops
//     such as the four-bar keep their plane through their tree hinges), fixed ->
//     WeldJointConstraint; floating loop joints constrain nothing and are left out. A revolute
//     loop joint's force is applied as equal and opposite body torques about its axis. Its
//     springs, dampers, limits and friction are not translated;
//   * geoms with collision on: sphere, box (full extents), capsule (radius, cylinder length =
//     2 half length), cylinder, mesh (a MeshShape of the convex hull of its vertices, as maxsim
//     collides it), world planes (a 100 m × 100 m × 2 m box under the plane: maxsim's planes are
//     infinite half-spaces), other world geoms as static shapes, and the ground half-space z >= 0
//     (opt.contact.ground) as the same kind of box. Planes on moving bodies and meshes without
//     vertices are ignored (maxsim ignores them too);
//   * which geoms collide: maxsim's CollisionWorld::bodies_may_collide (joints, excludes, welded
//     bodies), opt.contact.self_collision and the MJCF contype/conaffinity bits, as a per-geom-pair
//     table; explicit <contact><pair>s collide whatever the filters say, with their own μ (condim
//     1: 0); body pairs overlapping at the start that the joints keep together
//     (SceneSetup::start_overlaps) never collide, where maxsim ignores them until they separate;
//   * friction: the pair's μ is the larger of its geoms' (geom_friction); the backend puts it
//     into each contact constraint (DART itself would take the min). Restitution 0;
//   * gravity, time step; DART's boxed LCP solver (Dantzig, PGS fallback) and FCL collision
//     detection (DART's default: primitives as meshes) unless every shape is a box or sphere,
//     where DART's own detector is used: on the ground box a resting box gets exactly its 4
//     corner contacts and a sphere 1 (FCL's mesh box gives 6–9 changing points, its mesh sphere
//     1–7 and keeps jittering, |ω| ~ 0.03 rad/s). DART's detector has no capsule, cylinder or
//     mesh, hence FCL for any scene that has one.
// Refused (Unsupported): Davenport multi-hinge joints, joint types other than the above
// (cylindrical, orbital, planar with a free rotation, …), reversed floating / planar tree joints,
// loop joints other than revolute / spherical / fixed / floating, limits on ball or floating
// rotations, ellipsoids (FCL's tessellation blows DART's contacts up), height fields, shapes of
// zero size (a point sphere), tendons, couplings (<equality joint>, mimic), nonholonomic
// constraints. Not translated (DART 6.12 has no such thing): joint armature.
#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "benchmarks/engines/dart_scene.hpp"
#include "benchmarks/engines/engine.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/state/kinematics.hpp"

namespace maxsim::bench {

namespace {

namespace ds = dart_scene;

ds::V3 v3(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
ds::Q4 q4(const Vec4& q) { return {q(0), q(1), q(2), q(3)}; }
ds::Frame frame(const Vec3& p, const Vec4& q) { return {v3(p), q4(q)}; }

// How a maxsim joint row reaches DART: a tree joint's dof (with a sign), or a loop joint's torque.
struct RowTarget {
  int dart_joint = -1;  // scene.joints index
  int dof = -1;
  double sign = 1;
  int loop = -1;        // scene.loops index (revolute loop joints, row 5)
};

// Half extent of the boxes standing for planes and the ground, and their half thickness.
constexpr double kPlaneHalfExtent = 100.0;
constexpr double kPlaneHalfThickness = 1.0;

// A box under a plane (normal = geom z through geom_pos): maxsim's solid half-space, bounded.
ds::Geom plane_box(const std::string& name, const Vec3& pos, const Vec4& quat) {
  ds::Geom g;
  g.name = name;
  g.body = -1;
  g.kind = ds::GeomKind::Box;
  g.size = {2 * kPlaneHalfExtent, 2 * kPlaneHalfExtent, 2 * kPlaneHalfThickness};
  g.pose = frame(pos + quat_rotate(quat, Vec3(0, 0, -kPlaneHalfThickness)), quat);
  return g;
}

class DartEngine : public Engine {
 public:
  std::string name() const override { return "dart"; }

  void load(const SceneSetup& setup) override {
    model_ = setup.model;
    const Model& model = *model_;
    refuse_unsupported(model);
    ds::Scene scene;
    scene.dt = setup.dt;
    scene.gravity = v3(model.opt.gravity);
    const int nb = static_cast<int>(model.bodies.size());
    if (static_cast<int>(setup.start.size()) != nb)
      throw std::invalid_argument("dart: setup.start has " + std::to_string(setup.start.size()) + " bodies, the model " +
                                  std::to_string(nb));
    for (int b = 0; b < nb; ++b) {
      const Body& body = model.bodies[b];
      ds::Body out;
      out.name = body.name;
      out.mass = body.mass;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) out.inertia[3 * r + c] = body.inertia(r, c);
      out.start = frame(setup.start[b].x, setup.start[b].q);
      out.v = v3(setup.start[b].v);
      out.w = v3(setup.start[b].w);
      scene.bodies.push_back(out);
    }
    build_joints(setup, &scene);
    build_geoms(setup, &scene);
    world_ = std::make_unique<DartWorld>();
    world_->load(scene);
    // the translation must reproduce the start exactly (a mismatch is a bug here, not DART's)
    std::vector<BodyState> now;
    read(&now);
    for (int b = 0; b < nb; ++b) {
      const double dx = (now[b].x - setup.start[b].x).norm();
      const double dq = quat_log(quat_mul(quat_conj(setup.start[b].q), now[b].q)).norm();
      if (!(dx <= 1e-6) || !(dq <= 1e-6))
        throw std::runtime_error("dart: body '" + model.bodies[b].name + "' starts " + std::to_string(dx) + " m, " +
                                 std::to_string(dq) + " rad away from the setup's start (translation bug)");
    }
  }

  void set_joint_force(int joint, int row, double force) override {
    if (joint < 0 || joint >= static_cast<int>(targets_.size()) || row < 0 || row > 5)
      throw std::invalid_argument("dart: no joint row " + std::to_string(joint) + ":" + std::to_string(row));
    const RowTarget& t = targets_[joint][row];
    if (t.loop >= 0)
      world_->add_loop_torque(t.loop, force);
    else if (t.dart_joint >= 0)
      world_->add_force(t.dart_joint, t.dof, t.sign * force);
    else
      throw std::invalid_argument("dart: joint '" + model_->joints[joint].name + "' row " + std::to_string(row) +
                                  " takes no force in this translation");
  }

  // (DART reports no failed step; the driver counts a non-finite state)
  bool step() override {
    world_->step();
    return true;
  }

  void read(std::vector<BodyState>* bodies) const override {
    const int nb = static_cast<int>(model_->bodies.size());
    bodies->resize(nb);
    for (int b = 0; b < nb; ++b) {
      double x[3], q[4], v[3], w[3];
      world_->body_state(b, x, q, v, w);
      BodyState& s = (*bodies)[b];
      s.x = Vec3(x[0], x[1], x[2]);
      s.q = Vec4(q[0], q[1], q[2], q[3]);
      s.v = Vec3(v[0], v[1], v[2]);
      s.w = Vec3(w[0], w[1], w[2]);
    }
  }

 private:
  static void refuse_unsupported(const Model& model) {
    if (!model.tendons.empty()) throw Unsupported("dart: tendons");
    if (!model.couplings.empty()) throw Unsupported("dart: joint couplings (equality / mimic)");
    if (!model.nonholonomic.empty()) throw Unsupported("dart: nonholonomic constraints");
    for (const Joint& jt : model.joints)
      if (jt.davenport())
        throw Unsupported("dart: joint '" + jt.name + "' of type " + joint_type_name(jt.type) + " (Davenport hinges)");
    auto check_geom = [](const Geom& g) {
      if (!g.collision) return;
      // (FCL's ellipsoid is a tessellation whose contacts blow DART up: refused)
      if (g.type == GeomType::Ellipsoid || g.type == GeomType::HField)
        throw Unsupported(std::string("dart: geom '") + g.name + "' of type " + geom_type_name(g.type));
    };
    for (const Body& b : model.bodies)
      for (const Geom& g : b.geoms) check_geom(g);
    for (const Geom& g : model.world_geoms) check_geom(g);
  }

  // The DART joints in creation order (a parent before its children), the loop closures and the
  // row targets.
  void build_joints(const SceneSetup& setup, ds::Scene* scene) {
    const Model& model = *model_;
    const int nb = static_cast<int>(model.bodies.size());
    const int nj = static_cast<int>(model.joints.size());
    targets_.assign(nj, {});
    std::vector<bool> tree = spanning_tree_joints(model);
    std::vector<std::vector<int>> incident(nb);
    for (int j = 0; j < nj; ++j) {
      if (model.joints[j].parent != kWorld) incident[model.joints[j].parent].push_back(j);
      incident[model.joints[j].child].push_back(j);
    }
    std::vector<bool> reached(nb, false), used(nj, false);
    // breadth first from the world along the spanning tree, then from every unreached body (a
    // free root) along any joint among unreached bodies
    std::queue<int> frontier;
    auto take = [&](int j, int body) {
      used[j] = true;
      reached[body] = true;
      add_tree_joint(setup, j, body == model.joints[j].parent, scene);
      frontier.push(body);
    };
    auto grow = [&](bool tree_only) {
      while (!frontier.empty()) {
        const int b = frontier.front();
        frontier.pop();
        for (int j : incident[b]) {
          if (used[j] || (tree_only && !tree[j])) continue;
          const Joint& jt = model.joints[j];
          const int other = jt.parent == b ? jt.child : jt.parent;
          if (other == kWorld || reached[other]) continue;
          take(j, other);
        }
      }
    };
    for (int j = 0; j < nj; ++j)
      if (tree[j] && model.joints[j].parent == kWorld && !reached[model.joints[j].child]) {
        take(j, model.joints[j].child);
        grow(true);
      }
    for (int b = 0; b < nb; ++b) {
      if (reached[b]) continue;
      add_free_root(setup, b, scene);
      reached[b] = true;
      frontier.push(b);
      grow(false);
    }
    for (int j = 0; j < nj; ++j)
      if (!used[j]) add_loop_joint(j, scene);
  }

  // A free-floating body not joined to the world: a FreeJoint whose coordinates are its pose.
  void add_free_root(const SceneSetup& setup, int b, ds::Scene* scene) {
    const BodyState& s = setup.start[b];
    ds::Joint out;
    out.name = model_->bodies[b].name + "_free";
    out.kind = ds::JointKind::Free;
    out.parent = -1;
    out.child = b;
    const Vec3 r = quat_log(s.q);
    const Vec3 v_body = quat_to_rot(s.q).transpose() * s.v;
    out.q = {r.x(), r.y(), r.z(), s.x.x(), s.x.y(), s.x.z()};
    out.qd = {s.w.x(), s.w.y(), s.w.z(), v_body.x(), v_body.y(), v_body.z()};
    out.damping = out.stiffness = out.rest = out.friction = std::vector<double>(6, 0.0);
    scene->joints.push_back(out);
  }

  void add_tree_joint(const SceneSetup& setup, int j, bool reversed, ds::Scene* scene) {
    const Joint& jt = model_->joints[j];
    const std::vector<double>& q = setup.start_q.at(j);
    const std::vector<double>& qd = setup.start_qd.at(j);
    if (static_cast<int>(q.size()) != jt.nq() || static_cast<int>(qd.size()) != jt.dof())
      throw std::invalid_argument("dart: setup.start_q / start_qd of joint '" + jt.name + "' have the wrong size");
    auto unsupported = [&](const std::string& why) {
      return Unsupported("dart: joint '" + jt.name + "' of type " + joint_type_name(jt.type) + why);
    };
    ds::Joint out;
    out.name = jt.name;
    out.parent = reversed ? jt.child : jt.parent;
    out.child = reversed ? jt.parent : jt.child;
    out.in_parent = reversed ? frame(jt.child_anchor, jt.child_frame) : frame(jt.parent_anchor, jt.parent_frame);
    out.in_child = reversed ? frame(jt.parent_anchor, jt.parent_frame) : frame(jt.child_anchor, jt.child_frame);
    const double sign = reversed ? -1.0 : 1.0;
    std::vector<int> rows;  // the maxsim row of each DART dof
    auto coordinate = [&](int row) { return q[row_coordinate_index(jt, row)]; };
    auto rate = [&](int row) { return qd[row_coordinate_index(jt, row)]; };
    switch (jt.type) {
      case JointType::Revolute:
      case JointType::Prismatic: {
        const int row = jt.type == JointType::Revolute ? 5 : 2;
        out.kind = jt.type == JointType::Revolute ? ds::JointKind::Revolute : ds::JointKind::Prismatic;
        rows = {row};
        out.q = {sign * coordinate(row)};
        out.qd = {sign * rate(row)};
        break;
      }
      case JointType::Planar:  // slides along joint x and y, no rotation
        if (reversed) throw unsupported(" (entered from its child)");
        out.kind = ds::JointKind::Translational2D;
        rows = {0, 1};
        for (int row : rows) {
          out.q.push_back(coordinate(row));
          out.qd.push_back(rate(row));
        }
        break;
      case JointType::PlanarAxis:
        if (reversed) throw unsupported(" (entered from its child)");
        out.kind = ds::JointKind::Planar;
        rows = {0, 1, 5};
        for (int row : rows) {
          out.q.push_back(coordinate(row));
          out.qd.push_back(rate(row));
        }
        break;
      case JointType::Spherical: {
        // maxsim: q_rel (w x y z) of the child joint frame, ω_rel in it; DART: its rotation
        // vector and the same ω (BallJoint's rates are the child frame's angular velocity)
        out.kind = ds::JointKind::Ball;
        rows = {3, 4, 5};
        const Vec4 q_rel = quat_normalize(Vec4(q[0], q[1], q[2], q[3]));
        const Vec3 w_rel(qd[0], qd[1], qd[2]);
        const Vec3 r = reversed ? quat_log(quat_conj(q_rel)) : quat_log(q_rel);
        const Vec3 w = reversed ? Vec3(-quat_rotate(q_rel, w_rel)) : w_rel;
        out.q = {r.x(), r.y(), r.z()};
        out.qd = {w.x(), w.y(), w.z()};
        break;
      }
      case JointType::Floating: {
        // maxsim: translation t and rate in the parent joint frame, q_rel, ω_rel (child joint
        // frame); DART FreeJoint: (rotation vector, t), rates (ω, v) both in the child joint frame
        if (reversed) throw unsupported(" (entered from its child)");
        out.kind = ds::JointKind::Free;
        rows = {3, 4, 5, 0, 1, 2};
        const Vec3 t(q[0], q[1], q[2]), t_rate(qd[0], qd[1], qd[2]);
        const Vec4 q_rel = quat_normalize(Vec4(q[3], q[4], q[5], q[6]));
        const Vec3 r = quat_log(q_rel);
        const Vec3 v = quat_to_rot(q_rel).transpose() * t_rate;
        out.q = {r.x(), r.y(), r.z(), t.x(), t.y(), t.z()};
        out.qd = {qd[3], qd[4], qd[5], v.x(), v.y(), v.z()};
        break;
      }
      case JointType::Fixed:
        out.kind = ds::JointKind::Weld;
        break;
      default:
        throw unsupported("");
    }
    // scalar coordinates change sign with the direction; rotation vectors of a reversed ball too
    for (int row : rows) {
      const bool scalar = row_has_coordinate(jt, row);
      out.damping.push_back(jt.damping[row]);
      out.stiffness.push_back(jt.stiffness[row]);
      out.rest.push_back(sign * jt.spring_ref[row]);
      out.friction.push_back(jt.friction[row]);
      if (jt.has_limits) {
        if (!scalar) throw unsupported(" with limits on a ball rotation");
        out.lower.push_back(reversed ? -jt.upper[row] : jt.lower[row]);
        out.upper.push_back(reversed ? -jt.lower[row] : jt.upper[row]);
      }
    }
    out.limits = jt.has_limits && !rows.empty();
    const int index = static_cast<int>(scene->joints.size());
    for (std::size_t k = 0; k < rows.size(); ++k)
      targets_[j][rows[k]] = RowTarget{index, static_cast<int>(k), sign, -1};
    scene->joints.push_back(out);
  }

  void add_loop_joint(int j, ds::Scene* scene) {
    const Joint& jt = model_->joints[j];
    ds::LoopJoint out;
    out.name = jt.name;
    out.body_a = jt.parent;  // kWorld is -1 as in the scene
    out.body_b = jt.child;
    out.point = v3(jt.parent_anchor);
    out.axis = v3(quat_rotate(jt.parent_frame, Vec3::UnitZ()));
    switch (jt.type) {
      case JointType::Revolute:
        targets_[j][5] = RowTarget{-1, -1, 1, static_cast<int>(scene->loops.size())};
        break;
      case JointType::Spherical:
        break;
      case JointType::Fixed:
        out.weld = true;
        break;
      case JointType::Floating:
        return;  // constrains nothing
      default:
        throw Unsupported("dart: loop joint '" + jt.name + "' of type " + joint_type_name(jt.type));
    }
    scene->loops.push_back(out);
  }

  // The shapes and the pair table.
  void build_geoms(const SceneSetup& setup, ds::Scene* scene) {
    const Model& model = *model_;
    struct Info {
      int body, index;  // index among its body's geoms (model.world_geoms for kWorld), -1: ground
      int contype, conaffinity;
      double mu;
    };
    std::vector<Info> info;
    auto add = [&](ds::Geom g, const Geom* src, int body, int index) {
      g.body = body;
      g.friction = src ? geom_friction(model, *src) : model.opt.contact.friction;
      info.push_back({body, index, src ? src->contype : 1, src ? src->conaffinity : 1, g.friction});
      scene->geoms.push_back(std::move(g));
    };
    auto convert = [&](const Geom& src, int body, int index) {
      if (!src.collision) return;
      if (src.type == GeomType::Plane) {
        if (body == kWorld) add(plane_box(src.name, src.pos, src.quat), &src, body, index);
        return;  // maxsim ignores planes on moving bodies
      }
      if (src.type == GeomType::Mesh && src.vertices.empty()) return;
      // DART asserts on shapes without extent (maxsim collides a zero-radius sphere as a point)
      const int extents = src.type == GeomType::Sphere ? 1 : src.type == GeomType::Capsule || src.type == GeomType::Cylinder ? 2 : 3;
      if (src.type != GeomType::Mesh && (src.size.head(extents).array() <= 0).any())
        throw Unsupported("dart: geom '" + src.name + "' of zero size");
      ds::Geom g;
      g.name = src.name;
      g.pose = frame(src.pos, src.quat);
      switch (src.type) {
        case GeomType::Sphere:
          g.kind = ds::GeomKind::Sphere;
          g.size = {src.size(0), 0, 0};
          break;
        case GeomType::Box:
          g.kind = ds::GeomKind::Box;
          g.size = v3(2.0 * src.size);
          break;
        case GeomType::Capsule:
          g.kind = ds::GeomKind::Capsule;
          g.size = {src.size(0), 2.0 * src.size(1), 0};
          break;
        case GeomType::Cylinder:
          g.kind = ds::GeomKind::Cylinder;
          g.size = {src.size(0), 2.0 * src.size(1), 0};
          break;
        case GeomType::Mesh:
          g.kind = ds::GeomKind::Mesh;
          for (const Vec3& v : src.vertices) g.vertices.push_back(v3(v));
          for (const Eigen::Vector3i& f : src.faces) g.faces.push_back({f(0), f(1), f(2)});
          break;
        default:
          throw Unsupported(std::string("dart: geom '") + src.name + "' of type " + geom_type_name(src.type));
      }
      add(std::move(g), &src, body, index);
    };
    for (int b = 0; b < static_cast<int>(model.bodies.size()); ++b)
      for (int i = 0; i < static_cast<int>(model.bodies[b].geoms.size()); ++i) convert(model.bodies[b].geoms[i], b, i);
    for (int i = 0; i < static_cast<int>(model.world_geoms.size()); ++i) convert(model.world_geoms[i], kWorld, i);
    if (model.opt.contact.ground) add(plane_box("ground", Vec3::Zero(), quat_identity()), nullptr, kWorld, -1);

    const int n = static_cast<int>(info.size());
    scene->pair_friction.assign(static_cast<size_t>(n) * n, -1.0);
    auto at = [&](int a, int b) -> double& { return scene->pair_friction[static_cast<size_t>(a) * n + b]; };
    if (model.contacts) {
      const CollisionWorld collision(model, CollisionOptions{});
      if (model.dynamic_contacts)
        for (int a = 0; a < n; ++a)
          for (int b = a + 1; b < n; ++b) {
            const Info &ia = info[a], &ib = info[b];
            if (ia.body == ib.body) continue;  // one body's geoms, or two world geoms
            if (!collision.bodies_may_collide(ia.body, ib.body)) continue;
            if (!model.opt.contact.self_collision && ia.body != kWorld && ib.body != kWorld) continue;
            if (setup.overlapping_at_start(ia.body, ib.body)) continue;
            if (!((ia.contype & ib.conaffinity) || (ib.contype & ia.conaffinity))) continue;
            at(a, b) = at(b, a) = std::max(ia.mu, ib.mu);
          }
      // explicit pairs collide whatever the filters say, with their own μ
      auto find = [&](int body, int index) {
        for (int k = 0; k < n; ++k)
          if (info[k].body == body && info[k].index == index) return k;
        return -1;
      };
      for (const ContactPair& p : model.contact_pairs) {
        const int a = find(p.body1, p.geom1), b = find(p.body2, p.geom2);
        if (a < 0 || b < 0 || a == b) continue;
        const double mu = p.condim == 1 ? 0.0 : p.friction >= 0 ? p.friction : std::max(info[a].mu, info[b].mu);
        at(a, b) = at(b, a) = mu;
      }
    }
    // DART's own detector when it can collide every shape (boxes and spheres): its box-box test
    // gives a resting box its corner contacts
    scene->dart_collision_detector =
        std::all_of(scene->geoms.begin(), scene->geoms.end(),
                    [](const ds::Geom& g) { return g.kind == ds::GeomKind::Box || g.kind == ds::GeomKind::Sphere; });
  }

  const Model* model_ = nullptr;
  std::unique_ptr<DartWorld> world_;
  std::vector<std::array<RowTarget, 6>> targets_;  // per maxsim joint and row
};

}  // namespace

std::unique_ptr<Engine> make_dart_engine() { return std::make_unique<DartEngine>(); }

}  // namespace maxsim::bench
