// The last step's contacts as arrays, and the physical diagnostics (sim/state/diagnostics.hpp).
//
// Contacts are copied, not viewed: their number changes every step, so the engine's vector is
// reallocated under any view one would keep.
#include <algorithm>

#include "bindings.hpp"
#include "sim/state/diagnostics.hpp"
#include "sim/math/quaternion.hpp"

namespace maxsim::python {

namespace {

// World position of a witness point given in its body's frame (world already for kWorld).
Vec3 world_point(const Data& d, int body, const Vec3& p) {
  return body == kWorld ? p : Vec3(d.x[body] + quat_rotate(d.q[body], p));
}

py::dict contact_arrays(const Model& model, const PyData& pd, bool all) {
  const Data& d = pd.data;
  std::vector<const Contact*> list;
  for (const Contact& c : d.contacts)
    if ((all && c.tendon < 0) || is_surface_contact(c)) list.push_back(&c);  // (a tendon limit has no bodies)
  const py::ssize_t n = static_cast<py::ssize_t>(list.size());
  py::array_t<int> body_a(n), body_b(n), joint(n), row(n);
  py::array_t<double> point_a({n, py::ssize_t(3)}), point_b({n, py::ssize_t(3)}), normal({n, py::ssize_t(3)});
  py::array_t<double> tangent({n, py::ssize_t(3), py::ssize_t(2)});
  py::array_t<double> gamma(n), friction_impulse({n, py::ssize_t(2)}), impulse({n, py::ssize_t(3)});
  py::array_t<double> force({n, py::ssize_t(3)}), mu(n), slack(n);
  for (py::ssize_t i = 0; i < n; ++i) {
    const Contact& c = *list[i];
    body_a.mutable_at(i) = c.body_a;
    body_b.mutable_at(i) = c.body_b;
    joint.mutable_at(i) = c.joint;
    row.mutable_at(i) = c.row;
    const Vec3 pa = world_point(d, c.body_a, c.point_a), pb = world_point(d, c.body_b, c.point_b);
    const Vec3 j = c.gamma * c.normal + c.tangent * c.b;  // on body b, world (surface contacts)
    for (int k = 0; k < 3; ++k) {
      point_a.mutable_at(i, k) = pa(k);
      point_b.mutable_at(i, k) = pb(k);
      normal.mutable_at(i, k) = c.normal(k);
      impulse.mutable_at(i, k) = j(k);
      force.mutable_at(i, k) = j(k) / model.opt.timestep;
      for (int t = 0; t < 2; ++t) tangent.mutable_at(i, k, t) = c.tangent(k, t);
    }
    gamma.mutable_at(i) = c.gamma;
    friction_impulse.mutable_at(i, 0) = c.b(0);
    friction_impulse.mutable_at(i, 1) = c.b(1);
    mu.mutable_at(i) = c.friction;
    slack.mutable_at(i) = c.slack;
  }
  py::dict out;
  out["body_a"] = body_a;      // -1: the world or the ground
  out["body_b"] = body_b;
  out["point_a"] = point_a;    // witness points, world [m] (at the current poses)
  out["point_b"] = point_b;
  out["normal"] = normal;      // world unit normal from a to b
  out["tangent"] = tangent;    // world tangent basis (columns)
  out["impulse_normal"] = gamma;              // [N s] γ over the last step
  out["impulse_friction"] = friction_impulse;  // [N s] in the tangent basis
  out["impulse"] = impulse;    // γ n + T b on body b, world [N s]
  out["force"] = force;        // impulse / dt [N]
  out["friction"] = mu;
  out["slack"] = slack;        // the gap at the step's end [m]
  out["joint"] = joint;        // joint limits / joint friction: the joint and row (-1 for surfaces)
  out["row"] = row;
  return out;
}

}  // namespace

void bind_contacts(py::module_& m) {
  py::class_<PyData>(py::reinterpret_borrow<py::object>(m.attr("Data")))
      .def_property_readonly(
          "ncon", [](const PyData& d) { return std::count_if(d.data.contacts.begin(), d.data.contacts.end(), is_surface_contact); },
          "surface contacts of the last step");
  m.def(
      "contacts", [](const Model& model, const PyData& d, bool all) { return contact_arrays(model, checked(model, d), all); },
      py::arg("model"), py::arg("data"), py::arg("all") = false,
      "The last step's contacts as a dict of arrays (copies): body_a, body_b, point_a, point_b, "
      "normal, tangent, impulse_normal, impulse_friction, impulse, force, friction, slack, joint, row. "
      "all=True: joint limits and joint friction too (joint >= 0).");

  m.def("kinetic_energy", [](const Model& model, const PyData& d) { return kinetic_energy(model, checked(model, d).data); },
        py::arg("model"), py::arg("data"), "[J], of the last interval's velocities");
  m.def("potential_energy", [](const Model& model, const PyData& d) { return potential_energy(model, checked(model, d).data); },
        py::arg("model"), py::arg("data"), "gravity (averaged over the interval's knots) + joint springs [J]");
  m.def("total_energy", [](const Model& model, const PyData& d) { return total_energy(model, checked(model, d).data); },
        py::arg("model"), py::arg("data"), "kinetic + potential [J]");
  m.def("linear_momentum",
        [](const Model& model, const PyData& d) { return vector_copy(linear_momentum(model, checked(model, d).data)); },
        py::arg("model"), py::arg("data"), "[N s]");
  m.def("angular_momentum",
        [](const Model& model, const PyData& d) { return vector_copy(angular_momentum(model, checked(model, d).data)); },
        py::arg("model"), py::arg("data"), "about the world origin [N m s]");
  m.def("max_constraint_violation",
        [](const Model& model, const PyData& d) { return max_constraint_violation(model, checked(model, d).data); },
        py::arg("model"), py::arg("data"), "largest |c| over the joints' constrained rows [m or rad]");
  m.def("max_nonholonomic_violation",
        [](const Model& model, const PyData& d) { return max_nonholonomic_violation(model, checked(model, d).data); },
        py::arg("model"), py::arg("data"),
        "largest |row| over the nonholonomic constraints [m, rad, m/s or rad/s]");
  m.def("max_penetration", [](const PyData& d) { return max_penetration(d.data); }, py::arg("data"),
        "deepest contact candidate of the last search [m] (>= 0)");
}

}  // namespace maxsim::python
