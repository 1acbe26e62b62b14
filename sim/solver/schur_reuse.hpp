// The interior point's reuse of the smooth part's factors (a prototype of docs/roadmap.md, "the
// plan for fewer factorizations"; SolverOptions::reuse_iterations).
//
// With every inequality node not predicted open eliminated last (T), the Newton matrix is
//
//   [H  B] [x]   [f]          S = D − C H⁻¹ B  (the graph LDU's trailing block)
//   [C  D] [y] = [g]
//
// H the bodies, joints, equality rows and open candidates; B the inequalities' impulse maps at z2
// (fixed over a step); C, D the inequalities' own rows. Each node's rows towards its bodies are
// C_c = R_c K_c (InequalityKind::row_map: R_c the interior point's scaling, K_c the kinematic
// Jacobians). Holding H and K at the last full factorization — a simplified Newton on the smooth
// part; the interior point's own terms R and D exact — gives S = D − R G with G = K H⁻¹ B, which
// the full factorization leaves among the trailing blocks when it factors the leading part with
// the rows K in place of R K (R is not inverted: a sliding cone's is nearly singular), and the
// reduced right-hand side g + R (b_T − g) from the leading forward sweep's b_T. An iteration then
// costs a dense factorization of S (4 rows per inequality) and the
// leading sweeps, not the graph's factorization and assembly.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <array>
#include <vector>

#include "sim/solver/ldu.hpp"

namespace maxsim {

struct Model;
struct Data;

struct SchurReuse {
  BlockLdu factors;             // the last full factorization's leading part
  bool active = false;          // this solve reuses (schur_reuse_begin)
  int stop = 0;                 // first trailing position of the order
  std::vector<int> contact;     // per trailing node (position − stop): its inequality
  std::vector<int> node, offset, rows;  // its graph node, first row and real rows in S
  int size = 0;                 // rows of S
  std::vector<std::array<int, 3>> blocks;  // BlockLdu::blocks_among(stop)
  std::vector<Eigen::Matrix4d, Eigen::aligned_allocator<Eigen::Matrix4d>> t;  // per trailing node: R
  Eigen::MatrixXd G, S;  // K H⁻¹ B at the last full factorization; D − R G
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  std::vector<double> open_weight;  // per inequality: an open candidate's γΔt/(s m) when factored
  Eigen::VectorXd row_scale;  // S's rows are equilibrated by these before the LU
  Eigen::VectorXd g, y;       // scratch of the solve
};

// Whether this solve can reuse: on (SolverOptions::reuse_iterations), every trailing node's kind
// has a row map and no inequality is folded into a joint (dry joint friction changes the joints'
// blocks at every iterate). Sets the trailing nodes.
bool schur_reuse_begin(const Model& model, Data& d);
// After the inequalities' jacobian() at the iterate (and step_jacobian when `full`): `full`
// factors the leading part anew from the assembled matrix, otherwise the open candidates' pivots
// and S are updated from the kept factors. False when a pivot or S is singular.
bool schur_reuse_factor(const Model& model, Data& d, bool full);
// Whether the kept factors are stale: an open candidate's update of its bodies (γΔt/(s m)) has
// grown past 1e-6 and doubled since they were factored (it is closing).
bool schur_reuse_stale(const Model& model, const Data& d);
// Solves the Newton system in place (as BlockLdu::solve).
void schur_reuse_solve(Data& d, Eigen::VectorXd& b);

}  // namespace maxsim
