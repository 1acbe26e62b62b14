// The Bullet engine of the comparison: maxsim's Model translated into Bullet 3.24's Featherstone
// multibodies (btMultiBody in a btMultiBodyDynamicsWorld with the btMultiBodyConstraintSolver),
// what PyBullet builds from a URDF robot. Double precision (BT_USE_DOUBLE_PRECISION: compile and
// link with `pkg-config bullet-float64`).
//
// Translated:
//   * bodies: one btMultiBody link (or base) per body. Bullet wants a diagonal inertia, so a link's
//     frame is maxsim's body frame (origin at the CoM) turned onto the principal axes of its
//     inertia (identity when the inertia is already diagonal); poses and velocities are converted
//     in and out, so read() reports maxsim's body frames;
//   * trees: the joints of spanning_tree_joints. Every tree joint from the world starts one
//     btMultiBody: a Floating joint makes its body a floating base, any other joint a fixed base
//     (the world, zero mass) whose link 0 is that body. Bodies not connected to the world: a tree
//     grown from their lowest-index body, a floating base (a free box: a base without links).
//     Link joints: Revolute -> revolute link (about joint z), Prismatic -> prismatic (along joint
//     z), Spherical -> spherical, Fixed -> fixed, PlanarAxis (slides x y, hinge z: an MJCF planar
//     root such as half_cheetah's) -> Bullet's planar link (same motions; Bullet's slide
//     coordinates move the CoM, so they are set from the bodies' poses). Bullet's zero
//     configuration is the pose the description defines (the joint frames coincide), so a
//     revolute's or prismatic's coordinate is maxsim's; a tree joint the spanning tree enters
//     from its child is built reversed (Bullet parent = maxsim child: the coordinate changes sign);
//   * loop-closing joints (not in the tree): revolute and spherical -> btMultiBodyPoint2Point at
//     the anchor (a hinge closure then only holds the point, not the axis: a planar loop such as
//     the four-bar keeps its plane through its tree hinges); floating loop joints constrain
//     nothing and are left out;
//   * joint rows: forces (set_joint_force) and damping (−c q̇, every free row) each step; springs
//     (stiffness, rest spring_ref) on scalar rows (not on ball / floating rotations); position
//     limits (btMultiBodyJointLimitConstraint) and dry friction (a zero-velocity
//     btMultiBodyJointMotor of impulse friction·dt, PyBullet's way) on tree revolute / prismatic
//     joints. Revolute / prismatic tree rows act through the link's joint torque; every other row
//     as the equal and opposite wrench its generalized force is (a force at the child anchor along
//     the parent joint axis, a torque about the child joint axis);
//   * geoms with collision on: sphere, box, capsule, cylinder (btCylinderShapeZ), mesh (convex
//     hull of its vertices, as maxsim collides it), several per body in a btCompoundShape; world
//     planes (btStaticPlaneShape: the half-space below the plane, infinite as in maxsim), other
//     world geoms as static shapes, and the ground z >= 0 (opt.contact.ground). Collision margin
//     0.001 m (PyBullet's for URDF shapes: inside boxes and cylinders, added around hulls). Planes
//     on moving bodies and meshes without vertices are ignored (maxsim ignores them too). Every
//     body has a collider, an empty compound if it has no collision geom (as PyBullet does);
//   * which bodies collide: maxsim's CollisionWorld::bodies_may_collide (joints, excludes, welded
//     bodies), opt.contact.self_collision, model.contacts, and the MJCF bits
//     (contype_a & conaffinity_b) || (contype_b & conaffinity_a), in a broadphase
//     btOverlapFilterCallback; a multibody collides with itself only if two of its bodies may;
//     explicit <contact><pair>s let their two bodies collide whatever the filters say;
//   * friction: each geom's μ (geom_friction), a pair's the larger (Bullet multiplies: the global
//     gCalculateCombinedFrictionCallback takes the max, and gContactAddedCallback picks the
//     geoms' own μ in a body whose geoms differ; both are process-wide and set by load()).
//     Restitution 0, no rolling / spinning friction;
//   * gravity, the time step (stepSimulation(dt, 0): one step of dt, no interpolation).
// Bullet as its users run it: the library's solver defaults (btContactSolverInfo: 10 iterations,
// ERP 0.2, contact ERP erp2 0.2, CFM 0, split impulse on — which multibody contacts do not use —,
// warm starting 0.85), contact breaking threshold 0.02 m. Multibody damping off, gyroscopic term
// on, impulse and coordinate-velocity clamps out of reach, sleeping off. Bullet does not report
// the iterations it ran (iterations() = 0).
// Refused (Unsupported): Davenport multi-hinge joints, joint types other than the above
// (cylindrical, orbital, planar without a hinge, …), a floating joint between two bodies, loop
// joints other than revolute / spherical / floating, ellipsoids, height fields, tendons,
// couplings (<equality joint>, mimic), nonholonomic constraints. Not translated (Bullet has no such
// thing): joint armature; limits, dry friction and springs of loop joints and ball / floating
// rows. Approximations: geoms are filtered per body (a body's contype / conaffinity are the OR of
// its geoms'), explicit pairs per body pair with the geoms' μ; body pairs overlapping at the
// start that the joints keep together (SceneSetup::start_overlaps) never collide, where maxsim
// ignores them only until they separate.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <memory>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// (Bullet's headers have unused parameters)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <btBulletDynamicsCommon.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyPoint2Point.h>
#pragma GCC diagnostic pop

#include "benchmarks/engines/engine.hpp"
#include "sim/geometry/collision.hpp"
#include "sim/state/kinematics.hpp"

namespace maxsim::bench {

namespace {

constexpr double kMargin = 0.001;  // collision margin [m] (PyBullet's for URDF shapes)
constexpr double kHuge = 1e9;      // impulse / velocity clamps that never bind

btVector3 bt_vec(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
Vec3 from_bt(const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); }
// Bullet's quaternions are scalar last; both are active rotations (body -> world).
btQuaternion bt_quat(const Vec4& q) { return btQuaternion(q(1), q(2), q(3), q(0)); }
Vec4 from_bt(const btQuaternion& q) { return Vec4(q.w(), q.x(), q.y(), q.z()); }
btTransform bt_pose(const Vec3& p, const Vec4& q) { return btTransform(bt_quat(q), bt_vec(p)); }

// What a collision object stands for: its body (kWorld: world geoms, ground) and filter bits.
struct ColliderInfo {
  int body = kWorld;
  int contype = 0, conaffinity = 0;
  std::vector<double> child_friction;  // per compound child, when the body's geoms' μ differ
};

// A pair's μ is the larger of the two (MuJoCo's and maxsim's rule; Bullet multiplies).
btScalar max_friction(const btCollisionObject* a, const btCollisionObject* b) {
  return std::max(a->getFriction(), b->getFriction());
}

double child_mu(const btCollisionObjectWrapper* w, int index) {
  const btCollisionObject* o = w->getCollisionObject();
  const auto* info = static_cast<const ColliderInfo*>(o->getUserPointer());
  if (info && index >= 0 && index < static_cast<int>(info->child_friction.size())) return info->child_friction[index];
  return o->getFriction();
}

// Called for the colliders flagged CF_CUSTOM_MATERIAL_CALLBACK (bodies whose geoms' μ differ):
// the μ of the two geoms (compound children) that touch.
bool contact_added(btManifoldPoint& cp, const btCollisionObjectWrapper* w0, int, int index0,
                   const btCollisionObjectWrapper* w1, int, int index1) {
  cp.m_combinedFriction = std::max(child_mu(w0, index0), child_mu(w1, index1));
  return true;
}

// The body's frame turned onto the principal axes of its inertia: E (R_link = R_body E, det +1)
// and the principal moments.
void principal_axes(const Mat3& I, Mat3* E, Vec3* moments) {
  const double off = std::abs(I(0, 1)) + std::abs(I(0, 2)) + std::abs(I(1, 2));
  if (off <= 1e-12 * I.trace()) {  // already diagonal: keep the body frame
    E->setIdentity();
    *moments = I.diagonal();
    return;
  }
  Eigen::SelfAdjointEigenSolver<Mat3> es(0.5 * (I + I.transpose()));
  Mat3 V = es.eigenvectors();
  if (V.determinant() < 0) V.col(2) = -V.col(2);
  *E = quat_to_rot(rot_to_quat(V));  // exactly the rotation its quaternion gives
  *moments = (E->transpose() * I * *E).diagonal();
}

// The multibody's per-body data.
struct BodyMap {
  int tree = -1;  // index of its btMultiBody
  int link = -1;  // its link (-1: the base)
  Mat3 E = Mat3::Identity();  // R_link = R_body E
  Vec4 e = quat_identity();   // E as a quaternion
};

// How a joint is represented.
struct JointMap {
  enum Kind { Link, Base, Loop, None } kind = None;
  int tree = -1, link = -1;  // Link: the Bullet link whose joint it is
  bool reversed = false;     // Link: Bullet parent = maxsim child
};

// One btMultiBody's plan: its base (a body, or the world) and its links in Bullet order.
struct TreePlan {
  int base = kWorld;  // floating base body, kWorld: fixed base at the world
  struct LinkPlan {
    int body, joint, parent_body;  // parent_body: Bullet parent (kWorld: the fixed base)
    bool reversed;
  };
  std::vector<LinkPlan> links;
};

class BulletEngine;

// Broadphase filter: maxsim's body pairs and the MJCF bits (see the top of the file).
struct PairFilter : btOverlapFilterCallback {
  const BulletEngine* engine = nullptr;
  bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override;
};

class BulletEngine : public Engine {
 public:
  ~BulletEngine() override { reset(); }
  std::string name() const override { return "bullet"; }
  void load(const SceneSetup& setup) override;
  void set_joint_force(int joint, int row, double force) override {
    if (joint < 0 || joint >= static_cast<int>(pending_.size()) || row < 0 || row > 5) return;
    pending_[joint][row] += force;
  }
  bool step() override;
  void read(std::vector<BodyState>* bodies) const override {
    if (stale_) refresh();
    *bodies = state_;
  }

  bool may_collide(const btCollisionObject* a, const btCollisionObject* b) const {
    const int ia = a->getUserIndex(), ib = b->getUserIndex();
    if (ia < 0 || ib < 0) return false;
    const ColliderInfo& A = infos_[ia];
    const ColliderInfo& B = infos_[ib];
    if (A.body == B.body) return false;
    const int na = A.body + 1, nb = B.body + 1;  // kWorld -> 0
    if (forced_[na * n_nodes_ + nb]) return true;
    return allowed_[na * n_nodes_ + nb] &&
           ((A.contype & B.conaffinity) || (B.contype & A.conaffinity));
  }

 private:
  void reset();
  void check_supported() const;
  std::vector<TreePlan> plan_trees();
  void build_multibody(const TreePlan& plan, int t);
  btCollisionShape* make_shape(const Geom& g, const std::string& owner);
  void add_body_collider(int body);
  void add_static(btCollisionShape* shape, const btTransform& pose, int contype, int conaffinity, double mu);
  void place_start(const SceneSetup& setup);
  void refresh() const;
  void apply_forces();
  void apply_wrench(int body, const Vec3& force, const Vec3& point, const Vec3& torque);

  const Model* model_ = nullptr;
  double dt_ = 0.01;
  std::vector<BodyMap> bodies_;
  std::vector<JointMap> joints_;
  std::vector<std::array<double, 6>> pending_;
  // every body's state, computed from the multibodies when read or needed for forces (not in the
  // timed step: stale_ after it)
  mutable std::vector<BodyState> state_;
  mutable bool stale_ = true;
  // collision filter: per (body + 1) pair, n_nodes_ = bodies + 1
  int n_nodes_ = 0;
  std::vector<char> allowed_, forced_;
  std::deque<ColliderInfo> infos_;  // (stable addresses: user pointers)

  // Bullet objects; the world is destroyed first (it still touches the objects), shapes last.
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btCollisionObject>> objects_;  // link colliders and statics
  std::vector<std::unique_ptr<btMultiBody>> multibodies_;
  std::vector<std::unique_ptr<btMultiBodyConstraint>> constraints_;
  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  PairFilter filter_;
  std::unique_ptr<btMultiBodyConstraintSolver> solver_;
  std::unique_ptr<btMultiBodyDynamicsWorld> world_;
  // scratch of refresh()
  mutable std::vector<btQuaternion> w2l_;
  mutable std::vector<btVector3> origin_, omega_, vel_;
};

bool PairFilter::needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const {
  return engine->may_collide(static_cast<const btCollisionObject*>(p0->m_clientObject),
                             static_cast<const btCollisionObject*>(p1->m_clientObject));
}

void BulletEngine::reset() {
  if (world_) {
    for (auto& c : constraints_) world_->removeMultiBodyConstraint(c.get());
    for (auto& mb : multibodies_) world_->removeMultiBody(mb.get());
    for (auto& o : objects_) world_->removeCollisionObject(o.get());
  }
  world_.reset();
  solver_.reset();
  broadphase_.reset();
  dispatcher_.reset();
  config_.reset();
  constraints_.clear();
  multibodies_.clear();
  objects_.clear();
  shapes_.clear();
  infos_.clear();
}

void BulletEngine::check_supported() const {
  const Model& m = *model_;
  if (!m.tendons.empty()) throw Unsupported("bullet: tendons");
  if (!m.couplings.empty()) throw Unsupported("bullet: joint couplings (equality joint, mimic)");
  if (!m.nonholonomic.empty()) throw Unsupported("bullet: nonholonomic constraints");
  for (const Joint& jt : m.joints) {
    const std::string what = "bullet: joint '" + jt.name + "' of type " + joint_type_name(jt.type);
    if (jt.davenport()) throw Unsupported(what + " (Davenport hinges)");
    switch (jt.type) {
      case JointType::Revolute: case JointType::Prismatic: case JointType::Spherical:
      case JointType::Fixed: case JointType::PlanarAxis:
        break;
      case JointType::Floating:
        if (jt.parent != kWorld) throw Unsupported(what + " between two bodies");
        break;
      default:
        throw Unsupported(what);
    }
  }
  // (height fields on moving bodies are ignored, as maxsim ignores them)
  auto check_geom = [](const Geom& g, const std::string& owner, bool world) {
    if (g.collision && (g.type == GeomType::Ellipsoid || (world && g.type == GeomType::HField)))
      throw Unsupported("bullet: geom '" + g.name + "' of " + owner + ": " + geom_type_name(g.type));
  };
  for (const Body& b : m.bodies)
    for (const Geom& g : b.geoms) check_geom(g, "body '" + b.name + "'", false);
  for (const Geom& g : m.world_geoms) check_geom(g, "the world", true);
}

// The spanning tree from the world, then the bodies it does not reach; parents before children.
std::vector<TreePlan> BulletEngine::plan_trees() {
  const Model& m = *model_;
  const int nb = static_cast<int>(m.bodies.size()), nj = static_cast<int>(m.joints.size());
  const std::vector<bool> span = spanning_tree_joints(m);
  std::vector<std::vector<int>> incident(nb);
  for (int j = 0; j < nj; ++j) {
    if (m.joints[j].parent != kWorld) incident[m.joints[j].parent].push_back(j);
    incident[m.joints[j].child].push_back(j);
  }
  std::vector<bool> placed(nb, false), in_tree(nj, false);
  std::vector<TreePlan> plans;
  // breadth first from the root over the joints `usable` lets through
  auto grow = [&](TreePlan& plan, int root, auto usable) {
    std::queue<int> q;
    q.push(root);
    while (!q.empty()) {
      const int b = q.front();
      q.pop();
      for (int j : incident[b]) {
        const Joint& jt = m.joints[j];
        if (in_tree[j] || jt.parent == kWorld || !usable(j)) continue;
        const int other = jt.parent == b ? jt.child : jt.parent;
        if (placed[other]) continue;
        if (jt.type == JointType::Floating)
          throw Unsupported("bullet: joint '" + jt.name + "' of type floating between two bodies");
        in_tree[j] = true;
        placed[other] = true;
        plan.links.push_back({other, j, b, other == jt.parent});
        q.push(other);
      }
    }
  };
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = m.joints[j];
    if (!span[j] || jt.parent != kWorld) continue;
    TreePlan plan;
    in_tree[j] = true;
    placed[jt.child] = true;
    if (jt.type == JointType::Floating) plan.base = jt.child;
    else plan.links.push_back({jt.child, j, kWorld, false});
    grow(plan, jt.child, [&](int k) { return static_cast<bool>(span[k]); });
    plans.push_back(std::move(plan));
  }
  for (int b = 0; b < nb; ++b) {
    if (placed[b]) continue;
    TreePlan plan;
    plan.base = b;
    placed[b] = true;
    grow(plan, b, [](int) { return true; });
    plans.push_back(std::move(plan));
  }
  for (int j = 0; j < nj; ++j) {
    if (in_tree[j]) continue;
    const Joint& jt = m.joints[j];
    joints_[j].kind = JointMap::Loop;
    if (jt.type != JointType::Revolute && jt.type != JointType::Spherical && jt.type != JointType::Floating)
      throw Unsupported("bullet: loop-closing joint '" + jt.name + "' of type " + joint_type_name(jt.type));
  }
  return plans;
}

btCollisionShape* BulletEngine::make_shape(const Geom& g, const std::string& owner) {
  std::unique_ptr<btCollisionShape> s;
  switch (g.type) {
    case GeomType::Sphere:
      s = std::make_unique<btSphereShape>(g.size(0));
      break;
    case GeomType::Box:
      s = std::make_unique<btBoxShape>(bt_vec(g.size));
      s->setMargin(std::min(kMargin, 0.5 * g.size.minCoeff()));  // inside the box: exact faces
      break;
    case GeomType::Capsule:
      s = std::make_unique<btCapsuleShapeZ>(g.size(0), 2 * g.size(1));
      break;
    case GeomType::Cylinder:
      s = std::make_unique<btCylinderShapeZ>(btVector3(g.size(0), g.size(0), g.size(1)));
      s->setMargin(std::min(kMargin, 0.5 * std::min(g.size(0), g.size(1))));
      break;
    case GeomType::Mesh: {
      auto hull = std::make_unique<btConvexHullShape>();
      for (const Vec3& v : g.vertices) hull->addPoint(bt_vec(v), false);
      hull->recalcLocalAabb();
      hull->optimizeConvexHull();
      hull->setMargin(kMargin);
      s = std::move(hull);
      break;
    }
    case GeomType::Plane:
      s = std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0);
      break;
    default:
      throw Unsupported("bullet: geom '" + g.name + "' of " + owner + ": " + geom_type_name(g.type));
  }
  shapes_.push_back(std::move(s));
  return shapes_.back().get();
}

// Whether a geom takes part in collisions (maxsim's rules, see the top of the file).
bool collides(const Geom& g, bool in_body, bool in_pair) {
  if (!g.collision) return false;
  if (in_body && (g.type == GeomType::Plane || g.type == GeomType::HField)) return false;
  if (g.type == GeomType::Mesh && g.vertices.empty()) return false;
  return in_pair || (g.contype | g.conaffinity) != 0;
}

void BulletEngine::add_body_collider(int body) {
  const Model& m = *model_;
  const Body& B = m.bodies[body];
  const BodyMap& bm = bodies_[body];
  std::vector<int> use;
  for (int i = 0; i < static_cast<int>(B.geoms.size()); ++i) {
    bool in_pair = false;
    for (const ContactPair& p : m.contact_pairs)
      in_pair |= (p.body1 == body && p.geom1 == i) || (p.body2 == body && p.geom2 == i);
    if (collides(B.geoms[i], true, in_pair)) use.push_back(i);
  }
  // A body without collision geoms still gets a collider, an empty compound (as PyBullet does):
  // Bullet solves a multibody constraint (loop closure, limit, friction motor) only in the
  // simulation island of its links' colliders.
  ColliderInfo info;
  info.body = body;
  double mu_max = 0;
  bool mu_differs = false;
  std::vector<double> mu;
  for (int i : use) {
    info.contype |= B.geoms[i].contype;
    info.conaffinity |= B.geoms[i].conaffinity;
    mu.push_back(geom_friction(m, B.geoms[i]));
    mu_max = std::max(mu_max, mu.back());
    mu_differs |= mu.back() != mu.front();
  }
  const std::string owner = "body '" + B.name + "'";
  // geom pose in the link frame (the body frame turned by E)
  auto in_link = [&](const Geom& g) {
    return bt_pose(bm.E.transpose() * g.pos, quat_mul(quat_conj(bm.e), g.quat));
  };
  btCollisionShape* shape = nullptr;
  const btTransform t0 = use.empty() ? btTransform::getIdentity() : in_link(B.geoms[use[0]]);
  if (use.empty()) {
    shapes_.push_back(std::make_unique<btCompoundShape>(true, 0));
    shape = shapes_.back().get();
  } else if (use.size() == 1 && t0.getOrigin().length() < 1e-12 &&
      std::abs(std::abs(t0.getRotation().w()) - 1) < 1e-14) {
    shape = make_shape(B.geoms[use[0]], owner);
  } else {
    auto compound = std::make_unique<btCompoundShape>(true, static_cast<int>(use.size()));
    for (int i : use) compound->addChildShape(in_link(B.geoms[i]), make_shape(B.geoms[i], owner));
    shapes_.push_back(std::move(compound));
    shape = shapes_.back().get();
    if (mu_differs) info.child_friction = mu;
  }
  btMultiBody* mb = multibodies_[bm.tree].get();
  auto col = std::make_unique<btMultiBodyLinkCollider>(mb, bm.link);
  col->setCollisionShape(shape);
  col->setFriction(mu_max);
  col->setRestitution(0);
  col->setRollingFriction(0);
  col->setSpinningFriction(0);
  col->setActivationState(DISABLE_DEACTIVATION);
  infos_.push_back(std::move(info));
  col->setUserIndex(static_cast<int>(infos_.size()) - 1);
  if (mu_differs) {
    col->setUserPointer(&infos_.back());
    col->setCollisionFlags(col->getCollisionFlags() | btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK);
  }
  if (bm.link < 0) mb->setBaseCollider(col.get());
  else mb->getLink(bm.link).m_collider = col.get();
  world_->addCollisionObject(col.get(), btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
  objects_.push_back(std::move(col));
}

void BulletEngine::add_static(btCollisionShape* shape, const btTransform& pose, int contype, int conaffinity,
                              double mu) {
  auto o = std::make_unique<btCollisionObject>();
  o->setCollisionShape(shape);
  o->setWorldTransform(pose);
  o->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
  o->setFriction(mu);
  o->setRestitution(0);
  ColliderInfo info;
  info.contype = contype;
  info.conaffinity = conaffinity;
  infos_.push_back(info);
  o->setUserIndex(static_cast<int>(infos_.size()) - 1);
  world_->addCollisionObject(o.get(), btBroadphaseProxy::StaticFilter,
                             btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
  objects_.push_back(std::move(o));
}

void BulletEngine::build_multibody(const TreePlan& plan, int t) {
  const Model& m = *model_;
  const int n = static_cast<int>(plan.links.size());
  for (int i = 0; i < n; ++i) {
    bodies_[plan.links[i].body].tree = t;
    bodies_[plan.links[i].body].link = i;
  }
  btScalar base_mass = 0;
  btVector3 base_inertia(0, 0, 0);
  if (plan.base != kWorld) {
    Mat3 E;
    Vec3 moments;
    principal_axes(m.bodies[plan.base].inertia, &E, &moments);
    base_mass = m.bodies[plan.base].mass;
    base_inertia = bt_vec(moments);
    bodies_[plan.base].tree = t;
    bodies_[plan.base].link = -1;
  }
  auto mb = std::make_unique<btMultiBody>(n, base_mass, base_inertia, plan.base == kWorld, false);
  for (int i = 0; i < n; ++i) {
    const TreePlan::LinkPlan& lp = plan.links[i];
    const Joint& jt = m.joints[lp.joint];
    const Body& B = m.bodies[lp.body];
    const BodyMap& c = bodies_[lp.body];
    const BodyMap world_frame;
    const BodyMap& p = lp.parent_body == kWorld ? world_frame : bodies_[lp.parent_body];
    const int parent_link = lp.parent_body == kWorld ? -1 : p.link;
    // the joint's anchor and frame in the Bullet parent's and child's body frames
    const Vec3 anchor_p = lp.reversed ? jt.child_anchor : jt.parent_anchor;
    const Vec3 anchor_c = lp.reversed ? jt.parent_anchor : jt.child_anchor;
    const Vec4 frame_p = lp.reversed ? jt.child_frame : jt.parent_frame;
    const Vec4 frame_c = lp.reversed ? jt.parent_frame : jt.child_frame;
    // zero configuration: the joint frames coincide, so the child link's orientation in the
    // parent link's is e_p⁻¹ frame_p frame_c⁻¹ e_c; Bullet takes the inverse (parent -> this)
    const Vec4 q_pc = quat_mul(quat_mul(quat_conj(p.e), frame_p), quat_mul(quat_conj(frame_c), c.e));
    const btQuaternion rot_parent_to_this = bt_quat(quat_conj(q_pc));
    const btVector3 e = bt_vec(p.E.transpose() * anchor_p);   // parent CoM -> pivot, parent link frame
    const btVector3 d = bt_vec(-(c.E.transpose() * anchor_c));  // pivot -> this CoM, this link frame
    const btVector3 axis = bt_vec(c.E.transpose() * quat_rotate(frame_c, Vec3::UnitZ()));
    Mat3 E;
    Vec3 moments;
    principal_axes(B.inertia, &E, &moments);
    const btVector3 inertia = bt_vec(moments);
    switch (jt.type) {
      case JointType::Revolute:
        mb->setupRevolute(i, B.mass, inertia, parent_link, rot_parent_to_this, axis, e, d, false);
        break;
      case JointType::Prismatic:
        mb->setupPrismatic(i, B.mass, inertia, parent_link, rot_parent_to_this, axis, e, d, false);
        break;
      case JointType::Spherical:
        mb->setupSpherical(i, B.mass, inertia, parent_link, rot_parent_to_this, e, d, false);
        break;
      case JointType::Fixed:
        mb->setupFixed(i, B.mass, inertia, parent_link, rot_parent_to_this, e, d, false);
        break;
      case JointType::PlanarAxis: {
        // Bullet's planar link turns about its CoM: the offset is parent CoM -> child CoM
        const Vec3 com = anchor_p - quat_rotate(quat_mul(frame_p, quat_conj(frame_c)), anchor_c);
        mb->setupPlanar(i, B.mass, inertia, parent_link, rot_parent_to_this, axis, bt_vec(p.E.transpose() * com),
                        false);
        break;
      }
      default:
        throw Unsupported(std::string("bullet: joint '") + jt.name + "' of type " + joint_type_name(jt.type));
    }
    joints_[lp.joint] = {JointMap::Link, t, i, lp.reversed};
  }
  if (plan.base != kWorld)
    for (int j = 0; j < static_cast<int>(m.joints.size()); ++j)
      if (m.joints[j].type == JointType::Floating && m.joints[j].child == plan.base &&
          joints_[j].kind == JointMap::None)
        joints_[j] = {JointMap::Base, t, -1, false};
  mb->finalizeMultiDof();
  mb->setLinearDamping(0);
  mb->setAngularDamping(0);
  mb->setUseGyroTerm(true);
  mb->setMaxAppliedImpulse(kHuge);
  mb->setMaxCoordinateVelocity(kHuge);
  mb->setCanSleep(false);
  // a multibody collides with itself only if two of its bodies may
  std::vector<int> members;
  if (plan.base != kWorld) members.push_back(plan.base);
  for (const auto& lp : plan.links) members.push_back(lp.body);
  bool self = false;
  for (int a : members)
    for (int b : members)
      self |= a != b && (allowed_[(a + 1) * n_nodes_ + b + 1] || forced_[(a + 1) * n_nodes_ + b + 1]);
  mb->setHasSelfCollision(self);
  world_->addMultiBody(mb.get());
  multibodies_.push_back(std::move(mb));
  for (int b : members) add_body_collider(b);
}

void BulletEngine::load(const SceneSetup& setup) {
  reset();
  model_ = setup.model;
  dt_ = setup.dt;
  const Model& m = *model_;
  const int nb = static_cast<int>(m.bodies.size()), nj = static_cast<int>(m.joints.size());
  check_supported();
  if (static_cast<int>(setup.start.size()) != nb)
    throw std::invalid_argument("bullet: the setup's start has " + std::to_string(setup.start.size()) + " bodies");

  bodies_.assign(nb, BodyMap{});
  for (int b = 0; b < nb; ++b) {
    Vec3 moments;
    principal_axes(m.bodies[b].inertia, &bodies_[b].E, &moments);
    bodies_[b].e = rot_to_quat(bodies_[b].E);
  }
  joints_.assign(nj, JointMap{});
  pending_.assign(nj, std::array<double, 6>{});

  // which bodies may touch: maxsim's own filter, then the model's switches
  n_nodes_ = nb + 1;
  allowed_.assign(n_nodes_ * n_nodes_, 0);
  forced_.assign(n_nodes_ * n_nodes_, 0);
  {
    CollisionOptions co;
    co.ground = m.opt.contact.ground;
    co.default_friction = m.opt.contact.friction;
    co.exclude_joined = m.opt.contact.exclude_joined;
    const CollisionWorld cw(m, co);
    for (int a = kWorld; a < nb; ++a)
      for (int b = kWorld; b < nb; ++b) {
        const bool self_ok = m.opt.contact.self_collision || a == kWorld || b == kWorld;
        allowed_[(a + 1) * n_nodes_ + b + 1] =
            a != b && m.contacts && m.dynamic_contacts && self_ok && cw.bodies_may_collide(a, b) &&
            !setup.overlapping_at_start(a, b);
      }
    if (m.contacts)
      for (const ContactPair& p : m.contact_pairs)
        if (p.body1 != p.body2) {
          forced_[(p.body1 + 1) * n_nodes_ + p.body2 + 1] = 1;
          forced_[(p.body2 + 1) * n_nodes_ + p.body1 + 1] = 1;
        }
  }

  const std::vector<TreePlan> plans = plan_trees();

  config_ = std::make_unique<btDefaultCollisionConfiguration>();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(config_.get());
  broadphase_ = std::make_unique<btDbvtBroadphase>();
  filter_.engine = this;
  broadphase_->getOverlappingPairCache()->setOverlapFilterCallback(&filter_);
  solver_ = std::make_unique<btMultiBodyConstraintSolver>();
  world_ = std::make_unique<btMultiBodyDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(),
                                                       config_.get());
  world_->setGravity(bt_vec(m.opt.gravity));
  gCalculateCombinedFrictionCallback = &max_friction;
  gContactAddedCallback = &contact_added;

  for (int t = 0; t < static_cast<int>(plans.size()); ++t) build_multibody(plans[t], t);

  // the world's geoms and the ground
  for (int i = 0; i < static_cast<int>(m.world_geoms.size()); ++i) {
    const Geom& g = m.world_geoms[i];
    bool in_pair = false;
    for (const ContactPair& p : m.contact_pairs)
      in_pair |= (p.body1 == kWorld && p.geom1 == i) || (p.body2 == kWorld && p.geom2 == i);
    if (!collides(g, false, in_pair)) continue;
    add_static(make_shape(g, "the world"), bt_pose(g.pos, g.quat), g.contype, g.conaffinity, geom_friction(m, g));
  }
  if (m.opt.contact.ground) {
    shapes_.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0));
    add_static(shapes_.back().get(), btTransform::getIdentity(), 1, 1, m.opt.contact.friction);
  }

  // loop closures: the anchor point, in each link's frame (the world's: world coordinates)
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = m.joints[j];
    if (joints_[j].kind != JointMap::Loop || jt.type == JointType::Floating) continue;
    const BodyMap& c = bodies_[jt.child];
    const btVector3 pivot_c = bt_vec(c.E.transpose() * jt.child_anchor);
    std::unique_ptr<btMultiBodyPoint2Point> p2p;
    if (jt.parent == kWorld) {
      p2p = std::make_unique<btMultiBodyPoint2Point>(multibodies_[c.tree].get(), c.link, nullptr, pivot_c,
                                                     bt_vec(jt.parent_anchor));
    } else {
      const BodyMap& p = bodies_[jt.parent];
      p2p = std::make_unique<btMultiBodyPoint2Point>(multibodies_[p.tree].get(), p.link,
                                                     multibodies_[c.tree].get(), c.link,
                                                     bt_vec(p.E.transpose() * jt.parent_anchor), pivot_c);
    }
    p2p->setMaxAppliedImpulse(kHuge);
    world_->addMultiBodyConstraint(p2p.get());
    constraints_.push_back(std::move(p2p));
  }

  // limits and dry friction of tree revolute / prismatic joints, in Bullet's coordinate
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = m.joints[j];
    const JointMap& jm = joints_[j];
    if (jm.kind != JointMap::Link || (jt.type != JointType::Revolute && jt.type != JointType::Prismatic)) continue;
    const int row = jt.type == JointType::Revolute ? 5 : 2;
    btMultiBody* mb = multibodies_[jm.tree].get();
    if (jt.has_limits) {
      const double s = jm.reversed ? -1 : 1;
      const double lo = std::min(s * jt.lower[row], s * jt.upper[row]);
      const double hi = std::max(s * jt.lower[row], s * jt.upper[row]);
      auto lim = std::make_unique<btMultiBodyJointLimitConstraint>(mb, jm.link, lo, hi);
      lim->setMaxAppliedImpulse(kHuge);
      world_->addMultiBodyConstraint(lim.get());
      constraints_.push_back(std::move(lim));
    }
    if (jt.friction[row] > 0) {
      auto motor = std::make_unique<btMultiBodyJointMotor>(mb, jm.link, 0.0, jt.friction[row] * dt_);
      world_->addMultiBodyConstraint(motor.get());
      constraints_.push_back(std::move(motor));
    }
  }

  place_start(setup);
  refresh();
  for (int b = 0; b < nb; ++b) {
    const BodyState& s = setup.start[b];
    const double dx = (state_[b].x - s.x).norm();
    const double dq = quat_log(quat_mul(quat_conj(s.q), state_[b].q)).norm();
    const double dv = (state_[b].v - s.v).norm() + (state_[b].w - s.w).norm();
    const double vs = 1 + s.v.norm() + s.w.norm();
    if (!(dx <= 1e-6 && dq <= 1e-6 && dv <= 1e-6 * vs))
      throw std::runtime_error("bullet: body '" + m.bodies[b].name + "' starts " + std::to_string(dx) + " m, " +
                               std::to_string(dq) + " rad, " + std::to_string(dv) +
                               " m/s + rad/s away from the setup's start (a translation bug)");
  }
}

// Bases from their bodies' states, links from the coordinates (scalar joints: maxsim's coordinate,
// signed) or from the bodies' relative pose (ball, planar), joint rates from the bodies' relative
// motion solved on the link's motion subspace (Bullet's own axes).
void BulletEngine::place_start(const SceneSetup& setup) {
  const Model& m = *model_;
  auto link_q = [&](int b) { return b == kWorld ? quat_identity() : quat_mul(setup.start[b].q, bodies_[b].e); };
  for (auto& mb : multibodies_) {
    mb->setBasePos(btVector3(0, 0, 0));
    mb->setWorldToBaseRot(btQuaternion::getIdentity());
    mb->setBaseVel(btVector3(0, 0, 0));
    mb->setBaseOmega(btVector3(0, 0, 0));
  }
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
    if (bodies_[b].link >= 0) continue;
    btMultiBody* mb = multibodies_[bodies_[b].tree].get();
    const BodyState& s = setup.start[b];
    mb->setBasePos(bt_vec(s.x));
    mb->setWorldToBaseRot(bt_quat(quat_conj(link_q(b))));
    mb->setBaseVel(bt_vec(s.v));
    mb->setBaseOmega(bt_vec(quat_rotate(s.q, s.w)));
  }
  for (int j = 0; j < static_cast<int>(m.joints.size()); ++j) {
    const JointMap& jm = joints_[j];
    if (jm.kind != JointMap::Link) continue;
    const Joint& jt = m.joints[j];
    btMultiBody* mb = multibodies_[jm.tree].get();
    const btMultibodyLink& link = mb->getLink(jm.link);
    const int cb = jm.reversed ? jt.parent : jt.child;
    const int pb = jm.reversed ? jt.child : jt.parent;
    const double s = jm.reversed ? -1 : 1;
    const Vec4 qc = link_q(cb), qp = link_q(pb);
    const BodyState world_state;
    const BodyState& C = setup.start[cb];
    const BodyState& P = pb == kWorld ? world_state : setup.start[pb];
    const Vec4 zero_rot = from_bt(link.m_zeroRotParentToThis);
    switch (jt.type) {
      case JointType::Revolute:
      case JointType::Prismatic:
        mb->setJointPos(jm.link, s * setup.start_q[j].at(0));
        break;
      case JointType::Spherical: {
        // Bullet: parent -> this = q_j⁻¹ · zero, so q_j = zero · q_parent⁻¹ · q_this
        const Vec4 qj = quat_normalize(quat_mul(zero_rot, quat_mul(quat_conj(qp), qc)));
        const double pos[4] = {qj(1), qj(2), qj(3), qj(0)};
        mb->setJointPosMultiDof(jm.link, pos);
        break;
      }
      case JointType::PlanarAxis: {
        // the angle from the coordinates, then the slides that put the CoM where it is
        const double theta = s * setup.start_q[j].at(row_coordinate_index(jt, 5));
        double pos[3] = {theta, 0, 0};
        mb->setJointPosMultiDof(jm.link, pos);
        const Vec3 r = quat_rotate(quat_conj(qc), C.x - P.x);  // parent CoM -> this CoM, this frame
        const Vec3 slide = quat_rotate(from_bt(btQuaternion(link.getAxisTop(0), theta)),
                                       r - from_bt(mb->getRVector(jm.link)));
        pos[1] = slide.dot(from_bt(link.getAxisBottom(1)));
        pos[2] = slide.dot(from_bt(link.getAxisBottom(2)));
        mb->setJointPosMultiDof(jm.link, pos);
        break;
      }
      default:
        break;
    }
    const int ndof = link.m_dofCount;
    if (ndof == 0) continue;
    // this link's motion relative to its parent, in its frame: Σ q̇_d (top_d, bottom_d)
    const Vec3 wp = quat_rotate(P.q, P.w), wc = quat_rotate(C.q, C.w);
    const Vec3 rel_w = quat_rotate(quat_conj(qc), wc - wp);
    const Vec3 rel_v = quat_rotate(quat_conj(qc), C.v - P.v - wp.cross(C.x - P.x));
    Eigen::Matrix<double, 6, Eigen::Dynamic> S(6, ndof);
    for (int k = 0; k < ndof; ++k) {  // (block writes: GCC 12 misreads comma-initialized Vec3s under AVX)
      S.col(k).head<3>() = from_bt(link.getAxisTop(k));
      S.col(k).tail<3>() = from_bt(link.getAxisBottom(k));
    }
    Eigen::Matrix<double, 6, 1> rel;
    rel.head<3>() = rel_w;
    rel.tail<3>() = rel_v;
    const Eigen::VectorXd qd = S.colPivHouseholderQr().solve(rel);
    mb->setJointVelMultiDof(jm.link, qd.data());
  }
  btAlignedObjectArray<btQuaternion> w2l;
  btAlignedObjectArray<btVector3> origin;
  for (auto& mb : multibodies_) mb->updateCollisionObjectWorldTransforms(w2l, origin);
}

// Every body's state from the multibodies (their own kinematics: the cached parent -> this
// rotations and offsets, and compTreeLinkVelocities in each link's frame at its CoM).
void BulletEngine::refresh() const {
  stale_ = false;
  const Model& m = *model_;
  state_.resize(m.bodies.size());
  for (int t = 0; t < static_cast<int>(multibodies_.size()); ++t) {
    const btMultiBody* mb = multibodies_[t].get();
    const int n = mb->getNumLinks();
    w2l_.resize(n + 1);
    origin_.resize(n + 1);
    omega_.resize(n + 1);
    vel_.resize(n + 1);
    w2l_[0] = mb->getWorldToBaseRot();
    origin_[0] = mb->getBasePos();
    for (int k = 0; k < n; ++k) {
      const int parent = mb->getParent(k);
      w2l_[k + 1] = mb->getParentToLocalRot(k) * w2l_[parent + 1];
      origin_[k + 1] = origin_[parent + 1] + quatRotate(w2l_[k + 1].inverse(), mb->getRVector(k));
    }
    mb->compTreeLinkVelocities(omega_.data(), vel_.data());
    for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
      const BodyMap& bm = bodies_[b];
      if (bm.tree != t) continue;
      const int k = bm.link + 1;
      const Vec4 q_link = quat_normalize(quat_conj(from_bt(w2l_[k])));
      BodyState& s = state_[b];
      s.x = from_bt(origin_[k]);
      s.q = quat_normalize(quat_mul(q_link, quat_conj(bm.e)));
      if (s.q(0) < 0) s.q = -s.q;
      s.v = quat_rotate(q_link, from_bt(vel_[k]));
      s.w = bm.E * from_bt(omega_[k]);
    }
  }
}

void BulletEngine::apply_wrench(int body, const Vec3& force, const Vec3& point, const Vec3& torque) {
  if (body == kWorld) return;
  const BodyMap& bm = bodies_[body];
  btMultiBody* mb = multibodies_[bm.tree].get();
  const Vec3 tau = torque + (point - state_[body].x).cross(force);
  if (bm.link < 0) {
    mb->addBaseForce(bt_vec(force));
    mb->addBaseTorque(bt_vec(tau));
  } else {
    mb->addLinkForce(bm.link, bt_vec(force));
    mb->addLinkTorque(bm.link, bt_vec(tau));
  }
}

// This step's joint forces (set_joint_force, then damping and springs), each row as its
// generalized force: a revolute / prismatic tree row through the link's joint torque, every other
// row as the equal and opposite wrench on its two bodies.
void BulletEngine::apply_forces() {
  const Model& m = *model_;
  const BodyState world_state;
  for (int j = 0; j < static_cast<int>(m.joints.size()); ++j) {
    const Joint& jt = m.joints[j];
    const JointMap& jm = joints_[j];
    std::array<double, 6>& f = pending_[j];
    const bool scalar_link = jm.kind == JointMap::Link &&
                             (jt.type == JointType::Revolute || jt.type == JointType::Prismatic);
    if (scalar_link) {
      const int row = jt.type == JointType::Revolute ? 5 : 2;
      btMultiBody* mb = multibodies_[jm.tree].get();
      const double s = jm.reversed ? -1 : 1;
      const double q = s * mb->getJointPos(jm.link), qd = s * mb->getJointVel(jm.link);
      const double Q = f[row] - jt.damping[row] * qd - jt.stiffness[row] * (q - jt.spring_ref[row]);
      if (Q != 0) mb->addJointTorque(jm.link, s * Q);
      f.fill(0);
      continue;
    }
    if (jt.type == JointType::Fixed || (jm.kind == JointMap::Loop && jt.type == JointType::Floating)) {
      f.fill(0);
      continue;
    }
    if (stale_) refresh();  // the wrench rows act at the bodies' current poses
    const BodyState& P = jt.parent == kWorld ? world_state : state_[jt.parent];
    const BodyState& C = state_[jt.child];
    const Vec4 q_pj = quat_mul(P.q, jt.parent_frame), q_cj = quat_mul(C.q, jt.child_frame);
    const Mat3 Rp = quat_to_rot(q_pj), Rc = quat_to_rot(q_cj);
    const Vec3 a_p = P.x + quat_rotate(P.q, jt.parent_anchor), a_c = C.x + quat_rotate(C.q, jt.child_anchor);
    const Vec3 wp = quat_rotate(P.q, P.w), wc = quat_rotate(C.q, C.w);
    // maxsim's row coordinates and rates (translation: child anchor in the parent joint frame;
    // rotation: relative angular velocity in the child joint frame)
    const Vec3 t = Rp.transpose() * (a_c - a_p);
    const Vec3 t_rate = Rp.transpose() * (C.v + wc.cross(a_c - C.x) - P.v - wp.cross(a_c - P.x));
    const Vec3 w_rel = Rc.transpose() * (wc - wp);
    const Vec4 q_rel = quat_mul(quat_conj(q_pj), q_cj);
    const bool free_rotation = rot_kind(jt.type) == RotKind::Free;
    Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r)) continue;
      double Q = f[r];
      if (r < 3) {
        Q -= jt.damping[r] * t_rate(r) + jt.stiffness[r] * (t(r) - jt.spring_ref[r]);
        force += Q * Rp.col(r);
      } else {
        Q -= jt.damping[r] * w_rel(r - 3);
        if (r == 5 && !free_rotation)  // a hinge about z (planar axis, revolute loop): its angle
          Q -= jt.stiffness[r] * (2 * std::atan2(q_rel(3), q_rel(0)) - jt.spring_ref[r]);
        torque += Q * Rc.col(r - 3);
      }
    }
    f.fill(0);
    if (force.isZero(0) && torque.isZero(0)) continue;
    apply_wrench(jt.child, force, a_c, torque);
    apply_wrench(jt.parent, -force, a_c, -torque);
  }
}

// (Bullet reports no failed step; the driver counts a non-finite state)
bool BulletEngine::step() {
  apply_forces();
  world_->stepSimulation(dt_, 0);
  stale_ = true;
  return true;
}

}  // namespace

std::unique_ptr<Engine> make_bullet_engine() { return std::make_unique<BulletEngine>(); }

}  // namespace maxsim::bench
