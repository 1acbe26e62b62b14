// Batched rollouts on C++ threads (controllers/rollout.hpp's RolloutPool, OpenMP), and the state
// vector they start from and record.
//
// The state is the engine's full maximal state, one flat vector per Data:
//     [time, x (nbody × 3), q (nbody × 4, w x y z), v (nbody × 3), w (nbody × 3),
//      joint_angle (njoint × 3)]
// (time first, then field by field, as MuJoCo orders its state). joint_angle, the unwrapped
// angles of the joints' free rotation rows, is state too: a step only adds the wrapped change of
// each angle to it, and springs and limits act on it, so a pose without it is ambiguous by
// multiples of 2π (and a fresh Data's zeros would put an A1 knee 1.8 rad away from its limits).
// The state determines a step's result together with the inputs, the warm start (joint
// impulses, contact impulses) and the contact search's history: a rollout starts a
// fresh Data (as RolloutPool does), so rollout i is a pure function of its initial state and
// controls, bitwise the same for any number of threads and equal to the serial Python loop
//     d = Data(model, contacts); set_maximal_state(model, d, s0)
//     for u in controls: d.ctrl = u; step(model, d); record get_maximal_state(model, d)
// Controls are Data::ctrl per step (MuJoCo's rollout), or with control="joint_force" the
// joint_force rows (njoint × 6) — for models without actuators.
#include <cmath>
#include <limits>
#include <vector>

#include "bindings.hpp"
#include "controllers/rollout.hpp"
#include "sim/step.hpp"

namespace maxsim::python {

namespace {

std::size_t maximal_state_size(const Model& model) { return 1 + 13 * model.bodies.size() + 3 * model.joints.size(); }

void read_state(const Data& d, double* s) {
  const std::size_t nb = d.x.size();
  *s++ = d.time;
  for (std::size_t b = 0; b < nb; ++b) s = std::copy(d.x[b].data(), d.x[b].data() + 3, s);
  for (std::size_t b = 0; b < nb; ++b) s = std::copy(d.q[b].data(), d.q[b].data() + 4, s);
  for (std::size_t b = 0; b < nb; ++b) s = std::copy(d.v[b].data(), d.v[b].data() + 3, s);
  for (std::size_t b = 0; b < nb; ++b) s = std::copy(d.w[b].data(), d.w[b].data() + 3, s);
  for (const Vec3& a : d.joint_angle) s = std::copy(a.data(), a.data() + 3, s);
}

void write_state(Data& d, const double* s) {
  const std::size_t nb = d.x.size();
  d.time = *s++;
  for (std::size_t b = 0; b < nb; ++b, s += 3) d.x[b] = Vec3(s[0], s[1], s[2]);
  for (std::size_t b = 0; b < nb; ++b, s += 4) d.q[b] = Vec4(s[0], s[1], s[2], s[3]);
  for (std::size_t b = 0; b < nb; ++b, s += 3) d.v[b] = Vec3(s[0], s[1], s[2]);
  for (std::size_t b = 0; b < nb; ++b, s += 3) d.w[b] = Vec3(s[0], s[1], s[2]);
  for (Vec3& a : d.joint_angle) a = Vec3(s[0], s[1], s[2]), s += 3;
}

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// (rows, width) from an array of shape (width,) [one row, broadcast] or (rows, width).
Array as_rows(const py::object& src, py::ssize_t width, const char* what) {
  Array a = Array::ensure(src);
  if (!a) throw std::invalid_argument(std::string(what) + ": expected an array of numbers");
  if (a.ndim() == 1) a = a.reshape({py::ssize_t(1), a.shape(0)});
  if (a.ndim() != 2 || a.shape(1) != width)
    throw std::invalid_argument(std::string(what) + ": expected shape (n, " + std::to_string(width) + ") or (" +
                                std::to_string(width) + ",)");
  return a;
}

py::object rollout(std::shared_ptr<Model> model_ptr, const py::object& initial_states, const py::object& controls,
                   int threads, const py::object& contacts, const std::string& control, bool return_info) {
  const Model& model = *model_ptr;
  const py::ssize_t ns = static_cast<py::ssize_t>(maximal_state_size(model));
  if (control != "ctrl" && control != "joint_force")
    throw std::invalid_argument("rollout: control must be 'ctrl' or 'joint_force', not '" + control + "'");
  const bool use_ctrl = control == "ctrl";
  const py::ssize_t nc = use_ctrl ? static_cast<py::ssize_t>(model.actuators.size())
                                  : 6 * static_cast<py::ssize_t>(model.joints.size());
  const char* what = use_ctrl ? "): ctrl per step, one per actuator" : "): joint_force per step, njoint × 6";
  const Array init = as_rows(initial_states, ns, "initial_states");
  // controls: (batch, steps, nc), or (steps, nc) for the same controls in every rollout
  Array u = Array::ensure(controls);
  if (!u) throw std::invalid_argument("controls: expected an array of numbers");
  if (u.ndim() == 2) u = u.reshape({py::ssize_t(1), u.shape(0), u.shape(1)});
  if (u.ndim() != 3 || u.shape(2) != nc)
    throw std::invalid_argument("controls: expected shape (batch, steps, " + std::to_string(nc) + ") or (steps, " +
                                std::to_string(nc) + what);
  const py::ssize_t batch = std::max(init.shape(0), u.shape(0));
  if ((init.shape(0) != 1 && init.shape(0) != batch) || (u.shape(0) != 1 && u.shape(0) != batch))
    throw std::invalid_argument("rollout: initial_states and controls have different batch sizes");
  const py::ssize_t steps = u.shape(1);
  const bool with_contacts = contacts_from(contacts);
  if (model.opt.integrator != Integrator::Variational) {  // (a Data as the rollouts make them, to ask)
    Data probe(model);
    if (with_contacts) enable_contacts(model, probe);
    if (const std::string refused = integrator_support(model, probe); !refused.empty())
      throw std::invalid_argument("rollout: " + refused + " (contacts=False steps without contacts)");
  }

  py::array_t<double> states({batch, steps, ns});
  std::vector<StepSummary> summaries(static_cast<std::size_t>(batch));
  double* out = states.mutable_data();
  const double* init_p = init.data();
  const double* u_p = u.data();
  const bool init_shared = init.shape(0) == 1, u_shared = u.shape(0) == 1;
  {
    // The inputs are held by `init` and `u` (converted arrays of our own when the caller's were
    // not C-contiguous doubles) and the outputs are new: no Python object is touched below.
    py::gil_scoped_release release;
    RolloutPool(threads).for_each(static_cast<int>(batch), [&](int i) {
      Data d(model);
      if (with_contacts) enable_contacts(model, d);
      write_state(d, init_p + (init_shared ? 0 : i) * ns);
      const double* ui = u_p + (u_shared ? 0 : i) * steps * nc;
      double* si = out + static_cast<py::ssize_t>(i) * steps * ns;
      StepSummary& summary = summaries[static_cast<std::size_t>(i)];
      for (py::ssize_t t = 0; t < steps; ++t) {
        if (use_ctrl)
          std::copy(ui + t * nc, ui + (t + 1) * nc, d.ctrl.begin());
        else
          for (std::size_t j = 0; j < d.joint_force.size(); ++j)
            d.joint_force[j] = Eigen::Map<const Vec6>(ui + t * nc + 6 * static_cast<py::ssize_t>(j));
        const double start = d.time;
        summary.add(step(model, d), start);
        if (summary.last.status == StepStatus::Failed) {  // no state after a failed step: NaN rows
          std::fill(si + t * ns, si + steps * ns, std::numeric_limits<double>::quiet_NaN());
          break;
        }
        read_state(d, si + t * ns);
      }
    });
  }
  if (!return_info) return states;
  // per rollout, from its StepSummary
  auto column = [&](auto get) {
    using T = decltype(get(summaries[0]));
    py::array_t<T> a(batch);
    for (py::ssize_t i = 0; i < batch; ++i) a.mutable_data()[i] = get(summaries[static_cast<std::size_t>(i)]);
    return a;
  };
  py::dict info;
  info["not_converged"] = column([](const StepSummary& s) { return static_cast<int>(s.not_converged_steps); });
  info["failed"] = column([](const StepSummary& s) { return static_cast<int>(s.failed_steps); });
  info["relaxed"] = column([](const StepSummary& s) { return static_cast<int>(s.relaxed_steps); });
  info["substepped"] = column([](const StepSummary& s) { return static_cast<int>(s.substepped_steps); });
  info["iterations_mean"] = column([](const StepSummary& s) { return s.iterations_mean(); });
  info["iterations_max"] = column([](const StepSummary& s) { return s.iterations_max; });
  info["residual_max"] = column([](const StepSummary& s) { return s.residual_max; });
  info["first_not_ok_time"] = column([](const StepSummary& s) { return s.first_not_ok_time; });
  return py::make_tuple(states, info);
}

}  // namespace

void bind_rollout(py::module_& m) {
  m.def("maximal_state_size", [](const Model& model) { return maximal_state_size(model); }, py::arg("model"),
        "length of the state vector: 1 + 13 nbody + 3 njoint (time, x, q, v, w, joint_angle)");
  m.def(
      "get_maximal_state",
      [](const Model& model, const PyData& d) {
        py::array_t<double> s(static_cast<py::ssize_t>(maximal_state_size(model)));
        read_state(checked(model, d).data, s.mutable_data());
        return s;
      },
      py::arg("model"), py::arg("data"), "[time, x, q, v, w, joint_angle] (a copy)");
  m.def(
      "set_maximal_state",
      [](const Model& model, PyData& d, const py::object& state) {
        const Array s = as_rows(state, static_cast<py::ssize_t>(maximal_state_size(model)), "state");
        if (s.shape(0) != 1) throw std::invalid_argument("state: expected one state vector");
        write_state(checked(model, d).data, s.data());
      },
      py::arg("model"), py::arg("data"), py::arg("state"), "sets time, x, q, v, w, joint_angle from a state vector");
  m.def("rollout", &rollout, py::arg("model"), py::arg("initial_states"), py::arg("controls"), py::arg("threads") = 0,
        py::arg("contacts") = true, py::arg("control") = "ctrl", py::arg("return_info") = false,
        "Runs batch rollouts on C++ threads (the GIL released), each in a fresh Data(model, contacts):\n"
        "initial_states (batch, n) or (n,) with n = maximal_state_size(model); controls (batch, steps,\n"
        "nu) or (steps, nu): ctrl per step (control='joint_force': 6 njoint values per step, the\n"
        "joint_force rows). Returns the states after every step,\n"
        "(batch, steps, n); rows after a failed step are NaN. threads <= 0: OpenMP's default.\n"
        "return_info=True: (states, info), info a dict of arrays with one entry per rollout, from its\n"
        "steps' StepSummary: 'not_converged', 'failed' (0/1), 'relaxed', 'substepped' (step counts),\n"
        "'iterations_mean', 'iterations_max', 'residual_max', 'first_not_ok_time' (NaN: none).");
}

}  // namespace maxsim::python
