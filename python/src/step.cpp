// step(model, data, n) with the GIL released, and Python controllers.
//
// The n steps run without the GIL, so other Python threads go on meanwhile (and several Data can
// be stepped from several threads at once: the engine shares nothing between Data). A Python
// controller is called by the engine at the start of every step, on the stepping thread: it takes
// the GIL back for the call. An exception it raises stops the stepping before that step changes
// anything (step() calls the controller first) and leaves `step` as the same Python exception.
#include "bindings.hpp"
#include "sim/step.hpp"

namespace maxsim::python {

void PyData::set_controller(py::object f) {
  if (f.is_none()) {
    controller = py::none();
    data.controller = nullptr;
    return;
  }
  if (!PyCallable_Check(f.ptr())) throw py::type_error("controller: expected a callable fn(model, data) or None");
  controller = std::move(f);
  // The closure holds the PyData, not Python objects: it runs without the GIL held until it takes
  // it, and the callable lives in `controller` (a copy re-binds it to itself).
  data.controller = [self = this](const Model&, Data&) {
    py::gil_scoped_acquire gil;
    try {
      // the Python objects already wrapping this Data and its Model (pybind11 finds registered
      // instances by address), so the callable sees the very objects the caller holds
      // (a local reference: the callable may replace data.controller, and with it this closure)
      py::object f = self->controller;
      f(py::cast(self->model), py::cast(self, py::return_value_policy::reference));
    } catch (py::error_already_set& e) {
      e.restore();  // hand the error back to Python's error indicator of this thread
      throw PythonControllerError();  // unwinds the engine; the translator keeps the Python error
    }
  };
}

void bind_step(py::module_& m) {
  py::class_<PyData>(py::reinterpret_borrow<py::object>(m.attr("Data")))
      .def_property(
          "controller", [](const PyData& d) { return d.controller; },
          [](PyData& d, py::object f) { d.set_controller(std::move(f)); },
          "fn(model, data) called at the start of every step (reads the state, writes the inputs); None: none");

  m.def(
      "step",
      [](const Model& model, PyData& d, int n) {
        checked(model, d);
        if (n < 0) throw std::invalid_argument("step: n must be >= 0");
        if (const std::string refused = integrator_support(model, d.data); !refused.empty())
          throw std::invalid_argument("step: " + refused + " (Data(model, contacts=False) steps without contacts)");
        StepReport r = d.data.report;
        py::gil_scoped_release release;
        for (int k = 0; k < n; ++k) {
          r = step(model, d.data);
          // a failed step leaves the state as it was: the following ones would fail alike
          if (r.status == StepStatus::Failed) break;
        }
        return r;
      },
      py::arg("model"), py::arg("data"), py::arg("n") = 1,
      "Advances data by n steps of model.opt.timestep (the GIL released). Returns the last step's report; "
      "stops early at a Failed step (whose state is unchanged). Raises ValueError when model.opt.integrator "
      "cannot step this Data (integrator_support).");
  m.def(
      "integrator_support", [](const Model& model, const PyData& d) { return integrator_support(model, checked(model, d).data); },
      py::arg("model"), py::arg("data"),
      "'' when model.opt.integrator can step this Data, else what it does not handle (the energy-momentum "
      "integrator: contacts, joint limits, joint friction)");
}

}  // namespace maxsim::python
