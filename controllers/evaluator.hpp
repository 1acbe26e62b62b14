// Batch evaluation of an objective: the seam between a search, which decides which
// parameter vectors to try, and where their rollouts run — this process's threads
// (ThreadEvaluator, below) or the ranks of an MPI job (tuning/mpi_evaluator.hpp).
//
// A search hands a batch of k parameter vectors to evaluate() and gets k values back, value i
// belonging to point i. Because every value is a pure function of its point (the Objective's
// contract, controllers/search.hpp) and every decision is taken by the search on the calling
// thread, a search gives bitwise the same result on any evaluator, for any number of threads
// or ranks.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace maxsim {

// The quantity a search maximizes, e.g. a walking distance. Called concurrently from several
// threads (and processes), so it must be thread-safe and a pure function of the parameters.
using Objective = std::function<double(const std::vector<double>& parameters)>;

// An evaluation that threw: the index of the point in its batch (the lowest such index when
// several threw), the point, and the exception's message.
class EvaluationError : public std::runtime_error {
 public:
  // The failed point's index in its batch, the point and the exception's message.
  EvaluationError(int index, std::vector<double> point, const std::string& message)
      : std::runtime_error(message), index(index), point(std::move(point)) {}
  int index;                 // the point's index in its batch
  std::vector<double> point;  // the parameters that failed
};

// Evaluates batches of parameter vectors for a search (on threads, or over MPI ranks).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // values[i] = objective(points[i]) for every i; throws EvaluationError when an evaluation
  // threw (after the whole batch ran). Called by the search, on one thread.
  virtual std::vector<double> evaluate(const std::vector<std::vector<double>>& points) = 0;
  // How many evaluations run at once (threads, or ranks × threads), for messages.
  virtual int workers() const = 0;
  // On the worker ranks of a distributed evaluator: evaluate the batches the search sends until
  // it finishes. Returns at once on an evaluator that has no workers of its own.
  virtual void serve() {}
};

// Evaluates a batch on a RolloutPool of `threads` threads (0: all cores), one point per task.
class ThreadEvaluator : public Evaluator {
 public:
  // `objective` on `threads` threads (0: all cores).
  explicit ThreadEvaluator(Objective objective, int threads = 0);
  std::vector<double> evaluate(const std::vector<std::vector<double>>& points) override;
  int workers() const override { return threads_; }

 private:
  Objective objective_;
  int threads_;
};

// Evaluates points[i] for the i in `indices` on `threads` threads, writing values[i]; an
// evaluation that throws leaves values[i] as NaN and its message in errors[i] (errors has the
// size of points). The building block of both evaluators.
void evaluate_points(const Objective& objective, const std::vector<std::vector<double>>& points,
                     const std::vector<int>& indices, int threads, std::vector<double>& values,
                     std::vector<std::string>& errors);

}  // namespace maxsim
