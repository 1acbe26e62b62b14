// Graph generators and random block-matrix filling for the BlockLdu tests and benchmarks
// (tests/test_ldu.cpp, benchmarks/bench_ldu.cpp). The ladder / net / crystal graphs are the
// test graphs of Brüdigam et al. (2023), §5.2 and Fig. 9: a 2 x m ladder (two rails plus rungs), an m x m grid and an
// m x m x m cubic grid.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "sim/solver/ldu.hpp"

namespace maxsim::testing {

struct Graph {
  int num_nodes = 0;
  std::vector<std::pair<int, int>> edges;  // undirected, no duplicates, no self loops
};

// Random tree on n nodes: node labels, edge order and edge orientation are all shuffled, so
// neither the labels nor the edge list hint at the tree structure.
inline Graph random_tree(int n, std::mt19937& rng) {
  Graph g;
  g.num_nodes = n;
  std::vector<int> label(n);
  std::iota(label.begin(), label.end(), 0);
  std::shuffle(label.begin(), label.end(), rng);
  for (int v = 1; v < n; ++v) {
    const int parent = std::uniform_int_distribution<int>(0, v - 1)(rng);
    if (rng() & 1u)
      g.edges.emplace_back(label[v], label[parent]);
    else
      g.edges.emplace_back(label[parent], label[v]);
  }
  std::shuffle(g.edges.begin(), g.edges.end(), rng);
  return g;
}

// Ladder with m rungs: nodes 2r (rail 0) and 2r + 1 (rail 1) for r = 0..m-1; 2m nodes,
// 3m - 2 edges, m - 1 independent loops (the 4-cycles between consecutive rungs).
inline Graph ladder(int m) {
  Graph g;
  g.num_nodes = 2 * m;
  for (int r = 0; r < m; ++r) {
    g.edges.emplace_back(2 * r, 2 * r + 1);  // rung
    if (r + 1 < m) {
      g.edges.emplace_back(2 * r, 2 * r + 2);      // rail 0
      g.edges.emplace_back(2 * r + 1, 2 * r + 3);  // rail 1
    }
  }
  return g;
}

// Net: m x m square grid, node x + m y; m^2 nodes, (m - 1)^2 independent loops.
inline Graph net(int m) {
  Graph g;
  g.num_nodes = m * m;
  for (int y = 0; y < m; ++y)
    for (int x = 0; x < m; ++x) {
      const int v = x + m * y;
      if (x + 1 < m) g.edges.emplace_back(v, v + 1);
      if (y + 1 < m) g.edges.emplace_back(v, v + m);
    }
  return g;
}

// Crystal: m x m x m cubic grid, node x + m y + m^2 z; m^3 nodes, 3 m^2 (m - 1) edges.
inline Graph crystal(int m) {
  Graph g;
  g.num_nodes = m * m * m;
  for (int z = 0; z < m; ++z)
    for (int y = 0; y < m; ++y)
      for (int x = 0; x < m; ++x) {
        const int v = x + m * y + m * m * z;
        if (x + 1 < m) g.edges.emplace_back(v, v + 1);
        if (y + 1 < m) g.edges.emplace_back(v, v + m);
        if (z + 1 < m) g.edges.emplace_back(v, v + m * m);
      }
  return g;
}

// Single cycle 0 - 1 - ... - (n-1) - 0 (n >= 3).
inline Graph cycle(int n) {
  Graph g;
  g.num_nodes = n;
  for (int v = 0; v < n; ++v) g.edges.emplace_back(v, (v + 1) % n);
  return g;
}

// Disjoint union; b's nodes are renumbered after a's.
inline Graph disjoint_union(const Graph& a, const Graph& b) {
  Graph g = a;
  g.num_nodes = a.num_nodes + b.num_nodes;
  for (const auto& [i, j] : b.edges) g.edges.emplace_back(i + a.num_nodes, j + a.num_nodes);
  return g;
}

inline Block random_block(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Block b;
  for (int c = 0; c < kBlockSize; ++c)
    for (int r = 0; r < kBlockSize; ++r) b(r, c) = u(rng);
  return b;
}

inline Eigen::VectorXd random_vector(Eigen::Index size, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(size);
  for (Eigen::Index i = 0; i < size; ++i) v[i] = u(rng);
  return v;
}

// Fills an analyzed `ldu` (analyze(g.num_nodes, g.edges, ...) already called) with a random,
// non-symmetric matrix on g's pattern: every off-diagonal block has independent uniform(-1, 1)
// entries (so A_ij != A_ji^T), and each diagonal block is random with its diagonal raised to
// (sum of |entries| of the rest of the scalar row) + 1. The whole matrix is then strictly row
// diagonally dominant with margin 1, a property Gaussian elimination without pivoting
// preserves in every Schur complement: all pivot blocks stay non-singular and well conditioned,
// and the element growth is bounded (by 2).
inline void fill_random_dominant(BlockLdu& ldu, const Graph& g, std::mt19937& rng) {
  ldu.set_zero();
  Eigen::VectorXd row_abs = Eigen::VectorXd::Zero(kBlockSize * g.num_nodes);
  for (int e = 0; e < static_cast<int>(g.edges.size()); ++e) {
    const auto [i, j] = g.edges[e];
    ldu.block(ldu.upper_id(e)) = random_block(rng);  // A_ij
    ldu.block(ldu.lower_id(e)) = random_block(rng);  // A_ji
    row_abs.segment<kBlockSize>(kBlockSize * i) +=
        ldu.block(ldu.upper_id(e)).cwiseAbs().rowwise().sum();
    row_abs.segment<kBlockSize>(kBlockSize * j) +=
        ldu.block(ldu.lower_id(e)).cwiseAbs().rowwise().sum();
  }
  for (int i = 0; i < g.num_nodes; ++i) {
    Block d = random_block(rng);
    for (int r = 0; r < kBlockSize; ++r) {
      const double off = d.row(r).cwiseAbs().sum() - std::abs(d(r, r));
      d(r, r) = off + row_abs[kBlockSize * i + r] + 1.0;
    }
    ldu.diag(i) = d;
  }
}

// Node sizes (BlockLdu::set_node_size): the real rows of each node, 6 for a full node.
using NodeSizes = std::vector<int>;

// Like fill_random_dominant, but node i has only sizes[i] real rows: its diagonal block is
// identity in the padding rows / columns (no coupling to the real ones) and every off-diagonal
// block is zero in the padding rows of its row node and the padding columns of its column node,
// as BlockLdu::set_node_size requires. Still strictly row diagonally dominant with margin 1.
inline void fill_random_dominant_sized(BlockLdu& ldu, const Graph& g, const NodeSizes& sizes,
                                       std::mt19937& rng) {
  ldu.set_zero();
  Eigen::VectorXd row_abs = Eigen::VectorXd::Zero(kBlockSize * g.num_nodes);
  auto coupling = [&](int row_node, int col_node) {
    Block b = random_block(rng);
    b.bottomRows(kBlockSize - sizes[row_node]).setZero();
    b.rightCols(kBlockSize - sizes[col_node]).setZero();
    return b;
  };
  for (int e = 0; e < static_cast<int>(g.edges.size()); ++e) {
    const auto [i, j] = g.edges[e];
    ldu.block(ldu.upper_id(e)) = coupling(i, j);  // A_ij
    ldu.block(ldu.lower_id(e)) = coupling(j, i);  // A_ji
    row_abs.segment<kBlockSize>(kBlockSize * i) +=
        ldu.block(ldu.upper_id(e)).cwiseAbs().rowwise().sum();
    row_abs.segment<kBlockSize>(kBlockSize * j) +=
        ldu.block(ldu.lower_id(e)).cwiseAbs().rowwise().sum();
  }
  for (int i = 0; i < g.num_nodes; ++i) {
    const int m = sizes[i];
    Block d = Block::Identity();
    d.topLeftCorner(m, m) = random_block(rng).topLeftCorner(m, m);
    for (int r = 0; r < m; ++r) {
      const double off = d.row(r).cwiseAbs().sum() - std::abs(d(r, r));
      d(r, r) = off + row_abs[kBlockSize * i + r] + 1.0;
    }
    ldu.diag(i) = d;
  }
}

// The Newton graph of a robot step, numbered as sim/data.cpp numbers it: a quadruped-like tree of
// 13 bodies (a torso and four legs of three bodies) with 13 joints (joint 0 holds the torso to
// the world), `contacts` contact nodes of 4 rows on bodies (most on the feet; the other side is
// the world) and `limits` joint-limit nodes of 1 row, each on the two bodies of a joint. Joints,
// contacts and limits are multiplier nodes; the root is the torso. Joints regularize their five
// constrained rows, contacts and limits all rows only if singular (as sim/data.cpp sets them).
struct StepGraph {
  Graph graph;
  NodeSizes sizes;
  std::vector<char> multiplier;
  int root = 0;
  std::vector<unsigned> reg_mask;
  std::vector<char> reg_only_if_singular;
};

inline StepGraph robot_step(int contacts = 30, int limits = 20) {
  constexpr int kBodies = 13, kJoints = 13;
  StepGraph s;
  std::vector<int> parent(kBodies, -1);  // body tree: leg l is bodies 1 + 3l .. 3 + 3l
  for (int l = 0; l < 4; ++l)
    for (int k = 0; k < 3; ++k) parent[1 + 3 * l + k] = k == 0 ? 0 : 3 * l + k;
  s.graph.num_nodes = kBodies + kJoints + contacts + limits;
  for (int v = 0; v < s.graph.num_nodes; ++v) {
    const bool body = v < kBodies, joint = !body && v < kBodies + kJoints;
    const bool contact = !body && !joint && v < kBodies + kJoints + contacts;
    s.sizes.push_back(body || joint ? 6 : contact ? 4 : 1);
    s.multiplier.push_back(body ? 0 : 1);
    s.reg_mask.push_back(body ? 0u : joint ? 0b011111u : contact ? 0b1111u : 0b1u);
    s.reg_only_if_singular.push_back(body || joint ? 0 : 1);
  }
  for (int j = 0; j < kJoints; ++j) {  // joint j moves body j relative to its parent
    if (parent[j] >= 0) s.graph.edges.emplace_back(kBodies + j, parent[j]);
    s.graph.edges.emplace_back(kBodies + j, j);
  }
  const int feet[4] = {3, 6, 9, 12}, others[6] = {0, 2, 5, 8, 11, 0};
  for (int c = 0; c < contacts; ++c) {
    const int body = c < 24 ? feet[c % 4] : others[(c - 24) % 6];
    s.graph.edges.emplace_back(kBodies + kJoints + c, body);
  }
  for (int l = 0; l < limits; ++l) {
    const int j = 1 + l % (kJoints - 1);
    const int node = kBodies + kJoints + contacts + l;
    s.graph.edges.emplace_back(node, parent[j]);
    s.graph.edges.emplace_back(node, j);
  }
  s.root = 0;
  return s;
}

// A saved copy of all addressable blocks of an assembled BlockLdu (diagonals and edge pairs), to
// re-assemble the same matrix after an in-place factor (fill blocks are reset to zero).
struct BlockSnapshot {
  std::vector<Block, Eigen::aligned_allocator<Block>> diag, upper, lower;

  void save(const BlockLdu& ldu, int num_edges) {
    diag.resize(ldu.num_nodes());
    upper.resize(num_edges);
    lower.resize(num_edges);
    for (int i = 0; i < ldu.num_nodes(); ++i) diag[i] = ldu.diag(i);
    for (int e = 0; e < num_edges; ++e) {
      upper[e] = ldu.block(ldu.upper_id(e));
      lower[e] = ldu.block(ldu.lower_id(e));
    }
  }
  void restore(BlockLdu& ldu) const {
    ldu.set_zero();
    write(ldu);
  }
  // Writes the saved blocks over the current ones without zeroing anything (for zero_fill).
  void write(BlockLdu& ldu) const {
    for (int i = 0; i < static_cast<int>(diag.size()); ++i) ldu.diag(i) = diag[i];
    for (int e = 0; e < static_cast<int>(upper.size()); ++e) {
      ldu.block(ldu.upper_id(e)) = upper[e];
      ldu.block(ldu.lower_id(e)) = lower[e];
    }
  }
};

}  // namespace maxsim::testing
