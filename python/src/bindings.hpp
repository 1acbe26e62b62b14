// Shared pieces of the Python module `_maxsim` (one source file per concept, each with a bind_*
// function that module.cpp calls): the Python-side Data, the numpy views of its state, the
// contact set-up both Data and rollouts use.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/geometry/contact_search.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim::python {

namespace py = pybind11;

// Eigen's fixed vectors stored in std::vector are packed doubles (no padding, no header), which is
// what makes a (n, k) numpy view onto them possible.
static_assert(sizeof(Vec3) == 3 * sizeof(double));
static_assert(sizeof(Vec4) == 4 * sizeof(double));
static_assert(sizeof(Vec6) == 6 * sizeof(double));

// Python's Data: the engine's Data together with what it needs to stay valid and to be copied.
//  * `model`: the Model it was made for. step() takes both and trusts that they belong together,
//    so the Python step checks it, and the Data keeps its Model alive.
//  * its contact search is the engine Data's (Data::contact_search): a copy has its own, in the
//    same state, so a copy steps exactly like the original.
//  * `controller`: the Python callable installed as data.controller (None: none).
struct PyData {
  PyData(std::shared_ptr<Model> m, bool contacts);
  PyData(const PyData& other);  // a copy of the state and inputs; its own contact search
  PyData& operator=(const PyData&) = delete;

  void set_controller(py::object f);
  // Sets this Data's state, inputs and warm start to those of `snapshot` (a Data of the same
  // Model), in place: views stay valid; the controller and whether it has a contact search stay
  // this Data's own (with the snapshot's search, its state too: the run continues as the
  // snapshot's would).
  void restore(const PyData& snapshot);
  // The options its contact search reads, the Model's (none: no search).
  std::optional<ContactOptions> contact_options() const;

  std::shared_ptr<Model> model;
  Data data;
  // the Model's nonholonomic constraints when this Data was made: Model.add_nonholonomic may add
  // some later, and the engine may size a Data by them, so checked() refuses a Data that is older
  std::size_t nonholonomic = 0;
  py::object controller = py::none();
};

// Thrown through step() by a controller whose Python callable raised: the Python error is
// already set (PyErr_Restore) and becomes the exception of the `step` call.
struct PythonControllerError : std::exception {
  const char* what() const noexcept override { return "the Python controller raised an exception"; }
};

// step() and friends take a Model and a Data and trust that the Data was made for that Model
// (array sizes): the bindings check it (ValueError otherwise).
inline PyData& checked(const Model& model, PyData& d) {
  if (d.model.get() != &model) throw std::invalid_argument("this Data was made for another Model");
  if (d.nonholonomic != model.nonholonomic.size())
    throw std::invalid_argument("this Data was made before the Model's nonholonomic constraints changed (" +
                                std::to_string(d.nonholonomic) + " then, " + std::to_string(model.nonholonomic.size()) +
                                " now): make a new Data(model)");
  if (static_cast<int>(d.data.sensordata.size()) != model.nsensordata())
    throw std::invalid_argument("this Data was made before the Model's sensors changed (" +
                                std::to_string(d.data.sensordata.size()) + " values then, " +
                                std::to_string(model.nsensordata()) + " now): make a new Data(model)");
  return d;
}
inline const PyData& checked(const Model& model, const PyData& d) { return checked(model, const_cast<PyData&>(d)); }

// Python's `contacts` argument: True (the default: a contact search with the Model's options,
// Model.contact), False or None (no search).
bool contacts_from(const py::object& contacts);

// A writable numpy view of shape (n, k) onto n packed k-vectors, kept alive by `owner` (the
// Python object owning the memory: numpy holds a reference as the array's base).
template <class V>
py::array_t<double> rows_view(std::vector<V>& values, py::handle owner) {
  constexpr py::ssize_t k = sizeof(V) / sizeof(double);
  const py::ssize_t n = static_cast<py::ssize_t>(values.size());
  return py::array_t<double>({n, k}, {static_cast<py::ssize_t>(sizeof(V)), static_cast<py::ssize_t>(sizeof(double))},
                             values.empty() ? nullptr : values.data()->data(), owner);
}

// Copies an array-like of shape (n, k) into n packed k-vectors (assignment to a view property:
// `d.x = ...`); the vector keeps its size and memory, so existing views stay valid.
template <class V>
void assign_rows(std::vector<V>& values, const py::handle& src, const char* what) {
  constexpr py::ssize_t k = sizeof(V) / sizeof(double);
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(src);
  if (!a) throw std::invalid_argument(std::string(what) + ": expected an array of numbers");
  const py::ssize_t n = static_cast<py::ssize_t>(values.size());
  const bool flat_ok = a.ndim() == 1 && a.shape(0) == n * k;
  if (!(a.ndim() == 2 && a.shape(0) == n && a.shape(1) == k) && !flat_ok)
    throw std::invalid_argument(std::string(what) + ": expected shape (" + std::to_string(n) + ", " +
                                std::to_string(k) + ")");
  const double* p = a.data();
  for (py::ssize_t i = 0; i < n; ++i)
    for (py::ssize_t j = 0; j < k; ++j) values[i](j) = p[i * k + j];
}

// A writable 1-D numpy view onto a vector of doubles (Data::ctrl, actuator_force), kept alive by
// `owner`; and the copy into it on assignment.
inline py::array_t<double> values_view(std::vector<double>& values, py::handle owner) {
  return py::array_t<double>({static_cast<py::ssize_t>(values.size())}, {static_cast<py::ssize_t>(sizeof(double))},
                             values.data(), owner);
}
void assign_values(std::vector<double>& values, const py::handle& src, const char* what);

// dst = src for two Data of one Model without moving any of dst's arrays, so that the numpy views
// onto dst stay valid: vector copy-assignment between equal sizes copies into the existing
// storage. Checked (an internal error otherwise), since a moved array would leave dangling views.
void assign_keeping_views(Data& dst, const Data& src);

// A numpy array (a copy) of one small Eigen vector.
template <class V>
py::array_t<double> vector_copy(const V& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  for (py::ssize_t i = 0; i < a.shape(0); ++i) a.mutable_at(i) = v(i);
  return a;
}

// A Vec3 from any sequence of three numbers.
Vec3 vec3_from(const py::handle& src, const char* what);

// The bind functions, one per source file.
void bind_model(py::module_& m);      // model.cpp: Model, its parts, loading, LoadError
void bind_data(py::module_& m);       // data.cpp: Data, views, joint coordinates, copy
void bind_step(py::module_& m);       // step.cpp: step (GIL released), controller callback
void bind_contacts(py::module_& m);   // contacts.cpp: contacts, energies, momenta, violation
void bind_rollout(py::module_& m);    // rollout.cpp: batched rollouts on C++ threads
void bind_io(py::module_& m);         // io.cpp: replays, plots, trajectory CSV
void bind_tuning(py::module_& m);     // tuning.cpp: the programs' objectives, C++ searches

}  // namespace maxsim::python
