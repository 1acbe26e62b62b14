// The extension module `maxsim._maxsim` (the package maxsim/__init__.py re-exports it).
#include "bindings.hpp"
#include "io/error.hpp"
#include "models/load_error.hpp"
#include "sim/names.hpp"

namespace maxsim::python {

PYBIND11_MODULE(_maxsim, m) {
  m.doc() = "maxsim: maximal-coordinate rigid-body simulation (C++ engine bindings)";
  m.attr("__version__") = MAXSIM_VERSION;

  // Errors: the loader's LoadError (and its LimitError) as maxsim.LoadError, a ValueError — bad
  // input, as the command's exit status 2 — carrying the loader's "FILE:LINE: message";
  // io::Error as maxsim.IoError; a name the model lacks (UnknownName) as KeyError. std::invalid_argument already becomes ValueError in pybind11.
  static py::exception<LoadError> load_error(m, "LoadError", PyExc_ValueError);
  static py::exception<io::Error> io_error(m, "IoError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const LoadError& e) {
      load_error(e.what());
    } catch (const io::Error& e) {
      io_error(e.what());
    } catch (const UnknownName& e) {
      PyErr_SetString(PyExc_KeyError, e.what());  // a name the model lacks, with its close matches
    } catch (const PythonControllerError&) {
      // the controller's own Python exception is already set (see step.cpp); keep it
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "the Python controller raised an exception");
    }
  });

  bind_model(m);
  bind_data(m);
  bind_step(m);
  bind_contacts(m);
  bind_rollout(m);
  bind_io(m);
  bind_tuning(m);
}

}  // namespace maxsim::python
