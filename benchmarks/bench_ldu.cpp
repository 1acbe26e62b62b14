// Graph LDU vs dense LU on the test graphs of Brüdigam et al. (2023), Fig. 9c–d (ladder, net,
// crystal).
//
//   Ldu/<graph>/N    BlockLdu: re-assemble the blocks from a saved copy (set_zero + copy), factor,
//                    solve one right-hand side
//   Dense/<graph>/N  Eigen PartialPivLU of the 6N x 6N to_dense() matrix (compute() copies the
//                    matrix into the decomposition), solve one right-hand side
//   Ldu/chain/N      BlockLdu on a chain (a tree), to show the O(N) scaling
//   LduStep/padded   the Newton graph of a robot step (testing/ldu_graphs.hpp robot_step: 13 bodies,
//                    13 joints, 30 contact nodes of 4 rows, 20 limit nodes of 1 row), every node
//                    factored as 6 rows; re-assembled with set_zero + copy, factor, solve
//   LduStep/padded_zero_fill   the same, re-assembled with zero_fill + copy
//   LduStep/sized    the same with set_node_size (contacts 4 rows, limits 1), zero_fill + copy
//   LduStepCount/*/iterations:N   the same with a fixed iteration count, for instruction counts:
//                    valgrind --tool=callgrind --callgrind-out-file=/dev/null maxsim_benchmarks
//                      --benchmark_filter='LduStepCount/padded/iterations:400$'
//                    minus the same with 200 iterations, divided by 200
//
// N is the number of nodes (ladder 2m, net m^2, crystal m^3). Both timings include copying the
// assembled matrix in, since both factorizations work in place on their copy; the graph, the
// symbolic analysis and the random matrix are built outside the timed loop. The matrices are the
// random diagonally dominant ones of the tests (testing/ldu_graphs.hpp). Both run on one thread.
#include <benchmark/benchmark.h>

#include <Eigen/LU>
#include <random>
#include <string>

#include "sim/solver/ldu.hpp"
#include "testing/ldu_graphs.hpp"

namespace {

namespace tg = maxsim::testing;

void run_ldu(benchmark::State& state, const tg::Graph& g) {
  std::mt19937 rng(12345);
  maxsim::BlockLdu ldu;
  ldu.analyze(g.num_nodes, g.edges);
  tg::fill_random_dominant(ldu, g, rng);
  tg::BlockSnapshot saved;
  saved.save(ldu, static_cast<int>(g.edges.size()));
  const Eigen::VectorXd b = tg::random_vector(maxsim::kBlockSize * g.num_nodes, rng);
  Eigen::VectorXd x(b.size());
  for (auto _ : state) {
    saved.restore(ldu);
    if (!ldu.factor()) {
      state.SkipWithError("singular pivot");
      break;
    }
    x = b;
    ldu.solve(x);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  state.counters["nodes"] = g.num_nodes;
  state.counters["loops"] = ldu.num_loops();
  state.counters["fill"] = ldu.num_fill_blocks();
}

void run_dense(benchmark::State& state, const tg::Graph& g) {
  std::mt19937 rng(12345);
  maxsim::BlockLdu ldu;
  ldu.analyze(g.num_nodes, g.edges);
  tg::fill_random_dominant(ldu, g, rng);
  const Eigen::MatrixXd a = ldu.to_dense();
  const Eigen::VectorXd b = tg::random_vector(a.rows(), rng);
  Eigen::PartialPivLU<Eigen::MatrixXd> lu(a.rows());
  Eigen::VectorXd x(b.size());
  // Single-threaded like BlockLdu (the library links OpenMP, which Eigen's dense products would
  // otherwise use; on a loaded machine that makes the dense timings erratic).
  const int threads = Eigen::nbThreads();
  Eigen::setNbThreads(1);
  for (auto _ : state) {
    lu.compute(a);
    x = lu.solve(b);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  Eigen::setNbThreads(threads);
  state.counters["nodes"] = g.num_nodes;
}

void run_step(benchmark::State& state, bool sized, bool zero_fill) {
  const tg::StepGraph s = tg::robot_step();
  const tg::Graph& g = s.graph;
  std::mt19937 rng(12345);
  maxsim::BlockLdu ldu;
  ldu.analyze(g.num_nodes, g.edges, s.root, &s.multiplier);
  for (int v = 0; v < g.num_nodes; ++v)
    ldu.set_regularized_rows(v, s.reg_mask[v], s.reg_only_if_singular[v] != 0);
  if (sized)
    for (int v = 0; v < g.num_nodes; ++v) ldu.set_node_size(v, s.sizes[v]);
  tg::fill_random_dominant_sized(ldu, g, s.sizes, rng);
  tg::BlockSnapshot saved;
  saved.save(ldu, static_cast<int>(g.edges.size()));
  const Eigen::VectorXd b = tg::random_vector(maxsim::kBlockSize * g.num_nodes, rng);
  Eigen::VectorXd x(b.size());
  for (auto _ : state) {
    if (zero_fill) {
      saved.write(ldu);
      ldu.zero_fill();
    } else {
      saved.restore(ldu);
    }
    if (!ldu.factor()) {
      state.SkipWithError("singular pivot");
      break;
    }
    x = b;
    ldu.solve(x);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  state.counters["nodes"] = g.num_nodes;
  state.counters["loops"] = ldu.num_loops();
  state.counters["fill"] = ldu.num_fill_blocks();
}

tg::Graph chain(int n) {
  tg::Graph g;
  g.num_nodes = n;
  for (int v = 0; v + 1 < n; ++v) g.edges.emplace_back(v, v + 1);
  return g;
}

void register_pair(const std::string& graph, const tg::Graph& g) {
  const std::string n = std::to_string(g.num_nodes);
  benchmark::RegisterBenchmark(("Ldu/" + graph + "/" + n).c_str(), [g](benchmark::State& s) {
    run_ldu(s, g);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("Dense/" + graph + "/" + n).c_str(), [g](benchmark::State& s) {
    run_dense(s, g);
  })->Unit(benchmark::kMicrosecond);
}

const bool registered = [] {
  for (int m : {4, 16, 64, 256}) register_pair("ladder", tg::ladder(m));   // N = 8 .. 512
  for (int m : {3, 6, 12, 20}) register_pair("net", tg::net(m));           // N = 9 .. 400
  for (int m : {2, 3, 4, 5, 6}) register_pair("crystal", tg::crystal(m));  // N = 8 .. 216
  for (int n : {64, 512, 4096}) {
    const tg::Graph g = chain(n);
    benchmark::RegisterBenchmark(("Ldu/chain/" + std::to_string(n)).c_str(),
                                 [g](benchmark::State& s) { run_ldu(s, g); })
        ->Unit(benchmark::kMicrosecond);
  }
  const struct {
    const char* name;
    bool sized, zero_fill;
  } step_cases[] = {{"padded", false, false}, {"padded_zero_fill", false, true}, {"sized", true, true}};
  for (const auto& c : step_cases) {
    auto run = [c](benchmark::State& s) { run_step(s, c.sized, c.zero_fill); };
    benchmark::RegisterBenchmark((std::string("LduStep/") + c.name).c_str(), run)
        ->Unit(benchmark::kMicrosecond);
    for (int iterations : {200, 400})
      benchmark::RegisterBenchmark((std::string("LduStepCount/") + c.name).c_str(), run)
          ->Iterations(iterations);
  }
  return true;
}();

}  // namespace
