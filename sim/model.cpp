#include "sim/model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/constraints/tendon.hpp"
#include "sim/names.hpp"
#include "sim/sensor/sensors.hpp"

namespace maxsim {

const char* geom_type_name(GeomType t) {
  switch (t) {
    case GeomType::Plane: return "plane";
    case GeomType::Sphere: return "sphere";
    case GeomType::Box: return "box";
    case GeomType::Capsule: return "capsule";
    case GeomType::Cylinder: return "cylinder";
    case GeomType::Ellipsoid: return "ellipsoid";
    case GeomType::Mesh: return "mesh";
    case GeomType::HField: return "hfield";
  }
  return "?";
}

Geom make_geom(GeomType type, const Vec3& size, const Vec3& pos, const Vec4& quat) {
  Geom g;
  g.type = type;
  g.size = size;
  g.pos = pos;
  g.quat = quat;
  return g;
}

namespace {
struct JointTypeInfo {
  JointType type;
  const char* name;
  TransKind trans;
  RotKind rot;
};
constexpr JointTypeInfo kJointTypes[] = {
    {JointType::Fixed, "fixed", TransKind::Fixed, RotKind::Fixed},
    {JointType::Prismatic, "prismatic", TransKind::Prismatic, RotKind::Fixed},
    {JointType::Planar, "planar", TransKind::Planar, RotKind::Fixed},
    {JointType::FixedOrientation, "fixed_orientation", TransKind::Free, RotKind::Fixed},
    {JointType::Revolute, "revolute", TransKind::Fixed, RotKind::Revolute},
    {JointType::Cylindrical, "cylindrical", TransKind::Prismatic, RotKind::Revolute},
    {JointType::PlanarAxis, "planar_axis", TransKind::Planar, RotKind::Revolute},
    {JointType::FreeRevolute, "free_revolute", TransKind::Free, RotKind::Revolute},
    {JointType::Orbital, "orbital", TransKind::Fixed, RotKind::Orbital},
    {JointType::PrismaticOrbital, "prismatic_orbital", TransKind::Prismatic, RotKind::Orbital},
    {JointType::PlanarOrbital, "planar_orbital", TransKind::Planar, RotKind::Orbital},
    {JointType::FreeOrbital, "free_orbital", TransKind::Free, RotKind::Orbital},
    {JointType::Spherical, "spherical", TransKind::Fixed, RotKind::Free},
    {JointType::CylindricalFree, "cylindrical_free", TransKind::Prismatic, RotKind::Free},
    {JointType::PlanarFree, "planar_free", TransKind::Planar, RotKind::Free},
    {JointType::Floating, "floating", TransKind::Free, RotKind::Free},
};
const JointTypeInfo& info(JointType t) { return kJointTypes[static_cast<int>(t)]; }

// Constrained joint-frame axes of each part (bit k = axis k).
constexpr int trans_mask(TransKind k) {
  switch (k) {
    case TransKind::Fixed: return 0b111;
    case TransKind::Prismatic: return 0b011;
    case TransKind::Planar: return 0b100;
    case TransKind::Free: return 0;
  }
  return 0;
}
constexpr int rot_mask(RotKind k) {
  switch (k) {
    case RotKind::Fixed: return 0b111;
    case RotKind::Revolute: return 0b011;
    case RotKind::Orbital: return 0b100;
    case RotKind::Free: return 0;
  }
  return 0;
}
}  // namespace

TransKind trans_kind(JointType t) { return info(t).trans; }
RotKind rot_kind(JointType t) { return info(t).rot; }
const char* joint_type_name(JointType t) { return info(t).name; }

bool joint_type_from_name(const std::string& name, JointType* out) {
  for (const auto& i : kJointTypes) {
    if (name == i.name) {
      *out = i.type;
      return true;
    }
  }
  return false;
}

// kJointConstrainedRows (model.hpp) is the type table's masks
constexpr bool constrained_rows_match() {
  for (const JointTypeInfo& i : kJointTypes)
    if (kJointConstrainedRows[static_cast<int>(i.type)] != (trans_mask(i.trans) | (rot_mask(i.rot) << 3))) return false;
  return true;
}
static_assert(constrained_rows_match(), "kJointConstrainedRows disagrees with the joint type table");

int Joint::dof() const {
  return 6 - std::popcount(static_cast<unsigned>(kJointConstrainedRows[static_cast<int>(type)]) & 0x3fu);
}

int Joint::nq() const {
  const RotKind r = rot_kind(type);
  return dof() + (r == RotKind::Free && !davenport() ? 1 : 0);
}

std::array<int, 6> Joint::free_rows() const {
  std::array<int, 6> rows{-1, -1, -1, -1, -1, -1};
  int n = 0;
  for (int r = 0; r < 6; ++r)
    if (!row_constrained(r)) rows[n++] = r;
  return rows;
}

int Model::add_body(const Body& body) {
  bodies.push_back(body);
  return static_cast<int>(bodies.size()) - 1;
}

int Model::add_joint(const Joint& joint) {
  joints.push_back(joint);
  return static_cast<int>(joints.size()) - 1;
}

int Model::add_nonholonomic(const NonholonomicConstraint& constraint) {
  NonholonomicConstraint c = constraint;
  if (c.axis.norm() > 0) c.axis.normalize();
  if (c.direction.norm() > 0) c.direction.normalize();
  nonholonomic.push_back(c);
  return static_cast<int>(nonholonomic.size()) - 1;
}

const char* integrator_name(Integrator i) {
  switch (i) {
    case Integrator::EnergyMomentum: return "energy-momentum";
    case Integrator::Newmark: return "newmark";
    default: return "variational";
  }
}

bool integrator_from_name(const std::string& name, Integrator* out) {
  if (name == "variational") *out = Integrator::Variational;
  else if (name == "energy-momentum") *out = Integrator::EnergyMomentum;
  else if (name == "newmark") *out = Integrator::Newmark;
  else return false;
  return true;
}

namespace {
constexpr const char* kNonholonomicNames[] = {"rolling_disk", "rolling_ball", "knife_edge", "angular_velocity"};
}

const char* nonholonomic_kind_name(NonholonomicKind k) { return kNonholonomicNames[static_cast<int>(k)]; }

bool nonholonomic_kind_from_name(const std::string& name, NonholonomicKind* out) {
  for (int k = 0; k < 4; ++k)
    if (name == kNonholonomicNames[k]) {
      *out = static_cast<NonholonomicKind>(k);
      return true;
    }
  return false;
}

ParameterUse nonholonomic_parameter(NonholonomicKind kind, const std::string& key) {
  using K = NonholonomicKind;
  const bool rolling = kind == K::RollingDisk || kind == K::RollingBall;
  if (key == "radius") return rolling ? ParameterUse::Required : ParameterUse::None;
  if (key == "axis") return kind == K::RollingDisk || kind == K::AngularVelocity ? ParameterUse::Required : ParameterUse::None;
  if (key == "point") return kind == K::KnifeEdge ? ParameterUse::Optional : ParameterUse::None;  // default: the CoM
  if (key == "direction") return kind == K::KnifeEdge ? ParameterUse::Required : ParameterUse::None;
  return ParameterUse::None;
}

std::string nonholonomic_kind_list() {
  std::string out;
  for (const char* name : kNonholonomicNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

int NonholonomicConstraint::rows() const {
  switch (kind) {
    case NonholonomicKind::RollingDisk: return 4;  // height, upright, two rolling rows
    case NonholonomicKind::RollingBall: return 3;  // height, two rolling rows
    case NonholonomicKind::KnifeEdge: return 1;
    case NonholonomicKind::AngularVelocity: return 1;
  }
  return 0;
}

namespace {
template <class T>
std::optional<int> find_by_name(const std::vector<T>& items, const std::string& name) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}
template <class T>
int index_by_name(const Model& model, const std::vector<T>& items, const std::string& name, const char* what) {
  if (const std::optional<int> i = find_by_name(items, name)) return *i;
  std::vector<std::string> names;
  for (const T& item : items) names.push_back(item.name);
  std::string message = std::string("no ") + what + " named '" + name + "'";
  if (!model.name.empty()) message += " in model '" + model.name + "'";
  throw UnknownName(message + (items.empty() ? std::string(" (it has none)") : did_you_mean(name, names)));
}
}  // namespace

int Model::body_index(const std::string& n) const { return index_by_name(*this, bodies, n, "body"); }
int Model::joint_index(const std::string& n) const {
  if (const std::optional<std::pair<int, int>> r = find_joint_row(n); r && !find_by_name(joints, n)) return r->first;
  return index_by_name(*this, joints, n, "joint");
}
int Model::actuator_index(const std::string& n) const { return index_by_name(*this, actuators, n, "actuator"); }
int Model::keyframe_index(const std::string& n) const { return index_by_name(*this, keyframes, n, "keyframe"); }
int Model::site_index(const std::string& n) const { return index_by_name(*this, sites, n, "site"); }
int Model::tendon_index(const std::string& n) const { return index_by_name(*this, tendons, n, "tendon"); }
std::optional<int> Model::find_body(const std::string& n) const { return find_by_name(bodies, n); }
std::optional<int> Model::find_joint(const std::string& n) const {
  if (const std::optional<int> j = find_by_name(joints, n)) return j;
  if (const std::optional<std::pair<int, int>> r = find_joint_row(n)) return r->first;
  return std::nullopt;
}
std::optional<std::pair<int, int>> Model::find_joint_row(const std::string& n) const {
  if (n.empty()) return std::nullopt;
  for (size_t j = 0; j < joints.size(); ++j)
    for (int r = 0; r < 6; ++r)
      if (joints[j].row_names[r] == n) return std::make_pair(static_cast<int>(j), r);
  return std::nullopt;
}
std::optional<int> Model::find_actuator(const std::string& n) const { return find_by_name(actuators, n); }
std::optional<int> Model::find_keyframe(const std::string& n) const { return find_by_name(keyframes, n); }
std::optional<int> Model::find_site(const std::string& n) const { return find_by_name(sites, n); }
int Model::sensor_index(const std::string& n) const { return index_by_name(*this, sensors, n, "sensor"); }
std::optional<int> Model::find_sensor(const std::string& n) const { return find_by_name(sensors, n); }

int Model::add_sensor(const Sensor& sensor) {
  const std::string problem = validate_sensor(*this, sensor);
  if (!problem.empty()) throw std::invalid_argument(problem);
  Sensor s = sensor;
  s.dim = sensor_dimension(s.type);
  s.adr = nsensordata();
  sensors.push_back(s);
  return static_cast<int>(sensors.size()) - 1;
}

int Model::nsensordata() const { return sensors.empty() ? 0 : sensors.back().adr + sensors.back().dim; }
std::optional<int> Model::find_tendon(const std::string& n) const { return find_by_name(tendons, n); }
int Model::hfield_index(const std::string& n) const { return index_by_name(*this, hfields, n, "height field"); }
std::optional<int> Model::find_hfield(const std::string& n) const { return find_by_name(hfields, n); }

std::optional<std::pair<int, int>> Model::find_geom(const std::string& name) const {
  for (size_t b = 0; b < bodies.size(); ++b)
    for (size_t g = 0; g < bodies[b].geoms.size(); ++g)
      if (bodies[b].geoms[g].name == name) return std::pair<int, int>(static_cast<int>(b), static_cast<int>(g));
  for (size_t g = 0; g < world_geoms.size(); ++g)
    if (world_geoms[g].name == name) return std::pair<int, int>(kWorld, static_cast<int>(g));
  return std::nullopt;
}

void Model::set_hfield_data(int index, const std::vector<double>& data) {
  if (index < 0 || index >= static_cast<int>(hfields.size()))
    throw std::invalid_argument("set_hfield_data: no height field " + std::to_string(index) + " (the model has " +
                                std::to_string(hfields.size()) + ")");
  HeightField& h = hfields[index];
  const size_t n = static_cast<size_t>(h.nrow) * static_cast<size_t>(h.ncol);
  if (data.size() != n)
    throw std::invalid_argument("set_hfield_data: height field '" + h.name + "' takes nrow * ncol = " +
                                std::to_string(n) + " values, got " + std::to_string(data.size()));
  for (size_t i = 0; i < n; ++i)
    if (!(data[i] >= 0 && data[i] <= 1))
      throw std::invalid_argument("set_hfield_data: height field '" + h.name + "': value " + std::to_string(i) +
                                  " is " + std::to_string(data[i]) + ", outside [0, 1] (elevations are normalized)");
  h.data = data;
  ++h.revision;
}

int Model::dof() const {
  int n = 0;
  for (const auto& j : joints) n += j.dof();
  return n;
}

double Model::total_mass() const {
  double m = 0;
  for (const auto& b : bodies) m += b.mass;
  return m;
}

Joint make_joint(const Model& model, JointType type, int parent, int child, const Vec3& anchor,
                 const Vec3& axis, const std::string& name) {
  Joint j;
  j.name = name;
  j.type = type;
  j.parent = parent;
  j.child = child;
  const Vec4 q_axis = quat_z_to(axis);
  Vec3 xa = Vec3::Zero();
  Vec4 qa = quat_identity();
  if (parent != kWorld) {
    xa = model.bodies.at(parent).x0;
    qa = model.bodies.at(parent).q0;
  }
  const Body& b = model.bodies.at(child);
  j.parent_anchor = quat_to_rot(qa).transpose() * (anchor - xa);
  j.child_anchor = quat_to_rot(b.q0).transpose() * (anchor - b.x0);
  j.parent_frame = quat_mul(quat_conj(qa), q_axis);
  j.child_frame = quat_mul(quat_conj(b.q0), q_axis);
  return j;
}

namespace {
bool finite3(const Vec3& v) { return v.allFinite(); }
}  // namespace

std::string validate_model(const Model& model) {
  std::ostringstream err;
  const int nb = static_cast<int>(model.bodies.size());
  if (!(model.opt.timestep > 0) || !std::isfinite(model.opt.timestep)) return "time step must be positive and finite";
  if (!finite3(model.opt.gravity)) return "gravity must be finite";
  if (!numerical_damping_valid(model.opt.numerical_damping))
    return "numerical damping must be in [0, 0.5]";
  if (!limit_recovery_time_valid(model.opt.limit_recovery_time)) return "limit recovery time must be >= 0";
  for (const auto& b : model.bodies) {
    if (!(b.mass > 0) || !std::isfinite(b.mass)) {
      err << "body '" << b.name << "': mass must be positive and finite (got " << b.mass << ")";
      return err.str();
    }
    if (!b.inertia.allFinite() || (b.inertia - b.inertia.transpose()).norm() > 1e-9 * (1 + b.inertia.norm())) {
      err << "body '" << b.name << "': inertia must be a finite symmetric matrix";
      return err.str();
    }
    Eigen::SelfAdjointEigenSolver<Mat3> es(b.inertia);
    const Vec3 e = es.eigenvalues();
    if (!(e.minCoeff() > 0)) {
      err << "body '" << b.name << "': inertia is not positive definite (principal moments "
          << e.transpose() << ")";
      return err.str();
    }
    // (a positive definite tensor off the triangle inequality is no rigid body's but simulates:
    // the loaders warn about it)
    if (!finite3(b.x0) || !b.q0.allFinite() || std::abs(b.q0.norm() - 1) > 1e-6) {
      err << "body '" << b.name << "': initial pose must be finite with a unit quaternion";
      return err.str();
    }
  }
  for (const auto& j : model.joints) {
    if (j.child < 0 || j.child >= nb || j.parent < kWorld || j.parent >= nb) {
      err << "joint '" << j.name << "': body index out of range";
      return err.str();
    }
    if (j.child == j.parent) {
      err << "joint '" << j.name << "': connects body '" << model.bodies[j.child].name
          << "' to itself";
      return err.str();
    }
    if (!finite3(j.parent_anchor) || !finite3(j.child_anchor) ||
        std::abs(j.parent_frame.norm() - 1) > 1e-6 || std::abs(j.child_frame.norm() - 1) > 1e-6) {
      err << "joint '" << j.name << "': anchors must be finite and frames unit quaternions";
      return err.str();
    }
    if (j.davenport()) {
      const RotKind rk = rot_kind(j.type);
      const auto& s = j.hinge_sequence;
      const bool two = rk == RotKind::Orbital && s[2] < 0 && ((s[0] == 0 && s[1] == 1) || (s[0] == 1 && s[1] == 0));
      const bool three = rk == RotKind::Free && s[0] <= 2 && s[1] >= 0 && s[1] <= 2 && s[2] >= 0 && s[2] <= 2 &&
                         s[0] != s[1] && s[1] != s[2] && s[0] != s[2];
      if (!two && !three) {
        err << "joint '" << j.name << "': hinge_sequence must be two of the axes x, y (an orbital "
            << "rotation) or a permutation of x, y, z (a free rotation)";
        return err.str();
      }
    }
    if (j.hinge_cosine != 0 && (!(std::abs(j.hinge_cosine) < 1 - 1e-6) || !j.davenport() || j.hinge_sequence[2] >= 0)) {
      err << "joint '" << j.name << "': hinge_cosine must be in (-1, 1) (hinges not parallel) on a Davenport joint "
          << "of two hinges";
      return err.str();
    }
    if (j.cone_limit != 0 && (!(j.cone_limit > 0 && j.cone_limit <= M_PI) || rot_kind(j.type) != RotKind::Free ||
                              j.davenport() || !j.has_limits)) {
      err << "joint '" << j.name << "': cone_limit must be an angle in (0, pi] on a joint whose three "
          << "rotations are free (a ball, not Davenport angles), with has_limits";
      return err.str();
    }
    if (!finite3(j.hinge_offset[0]) || !finite3(j.hinge_offset[1]) ||
        (j.hinge_offsets() && (!j.davenport() || (j.hinge_sequence[2] < 0 && !j.hinge_offset[1].isZero(0))))) {
      err << "joint '" << j.name << "': hinge_offset must be finite and needs a Davenport joint, one "
          << "offset per hinge after the first";
      return err.str();
    }
    if (j.coordinate_order[0] >= 0) {
      unsigned seen = 0;  // the first dof() entries are the free rows once each, the rest -1
      bool ok = j.nq() == j.dof();
      for (int i = 0; i < 6; ++i) {
        const int r = j.coordinate_order[i];
        if (i >= j.dof()) ok = ok && r == -1;
        else ok = ok && r >= 0 && r < 6 && !j.row_constrained(r) && !((seen >> r) & 1u);
        if (ok && i < j.dof()) seen |= 1u << r;
      }
      if (!ok) {
        err << "joint '" << j.name << "': coordinate_order must list its free rows once each (and a "
            << "quaternion rotation keeps the default order)";
        return err.str();
      }
    }
    for (int r = 0; r < 6; ++r) {
      if (!(j.stiffness[r] >= 0) || !(j.damping[r] >= 0) || !std::isfinite(j.stiffness[r]) ||
          !std::isfinite(j.damping[r]) || !std::isfinite(j.spring_ref[r])) {
        err << "joint '" << j.name << "': stiffness and damping must be finite and >= 0";
        return err.str();
      }
    }
  }
  for (const auto& h : model.hfields) {
    const size_t n = static_cast<size_t>(std::max(h.nrow, 0)) * static_cast<size_t>(std::max(h.ncol, 0));
    if (h.nrow < 2 || h.ncol < 2 || h.data.size() != n) {
      err << "height field '" << h.name << "': needs nrow, ncol >= 2 and nrow * ncol values (has " << h.nrow
          << " x " << h.ncol << ", " << h.data.size() << " values)";
      return err.str();
    }
    if (!(h.size.minCoeff() > 0) || !h.size.allFinite()) {
      err << "height field '" << h.name << "': the 4 size values must be positive and finite";
      return err.str();
    }
    for (double v : h.data)
      if (!(v >= 0 && v <= 1)) {
        err << "height field '" << h.name << "': elevations must be normalized to [0, 1] (found " << v << ")";
        return err.str();
      }
  }
  auto check_hfield_geoms = [&](const std::vector<Geom>& geoms, bool world) {
    for (const Geom& g : geoms) {
      if (g.type != GeomType::HField) continue;
      if (g.hfield < 0 || g.hfield >= static_cast<int>(model.hfields.size())) {
        err << "hfield geom '" << g.name << "': height field index " << g.hfield << " out of range";
        return false;
      }
      if (!world) {
        err << "hfield geom '" << g.name << "': height fields are static world geometry (Model::world_geoms)";
        return false;
      }
    }
    return true;
  };
  if (!check_hfield_geoms(model.world_geoms, true)) return err.str();
  for (const auto& b : model.bodies)
    if (!check_hfield_geoms(b.geoms, false)) return err.str();
  for (const auto& p : model.contact_pairs) {
    const Geom* g[2] = {nullptr, nullptr};
    const int body[2] = {p.body1, p.body2}, index[2] = {p.geom1, p.geom2};
    for (int k = 0; k < 2; ++k) {
      const std::vector<Geom>* geoms = body[k] == kWorld ? &model.world_geoms
                                       : body[k] >= 0 && body[k] < nb ? &model.bodies[body[k]].geoms : nullptr;
      if (geoms && index[k] >= 0 && index[k] < static_cast<int>(geoms->size())) g[k] = &(*geoms)[index[k]];
    }
    if (!g[0] || !g[1]) {
      err << "contact pair '" << p.name << "': geom index out of range";
      return err.str();
    }
    if (!g[0]->collision || !g[1]->collision) {
      err << "contact pair '" << p.name << "': geom '" << (g[0]->collision ? g[1] : g[0])->name
          << "' is not collision geometry (Geom::collision)";
      return err.str();
    }
    if (!std::isfinite(p.friction) || !std::isfinite(p.margin)) {
      err << "contact pair '" << p.name << "': friction and margin must be finite";
      return err.str();
    }
    if (p.condim != 1 && p.condim != 3 && p.condim != 4 && p.condim != 6) {
      err << "contact pair '" << p.name << "': condim must be 1, 3, 4 or 6 (got " << p.condim << ")";
      return err.str();
    }
  }
  for (const auto& c : model.nonholonomic) {
    const char* kind = nonholonomic_kind_name(c.kind);
    if (c.body < 0 || c.body >= nb) {
      err << kind << " constraint '" << c.name << "': body index out of range";
      return err.str();
    }
    if (nonholonomic_takes(c.kind, "radius") && !(c.radius > 0 && std::isfinite(c.radius))) {
      err << kind << " constraint '" << c.name << "': radius must be positive and finite (got " << c.radius << ")";
      return err.str();
    }
    if (nonholonomic_takes(c.kind, "axis") && !(finite3(c.axis) && c.axis.norm() > 1e-12)) {
      err << kind << " constraint '" << c.name << "': axis must be a finite non-zero vector";
      return err.str();
    }
    if (nonholonomic_takes(c.kind, "direction") && !(finite3(c.point) && finite3(c.direction) && c.direction.norm() > 1e-12)) {
      err << kind << " constraint '" << c.name << "': point must be finite and direction a finite non-zero vector";
      return err.str();
    }
  }
  return validate_tendons(model);
}

Mat3 inertia_box(double m, const Vec3& h) {
  const Vec3 s = 2 * h;
  return (m / 12.0) * Vec3(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(),
                           s.x() * s.x() + s.y() * s.y()).asDiagonal();
}

Mat3 inertia_sphere(double m, double r) { return (0.4 * m * r * r) * Mat3::Identity(); }

Mat3 inertia_cylinder(double m, double r, double hl) {
  const double l = 2 * hl;
  const double t = m * (3 * r * r + l * l) / 12.0;
  return Vec3(t, t, 0.5 * m * r * r).asDiagonal();
}

Mat3 inertia_rod(double m, double l) {
  const double t = m * l * l / 12.0;
  // a thin rod has no moment about its axis; a tiny one keeps the inertia positive definite
  return Vec3(t, t, 1e-6 * t).asDiagonal();
}

}  // namespace maxsim
