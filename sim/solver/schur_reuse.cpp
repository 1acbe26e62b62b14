// The interior point's reuse of the smooth part's factors (sim/solver/schur_reuse.hpp).
#include "sim/solver/schur_reuse.hpp"

#include <algorithm>
#include <cmath>

#include "sim/solver/inequality.hpp"

namespace maxsim {

bool schur_reuse_begin(const Model& model, Data& d) {
  Workspace& ws = workspace(d);
  SchurReuse& r = ws.reuse;
  r.active = false;
  if (model.opt.solver.reuse_iterations <= 0 || !ws.graph_all_last) return false;
  const int nc = static_cast<int>(d.contacts.size());
  const int n = ws.ldu.num_nodes();
  int trailing = 0;
  Eigen::Matrix4d R;
  Eigen::Matrix<double, 4, 6> Kb, Ka;
  for (int c = 0; c < nc; ++c) {
    if (!ws.kinds[c]->has_node()) return false;  // dry joint friction, folded into its joint
    if (ws.contact_first[c]) continue;
    if (ws.kinds[c]->row_map(d, c, &R, &Kb, &Ka) == 0) return false;
    ++trailing;
  }
  r.stop = n - trailing;
  r.contact.assign(trailing, -1);
  r.node.assign(trailing, -1);
  for (int c = 0; c < nc; ++c) {
    if (ws.contact_first[c]) continue;
    const int p = ws.ldu.position(ws.contact_node[c]) - r.stop;
    if (p < 0) return false;  // (not eliminated last: the graph is not in this order)
    r.contact[p] = c;
    r.node[p] = ws.contact_node[c];
  }
  r.offset.resize(trailing);
  r.rows.resize(trailing);
  r.size = 0;
  for (int i = 0; i < trailing; ++i) {
    r.offset[i] = r.size;
    r.rows[i] = ws.kinds[r.contact[i]]->row_map(d, r.contact[i], &R, &Kb, &Ka);
    r.size += r.rows[i];
  }
  ws.ldu.blocks_among(r.stop, &r.blocks);
  r.t.resize(trailing);
  r.active = true;
  return true;
}

namespace {

// S factored with its rows equilibrated (the gap rows and the cones' rows differ by decades, which
// says nothing of singularity); a singular S (redundant touching inequalities) gets the graph
// LDU's regularization on its equilibrated diagonal.
bool factor_dense(SchurReuse& r, double regularization) {
  if (r.size == 0) return true;
  r.row_scale = r.S.rowwise().lpNorm<Eigen::Infinity>();
  for (int i = 0; i < r.size; ++i) r.row_scale(i) = r.row_scale(i) > 0 ? 1.0 / r.row_scale(i) : 1.0;
  r.S = r.row_scale.asDiagonal() * r.S;
  // (the pivots' spread as the test: Eigen's condition estimate costs as much as the LU)
  auto regular = [&](double floor) {
    const auto pivots = r.lu.matrixLU().diagonal().cwiseAbs();
    return r.S.allFinite() && pivots.minCoeff() > floor * pivots.maxCoeff();
  };
  r.lu.compute(r.S);
  if (regular(1e-14)) return true;
  r.S.diagonal().array() += regularization;
  r.lu.compute(r.S);
  return regular(1e-16);
}

// An open candidate's update of its bodies' blocks relative to them: γ Δt / (s m), m its lighter
// body's mass (the gap row's γ Jφ over its pivot s, Jφ ~ Δt, against a body's block ~ m).
double open_weight(const Model& model, const Data& d, int c) {
  const Contact& ct = d.contacts[c];
  if (ct.body_b < 0 || ct.body_b >= static_cast<int>(model.bodies.size())) return 0.0;  // (a tendon's)
  return ct.gamma * workspace(d).dt / (std::max(ct.slack, 1e-300) * lighter_mass(model, ct));
}

}  // namespace

bool schur_reuse_stale(const Model& model, const Data& d) {
  const Workspace& ws = workspace(d);
  const SchurReuse& r = ws.reuse;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    if (!ws.contact_first[c]) continue;
    const double w = open_weight(model, d, static_cast<int>(c));
    if (w > 1e-6 && w > 2 * r.open_weight[c]) return true;
  }
  return false;
}

bool schur_reuse_factor(const Model& model, Data& d, bool full) {
  Workspace& ws = workspace(d);
  SchurReuse& r = ws.reuse;
  const int trailing = static_cast<int>(r.contact.size());
  Eigen::Matrix4d R;
  Eigen::Matrix<double, 4, 6> Kb, Ka;
  if (full) {
    // the leading part factored with the trailing rows K in place of R K: the blocks among the
    // trailing nodes are then −K H⁻¹ B (their own diagonals zeroed), i.e. −G
    r.factors = ws.ldu;
    for (int i = 0; i < trailing; ++i) {
      const int c = r.contact[i];
      ws.kinds[c]->row_map(d, c, &R, &Kb, &Ka);
      r.factors.diag(r.node[i]).setZero();
      Block& b = r.factors.block(r.factors.upper_id(ws.contact_edge_b[c]));
      b.setZero();
      b.topRows<4>() = Kb;
      if (ws.contact_edge_a[c] >= 0) {
        Block& a = r.factors.block(r.factors.upper_id(ws.contact_edge_a[c]));
        a.setZero();
        a.topRows<4>() = Ka;
      }
    }
    if (!r.factors.factor_leading(r.stop)) return false;
    r.G.setZero(r.size, r.size);
    for (const auto& [i, j, id] : r.blocks)
      r.G.block(r.offset[i], r.offset[j], r.rows[i], r.rows[j]) = -r.factors.block(id).topLeftCorner(r.rows[i], r.rows[j]);
    r.S.resize(r.size, r.size);
    r.open_weight.assign(d.contacts.size(), 0.0);
    for (size_t c = 0; c < d.contacts.size(); ++c)
      if (ws.contact_first[c]) r.open_weight[c] = open_weight(model, d, static_cast<int>(c));
  } else {
    // the open candidates' own pivots at the iterate (their updates of the bodies stay as factored)
    for (size_t c = 0; c < d.contacts.size(); ++c)
      if (ws.contact_first[c] && !r.factors.refactor_node(ws.contact_node[c], ws.ldu)) return false;
  }
  // S = D − R G at the iterate
  for (int i = 0; i < trailing; ++i) {
    const int m = r.rows[i], o = r.offset[i];
    ws.kinds[r.contact[i]]->row_map(d, r.contact[i], &R, &Kb, &Ka);
    r.t[i] = R;
    r.S.middleRows(o, m).noalias() = -R.topLeftCorner(m, m) * r.G.middleRows(o, m);
    r.S.block(o, o, m, m) += ws.ldu.diag(r.node[i]).topLeftCorner(m, m);
  }
  return factor_dense(r, ws.ldu.regularization);
}

// After the leading forward sweep the trailing right-hand side is g − K H⁻¹ f; the system's is
// g − R K H⁻¹ f = g + R (b_T − g).
void schur_reuse_solve(Data& d, Eigen::VectorXd& b) {
  SchurReuse& r = workspace(d).reuse;
  const int trailing = static_cast<int>(r.contact.size());
  r.g.resize(r.size);
  for (int i = 0; i < trailing; ++i) r.g.segment(r.offset[i], r.rows[i]) = b.segment(6 * r.node[i], r.rows[i]);
  r.factors.forward_leading(b, r.stop);
  if (r.size > 0) {
    r.y.resize(r.size);
    for (int i = 0; i < trailing; ++i) {
      const int m = r.rows[i], o = r.offset[i];
      r.y.segment(o, m) = r.g.segment(o, m) + r.t[i].topLeftCorner(m, m) * (b.segment(6 * r.node[i], m) - r.g.segment(o, m));
    }
    r.y.array() *= r.row_scale.array();
    r.y = r.lu.solve(r.y);  // (Eigen's solve copies a plain right-hand side before solving in place)
    for (int i = 0; i < trailing; ++i) b.segment(6 * r.node[i], r.rows[i]) = r.y.segment(r.offset[i], r.rows[i]);
  }
  r.factors.backward_leading(b, r.stop);
}

}  // namespace maxsim
