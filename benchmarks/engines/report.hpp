// The comparison's outputs: a printed row per run, JSON rows, a Markdown table, SVG bar charts.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "benchmarks/engines/run.hpp"

namespace maxsim::bench {

// One line for the terminal.
void print_row(std::FILE* out, const Scene& scene, const RunResult& r);
// {"built": [...], "missing": [...], "rows": [{"scene", "engine", "steps_per_s", "max_penetration",
// "loop_violation", "energy_drift", "measure", "measure_name", "failed", "iterations_mean",
// "iterations_max", "steps", "dt", "error"}]}; a quantity not measured is null.
void write_json(const std::string& path, const std::vector<Scene>& scenes, const std::vector<RunResult>& rows,
                const std::vector<std::string>& built, const std::vector<std::string>& missing);
// One table row per scene and engine, dated, the machine named (hostname, CPU model).
void write_markdown(const std::string& path, const std::vector<Scene>& scenes, const std::vector<RunResult>& rows,
                    const std::vector<std::string>& missing);
// Grouped bar charts (a group per scene, a bar per engine, logarithmic axis): PREFIX_speed.svg
// (steps/s), PREFIX_penetration.svg, PREFIX_measure.svg (each scene's own measure).
void write_charts(const std::string& prefix, const std::vector<Scene>& scenes, const std::vector<RunResult>& rows,
                  const std::vector<std::string>& engines);

}  // namespace maxsim::bench
