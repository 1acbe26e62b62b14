// Data: the state and inputs of one simulation as numpy views (no copies) onto the engine's
// vectors, its solver options, joint coordinates, copies.
//
// The views alias the std::vectors of the engine's Data: writing through a view changes what the
// next step reads, and a step's results appear in views taken before it. This is safe because a
// Data never resizes those vectors after construction (they are sized from the Model once), and
// because each view holds a reference to its Python Data (numpy's `base`), which holds the Model.
#include <pybind11/eigen.h>

#include <array>
#include <cstdio>
#include <tuple>

#include "bindings.hpp"
#include "sim/derivatives/transition.hpp"
#include "sim/sensor/sensors.hpp"
#include "sim/state/jacobian.hpp"
#include "sim/state/sites.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"

namespace maxsim::python {

PyData::PyData(std::shared_ptr<Model> m, bool contacts)
    : model(std::move(m)), data(*model), nonholonomic(model->nonholonomic.size()) {
  if (contacts) enable_contacts(*model, data);
}

// The engine's Data copies by value, its contact search included (a search of its own, in the
// same state). The Python controller is shared, bound to the copy.
PyData::PyData(const PyData& other) : model(other.model), data(other.data), nonholonomic(other.nonholonomic) {
  data.controller = nullptr;
  set_controller(other.controller);
}

std::optional<ContactOptions> PyData::contact_options() const {
  if (!data.contact_search) return std::nullopt;
  return model->opt.contact;
}

bool contacts_from(const py::object& contacts) {
  if (contacts.is_none()) return false;
  if (py::isinstance<py::bool_>(contacts)) return contacts.cast<bool>();
  if (py::isinstance<ContactOptions>(contacts))
    throw std::invalid_argument("contacts: the options are the Model's: set model.contact (a ContactOptions) and "
                                "pass contacts=True");
  throw std::invalid_argument("contacts: expected True, False or None");
}

void assign_values(std::vector<double>& values, const py::handle& src, const char* what) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(src);
  if (!a || a.ndim() > 1 || (a.ndim() == 1 && a.shape(0) != static_cast<py::ssize_t>(values.size())) ||
      (a.ndim() == 0 && values.size() != 1))
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(values.size()) + " numbers");
  std::copy(a.data(), a.data() + values.size(), values.begin());
}

namespace {

// The joint and row a name gives: a row's own name (an MJCF hinge merged into its body's joint)
// unless a row is given, else the joint's given row or its first free one.
std::pair<int, int> named_row(const Model& model, const std::string& name, const py::object& row) {
  if (const auto merged = model.find_joint_row(name); merged && row.is_none()) return *merged;
  const int joint = model.joint_index(name);
  if (!row.is_none()) return {joint, row.cast<int>()};
  int r = 0;
  while (r < 6 && model.joints[joint].row_constrained(r)) ++r;
  if (r == 6) throw py::value_error("joint '" + name + "' has no free row");
  return {joint, r};
}

// The parameters of transition_derivatives from (kind, name[, row]) tuples (None: none).
std::vector<ModelParameter> model_parameters(const Model& model, const py::object& specs) {
  std::vector<ModelParameter> out;
  if (specs.is_none()) return out;
  for (const py::handle item : specs) {
    const py::tuple t = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    if (t.size() < 2 || t.size() > 3) throw py::value_error("a parameter is (kind, name[, row])");
    const std::string kind = t[0].cast<std::string>(), name = t[1].cast<std::string>();
    ModelParameter p;
    if (!parameter_kind_from_name(kind, &p.kind))
      throw py::value_error("unknown parameter kind '" + kind + "' (actuator_kp, actuator_kv, actuator_gear, body_mass, "
                            "joint_stiffness, joint_damping, joint_armature, joint_friction, geom_friction)");
    using K = ModelParameter::Kind;
    if (p.kind == K::ActuatorKp || p.kind == K::ActuatorKv || p.kind == K::ActuatorGear) {
      p.index = model.actuator_index(name);
    } else if (p.kind == K::BodyMass) {
      p.index = model.body_index(name);
    } else if (p.kind == K::GeomFriction) {
      const auto geom = model.find_geom(name);
      if (!geom) throw py::key_error("no geom named '" + name + "'");
      if (t.size() == 3) throw py::value_error("a geom_friction parameter is (kind, name)");
      p.index = geom->first;
      p.row = geom->second;
    } else {
      std::tie(p.index, p.row) = named_row(model, name, t.size() == 3 ? py::object(t[2]) : py::none());
    }
    out.push_back(p);
  }
  return out;
}

// The force inputs of transition_derivatives from (joint name[, row]) tuples or names (None: none);
// the row is by default the joint's first free one.
std::vector<JointForceInput> force_inputs(const Model& model, const py::object& specs) {
  std::vector<JointForceInput> out;
  if (specs.is_none()) return out;
  for (const py::handle item : specs) {
    const py::object o = py::reinterpret_borrow<py::object>(item);
    const py::tuple t = py::isinstance<py::str>(o) ? py::make_tuple(o) : o.cast<py::tuple>();
    if (t.size() < 1 || t.size() > 2) throw py::value_error("a force input is (joint name[, row])");
    const std::string name = t[0].cast<std::string>();
    JointForceInput f;
    std::tie(f.joint, f.row) = named_row(model, name, t.size() == 2 ? py::object(t[1]) : py::none());
    out.push_back(f);
  }
  return out;
}

// (A, B), then P if parameters were given, then F if forces were.
py::tuple derivative_tuple(const TransitionDerivatives& D, const py::object& parameters, const py::object& forces) {
  py::list out;
  out.append(py::cast(D.A));
  out.append(py::cast(D.B));
  if (!parameters.is_none()) out.append(py::cast(D.P));
  if (!forces.is_none()) out.append(py::cast(D.F));
  return py::tuple(out);
}


// Runs change(), which must leave every array of d where it is (numpy views point into them).
template <class Change>
void keeping_views(Data& d, Change change) {
  auto arrays = [&d] {
    return std::array<const void*, 12>{d.x.data(), d.q.data(), d.v.data(), d.w.data(), d.body_force.data(),
                                       d.body_torque.data(), d.joint_force.data(), d.joint_impulse.data(),
                                       d.joint_angle.data(), d.ctrl.data(), d.actuator_force.data(),
                                       d.nonholonomic_impulse.data()};
  };
  const auto before = arrays();
  change();
  if (arrays() != before) throw std::logic_error("maxsim: a Data array moved while numpy views may point into it");
}

}  // namespace

void assign_keeping_views(Data& dst, const Data& src) {
  keeping_views(dst, [&] { dst = src; });
}

void PyData::restore(const PyData& snapshot) {
  if (snapshot.model != model) throw std::invalid_argument("restore: the snapshot is of another Model");
  if (&snapshot == this) return;
  py::object own_controller = controller;
  const bool own = data.contact_search.has_value();
  assign_keeping_views(data, snapshot.data);
  // the controller closure belongs to the snapshot; so does its search if this Data has one
  if (!own) {
    data.contact_search.reset();
  } else if (!data.contact_search) {
    enable_contacts(*model, data);
  }
  set_controller(own_controller);
}

namespace {

// The keyframe index from None (-1: the model's own state), an index or a name.
int keyframe_from(const Model& model, const py::object& key) {
  if (key.is_none()) return -1;
  if (py::isinstance<py::str>(key)) {
    const std::string name = key.cast<std::string>();
    return model.keyframe_index(name);  // KeyError naming the close matches
  }
  const int k = key.cast<int>();
  if (k < 0 || k >= static_cast<int>(model.keyframes.size()))
    throw std::invalid_argument("keyframe index " + std::to_string(k) + " out of range (the model has " +
                                std::to_string(model.keyframes.size()) + " keyframes)");
  return k;
}

// qpos / qvel are computed from the maximal coordinates: arrays of their own, read-only so that
// an in-place write (d.qpos[0] = 1, a no-op on a copy) fails loudly instead of doing nothing
py::array_t<double> read_only(std::vector<double> values) {
  py::array_t<double> a(static_cast<py::ssize_t>(values.size()), values.data());
  a.attr("flags").attr("writeable") = false;
  return a;
}

std::vector<double> as_values(const py::handle& src, std::size_t n, const char* what) {
  std::vector<double> out(n);
  assign_values(out, src, what);
  return out;
}

// A property that views one of the engine's vectors and copies into it on assignment.
template <class V>
void view_property(py::class_<PyData>& c, const char* name, std::vector<V> Data::*member, const char* doc) {
  c.def_property(
      name, [member](py::object self) { return rows_view(self.cast<PyData&>().data.*member, self); },
      [member, name](PyData& d, const py::object& value) { assign_rows(d.data.*member, value, name); }, doc);
}

}  // namespace

void bind_data(py::module_& m) {
  py::enum_<FrictionCone>(m, "FrictionCone")
      .value("Nonlinear", FrictionCone::Nonlinear)
      .value("Linear", FrictionCone::Linear)
      .value("Relaxed", FrictionCone::Relaxed);

  py::class_<ContactOptions>(m, "ContactOptions", "The contact search's options (Model.contact; sim/options.hpp).")
      .def(py::init<>())
      .def_readwrite("ground", &ContactOptions::ground, "the half-space z >= 0")
      .def_readwrite("friction", &ContactOptions::friction)
      .def_readwrite("margin", &ContactOptions::margin)
      .def_readwrite("adaptive_margin", &ContactOptions::adaptive_margin)
      .def_readwrite("min_margin", &ContactOptions::min_margin)
      .def_readwrite("pair_min_margin", &ContactOptions::pair_min_margin)
      .def_readwrite("pair_margin", &ContactOptions::pair_margin)
      .def_readwrite("exclude_joined", &ContactOptions::exclude_joined)
      .def_readwrite("self_collision", &ContactOptions::self_collision)
      .def_readwrite("recovery_speed", &ContactOptions::recovery_speed)
      .def_readwrite("restitution", &ContactOptions::restitution)
      .def_readwrite("bounce_threshold", &ContactOptions::bounce_threshold)
      .def_readwrite("cone", &ContactOptions::cone)
      .def_readwrite("hold_depth", &ContactOptions::hold_depth)
      .def_readwrite("start_overlap", &ContactOptions::start_overlap)
      .def_readwrite("torsion_gap", &ContactOptions::torsion_gap,
                     "torsional friction (condim 4, 6) acts on contacts whose gap at the step's start is below this [m]");

  py::class_<SolverOptions>(m, "SolverOptions", "Newton solver settings (sim/options.hpp): Model.solver.")
      .def_readwrite("tolerance", &SolverOptions::tolerance)
      .def_readwrite("max_iterations", &SolverOptions::max_iterations)
      .def_readwrite("stall_factor", &SolverOptions::stall_factor)
      .def_readwrite("line_search_steps", &SolverOptions::line_search_steps)
      .def_readwrite("max_retry_depth", &SolverOptions::max_retry_depth)
      .def_readwrite("refinement_sweeps", &SolverOptions::refinement_sweeps)
      .def_readwrite("compliant_loop_fallback", &SolverOptions::compliant_loop_fallback)
      .def_readwrite("compliant_limit_fallback", &SolverOptions::compliant_limit_fallback)
      .def_readwrite("limit_fallback_compliance", &SolverOptions::limit_fallback_compliance)
      .def_readwrite("compliant_last_resort", &SolverOptions::compliant_last_resort)
      .def_readwrite("compliant_contacts_last_resort", &SolverOptions::compliant_contacts_last_resort)
      .def_readwrite("compliant_retry", &SolverOptions::compliant_retry)
      .def_readwrite("compliant_retry_iterations", &SolverOptions::compliant_retry_iterations)
      .def_readwrite("compliant_retry_steps", &SolverOptions::compliant_retry_steps)
      .def_readwrite("compliant_retry_give", &SolverOptions::compliant_retry_give)
      .def_readwrite("sticking_retry", &SolverOptions::sticking_retry)
      .def_readwrite("conservative_retry", &SolverOptions::conservative_retry)
      .def_readwrite("bodies_first", &SolverOptions::bodies_first)
      .def_readwrite("open_candidate_gap", &SolverOptions::open_candidate_gap)
      .def_readwrite("closed_contacts_last", &SolverOptions::closed_contacts_last)
      .def_readwrite("fill_least_root", &SolverOptions::fill_least_root)
      .def_readwrite("fold_joint_limits", &SolverOptions::fold_joint_limits);

  py::class_<InteriorPointOptions>(m, "InteriorPointOptions", "Interior-point settings for steps with contacts (sim/options.hpp): Model.interior_point.")
      .def_readwrite("complementarity_tolerance", &InteriorPointOptions::complementarity_tolerance)
      .def_readwrite("max_iterations", &InteriorPointOptions::max_iterations)
      .def_readwrite("cone_weight", &InteriorPointOptions::cone_weight)
      .def_readwrite("weighted_cone_test", &InteriorPointOptions::weighted_cone_test)
      .def_readwrite("cone_direction_tolerance", &InteriorPointOptions::cone_direction_tolerance)
      .def_readwrite("jammed_iterations", &InteriorPointOptions::jammed_iterations)
      .def_readwrite("jammed_window", &InteriorPointOptions::jammed_window)
      .def_readwrite("settled_iterations", &InteriorPointOptions::settled_iterations)
      .def_readwrite("jammed_alpha", &InteriorPointOptions::jammed_alpha)
      .def_readwrite("compliant_iterations", &InteriorPointOptions::compliant_iterations)
      .def_readwrite("joint_friction_rate", &InteriorPointOptions::joint_friction_rate)
      .def_readwrite("joint_friction_start_rate", &InteriorPointOptions::joint_friction_start_rate)
      .def_readwrite("warm_match_radius", &InteriorPointOptions::warm_match_radius)
      .def_readwrite("limit_compliance", &InteriorPointOptions::limit_compliance)
      .def_readwrite("contact_compliance", &InteriorPointOptions::contact_compliance)
      .def_readwrite("proximal_retry", &InteriorPointOptions::proximal_retry)
      .def_readwrite("warm_start", &InteriorPointOptions::warm_start)
      .def_readwrite("mehrotra_corrector", &InteriorPointOptions::mehrotra_corrector)
      .def_readwrite("centering_scale", &InteriorPointOptions::centering_scale)
      .def_readwrite("relaxed_fallback", &InteriorPointOptions::relaxed_fallback);

  py::enum_<StepStatus>(m, "StepStatus")
      .value("Ok", StepStatus::Ok)
      .value("NotConverged", StepStatus::NotConverged)
      .value("Failed", StepStatus::Failed);

  py::class_<StepReport>(m, "StepReport", "What the last step did (sim/data.hpp).")
      .def_readonly("status", &StepReport::status)
      .def_readonly("iterations", &StepReport::iterations)
      .def_readonly("residual", &StepReport::residual)
      .def_readonly("substeps", &StepReport::substeps)
      .def_readonly("relaxed", &StepReport::relaxed)
      .def_property_readonly(
          "reason", [](const StepReport& r) { return r.reason ? py::object(py::str(r.reason)) : py::object(py::none()); },
          "a Failed step the integrator refused: why (None otherwise)")
      .def_property_readonly("ok", [](const StepReport& r) { return r.status == StepStatus::Ok; })
      .def("__repr__", [](const StepReport& r) {
        char residual[32];
        std::snprintf(residual, sizeof residual, "%.3g", r.residual);
        return std::string("<maxsim.StepReport ") + step_status_name(r.status) + ", " + std::to_string(r.iterations) +
               " iterations, residual " + residual + ">";
      });

  py::class_<PyData> data(m, "Data",
                          "The state, inputs and workspace of one simulation of a Model (sim/data.hpp).\n"
                          "Data(model, contacts=True): contacts=True sets up the contact search, which reads\n"
                          "the Model's options (Model.contact) at every step; False/None: no contacts.");
  data.def(py::init([](std::shared_ptr<Model> model, const py::object& contacts) {
             const bool c = contacts_from(contacts);
             return std::make_unique<PyData>(std::move(model), c);
           }),
           py::arg("model"), py::arg("contacts") = true)
      .def_property_readonly("model", [](const PyData& d) { return d.model; })
      .def_property(
          "time", [](const PyData& d) { return d.data.time; }, [](PyData& d, double t) { d.data.time = t; }, "[s]")
      .def_property(
          "sensor_noise_state", [](const PyData& d) { return d.data.sensor_noise_state; },
          [](PyData& d, std::uint64_t s) { d.data.sensor_noise_state = s; },
          "the sensor noise generator's state (a seed: equal states give equal noise; 0 in a new Data)")
      .def_property_readonly("contact_options", [](const PyData& d) { return d.contact_options(); },
                             "the contact options its search reads (a copy of Model.contact), None without contacts")
      .def_property_readonly("report", [](const PyData& d) { return d.data.report; }, "the last step's report")
      .def_property_readonly("min_candidate_distance", [](const PyData& d) { return d.data.min_candidate_distance; })
      .def("copy", [](const PyData& d) { return std::make_unique<PyData>(d); },
           "an independent copy (state, inputs, warm start; a contact search of its own, in the same state)")
      .def("__copy__", [](const PyData& d) { return std::make_unique<PyData>(d); })
      .def("__deepcopy__", [](const PyData& d, py::dict) { return std::make_unique<PyData>(d); })
      .def("__repr__", [](const PyData& d) {
        return "<maxsim.Data t=" + std::to_string(d.data.time) + " for '" + d.model->name + "'>";
      });
  view_property<Vec3>(data, "x", &Data::x, "(nbody, 3) CoM positions, world [m] (a view)");
  view_property<Vec4>(data, "q", &Data::q, "(nbody, 4) orientations body -> world, quaternions w x y z (a view)");
  view_property<Vec3>(data, "v", &Data::v,
                      "(nbody, 3) linear velocities, world [m/s] (a view): over the last interval (variational "
                      "integrator) or at the knot (energy-momentum, newmark)");
  view_property<Vec6>(data, "acceleration", &Data::acceleration,
                      "(nbody, 6) the newmark integrator's knot accelerations: linear world [m/s^2], angular body "
                      "frame [rad/s^2] (a view; valid after a newmark step)");
  view_property<Vec3>(data, "w", &Data::w, "(nbody, 3) angular velocities, body frame [rad/s] (a view), as v");
  view_property<Vec3>(data, "body_force", &Data::body_force, "(nbody, 3) external force at the CoM, world [N] (a view)");
  view_property<Vec3>(data, "body_torque", &Data::body_torque, "(nbody, 3) external torque, body frame [N m] (a view)");
  view_property<Vec6>(data, "joint_force", &Data::joint_force,
                      "(njoint, 6) actuation per joint row, free rows only [N or N m] (a view)");
  view_property<Vec6>(data, "joint_impulse", &Data::joint_impulse,
                      "(njoint, 6) the last step's row impulses [N s or N m s] (a view)");
  view_property<Vec6>(data, "nonholonomic_impulse", &Data::nonholonomic_impulse,
                      "(nconstraint, 6) the last step's row impulses of the nonholonomic constraints, in the order "
                      "of their rows (a view)");
  view_property<Vec3>(data, "joint_angle", &Data::joint_angle,
                      "(njoint, 3) unwrapped free rotation-row angles, rows 3..5 [rad] (a view)");
  data.def_property(
          "ctrl", [](py::object self) { return values_view(self.cast<PyData&>().data.ctrl, self); },
          [](PyData& d, const py::object& v) { assign_values(d.data.ctrl, v, "ctrl"); },
          "(nu,) one command per actuator, applied by every step (a view)")
      .def_property(
          "actuator_force", [](py::object self) { return values_view(self.cast<PyData&>().data.actuator_force, self); },
          [](PyData& d, const py::object& v) { assign_values(d.data.actuator_force, v, "actuator_force"); },
          "(nu,) each actuator's force over the last step, actuator space (a view)")
      .def_property_readonly(
          "sensordata", [](py::object self) { return values_view(self.cast<PyData&>().data.sensordata, self); },
          "(nsensordata,) every sensor's values in MuJoCo's layout (Model.sensor_adr, sensor_dim), computed at the end "
          "of every step and by update_sensors (a view)")
      .def_property_readonly(
          "tendon_length", [](const PyData& d) { return read_only(d.data.tendon_length); },
          "(ntendon,) each tendon's length at the end of the last step [m or rad] (a read-only copy)")
      .def_property_readonly(
          "tendon_impulse", [](const PyData& d) { return read_only(d.data.tendon_impulse); },
          "(ntendon,) each tendon's impulse over the last step: spring, damper, armature, actuators, limit (a read-only copy)")
      .def_property_readonly(
          "tendon_force", [](const PyData& d) { return read_only(d.data.tendon_force); },
          "(ntendon,) the actuators' force along each tendon over the last step (a read-only copy)")
      .def_property_readonly(
          "coupling_impulse", [](const PyData& d) { return read_only(d.data.coupling_impulse); },
          "(ncoupling,) each coupling's multiplier over the last step (a read-only copy)")
      .def_property(
          "qpos", [](const PyData& d) { return read_only(get_qpos(*d.model, d.data)); },
          [](PyData& d, const py::object& v) {
            const Model& m = *d.model;
            set_qpos_qvel(m, d.data, as_values(v, qpos_size(m), "qpos"), get_qvel(m, d.data));
          },
          "(nq,) MuJoCo-layout joint positions (a read-only copy computed from the bodies; assign to set)")
      .def_property(
          "qvel", [](const PyData& d) { return read_only(get_qvel(*d.model, d.data)); },
          [](PyData& d, const py::object& v) {
            const Model& m = *d.model;
            set_qpos_qvel(m, d.data, get_qpos(m, d.data), as_values(v, qvel_size(m), "qvel"));
          },
          "(nv,) MuJoCo-layout joint velocities (a read-only copy computed from the bodies; assign to set)")
      .def("restore", &PyData::restore, py::arg("snapshot"),
           "sets this Data to a snapshot (a copy() of a Data of the same Model): state, inputs, warm "
           "start; keeps its own controller, contact options and views");

  // ---- MuJoCo-layout state, resets (sim/state/state.hpp) ----
  m.def("get_qpos", [](const Model& model, const PyData& d) { return read_only(get_qpos(model, checked(model, d).data)); },
        py::arg("model"), py::arg("data"));
  m.def("get_qvel", [](const Model& model, const PyData& d) { return read_only(get_qvel(model, checked(model, d).data)); },
        py::arg("model"), py::arg("data"));
  // ---- Jacobians and the mass matrix (sim/state/jacobian.hpp) ----
  auto index_of = [](const py::handle& h, auto by_name) {
    return py::isinstance<py::str>(h) ? by_name(h.cast<std::string>()) : h.cast<int>();
  };
  m.def(
      "point_jacobian",
      [index_of](const Model& model, const PyData& d, const py::handle& body, const Vec3& point) {
        Eigen::MatrixXd lin, ang;
        point_jacobian(model, checked(model, d).data,
                       index_of(body, [&](const std::string& n) { return model.body_index(n); }), point, &lin, &ang);
        return py::make_tuple(lin, ang);
      },
      py::arg("model"), py::arg("data"), py::arg("body"), py::arg("point"),
      "(jacp, jacr), each (3, nv): the velocity of a world point fixed in the body (index or name) and the body's "
      "angular velocity, both world, per qvel entry (MuJoCo's mj_jac)");
  m.def(
      "site_jacobian",
      [index_of](const Model& model, const PyData& d, const py::handle& site) {
        Eigen::MatrixXd lin, ang;
        site_jacobian(model, checked(model, d).data,
                      index_of(site, [&](const std::string& n) { return model.site_index(n); }), &lin, &ang);
        return py::make_tuple(lin, ang);
      },
      py::arg("model"), py::arg("data"), py::arg("site"), "(jacp, jacr) of a site's origin (index or name; MuJoCo's mj_jacSite)");
  m.def(
      "site_pose",
      [index_of](const Model& model, const PyData& d, const py::handle& site) {
        const Pose p = site_pose(model, checked(model, d).data, index_of(site, [&](const std::string& n) { return model.site_index(n); }));
        return py::make_tuple(Vec3(p.x), Vec4(p.q));
      },
      py::arg("model"), py::arg("data"), py::arg("site"),
      "(pos, quat): the site's world position and orientation (w, x, y, z; site -> world)");
  m.def(
      "site_velocity",
      [index_of](const Model& model, const PyData& d, const py::handle& site) {
        Vec3 lin, ang;
        site_velocity(model, checked(model, d).data, index_of(site, [&](const std::string& n) { return model.site_index(n); }), &lin, &ang);
        return py::make_tuple(lin, ang);
      },
      py::arg("model"), py::arg("data"), py::arg("site"),
      "(linear, angular): the site's origin velocity and angular velocity, both world");
  m.def(
      "transition_fd",
      [](const Model& model, const PyData& d, double eps, bool centered, const py::object& parameters,
         const py::object& forces, double smoothing) {
        const TransitionDerivatives D = transition_fd(model, checked(model, d).data, eps, centered,
                                                      model_parameters(model, parameters), force_inputs(model, forces),
                                                      smoothing);
        return derivative_tuple(D, parameters, forces);
      },
      py::arg("model"), py::arg("data"), py::arg("eps") = 1e-6, py::arg("centered") = true,
      py::arg("parameters") = py::none(), py::arg("forces") = py::none(), py::arg("smoothing") = 0.0,
      "(A, B): the Jacobians of one step, A = dx'/dx (2nv, 2nv), B = dx'/du (2nv, nu), x = (qpos tangent, qvel), "
      "by finite differences of step() on copies of the Data (MuJoCo's mjd_transitionFD); parameters and forces as "
      "transition_derivatives' (then P and F follow). smoothing: 0 (default) each step's answer as the interior "
      "point leaves it; otherwise put on the central path at that κ first (negative: 1e-11, transition_derivatives' "
      "default), the finite differences of what transition_derivatives differentiates. The Data is unchanged");
  m.def(
      "transition_derivatives",
      [](const Model& model, const PyData& d, double eps, double smoothing, const py::object& parameters,
         const py::object& forces) {
        const TransitionDerivatives D = transition_derivatives(model, checked(model, d).data, eps, smoothing,
                                                               model_parameters(model, parameters),
                                                               force_inputs(model, forces));
        return derivative_tuple(D, parameters, forces);
      },
      py::arg("model"), py::arg("data"), py::arg("eps") = 1e-6, py::arg("smoothing") = -1.0,
      py::arg("parameters") = py::none(), py::arg("forces") = py::none(),
      "(A, B) as transition_fd, by the implicit function theorem on the converged step's factorization (one step "
      "solved, one back-substitution per column; the derivative within the step's contact mode: a touching contact "
      "is held, a sliding one slides); falls back to finite differences when the step needs substeps or does not "
      "converge. smoothing: the central path's κ [N·s·m] every complementarity pair is held on — negative (default) "
      "1e-11 (the converged answer), 0 contact modes held exactly, > 0 Dojo's smoothed derivatives. parameters: a "
      "list of (kind, name[, row]) with kind actuator_kp, actuator_kv, actuator_gear, body_mass, joint_stiffness, "
      "joint_damping, joint_armature, joint_friction (row: the joint's row, by default its first free one; an MJCF "
      "hinge merged into its body's joint by its own name) or geom_friction (name: the geom's); then (A, B, P) with "
      "P = dx'/dp (2nv, np). forces: a list of joint names or (joint name, row): the columns F = dx'/df of those "
      "rows' applied forces Data.joint_force (a controller's torque), appended last. The Data is unchanged");
  m.def(
      "loop_tangent", [](const Model& model, const PyData& d) { return loop_tangent(model, checked(model, d).data); },
      py::arg("model"), py::arg("data"),
      "(nv, r) an orthonormal basis T of the tangent space of the loops' constraints at the Data's qpos, in qpos "
      "tangent coordinates (the identity on trees). transition_derivatives and transition_fd place their perturbed "
      "starts onto the loops along it: with S = diag(T, T), S.T @ A @ S and S.T @ B are the step's Jacobians in the "
      "loops' own coordinates");
  m.def(
      "mass_matrix", [](const Model& model, const PyData& d) { return mass_matrix(model, checked(model, d).data); },
      py::arg("model"), py::arg("data"),
      "(nv, nv) the joint-space mass matrix at the current configuration, armature included (MuJoCo's mj_fullM)");
  m.def(
      "update_sensors", [](const Model& model, PyData& d) { update_sensors(model, checked(model, d).data); },
      py::arg("model"), py::arg("data"),
      "computes the position- and velocity-based sensors (and actuatorfrc) at the current state, e.g. one set by "
      "set_qpos_qvel; force-based sensors and accelerometers keep the last step's values");
  m.def(
      "set_qpos_qvel",
      [](const Model& model, PyData& d, const py::object& qpos, const py::object& qvel) {
        set_qpos_qvel(model, checked(model, d).data, as_values(qpos, qpos_size(model), "qpos"),
                      as_values(qvel, qvel_size(model), "qvel"));
      },
      py::arg("model"), py::arg("data"), py::arg("qpos"), py::arg("qvel"),
      "places every body from MuJoCo-layout qpos and qvel and closes the loops");
  m.def(
      "reset_data",
      [](const Model& model, PyData& d, const py::object& keyframe) {
        checked(model, d);
        const int k = keyframe_from(model, keyframe);
        // (reset_data keeps the arrays where they are, and the numpy views onto them valid)
        keeping_views(d.data, [&] {
          if (k < 0) reset_data(model, d.data);
          else reset_data(model, d.data, k);
        });
      },
      py::arg("model"), py::arg("data"), py::arg("keyframe") = py::none(),
      "The Data as a new one would be (time 0, the model's pose at rest, inputs and warm starts "
      "cleared; controller, solver options and contact search kept), or at a keyframe (index or "
      "name) with its time, coordinates, rates and ctrl.");

  // ---- joint coordinates (sim/state/kinematics.hpp) ----
  m.def(
      "joint_coordinates",
      [](const Model& model, const PyData& d, int j) {
        if (j < 0 || j >= static_cast<int>(model.joints.size())) throw py::index_error("joint index out of range");
        checked(model, d);
        py::array_t<double> q(model.joints[j].nq()), qd(model.joints[j].dof());
        joint_coordinates(model, d.data, j, q.mutable_data(), qd.mutable_data());
        return py::make_tuple(q, qd);
      },
      py::arg("model"), py::arg("data"), py::arg("joint"),
      "(q, qd) of one joint: its position coordinates (nq) and rates (dof)");
  m.def(
      "get_coordinates",
      [](const Model& model, const PyData& d) {
        std::vector<std::vector<double>> q, qd;
        get_coordinates(model, checked(model, d).data, &q, &qd);
        return py::make_tuple(q, qd);
      },
      py::arg("model"), py::arg("data"), "(q, qd): per joint lists of its coordinates and rates");
  m.def(
      "set_coordinates",
      [](const Model& model, PyData& d, const std::vector<std::vector<double>>& q,
         const std::vector<std::vector<double>>& qd) { set_coordinates(model, checked(model, d).data, q, qd); },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"),
      "places every body by forward kinematics from per-joint coordinates (an empty list: the zero "
      "configuration / rest for that joint)");
  m.def(
      "set_joint_coordinates",
      [](const Model& model, PyData& d, int j, const std::vector<double>& q, const std::vector<double>& qd) {
        if (j < 0 || j >= static_cast<int>(model.joints.size())) throw py::index_error("joint index out of range");
        set_joint_coordinates(model, checked(model, d).data, j, q, qd);
      },
      py::arg("model"), py::arg("data"), py::arg("joint"), py::arg("q"), py::arg("qd"),
      "sets one joint's coordinates, keeping the others, and re-runs forward kinematics");
}

}  // namespace maxsim::python
