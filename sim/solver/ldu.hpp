// Graph-based block-sparse LDU factorization (docs/computation.md (48)–(52); Brüdigam et al.
// 2023, §4).
//
// The Newton matrix of a step has one 6-row block row per graph node (bodies, joints and, later,
// contacts and limits; smaller nodes are padded to 6 rows with identity rows) and a non-zero block
// pair (A_ij, A_ji) for every graph edge. It is block-structurally symmetric but not symmetric,
// so it is factored as A = L D U without pivoting across blocks:
//
//   order π   = DFS post-order of each connected component (leaves first, root last);
//               the DFS's back edges are the graph's independent loops
//   symbolic  : for k in π: connect every pair of k's later neighbours (fill-in), once
//   numeric   : for k in π: Dinv_k = A_kk⁻¹;  L_ik = A_ik Dinv_k;  U_kj = Dinv_k A_kj;
//                            A_ij -= A_ik Dinv_k A_kj   for i, j later neighbours of k
//   forward   : for k in π:         b_i -= L_ik b_k          (i later neighbour of k)
//   backward  : for k in reverse π: x_k = Dinv_k b_k − Σ_j U_kj x_j   (j later neighbour of k)
//
// For a tree each node has one later neighbour (its parent): O(n) work and no fill-in. A loop of
// length m adds O(m) fill blocks. All storage is allocated by `analyze`; factor and solve do not
// allocate.
//
// Nodes smaller than 6 rows (set_node_size) are factored at their real size: their pivots are
// inverted, and their blocks multiplied, only on the real rows and columns, while storage stays
// 6 x 6 per block.
#pragma once

#include <Eigen/Core>
#include <array>
#include <utility>
#include <vector>

namespace maxsim {

constexpr int kBlockSize = 6;  // rows of every graph node's block
// BlockLdu::analyze's placement of a node
constexpr char kPlaceByOrder = 0, kPlaceFirst = 1, kPlaceLast = 2;
using Block = Eigen::Matrix<double, kBlockSize, kBlockSize>;  // one block of the matrix
using BlockVec = Eigen::Matrix<double, kBlockSize, 1>;        // one node's part of a vector

// The LDU factorization of a block-sparse matrix whose pattern is a graph (see the top of this
// file): analyze once per graph, then factor and solve.
class BlockLdu {
 public:
  // Symbolic phase for a graph of `num_nodes` nodes and undirected `edges` (no duplicates, no
  // self loops). `root` picks the DFS root of the component that contains it (-1: the
  // lowest-numbered node of each component). Re-running analyze resets everything.
  //
  // `multiplier` (optional, one flag per node) marks saddle-point nodes whose own diagonal block
  // is (nearly) singular — joint multipliers with a −εI block. Eliminating such a node before
  // all of its neighbours divides by ε and destroys the solution, so a flagged node that the
  // post-order would eliminate before every neighbour is moved to right after its earliest
  // neighbour. Its pivot is then −εI + J M⁻¹ Jᵀ (costs at most a few fill blocks).
  //
  // `bodies_first` (with `multiplier`): every unflagged node first, then the flagged ones in a
  // minimum-degree order of the graph that remains. The multipliers' pivots are then blocks of
  // −(J M⁻¹ Jᵀ + D), definite when the rows are independent, so no pivot is singular because an
  // earlier one took the degrees of freedom its rows need (the post-order's failure when a contact
  // between two branches makes the DFS climb a branch from its tip).
  //
  // `placement` (optional, one per node): nodes placed kPlaceFirst are eliminated before every
  // other and nodes placed kPlaceLast after every other (each group in index order); the orders
  // above apply to the graph without them (kPlaceByOrder). First is for nodes whose pivot is
  // regular on its own and whose elimination adds little (a contact candidate far from touching:
  // its pivot γ/s is small); last for the constraints that close loops (a touching contact: its
  // pivot sees every body of its loop, at the price of a fill block per node on the way to the
  // root).
  void analyze(int num_nodes, const std::vector<std::pair<int, int>>& edges, int root = -1,
               const std::vector<char>* multiplier = nullptr, bool bodies_first = false,
               const std::vector<char>* placement = nullptr);

  // analyze's result without the numeric blocks (a few kilobytes: orders, block ids, updates),
  // to keep for a graph that recurs, and its use: assign_analysis(a.symbolic_copy()) leaves this
  // object as analyze of a's graph would, bit for bit, at a small part of analyze's cost (the
  // settings above and the counts of the last factor and solve are this object's own, kept).
  BlockLdu symbolic_copy() const;
  void assign_analysis(const BlockLdu& symbolic);
  int num_nodes() const { return num_nodes_; }           // nodes of the analyzed graph
  int num_loops() const { return num_loops_; }           // independent cycles (DFS back edges)
  int num_fill_blocks() const { return num_fill_; }      // fill-in block pairs added by analyze
  const std::vector<int>& order() const { return order_; }  // elimination order π

  // Matrix entry blocks. For input edge e = (i, j): block(upper_id(e)) is A_ij and
  // block(lower_id(e)) is A_ji. Fill-in blocks exist but are not addressable by edge.
  Block& diag(int i) { return blocks_[i]; }
  const Block& diag(int i) const { return blocks_[i]; }
  int upper_id(int edge) const { return edge_ids_[2 * edge]; }
  int lower_id(int edge) const { return edge_ids_[2 * edge + 1]; }
  Block& block(int id) { return blocks_[id]; }
  const Block& block(int id) const { return blocks_[id]; }

  void set_zero();  // zero every block (entries and fill-in) before assembling a new matrix
  // Zeroes only the fill-in blocks (which factor accumulates into), for a caller that overwrites
  // the rest: before the next factor it must then write every diagonal block and both blocks of
  // every edge completely (factor leaves its factors in all of them), including the padding rows
  // and columns of sized nodes (below).
  void zero_fill();

  // Real size of a node: `m` rows (1 <= m <= 6; every node has 6 after analyze, which resets
  // the sizes). For m < 6 the caller guarantees that the node's diagonal block is the identity in
  // its padding rows and columns m..5 (no coupling between real and padding rows) and that every
  // off-diagonal block is zero in the node's padding rows (A_node,j) and columns (A_j,node).
  // factor and solve then compute only with the m real rows and columns of the node (kernels for
  // 1, 4 and 6 rows; other sizes run as the next larger of these, carrying their padding rows),
  // and the solution's padding entries are the right-hand side's. The solution matches the
  // padded computation to round-off, and the pivot tests are those of the padded 6 x 6 block
  // (the identity padding counts in the reciprocal conditions and in the regularization's
  // largest diagonal), so a node size changes the cost, not which pivots are rejected or
  // regularized. Regularized-row mask bits of padding rows are ignored. Throws
  // std::invalid_argument for a node or size out of range.
  void set_node_size(int node, int m);
  int node_size(int node) const { return node_size_.at(node); }

  // Redundant constraints (a planar loop of revolute joints in 3D) make a multiplier node's pivot
  // singular. Rows in `mask` (bit r = row r) of node i may then be regularized: when the pivot,
  // equilibrated by its diagonal (D^-1/2 A D^-1/2), has a reciprocal condition below
  // `regularization_rcond`, `regularization` × max_r |A_rr| is added to each masked diagonal
  // entry before inverting (relative to the largest, since dependent rows can have zero
  // diagonals). Healthy pivots are left exact, so Newton keeps converging quadratically.
  // `only_if_singular`: skip the equilibrated test and regularize only a (numerically) singular
  // pivot — for interior-point rows, whose scales legitimately spread over many decades.
  void set_regularized_rows(int node, unsigned mask, bool only_if_singular = false) {
    reg_mask_.at(node) = static_cast<unsigned char>(mask);
    reg_only_singular_.at(node) = only_if_singular;
  }
  // ε: each Newton iteration keeps a fraction ε/(σ + ε) of the error along a direction whose
  // (relative) pivot eigenvalue is σ (docs/computation.md (51)), so ε must be small for loops
  // passing singular configurations (a four-bar at its toggle position, σ → 0), yet large enough
  // that round-off in exactly redundant directions (~1e-16 relative) stays multiplier noise of
  // ~1e-8 relative, which applies no force (those combinations are in the null space of Jᵀ).
  double regularization = 1e-8;
  double regularization_rcond = 1e-10;
  int num_regularized() const { return num_regularized_; }  // pivots regularized by the last factor

  // Numeric phase, in place. Returns false if a pivot block is singular (rcond below ~1e-14, also
  // after equilibration: a block that is only badly scaled is inverted) or not finite; the
  // factorization is then unusable.
  bool factor();

  // ---- the leading part alone (the interior point's reuse of the smooth part's factors) ----
  // Eliminates only the nodes at positions [0, stop) of the order: the blocks among the nodes
  // at positions >= stop then hold the Schur complement of the eliminated part onto them.
  bool factor_leading(int stop);
  // The forward (with the diagonal) and backward sweeps over positions [0, stop): forward
  // leaves the right-hand side of the later nodes reduced by the leading part's, backward
  // takes their solution from b and completes the leading nodes'.
  void forward_leading(Eigen::Ref<Eigen::VectorXd> b, int stop) const;
  void backward_leading(Eigen::Ref<Eigen::VectorXd> b, int stop) const;
  // Re-factors one node that no earlier node updates (placed first) from `assembled`'s diagonal
  // and upper blocks (same structure): its pivot and U blocks, not the updates it made to later
  // nodes. False when the pivot is singular.
  bool refactor_node(int node, const BlockLdu& assembled);
  // (row position − stop, column position − stop, block id) of every block among the nodes at
  // positions >= stop, their diagonals included.
  void blocks_among(int stop, std::vector<std::array<int, 3>>* out) const;
  int position(int node) const { return position_.at(node); }

  // Solves A x = b in place (b has 6 * num_nodes entries, node k at rows 6k..6k+5).
  //
  // After a factor that regularized pivots, the result is x₀ = (A+S)⁻¹b, S the diagonal shifts:
  // shifting pivot k is the same as shifting the original block A_kk, since the shift passes
  // unchanged through the Schur updates. `refinement_sweeps` > 0 then refines x₀ towards A⁻¹b by
  // the proximal iteration x_{i+1} = x₀ + (A+S)⁻¹ S x_i (iterative refinement with the
  // regularized factors; no copy of A needed). Along a direction of pivot eigenvalue σ the error
  // falls by ε/(σ+ε) per sweep, so m sweeps turn Newton's linear rate near a singular
  // configuration from ε/(σ+ε) into (ε/(σ+ε))^(m+1). Along exactly redundant directions (σ = 0)
  // the residual A x − b = −S c_i does not shrink: the sweeps stop when it is below
  // `refinement_tolerance` × ‖b‖∞ or stops shrinking, which bounds the growth along those
  // directions to a few ε-sized noise terms.
  void solve(Eigen::Ref<Eigen::VectorXd> b, int refinement_sweeps = 0) const;
  double refinement_tolerance = 1e-8;
  int num_refinement_sweeps() const { return num_sweeps_; }  // sweeps the last solve used

  // The assembled matrix as dense (call before factor), for tests and the dense comparison.
  Eigen::MatrixXd to_dense() const;

 private:
  // ... implementation-defined storage (all sized in analyze)
  int num_nodes_ = 0;
  int num_loops_ = 0;
  int num_fill_ = 0;
  std::vector<int> order_;
  std::vector<int> position_;            // position of each node in order_
  std::vector<Block, Eigen::aligned_allocator<Block>> blocks_;  // diagonals first, then pairs
  std::vector<int> edge_ids_;
  std::vector<unsigned char> reg_mask_;  // per node: rows that may be regularized
  std::vector<char> reg_only_singular_;
  std::vector<double> reg_shift_;          // per node: the shift added to its masked rows (0: none)
  int num_regularized_ = 0;
  mutable int num_sweeps_ = 0;
  mutable Eigen::VectorXd correction_;  // refinement scratch (sized by analyze)
  void solve_factored(Eigen::Ref<Eigen::VectorXd> b) const;
  void copy_symbolic(const BlockLdu& from);  // (symbolic_copy, assign_analysis)
  template <int Mk>
  void forward_node(int p, double* b) const;  // one node of solve_factored (Mk: kernel rows)
  template <int Mk>
  void backward_node(int p, double* b) const;
  void refine(Eigen::Ref<Eigen::VectorXd> x, double b_size, int sweeps) const;
  std::vector<std::pair<int, int>> block_rc_;  // (row node, column node) of block id n + index
  // for node k (by position in π): range into later_ of its later neighbours with block ids
  struct Later {
    int node;
    int lower;  // block id of A_{node,k}  (after factor: L_{node,k} D_k, see ldu.cpp)
    int upper;  // block id of A_{k,node}  (after factor: U_{k,node})
  };
  std::vector<int> later_begin_;         // size num_nodes + 1, indexed by position in π
  std::vector<Later> later_;
  struct Update {
    int lower_ik;  // A_ik — block id
    int upper_kj;  // U_kj (after scaling) — block id
    int target;    // A_ij — block id (a diagonal id when i == j)
  };
  std::vector<int> update_begin_;        // per position in π
  std::vector<Update> updates_;
  std::vector<Block, Eigen::aligned_allocator<Block>> dinv_;  // D_k⁻¹ per node
  std::vector<int> fill_ids_;                 // block ids of the fill-in blocks (both halves)
  std::vector<unsigned char> node_size_;      // real rows per node
  std::vector<unsigned char> node_class_;     // kernel per node: 0 (1 row), 1 (4), 2 (6)
  std::vector<unsigned char> update_kernel_;  // per update: 9 class_i + 3 class_k + class_j
  bool kernels_stale_ = true;                 // update_kernel_ to recompute (sizes changed)
  bool fill_padding_stale_ = false;           // zero_fill must zero whole blocks (sizes changed)
};

}  // namespace maxsim
