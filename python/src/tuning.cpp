// Searches from Python: the programs' objectives as C++ callables that evaluate a batch
// on C++ threads without the GIL (for python3-cmaes, mpi4py or any optimizer), and the C++
// searches themselves (sample_search, NLopt) over such an objective or a Python callable.
#include <limits>

#include "bindings.hpp"
#include "controllers/search.hpp"
#include "robots/a1/a1_gait.hpp"
#include "robots/exoskeleton/exoskeleton.hpp"
#include "tuning/optimize.hpp"

namespace maxsim::python {

namespace {

// An objective with its parameters' names, start, scales and bounds; `keep` owns what `fn` refers
// to (the robots).
struct PyObjective {
  std::string name;
  std::vector<SearchParameter> parameters;
  Objective fn;
  std::shared_ptr<void> keep;

  std::vector<double> column(double SearchParameter::*field) const {
    std::vector<double> out;
    for (const SearchParameter& p : parameters) out.push_back(p.*field);
    return out;
  }
  std::vector<double> point(const py::object& p) const {
    const std::vector<double> x = py::cast<std::vector<double>>(p);
    if (x.size() != parameters.size())
      throw std::invalid_argument(name + ": " + std::to_string(parameters.size()) + " parameters expected, got " +
                                  std::to_string(x.size()));
    return x;
  }
};

PyObjective a1_gait_objective(const std::string& source_dir, int conditions, double duration) {
  if (conditions < 1 || conditions > 3) throw std::invalid_argument("conditions: 1, 2 or 3");
  if (!(duration > 0)) throw std::invalid_argument("duration: a positive number of seconds");
  auto robot = std::make_shared<a1::Robot>(a1::load_robot(source_dir));
  const a1::GaitObjective objective{robot.get(), a1::search_start(), duration, conditions};
  return PyObjective{"A1 gait", objective.parameters(), objective, robot};
}

PyObjective exo_gains_objective(const std::string& source_dir) {
  const exo::Routine routine;
  auto both = std::make_shared<std::pair<exo::Exoskeleton, exo::Exoskeleton>>(
      exo::load_exoskeleton(source_dir, exo::healthy_patient(), routine.dt),
      exo::load_exoskeleton(source_dir, exo::spastic_patient(), routine.dt));
  return PyObjective{"exoskeleton gains", exo::searched_gains(), exo::GainsObjective{&both->first, &both->second, routine},
                     both};
}

// A Python callable as an Objective: each call takes the GIL (the search's threads serialize on
// it; pass threads=1 for Python objectives).
Objective python_objective(const py::object& f) {
  auto held = std::make_shared<py::object>(f);
  return [held](const std::vector<double>& p) {
    py::gil_scoped_acquire gil;
    try {
      return py::cast<double>((*held)(py::array_t<double>(static_cast<py::ssize_t>(p.size()), p.data())));
    } catch (py::error_already_set& e) {
      // the search reports the message; the Python error object must not outlive the GIL
      throw std::runtime_error(e.what());
    }
  };
}

}  // namespace

void bind_tuning(py::module_& m) {
  py::class_<PyObjective>(m, "SearchObjective",
                          "An objective (maximized) of the example programs, evaluated in C++: a1_learn's A1 gait\n"
                          "distance and exo_tune's exoskeleton gains. __call__ evaluates one point, evaluate() a\n"
                          "batch on C++ threads; both release the GIL.")
      .def_readonly("name", &PyObjective::name)
      .def_property_readonly("names",
                             [](const PyObjective& o) {
                               std::vector<std::string> n;
                               for (const SearchParameter& p : o.parameters) n.push_back(p.name);
                               return n;
                             })
      .def_property_readonly("initial", [](const PyObjective& o) { return py::array_t<double>(py::cast(o.column(&SearchParameter::value))); },
                             "the programs' start")
      .def_property_readonly("scale", [](const PyObjective& o) { return py::array_t<double>(py::cast(o.column(&SearchParameter::scale))); },
                             "each parameter's natural step (the sampling search's standard deviation at radius 1)")
      .def_property_readonly("lower", [](const PyObjective& o) { return py::array_t<double>(py::cast(o.column(&SearchParameter::lower))); })
      .def_property_readonly("upper", [](const PyObjective& o) { return py::array_t<double>(py::cast(o.column(&SearchParameter::upper))); })
      .def("__call__",
           [](const PyObjective& o, const py::object& p) {
             const std::vector<double> x = o.point(p);
             py::gil_scoped_release release;
             return o.fn(x);
           },
           py::arg("parameters"), "the value of one parameter vector (NaN or -inf for a failed rollout)")
      .def("evaluate",
           [](const PyObjective& o, const py::object& points, int threads) {
             std::vector<std::vector<double>> x;
             for (const py::handle& row : py::iter(points)) x.push_back(o.point(py::reinterpret_borrow<py::object>(row)));
             std::vector<double> values;
             {
               py::gil_scoped_release release;
               ThreadEvaluator evaluator(o.fn, threads);
               values = evaluator.evaluate(x);  // EvaluationError -> RuntimeError with the message
             }
             return py::array_t<double>(py::cast(values));
           },
           py::arg("points"), py::arg("threads") = 0,
           "values of a batch (k, n) on C++ threads (threads <= 0: all cores), value i of point i; the\n"
           "same bits for any number of threads");
  m.def("a1_gait_objective", &a1_gait_objective, py::arg("source_dir"), py::arg("conditions") = 3,
        py::arg("duration") = 10.0,
        "a1_learn's objective: the worst distance (m, -10 for a fall) over `conditions` of the learning\n"
        "conditions of `duration`-second walks; source_dir holds robots/ (maxsim.tuning passes it)");
  m.def("exo_gains_objective", &exo_gains_objective, py::arg("source_dir"),
        "exo_tune's objective: -(mean RMS tracking error) - 10 * (elbow torque above 4.9 N m), both patients");

  m.def(
      "optimize",
      [](const std::string& optimizer, const py::object& objective, const py::object& parameters, int episodes,
         int samples, double radius, double min_radius, double max_radius, std::uint64_t seed, int threads,
         const std::string& log, const std::string& params_file) {
        SearchOptions o;
        o.episodes = episodes;
        o.samples = samples;
        o.radius = radius;
        o.min_radius = min_radius;
        o.max_radius = max_radius;
        o.seed = seed;
        o.threads = threads;
        o.log_csv = log;
        o.best_file = params_file;
        o.progress = ProgressBar::Never;
        o.label = optimizer;
        std::vector<SearchParameter> params;
        Objective fn;
        bool python = false;
        if (py::isinstance<PyObjective>(objective)) {
          const PyObjective& po = objective.cast<const PyObjective&>();
          params = po.parameters;
          fn = po.fn;
        } else {
          fn = python_objective(objective);
          python = true;
        }
        if (!parameters.is_none()) {
          params.clear();
          for (const py::handle& p : py::iter(parameters)) {
            const py::tuple t = py::reinterpret_borrow<py::tuple>(p);
            if (t.size() != 5) throw std::invalid_argument("parameters: (name, initial, scale, lower, upper) tuples");
            params.push_back({t[0].cast<std::string>(), t[1].cast<double>(), t[2].cast<double>(), t[3].cast<double>(),
                              t[4].cast<double>()});
          }
        }
        if (params.empty()) throw std::invalid_argument("parameters: needed for a Python objective");
        ThreadEvaluator evaluator(fn, python ? 1 : threads);
        SearchResult r;
        {
          py::gil_scoped_release release;
          r = optimize(optimizer, params, evaluator, o);
        }
        py::dict out;
        out["best"] = py::array_t<double>(py::cast(r.best));
        out["best_value"] = r.best_value;
        out["history"] = py::array_t<double>(py::cast(r.history));
        out["evaluations"] = r.evaluations;
        out["improvements"] = r.improvements;
        out["non_finite"] = r.non_finite;
        out["names"] = r.names;
        out["error"] = r.error;
        return out;
      },
      py::arg("optimizer"), py::arg("objective"), py::arg("parameters") = py::none(), py::arg("episodes") = 100,
      py::arg("samples") = 8, py::arg("radius") = 0.1, py::arg("min_radius") = 1e-3, py::arg("max_radius") = 1.0,
      py::arg("seed") = 1, py::arg("threads") = 0, py::arg("log") = "", py::arg("params_file") = "",
      "Runs a C++ search (controllers/search.hpp, tuning/optimize.hpp): optimizer 'sample' or\n"
      "'nlopt:ALGORITHM'; objective a SearchObjective (its parameters unless given) or a Python callable\n"
      "f(p) -> float with parameters [(name, initial, scale, lower, upper), ...] (evaluated on one\n"
      "thread). Writes the CSV log and best file when named; returns a dict (best, best_value, history,\n"
      "evaluations, improvements, non_finite, names, error: why it stopped early, '' if it did not).");
  m.def("optimizer_names", &optimizer_names, "the optimizers of this build ('sample', 'nlopt:...')");
}

}  // namespace maxsim::python
