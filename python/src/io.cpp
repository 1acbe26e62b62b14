// Output (io/): HTML replays, SVG/PNG plots, the trajectory CSV. Errors are maxsim.IoError.
#include "bindings.hpp"
#include "io/plot.hpp"
#include "io/replay.hpp"
#include "io/report.hpp"
#include "sim/geometry/ground.hpp"

namespace maxsim::python {

namespace {

// The trajectory writer and the world surfaces its rows measure penetration against
// (io::row_diagnostics), made at the first row from the Data's contact set-up: the ground
// half-space when its contact search has it.
struct PyCsvWriter {
  io::CsvWriter writer;
  std::optional<WorldSurfaces> world;
};

bool has_ground(const PyData& d) { return d.contact_options() && d.contact_options()->ground; }

// A Replay from frame arrays: times (frames,) and poses (frames, nbody, 7) as x y z qw qx qy qz.
io::Replay replay_from_arrays(const Model& model, const py::object& times, const py::object& poses) {
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  const Array t = Array::ensure(times), p = Array::ensure(poses);
  if (!t || !p || t.ndim() != 1) throw std::invalid_argument("replay: times must be a 1-D array of numbers");
  const py::ssize_t frames = t.shape(0), nb = static_cast<py::ssize_t>(model.bodies.size());
  if (p.ndim() != 3 || p.shape(0) != frames || p.shape(1) != nb || p.shape(2) != 7)
    throw std::invalid_argument("replay: poses must have shape (" + std::to_string(frames) + ", " + std::to_string(nb) +
                                ", 7): x y z qw qx qy qz per body and frame");
  io::Replay r;
  r.times.assign(t.data(), t.data() + frames);
  r.poses.reserve(static_cast<std::size_t>(p.size()));
  for (py::ssize_t i = 0; i < p.size(); ++i) r.poses.push_back(static_cast<float>(p.data()[i]));
  return r;
}

}  // namespace

void bind_io(py::module_& m) {
  py::class_<io::Replay>(m, "Replay", "The frames of one HTML replay (io/replay.hpp).")
      .def_readwrite("title", &io::Replay::title)
      .def_readwrite("model_file", &io::Replay::model_file)
      .def_property_readonly("frames", &io::Replay::frames)
      .def_property_readonly("times", [](const io::Replay& r) { return py::array_t<double>(r.times.size(), r.times.data()); })
      .def_property_readonly("poses", [](const io::Replay& r) {
        const py::ssize_t n = static_cast<py::ssize_t>(r.times.size());
        return py::array_t<float>({n, n ? static_cast<py::ssize_t>(r.poses.size()) / (7 * n) : 0, py::ssize_t(7)},
                                  r.poses.data());
      });

  py::class_<io::ReplayRecorder>(m, "ReplayRecorder",
                                 "Records frames (poses, contacts, energy, violation) while a program simulates.")
      .def(py::init<const Model&>(), py::arg("model"))
      .def(
          "record", [](io::ReplayRecorder& r, const Model& model, const PyData& d) { r.record(model, checked(model, d).data); },
          py::arg("model"), py::arg("data"), "adds a frame of the current state")
      .def_property_readonly(
          "replay", [](io::ReplayRecorder& r) -> io::Replay& { return r.replay(); }, py::return_value_policy::reference_internal);

  m.def(
      "write_replay_html",
      [](const Model& model, const io::Replay& replay, const std::string& path) { io::write_replay_html(model, replay, path); },
      py::arg("model"), py::arg("replay"), py::arg("path"), "writes a self-contained HTML replay (three.js viewer)");
  m.def(
      "write_replay_html",
      [](const Model& model, const io::ReplayRecorder& recorder, const std::string& path) {
        io::write_replay_html(model, recorder.replay(), path);
      },
      py::arg("model"), py::arg("recorder"), py::arg("path"));
  m.def(
      "replay_from_arrays",
      [](const Model& model, const py::object& times, const py::object& poses, const std::string& title) {
        io::Replay r = replay_from_arrays(model, times, poses);
        r.title = title;
        return r;
      },
      py::arg("model"), py::arg("times"), py::arg("poses"), py::arg("title") = "",
      "a Replay from times (frames,) and poses (frames, nbody, 7: x y z qw qx qy qz)");
  m.def("viewer_js_path", &io::viewer_js_path, "the viewer bundle a replay embeds (MAXSIM_VIEWER_JS overrides)");

  py::class_<io::PlotSeries>(m, "PlotSeries")
      .def(py::init([](std::string label, std::vector<double> x, std::vector<double> y, std::string color) {
             if (x.size() != y.size()) throw std::invalid_argument("PlotSeries: x and y differ in length");
             return io::PlotSeries{std::move(label), std::move(x), std::move(y), std::move(color)};
           }),
           py::arg("label"), py::arg("x"), py::arg("y"), py::arg("color") = "")
      .def_readwrite("label", &io::PlotSeries::label)
      .def_readwrite("x", &io::PlotSeries::x)
      .def_readwrite("y", &io::PlotSeries::y)
      .def_readwrite("color", &io::PlotSeries::color);

  py::class_<io::Plot>(m, "Plot", "A line plot written as SVG or PNG (io/plot.hpp).")
      .def(py::init<>())
      .def_readwrite("title", &io::Plot::title)
      .def_readwrite("x_label", &io::Plot::x_label)
      .def_readwrite("y_label", &io::Plot::y_label)
      .def_readwrite("series", &io::Plot::series)
      .def_readwrite("width", &io::Plot::width)
      .def_readwrite("height", &io::Plot::height)
      .def_readwrite("x_min", &io::Plot::x_min)
      .def_readwrite("x_max", &io::Plot::x_max)
      .def_readwrite("y_min", &io::Plot::y_min)
      .def_readwrite("y_max", &io::Plot::y_max);
  m.def("write_plot", &io::write_plot, py::arg("plot"), py::arg("path"), "SVG or PNG by the extension of path");
  m.def("plot_svg", &io::plot_svg, py::arg("plot"));

  // ---- the trajectory CSV of `maxsim simulate` ----
  m.def("csv_columns", &io::csv_columns, py::arg("model"));
  py::class_<PyCsvWriter>(m, "CsvWriter", "The trajectory CSV of `maxsim simulate` (io/report.hpp).")
      .def(py::init([](const std::string& path, const Model& model) {
             auto w = std::make_unique<PyCsvWriter>();
             w->writer.open(path, model);
             return w;
           }),
           py::arg("path"), py::arg("model"))
      .def(
          "write_row",
          [](PyCsvWriter& w, const Model& model, const PyData& d, bool first) {
            const Data& data = checked(model, d).data;
            if (!w.world) w.world = world_surfaces(model, has_ground(d));
            return w.writer.write_row(model, data, io::row_diagnostics(model, data, *w.world, first));
          },
          py::arg("model"), py::arg("data"), py::arg("first") = false,
          "a row of the current state (first: the initial state, before any step); False when the "
          "file's size limit kept it out")
      .def("close", [](PyCsvWriter& w) { w.writer.close(); })
      .def("__enter__", [](PyCsvWriter& w) -> PyCsvWriter& { return w; }, py::return_value_policy::reference)
      .def("__exit__", [](PyCsvWriter& w, py::args) { w.writer.close(); });
  m.def(
      "max_world_penetration",
      [](const Model& model, const PyData& d) {
        return max_world_penetration(model, checked(model, d).data, world_surfaces(model, has_ground(d)));
      },
      py::arg("model"), py::arg("data"),
      "deepest penetration of a body into the world's surfaces (its planes and world geoms, the "
      "ground when the Data's contacts have it), from the geometry of the current state [m]");
  m.def(
      "read_csv",
      [](const std::string& path) {
        const io::CsvTable t = io::read_csv_table(path);
        py::dict out;  // column name -> values, in the file's order (dicts keep insertion order)
        for (std::size_t c = 0; c < t.columns.size(); ++c)
          out[py::str(t.columns[c])] = py::array_t<double>(t.values[c].size(), t.values[c].data());
        return out;
      },
      py::arg("path"), "a numeric CSV with a header as {column: array}");
}

}  // namespace maxsim::python
