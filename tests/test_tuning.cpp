// Searches behind one interface (tuning/): NLopt's optimizers under the search's options,
// log and best file; failed evaluations reported with their parameters; a Cluster outside mpirun
// is the process's threads. The MPI runs themselves are tests/mpi/run_mpi_tests.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "controllers/parameters.hpp"
#include "controllers/rollout.hpp"
#include "controllers/search.hpp"
#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"
#include "tuning/optimize.hpp"

using namespace maxsim;

namespace {

// −|p − c|² with its maximum 0 at c = (1, −2, 3, −4), inside the bounds [−5, 5].
double quadratic(const std::vector<double>& p) {
  const double c[4] = {1.0, -2.0, 3.0, -4.0};
  double s = 0;
  for (size_t k = 0; k < p.size(); ++k) s += (p[k] - c[k]) * (p[k] - c[k]);
  return -s;
}

std::vector<SearchParameter> four_parameters() {
  std::vector<SearchParameter> params;
  for (const char* name : {"p0", "p1", "p2", "p3"}) params.push_back({name, 0.0, 1.0, -5.0, 5.0});
  return params;
}

SearchOptions quiet_options(int episodes, int samples) {
  SearchOptions o;
  o.episodes = episodes;
  o.samples = samples;
  o.radius = 0.5;
  o.threads = 1;
  o.progress = ProgressBar::Never;
  return o;
}

std::vector<std::string> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

// NLopt's local Subplex and global CRS2 find the quadratic's maximum within the budget of
// episodes × samples (1000 evaluations): Subplex to 1e-6 (a local method on a smooth bowl
// converges fast), CRS2 to 1e-2 (its population of 50 spreads over [−5, 5]⁴ first; the start is
// at −30). The log has one row per evaluation with a non-decreasing best, the best file reads
// back the best exactly, and two runs with the same seed give the same bits.
TEST(Tuning, NloptFindsTheMaximumOfAQuadratic) {
  if (!built_with_nlopt()) GTEST_SKIP() << "built without NLopt (libnlopt-cxx-dev)";
  const std::string dir = MAXSIM_BINARY_DIR;
  for (const auto& [algorithm, tolerance] : {std::pair<std::string, double>{"nlopt:LN_SBPLX", 1e-6},
                                             std::pair<std::string, double>{"nlopt:GN_CRS2_LM", 1e-2}}) {
    SearchOptions o = quiet_options(250, 4);
    o.log_csv = dir + "/test_tuning_nlopt.csv";
    o.best_file = dir + "/test_tuning_nlopt.params";
    ThreadEvaluator one(quadratic, 1);
    const SearchResult a = optimize(algorithm, four_parameters(), one, o);
    std::printf("  measured: %s best %.3g after %d evaluations\n", algorithm.c_str(), a.best_value, a.evaluations);
    EXPECT_GT(a.best_value, -tolerance) << algorithm;
    EXPECT_LE(a.evaluations, 1 + 1000) << algorithm;
    EXPECT_TRUE(a.error.empty());
    const std::vector<std::string> log = lines(o.log_csv);
    ASSERT_EQ(log.size(), 1u + a.evaluations) << algorithm;  // header, the initial point, one per evaluation
    double previous = -1e300;
    for (size_t r = 1; r < log.size(); ++r) {
      const double best = std::stod(log[r].substr(log[r].find(',', log[r].find(',') + 1) + 1));
      EXPECT_GE(best, previous) << log[r];
      previous = best;
    }
    EXPECT_EQ(previous, a.best_value);
    const NamedValues file = read_parameters(o.best_file);
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(file[k].second, a.best[k]);
    ThreadEvaluator two(quadratic, 2);
    const SearchResult b = optimize(algorithm, four_parameters(), two, o);
    EXPECT_EQ(std::memcmp(a.best.data(), b.best.data(), 4 * sizeof(double)), 0) << algorithm;
    EXPECT_EQ(a.history, b.history) << algorithm;
  }
}

// An evaluation that throws stops the search without an exception: the result names the
// episode, the sample and the parameters and keeps the best found before, which the best file
// holds. The same for NLopt.
TEST(Tuning, AThrowingEvaluationStopsTheSearchWithItsParameters) {
  const std::string dir = MAXSIM_BINARY_DIR;
  const Objective refuses = [](const std::vector<double>& p) {
    if (p[0] > 0.6) throw std::runtime_error("refused");
    return quadratic(p);
  };
  std::vector<std::string> optimizers = {"sample"};
  if (built_with_nlopt()) optimizers.push_back("nlopt:LN_SBPLX");
  for (const std::string& optimizer : optimizers) {
    SearchOptions o = quiet_options(50, 4);
    o.best_file = dir + "/test_tuning_throw.params";
    o.log_csv = dir + "/test_tuning_throw.csv";
    ThreadEvaluator evaluator(refuses, 2);
    SearchResult r;
    ASSERT_NO_THROW(r = optimize(optimizer, four_parameters(), evaluator, o)) << optimizer;
    std::printf("  %s: %s\n", optimizer.c_str(), r.error.c_str());
    EXPECT_NE(r.error.find("threw: refused"), std::string::npos) << r.error;
    const size_t at = r.error.find("parameters: p0 ");
    ASSERT_NE(at, std::string::npos) << r.error;
    EXPECT_GT(std::stod(r.error.substr(at + 15)), 0.6) << r.error;  // the point that threw
    EXPECT_NE(r.error.find(o.best_file), std::string::npos) << r.error;
    EXPECT_LE(r.best[0], 0.6);
    EXPECT_LT(r.evaluations, 1 + 50 * 4);
    const NamedValues file = read_parameters(o.best_file);
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(file[k].second, r.best[k]) << optimizer;
    const std::vector<std::string> log = lines(o.log_csv);
    EXPECT_EQ(log.size(), r.history.size() + 1) << optimizer;  // complete up to the failure
  }
}

// Non-finite values are −∞ to the search, counted, and never the best.
TEST(Tuning, NonFiniteValuesAreCountedAndNeverBest) {
  SearchOptions o = quiet_options(10, 4);
  o.label = "test_tuning";
  const SearchResult r = sample_search(
      four_parameters(), [](const std::vector<double>& p) { return p[0] > 0.3 ? std::nan("") : quadratic(p); }, o);
  EXPECT_GT(r.non_finite, 0);
  EXPECT_TRUE(std::isfinite(r.best_value));
  EXPECT_LE(r.best[0], 0.3);
}

// The thread evaluator reports the lowest failing index of a batch, after the whole batch ran.
TEST(Tuning, ThreadEvaluatorReportsTheLowestFailingPoint) {
  ThreadEvaluator e([](const std::vector<double>& p) -> double {
    if (p[0] >= 2) throw std::runtime_error(p[0] == 3 ? "bad 3" : "bad 2");
    return p[0];
  }, 2);
  EXPECT_EQ(e.evaluate({{0.0}, {1.0}}), (std::vector<double>{0.0, 1.0}));
  try {
    e.evaluate({{0.0}, {3.0}, {2.0}, {1.0}});
    FAIL() << "no EvaluationError";
  } catch (const EvaluationError& err) {
    EXPECT_EQ(err.index, 1);
    EXPECT_EQ(err.point, std::vector<double>{3.0});
    EXPECT_STREQ(err.what(), "bad 3");
  }
}

TEST(Tuning, RejectsBadOptimizers) {
  ThreadEvaluator e(quadratic, 1);
  const SearchOptions o = quiet_options(2, 2);
  EXPECT_THROW(optimize("annealing", four_parameters(), e, o), std::invalid_argument);
  EXPECT_THROW(optimize("nlopt:LD_MMA", four_parameters(), e, o), std::invalid_argument);  // needs gradients
  if (built_with_nlopt()) {
    std::vector<SearchParameter> unbounded = four_parameters();
    unbounded[2].upper = INFINITY;
    EXPECT_THROW(optimize("nlopt:GN_CRS2_LM", unbounded, e, o), std::invalid_argument);
    EXPECT_NO_THROW(optimize("nlopt:LN_SBPLX", unbounded, e, o));  // local: bounds optional
  }
  try {
    check_optimizer("annealing");
    FAIL();
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("sample"), std::string::npos) << err.what();  // lists the known ones
  }
  try {
    check_optimizer("nlopt:NOPE");
    FAIL();
  } catch (const std::invalid_argument& err) {  // an unknown name, or a build without NLopt: said so
    const std::string what = err.what();
    EXPECT_NE(what.find(built_with_nlopt() ? "unknown optimizer" : "built without NLopt"), std::string::npos) << what;
  }
}

// Outside mpirun a Cluster is this process: not distributed, rank 0 of 1, its rollouts those of
// a RolloutPool to the last bit.
TEST(Tuning, ClusterOutsideMpirunIsThisProcess) {
  if (Cluster::launched_by_mpirun()) GTEST_SKIP() << "running under mpirun";
  int argc = 1;
  char name[] = "test_tuning";
  char* args[] = {name, nullptr};
  char** argv = args;
  const Cluster cluster(argc, argv);
  EXPECT_FALSE(cluster.distributed());
  EXPECT_TRUE(cluster.root());
  EXPECT_EQ(cluster.size(), 1);
  const Model m = make_pendulum_chain(2, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  RolloutTask task;
  task.steps = 50;
  task.setup = [](const Model&, Data& d, int i) {
    d.joint_force[0][5] = 0.1 * i;  // the hinge's free row
  };
  task.evaluate = [](const Model&, const Data& d, const RolloutStats&, int) { return d.x[1].x(); };
  const std::vector<RolloutResult> a = cluster.run_rollouts(m, task, 5, 2), b = RolloutPool(1).run(m, task, 5);
  ASSERT_EQ(a.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(a[i].value, b[i].value);
    EXPECT_EQ(a[i].stats.steps, 50);
  }
  EXPECT_NE(a[0].value, a[4].value);
  EXPECT_EQ(cluster.bytes_communicated(), 0.0);
}
