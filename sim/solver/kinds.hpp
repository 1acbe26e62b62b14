// The inequality kinds behind InequalityKind (internal to sim/solver; see inequality.hpp).
#pragma once

#include "sim/solver/inequality.hpp"

namespace maxsim {

// A contact between two surfaces (or a body and the world): normal impulse γ with gap slack s
// (γ s = 0) and, when μ > 0, the second-order friction cone β = (μγ, b) with dual
// η = (η0, v_t). Node unknowns (γ, b1, b2, η0), rows 4 and 5 identity. Frictionless contacts keep
// identity rows for (b1, b2, η0).
class SurfaceContact : public InequalityKind {
 public:
  const char* name() const override { return "surface contact"; }
  int node_rows(const Contact&) const override { return 4; }
  // InteriorPointOptions::contact_compliance × Δt / the lighter body's mass
  double compliance(const Model& model, const Contact& ct, const InteriorPointOptions& opt, double dt) const override;
  void prepare(const Model& model, Data& d, int c) const override;
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const override;
  // R = diag(γ, coef_eta), K = (Jφ; 0; Jvt): the gap row is γ Jφ, the cone's rows coef_eta (0; Jvt)
  int row_map(const Data& d, int c, Eigen::Matrix4d* R, Eigen::Matrix<double, 4, 6>* Kb,
              Eigen::Matrix<double, 4, 6>* Ka) const override;
  void impulse_jacobian(const Model& model, Data& d, int c) const override;
  void jacobian(const Model& model, Data& d, int c) const override;
  void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
           Eigen::VectorXd* rhs) const override;
  void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const override;
  double max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const override;
  void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const override;
  void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const override;
  void place_open_on_path(Data& d, int c, double kappa, double cone_weight, Eigen::VectorXd* s) const override;
  void add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const override;
  double max_complementarity(const Contact& ct, const ConeTest& cone_test) const override;
  void add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const override;
  void add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const override;
  bool converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const override;

 protected:
  // The gap pair's linearized row d Δγ + γ Jφ Δν = r: its pivot d (s plus the proximal and the
  // compliance terms' γ) and its right-hand side r for the target κ, with Mehrotra's second-order
  // term Δγ_aff Δs_aff when the affine step is given
  double gap_pivot(const Model& model, const Data& d, int c) const;
  double gap_rhs(const Data& d, int c, double kappa, const Vec6* affine_a) const;
  // the node's impulse (γ, b1, b2) from its unknowns, added to the bodies' rows
  void add_impulse(Data& d, int c, const Vec3& impulse, Eigen::VectorXd* F) const;
  // gap and tangential velocity at z3 (ws.contact_kin[c])
  void kinematics(Data& d, int c) const;
};

// A surface contact with torsional friction (MJCF condim 4 and 6, docs/computation.md (117)): the
// surface contact's rows and a second, 1-D cone β_τ = (μ_τ γ, spin) with dual η_τ = (η_τ0, ω_n),
// ω_n the relative spin rate about the normal (eliminated as η_t is). Node unknowns (γ, b1, b2,
// η0, spin, η_τ0); steps a = (Δγ, Δb1, Δb2, Δη0, Δs, Δspin), e = (Δη_t, Δη_τ0, Δω_n, ·).
class TorsionalContact final : public SurfaceContact {
 public:
  const char* name() const override { return "torsional contact"; }
  int node_rows(const Contact&) const override { return 6; }
  void prepare(const Model& model, Data& d, int c) const override;
  // (ω_n is linear in the unknowns: its Jacobian is set with the residual, linearize is the base's)
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  int row_map(const Data&, int, Eigen::Matrix4d*, Eigen::Matrix<double, 4, 6>*,
              Eigen::Matrix<double, 4, 6>*) const override {
    return 0;  // (six rows: not the reused Schur complement's form)
  }
  void impulse_jacobian(const Model& model, Data& d, int c) const override;
  void jacobian(const Model& model, Data& d, int c) const override;
  void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
           Eigen::VectorXd* rhs) const override;
  void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const override;
  double max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const override;
  void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const override;
  void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const override;
  void place_open_on_path(Data& d, int c, double kappa, double cone_weight, Eigen::VectorXd* s) const override;
  void add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const override;
  double max_complementarity(const Contact& ct, const ConeTest& cone_test) const override;
  void add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const override;
  void add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const override;
  bool converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const override;
};

// A joint limit: the surface contact's frictionless rows on one free joint row, with the gap
// φ = side·(coordinate(z3) − bound) and the impulse along the row's own map.
class JointLimit : public SurfaceContact {
 public:
  const char* name() const override { return "joint limit"; }
  // One real row, factored as four like a frictionless contact: the 1-row kernels round
  // differently (one fused multiply–add per Schur entry), which regularized loops amplify; the
  // 4-row kernels round like the 6-row ones.
  int node_rows(const Contact&) const override { return 4; }
  // the smaller of the contacts' and 1e-4 of its coordinate (joint_limit.cpp)
  double settled_open_gap(double contact_gap) const override;
  // InteriorPointOptions::limit_compliance × Δt / the child's mass
  double compliance(const Model& model, const Contact& ct, const InteriorPointOptions& opt, double dt) const override;
  void prepare(const Model& model, Data& d, int c) const override;
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const override;

 protected:
  // the gap φ = side·(coordinate(z3) − bound) (+ ε γ when compliant) into ws.contact_kin[c]
  void row_gap(Data& d, int c, double gamma) const;
};

// A joint's row limit eliminated into the joint's free row (Contact::folded,
// SolverOptions::fold_joint_limits; docs/computation.md (127)): the joint limit's equations, but
// γ and s live in the Contact, the row's unknown is its whole impulse, limit included, and the
// pair's linearization Δγ = offset − (γ/d)·Δφ (d = s + the compliance's and proximal terms' γ)
// is a damper of conductance γ/d on the row. No node, no fill-in.
class FoldedJointLimit final : public JointLimit {
 public:
  const char* name() const override { return "folded joint limit"; }
  int node_rows(const Contact&) const override { return 0; }
  bool has_node() const override { return false; }
  void prepare(const Model& model, Data& d, int c) const override;
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  int row_map(const Data&, int, Eigen::Matrix4d*, Eigen::Matrix<double, 4, 6>*,
              Eigen::Matrix<double, 4, 6>*) const override {
    return 0;  // (no node: not the reused Schur complement's form)
  }
  void impulse_jacobian(const Model& model, Data& d, int c) const override;
  void jacobian(const Model& model, Data& d, int c) const override;
  void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
           Eigen::VectorXd* rhs) const override;
  void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const override;
  void start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const override;
  void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const override;
  void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const override;
  void place_open_on_path(Data& d, int c, double kappa, double cone_weight, Eigen::VectorXd* s) const override;
};

// A ball joint's cone limit (Contact::row = kJointConeRow): the joint limit's rows on the angle θ
// of the joint's relative rotation, φ = side·(θ(z3) − bound), the impulse along θ's gradient
// (joint_cone_row, docs/computation.md (115)).
class JointConeLimit : public JointLimit {
 public:
  const char* name() const override { return "joint cone limit"; }
  void prepare(const Model& model, Data& d, int c) const override;
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const override;
};

// A tendon limit: the joint limit's rows on a tendon's length, φ = side·(ℓ − bound) with ℓ the
// tendon node's length unknown (its row 1) and the impulse side·γ added to the tendon's impulse
// row (its row 0), which carries it to the bodies along the length's gradient. The contact's
// body_b is the tendon's graph node (sim/constraints/tendon.hpp).
class TendonLimit : public JointLimit {
 public:
  const char* name() const override { return "tendon limit"; }
  double settled_open_gap(double contact_gap) const override { return contact_gap; }  // (a length, as a gap)
  double compliance(const Model&, const Contact&, const InteriorPointOptions&, double) const override { return 0.0; }
  void prepare(const Model& model, Data& d, int c) const override;
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const override;
};

// A contact with Anitescu's relaxed cone (relaxed_contact.cpp): the gap and friction in one
// second-order cone pair (μγ, b)∘(s/μ, Δt·η_t) = 0, so a sliding contact's gap is held open by
// μΔt|v_t| — the convex problem the soft simulators solve, without their compliance. Node
// unknowns (γ, b1, b2), row 3 identity. Only for μ > 0.
class RelaxedContact : public SurfaceContact {
 public:
  const char* name() const override { return "relaxed contact"; }
  double compliance(const Model&, const Contact&, const InteriorPointOptions&, double) const override { return 0.0; }
  int row_map(const Data&, int, Eigen::Matrix4d*, Eigen::Matrix<double, 4, 6>*,
              Eigen::Matrix<double, 4, 6>*) const override {
    return 0;
  }
  void jacobian(const Model& model, Data& d, int c) const override;
  void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
           Eigen::VectorXd* rhs) const override;
  void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const override;
  double max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const override;
  void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const override;
  // (its cone is not the surface contact's: left to the centring's Newton steps)
  void place_open_on_path(Data&, int, double, double, Eigen::VectorXd*) const override {}
  void add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const override;
  double max_complementarity(const Contact& ct, const ConeTest& cone_test) const override;
  void add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const override;
  void add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const override;
  bool converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const override;
};

// A contact with the linearized friction cone (docs/computation.md (38)): node unknowns
// (γ, β1..β4, ψ).
class PyramidContact : public SurfaceContact {
 public:
  const char* name() const override { return "pyramid contact"; }
  double compliance(const Model&, const Contact&, const InteriorPointOptions&, double) const override { return 0.0; }
  int node_rows(const Contact&) const override { return 6; }
  int row_map(const Data&, int, Eigen::Matrix4d*, Eigen::Matrix<double, 4, 6>*,
              Eigen::Matrix<double, 4, 6>*) const override {
    return 0;
  }
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void impulse_jacobian(const Model& model, Data& d, int c) const override;
  void jacobian(const Model& model, Data& d, int c) const override;
  void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
           Eigen::VectorXd* rhs) const override;
  void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const override;
  double max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const override;
  void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const override;
  void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const override;
  // (its cone is not the surface contact's: left to the centring's Newton steps)
  void place_open_on_path(Data&, int, double, double, Eigen::VectorXd*) const override {}
  void add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const override;
  double max_complementarity(const Contact& ct, const ConeTest& cone_test) const override;
  void add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const override;
  void add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const override;
  bool converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const override;
};

// Dry friction on a free joint row: the 1-D cone |b1| ≤ dry_limit with the row rate as its dual,
// eliminated into the joint's row, where it acts as an iterate-dependent damper.
class JointFriction : public InequalityKind {
 public:
  const char* name() const override { return "joint friction"; }
  int node_rows(const Contact&) const override { return 0; }
  bool has_node() const override { return false; }
  void prepare(const Model& model, Data& d, int c) const override;
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const override;
  void impulse_jacobian(const Model& model, Data& d, int c) const override;
  void jacobian(const Model& model, Data& d, int c) const override;
  void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a, const Vec6* affine_e,
           Eigen::VectorXd* rhs) const override;
  void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const override;
  double max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const override;
  void start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const override;
  void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const override;
  void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const override;
  void add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const override;
  double max_complementarity(const Contact& ct, const ConeTest& cone_test) const override;
  void add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const override;
  void add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const override;
  bool converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const override;

 protected:
  // The cone block's inverse and gain (Workspace::fold_inverse, fold_gain) at this iterate; returns
  // the row's conductance side·gain₀ (the damper the friction folds into its row).
  double fold_cone(Workspace& ws, const Contact& ct, int c) const;
  // The entry of a system vector (residual or right-hand side) of the row the cone folds into.
  virtual double& folded_row(const Workspace& ws, const Contact& ct, Eigen::VectorXd& v) const;
};

// Dry friction on a tendon's length (MJCF tendon frictionloss, docs/computation.md (116)): joint
// friction's 1-D cone on the tendon node's length rate (ℓ − L(z2))/Δt, eliminated into the node's impulse row (row 0).
class TendonFriction final : public JointFriction {
 public:
  const char* name() const override { return "tendon friction"; }
  void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c, Eigen::VectorXd* F) const override;
  void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const override;
  void jacobian(const Model& model, Data& d, int c) const override;

 protected:
  double& folded_row(const Workspace& ws, const Contact& ct, Eigen::VectorXd& v) const override;
};

}  // namespace maxsim
