// step(model, data, n) with the GIL released (its StepSummary: every step's outcome), and Python
// controllers.
//
// The n steps run without the GIL, so other Python threads go on meanwhile (and several Data can
// be stepped from several threads at once: the engine shares nothing between Data). A Python
// controller is called by the engine at the start of every step, on the stepping thread: it takes
// the GIL back for the call. An exception it raises stops the stepping before that step changes
// anything (step() calls the controller first) and leaves `step` as the same Python exception.
#include <cmath>
#include <cstdio>

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

namespace {
py::object time_or_none(double t) { return std::isnan(t) ? py::object(py::none()) : py::object(py::float_(t)); }
}  // namespace

void bind_step(py::module_& m) {
  py::class_<StepSummary>(m, "StepSummary",
                          "What step(model, data, n) did, every step counted (sim/step_summary.hpp). status,\n"
                          "iterations, residual, substeps, relaxed and reason are the LAST step's (as the\n"
                          "StepReport step() returned before); ok is True when no step failed or stopped\n"
                          "unconverged; the *_steps counts, iterations_total/max/mean, residual_max and\n"
                          "first_not_ok_time / first_relaxed_time cover all of them.")
      .def_readonly("steps", &StepSummary::steps, "steps taken (a Failed one included: the stepping stops there)")
      .def_readonly("failed_steps", &StepSummary::failed_steps, "steps that Failed (state left unchanged)")
      .def_readonly("not_converged_steps", &StepSummary::not_converged_steps,
                    "steps that reached the iteration limit (the state advanced approximately)")
      .def_readonly("relaxed_steps", &StepSummary::relaxed_steps,
                    "steps solved (in a substep) by a relaxed fallback: relaxed cone or compliant loops")
      .def_readonly("substepped_steps", &StepSummary::substepped_steps, "steps retried as smaller substeps")
      .def_readonly("iterations_total", &StepSummary::iterations_total,
                    "Newton / interior-point iterations of all steps, every attempt of the failure policy")
      .def_readonly("iterations_max", &StepSummary::iterations_max, "iterations of the step that took the most")
      .def_property_readonly("iterations_mean", &StepSummary::iterations_mean, "iterations_total / steps (0 without steps)")
      .def_readonly("residual_max", &StepSummary::residual_max, "largest final residual of a step")
      .def_property_readonly(
          "first_not_ok_time", [](const StepSummary& s) { return time_or_none(s.first_not_ok_time); },
          "data.time at the start of the first step that did not end Ok (None: every step did)")
      .def_property_readonly(
          "first_relaxed_time", [](const StepSummary& s) { return time_or_none(s.first_relaxed_time); },
          "data.time at the start of the first relaxed step (None: none)")
      .def_readonly("last", &StepSummary::last, "the last step's StepReport")
      .def_property_readonly("ok", &StepSummary::ok, "no step Failed or NotConverged")
      // the last step's report, as step(m, d, n) returned it before the summary
      .def_property_readonly("status", [](const StepSummary& s) { return s.last.status; }, "the last step's status")
      .def_property_readonly("iterations", [](const StepSummary& s) { return s.last.iterations; },
                             "the last step's iterations (iterations_total: all steps')")
      .def_property_readonly("residual", [](const StepSummary& s) { return s.last.residual; }, "the last step's residual")
      .def_property_readonly("substeps", [](const StepSummary& s) { return s.last.substeps; },
                             "whether the last step was substepped (substepped_steps: how many were)")
      .def_property_readonly("relaxed", [](const StepSummary& s) { return s.last.relaxed; },
                             "whether the last step was relaxed (relaxed_steps: how many were)")
      .def_property_readonly(
          "reason", [](const StepSummary& s) { return s.last.reason ? py::object(py::str(s.last.reason)) : py::object(py::none()); },
          "the last step's: a Failed step the integrator refused: why (None otherwise)")
      .def("__repr__", [](const StepSummary& s) {
        char text[256];
        std::snprintf(text, sizeof text,
                      "<maxsim.StepSummary %lld steps: %lld failed, %lld not converged, %lld relaxed, %lld substepped; "
                      "iterations mean %.3g, max %d; last %s>",
                      s.steps, s.failed_steps, s.not_converged_steps, s.relaxed_steps, s.substepped_steps,
                      s.iterations_mean(), s.iterations_max, step_status_name(s.last.status));
        return std::string(text);
      });

  py::class_<PyData>(py::reinterpret_borrow<py::object>(m.attr("Data")))
      .def_property(
          "controller", [](const PyData& d) { return d.controller; },
          [](PyData& d, py::object f) { d.set_controller(std::move(f)); },
          "fn(model, data) called at the start of every step (reads the state, writes the inputs); None: none");

  m.def(
      "step",
      [](const Model& model, PyData& d, int n) {
        checked(model, d);  // (n < 0: step's std::invalid_argument, a ValueError)
        if (const std::string refused = integrator_support(model, d.data); !refused.empty())
          throw std::invalid_argument("step: " + refused + " (Data(model, contacts=False) steps without contacts)");
        py::gil_scoped_release release;
        return step(model, d.data, static_cast<long long>(n));
      },
      py::arg("model"), py::arg("data"), py::arg("n") = 1,
      "Advances data by n steps of model.opt.timestep (the GIL released). Returns a StepSummary: every "
      "step's outcome counted (failed_steps, not_converged_steps, relaxed_steps, iterations_max, ...), and "
      "the last step's status/iterations/residual/relaxed/substeps as before; stops early at a Failed "
      "step (whose state is unchanged). Raises ValueError when model.opt.integrator cannot step this "
      "Data (integrator_support).");
  m.def(
      "integrator_support", [](const Model& model, const PyData& d) { return integrator_support(model, checked(model, d).data); },
      py::arg("model"), py::arg("data"),
      "'' when model.opt.integrator can step this Data, else what it does not handle (the energy-momentum "
      "integrator: contacts, joint limits, joint friction)");
}

}  // namespace maxsim::python
