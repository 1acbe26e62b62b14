#include "tuning/mpi_evaluator.hpp"

#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace maxsim::mpi {

namespace {

std::atomic<double> g_bytes{0};

// payload bytes this process sent or received (only the main thread calls MPI)
void count(double bytes) { g_bytes.store(g_bytes.load() + bytes); }

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("MPI ") + what + ": " + std::string(text, length));
}

// What rank 0 prints when mpirun stops the job (a rank died, or the job was interrupted) while a
// batch is out. mpirun sends SIGTERM before SIGKILL; the handler may only write(2) a prepared
// message, so the message of the batch in flight is composed before it goes out, into the buffer
// that is not being shown, and then published with one atomic store.
std::string g_message[2];
std::atomic<int> g_shown{-1};
struct sigaction g_previous;

extern "C" void on_terminate(int signal) {
  const int k = g_shown.load();
  if (k >= 0) {
    const std::string& m = g_message[k];
    ssize_t ignored = write(STDERR_FILENO, m.data(), m.size());
    (void)ignored;
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

int share_size(int count, int rank, int size) { return count / size + (rank < count % size ? 1 : 0); }

}  // namespace

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

double bytes_communicated() { return g_bytes.load(); }

MpiEvaluator::MpiEvaluator(Objective objective, int threads, std::vector<std::string> names)
    : objective_(std::move(objective)), rank_(world_rank()), size_(world_size()), names_(std::move(names)) {
  if (!objective_) throw std::invalid_argument("MpiEvaluator: no objective");
  threads_ = RolloutPool(threads).threads();
  // every rank's thread count, for workers() (the sum)
  int mine = threads_, total = 0;
  check(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "allreduce");
  workers_ = total;
  if (rank_ == 0) {
    struct sigaction action {};
    action.sa_handler = on_terminate;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, &g_previous);
  }
}

MpiEvaluator::~MpiEvaluator() {
  if (rank_ != 0) return;
  try {
    finish();
  } catch (...) {
  }
  g_shown.store(-1);
  sigaction(SIGTERM, &g_previous, nullptr);
}

void MpiEvaluator::finish() {
  if (rank_ != 0 || finished_) return;
  finished_ = true;
  int header[2] = {0, 0};  // stop
  check(MPI_Bcast(header, 2, MPI_INT, 0, MPI_COMM_WORLD), "bcast");
}

std::vector<double> MpiEvaluator::evaluate(const std::vector<std::vector<double>>& points) {
  if (rank_ != 0) throw std::logic_error("MpiEvaluator::evaluate is rank 0's; the other ranks serve()");
  if (finished_) throw std::logic_error("MpiEvaluator::evaluate after finish()");
  const int k = static_cast<int>(points.size());
  const int n = k ? static_cast<int>(points[0].size()) : 0;
  for (const std::vector<double>& p : points)
    if (static_cast<int>(p.size()) != n) throw std::invalid_argument("MpiEvaluator: points of different sizes");
  // the report mpirun's SIGTERM would print for this batch
  {
    const int spare = g_shown.load() == 0 ? 1 : 0;
    std::string& m = g_message[spare];
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "maxsim: the MPI job is being stopped (a rank died, or mpirun was interrupted) during evaluation "
                  "batch %d (a search's episode); the search log and the best file are complete up to the one "
                  "before. Being evaluated:\n",
                  batch_);
    m = buf;
    for (int i = 0; i < k; ++i) {
      std::snprintf(buf, sizeof buf, "  rank %d, point %d:", i % size_, i);
      m += buf;
      for (int j = 0; j < n; ++j) {
        std::snprintf(buf, sizeof buf, " %s%s%.17g", j < static_cast<int>(names_.size()) ? names_[j].c_str() : "",
                      j < static_cast<int>(names_.size()) ? " " : "", points[i][j]);
        m += buf;
      }
      m += '\n';
    }
    g_shown.store(spare);
  }
  ++batch_;
  int header[2] = {k, n};
  check(MPI_Bcast(header, 2, MPI_INT, 0, MPI_COMM_WORLD), "bcast");
  std::vector<double> flat(static_cast<size_t>(k) * n);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) flat[static_cast<size_t>(i) * n + j] = points[i][j];
  check(MPI_Bcast(flat.data(), k * n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "bcast");
  count((8.0 + 8.0 * k * n) * (size_ - 1));  // header and points to every other rank
  std::string error;
  int error_index = -1;
  std::vector<double> values = evaluate_share(points, &error, &error_index);
  if (error_index >= 0) throw EvaluationError(error_index, points[error_index], error);
  return values;
}

void MpiEvaluator::serve() {
  if (rank_ == 0) return;
  for (;;) {
    int header[2];
    check(MPI_Bcast(header, 2, MPI_INT, 0, MPI_COMM_WORLD), "bcast");
    const int k = header[0], n = header[1];
    if (k == 0) return;  // rank 0 finished
    std::vector<double> flat(static_cast<size_t>(k) * n);
    check(MPI_Bcast(flat.data(), k * n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "bcast");
    std::vector<std::vector<double>> points(k);
    for (int i = 0; i < k; ++i) points[i].assign(flat.begin() + static_cast<long>(i) * n, flat.begin() + static_cast<long>(i + 1) * n);
    std::string error;
    int error_index = -1;
    evaluate_share(points, &error, &error_index);
  }
}

std::vector<double> MpiEvaluator::evaluate_share(const std::vector<std::vector<double>>& points, std::string* error,
                                                 int* error_index) {
  const int k = static_cast<int>(points.size());
  std::vector<int> mine;
  for (int i = rank_; i < k; i += size_) mine.push_back(i);
  std::vector<double> values;
  std::vector<std::string> errors;
  evaluate_points(objective_, points, mine, threads_, values, errors);

  // values of this rank's points, in index order, gathered rank by rank to rank 0
  std::vector<double> local;
  int first_error = -1;
  for (int i : mine) {
    local.push_back(values[i]);
    if (first_error < 0 && !errors[i].empty()) first_error = i;
  }
  std::vector<int> counts(size_), displs(size_);
  for (int r = 0, d = 0; r < size_; ++r) {
    counts[r] = share_size(k, r, size_);
    displs[r] = d;
    d += counts[r];
  }
  std::vector<double> gathered(rank_ == 0 ? k : 0);
  check(MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, gathered.data(), counts.data(),
                    displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD),
        "gatherv");
  // the lowest failing index of every rank, then that rank's message
  std::vector<int> first_errors(rank_ == 0 ? size_ : 0);
  check(MPI_Gather(&first_error, 1, MPI_INT, first_errors.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "gather");
  if (rank_ != 0) {
    count(8.0 * local.size() + 4);
    if (first_error >= 0) {
      const std::string& m = errors[first_error];
      check(MPI_Send(m.data(), static_cast<int>(m.size()), MPI_CHAR, 0, 17, MPI_COMM_WORLD), "send");
    }
    return {};
  }
  count(8.0 * (k - static_cast<double>(local.size())) + 4.0 * (size_ - 1));  // the others' values and error flags
  std::vector<double> out(k);
  for (int r = 0; r < size_; ++r)
    for (int j = 0; j < counts[r]; ++j) out[r + j * size_] = gathered[displs[r] + j];
  for (int r = 0; r < size_; ++r) {
    const int i = first_errors[r];
    if (i < 0) continue;
    std::string m;
    if (r == 0) {
      m = errors[i];
    } else {
      MPI_Status status;
      check(MPI_Probe(r, 17, MPI_COMM_WORLD, &status), "probe");
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      m.resize(length);
      check(MPI_Recv(m.data(), length, MPI_CHAR, r, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
      m += " (on rank " + std::to_string(r) + ")";
    }
    if (*error_index < 0 || i < *error_index) {
      *error_index = i;
      *error = m;
    }
  }
  return out;
}

std::vector<RolloutResult> run_rollouts(const Model& model, const RolloutTask& task, int count_, int threads) {
  const int rank = world_rank(), size = world_size();
  std::vector<int> mine;
  for (int i = rank; i < count_; i += size) mine.push_back(i);
  std::vector<RolloutResult> results(std::max(0, count_));
  std::string error;
  try {
    RolloutPool(threads).for_each(static_cast<int>(mine.size()),
                                  [&](int k) { results[mine[k]] = run_rollout(model, task, mine[k]); });
  } catch (const std::exception& e) {
    error = e.what();
  }
  // every rank must leave together: a rollout that threw anywhere throws on every rank
  int bad = error.empty() ? 0 : 1, any = 0;
  check(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "allreduce");
  if (any) throw std::runtime_error(bad ? error + " (a rollout on rank " + std::to_string(rank) + ")"
                                        : "a rollout threw on another rank");
  // a result as 20 numbers: value, steps, not_converged, failed, stopped, max_penetration, the last
  // report's relaxed + 2 substeps, then its StepSummary's counts and its last report's status,
  // iterations and residual (its reason, a pointer, stays on the rank that ran it)
  constexpr int width = 20;
  std::vector<double> local;
  for (int i : mine) {
    const RolloutResult& r = results[i];
    const RolloutStats& s = r.stats;
    const StepSummary& u = s.summary;
    const double last_flags = (u.last.relaxed ? 1.0 : 0.0) + (u.last.substeps ? 2.0 : 0.0);
    local.insert(local.end(), {r.value, double(s.steps), double(s.not_converged), double(s.failed),
                               s.stopped ? 1.0 : 0.0, s.max_penetration, last_flags, double(u.steps),
                               double(u.failed_steps), double(u.not_converged_steps), double(u.relaxed_steps),
                               double(u.substepped_steps), double(u.iterations_total), double(u.iterations_max),
                               u.residual_max, u.first_not_ok_time, u.first_relaxed_time,
                               double(static_cast<int>(u.last.status)), double(u.last.iterations), u.last.residual});
  }
  std::vector<int> counts(size), displs(size);
  for (int r = 0, d = 0; r < size; ++r) {
    counts[r] = width * share_size(count_, r, size);
    displs[r] = d;
    d += counts[r];
  }
  std::vector<double> all(static_cast<size_t>(width) * std::max(0, count_));
  check(MPI_Allgatherv(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(), counts.data(),
                       displs.data(), MPI_DOUBLE, MPI_COMM_WORLD),
        "allgatherv");
  count(8.0 * local.size() * (size - 1) + 8.0 * (all.size() - local.size()));
  for (int r = 0; r < size; ++r)
    for (int j = 0; j < counts[r] / width; ++j) {
      const double* v = &all[displs[r] + static_cast<size_t>(j) * width];
      RolloutResult& out = results[r + j * size];
      out.value = v[0];
      out.stats.steps = static_cast<int>(v[1]);
      out.stats.not_converged = static_cast<int>(v[2]);
      out.stats.failed = static_cast<int>(v[3]);
      out.stats.stopped = v[4] != 0;
      out.stats.max_penetration = v[5];
      StepSummary& u = out.stats.summary;
      u.steps = static_cast<long long>(v[7]);
      u.failed_steps = static_cast<long long>(v[8]);
      u.not_converged_steps = static_cast<long long>(v[9]);
      u.relaxed_steps = static_cast<long long>(v[10]);
      u.substepped_steps = static_cast<long long>(v[11]);
      u.iterations_total = static_cast<long long>(v[12]);
      u.iterations_max = static_cast<int>(v[13]);
      u.residual_max = v[14];
      u.first_not_ok_time = v[15];
      u.first_relaxed_time = v[16];
      u.last.status = static_cast<StepStatus>(static_cast<int>(v[17]));
      u.last.iterations = static_cast<int>(v[18]);
      u.last.residual = v[19];
      u.last.relaxed = static_cast<int>(v[6]) & 1;
      u.last.substeps = static_cast<int>(v[6]) & 2;
    }
  return results;
}

}  // namespace maxsim::mpi
