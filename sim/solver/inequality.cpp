// The inequality kinds' dispatch and the pieces they share (sim/solver/inequality.hpp).
#include "sim/solver/inequality.hpp"

#include <algorithm>
#include <tuple>
#include <typeinfo>

#include "sim/integrator/body_dynamics.hpp"
#include "sim/solver/kinds.hpp"

namespace maxsim {

const InequalityKind& inequality_kind(const Contact& c) {
  static const SurfaceContact surface;
  static const PyramidContact pyramid;
  static const JointLimit limit;
  static const FoldedJointLimit folded_limit;
  static const JointConeLimit cone_limit;
  static const JointFriction friction;
  static const RelaxedContact relaxed;
  static const TorsionalContact torsional;
  static const TendonLimit tendon_limit;
  static const TendonFriction tendon_friction;
  if (c.tendon >= 0) return c.dry_limit > 0 ? static_cast<const InequalityKind&>(tendon_friction) : tendon_limit;
  if (c.joint >= 0 && c.dry_limit > 0) return friction;
  if (c.joint >= 0 && c.row == kJointConeRow) return cone_limit;
  if (c.joint >= 0) return c.folded ? static_cast<const InequalityKind&>(folded_limit) : limit;
  if (c.relaxed_cone && c.friction > 0) return relaxed;
  if (c.linear_cone) return pyramid;
  return c.torsion > 0 ? static_cast<const InequalityKind&>(torsional) : surface;
}

bool plain_surface_contact(const Contact& c) {
  const InequalityKind& kind = inequality_kind(c);
  return typeid(kind) == typeid(SurfaceContact) || typeid(kind) == typeid(TorsionalContact);
}

InequalityMatchScratch::Key inequality_identity(const Contact& c) {
  return {c.body_a, c.body_b, c.joint, c.row, c.tendon, c.side, has_normal(c)};
}

void match_inequalities(const std::vector<Contact>& previous, const std::vector<Contact>& now,
                        std::vector<int>* match, InequalityMatchScratch* scratch, double radius) {
  match->assign(now.size(), -1);
  std::vector<char>& used = scratch->used;
  used.assign(previous.size(), 0);
  // previous by key, each key's inequalities in their order: every inequality of `now` scans its
  // own key's in the order a scan of the whole list would meet them (the same matches, without
  // the quadratic scan)
  auto& order = scratch->order;
  order.resize(previous.size());
  for (size_t j = 0; j < previous.size(); ++j) order[j] = {inequality_identity(previous[j]), static_cast<int>(j)};
  std::sort(order.begin(), order.end());  // (by key, then index)
  for (size_t c = 0; c < now.size(); ++c) {
    const InequalityMatchScratch::Key key = inequality_identity(now[c]);
    auto it = std::lower_bound(order.begin(), order.end(), std::make_pair(key, -1));
    double best = radius;
    int& m = (*match)[c];
    for (; it != order.end() && it->first == key; ++it) {
      const int j = it->second;
      if (used[j]) continue;
      const double distance = (previous[j].point_b - now[c].point_b).norm();
      if (distance <= best) {
        best = distance;
        m = j;
      }
    }
    if (m >= 0) used[m] = 1;
  }
}

double cone_pair_test(const Vec3& beta, const Vec3& eta, const ConeTest& test) {
  const Vec3 p = cone_product(beta, eta);
  // ‖β_t/β0 + η_t/η0‖ ≤ θ: the friction opposes the sliding within θ rad and its magnitude is
  // within θ of its bound; βᵀη then bounds how far both are from their cones' boundaries.
  if (p.tail<2>().norm() <= test.direction * beta(0) * eta(0)) return test.weight * std::abs(p(0));
  return test.weight * p.lpNorm<Eigen::Infinity>();
}

double cone_pair_max(const Contact& ct) { return cone_pair_test(friction_beta(ct, ct.gamma, ct.b), ct.eta, ConeTest{}); }

double cone_pair_central_distance(const Contact& ct, double kappa) {
  Vec3 p = cone_product(friction_beta(ct, ct.gamma, ct.b), ct.eta);
  p(0) -= kappa;
  return p.norm();
}

void cone_linearization(const Contact& ct, ConeLinearization* out) {
  cone_linearization(friction_beta(ct, ct.gamma, ct.b), ct.eta, out);
}

void cone_linearization(const Vec3& beta, const Vec3& eta, ConeLinearization* out) {
  out->scaled = cone_nt_scaling(beta, eta, &out->nt);
  out->evaluated = false;
  if (out->scaled) {
    const Mat3 arrow = cone_arrow(out->nt.lambda);
    out->coef_beta = arrow * out->nt.W_inv;
    out->coef_eta = arrow * out->nt.W;
  } else {
    out->coef_beta = cone_arrow(eta);
    out->coef_eta = cone_arrow(beta);
  }
}

Vec3 cone_rhs(const Contact& ct, const ConeLinearization& lin, double kappa, const Vec3& dbeta_aff,
              const Vec3& deta_aff, const Vec2& r_eta) {
  return cone_rhs(friction_beta(ct, ct.gamma, ct.b), ct.eta, lin, kappa, dbeta_aff, deta_aff, r_eta);
}

Vec3 cone_rhs(const Vec3& beta, const Vec3& eta, const ConeLinearization& lin, double kappa, const Vec3& dbeta_aff,
              const Vec3& deta_aff, const Vec2& r_eta) {
  const ConeScaling& nt = lin.nt;
  const Vec3 e0(1, 0, 0);
  // λ∘λ and the corrector (W⁻¹Δβ_aff)∘(WΔη_aff) in the scaled form; β∘η and Δβ_aff∘Δη_aff
  // in the unscaled one
  const Vec3 product = !lin.scaled   ? cone_product(beta, eta)
                       : lin.evaluated ? cone_product(nt.W_inv * beta, nt.W * eta)
                                       : cone_product(nt.lambda, nt.lambda);
  const Vec3 second = lin.scaled ? cone_product(nt.W_inv * dbeta_aff, nt.W * deta_aff)
                                 : cone_product(dbeta_aff, deta_aff);
  return -(product + second - kappa * e0) + lin.coef_eta.rightCols<2>() * r_eta;
}

double compliance_epsilon(const Data& d, int c) {
  const std::vector<double>& eps = workspace(d).compliance;
  return c < static_cast<int>(eps.size()) ? eps[c] : 0.0;
}

void eliminated_steps(const Data& d, int c, const Eigen::VectorXd& delta, const Vec2& r_eta, double* ds, Vec2* deta) {
  const Contact& ct = d.contacts[c];
  const ContactKinematics& k = workspace(d).contact_kin[c];
  const Vec6 dnu_b = SystemLayout::body(delta, ct.body_b);
  *ds = k.Jphi_b.dot(dnu_b) - (ct.slack - k.phi);
  *deta = k.Jvt_b * dnu_b - r_eta;
  if (ct.body_a != kWorld) {
    const Vec6 dnu_a = SystemLayout::body(delta, ct.body_a);
    *ds += k.Jphi_a.dot(dnu_a);
    *deta += k.Jvt_a * dnu_a;
  }
}

Mat6 joint_body_block_unscaled(const Mat6& J3, const Vec3& w, double dt) {
  Mat6 M;
  M.leftCols<3>() = dt * J3.leftCols<3>();
  M.rightCols<3>() = J3.rightCols<3>() * dtheta3_domega(w, dt);
  return M;
}

Row6 joint_row_unscaled(const Row6& J3, const Vec3& w, double dt) {
  Row6 r;
  r.head<3>() = dt * J3.head<3>();
  r.tail<3>() = J3.tail<3>() * dtheta3_domega(w, dt);
  return r;
}

// (rows of the joint's own blocks, computed by its jacobian at the same iterate: the same numbers)
void joint_row_jacobian(const Model& model, const Data& d, const Contact& ct, Row6* child, Row6* parent) {
  const Workspace& ws = workspace(d);
  *child = ws.joint_block_b[ct.joint].row(ct.row);
  if (model.joints[ct.joint].parent != kWorld)
    *parent = ws.joint_block_a[ct.joint].row(ct.row);
  else
    parent->setZero();
}

double fold_into_joint_row(const Model& model, Workspace& ws, const Contact& ct, double conductance,
                           double coefficient, const Row6& j_child, const Row6& j_parent) {
  const Joint& jt = model.joints[ct.joint];
  const int r = ct.row;
  BlockLdu& A = ws.ldu;
  const double scale =
      1.0 / (1.0 + jt.damping[r] + ws.row_damping[ct.joint](r) + jt.armature[r] / ws.dt + conductance);
  A.diag(ws.layout.joint_node(ct.joint))(r, r) *= scale;
  Block& child = A.block(A.upper_id(ws.child_edge[ct.joint]));
  child.row(r) = scale * (child.row(r) + coefficient * j_child);
  if (jt.parent != kWorld) {
    Block& parent = A.block(A.upper_id(ws.parent_edge[ct.joint]));
    parent.row(r) = scale * (parent.row(r) + coefficient * j_parent);
  }
  return scale;
}

// ---- loops over every inequality of the step -------------------------------------------------

void inequality_jacobian(const Model& model, Data& d) {
  for (size_t c = 0; c < d.contacts.size(); ++c) workspace(d).kinds[c]->jacobian(model, d, static_cast<int>(c));
}

void inequality_rhs(const Model& model, Data& d, double kappa, const std::vector<Vec6>* affine,
                    Eigen::VectorXd* rhs) {
  for (size_t c = 0; c < d.contacts.size(); ++c)
    workspace(d).kinds[c]->rhs(model, d, static_cast<int>(c), kappa, affine ? &(*affine)[2 * c] : nullptr,
                               affine ? &(*affine)[2 * c + 1] : nullptr, rhs);
}

void recover_steps(const Data& d, const Eigen::VectorXd& delta, std::vector<Vec6>* out) {
  out->resize(2 * d.contacts.size());
  for (size_t c = 0; c < d.contacts.size(); ++c)
    workspace(d).kinds[c]->recover(d, static_cast<int>(c), delta, &(*out)[2 * c], &(*out)[2 * c + 1]);
}

void copy_contact_variables(const std::vector<Contact>& from, std::vector<Contact>* to) {
  for (size_t c = 0; c < from.size(); ++c) {
    const Contact& f = from[c];
    Contact& t = (*to)[c];
    t.gamma = f.gamma;
    t.slack = f.slack;
    t.b = f.b;
    t.eta = f.eta;
    t.spin = f.spin;
    t.spin_eta = f.spin_eta;
    t.lin_beta = f.lin_beta;
    t.lin_eta = f.lin_eta;
    t.lin_psi = f.lin_psi;
  }
}

void apply_steps(const Data& d, std::vector<Contact>* cs, const std::vector<Vec6>& steps, double alpha) {
  for (size_t c = 0; c < cs->size(); ++c) workspace(d).kinds[c]->apply_step(&(*cs)[c], steps[2 * c], steps[2 * c + 1], alpha);
}

}  // namespace maxsim
