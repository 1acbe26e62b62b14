// DART 6.12 side of the DART engine: builds Skeletons and a dart::simulation::World from the plain
// scene of dart_scene.hpp, steps it and reads it back.
//
// Compiled WITHOUT maxsim's Eigen definitions (plain `pkg-config --cflags dart`): DART's classes
// must have the layout libdart.so was compiled with (see dart_scene.hpp). Never include maxsim
// headers here.
//
// Separate translation units are not enough on their own: Eigen's inline templates (aligned_malloc,
// assignment loops, …) have the same mangled names under both alignments, so the linker keeps one
// copy for the whole program, and libdart.so binds its own out-of-line Eigen calls to any copy the
// executable exports. Both were seen to crash (a maxsim-aligned VectorXd assignment running inside
// DART's LCP solver). Hence:
//   * this file is built as a SHARED library with hidden visibility and -Bsymbolic, so its Eigen
//     instantiations stay private to it (DartWorld, marked visible in dart_scene.hpp, is all it
//     exports):
//       g++ $(pkg-config --cflags dart) -std=c++17 -O2 -fPIC -fvisibility=hidden
//           -fvisibility-inlines-hidden -I<repo> -c dart_backend.cpp
//       g++ -shared -o libmaxsim_dart_backend.so dart_backend.o -Wl,-Bsymbolic $(pkg-config --libs dart)
//     (-std=c++17 after the pkg-config flags: they carry -std=c++11, too old for DART's headers);
//   * an executable linking it must not export maxsim's Eigen instantiations: link it with
//     -Wl,--exclude-libs,ALL (maxsim's static libraries) and check that
//     `nm -D --defined-only <executable> | c++filt | grep Eigen` prints nothing (objects given
//     directly on the link line can be compiled with -fvisibility=hidden if it does).
//
// Choices (what "DART as its users run it" means here):
//   * the World's own constraint solver, BoxedLcpConstraintSolver with its default Dantzig solver
//     (PGS as the fallback DART uses when Dantzig fails), DART's default contact ERP/CFM;
//   * DART's default collision detector (FCL, primitives approximated by meshes, DART's contact
//     point computation) unless the scene asks for DARTCollisionDetector;
//   * friction: DART 6.12 has no contact surface handler and combines two shapes' μ by min, while
//     the comparison's rule is a per-pair table (the max of the two geoms'). The solver below sets
//     each contact constraint's coefficients from the table just before the LCP is built (the
//     constraint keeps them private: they are reached through the standard explicit-instantiation
//     access idiom, which is legal C++). Restitution 0 everywhere.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <assimp/scene.h>
#include <dart/collision/CollisionFilter.hpp>
#include <dart/collision/CollisionObject.hpp>
#include <dart/collision/dart/DARTCollisionDetector.hpp>
#include <dart/collision/fcl/FCLCollisionDetector.hpp>
#include <dart/constraint/BallJointConstraint.hpp>
#include <dart/constraint/BoxedLcpConstraintSolver.hpp>
#include <dart/constraint/ConstrainedGroup.hpp>
#include <dart/constraint/ContactConstraint.hpp>
#include <dart/constraint/WeldJointConstraint.hpp>
#include <dart/dynamics/BallJoint.hpp>
#include <dart/dynamics/TranslationalJoint2D.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/CylinderShape.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/MeshShape.hpp>
#include <dart/dynamics/PlanarJoint.hpp>
#include <dart/dynamics/PrismaticJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/ShapeNode.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/dynamics/WeldJoint.hpp>
#include <dart/math/Geometry.hpp>
#include <dart/simulation/World.hpp>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "benchmarks/engines/dart_scene.hpp"

namespace maxsim::bench {

namespace {

using dart::constraint::ContactConstraint;
namespace dd = dart::dynamics;
namespace ds = dart_scene;

// ---- access to ContactConstraint's private friction coefficients (see the top) ----
// An explicit instantiation may name private members; the friend function leaks the pointer.
template <class Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member(Tag) { return Member; }
};
struct PrimaryMu {
  using type = double ContactConstraint::*;
  friend type member(PrimaryMu);
};
struct SecondaryMu {
  using type = double ContactConstraint::*;
  friend type member(SecondaryMu);
};
struct ContactOf {
  using type = const dart::collision::Contact& (ContactConstraint::*)() const;
  friend type member(ContactOf);
};
template struct Expose<PrimaryMu, &ContactConstraint::mPrimaryFrictionCoeff>;
template struct Expose<SecondaryMu, &ContactConstraint::mSecondaryFrictionCoeff>;
template struct Expose<ContactOf, &ContactConstraint::getContact>;

// Which scene geom a DART shape is, and the pair table.
struct GeomTable {
  std::unordered_map<const dd::ShapeFrame*, int> geom_of;
  const std::vector<double>* pair_friction = nullptr;
  int n = 0;
  double mu(const dd::ShapeFrame* a, const dd::ShapeFrame* b) const {
    const auto ia = geom_of.find(a), ib = geom_of.find(b);
    if (ia == geom_of.end() || ib == geom_of.end()) return -1;
    return (*pair_friction)[static_cast<size_t>(ia->second) * n + ib->second];
  }
};

// The pair table decides which shapes collide: it replaces DART's BodyNodeCollisionFilter (same
// Skeleton, adjacent bodies), since maxsim's rules (joints, contype/conaffinity, excludes) are
// already in it.
class TableFilter : public dart::collision::CollisionFilter {
 public:
  explicit TableFilter(const GeomTable* table) : table_(table) {}
  bool ignoresCollision(const dart::collision::CollisionObject* a,
                        const dart::collision::CollisionObject* b) const override {
    return table_->mu(a->getShapeFrame(), b->getShapeFrame()) < 0;
  }

 private:
  const GeomTable* table_;
};

// DART's boxed-LCP solver with each contact's μ taken from the pair table (see the top).
class TableFrictionSolver : public dart::constraint::BoxedLcpConstraintSolver {
 public:
  explicit TableFrictionSolver(const GeomTable* table) : table_(table) {}

 protected:
  void solveConstrainedGroup(dart::constraint::ConstrainedGroup& group) override {
    for (std::size_t i = 0; i < group.getNumConstraints(); ++i) {
      auto* c = dynamic_cast<ContactConstraint*>(group.getConstraint(i).get());
      if (c == nullptr) continue;
      const dart::collision::Contact& contact = (c->*member(ContactOf()))();
      const double mu = table_->mu(contact.collisionObject1->getShapeFrame(),
                                   contact.collisionObject2->getShapeFrame());
      if (mu < 0) continue;
      c->*member(PrimaryMu()) = mu;
      c->*member(SecondaryMu()) = mu;
    }
    BoxedLcpConstraintSolver::solveConstrainedGroup(group);
  }

 private:
  const GeomTable* table_;
};

Eigen::Isometry3d isometry(const ds::Frame& f) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = Eigen::Quaterniond(f.q[0], f.q[1], f.q[2], f.q[3]).normalized().toRotationMatrix();
  T.translation() = Eigen::Vector3d(f.p[0], f.p[1], f.p[2]);
  return T;
}

Eigen::VectorXd vec(const std::vector<double>& v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) out(static_cast<Eigen::Index>(i)) = v[i];
  return out;
}

// A MeshShape of the convex hull of `vertices` (maxsim collides a mesh geom's hull). MeshShape
// releases the scene with aiReleaseImport, which deletes a scene made with `new` (no importer):
// every array is allocated as assimp's destructors free it.
std::shared_ptr<dd::MeshShape> hull_mesh(const std::vector<ds::V3>& vertices) {
  std::vector<Eigen::Vector3d> points;
  points.reserve(vertices.size());
  for (const ds::V3& v : vertices) points.emplace_back(v[0], v[1], v[2]);
  const auto [hull_v, hull_f] = dart::math::computeConvexHull3D<double, unsigned int>(points);
  if (hull_v.size() < 4 || hull_f.empty()) throw std::runtime_error("dart: degenerate mesh hull");
  auto* scene = new aiScene();
  scene->mNumMeshes = 1;
  scene->mMeshes = new aiMesh*[1];
  aiMesh* mesh = new aiMesh();
  scene->mMeshes[0] = mesh;
  mesh->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
  mesh->mNumVertices = static_cast<unsigned>(hull_v.size());
  mesh->mVertices = new aiVector3D[hull_v.size()];
  for (std::size_t i = 0; i < hull_v.size(); ++i)
    mesh->mVertices[i] = aiVector3D(static_cast<ai_real>(hull_v[i].x()), static_cast<ai_real>(hull_v[i].y()),
                                    static_cast<ai_real>(hull_v[i].z()));
  mesh->mNumFaces = static_cast<unsigned>(hull_f.size());
  mesh->mFaces = new aiFace[hull_f.size()];
  for (std::size_t i = 0; i < hull_f.size(); ++i) {
    aiFace& face = mesh->mFaces[i];
    face.mNumIndices = 3;
    face.mIndices = new unsigned int[3];
    for (int k = 0; k < 3; ++k) face.mIndices[k] = hull_f[i](k);
  }
  scene->mRootNode = new aiNode();
  scene->mRootNode->mNumMeshes = 1;
  scene->mRootNode->mMeshes = new unsigned int[1];
  scene->mRootNode->mMeshes[0] = 0;
  return std::make_shared<dd::MeshShape>(Eigen::Vector3d::Ones(), scene);
}

dd::ShapePtr make_shape(const ds::Geom& g) {
  switch (g.kind) {
    case ds::GeomKind::Sphere:
      return std::make_shared<dd::SphereShape>(g.size[0]);
    case ds::GeomKind::Box:
      return std::make_shared<dd::BoxShape>(Eigen::Vector3d(g.size[0], g.size[1], g.size[2]));
    case ds::GeomKind::Cylinder:
      return std::make_shared<dd::CylinderShape>(g.size[0], g.size[1]);
    case ds::GeomKind::Mesh:
      return hull_mesh(g.vertices);
    case ds::GeomKind::Capsule:
      break;  // three shapes (DartWorld::load)
  }
  throw std::runtime_error("dart: unknown geom kind");
}

}  // namespace

struct DartWorld::Impl {
  ds::Scene scene;
  dart::simulation::WorldPtr world;
  GeomTable table;
  std::vector<dd::BodyNode*> body_node;  // per scene body
  std::vector<dd::Joint*> joint;         // per scene joint
  std::vector<dd::SkeletonPtr> skeletons;
  std::vector<std::vector<double>> force;  // per scene joint, per dof, for the next step
  std::vector<bool> has_force;
};

DartWorld::DartWorld() : impl_(std::make_unique<Impl>()) {}
DartWorld::~DartWorld() = default;

void DartWorld::load(const ds::Scene& scene) {
  Impl& m = *impl_;
  m.scene = scene;
  const ds::Scene& s = m.scene;
  m.world = dart::simulation::World::create("maxsim");
  m.world->setGravity(Eigen::Vector3d(s.gravity[0], s.gravity[1], s.gravity[2]));
  m.world->setTimeStep(s.dt);
  m.table.pair_friction = &s.pair_friction;
  m.table.n = static_cast<int>(s.geoms.size());
  // the solver first: setConstraintSolver copies the old one's skeletons and detector
  m.world->setConstraintSolver(std::make_unique<TableFrictionSolver>(&m.table));
  auto* solver = m.world->getConstraintSolver();
  if (s.dart_collision_detector)
    solver->setCollisionDetector(dart::collision::DARTCollisionDetector::create());
  else
    solver->setCollisionDetector(dart::collision::FCLCollisionDetector::create());
  solver->getCollisionOption().collisionFilter = std::make_shared<TableFilter>(&m.table);
  // DART's default bound on a step's contacts (1000) is low for a robot's meshes on a ground box
  solver->getCollisionOption().maxNumContacts = 10000;

  const int nb = static_cast<int>(s.bodies.size());
  m.body_node.assign(nb, nullptr);
  m.joint.assign(s.joints.size(), nullptr);
  std::vector<dd::SkeletonPtr> skeleton_of(nb);
  for (std::size_t j = 0; j < s.joints.size(); ++j) {
    const ds::Joint& sj = s.joints[j];
    const ds::Body& sb = s.bodies[sj.child];
    dd::SkeletonPtr skel;
    dd::BodyNode* parent = nullptr;
    if (sj.parent < 0) {
      skel = dd::Skeleton::create(sb.name);
      // maxsim's collision rules are all in the pair table (TableFilter)
      skel->enableSelfCollisionCheck();
      skel->enableAdjacentBodyCheck();
      m.skeletons.push_back(skel);
    } else {
      parent = m.body_node[sj.parent];
      skel = skeleton_of[sj.parent];
      if (parent == nullptr) throw std::runtime_error("dart: joint '" + sj.name + "' before its parent");
    }
    dd::BodyNode::Properties body_props;
    body_props.mName = sb.name;
    dd::Joint* joint = nullptr;
    dd::BodyNode* node = nullptr;
    switch (sj.kind) {
      case ds::JointKind::Free: {
        auto pair = skel->createJointAndBodyNodePair<dd::FreeJoint>(parent, dd::FreeJoint::Properties(), body_props);
        joint = pair.first;
        node = pair.second;
        break;
      }
      case ds::JointKind::Revolute: {
        dd::RevoluteJoint::Properties p;
        p.mAxis = Eigen::Vector3d::UnitZ();
        auto pair = skel->createJointAndBodyNodePair<dd::RevoluteJoint>(parent, p, body_props);
        joint = pair.first;
        node = pair.second;
        break;
      }
      case ds::JointKind::Prismatic: {
        dd::PrismaticJoint::Properties p;
        p.mAxis = Eigen::Vector3d::UnitZ();
        auto pair = skel->createJointAndBodyNodePair<dd::PrismaticJoint>(parent, p, body_props);
        joint = pair.first;
        node = pair.second;
        break;
      }
      case ds::JointKind::Ball: {
        auto pair = skel->createJointAndBodyNodePair<dd::BallJoint>(parent, dd::BallJoint::Properties(), body_props);
        joint = pair.first;
        node = pair.second;
        break;
      }
      case ds::JointKind::Weld: {
        auto pair = skel->createJointAndBodyNodePair<dd::WeldJoint>(parent, dd::WeldJoint::Properties(), body_props);
        joint = pair.first;
        node = pair.second;
        break;
      }
      case ds::JointKind::Planar: {
        auto pair = skel->createJointAndBodyNodePair<dd::PlanarJoint>(parent, dd::PlanarJoint::Properties(), body_props);
        pair.first->setXYPlane();
        joint = pair.first;
        node = pair.second;
        break;
      }
      case ds::JointKind::Translational2D: {
        auto pair = skel->createJointAndBodyNodePair<dd::TranslationalJoint2D>(
            parent, dd::TranslationalJoint2D::Properties(), body_props);
        pair.first->setXYPlane();
        joint = pair.first;
        node = pair.second;
        break;
      }
    }
    joint->setName(sj.name);
    joint->setTransformFromParentBodyNode(isometry(sj.in_parent));
    joint->setTransformFromChildBodyNode(isometry(sj.in_child));
    const std::size_t nd = joint->getNumDofs();
    auto per_dof = [&](const std::vector<double>& v, const char* what) {
      if (v.size() != nd)
        throw std::runtime_error("dart: joint '" + sj.name + "': " + what + " has " + std::to_string(v.size()) +
                                 " values for " + std::to_string(nd) + " dofs");
    };
    per_dof(sj.damping, "damping");
    per_dof(sj.stiffness, "stiffness");
    per_dof(sj.rest, "rest");
    per_dof(sj.friction, "friction");
    per_dof(sj.q, "q");
    per_dof(sj.qd, "qd");
    for (std::size_t k = 0; k < nd; ++k) {
      joint->setDampingCoefficient(k, sj.damping[k]);
      joint->setSpringStiffness(k, sj.stiffness[k]);
      joint->setRestPosition(k, sj.rest[k]);
      joint->setCoulombFriction(k, sj.friction[k]);
    }
    if (sj.limits) {
      per_dof(sj.lower, "lower");
      per_dof(sj.upper, "upper");
      for (std::size_t k = 0; k < nd; ++k) {
        joint->setPositionLowerLimit(k, sj.lower[k]);
        joint->setPositionUpperLimit(k, sj.upper[k]);
      }
      joint->setLimitEnforcement(true);
    }
    // the CoM is the body frame's origin; maxsim's inertia is full, about it, in that frame
    Eigen::Matrix3d I;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) I(r, c) = sb.inertia[3 * r + c];
    node->setInertia(dd::Inertia(sb.mass, Eigen::Vector3d::Zero(), I));
    m.body_node[sj.child] = node;
    skeleton_of[sj.child] = skel;
    m.joint[j] = joint;
  }
  for (int b = 0; b < nb; ++b)
    if (m.body_node[b] == nullptr) throw std::runtime_error("dart: body '" + s.bodies[b].name + "' has no joint");

  // world geoms: one immobile Skeleton (a root WeldJoint)
  dd::BodyNode* ground = nullptr;
  for (const ds::Geom& g : s.geoms) {
    if (g.body >= 0 || ground != nullptr) continue;
    auto skel = dd::Skeleton::create("world_geoms");
    ground = skel->createJointAndBodyNodePair<dd::WeldJoint>().second;
    m.skeletons.push_back(skel);
  }
  for (std::size_t i = 0; i < s.geoms.size(); ++i) {
    const ds::Geom& g = s.geoms[i];
    dd::BodyNode* node = g.body >= 0 ? m.body_node[g.body] : ground;
    auto add_shape = [&](const dd::ShapePtr& shape, const Eigen::Isometry3d& pose) {
      dd::ShapeNode* sn = node->createShapeNodeWith<dd::CollisionAspect, dd::DynamicsAspect>(shape);
      sn->setRelativeTransform(pose);
      // The pair table sets every contact's μ (TableFrictionSolver); DART switches a contact's
      // friction rows off when the min of the two shapes' μ is ~0, so the shapes' own stay positive.
      sn->getDynamicsAspect()->setFrictionCoeff(std::max(g.friction, 0.01));
      sn->getDynamicsAspect()->setRestitutionCoeff(0.0);
      m.table.geom_of[sn] = static_cast<int>(i);
    };
    const Eigen::Isometry3d pose = isometry(g.pose);
    if (g.kind == ds::GeomKind::Capsule) {
      // DART 6.12's FCL detector has no capsule (it substitutes a 0.1 m sphere): the capsule is
      // the union of its cylinder and two end spheres, three shapes of one geom
      add_shape(std::make_shared<dd::CylinderShape>(g.size[0], g.size[1]), pose);
      for (double end : {-0.5, 0.5}) {
        Eigen::Isometry3d at = pose;
        at.translate(Eigen::Vector3d(0, 0, end * g.size[1]));
        add_shape(std::make_shared<dd::SphereShape>(g.size[0]), at);
      }
    } else {
      add_shape(make_shape(g), pose);
    }
  }
  for (const auto& skel : m.skeletons) m.world->addSkeleton(skel);

  // the start
  for (std::size_t j = 0; j < s.joints.size(); ++j) {
    if (m.joint[j]->getNumDofs() == 0) continue;
    m.joint[j]->setPositions(vec(s.joints[j].q));
    m.joint[j]->setVelocities(vec(s.joints[j].qd));
  }
  // loop closures hold the start's relative pose / point (constructors read the current poses)
  for (const ds::LoopJoint& loop : s.loops) {
    dd::BodyNode* b = m.body_node[loop.body_b];
    dd::BodyNode* a = loop.body_a >= 0 ? m.body_node[loop.body_a] : nullptr;
    const Eigen::Vector3d p(loop.point[0], loop.point[1], loop.point[2]);
    dart::constraint::ConstraintBasePtr c;
    if (loop.weld)
      c = a ? std::make_shared<dart::constraint::WeldJointConstraint>(a, b)
            : std::make_shared<dart::constraint::WeldJointConstraint>(b);
    else if (a)
      c = std::make_shared<dart::constraint::BallJointConstraint>(a, b, a->getWorldTransform() * p);
    else
      c = std::make_shared<dart::constraint::BallJointConstraint>(b, p);
    solver->addConstraint(c);
  }
  m.force.assign(s.joints.size(), {});
  m.has_force.assign(s.joints.size(), false);
  for (std::size_t j = 0; j < s.joints.size(); ++j) m.force[j].assign(m.joint[j]->getNumDofs(), 0.0);
}

void DartWorld::add_loop_torque(int loop, double torque) {
  Impl& m = *impl_;
  const ds::LoopJoint& l = m.scene.loops.at(loop);
  dd::BodyNode* a = l.body_a >= 0 ? m.body_node[l.body_a] : nullptr;
  Eigen::Vector3d axis(l.axis[0], l.axis[1], l.axis[2]);
  if (a) axis = a->getWorldTransform().linear() * axis;
  // equal and opposite: the generalized force of the hinge angle (ω_b − ω_a)·axis
  m.body_node[l.body_b]->addExtTorque(torque * axis);
  if (a) a->addExtTorque(-torque * axis);
}

void DartWorld::add_force(int joint, int dof, double force) {
  Impl& m = *impl_;
  if (joint < 0 || joint >= static_cast<int>(m.joint.size()) || dof < 0 ||
      dof >= static_cast<int>(m.force[joint].size()))
    throw std::invalid_argument("dart: no dof " + std::to_string(dof) + " on joint " + std::to_string(joint));
  m.force[joint][dof] += force;
  m.has_force[joint] = true;
}

void DartWorld::step() {
  Impl& m = *impl_;
  for (std::size_t j = 0; j < m.joint.size(); ++j) {
    if (!m.has_force[j]) continue;
    std::vector<double> f = m.force[j];
    if (m.scene.joints[j].kind == ds::JointKind::Free) {
      // maxsim's translational rows push along the parent joint frame; DART's dofs 3..5 along
      // the child joint frame
      const Eigen::Isometry3d T = dd::FreeJoint::convertToTransform(m.joint[j]->getPositions());
      const Eigen::Vector3d fc = T.linear().transpose() * Eigen::Vector3d(f[3], f[4], f[5]);
      for (int k = 0; k < 3; ++k) f[3 + k] = fc(k);
    }
    for (std::size_t k = 0; k < f.size(); ++k) m.joint[j]->setForce(k, f[k]);
    std::fill(m.force[j].begin(), m.force[j].end(), 0.0);
    m.has_force[j] = false;
  }
  m.world->step(true);  // true: the joint forces are cleared after the step
}

void DartWorld::body_state(int body, double x[3], double q[4], double v[3], double w[3]) const {
  const dd::BodyNode* node = impl_->body_node.at(body);
  const Eigen::Isometry3d& T = node->getWorldTransform();
  const Eigen::Quaterniond e(T.linear());
  const Eigen::Vector3d lin = node->getLinearVelocity();            // of the origin (the CoM), world
  const Eigen::Vector3d ang = node->getSpatialVelocity().head<3>(); // body frame
  for (int k = 0; k < 3; ++k) {
    x[k] = T.translation()(k);
    v[k] = lin(k);
    w[k] = ang(k);
  }
  const double sign = e.w() < 0 ? -1 : 1;
  q[0] = sign * e.w();
  q[1] = sign * e.x();
  q[2] = sign * e.y();
  q[3] = sign * e.z();
}

int DartWorld::num_contacts() const {
  return static_cast<int>(impl_->world->getLastCollisionResult().getNumContacts());
}

}  // namespace maxsim::bench
