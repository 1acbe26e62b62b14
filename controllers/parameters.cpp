#include "controllers/parameters.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace maxsim {

void write_parameters(const std::string& path, const NamedValues& values,
                      const std::vector<std::string>& comments) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot write the parameter file");
  for (const std::string& c : comments) out << "# " << c << "\n";
  char buf[64];
  for (const auto& [name, value] : values) {
    std::snprintf(buf, sizeof buf, "%.17g", value);
    out << name << " " << buf << "\n";
  }
  if (!out) throw std::runtime_error(path + ": write error");
}

NamedValues read_parameters(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the parameter file");
  NamedValues values;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string name, value, extra;
    if (!(words >> name)) continue;  // blank or comment
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (!(words >> value) || (words >> extra))
      throw std::runtime_error(where + "expected 'name value'");
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() || errno == ERANGE || !std::isfinite(v))
      throw std::runtime_error(where + "'" + value + "' is not a finite number");
    for (const auto& nv : values)
      if (nv.first == name) throw std::runtime_error(where + "parameter '" + name + "' given twice");
    values.emplace_back(name, v);
  }
  return values;
}

double parameter_value(const NamedValues& values, const std::string& name) {
  for (const auto& [n, v] : values)
    if (n == name) return v;
  throw std::invalid_argument("no parameter '" + name + "'");
}

}  // namespace maxsim
