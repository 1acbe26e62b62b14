// Graph-based block-sparse LDU factorization; see sim/solver/ldu.hpp for the algorithm.
#include "sim/solver/ldu.hpp"

#include "sim/math/block_product.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace maxsim {

namespace {

constexpr double kMinPivotRcond = 1e-14;

// Kernel sizes: a node of m real rows is computed with the kernel of 1, 4 or 6 rows (size class
// 0, 1, 2); rows between m and that are padding (identity / zero), which the kernel carries exactly.
int size_class(int m) { return m <= 1 ? 0 : m <= 4 ? 1 : 2; }

// max that propagates NaN, so that a non-finite entry anywhere makes the rcond NaN
inline double max_nan(double a, double b) { return (b > a || std::isnan(b)) ? b : a; }

// The 1-norm (largest column sum) of an M x M matrix, as that of the 6 x 6 block it is the
// leading part of when the padding rows and columns M..5 are the identity (NaN-propagating).
template <int M, typename W>
double norm1(const W& w) {
  const double norm = w.cwiseAbs().colwise().sum().template maxCoeff<Eigen::PropagateNaN>();
  return M < kBlockSize ? max_nan(1.0, norm) : norm;
}
// One Gauss-Jordan step on pivot row k of the row-major M x M working copy, d = 1 / w_kk:
// the pivot row becomes (w_k ∘ (1 − e_k) + e_k) d and every other row w_r ∘ (1 − e_k) − w_rk × that
// (column k becomes the identity's eliminated column). Whole-row vector operations: a scalar store
// into a row that is then loaded as a vector stalls store forwarding.
template <int M>
void eliminate_column(Eigen::Matrix<double, M, M, Eigen::RowMajor>& w, int k, double d) {
#ifdef MAXSIM_BLOCK_PRODUCT_AVX2
  if constexpr (M == 4 || M == 6) {
    // the same operations on rows in a 4-packet and (M = 6) a 2-packet: the same bits, fewer
    // instructions than Eigen's 2-packets for 6-wide rows
    struct Masks {  // e_k and 1 − e_k, padded to 8
      alignas(32) double at[kBlockSize][8];
      alignas(32) double om[kBlockSize][8];
      Masks() {
        for (int i = 0; i < kBlockSize; ++i)
          for (int c = 0; c < 8; ++c) {
            at[i][c] = c == i ? 1.0 : 0.0;
            om[i][c] = 1.0 - at[i][c];
          }
      }
    };
    static const Masks masks;
    double* const wd = w.data();
    double* const rk = wd + M * k;
    const __m256d dv = _mm256_set1_pd(d);
    const __m256d om_lo = _mm256_load_pd(masks.om[k]);
    const __m256d pr_lo =
        _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(rk), om_lo), _mm256_load_pd(masks.at[k])), dv);
    [[maybe_unused]] __m128d om_hi, pr_hi;
    if constexpr (M == 6) {
      om_hi = _mm_load_pd(masks.om[k] + 4);
      pr_hi = _mm_mul_pd(_mm_add_pd(_mm_mul_pd(_mm_loadu_pd(rk + 4), om_hi), _mm_load_pd(masks.at[k] + 4)),
                         _mm256_castpd256_pd128(dv));
    }
    _mm256_storeu_pd(rk, pr_lo);
    if constexpr (M == 6) _mm_storeu_pd(rk + 4, pr_hi);
    for (int r = 0; r < M; ++r) {
      if (r == k) continue;
      double* const rr = wd + M * r;
      const __m256d f = _mm256_set1_pd(rr[k]);
      _mm256_storeu_pd(rr, _mm256_sub_pd(_mm256_mul_pd(_mm256_loadu_pd(rr), om_lo), _mm256_mul_pd(f, pr_lo)));
      if constexpr (M == 6)
        _mm_storeu_pd(rr + 4, _mm_sub_pd(_mm_mul_pd(_mm_loadu_pd(rr + 4), om_hi),
                                         _mm_mul_pd(_mm256_castpd256_pd128(f), pr_hi)));
    }
    return;
  }
#endif
  using RowArray = Eigen::Array<double, 1, M>;
  const RowArray at_k = (RowArray::LinSpaced(M, 0, M - 1) == double(k)).template cast<double>();
  const RowArray pivot_row = (w.row(k).array() * (1.0 - at_k) + at_k) * d;
  w.row(k) = pivot_row.matrix();
  for (int r = 0; r < M; ++r) {
    if (r == k) continue;
    const double f = w(r, k);
    w.row(r) = (w.row(r).array() * (1.0 - at_k) - f * pivot_row).matrix();
  }
}

// Inverts the leading M x M block of a pivot by Gauss-Jordan elimination with partial (row)
// pivoting, into the leading M x M block of `inv_out`, and returns the reciprocal condition
// number of the 6 x 6 block (identity padding) in the 1-norm, 1 / (|A|_1 |A^-1|_1), computed
// exactly from the inverse (0 for an exactly singular block; NaN if A has non-finite entries).
// In place (the inverse's columns replace the eliminated ones, unpermuted at the end), on a
// row-major working copy: the same values as eliminating [A | I], without the operations on the
// identity's zeros. This is ~10x faster than Eigen::PartialPivLU<Block> + inverse() +
// rcond() (whose rcond is an estimate of the same quantity, from above) and as accurate: both
// are partial-pivoting eliminations.
template <int M>
double invert_pivot(const Block& a_in, Block& inv_out) {
  using W = Eigen::Matrix<double, M, M, Eigen::RowMajor>;
  W w = a_in.topLeftCorner<M, M>();
  const double norm_a = norm1<M>(w);
  int swapped[M];
  for (int k = 0; k < M; ++k) {
    int p = k;
    double best = std::abs(w(k, k));
    for (int r = k + 1; r < M; ++r) {
      const double v = std::abs(w(r, k));
      if (v > best) {
        best = v;
        p = r;
      }
    }
    if (!(best > 0.0)) return best == 0.0 ? 0.0 : best;  // singular (0) or NaN
    swapped[k] = p;
    if (p != k) w.row(p).swap(w.row(k));
    eliminate_column<M>(w, k, 1.0 / w(k, k));
  }
  int column_of[M];
  for (int c = 0; c < M; ++c) column_of[c] = c;
  for (int k = M - 1; k >= 0; --k) std::swap(column_of[k], column_of[swapped[k]]);
  for (int c = 0; c < M; ++c) inv_out.col(c).head<M>() = w.col(column_of[c]);
  return 1.0 / (norm_a * norm1<M>(w));
}

// Reciprocal condition of S A S with S = diag(m_r^(−1/2)), m_r = √(rowmax_r · colmax_r), from A and its
// inverse (leading M x M blocks, identity padding): the condition that matters for solving with
// A, independent of how its rows and columns are scaled. An interior point near convergence gives
// pivots whose entries span 10¹⁵ (gap and cone stiffnesses γ/s, β₀/η₀ next to masses): the plain
// 1-norm rcond calls such a block singular although partial pivoting inverts it to full accuracy.
template <int M>
double equilibrated_rcond(const Block& a, const Block& inv) {
  using Vec = Eigen::Matrix<double, M, 1>;
  Vec s;
  for (int r = 0; r < M; ++r) {
    const double m = std::sqrt(a.block<1, M>(r, 0).cwiseAbs().maxCoeff() *
                               a.block<M, 1>(0, r).cwiseAbs().maxCoeff());
    if (!(m > 0) || !std::isfinite(m)) return 0.0;  // an empty row or column: singular
    s(r) = 1.0 / std::sqrt(m);
  }
  using Mat = Eigen::Matrix<double, M, M>;
  const Mat scaled = s.asDiagonal() * a.topLeftCorner<M, M>() * s.asDiagonal();
  const Mat scaled_inv = s.cwiseInverse().asDiagonal() * inv.topLeftCorner<M, M>() * s.cwiseInverse().asDiagonal();
  return 1.0 / (norm1<M>(scaled) * norm1<M>(scaled_inv));
}

struct Pivot {
  bool ok = false;
  bool regularized = false;
  double shift = 0;  // added to the masked diagonal entries
};

// Inverts pivot `a` (leading M x M block; `mask`: the rows that may be regularized) into `dinv`,
// regularizing it when (nearly) singular; see BlockLdu::set_regularized_rows.
template <int M>
Pivot factor_pivot(Block& a, Block& dinv, unsigned mask, bool only_if_singular, bool loops,
                   double regularization, double regularization_rcond) {
  Pivot result;
  double rcond = invert_pivot<M>(a, dinv);
  if (mask != 0 && std::isfinite(rcond)) {
    // raw test first: a nearly zero diagonal makes the equilibration itself meaningless
    bool singular = rcond < 1e2 * kMinPivotRcond;
    // equilibrated condition of the pivot: scale-free test for dependent rows. Only a graph
    // with loops can make a pivot singular through redundant constraints (a tree's joint
    // pivot is J M⁻¹ Jᵀ on independent rows), so trees skip this test.
    if (!singular && !only_if_singular && loops) {
      // (S A S)⁻¹ = S⁻¹ A⁻¹ S⁻¹: the scaled block's condition from the inverse at hand
      Eigen::Matrix<double, M, 1> scale;
      for (int r = 0; r < M; ++r) {
        const double d = std::abs(a(r, r));
        scale(r) = d > 0 ? 1.0 / std::sqrt(d) : 1.0;
      }
      using Mat = Eigen::Matrix<double, M, M>;
      const Mat scaled = scale.asDiagonal() * a.topLeftCorner<M, M>() * scale.asDiagonal();
      const Mat scaled_inv = scale.cwiseInverse().asDiagonal() * dinv.topLeftCorner<M, M>() *
                             scale.cwiseInverse().asDiagonal();
      singular = !(1.0 / (norm1<M>(scaled) * norm1<M>(scaled_inv)) >= regularization_rcond);
    }
    if (singular) {
      double largest = M < kBlockSize ? 1.0 : 0.0;  // (the padding's identity rows)
      for (int r = 0; r < M; ++r) largest = std::max(largest, std::abs(a(r, r)));
      result.shift = regularization * largest;
      for (int r = 0; r < M; ++r)
        if ((mask >> r) & 1) a(r, r) += result.shift;
      rcond = invert_pivot<M>(a, dinv);
      result.regularized = true;
    }
  }
  // (rcond is NaN for non-finite input; an overflowing inverse gives rcond 0) — a block that
  // is merely badly scaled passes on its equilibrated condition
  if (!(rcond >= kMinPivotRcond) && std::isfinite(rcond) && rcond > 0 &&
      dinv.topLeftCorner<M, M>().allFinite())
    rcond = equilibrated_rcond<M>(a, dinv);
  result.ok = rcond >= kMinPivotRcond && std::isfinite(rcond);
  return result;
}

// factor_pivot with the kernel of a node's size class (0: 1 row, 1: 4, 2: 6).
Pivot factor_pivot_of_class(int size_class, Block& a, Block& dinv, unsigned mask, bool only_if_singular,
                            bool loops, double regularization, double rcond) {
  switch (size_class) {
    case 0: return factor_pivot<1>(a, dinv, mask, only_if_singular, loops, regularization, rcond);
    case 1: return factor_pivot<4>(a, dinv, mask, only_if_singular, loops, regularization, rcond);
    default: return factor_pivot<kBlockSize>(a, dinv, mask, only_if_singular, loops, regularization, rcond);
  }
}

// U_kj = Dinv_k A_kj on the real rows of k and columns of j.
template <int Mk, int Mj>
void scale_upper(const Block& dinv, Block& akj) {
  block_product::multiply_in_place<Mk, Mj>(dinv, akj);
}

// A_ij -= A_ik U_kj on the real rows of i and columns of j, summing over the real rows of k.
template <int Mi, int Mk, int Mj>
void schur_update(Block& aij, const Block& aik, const Block& ukj) {
  block_product::subtract_product<Mi, Mk, Mj>(aik, ukj, aij);
}

using UpperKernel = void (*)(const Block&, Block&);
using UpdateKernel = void (*)(Block&, const Block&, const Block&);
// indexed by the size classes: [k][j] and [i][k][j]
constexpr UpperKernel kScaleUpper[3][3] = {
    {&scale_upper<1, 1>, &scale_upper<1, 4>, &scale_upper<1, 6>},
    {&scale_upper<4, 1>, &scale_upper<4, 4>, &scale_upper<4, 6>},
    {&scale_upper<6, 1>, &scale_upper<6, 4>, &scale_upper<6, 6>}};
// index 9 class_i + 3 class_k + class_j
#define MAXSIM_LDU_UPDATE_ROW(I, K) &schur_update<I, K, 1>, &schur_update<I, K, 4>, &schur_update<I, K, 6>
constexpr UpdateKernel kSchurUpdate[27] = {
    MAXSIM_LDU_UPDATE_ROW(1, 1), MAXSIM_LDU_UPDATE_ROW(1, 4), MAXSIM_LDU_UPDATE_ROW(1, 6),
    MAXSIM_LDU_UPDATE_ROW(4, 1), MAXSIM_LDU_UPDATE_ROW(4, 4), MAXSIM_LDU_UPDATE_ROW(4, 6),
    MAXSIM_LDU_UPDATE_ROW(6, 1), MAXSIM_LDU_UPDATE_ROW(6, 4), MAXSIM_LDU_UPDATE_ROW(6, 6)};
#undef MAXSIM_LDU_UPDATE_ROW

// b_i -= A_ik z_k (real rows of i, real columns of k)
template <int Mk>
void subtract_lower(int class_i, const Block& aik, const double* zk, double* bi) {
  switch (class_i) {
    case 0: block_product::subtract_product<1, Mk>(aik, zk, bi); break;
    case 1: block_product::subtract_product<4, Mk>(aik, zk, bi); break;
    default: block_product::subtract_product<kBlockSize, Mk>(aik, zk, bi);
  }
}

// x_k -= U_kj x_j (real rows of k, real columns of j)
template <int Mk>
void subtract_upper(int class_j, const Block& ukj, const double* xj, double* xk) {
  switch (class_j) {
    case 0: block_product::subtract_product<Mk, 1>(ukj, xj, xk); break;
    case 1: block_product::subtract_product<Mk, 4>(ukj, xj, xk); break;
    default: block_product::subtract_product<Mk, kBlockSize>(ukj, xj, xk);
  }
}

// Block id of each (row node, column node) pair during analyze: a dense n x n table where that
// is small (the common case: one allocation, no hashing), a hash map otherwise.
class BlockTable {
 public:
  BlockTable(int n, std::size_t expected) : n_(n), dense_(static_cast<std::int64_t>(n) * n <= kDenseLimit) {
    if (dense_) {
      ids_.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), -1);
    } else {
      map_.reserve(expected);
    }
  }
  // false (and nothing stored) when (i, j) has an id already
  bool insert(int i, int j, int id) {
    if (!dense_) return map_.emplace(key(i, j), id).second;
    int& slot = ids_[key(i, j)];
    if (slot >= 0) return false;
    slot = id;
    return true;
  }
  int at(int i, int j) const { return dense_ ? ids_[key(i, j)] : map_.at(key(i, j)); }

 private:
  static constexpr std::int64_t kDenseLimit = 1 << 20;  // entries (4 MiB)
  std::size_t key(int i, int j) const {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(j);
  }
  int n_;
  bool dense_;
  std::vector<int> ids_;
  std::unordered_map<std::uint64_t, int> map_;
};

}  // namespace

void BlockLdu::analyze(int num_nodes, const std::vector<std::pair<int, int>>& edges, int root,
                       const std::vector<char>* multiplier, bool bodies_first, const std::vector<char>* placement) {
  // Start from the empty structure, so that an invalid graph (exception below) leaves a valid
  // 0-node object rather than a half-analyzed one.
  num_nodes_ = num_loops_ = num_fill_ = 0;
  order_.clear();
  position_.clear();
  blocks_.clear();
  edge_ids_.clear();
  block_rc_.clear();
  later_begin_.assign(1, 0);
  later_.clear();
  update_begin_.assign(1, 0);
  updates_.clear();
  dinv_.clear();
  fill_ids_.clear();
  node_size_.clear();
  node_class_.clear();
  update_kernel_.clear();

  if (num_nodes < 0) throw std::invalid_argument("BlockLdu::analyze: negative node count");
  const int n = num_nodes;
  const int m = static_cast<int>(edges.size());
  if (root < -1 || (root >= 0 && root >= n))
    throw std::invalid_argument("BlockLdu::analyze: root out of range");

  // ---- adjacency of the input graph (CSR, neighbours in input-edge order) ----
  std::vector<int> adj_begin(n + 1, 0);
  for (int e = 0; e < m; ++e) {
    const auto [i, j] = edges[e];
    if (i < 0 || j < 0 || i >= n || j >= n)
      throw std::invalid_argument("BlockLdu::analyze: edge " + std::to_string(e) +
                                  " has a node out of range");
    if (i == j)
      throw std::invalid_argument("BlockLdu::analyze: edge " + std::to_string(e) +
                                  " is a self loop");
    ++adj_begin[i + 1];
    ++adj_begin[j + 1];
  }
  for (int i = 0; i < n; ++i) adj_begin[i + 1] += adj_begin[i];
  std::vector<int> adj(2 * static_cast<std::size_t>(m));
  {
    std::vector<int> fill_pos(adj_begin.begin(), adj_begin.end() - 1);
    for (int e = 0; e < m; ++e) {
      adj[fill_pos[edges[e].first]++] = edges[e].second;
      adj[fill_pos[edges[e].second]++] = edges[e].first;
    }
  }

  {  // duplicate edges: a repeated neighbour in some adjacency list
    std::vector<int> seg;
    for (int i = 0; i < n; ++i) {
      seg.assign(adj.begin() + adj_begin[i], adj.begin() + adj_begin[i + 1]);
      std::sort(seg.begin(), seg.end());
      const auto dup = std::adjacent_find(seg.begin(), seg.end());
      if (dup != seg.end())
        throw std::invalid_argument("BlockLdu::analyze: duplicate edge between nodes " +
                                    std::to_string(i) + " and " + std::to_string(*dup));
    }
  }

  // ---- iterative DFS, post-order per connected component ----
  order_.clear();
  order_.reserve(n);
  int components = 0;
  if (placement != nullptr && static_cast<int>(placement->size()) != n)
    throw std::invalid_argument("BlockLdu::analyze: one placement per node expected");
  // nodes placed first or last are ordered apart (at the end); the orders below skip them
  auto apart = [&](int v) { return placement != nullptr && (*placement)[v] != 0; };
  {
    std::vector<char> visited(n, 0);
    for (int v = 0; v < n; ++v) visited[v] = apart(v);
    std::vector<std::pair<int, int>> stack;  // (node, next adjacency index)
    stack.reserve(n);
    auto dfs = [&](int start) {
      ++components;
      visited[start] = 1;
      stack.emplace_back(start, adj_begin[start]);
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next < adj_begin[v + 1]) {
          const int w = adj[next++];
          if (!visited[w]) {
            visited[w] = 1;
            stack.emplace_back(w, adj_begin[w]);  // may invalidate v/next: not used after
          }
        } else {
          order_.push_back(v);
          stack.pop_back();
        }
      }
    };
    if (root >= 0) dfs(root);
    for (int s = 0; s < n; ++s)
      if (!visited[s]) dfs(s);
  }
  // ---- every other node first, then the multipliers by minimum degree ----
  if (multiplier != nullptr && bodies_first) {
    if (static_cast<int>(multiplier->size()) != n)
      throw std::invalid_argument("BlockLdu::analyze: one multiplier flag per node expected");
    std::vector<int> reordered;
    reordered.reserve(n);
    for (int v : order_)
      if (!(*multiplier)[v]) reordered.push_back(v);
    // the multipliers' graph after the others are eliminated: two multipliers are adjacent when
    // they share an eliminated neighbour (or are adjacent themselves)
    std::vector<std::vector<int>> g(n);
    for (int v = 0; v < n; ++v) {
      if (!(*multiplier)[v] || apart(v)) continue;
      for (int a = adj_begin[v]; a < adj_begin[v + 1]; ++a) {
        const int w = adj[a];
        if (apart(w)) continue;
        if ((*multiplier)[w]) {
          g[v].push_back(w);
        } else {
          for (int b = adj_begin[w]; b < adj_begin[w + 1]; ++b)
            if (adj[b] != v && (*multiplier)[adj[b]] && !apart(adj[b])) g[v].push_back(adj[b]);
        }
      }
      std::sort(g[v].begin(), g[v].end());
      g[v].erase(std::unique(g[v].begin(), g[v].end()), g[v].end());
    }
    std::vector<char> done(n, 0);
    int remaining = 0;
    for (int v = 0; v < n; ++v) remaining += (*multiplier)[v] && !apart(v) ? 1 : 0;
    while (remaining-- > 0) {
      int best = -1;
      size_t best_degree = 0;
      for (int v = 0; v < n; ++v) {
        if (!(*multiplier)[v] || done[v] || apart(v)) continue;
        size_t degree = 0;
        for (int w : g[v]) degree += done[w] ? 0 : 1;
        if (best < 0 || degree < best_degree) {
          best = v;
          best_degree = degree;
        }
      }
      done[best] = 1;
      reordered.push_back(best);
      // its remaining neighbours become a clique (fill)
      std::vector<int> nb;
      for (int w : g[best])
        if (!done[w]) nb.push_back(w);
      for (int a : nb)
        for (int b : nb)
          if (a != b && std::find(g[a].begin(), g[a].end(), b) == g[a].end()) g[a].push_back(b);
    }
    order_.swap(reordered);
  } else if (multiplier != nullptr) {  // ---- multiplier nodes never go first: move each after its earliest neighbour ----
    if (static_cast<int>(multiplier->size()) != n)
      throw std::invalid_argument("BlockLdu::analyze: one multiplier flag per node expected");
    const int ordered = static_cast<int>(order_.size());  // (without the nodes placed apart)
    std::vector<int> pos(n);
    for (int p = 0; p < ordered; ++p) pos[order_[p]] = p;
    std::vector<int> anchor(n, -1);  // node after which a moved node is emitted
    for (int v = 0; v < n; ++v) {
      if (!(*multiplier)[v] || adj_begin[v] == adj_begin[v + 1]) continue;
      if (apart(v)) continue;
      int earliest = -1;
      for (int a = adj_begin[v]; a < adj_begin[v + 1]; ++a)
        if (!apart(adj[a]) && (earliest < 0 || pos[adj[a]] < pos[earliest])) earliest = adj[a];
      if (earliest >= 0 && pos[earliest] > pos[v]) anchor[v] = earliest;
    }
    std::vector<std::vector<int>> moved_after(n);
    for (int p = 0; p < ordered; ++p)
      if (anchor[order_[p]] >= 0) moved_after[anchor[order_[p]]].push_back(order_[p]);
    std::vector<int> reordered;
    reordered.reserve(n);
    std::vector<int> pending;
    for (int p = 0; p < ordered; ++p) {
      if (anchor[order_[p]] >= 0) continue;
      pending.push_back(order_[p]);
      while (!pending.empty()) {  // a node, then whatever is anchored to it (recursively)
        const int u = pending.back();
        pending.pop_back();
        reordered.push_back(u);
        for (auto it = moved_after[u].rbegin(); it != moved_after[u].rend(); ++it) pending.push_back(*it);
      }
    }
    order_.swap(reordered);
  }
  if (placement != nullptr) {  // the nodes placed first, the order above, the nodes placed last
    std::vector<int> reordered;
    reordered.reserve(n);
    for (int v = 0; v < n; ++v)
      if ((*placement)[v] == kPlaceFirst) reordered.push_back(v);
    reordered.insert(reordered.end(), order_.begin(), order_.end());
    for (int v = 0; v < n; ++v)
      if ((*placement)[v] == kPlaceLast) reordered.push_back(v);
    order_.swap(reordered);
  }
  position_.assign(n, 0);
  reg_mask_.assign(n, 0);
  reg_only_singular_.assign(n, 0);
  reg_shift_.assign(n, 0.0);
  correction_.setZero(kBlockSize * static_cast<Eigen::Index>(n));
  for (int p = 0; p < n; ++p) position_[order_[p]] = p;

  // ---- block ids: diagonals [0, n), edge pairs, then fill pairs ----
  // Off-diagonal block ids are provisional here and renumbered below for locality.
  // block_nodes[id - n] = (row node, column node) of off-diagonal block id.
  std::vector<std::pair<int, int>> block_nodes;
  block_nodes.reserve(2 * static_cast<std::size_t>(m));
  BlockTable block_of(n, 4 * static_cast<std::size_t>(m) + 16);  // (row, col) -> block id
  std::vector<std::vector<int>> nbrs(n);  // current (growing) adjacency, edges + fill
  for (int i = 0; i < n; ++i)
    nbrs[i].assign(adj.begin() + adj_begin[i], adj.begin() + adj_begin[i + 1]);
  for (int e = 0; e < m; ++e) {
    const auto [i, j] = edges[e];
    const int up = n + static_cast<int>(block_nodes.size());
    block_of.insert(i, j, up);  // (no duplicates: checked above)
    block_of.insert(j, i, up + 1);
    block_nodes.emplace_back(i, j);
    block_nodes.emplace_back(j, i);
  }
  num_loops_ = m - n + components;

  // ---- symbolic elimination ----
  num_fill_ = 0;
  later_begin_.assign(n + 1, 0);
  later_.clear();
  update_begin_.assign(n + 1, 0);
  updates_.clear();
  std::vector<int> later_nodes;
  for (int p = 0; p < n; ++p) {
    const int k = order_[p];
    later_nodes.clear();
    for (int w : nbrs[k])
      if (position_[w] > p) later_nodes.push_back(w);
    std::sort(later_nodes.begin(), later_nodes.end(),
              [&](int a, int b) { return position_[a] < position_[b]; });
    later_begin_[p] = static_cast<int>(later_.size());
    for (int i : later_nodes)
      later_.push_back({i, block_of.at(i, k), block_of.at(k, i)});
    // Fill-in: connect every pair of later neighbours.
    for (std::size_t a = 0; a < later_nodes.size(); ++a) {
      for (std::size_t b = a + 1; b < later_nodes.size(); ++b) {
        const int i = later_nodes[a], j = later_nodes[b];
        const int id = n + static_cast<int>(block_nodes.size());
        if (block_of.insert(i, j, id)) {
          block_of.insert(j, i, id + 1);
          block_nodes.emplace_back(i, j);
          block_nodes.emplace_back(j, i);
          nbrs[i].push_back(j);
          nbrs[j].push_back(i);
          ++num_fill_;
        }
      }
    }
    update_begin_[p] = static_cast<int>(updates_.size());
    const int lb = later_begin_[p];
    const int le = static_cast<int>(later_.size());
    for (int a = lb; a < le; ++a) {
      for (int b = lb; b < le; ++b) {
        const int i = later_[a].node, j = later_[b].node;
        const int target = (i == j) ? i : block_of.at(i, j);
        updates_.push_back({later_[a].lower, later_[b].upper, target});
      }
    }
  }
  later_begin_[n] = static_cast<int>(later_.size());
  update_begin_[n] = static_cast<int>(updates_.size());

  // ---- renumber off-diagonal blocks in the order factor() finalizes them ----
  // (block pair (i, j) becomes L / U when min(pos i, pos j) is eliminated), so factor and solve
  // walk the block array roughly sequentially.
  const int num_off = static_cast<int>(block_nodes.size());
  // order: by the position at which the pair is eliminated, then (the L and U blocks of the same
  // neighbour adjacent) by the other node's position, then by provisional id — a bucket per
  // elimination position, each sorted on (other position, id)
  std::vector<int> bucket_begin(n + 1, 0);
  std::vector<std::pair<int, int>> keyed(num_off);  // (other position, provisional id)
  for (int off = 0; off < num_off; ++off) {
    const int pi = position_[block_nodes[off].first], pj = position_[block_nodes[off].second];
    ++bucket_begin[std::min(pi, pj) + 1];
  }
  for (int p = 0; p < n; ++p) bucket_begin[p + 1] += bucket_begin[p];
  {
    std::vector<int> next(bucket_begin.begin(), bucket_begin.end() - 1);
    for (int off = 0; off < num_off; ++off) {
      const int pi = position_[block_nodes[off].first], pj = position_[block_nodes[off].second];
      keyed[next[std::min(pi, pj)]++] = {std::max(pi, pj), off};
    }
  }
  for (int p = 0; p < n; ++p)
    std::sort(keyed.begin() + bucket_begin[p], keyed.begin() + bucket_begin[p + 1]);
  std::vector<int> new_id(n + num_off);
  std::iota(new_id.begin(), new_id.begin() + n, 0);
  for (int r = 0; r < num_off; ++r) new_id[n + keyed[r].second] = n + r;

  block_rc_.resize(num_off);
  for (int off = 0; off < num_off; ++off) block_rc_[new_id[n + off] - n] = block_nodes[off];
  edge_ids_.resize(2 * static_cast<std::size_t>(m));
  for (int e = 0; e < m; ++e) {
    edge_ids_[2 * e] = new_id[n + 2 * e];
    edge_ids_[2 * e + 1] = new_id[n + 2 * e + 1];
  }
  for (Later& l : later_) {
    l.lower = new_id[l.lower];
    l.upper = new_id[l.upper];
  }
  for (Update& u : updates_) {
    u.lower_ik = new_id[u.lower_ik];
    u.upper_kj = new_id[u.upper_kj];
    u.target = new_id[u.target];
  }

  fill_ids_.clear();
  for (int off = 2 * m; off < num_off; ++off) fill_ids_.push_back(new_id[n + off]);
  std::sort(fill_ids_.begin(), fill_ids_.end());

  num_nodes_ = n;
  blocks_.assign(n + num_off, Block::Zero());
  dinv_.assign(n, Block::Zero());
  node_size_.assign(n, kBlockSize);
  node_class_.assign(n, static_cast<unsigned char>(size_class(kBlockSize)));
  update_kernel_.assign(updates_.size(), 0);
  kernels_stale_ = true;
  fill_padding_stale_ = false;
}

// Everything analyze sets but the numeric blocks (blocks_, dinv_) and the settings it leaves alone.
void BlockLdu::copy_symbolic(const BlockLdu& from) {
  num_nodes_ = from.num_nodes_;
  num_loops_ = from.num_loops_;
  num_fill_ = from.num_fill_;
  order_ = from.order_;
  position_ = from.position_;
  edge_ids_ = from.edge_ids_;
  reg_mask_ = from.reg_mask_;
  reg_only_singular_ = from.reg_only_singular_;
  reg_shift_ = from.reg_shift_;
  correction_ = from.correction_;
  block_rc_ = from.block_rc_;
  later_begin_ = from.later_begin_;
  later_ = from.later_;
  update_begin_ = from.update_begin_;
  updates_ = from.updates_;
  fill_ids_ = from.fill_ids_;
  node_size_ = from.node_size_;
  node_class_ = from.node_class_;
  update_kernel_ = from.update_kernel_;
  kernels_stale_ = from.kernels_stale_;
  fill_padding_stale_ = from.fill_padding_stale_;
}

BlockLdu BlockLdu::symbolic_copy() const {
  BlockLdu out;
  out.copy_symbolic(*this);
  return out;
}

void BlockLdu::assign_analysis(const BlockLdu& symbolic) {
  copy_symbolic(symbolic);
  // (as analyze leaves them)
  blocks_.assign(num_nodes_ + block_rc_.size(), Block::Zero());
  dinv_.assign(num_nodes_, Block::Zero());
}

static_assert(sizeof(Block) == sizeof(double) * Block::SizeAtCompileTime, "Block is unpadded");

void BlockLdu::set_zero() {
  fill_padding_stale_ = false;
  if (!blocks_.empty())
    std::fill_n(blocks_.data()->data(),
                static_cast<std::size_t>(blocks_.size()) * Block::SizeAtCompileTime, 0.0);
}

template <int R, int C>
void zero_leading(Block& b) {
  b.topLeftCorner<R, C>().setZero();
}

// Only the kernel rows x columns of a fill block are zeroed: factor never writes the rest, so it
// stays zero from the last whole-block zeroing (analyze, set_zero, or here after a node's kernel
// size changed, which may have left entries of the larger size there).
void BlockLdu::zero_fill() {
  if (fill_padding_stale_) {
    for (int id : fill_ids_) blocks_[id].setZero();
    fill_padding_stale_ = false;
    return;
  }
  for (int id : fill_ids_) {
    const auto [i, j] = block_rc_[id - num_nodes_];
    Block& b = blocks_[id];
    switch (3 * node_class_[i] + node_class_[j]) {
      case 0: zero_leading<1, 1>(b); break;
      case 1: zero_leading<1, 4>(b); break;
      case 2: zero_leading<1, 6>(b); break;
      case 3: zero_leading<4, 1>(b); break;
      case 4: zero_leading<4, 4>(b); break;
      case 5: zero_leading<4, 6>(b); break;
      case 6: zero_leading<6, 1>(b); break;
      case 7: zero_leading<6, 4>(b); break;
      default: b.setZero();
    }
  }
}

void BlockLdu::set_node_size(int node, int m) {
  if (node < 0 || node >= num_nodes_)
    throw std::invalid_argument("BlockLdu::set_node_size: node out of range");
  if (m < 1 || m > kBlockSize)
    throw std::invalid_argument("BlockLdu::set_node_size: size must be 1 .. 6");
  node_size_[node] = static_cast<unsigned char>(m);
  if (node_class_[node] != size_class(m)) {
    node_class_[node] = static_cast<unsigned char>(size_class(m));
    kernels_stale_ = true;
    fill_padding_stale_ = true;
  }
}

// The factors are stored implicitly: after factor, U block (k, j) holds U_kj = Dinv_k A_kj and
// L block (i, k) still holds the Schur-updated A_ik = L_ik D_k, i.e. L_ik = A_ik Dinv_k is never
// formed. This saves one 6x6 product per (node, later neighbour) pair in factor; the forward
// substitution applies Dinv_k to b_k once instead (which the backward pass then reuses):
//   forward:  z_k = Dinv_k b_k;  b_i -= A_ik z_k     (= L_ik b_k)
//   backward: x_k = z_k - sum_j U_kj x_j
bool BlockLdu::factor() { return factor_leading(num_nodes_); }

bool BlockLdu::factor_leading(int stop) {
  const int n = num_nodes_;
  if (stop < 0 || stop > n) throw std::invalid_argument("BlockLdu::factor_leading: stop out of range");
  Block* const blocks = blocks_.data();
  const Later* const later = later_.data();
  const Update* const updates = updates_.data();
  const unsigned char* const node_class = node_class_.data();
  const bool loops = num_loops_ > 0;
  if (kernels_stale_) {  // node sizes changed: kernel of each Schur update
    for (int p = 0; p < n; ++p) {
      const int ck = node_class[order_[p]];
      int u = update_begin_[p];
      for (int a = later_begin_[p]; a < later_begin_[p + 1]; ++a)
        for (int b = later_begin_[p]; b < later_begin_[p + 1]; ++b, ++u)
          update_kernel_[u] = static_cast<unsigned char>(9 * node_class[later[a].node] + 3 * ck +
                                                         node_class[later[b].node]);
    }
    kernels_stale_ = false;
  }
  const unsigned char* const update_kernel = update_kernel_.data();
  num_regularized_ = 0;
  for (int p = 0; p < stop; ++p) {
    const int k = order_[p];
    const int ck = node_class[k];
    const unsigned mask = reg_mask_[k] & ((1u << node_size_[k]) - 1u);  // real rows only
    const bool only_singular = reg_only_singular_[k] != 0;
    const Pivot pivot = factor_pivot_of_class(ck, blocks[k], dinv_[k], mask, only_singular, loops,
                                              regularization, regularization_rcond);
    reg_shift_[k] = pivot.shift;
    num_regularized_ += pivot.regularized;
    if (!pivot.ok) return false;

    // U_kj = Dinv_k A_kj, in place of A_kj.
    const int lb = later_begin_[p], le = later_begin_[p + 1];
    const Block& dinv = dinv_[k];
    for (int a = lb; a < le; ++a)
      kScaleUpper[ck][node_class[later[a].node]](dinv, blocks[later[a].upper]);
    // A_ij -= A_ik U_kj  (= A_ik Dinv_k A_kj) for i, j later neighbours (analyze lists the pairs
    // row by row); targets are never A_ik or U_kj blocks of this k.
    const int ue = update_begin_[p + 1];
    for (int u = update_begin_[p]; u < ue; ++u)
      kSchurUpdate[update_kernel[u]](blocks[updates[u].target], blocks[updates[u].lower_ik],
                                     blocks[updates[u].upper_kj]);
  }
  return true;
}

void BlockLdu::solve(Eigen::Ref<Eigen::VectorXd> b, int refinement_sweeps) const {
  if (b.size() != static_cast<Eigen::Index>(kBlockSize) * num_nodes_)
    throw std::invalid_argument("BlockLdu::solve: right-hand side has the wrong size");
  const double b_size = refinement_sweeps > 0 ? b.lpNorm<Eigen::Infinity>() : 0.0;
  solve_factored(b);
  num_sweeps_ = 0;
  if (num_regularized_ > 0 && refinement_sweeps > 0) refine(b, b_size, refinement_sweeps);
}

// x_{i+1} = x₀ + (A+S)⁻¹ S x_i, run as corrections c_{i+1} = (A+S)⁻¹ S c_i, c₀ = x₀. The residual
// of the original system after a sweep is A x_i − b = −S c_i, so it costs nothing to watch.
void BlockLdu::refine(Eigen::Ref<Eigen::VectorXd> x, double b_size, int sweeps) const {
  const int n = num_nodes_;
  correction_ = x;
  double last = std::numeric_limits<double>::infinity();
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (int k = 0; k < n; ++k) {
      auto c = correction_.segment<kBlockSize>(kBlockSize * k);
      const unsigned mask = reg_mask_[k] & ((1u << node_size_[k]) - 1u);
      for (int r = 0; r < kBlockSize; ++r) c(r) = ((mask >> r) & 1) ? reg_shift_[k] * c(r) : 0.0;
    }
    const double residual = correction_.lpNorm<Eigen::Infinity>();  // ‖A x − b‖∞
    // solved, or no longer shrinking: what is left lies along exactly redundant directions
    if (residual <= refinement_tolerance * b_size || !(residual < 0.9 * last)) break;
    last = residual;
    solve_factored(correction_);
    x += correction_;
    ++num_sweeps_;
  }
}

template <int Mk>
void BlockLdu::forward_node(int p, double* b) const {
  const int k = order_[p];
  double* const bk = b + kBlockSize * k;
  alignas(32) double zk[kBlockSize];
  block_product::assign_product<Mk>(dinv_[k], bk, zk);
  std::copy(zk, zk + Mk, bk);
  const Later* const end = later_.data() + later_begin_[p + 1];
  for (const Later* l = later_.data() + later_begin_[p]; l != end; ++l)
    subtract_lower<Mk>(node_class_[l->node], blocks_[l->lower], zk, b + kBlockSize * l->node);
}

template <int Mk>
void BlockLdu::backward_node(int p, double* b) const {
  const int k = order_[p];
  double* const bk = b + kBlockSize * k;
  alignas(32) double xk[kBlockSize];
  std::copy(bk, bk + Mk, xk);
  const Later* const end = later_.data() + later_begin_[p + 1];
  for (const Later* l = later_.data() + later_begin_[p]; l != end; ++l)
    subtract_upper<Mk>(node_class_[l->node], blocks_[l->upper], b + kBlockSize * l->node, xk);
  std::copy(xk, xk + Mk, bk);
}

// Only the real rows of each node are read or written: the padding entries keep b's values.
void BlockLdu::solve_factored(Eigen::Ref<Eigen::VectorXd> b_ref) const {
  forward_leading(b_ref, num_nodes_);
  backward_leading(b_ref, num_nodes_);
}

// forward and diagonal: z_k = Dinv_k b_k, b_i -= L_ik b_k = A_ik z_k
void BlockLdu::forward_leading(Eigen::Ref<Eigen::VectorXd> b_ref, int stop) const {
  double* const b = b_ref.data();  // (a Ref<VectorXd> has unit inner stride)
  for (int p = 0; p < stop; ++p) {
    switch (node_class_[order_[p]]) {
      case 0: forward_node<1>(p, b); break;
      case 1: forward_node<4>(p, b); break;
      default: forward_node<kBlockSize>(p, b);
    }
  }
}

// backward: x_k = z_k - sum_j U_kj x_j
void BlockLdu::backward_leading(Eigen::Ref<Eigen::VectorXd> b_ref, int stop) const {
  double* const b = b_ref.data();
  for (int p = stop - 1; p >= 0; --p) {
    switch (node_class_[order_[p]]) {
      case 0: backward_node<1>(p, b); break;
      case 1: backward_node<4>(p, b); break;
      default: backward_node<kBlockSize>(p, b);
    }
  }
}

bool BlockLdu::refactor_node(int node, const BlockLdu& assembled) {
  const int p = position_.at(node);
  const int ck = node_class_[node];
  blocks_[node] = assembled.blocks_[node];
  const unsigned mask = reg_mask_[node] & ((1u << node_size_[node]) - 1u);
  const bool only_singular = reg_only_singular_[node] != 0;
  const bool loops = num_loops_ > 0;
  const Pivot pivot = factor_pivot_of_class(ck, blocks_[node], dinv_[node], mask, only_singular, loops,
                                            regularization, regularization_rcond);
  reg_shift_[node] = pivot.shift;
  if (!pivot.ok) return false;
  for (int a = later_begin_[p]; a < later_begin_[p + 1]; ++a) {
    const int id = later_[a].upper;
    blocks_[id] = assembled.blocks_[id];
    kScaleUpper[ck][node_class_[later_[a].node]](dinv_[node], blocks_[id]);
  }
  return true;
}

void BlockLdu::blocks_among(int stop, std::vector<std::array<int, 3>>* out) const {
  out->clear();
  const int n = num_nodes_;
  for (int p = stop; p < n; ++p) out->push_back({p - stop, p - stop, order_[p]});
  for (std::size_t off = 0; off < block_rc_.size(); ++off) {
    const auto [i, j] = block_rc_[off];
    if (position_[i] >= stop && position_[j] >= stop)
      out->push_back({position_[i] - stop, position_[j] - stop, n + static_cast<int>(off)});
  }
}

Eigen::MatrixXd BlockLdu::to_dense() const {
  const int n = num_nodes_;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(kBlockSize * n, kBlockSize * n);
  for (int i = 0; i < n; ++i)
    a.block<kBlockSize, kBlockSize>(kBlockSize * i, kBlockSize * i) = blocks_[i];
  for (std::size_t off = 0; off < block_rc_.size(); ++off) {
    const auto [i, j] = block_rc_[off];
    a.block<kBlockSize, kBlockSize>(kBlockSize * i, kBlockSize * j) = blocks_[n + off];
  }
  return a;
}

}  // namespace maxsim
