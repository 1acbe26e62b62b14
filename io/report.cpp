#include "io/report.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "io/error.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/sensor/sensors.hpp"
#include "sim/state/diagnostics.hpp"
#include "sim/state/kinematics.hpp"

namespace maxsim::io {

namespace {

void append_double(std::string* out, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

}  // namespace

std::string format_double(double v) {
  std::string s;
  append_double(&s, v);
  return s;
}

std::vector<std::string> csv_columns(const Model& model) {
  std::vector<std::string> cols{"t"};
  static const char* kBody[] = {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"};
  for (const Body& b : model.bodies)
    for (const char* s : kBody) cols.push_back(b.name + "." + s);
  for (const Joint& j : model.joints) {
    for (int k = 0; k < j.nq(); ++k) cols.push_back(j.name + ".q" + std::to_string(k));
    for (int k = 0; k < j.dof(); ++k) cols.push_back(j.name + ".v" + std::to_string(k));
  }
  for (const char* s : {"energy.kinetic", "energy.potential", "energy.total", "violation.max",
                        "penetration.max", "solver.iterations", "solver.residual"})
    cols.push_back(s);
  // one column per sensor value (DESIGN §8): sensor.NAME, or sensor.NAME.k for a vector; an
  // unnamed sensor is known by its type and index
  for (size_t i = 0; i < model.sensors.size(); ++i) {
    const Sensor& sn = model.sensors[i];
    const std::string name = "sensor." + (sn.name.empty() ? std::string(sensor_type_name(sn.type)) + "_" + std::to_string(i) : sn.name);
    if (sn.dim == 1) cols.push_back(name);
    else
      for (int k = 0; k < sn.dim; ++k) cols.push_back(name + "." + std::to_string(k));
  }
  return cols;
}

CsvWriter::~CsvWriter() {
  if (file_) std::fclose(file_);
}

void CsvWriter::open(const std::string& path, const Model& model, long long max_bytes) {
  path_ = path;
  std::string header;
  const std::vector<std::string> cols = csv_columns(model);
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i) header += ',';
    header += csv_field(cols[i]);
  }
  header += '\n';
  if (static_cast<long long>(header.size()) > max_bytes)
    throw Error(path + ": the CSV header alone is " + std::to_string(header.size()) +
                     " bytes, more than the output limit of " + std::to_string(max_bytes) +
                     " bytes (--max-output-bytes)");
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw Error("cannot write " + path + ": " + std::strerror(errno));
  max_bytes_ = max_bytes;
  std::fwrite(header.data(), 1, header.size(), file_);
  bytes_ = static_cast<long long>(header.size());
  int nq = 0, nv = 0;
  for (const Joint& j : model.joints) {
    nq = std::max(nq, j.nq());
    nv = std::max(nv, j.dof());
  }
  qbuf_.assign(std::max(nq, 1), 0.0);
  vbuf_.assign(std::max(nv, 1), 0.0);
}

bool CsvWriter::write_row(const Model& model, const Data& d, const RowDiagnostics& diag) {
  std::string& s = line_;
  s.clear();
  append_double(&s, d.time);
  auto put = [&s](double v) {
    s += ',';
    append_double(&s, v);
  };
  const int nb = static_cast<int>(model.bodies.size());
  for (int i = 0; i < nb; ++i) {
    for (int k = 0; k < 3; ++k) put(d.x[i](k));
    for (int k = 0; k < 4; ++k) put(d.q[i](k));
    for (int k = 0; k < 3; ++k) put(d.v[i](k));
    for (int k = 0; k < 3; ++k) put(d.w[i](k));
  }
  const int nj = static_cast<int>(model.joints.size());
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = model.joints[j];
    if (jt.dof() == 0 && jt.nq() == 0) continue;
    joint_coordinates(model, d, j, qbuf_.data(), vbuf_.data());
    for (int k = 0; k < jt.nq(); ++k) put(qbuf_[k]);
    for (int k = 0; k < jt.dof(); ++k) put(vbuf_[k]);
  }
  put(diag.kinetic);
  put(diag.potential);
  put(diag.kinetic + diag.potential);
  put(diag.violation);
  put(diag.penetration);
  s += ',';
  s += std::to_string(diag.iterations);
  put(diag.residual);
  for (int k = 0; k < model.nsensordata(); ++k) put(k < static_cast<int>(d.sensordata.size()) ? d.sensordata[k] : 0.0);
  s += '\n';
  if (static_cast<long long>(s.size()) > max_bytes_ - bytes_) return false;
  std::fwrite(s.data(), 1, s.size(), file_);
  bytes_ += static_cast<long long>(s.size());
  return true;
}

bool RowDiagnostics::finite() const {
  return std::isfinite(kinetic) && std::isfinite(potential) && std::isfinite(violation) && std::isfinite(penetration);
}

RowDiagnostics row_diagnostics(const Model& model, const Data& d, const WorldSurfaces& world, bool first) {
  RowDiagnostics r;
  r.kinetic = kinetic_energy(model, d);
  r.potential = potential_energy(model, d);
  r.violation = max_constraint_violation(model, d);
  r.penetration = max_world_penetration(model, d, world);
  r.iterations = first ? 0 : d.report.iterations;
  r.residual = first ? 0.0 : d.report.residual;
  return r;
}

void CsvWriter::close() {
  if (!file_) return;
  const bool bad = std::ferror(file_) != 0;
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (bad || rc != 0) throw Error("error writing " + path_);
}

// ---- JSON ---------------------------------------------------------------------------------
std::string JsonObject::quote(std::string_view s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\n': q += "\\n"; break;
      case '\r': q += "\\r"; break;
      case '\t': q += "\\t"; break;
      case '<': q += "\\u003c"; break;  // (safe inside an HTML script element: io/replay.hpp)
      case '>': q += "\\u003e"; break;
      case '&': q += "\\u0026"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          q += buf;
        } else {
          q += static_cast<char>(c);
        }
    }
  }
  return q + "\"";
}

std::string JsonObject::number(double v) { return std::isfinite(v) ? format_double(v) : "null"; }

void JsonObject::key(std::string_view k) {
  if (!body_.empty()) body_ += ',';
  body_ += quote(k);
  body_ += ':';
}

JsonObject& JsonObject::add(std::string_view k, double v) {
  key(k);
  body_ += number(v);
  return *this;
}
JsonObject& JsonObject::add(std::string_view k, long long v) {
  key(k);
  body_ += std::to_string(v);
  return *this;
}
JsonObject& JsonObject::add(std::string_view k, bool v) {
  key(k);
  body_ += v ? "true" : "false";
  return *this;
}
JsonObject& JsonObject::add(std::string_view k, std::string_view v) {
  key(k);
  body_ += quote(v);
  return *this;
}
JsonObject& JsonObject::add_null(std::string_view k) {
  key(k);
  body_ += "null";
  return *this;
}
JsonObject& JsonObject::add_raw(std::string_view k, std::string_view json) {
  key(k);
  body_ += json;
  return *this;
}

}  // namespace maxsim::io
