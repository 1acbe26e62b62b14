// A debug trace of the interior point (sim/solver/interior_point.cpp), off unless the environment
// variable MAXSIM_IP_TRACE is set: "all" traces every step, "t0:t1" the steps that start at
// Data::time in [t0, t1]. MAXSIM_IP_TRACE_DETAIL adds the variables of the inequality that limits α
// and of the largest complementarity product; MAXSIM_IP_TRACE_LS every line-search trial;
// MAXSIM_IP_TRACE_FD a finite-difference check of each Newton direction. One line per solve and per iteration on stderr (μ, σ, the step lengths,
// halvings, re-centrings, the residual's parts and the inequality that limits α), to find where a
// step's iterations go (docs/performance.md, "Under control: where the iterations go").
#pragma once

#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"
#include "sim/solver/solve.hpp"

namespace maxsim {

// What one interior-point iteration did (the trace's line).
struct IterationRecord {
  int iteration = 0;
  double mu = 0, sigma = 0;
  double alpha_aff = 0;  // predictor's largest feasible step
  double alpha_max = 0;  // the direction's step to the boundary (before the line search)
  double alpha = 0;      // the step taken (0: none)
  int halvings = 0;      // line-search halvings
  bool recentred = false;
  bool centred_direction = false;  // the plain centred direction replaced Mehrotra's
};

class IterationTrace {
 public:
  // Whether this step of `d` is traced (reads MAXSIM_IP_TRACE once per process).
  explicit IterationTrace(const Data& d);
  bool on() const { return on_; }
  // The solve's first line: its inequalities by kind, how many are open, warm, settled.
  void begin(const Model& model, const Data& d, bool settled) const;
  // One iteration, at the iterate whose residual F and kinematics are current, before its step:
  // the equality residual, gaps and tangential velocities, complementarity; `steps` the direction
  // (for the inequality that limits α); r's μ, σ, α_aff and α_max.
  void iteration(const Model& model, const Data& d, const Eigen::VectorXd& F, const EqualityTest& test,
                 const IterationRecord& r, const std::vector<Vec6>& steps) const;
  // One trial of the line search (with MAXSIM_IP_TRACE_LS set): the merits before and after.
  void line_search(int halving, double alpha, double merit0, double merit1, double eq0, double eq1) const;
  // The same iteration's line search: the step taken, its halvings, a re-centring.
  void step(const IterationRecord& r) const;
  void end(const StepReport& rep) const;
  // Whether MAXSIM_IP_TRACE_FD asks for the direction's consistency check (interior_point.cpp,
  // check_direction), and its line: `mismatch` = the equality rows' rate along Δ plus F, which
  // is zero for a Newton matrix that is the residual's Jacobian.
  bool directional_check() const;
  void direction_check(const Data& d, const Eigen::VectorXd& mismatch, const Eigen::VectorXd& F) const;

 private:
  bool on_ = false;
};

}  // namespace maxsim
