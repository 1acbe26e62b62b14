// The interior point's reuse of the smooth part's factors (sim/solver/schur_reuse.hpp).
#include "sim/solver/schur_reuse.hpp"

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
  for (int c = 0; c < nc; ++c) {
    if (!ws.kinds[c]->has_node()) return false;  // dry joint friction, folded into its joint
    if (ws.contact_first[c]) continue;
    if (!ws.kinds[c]->row_map(d, c, &R)) return false;
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
    r.rows[i] = ws.ldu.node_size(r.node[i]);
    r.size += r.rows[i];
  }
  ws.ldu.blocks_among(r.stop, &r.blocks);
  r.r0_inverse.resize(trailing);
  r.t.resize(trailing);
  r.active = true;
  return true;
}

namespace {

// S factored; a singular S (redundant touching inequalities) gets the graph LDU's regularization.
bool factor_dense(SchurReuse& r, double regularization) {
  if (r.size == 0) return true;
  r.lu.compute(r.S);
  if (r.lu.rcond() > 1e-14) return r.S.allFinite();
  const double shift = regularization * r.S.diagonal().cwiseAbs().maxCoeff();
  r.S.diagonal().array() += shift;
  r.lu.compute(r.S);
  return r.S.allFinite() && r.lu.rcond() > 1e-16;
}

}  // namespace

bool schur_reuse_factor(const Model&, Data& d, bool full) {
  Workspace& ws = workspace(d);
  SchurReuse& r = ws.reuse;
  const int trailing = static_cast<int>(r.contact.size());
  Eigen::Matrix4d R;
  if (full) {
    r.factors = ws.ldu;
    if (!r.factors.factor_leading(r.stop)) return false;
    // S₀ from the trailing blocks, G = D₀ − S₀, T = I
    r.S.setZero(r.size, r.size);
    for (const auto& [i, j, id] : r.blocks)
      r.S.block(r.offset[i], r.offset[j], r.rows[i], r.rows[j]) =
          r.factors.block(id).topLeftCorner(r.rows[i], r.rows[j]);
    r.G = -r.S;
    for (int i = 0; i < trailing; ++i) {
      const int m = r.rows[i];
      r.G.block(r.offset[i], r.offset[i], m, m) += ws.ldu.diag(r.node[i]).topLeftCorner(m, m);
      ws.kinds[r.contact[i]]->row_map(d, r.contact[i], &R);
      r.r0_inverse[i].setIdentity();
      r.r0_inverse[i].topLeftCorner(m, m) = R.topLeftCorner(m, m).inverse();
      r.t[i].setIdentity();
    }
    return factor_dense(r, ws.ldu.regularization);
  }
  // the open candidates' own pivots at the iterate (their updates of the bodies stay as factored)
  for (size_t c = 0; c < d.contacts.size(); ++c)
    if (ws.contact_first[c] && !r.factors.refactor_node(ws.contact_node[c], ws.ldu)) return false;
  for (int i = 0; i < trailing; ++i) {
    const int m = r.rows[i], o = r.offset[i];
    ws.kinds[r.contact[i]]->row_map(d, r.contact[i], &R);
    r.t[i].setIdentity();
    r.t[i].topLeftCorner(m, m) = R.topLeftCorner(m, m) * r.r0_inverse[i].topLeftCorner(m, m);
    r.S.middleRows(o, m).noalias() = -r.t[i].topLeftCorner(m, m) * r.G.middleRows(o, m);
    r.S.block(o, o, m, m) += ws.ldu.diag(r.node[i]).topLeftCorner(m, m);
  }
  return factor_dense(r, ws.ldu.regularization);
}

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
    r.y = r.lu.solve(r.y);
    for (int i = 0; i < trailing; ++i) b.segment(6 * r.node[i], r.rows[i]) = r.y.segment(r.offset[i], r.rows[i]);
  }
  r.factors.backward_leading(b, r.stop);
}

}  // namespace maxsim
