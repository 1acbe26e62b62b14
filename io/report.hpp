// Output of the `maxsim` tool: the trajectory CSV and the one-line JSON summary (their columns
// and keys are the command's contract, README "The maxsim command").
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.hpp"
#include "sim/data.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/model.hpp"

namespace maxsim::io {

// Shortest text that reads back to the same double ("0.1", "1e-12", "-3"); "nan"/"inf" for
// non-finite values (callers never write those to the CSV; JSON writes null instead).
std::string format_double(double v);

// The contract's CSV columns for a model: t; B.x ... B.wz per body; J.q0.., J.v0.. per joint;
// then the seven diagnostics columns.
std::vector<std::string> csv_columns(const Model& model);

// Diagnostics that end a CSV row: energies, the constraint violation, penetration.max — the
// deepest penetration of a body into the world's surfaces (the ground half-space when on, the
// world's geoms) in the row's state, measured from the geometry alone (max_world_penetration,
// sim/geometry/ground.hpp; the same number as the command's max_penetration) — and the last step's
// iterations and residual.
struct RowDiagnostics {
  double kinetic = 0, potential = 0, violation = 0, penetration = 0, residual = 0;  // the row's columns
  int iterations = 0;  // the last step's Newton iterations
  double total() const { return kinetic + potential; }  // total energy [J]
  bool finite() const;  // the four state measures are finite
};

// The diagnostics of the current state (`first`: the initial state, before any step: 0
// iterations and residual 0). `world`: world_surfaces(model, ground) of the run, made once.
RowDiagnostics row_diagnostics(const Model& model, const Data& data, const WorldSurfaces& world, bool first = false);

// Trajectory writer. Opening fails with io::Error (the command's exit status 2) when the file cannot be
// written or its header alone would exceed max_bytes; a write error later is reported by
// close(). The file never grows beyond max_bytes: a row that would cross it is not written
// (write_row returns false), so the file always ends on a complete row.
class CsvWriter {
 public:
  CsvWriter() = default;
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // writes the header
  void open(const std::string& path, const Model& model, long long max_bytes = kNoLimit);
  bool is_open() const { return file_ != nullptr; }
  bool write_row(const Model& model, const Data& data, const RowDiagnostics& diag);
  long long bytes() const { return bytes_; }  // written so far, header included
  void close();  // throws io::Error on a write error

  static constexpr long long kNoLimit = 0x7fffffffffffffffLL;  // no bound on the file's size

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  long long max_bytes_ = kNoLimit, bytes_ = 0;
  std::string line_;
  std::vector<double> qbuf_, vbuf_;
};

// A one-line JSON object, keys in insertion order. Non-finite numbers become null.
class JsonObject {
 public:
  // Appends key: value (each add returns the object, to chain them).
  JsonObject& add(std::string_view key, double value);
  JsonObject& add(std::string_view key, long long value);
  JsonObject& add(std::string_view key, int value) { return add(key, static_cast<long long>(value)); }
  JsonObject& add(std::string_view key, bool value);
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  JsonObject& add_null(std::string_view key);
  JsonObject& add_raw(std::string_view key, std::string_view json);  // an already-encoded value
  std::string str() const { return "{" + body_ + "}"; }  // the object as one line of JSON

  // (also escapes <, > and &: the text is then safe inside an HTML script element)
  static std::string quote(std::string_view s);
  static std::string number(double v);  // null when non-finite

 private:
  void key(std::string_view k);
  std::string body_;
};

}  // namespace maxsim::io
