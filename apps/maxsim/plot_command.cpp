// `maxsim plot`: time plots of a trajectory CSV (io/plot.hpp draws them).
#include "apps/maxsim/plot_command.hpp"

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "io/plot.hpp"

namespace maxsim {

using io::CsvTable;
using io::Plot;

namespace {

bool glob_match(std::string_view pattern, std::string_view s) {
  // '*' matches any run of characters
  size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = i;
    } else if (p < pattern.size() && pattern[p] == s[i]) {
      ++p, ++i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string_view::npos ? std::string() : std::string(s.substr(a, b - a + 1));
}

const char* plot_usage() {
  return "usage: maxsim plot TRAJ.csv -o OUT.svg|OUT.png [--columns A,B,..] [--x COL] [--title T]\n"
         "                  [--ylabel L] [--width W] [--height H]\n"
         "  --columns   the columns to draw against --x (default: energy.kinetic, energy.potential,\n"
         "              energy.total); '*' matches any characters ('*.q0': every joint's first coordinate)\n"
         "  --x COL     the horizontal axis (default t)\n"
         "  -o FILE     .svg (vector) or .png (raster, 8-bit RGB)\n";
}

}  // namespace

int plot_main(int argc, const char* const* argv) {
  auto fail = [](const std::string& msg) {
    std::fprintf(stderr, "maxsim plot: %s\n", msg.c_str());
    return 2;
  };
  std::string csv, out, columns, xcol = "t", title, ylabel;
  int width = 800, height = 480;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "-h" || arg == "--help") {
      std::fputs(plot_usage(), stdout);
      return 0;
    }
    const bool is_option = arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (!csv.empty()) return fail("unexpected argument '" + arg + "' (the CSV file is '" + csv + "')");
      csv = arg;
      continue;
    }
    if (const size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else {
      if (arg != "-o" && arg != "--output" && arg != "--columns" && arg != "--x" && arg != "--title" &&
          arg != "--ylabel" && arg != "--width" && arg != "--height")
        return fail("unknown option '" + arg + "'\n" + plot_usage());
      if (i + 1 >= argc) return fail("option " + arg + " needs a value");
      value = argv[++i];
    }
    if (arg == "-o" || arg == "--output") out = value;
    else if (arg == "--columns") columns = value;
    else if (arg == "--x") xcol = value;
    else if (arg == "--title") title = value;
    else if (arg == "--ylabel") ylabel = value;
    else if (arg == "--width" || arg == "--height") {
      int v = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || ptr != value.data() + value.size() || v < 200 || v > 10000)
        return fail(arg + ": '" + value + "' is not a whole number from 200 to 10000");
      (arg == "--width" ? width : height) = v;
    } else {
      return fail("unknown option '" + arg + "'\n" + plot_usage());
    }
  }
  if (csv.empty()) return fail(std::string("missing TRAJ.csv\n") + plot_usage());
  if (out.empty()) return fail("missing -o OUT.svg or OUT.png");
  if (io::plot_format(out) == io::PlotFormat::Unknown)
    return fail("-o " + out + ": the file name must end in .svg or .png");
  try {
    const CsvTable table = io::read_csv_table(csv);
    const std::vector<double>& x = table.get(xcol);
    std::vector<std::string> names;
    if (columns.empty()) {
      for (const char* c : {"energy.kinetic", "energy.potential", "energy.total"})
        if (table.column(c) >= 0) names.push_back(c);
      if (names.empty()) return fail(csv + ": no energy columns to plot by default; choose some with --columns");
    } else {
      size_t start = 0;
      for (size_t k = 0; k <= columns.size(); ++k) {
        if (k < columns.size() && columns[k] != ',') continue;
        const std::string item = trim(std::string_view(columns).substr(start, k - start));
        start = k + 1;
        if (item.empty()) return fail("--columns: empty column name in '" + columns + "'");
        if (item.find('*') == std::string::npos) {
          table.get(item);  // throws naming the column
          names.push_back(item);
          continue;
        }
        size_t matched = 0;
        for (const std::string& c : table.columns)
          if (glob_match(item, c) && c != xcol) names.push_back(c), ++matched;
        if (matched == 0) return fail(csv + ": no column matches '" + item + "'");
      }
    }
    Plot p;
    p.title = title;
    p.width = width, p.height = height;
    p.x_label = xcol == "t" ? "t [s]" : xcol;
    p.y_label = ylabel;
    for (const std::string& n : names) p.series.push_back({n, x, table.get(n), ""});
    io::write_plot(p, out);
  } catch (const io::Error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {  // out of memory, a file system error
    std::fprintf(stderr, "maxsim: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace maxsim
