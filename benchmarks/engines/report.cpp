// The comparison's outputs (report.hpp).
#include "benchmarks/engines/report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace maxsim::bench {
namespace {

std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

const Scene* find_scene(const std::vector<Scene>& scenes, const std::string& name) {
  for (const Scene& s : scenes)
    if (s.name == name) return &s;
  return nullptr;
}

std::string machine() {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  std::string cpu;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return std::string(host) + (cpu.empty() ? "" : ", " + cpu);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d", std::gmtime(&t));
  return b;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << text;
}

std::string cell(double x, const char* fmt = "%.3g") {
  if (!std::isfinite(x)) return "—";
  char b[32];
  std::snprintf(b, sizeof b, fmt, x);
  return b;
}

}  // namespace

void print_row(std::FILE* out, const Scene& scene, const RunResult& r) {
  if (!r.error.empty()) {
    std::fprintf(out, "%-14s %-7s  not run: %s\n", r.scene.c_str(), r.engine.c_str(), r.error.c_str());
    return;
  }
  std::fprintf(out, "%-14s %-7s %10.0f steps/s  pen %.2e m  joints %.2e  ", r.scene.c_str(), r.engine.c_str(),
               r.steps_per_s, r.max_penetration, r.loop_violation);
  if (r.energy_drift >= 0) std::fprintf(out, "drift %.2e J  ", r.energy_drift);
  if (!scene.measure_name.empty()) std::fprintf(out, "%s %.3e  ", scene.measure_name.c_str(), r.measure);
  std::fprintf(out, "failed %ld  it %.1f (max %d)\n", r.failed, r.iterations_mean, r.iterations_max);
  std::fflush(out);
}

void write_json(const std::string& path, const std::vector<Scene>& scenes, const std::vector<RunResult>& rows,
                const std::vector<std::string>& built, const std::vector<std::string>& missing) {
  std::ostringstream o;
  auto list = [&](const std::vector<std::string>& v) {
    o << "[";
    for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << quoted(v[i]);
    o << "]";
  };
  o << "{\"date\": " << quoted(today()) << ", \"machine\": " << quoted(machine()) << ",\n \"built\": ";
  list(built);
  o << ", \"missing\": ";
  list(missing);
  o << ",\n \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const RunResult& r = rows[i];
    const Scene* s = find_scene(scenes, r.scene);
    const bool ran = r.error.empty();
    auto num = [&](double x) { return ran ? number(x) : std::string("null"); };
    o << "  {\"scene\": " << quoted(r.scene) << ", \"engine\": " << quoted(r.engine)
      << ", \"steps_per_s\": " << num(r.steps_per_s) << ", \"max_penetration\": " << num(r.max_penetration)
      << ", \"loop_violation\": " << num(r.loop_violation)
      << ", \"energy_drift\": " << (r.energy_drift >= 0 ? num(r.energy_drift) : "null")
      << ", \"measure_name\": " << (s && !s->measure_name.empty() ? quoted(s->measure_name) : "null")
      << ", \"measure\": " << (s && s->measure ? num(r.measure) : "null") << ", \"failed\": " << (ran ? std::to_string(r.failed) : "null")
      << ", \"iterations_mean\": " << num(r.iterations_mean) << ", \"iterations_max\": " << (ran ? std::to_string(r.iterations_max) : "null")
      << ", \"steps\": " << r.steps << ", \"dt\": " << number(r.dt) << ", \"error\": " << (ran ? "null" : quoted(r.error)) << "}"
      << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  o << " ]}\n";
  write_file(path, o.str());
}

void write_markdown(const std::string& path, const std::vector<Scene>& scenes, const std::vector<RunResult>& rows,
                    const std::vector<std::string>& missing) {
  std::ostringstream o;
  o << "Measured " << today() << " on " << machine() << " (one core each, `compare_engines`).\n";
  if (!missing.empty()) {
    o << "Not built:";
    for (const std::string& m : missing) o << " " << m << ";";
    o << "\n";
  }
  o << "\n| scene | engine | steps/s | penetration [m] | joint error | energy drift [J] | scene measure | failed | iterations (max) |\n"
    << "|---|---|---:|---:|---:|---:|---|---:|---:|\n";
  for (const RunResult& r : rows) {
    const Scene* s = find_scene(scenes, r.scene);
    o << "| " << r.scene << " | " << r.engine << " | ";
    if (!r.error.empty()) {
      o << "not run: " << r.error << " | | | | | | |\n";
      continue;
    }
    o << cell(r.steps_per_s, "%.0f") << " | " << cell(r.max_penetration) << " | " << cell(r.loop_violation) << " | "
      << (r.energy_drift >= 0 ? cell(r.energy_drift) : "") << " | "
      << (s && s->measure ? s->measure_name + " " + cell(r.measure) : "") << " | " << r.failed << " | "
      << (r.iterations_mean > 0 ? cell(r.iterations_mean, "%.1f") + " (" + std::to_string(r.iterations_max) + ")" : "") << " |\n";
  }
  write_file(path, o.str());
}

namespace {

// A grouped bar chart on a logarithmic axis: values[scene][engine] (≤ 0 or non-finite: no bar;
// a zero is drawn at the axis floor and labelled "0").
void bar_chart(const std::string& path, const std::string& title, const std::vector<std::string>& groups,
               const std::vector<std::string>& engines, const std::vector<std::vector<double>>& values) {
  static const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"};
  double lo = 1e300, hi = -1e300;
  for (const auto& g : values)
    for (double v : g)
      if (std::isfinite(v) && v > 0) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (lo > hi) lo = hi = 1;
  const double e_lo = std::floor(std::log10(lo)) - (lo == hi ? 1 : 0), e_hi = std::ceil(std::log10(hi)) + (lo == hi ? 1 : 0);
  const int W = std::max(640, 120 + 90 * static_cast<int>(groups.size())), H = 420, left = 70, right = 20, top = 40,
            bottom = 110;
  const double pw = W - left - right, ph = H - top - bottom;
  auto y_of = [&](double v) { return top + ph * (1 - (std::log10(v) - e_lo) / std::max(1e-9, e_hi - e_lo)); };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << title << "</text>\n";
  for (int e = static_cast<int>(e_lo); e <= static_cast<int>(e_hi); ++e) {
    const double y = y_of(std::pow(10.0, e));
    o << "<line x1=\"" << left << "\" x2=\"" << W - right << "\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\"#ddd\"/>"
      << "<text x=\"" << left - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">1e" << e << "</text>\n";
  }
  const double gw = pw / std::max<size_t>(1, groups.size()), bw = gw * 0.8 / std::max<size_t>(1, engines.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const double gx = left + g * gw + gw * 0.1;
    for (size_t e = 0; e < engines.size(); ++e) {
      const double v = values[g][e];
      if (!std::isfinite(v) || v < 0) continue;
      const double y = v > 0 ? y_of(v) : top + ph - 2;
      o << "<rect x=\"" << gx + e * bw << "\" y=\"" << y << "\" width=\"" << bw * 0.9 << "\" height=\"" << top + ph - y
        << "\" fill=\"" << colors[e % 5] << "\"><title>" << engines[e] << ": " << number(v) << "</title></rect>\n";
      if (v == 0) o << "<text x=\"" << gx + e * bw + bw * 0.45 << "\" y=\"" << y - 3 << "\" text-anchor=\"middle\" font-size=\"9\">0</text>\n";
    }
    o << "<text transform=\"translate(" << gx + gw * 0.4 << "," << top + ph + 12 << ") rotate(35)\">" << groups[g] << "</text>\n";
  }
  for (size_t e = 0; e < engines.size(); ++e)
    o << "<rect x=\"" << left + 10 + 90 * e << "\" y=\"" << H - 22 << "\" width=\"12\" height=\"12\" fill=\"" << colors[e % 5]
      << "\"/><text x=\"" << left + 26 + 90 * e << "\" y=\"" << H - 12 << "\">" << engines[e] << "</text>\n";
  o << "</svg>\n";
  write_file(path, o.str());
}

}  // namespace

void write_charts(const std::string& prefix, const std::vector<Scene>& scenes, const std::vector<RunResult>& rows,
                  const std::vector<std::string>& engines) {
  std::vector<std::string> groups;
  for (const Scene& s : scenes) groups.push_back(s.name);
  auto table = [&](const std::function<double(const RunResult&, const Scene&)>& f) {
    std::vector<std::vector<double>> v(scenes.size(), std::vector<double>(engines.size(), std::nan("")));
    for (const RunResult& r : rows) {
      if (!r.error.empty()) continue;
      for (size_t g = 0; g < scenes.size(); ++g)
        for (size_t e = 0; e < engines.size(); ++e)
          if (scenes[g].name == r.scene && engines[e] == r.engine) v[g][e] = f(r, scenes[g]);
    }
    return v;
  };
  bar_chart(prefix + "_speed.svg", "steps per second (log scale)", groups, engines,
            table([](const RunResult& r, const Scene&) { return r.steps_per_s; }));
  bar_chart(prefix + "_penetration.svg", "deepest penetration [m] (log scale)", groups, engines,
            table([](const RunResult& r, const Scene&) { return r.max_penetration; }));
  std::vector<Scene> with_measure;
  for (const Scene& s : scenes)
    if (s.measure) with_measure.push_back(s);
  std::vector<std::string> labels;
  for (const Scene& s : with_measure) labels.push_back(s.name + ": " + s.measure_name);
  std::vector<std::vector<double>> v(with_measure.size(), std::vector<double>(engines.size(), std::nan("")));
  for (const RunResult& r : rows)
    for (size_t g = 0; g < with_measure.size(); ++g)
      for (size_t e = 0; e < engines.size(); ++e)
        if (r.error.empty() && with_measure[g].name == r.scene && engines[e] == r.engine) v[g][e] = std::abs(r.measure);
  bar_chart(prefix + "_measure.svg", "each scene's own measure (log scale)", labels, engines, v);
}

}  // namespace maxsim::bench
