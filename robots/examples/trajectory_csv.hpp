// A trajectory CSV with the columns of DESIGN §8 (the `maxsim simulate --output` contract, so the
// viewer and plotting tools read it): t; per body B.x,B.y,B.z,B.qw,B.qx,B.qy,B.qz,B.vx,B.vy,B.vz,
// B.wx,B.wy,B.wz; per joint J.q0.., J.v0..; energy.kinetic, energy.potential, energy.total,
// violation.max, penetration.max, solver.iterations, solver.residual. Numbers are written in the
// shortest form that reads back exactly. Header-only, for the example programs.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/contact_search.hpp"
#include "sim/maxsim.hpp"

namespace maxsim {

class TrajectoryCsv {
 public:
  TrajectoryCsv(const std::string& path, const Model& m) : path_(path), file_(std::fopen(path.c_str(), "w")) {
    if (!file_) throw std::runtime_error(path + ": cannot write the trajectory");
    std::string h = "t";
    for (const Body& b : m.bodies)
      for (const char* c : {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"})
        h += "," + b.name + "." + c;
    for (const Joint& j : m.joints) {
      for (int k = 0; k < j.nq(); ++k) h += "," + j.name + ".q" + std::to_string(k);
      for (int k = 0; k < j.dof(); ++k) h += "," + j.name + ".v" + std::to_string(k);
    }
    h += ",energy.kinetic,energy.potential,energy.total,violation.max,penetration.max,solver.iterations,solver.residual\n";
    std::fputs(h.c_str(), file_);
  }
  ~TrajectoryCsv() {
    if (file_) std::fclose(file_);
  }
  TrajectoryCsv(const TrajectoryCsv&) = delete;
  TrajectoryCsv& operator=(const TrajectoryCsv&) = delete;

  // A row for the current state; `first` = the initial state (no solver iterations yet).
  void write(const Model& m, const Data& d, bool first = false) {
    line_.clear();
    put(d.time);
    for (size_t i = 0; i < m.bodies.size(); ++i) {
      for (int k = 0; k < 3; ++k) put(d.x[i](k));
      for (int k = 0; k < 4; ++k) put(d.q[i](k));
      for (int k = 0; k < 3; ++k) put(d.v[i](k));
      for (int k = 0; k < 3; ++k) put(d.w[i](k));
    }
    double q[7], qd[6];
    for (size_t j = 0; j < m.joints.size(); ++j) {
      const Joint& jt = m.joints[j];
      joint_coordinates(m, d, static_cast<int>(j), q, qd);
      for (int k = 0; k < jt.nq(); ++k) put(q[k]);
      for (int k = 0; k < jt.dof(); ++k) put(qd[k]);
    }
    const double ke = kinetic_energy(m, d), pe = potential_energy(m, d);
    put(ke);
    put(pe);
    put(ke + pe);
    put(max_constraint_violation(m, d));
    put(max_penetration(d));
    put(first ? 0.0 : d.report.iterations);
    put(first ? 0.0 : d.report.residual);
    line_.erase(0, 1);  // the leading comma
    line_ += '\n';
    std::fputs(line_.c_str(), file_);
  }

 private:
  void put(double v) {  // a non-finite number leaves its cell empty (never written)
    line_ += ',';
    if (!std::isfinite(v)) return;
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    line_.append(buf, r.ptr);
  }
  std::string path_;
  std::FILE* file_;
  std::string line_;
};

}  // namespace maxsim
