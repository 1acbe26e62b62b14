// Parameter files: named scalar parameters (gait parameters, controller gains) as text.
//
// Format: one parameter per line, its name, white space, its value (written with 17 significant
// digits, so it reads back bit for bit); '#' starts a comment, blank lines are ignored; names are
// single words without '#'. Example:
//
//   # a1 trot, learned by a1_learn: distance 12.4 m in 10 s
//   frequency 2.5
//   thigh_amplitude 0.31
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace maxsim {

// Parameters by name, in file order.
using NamedValues = std::vector<std::pair<std::string, double>>;

// Writes the parameters (each comment line is prefixed with "# "). Throws std::runtime_error if
// the file cannot be written.
void write_parameters(const std::string& path, const NamedValues& values,
                      const std::vector<std::string>& comments = {});

// Reads a parameter file in file order. Throws std::runtime_error naming the file and line on a
// missing file, a line that is not "name value", a value that is not entirely a finite number, or
// a name given twice.
NamedValues read_parameters(const std::string& path);

// The value named `name`; throws std::invalid_argument if absent.
double parameter_value(const NamedValues& values, const std::string& name);

}  // namespace maxsim
