// Line plots as SVG or PNG files, and the trajectory CSV reader they share with `maxsim view`.
//
// The library (target `maxsim_plot`, no dependency but zlib) is what `maxsim plot` runs and what
// other programs call to write image files:
//
//     #include "io/plot.hpp"
//     maxsim::io::Plot p;
//     p.title = "energy";  p.x_label = "t [s]";  p.y_label = "J";
//     p.series.push_back({"total", t, e_total});        // label, x values, y values
//     p.series.push_back({"kinetic", t, e_kin});
//     maxsim::io::write_plot(p, "energy.svg");             // or "energy.png"
//
// SVG is text written here; PNG is rasterized here too (anti-aliased lines, a built-in 5x7 bitmap
// font drawn at twice its size) and compressed with zlib, so no external program is needed.
// Non-finite y values are gaps in a line. Errors throw io::Error with a
// message naming the file, the column or the problem.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.hpp"

namespace maxsim::io {

// ---- plots ------------------------------------------------------------------------------------
// One line of a plot.
struct PlotSeries {
  std::string label;  // its legend entry
  std::vector<double> x, y;  // same length; a non-finite x or y leaves a gap
  std::string color;         // "#rrggbb"; empty: the next colour of the palette
};

// A line plot: its lines, labels, size and axis ranges.
struct Plot {
  std::string title, x_label, y_label;  // the title and axis labels (empty: none)
  std::vector<PlotSeries> series;       // the lines, drawn in order
  int width = 800, height = 480;  // pixels (SVG user units)
  // Axis ranges; unset: x spans the data exactly, y the data widened to whole ticks.
  std::optional<double> x_min, x_max, y_min, y_max;
};

// Where everything goes, computed from the data (exposed for tests and callers that annotate).
struct PlotLayout {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // axis ranges
  std::vector<double> x_ticks, y_ticks;               // tick values inside the ranges
  double x_step = 0.1, y_step = 0.1;                  // tick spacing
  int left = 0, right = 0, top = 0, bottom = 0;       // plot area in pixels (y down)
  int legend_x = 0;                                   // left edge of the legend
};

// `char_width` is the width of one character of tick/legend text in pixels.
PlotLayout plot_layout(const Plot& plot, double char_width = 7.2);

std::string plot_svg(const Plot& plot);                  // a complete SVG document
std::vector<std::uint8_t> plot_png(const Plot& plot);    // a complete PNG file (RGB, 8 bit)
// Writes plot_svg or plot_png by the extension of `path` (.svg or .png, any case).
void write_plot(const Plot& plot, const std::string& path);
// The file type write_plot chooses for `path`.
enum class PlotFormat { Svg, Png, Unknown };
PlotFormat plot_format(const std::string& path);

// Tick labels as plot_svg/plot_png print them for a tick spacing `step` ("0.25", "1e-06").
std::string tick_label(double value, double step);

// ---- CSV tables ------------------------------------------------------------------------------------
// A numeric CSV with a header line (the trajectory files of `maxsim simulate`). Empty fields read
// as NaN (a gap); anything else must be a finite number.
struct CsvTable {
  std::string path;                  // the file read
  std::vector<std::string> columns;  // the header's names, in order
  std::vector<std::vector<double>> values;  // values[column][row]

  std::size_t rows() const { return values.empty() ? 0 : values[0].size(); }  // data rows
  int column(std::string_view name) const;  // -1 when absent
  // The column's values; throws Error naming the column and the file (with similar names).
  const std::vector<double>& get(std::string_view name) const;
};

// Throws Error for a missing or unreadable file, an empty file or one without data rows, a
// row with the wrong number of fields, or a field that is not a finite number (file:line, column).
CsvTable read_csv_table(const std::string& path);

}  // namespace maxsim::io
