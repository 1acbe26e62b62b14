// Parallel rollouts: many independent simulations of one Model — different controller
// parameters or initial states — run on all cores with OpenMP.
//
// The Model is shared read-only (step() takes it const and keeps no state in it); every rollout
// gets a fresh Data, built on the thread that runs it and owned by that thread alone, with its
// own workspaces, contact search (enable_contacts in `setup`) and controller. Nothing is shared
// between rollouts, so rollout i is a pure function of (model, task, i) when `setup`, `keep_going`
// and `evaluate` are: the results are bitwise identical whatever the number of threads or the
// order in which threads pick rollouts (tests/test_rollouts.cpp checks 1 vs 2 threads). A fresh
// Data per rollout, rather than one reused per thread, is what guarantees this: a reused Data
// would carry warm-start impulses and the collision broad phase's sort order from whichever
// rollout that thread ran before. Building it costs far less than the thousands of steps of a
// rollout.
//
//   RolloutTask task;
//   task.steps = 1000;
//   task.setup = [&](const Model& m, Data& d, int i) {
//     set_joint_coordinates(m, d, 0, {0.1 * i}, {});
//     set_controller(d, std::make_shared<JointPdController>(...));  // one per rollout
//   };
//   task.evaluate = [](const Model& m, const Data& d, const RolloutStats&, int) { return d.x[0].x(); };
//   std::vector<RolloutResult> r = RolloutPool(2).run(model, task, 16);
#pragma once

#include <functional>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"
#include "sim/step_summary.hpp"

namespace maxsim {

// What happened in one rollout's steps.
struct RolloutStats {
  int steps = 0;               // steps that advanced the state (not-converged ones included)
  int not_converged = 0;       // steps reported NotConverged (the run goes on)
  int failed = 0;              // 1 if a step Failed (the rollout ends there, state unchanged)
  bool stopped = false;        // keep_going ended it early
  double max_penetration = 0;  // deepest contact candidate seen at any step (m)
  // every step's outcome: relaxed and substepped steps, iterations total and max, the time of the
  // first step that did not end Ok (sim/step_summary.hpp)
  StepSummary summary;
};

// One kind of rollout: how to set it up, when to stop it, how to score it.
struct RolloutTask {
  int steps = 0;  // steps per rollout (at most)
  // Prepares rollout i in a fresh Data(model): initial state, contacts, controller. Required.
  std::function<void(const Model&, Data&, int index)> setup;
  // Called after every step; false ends the rollout early (a fall). Optional.
  std::function<bool(const Model&, const Data&, int index)> keep_going;
  // The rollout's value from its final state (a distance, a cost). Optional (value 0).
  std::function<double(const Model&, const Data&, const RolloutStats&, int index)> evaluate;
};

// A rollout's statistics and value.
struct RolloutResult {
  RolloutStats stats;  // what its steps did
  double value = 0;    // RolloutTask::evaluate's value (0 without one)
};

// One rollout, on the calling thread (what the pool runs for each index).
RolloutResult run_rollout(const Model& model, const RolloutTask& task, int index);

// Runs independent simulations on OpenMP threads, bitwise identical for any thread count.
class RolloutPool {
 public:
  // threads <= 0: OpenMP's default (omp_get_max_threads(), i.e. OMP_NUM_THREADS or the cores).
  explicit RolloutPool(int threads = 0);
  int threads() const { return threads_; }  // the threads it runs on

  // Runs job(i) for every i in [0, n), spread over the threads (dynamic schedule: rollouts that
  // end early free their thread). An exception thrown by a job is rethrown here after all jobs
  // ran (the one of the lowest index).
  void for_each(int n, const std::function<void(int index)>& job) const;

  // `count` rollouts of `task`; result i belongs to rollout i.
  std::vector<RolloutResult> run(const Model& model, const RolloutTask& task, int count) const;

 private:
  int threads_;
};

}  // namespace maxsim
