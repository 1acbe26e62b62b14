#include "tuning/cluster.hpp"

#include <cstdlib>
#include <stdexcept>

#ifdef MAXSIM_HAVE_MPI
#include <mpi.h>

#include "tuning/mpi_evaluator.hpp"
#endif

namespace maxsim {

bool Cluster::launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

bool Cluster::built_with_mpi() {
#ifdef MAXSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

Cluster::Cluster(int& argc, char**& argv) {
  if (!launched_by_mpirun()) return;
#ifdef MAXSIM_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    // only the main thread talks to MPI; the rollouts' threads never do
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  }
  distributed_ = true;
  rank_ = mpi::world_rank();
  size_ = mpi::world_size();
#else
  (void)argc;
  (void)argv;
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = std::getenv("PMI_SIZE");
  if (size && std::atoi(size) > 1)
    throw std::runtime_error("started by mpirun with " + std::string(size) +
                             " ranks, but this maxsim was built without MPI (install libopenmpi-dev and rebuild): "
                             "every rank would run the whole search");
#endif
}

Cluster::~Cluster() {
#ifdef MAXSIM_HAVE_MPI
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (distributed_ && !finalized) MPI_Finalize();
#endif
}

std::unique_ptr<Evaluator> Cluster::evaluator(Objective objective, int threads, std::vector<std::string> names) const {
#ifdef MAXSIM_HAVE_MPI
  if (distributed_) return std::make_unique<mpi::MpiEvaluator>(std::move(objective), threads, std::move(names));
#endif
  (void)names;
  return std::make_unique<ThreadEvaluator>(std::move(objective), threads);
}

std::vector<RolloutResult> Cluster::run_rollouts(const Model& model, const RolloutTask& task, int count,
                                                 int threads) const {
#ifdef MAXSIM_HAVE_MPI
  if (distributed_) return mpi::run_rollouts(model, task, count, threads);
#endif
  return RolloutPool(threads).run(model, task, count);
}

double Cluster::bytes_communicated() const {
#ifdef MAXSIM_HAVE_MPI
  if (distributed_) return mpi::bytes_communicated();
#endif
  return 0;
}

}  // namespace maxsim
