// The MPI implementation behind Cluster (tuning/cluster.hpp); built only with MPI. Rank 0 calls
// evaluate(), the other ranks serve() until rank 0 finishes (finish() or the destructor).
#pragma once

#include <string>
#include <vector>

#include "controllers/evaluator.hpp"
#include "controllers/rollout.hpp"

namespace maxsim::mpi {

class MpiEvaluator : public Evaluator {
 public:
  // Collective over MPI_COMM_WORLD.
  MpiEvaluator(Objective objective, int threads, std::vector<std::string> names);
  ~MpiEvaluator() override;  // rank 0: finish()
  std::vector<double> evaluate(const std::vector<std::vector<double>>& points) override;
  int workers() const override { return workers_; }
  void serve() override;
  void finish();  // rank 0: releases the serving ranks (once)

 private:
  // Each rank's share of a batch already broadcast: evaluates, gathers to rank 0.
  std::vector<double> evaluate_share(const std::vector<std::vector<double>>& points, std::string* error,
                                     int* error_index);
  Objective objective_;
  int threads_, workers_, rank_, size_;
  std::vector<std::string> names_;
  bool finished_ = false;
  int batch_ = 0;  // batches sent so far (the search's episode 0 is batch 0)
};

// Cluster::run_rollouts over MPI_COMM_WORLD.
std::vector<RolloutResult> run_rollouts(const Model& model, const RolloutTask& task, int count, int threads);

int world_rank();
int world_size();
double bytes_communicated();

}  // namespace maxsim::mpi
