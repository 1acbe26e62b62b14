// Model, its bodies, joints, actuators and keyframes, names and ids; loading URDF/MJCF files.
//
// A Model is held by shared_ptr: every Data made from it holds it too, so it lives as long as
// any of its Data (step() takes both by reference and must never see a dead Model). Its parts
// are exposed as copies (lists of read-only records), and only dt, gravity, actuation and the
// integrator are writable: a Data sizes its arrays from the Model once, so Python must not add
// bodies or joints under it. Nonholonomic constraints can be added (add_nonholonomic); a Data
// made before then refuses to be used (checked(), bindings.hpp).
#include <pybind11/eigen.h>

#include "bindings.hpp"
#include "models/load.hpp"
#include "models/load_error.hpp"
#include "sim/actuation.hpp"
#include "sim/sensor/sensors.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"

namespace maxsim::python {

namespace {

template <class T, class F>
std::vector<std::string> names_of(const std::vector<T>& items, F name) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const T& i : items) out.push_back(name(i));
  return out;
}

py::array_t<double> row_array(const std::array<double, 6>& a) {
  py::array_t<double> out(6);
  for (int i = 0; i < 6; ++i) out.mutable_at(i) = a[i];
  return out;
}

// load_model with the loader's report; the model is validated as the `maxsim` command does, and
// an invalid one is a LoadError naming the file.
std::pair<std::shared_ptr<Model>, LoadReport> load(const std::string& path, const LoadOptions& options) {
  LoadReport report;
  auto model = std::make_shared<Model>(load_model(path, options, &report));
  if (const std::string bad = validate_model(*model); !bad.empty()) throw LoadError(path, bad);
  return {model, std::move(report)};
}

// A kind from a NonholonomicKind or its name ("rolling_disk", ...).
NonholonomicKind kind_from(const py::handle& kind) {
  if (py::isinstance<NonholonomicKind>(kind)) return kind.cast<NonholonomicKind>();
  NonholonomicKind k;
  if (py::isinstance<py::str>(kind) && nonholonomic_kind_from_name(kind.cast<std::string>(), &k)) return k;
  throw std::invalid_argument("kind: expected a NonholonomicKind or one of " + nonholonomic_kind_list() + " (got " +
                              std::string(py::str(kind)) + ")");
}

// A body index from an index or a name (KeyError when the model has no such body).
int body_from(const Model& md, const py::handle& body) {
  if (py::isinstance<py::str>(body)) {
    const std::string name = body.cast<std::string>();
    return md.body_index(name);  // KeyError naming the close matches
  }
  const long long b = body.cast<long long>();
  if (b < 0 || b >= static_cast<long long>(md.bodies.size()))
    throw std::invalid_argument("body index " + std::to_string(b) + " out of range (the model has " +
                                std::to_string(md.bodies.size()) + " bodies)");
  return static_cast<int>(b);
}

// Model.add_sensor: a sensor of an MJCF type name, its object by keyword (index or name); the
// model validates it (ValueError naming the problem, the model unchanged).
int add_sensor(Model& md, const std::string& type, const py::kwargs& kw) {
  Sensor s;
  if (!sensor_type_from_name(type, &s.type)) throw std::invalid_argument("unknown sensor type '" + type + "'");
  auto index = [](const py::handle& h, auto by_name) {
    return py::isinstance<py::str>(h) ? by_name(h.cast<std::string>()) : h.cast<int>();
  };
  const bool frame = s.type >= SensorType::FramePos && s.type <= SensorType::FrameAngAcc;
  const bool subtree = s.type >= SensorType::SubtreeCom && s.type <= SensorType::SubtreeAngMom;
  for (const auto& [key_h, value] : kw) {
    const std::string key = key_h.cast<std::string>();
    if (key == "name") s.name = value.cast<std::string>();
    else if (key == "noise") s.noise = value.cast<double>();
    else if (key == "cutoff") s.cutoff = value.cast<double>();
    else if (key == "site") {
      const int i = index(value, [&](const std::string& n) { return md.site_index(n); });
      if (frame) s.frame = site_frame(md, i);
      else s.object = i;
    } else if (key == "body") {
      const int b = index(value, [&](const std::string& n) { return md.body_index(n); });
      if (frame) s.frame = SensorFrame{b, Vec3::Zero(), quat_identity()};  // its CoM frame
      else s.object = b;
    } else if (key == "ref_site") {
      s.relative = true;
      s.ref = site_frame(md, index(value, [&](const std::string& n) { return md.site_index(n); }));
    } else if (key == "joint") {
      if (py::isinstance<py::str>(value)) {
        const std::string n = value.cast<std::string>();
        if (const auto r = md.find_joint_row(n)) {
          s.object = r->first;
          s.row = r->second;
        } else {
          s.object = md.joint_index(n);
        }
      } else {
        s.object = value.cast<int>();
      }
    } else if (key == "tendon") s.object = index(value, [&](const std::string& n) { return md.tendon_index(n); });
    else if (key == "actuator") s.object = index(value, [&](const std::string& n) { return md.actuator_index(n); });
    else throw std::invalid_argument("add_sensor: unknown keyword '" + key +
                                     "' (name, site, body, ref_site, joint, tendon, actuator, noise, cutoff)");
  }
  if (subtree && !kw.contains("body")) s.object = kWorld;
  return md.add_sensor(s);
}

// Model.add_nonholonomic: a NonholonomicConstraint, changed by any keyword given; the model is
// validated with it (ValueError naming the problem, and the model stays as it was).
int add_nonholonomic(Model& md, const py::object& constraint, const py::kwargs& kw) {
  NonholonomicConstraint c;
  if (!constraint.is_none()) c = constraint.cast<NonholonomicConstraint>();
  for (const auto& [key_handle, value] : kw) {
    const std::string key = key_handle.cast<std::string>();
    if (key == "name") c.name = value.cast<std::string>();
    else if (key == "kind") c.kind = kind_from(value);
    else if (key == "body") c.body = body_from(md, value);
    else if (key == "radius") c.radius = value.cast<double>();
    else if (key == "axis") c.axis = vec3_from(value, "axis");
    else if (key == "point") c.point = vec3_from(value, "point");
    else if (key == "direction") c.direction = vec3_from(value, "direction");
    else throw py::type_error("add_nonholonomic: unexpected keyword '" + key + "' (name, kind, body, radius, axis, point, direction)");
  }
  body_from(md, py::int_(c.body));  // (a constraint passed in may bring any index)
  const int index = md.add_nonholonomic(c);
  if (const std::string bad = validate_model(md); !bad.empty()) {
    md.nonholonomic.pop_back();
    throw std::invalid_argument("add_nonholonomic: " + bad);
  }
  return index;
}

}  // namespace

Vec3 vec3_from(const py::handle& src, const char* what) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(src);
  if (!a || a.size() != 3) throw std::invalid_argument(std::string(what) + ": expected three numbers");
  return Vec3(a.data()[0], a.data()[1], a.data()[2]);
}

void bind_model(py::module_& m) {
  py::class_<LoadLimits>(m, "LoadLimits", "Bounds on what a description may ask of the loader (models/load.hpp).")
      .def(py::init<>())
      .def_readwrite("file_bytes", &LoadLimits::file_bytes)
      .def_readwrite("elements", &LoadLimits::elements)
      .def_readwrite("bodies", &LoadLimits::bodies)
      .def_readwrite("geoms", &LoadLimits::geoms)
      .def_readwrite("mesh_vertices", &LoadLimits::mesh_vertices)
      .def_readwrite("mass_min", &LoadLimits::mass_min)
      .def_readwrite("mass_max", &LoadLimits::mass_max)
      .def_readwrite("inertia_min", &LoadLimits::inertia_min)
      .def_readwrite("inertia_max", &LoadLimits::inertia_max);

  py::class_<LoadOptions>(m, "LoadOptions", "The loader's options (models/load.hpp).")
      .def(py::init<>())
      .def_readwrite("merge_fixed_joints", &LoadOptions::merge_fixed_joints)
      .def_readwrite("fixed_base", &LoadOptions::fixed_base)
      .def_readwrite("package_paths", &LoadOptions::package_paths)
      .def_readwrite("limits", &LoadOptions::limits)
      .def_readwrite("lenient", &LoadOptions::lenient)
      .def_readwrite("armature_inertia_floor", &LoadOptions::armature_inertia_floor);

  py::class_<ValueSource>(m, "ValueSource", "Where a value of the model came from (models/load.hpp).")
      .def_readonly("name", &ValueSource::name)
      .def_readonly("value", &ValueSource::value)
      .def_readonly("source", &ValueSource::source)
      .def("__repr__", [](const ValueSource& v) { return "ValueSource(" + v.name + "=" + v.value + " from " + v.source + ")"; });

  py::class_<LoadReport>(m, "LoadReport", "What the loader tells besides the model.")
      .def_readonly("warnings", &LoadReport::warnings)
      .def_readonly("merged", &LoadReport::merged)
      .def_readonly("virtual_bodies", &LoadReport::virtual_bodies)
      .def_readonly("ignored", &LoadReport::ignored)
      .def_readonly("sources", &LoadReport::sources);

  py::class_<Geom>(m, "Geom")
      .def_readonly("name", &Geom::name)
      .def_property_readonly("type", [](const Geom& g) { return std::string(geom_type_name(g.type)); })
      .def_property_readonly("pos", [](const Geom& g) { return vector_copy(g.pos); })
      .def_property_readonly("quat", [](const Geom& g) { return vector_copy(g.quat); })
      .def_property_readonly("size", [](const Geom& g) { return vector_copy(g.size); })
      .def_property_readonly("rgba", [](const Geom& g) { return vector_copy(g.rgba); })
      .def_readonly("mesh_file", &Geom::mesh_file)
      .def_readonly("collision", &Geom::collision)
      .def_readonly("friction", &Geom::friction)
      .def("__repr__", [](const Geom& g) { return "<maxsim.Geom '" + g.name + "' " + geom_type_name(g.type) + ">"; });

  py::class_<Body>(m, "Body")
      .def_readonly("name", &Body::name)
      .def_readonly("mass", &Body::mass)
      .def_readonly("inertia", &Body::inertia)
      .def_property_readonly("x0", [](const Body& b) { return vector_copy(b.x0); })
      .def_property_readonly("q0", [](const Body& b) { return vector_copy(b.q0); })
      .def_property_readonly("link_origin", [](const Body& b) { return vector_copy(b.link_origin); })
      .def_readonly("geoms", &Body::geoms)
      .def("__repr__", [](const Body& b) { return "<maxsim.Body '" + b.name + "' " + std::to_string(b.mass) + " kg>"; });

  py::enum_<JointType>(m, "JointType", "The 16 joint prototypes (translational x rotational part, sim/model.hpp).")
      .value("Fixed", JointType::Fixed)
      .value("Prismatic", JointType::Prismatic)
      .value("Planar", JointType::Planar)
      .value("FixedOrientation", JointType::FixedOrientation)
      .value("Revolute", JointType::Revolute)
      .value("Cylindrical", JointType::Cylindrical)
      .value("PlanarAxis", JointType::PlanarAxis)
      .value("FreeRevolute", JointType::FreeRevolute)
      .value("Orbital", JointType::Orbital)
      .value("PrismaticOrbital", JointType::PrismaticOrbital)
      .value("PlanarOrbital", JointType::PlanarOrbital)
      .value("FreeOrbital", JointType::FreeOrbital)
      .value("Spherical", JointType::Spherical)
      .value("CylindricalFree", JointType::CylindricalFree)
      .value("PlanarFree", JointType::PlanarFree)
      .value("Floating", JointType::Floating);

  py::class_<Joint>(m, "Joint")
      .def_readonly("name", &Joint::name)
      .def_readonly("type", &Joint::type)
      .def_property_readonly("type_name", [](const Joint& j) { return std::string(joint_type_name(j.type)); },
                             "the type's name as the descriptions' dialect writes it (\"revolute\", \"floating\", ...)")
      .def_readonly("parent", &Joint::parent, "parent body index, -1 for the world")
      .def_readonly("child", &Joint::child)
      .def_property_readonly("dof", &Joint::dof, "free rows: velocity coordinates")
      .def_property_readonly("nq", &Joint::nq, "position coordinates (a free rotation is a quaternion)")
      .def_property_readonly("free_rows", [](const Joint& j) {
        const auto rows = j.free_rows();
        return std::vector<int>(rows.begin(), rows.begin() + j.dof());
      })
      .def_property_readonly("parent_anchor", [](const Joint& j) { return vector_copy(j.parent_anchor); })
      .def_property_readonly("child_anchor", [](const Joint& j) { return vector_copy(j.child_anchor); })
      .def_property_readonly("stiffness", [](const Joint& j) { return row_array(j.stiffness); })
      .def_property_readonly("damping", [](const Joint& j) { return row_array(j.damping); })
      .def_property_readonly("lower", [](const Joint& j) { return row_array(j.lower); })
      .def_property_readonly("upper", [](const Joint& j) { return row_array(j.upper); })
      .def_property_readonly("effort", [](const Joint& j) { return row_array(j.effort); })
      .def_property_readonly("friction", [](const Joint& j) { return row_array(j.friction); })
      .def_property_readonly("armature", [](const Joint& j) { return row_array(j.armature); })
      .def_property_readonly("row_names", [](const Joint& j) { return std::vector<std::string>(j.row_names.begin(), j.row_names.end()); },
                             "per row, the name of the MJCF hinge or slide merged into it ('' for none)")
      .def_readonly("ref", &Joint::ref, "MuJoCo's qpos of the zero configuration (MJCF ref)")
      .def_readonly("has_limits", &Joint::has_limits)
      .def_readonly("cone_limit", &Joint::cone_limit)
      .def_readonly("actuated", &Joint::actuated)
      .def("__repr__", [](const Joint& j) { return "<maxsim.Joint '" + j.name + "' " + joint_type_name(j.type) + ">"; });

  py::class_<Actuator>(m, "Actuator")
      .def_readonly("name", &Actuator::name)
      .def_property_readonly("kind", [](const Actuator& a) { return std::string(actuator_kind_name(a.kind)); })
      .def_readonly("joint", &Actuator::joint)
      .def_readonly("row", &Actuator::row)
      .def_readonly("tendon", &Actuator::tendon, "the tendon it pulls (Model.tendons), or -1 (joint and row then drive)")
      .def_readonly("gear", &Actuator::gear)
      .def_readonly("kp", &Actuator::kp)
      .def_readonly("kv", &Actuator::kv)
      .def_readonly("ctrl_limited", &Actuator::ctrl_limited)
      .def_readonly("ctrl_lower", &Actuator::ctrl_lower)
      .def_readonly("ctrl_upper", &Actuator::ctrl_upper)
      .def_readonly("force_limited", &Actuator::force_limited)
      .def_readonly("force_lower", &Actuator::force_lower, "actuator space (joint force = gear * force)")
      .def_readonly("force_upper", &Actuator::force_upper)
      .def("__repr__", [](const Actuator& a) { return "<maxsim.Actuator '" + a.name + "' " + actuator_kind_name(a.kind) + ">"; });

  py::class_<Keyframe>(m, "Keyframe")
      .def_readonly("name", &Keyframe::name)
      .def_readonly("time", &Keyframe::time)
      .def_readonly("joint_q", &Keyframe::joint_q, "per joint its position coordinates (empty: the zero configuration)")
      .def_readonly("joint_qd", &Keyframe::joint_qd, "per joint its rates (empty: rest)")
      .def_readonly("ctrl", &Keyframe::ctrl)
      .def("__repr__", [](const Keyframe& k) { return "<maxsim.Keyframe '" + k.name + "'>"; });

  py::enum_<Integrator>(m, "Integrator", "How a step advances the state (sim/model.hpp).")
      .value("Variational", Integrator::Variational)
      .value("EnergyMomentum", Integrator::EnergyMomentum)
      .value("Newmark", Integrator::Newmark);
  m.def("integrator_name", [](Integrator i) { return std::string(integrator_name(i)); }, py::arg("integrator"),
        "\"variational\", \"energy-momentum\" or \"newmark\" (the files' and the command's spelling)");

  py::enum_<NonholonomicKind>(m, "NonholonomicKind", "Kinds of nonholonomic constraints (sim/model.hpp).")
      .value("RollingDisk", NonholonomicKind::RollingDisk)
      .value("RollingBall", NonholonomicKind::RollingBall)
      .value("KnifeEdge", NonholonomicKind::KnifeEdge)
      .value("AngularVelocity", NonholonomicKind::AngularVelocity);

  py::class_<NonholonomicConstraint>(m, "NonholonomicConstraint",
                                     "A constraint on a body's velocity (sim/model.hpp); vectors in the body frame\n"
                                     "(origin at the CoM). Add one with Model.add_nonholonomic.")
      .def(py::init([](const std::string& name, const py::object& kind, int body, double radius, const py::object& axis,
                       const py::object& point, const py::object& direction) {
             NonholonomicConstraint c;
             c.name = name;
             c.kind = kind_from(kind);
             c.body = body;
             c.radius = radius;
             c.axis = vec3_from(axis, "axis");
             c.point = vec3_from(point, "point");
             c.direction = vec3_from(direction, "direction");
             return c;
           }),
           py::arg("name") = "", py::arg("kind") = NonholonomicKind::RollingDisk, py::arg("body") = 0,
           py::arg("radius") = 0.0, py::arg("axis") = py::make_tuple(1.0, 0.0, 0.0),
           py::arg("point") = py::make_tuple(0.0, 0.0, 0.0), py::arg("direction") = py::make_tuple(1.0, 0.0, 0.0))
      .def_readwrite("name", &NonholonomicConstraint::name)
      .def_property(
          "kind", [](const NonholonomicConstraint& c) { return c.kind; },
          [](NonholonomicConstraint& c, const py::object& k) { c.kind = kind_from(k); }, "a NonholonomicKind (or its name)")
      .def_property_readonly("kind_name", [](const NonholonomicConstraint& c) { return std::string(nonholonomic_kind_name(c.kind)); },
                             "\"rolling_disk\", \"rolling_ball\", \"knife_edge\" or \"angular_velocity\"")
      .def_readwrite("body", &NonholonomicConstraint::body, "body index")
      .def_readwrite("radius", &NonholonomicConstraint::radius, "rolling kinds [m]")
      .def_property(
          "axis", [](const NonholonomicConstraint& c) { return vector_copy(c.axis); },
          [](NonholonomicConstraint& c, const py::object& v) { c.axis = vec3_from(v, "axis"); },
          "rolling disk: its axis; angular velocity: the blocked axis (body frame; a copy)")
      .def_property(
          "point", [](const NonholonomicConstraint& c) { return vector_copy(c.point); },
          [](NonholonomicConstraint& c, const py::object& v) { c.point = vec3_from(v, "point"); },
          "knife edge: the blade's contact point (body frame, from the CoM; a copy)")
      .def_property(
          "direction", [](const NonholonomicConstraint& c) { return vector_copy(c.direction); },
          [](NonholonomicConstraint& c, const py::object& v) { c.direction = vec3_from(v, "direction"); },
          "knife edge: the blade's direction (body frame; a copy)")
      .def_property_readonly("rows", &NonholonomicConstraint::rows, "rows the step solves for it")
      .def("__repr__", [](const NonholonomicConstraint& c) {
        return "<maxsim.NonholonomicConstraint '" + c.name + "' " + nonholonomic_kind_name(c.kind) + " on body " +
               std::to_string(c.body) + ">";
      });

  py::class_<Model, std::shared_ptr<Model>>(m, "Model",
                                            "The constant description of a mechanism (sim/model.hpp). Made by maxsim.load.")
      .def_readonly("name", &Model::name)
      .def_readonly("source_file", &Model::source_file)
      .def_property_readonly("nbody", [](const Model& md) { return md.bodies.size(); })
      .def_property_readonly("njoint", [](const Model& md) { return md.joints.size(); })
      .def_property_readonly("nu", [](const Model& md) { return md.actuators.size(); }, "number of actuators")
      .def_property_readonly("nkey", [](const Model& md) { return md.keyframes.size(); })
      .def_property_readonly("dof", &Model::dof, "sum of the joints' free rows")
      .def_property_readonly("nq", &qpos_size, "length of qpos (MuJoCo's nq)")
      .def_property_readonly("nv", &qvel_size, "length of qvel (MuJoCo's nv)")
      .def_property_readonly("qpos_addresses", &qpos_addresses,
                             "per joint its first qpos index (MuJoCo's jnt_qposadr), -1 for a loop-closing joint")
      .def_property_readonly("qvel_addresses", &qvel_addresses,
                             "per joint its first qvel index (MuJoCo's jnt_dofadr), -1 for a loop-closing joint")
      .def_readonly("bodies", &Model::bodies)
      .def_readonly("joints", &Model::joints)
      .def_readonly("actuators", &Model::actuators)
      .def_readonly("keyframes", &Model::keyframes)
      .def_property_readonly("body_names", [](const Model& md) { return names_of(md.bodies, [](const Body& b) { return b.name; }); })
      .def_property_readonly("joint_names", [](const Model& md) { return names_of(md.joints, [](const Joint& j) { return j.name; }); })
      .def_property_readonly("actuator_names", [](const Model& md) { return names_of(md.actuators, [](const Actuator& a) { return a.name; }); })
      .def_property_readonly("keyframe_names", [](const Model& md) { return names_of(md.keyframes, [](const Keyframe& k) { return k.name; }); })
      .def_property_readonly("tendon_names", [](const Model& md) { return names_of(md.tendons, [](const Tendon& t) { return t.name; }); },
                             "the tendons' names (Data.tendon_length and friends follow this order)")
      .def_property_readonly("ncoupling", [](const Model& md) { return md.couplings.size(); },
                             "exact couplings (<mimic>, <equality joint>, <equality tendon>)")
      .def("body_index", &Model::body_index, py::arg("name"), "index of the body; KeyError naming the close matches if absent")
      .def("joint_index", &Model::joint_index, py::arg("name"), "index of the joint (or of the joint an MJCF hinge or slide was merged into); KeyError naming the close matches if absent")
      .def(
          "joint_row", [](const Model& md, const std::string& name) {
            const auto r = md.find_joint_row(name);
            if (!r) throw py::key_error("no merged joint row named '" + name + "'");
            return py::make_tuple(r->first, r->second);
          },
          py::arg("name"), "(joint, row) of an MJCF hinge or slide merged into its body's joint; KeyError if absent")
      .def("actuator_index", &Model::actuator_index, py::arg("name"), "index of the actuator; KeyError naming the close matches if absent")
      .def("keyframe_index", &Model::keyframe_index, py::arg("name"), "index of the keyframe; KeyError naming the close matches if absent")
      .def("site_index", &Model::site_index, py::arg("name"), "index of the site; KeyError naming the close matches if absent")
      .def("tendon_index", &Model::tendon_index, py::arg("name"), "index of the tendon; KeyError naming the close matches if absent")
      .def("hfield_index", &Model::hfield_index, py::arg("name"), "index of the height field; KeyError naming the close matches if absent")
      .def_property_readonly("site_names", [](const Model& md) { return names_of(md.sites, [](const Site& t) { return t.name; }); },
                             "the sites' names (MJCF <site>; a URDF's link frames)")
      .def("sensor_index", &Model::sensor_index, py::arg("name"), "index of the sensor; KeyError naming the close matches if absent")
      .def_property_readonly("sensor_names", [](const Model& md) { return names_of(md.sensors, [](const Sensor& s) { return s.name; }); },
                             "the sensors' names, in the order of Data.sensordata")
      .def_property_readonly("sensor_types", [](const Model& md) { return names_of(md.sensors, [](const Sensor& s) { return std::string(sensor_type_name(s.type)); }); },
                             "each sensor's type by its MJCF element name ('touch', 'framepos', ...)")
      .def_property_readonly("sensor_adr", [](const Model& md) { std::vector<int> a; for (const Sensor& s : md.sensors) a.push_back(s.adr); return a; },
                             "each sensor's first index in Data.sensordata (MuJoCo's sensor_adr)")
      .def_property_readonly("sensor_dim", [](const Model& md) { std::vector<int> a; for (const Sensor& s : md.sensors) a.push_back(s.dim); return a; },
                             "each sensor's number of values (MuJoCo's sensor_dim)")
      .def_property_readonly("nsensordata", &Model::nsensordata, "the size of Data.sensordata")
      .def_property_readonly("hfield_names", [](const Model& md) { return names_of(md.hfields, [](const HeightField& h) { return h.name; }); })
      .def(
          "hfield_shape", [](const Model& md, int i) {
            if (i < 0 || i >= static_cast<int>(md.hfields.size())) throw py::index_error("no height field " + std::to_string(i));
            return py::make_tuple(md.hfields[i].nrow, md.hfields[i].ncol);
          },
          py::arg("index"), "(nrow, ncol) of height field `index`")
      .def(
          "hfield_data", [](const Model& md, int i) {
            if (i < 0 || i >= static_cast<int>(md.hfields.size())) throw py::index_error("no height field " + std::to_string(i));
            return md.hfields[i].data;
          },
          py::arg("index"), "the normalized elevations of height field `index` (nrow * ncol, row-major, row 0 at -y; a copy)")
      .def(
          "set_hfield_data",
          [](Model& md, const py::object& which, const std::vector<double>& data) {
            int i = -1;
            if (py::isinstance<py::str>(which)) {
              i = md.hfield_index(which.cast<std::string>());  // KeyError naming the close matches
            } else {
              i = which.cast<int>();
            }
            md.set_hfield_data(i, data);
          },
          py::arg("hfield"), py::arg("data"),
          "sets the elevations of a height field (its index or name): nrow * ncol values in [0, 1], row-major with row "
          "0 at -y (a flat sequence or array); Data stepping this model see them from their next step")
      .def_property_readonly(
          "solver", [](Model& md) -> SolverOptions& { return md.opt.solver; }, py::return_value_policy::reference_internal,
          "the Newton solver's settings (Model.opt.solver in C++), read by every step of this model")
      .def_property_readonly(
          "interior_point", [](Model& md) -> InteriorPointOptions& { return md.opt.interior_point; },
          py::return_value_policy::reference_internal, "the interior point's settings (Model.opt.interior_point in C++)")
      .def_property(
          "contact", [](Model& md) -> ContactOptions& { return md.opt.contact; },
          [](Model& md, const ContactOptions& c) { md.opt.contact = c; }, py::return_value_policy::reference_internal,
          "the contact search's options (Model.opt.contact in C++), read by every step of a Data with contacts")
      .def_property(
          "dt", [](const Model& md) { return md.opt.timestep; },
          [](Model& md, double dt) {
            if (!(dt > 0) || !std::isfinite(dt)) throw std::invalid_argument("dt must be finite and > 0");
            md.opt.timestep = dt;
          },
          "time step [s]")
      .def_property(
          "gravity", [](const Model& md) { return vector_copy(md.opt.gravity); },
          [](Model& md, const py::object& g) { md.opt.gravity = vec3_from(g, "gravity"); }, "[m/s^2] (a copy; assign to change)")
      .def_readonly("dt_from_file", &Model::dt_from_file)
      .def_readonly("implicit_ground", &Model::implicit_ground,
                    "the description stands on the ground z >= 0 (URDF); Data's default contacts add it")
      .def_readonly("contacts", &Model::contacts, "false: the description switches contacts off")
      .def_property(
          "integrator", [](const Model& md) { return md.opt.integrator; },
          [](Model& md, const py::object& i) {
            if (py::isinstance<Integrator>(i)) {
              md.opt.integrator = i.cast<Integrator>();
            } else if (!py::isinstance<py::str>(i) || !integrator_from_name(i.cast<std::string>(), &md.opt.integrator)) {
              throw std::invalid_argument("integrator: expected an Integrator or 'variational', 'energy-momentum', 'newmark' (got " +
                                          std::string(py::str(i)) + ")");
            }
          },
          "Integrator.Variational, Integrator.EnergyMomentum or Integrator.Newmark (or its name); the file's, else "
          "Variational")
      .def_property(
          "newmark_beta", [](const Model& md) { return md.opt.newmark_beta; },
          [](Model& md, double beta) {
            if (!newmark_parameters_valid(beta, md.opt.newmark_gamma))
              throw std::invalid_argument("newmark_beta must be in (0, 0.5]");
            md.opt.newmark_beta = beta;
          },
          "the Newmark step's beta in (0, 0.5] (0.25 with gamma 0.5: the trapezoidal rule; 1/12: Fox-Goodwin)")
      .def_property(
          "newmark_gamma", [](const Model& md) { return md.opt.newmark_gamma; },
          [](Model& md, double gamma) {
            if (!newmark_parameters_valid(md.opt.newmark_beta, gamma))
              throw std::invalid_argument("newmark_gamma must be in [0.5, 1]");
            md.opt.newmark_gamma = gamma;
          },
          "the Newmark step's gamma in [0.5, 1] (0.5: no numerical damping)")
      .def_property(
          "numerical_damping", [](const Model& md) { return md.opt.numerical_damping; },
          [](Model& md, double nu) {
            if (!numerical_damping_valid(nu)) throw std::invalid_argument("numerical_damping must be in [0, 0.5]");
            md.opt.numerical_damping = nu;
          },
          "the energy-momentum step's numerical damping in [0, 0.5] (0: energy kept; > 0: every step loses "
          "nu * sum(m |du|^2 + dW^T J dW), the fast swings most, for large steps)")
      .def_property(
          "limit_recovery_time", [](const Model& md) { return md.opt.limit_recovery_time; },
          [](Model& md, double tau) {
            if (!limit_recovery_time_valid(tau)) throw std::invalid_argument("limit_recovery_time must be >= 0");
            md.opt.limit_recovery_time = tau;
          },
          "tau [s]: a joint or tendon limit the run starts beyond is moved back by min(1, dt/tau) of the "
          "violation per step (math.inf, the default: held where it is; MJCF files 0.04, as MuJoCo's default soft "
          "limits; 0: at once)")
      // (by value: the constraints' fields are writable, and def_readonly would hand out references)
      .def_property_readonly("nonholonomic", [](const Model& md) { return md.nonholonomic; },
                             "the nonholonomic constraints (copies; add one with add_nonholonomic)")
      .def("add_sensor", &add_sensor, py::arg("type"),
           "add_sensor(type, *, name, site, body, ref_site, joint, tendon, actuator, noise, cutoff) -> index\n"
           "Adds a sensor of an MJCF type ('gyro', 'framepos', 'jointpos', ...) after the others; its object by\n"
           "index or name (frame sensors: a site's frame or a body's CoM frame; subtree sensors: a body, else the\n"
           "whole model). Raises ValueError (KeyError for an unknown name) when it does not fit the model. A Data\n"
           "made before refuses to step: make a new Data(model).")
      .def("add_nonholonomic", &add_nonholonomic, py::arg("constraint") = py::none(),
           "add_nonholonomic(constraint=None, *, name, kind, body, radius, axis, point, direction) -> index\n"
           "Adds a NonholonomicConstraint (keywords change its fields; body by index or name, kind by\n"
           "NonholonomicKind or name; vectors in the body frame). Raises ValueError for an unknown body or\n"
           "an invalid constraint. A Data made before refuses to step: make a new Data(model).")
      .def_readwrite("actuation", &Model::actuation,
                     "false: the actuators apply no force (ctrl ignored); joint_force still acts")
      .def_property_readonly("total_mass", &Model::total_mass)
      .def("validate", &validate_model, "empty when valid, else what is wrong")
      .def("validate_actuators", &validate_actuators, "empty when valid, else the actuator and what is wrong")
      .def("__copy__", [](const Model& md) { return std::make_shared<Model>(md); })
      .def("__deepcopy__", [](const Model& md, py::dict) { return std::make_shared<Model>(md); })
      .def("__repr__", [](const Model& md) {
        return "<maxsim.Model '" + md.name + "': " + std::to_string(md.bodies.size()) + " bodies, " +
               std::to_string(md.joints.size()) + " joints, " + std::to_string(md.actuators.size()) + " actuators>";
      });

  // (the GIL is released while a large description or its meshes are read)
  m.def("_load", &load, py::arg("path"), py::arg("options") = LoadOptions(), py::call_guard<py::gil_scoped_release>(),
        "load_model(path, options) and the loader's report; raises LoadError");
  m.def("spanning_tree_joints", &spanning_tree_joints, py::arg("model"),
        "per joint: in the spanning tree that places the bodies (true) or closing a loop (false)");
  m.def("loop_joints", &loop_joints, py::arg("model"), "per joint: on a closed kinematic loop");
  m.def("package_search_path", &package_search_path, py::arg("options") = LoadOptions());
}

}  // namespace maxsim::python
