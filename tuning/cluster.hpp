// Where a search runs: one process with its threads, or the ranks of an MPI job —
// the same program either way.
//
//   int main(int argc, char** argv) {
//     maxsim::Cluster cluster(argc, argv);          // joins the job under mpirun
//     auto evaluator = cluster.evaluator(objective, threads, names);
//     if (!cluster.root()) { evaluator->serve(); return 0; }   // ranks 1..: evaluate batches
//     SearchResult r = sample_search(params, *evaluator, options);  // rank 0 decides everything
//   }
//
// Under mpirun, rank 0 draws every sample and takes every decision; each batch of parameter
// vectors is broadcast to the ranks, rank r evaluates the points i with i mod size = r on its own
// threads, and the values gather to rank 0. Only parameter vectors and values cross the network
// (8 bytes per number: (k·n + k) numbers for a batch of k points of n parameters), never
// trajectories, and nothing assumes one host. The values are pure functions of their points, so
// the search's log and best file are bitwise the same for any number of ranks and threads, and
// the same as without mpirun.
//
// Failures: an evaluation that throws on any rank comes back to rank 0 as an EvaluationError
// with its parameters (the search stops with what it has: SearchResult::error). When a rank
// dies, Open MPI's mpirun stops the job; rank 0 then prints which parameters every rank was
// evaluating before it exits (the log and the best file are complete up to the previous batch).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controllers/evaluator.hpp"
#include "controllers/rollout.hpp"

namespace maxsim {

// One process, or the ranks of an MPI job: where searches and rollouts run.
class Cluster {
 public:
  // Joins the MPI job (MPI_Init_thread, funneled) when the program was started by mpirun (Open
  // MPI, MPICH or PMIx environment), else runs alone. Throws std::runtime_error when started by
  // mpirun with several ranks in a build without MPI (each rank would run the whole search).
  Cluster(int& argc, char**& argv);
  ~Cluster();  // MPI_Finalize
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int rank() const { return rank_; }        // this process's rank (0 alone)
  int size() const { return size_; }        // the number of ranks (1 alone)
  bool root() const { return rank_ == 0; }  // rank 0: the one that decides and writes
  bool distributed() const { return distributed_; }  // inside an MPI job (even of one rank)

  // The evaluator of `objective`: over the job's ranks when distributed() (collective: every rank
  // calls it), else on this process's threads. `threads` per rank (0: all the cores the rank may
  // use); `names` label parameters in failure reports.
  std::unique_ptr<Evaluator> evaluator(Objective objective, int threads,
                                       std::vector<std::string> names = {}) const;

  // `count` rollouts of `task` spread over the ranks (rollout i on rank i mod size) and their
  // threads; collective, every rank gets all results, result i belongs to rollout i (bitwise the
  // same as RolloutPool::run). Only the results' scalars cross the network.
  std::vector<RolloutResult> run_rollouts(const Model& model, const RolloutTask& task, int count, int threads) const;

  // Bytes this process sent and received through the cluster's calls so far (payload only; on
  // rank 0 of a search: every batch's header and points to each other rank, their values back).
  double bytes_communicated() const;

  static bool launched_by_mpirun();  // whether mpirun started this process
  static bool built_with_mpi();      // whether this build has MPI

 private:
  int rank_ = 0, size_ = 1;
  bool distributed_ = false;
};

}  // namespace maxsim
