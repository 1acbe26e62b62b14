// One interface for every inequality constraint of a step (Dojo's shape: each constraint kind
// provides the same few functions, and the interior point loops over them without asking what
// they are). The kinds (sim/solver/*.cpp):
//
//   surface contact   gap γ s = 0 and, with μ > 0, the second-order friction cone β∘η = 0
//                     (docs/computation.md (35), (37); sim/solver/surface_contact.cpp)
//   pyramid contact   gap and the linearized cone of 4 directions (docs/computation.md (38))
//   relaxed contact   gap and friction in one cone pair (Anitescu's convex relaxation)
//   joint limit       side·(coordinate(z3) − bound) ≥ 0 on one free joint row, frictionless
//   joint friction    a 1-D friction cone |b| ≤ dry_limit on a free row, with the row rate as its
//                     dual; not a graph node: eliminated into its joint's row
//   tendon limit      the joint limit on a tendon node's length
//   tendon friction   joint friction on a tendon's length rate, eliminated into the tendon's node
//
// The variables of each inequality live in its Contact (γ, s, b, η, and the pyramid's β, η, ψ);
// the unknowns of its graph node (if it has one) in the step's unknown vector at 6 × node. The
// slack-like variables (s, η_t, the pyramid's η_i) are eliminated through their linear equations,
// so a node touches only its bodies. The per-iteration scratch (kinematics, impulse maps, the
// cone linearization, the joint friction's folded gain) stays in Data::Workspace, indexed by the
// contact.
//
// A step direction of inequality c is two Vec6: `a` (its node's step, plus the eliminated gap
// step: (Δγ, Δb1, Δb2, Δη0, Δs, ·) for cone kinds, (Δγ, Δβ1..Δβ4, Δψ) for the pyramid) and `e`
// (the eliminated friction-dual step: (Δη_t, ·), or (Δs, Δη1..Δη4, ·) for the pyramid).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "sim/constraints/contact.hpp"
#include "sim/data.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/model.hpp"

namespace maxsim {

class InequalityKind {
 public:
  virtual ~InequalityKind() = default;
  virtual const char* name() const = 0;
  // Whether the inequality is a node of the system graph (joint friction is folded into its
  // joint's row instead).
  virtual bool has_node() const { return true; }
  // Real rows of its node (the rest are identity padding: BlockLdu::set_node_size).
  virtual int node_rows(const Contact& ct) const = 0;
  // The predicted gap beyond which it counts as open for a settled start, given the contacts'
  // (InteriorPointOptions::settled_open_gap).
  virtual double settled_open_gap(double contact_gap) const { return contact_gap; }
  // Its compliance ε in a solve with the options given (docs/computation.md (114)): the gap gives
  // by ε γ. 0 (rigid) for the kinds that carry none.
  virtual double compliance(const Model&, const Contact&, const InteriorPointOptions&, double /*dt*/) const {
    return 0.0;
  }

  // ---- knot z2 ----
  // The maps from the node's impulse unknowns to its bodies' momentum rows, at z2.
  virtual void prepare(const Model& model, Data& d, int c) const = 0;

  // ---- residual and kinematics at an iterate ----
  // Adds the impulse to its bodies' rows of F (and zeroes the node's own rows, which the
  // interior point fills with its right-hand side), then evaluates the gap or row rate at z3
  // (ws.contact_kin[c]: phi, vt). ws.x3/q3 and the joint row values at z3 are current.
  virtual void residual(const Model& model, Data& d, const Eigen::VectorXd& s, int c,
                        Eigen::VectorXd* F) const = 0;
  // The Jacobian of that gap or rate (ws.contact_kin[c]) at the iterate of the last residual,
  // whose joint row Jacobians at z3 are current: only where the Newton matrix is assembled
  // (step_jacobian), not at the line search's trial points.
  virtual void linearize(const Model& model, Data& d, const Eigen::VectorXd& s, int c) const = 0;
  // The columns of the bodies' rows for the node's unknowns (the Newton matrix's lower blocks).
  virtual void impulse_jacobian(const Model& model, Data& d, int c) const = 0;

  // ---- Newton system of the interior point ----
  // The node's rows: its linearized complementarity with the eliminated variables substituted
  // (diagonal block and its bodies' upper blocks). Stores what rhs() reuses.
  virtual void jacobian(const Model& model, Data& d, int c) const = 0;
  // The node's rows towards its bodies (its upper blocks, body b's and a's) as R (Kb, Ka): R the
  // interior point's scaling at the last jacobian(), Kb and Ka rows that change only with the
  // kinematics (their Jacobians at the last linearize()). What lets the interior point update the
  // Schur complement onto the touching inequalities without refactoring
  // (sim/solver/schur_reuse.hpp). Returns the rows coupled to the bodies (the first ones; the
  // rest are the node's identity rows), 0 where the rows are not of that form.
  virtual int row_map(const Data&, int, Eigen::Matrix4d*, Eigen::Matrix<double, 4, 6>*,
                      Eigen::Matrix<double, 4, 6>*) const {
    return 0;
  }
  // The node's right-hand side for the central-path target κ (a friction cone's: κ over
  // workspace(d).cone_weight), with Mehrotra's second-order term from the affine step (a, e) when
  // given.
  virtual void rhs(const Model& model, Data& d, int c, double kappa, const Vec6* affine_a,
                   const Vec6* affine_e, Eigen::VectorXd* rhs) const = 0;
  // The step of every variable from the solved direction (the eliminated ones recovered).
  virtual void recover(const Data& d, int c, const Eigen::VectorXd& delta, Vec6* a, Vec6* e) const = 0;
  // Largest α ≤ `alpha` keeping the variables strictly inside their cones along (a, e).
  virtual double max_step(const Contact& ct, const Vec6& a, const Vec6& e, double alpha) const = 0;
  virtual void apply_step(Contact* ct, const Vec6& a, const Vec6& e, double alpha) const = 0;

  // ---- start, centring, measures ----
  // First guess of the impulse (warm: the same inequality's last one, else a small normal
  // impulse `cold`), before the first residual.
  virtual void start_impulse(Data& d, int c, const Contact* warm, double cold, Eigen::VectorXd* s) const = 0;
  // Strictly interior start from the first residual's kinematics; `floor` bounds the slack and
  // normal impulse from below.
  virtual void start(Data& d, int c, double floor, double initial_slack, Eigen::VectorXd* s) const = 0;
  // Moves the variables back inside by `push`, then stores the node's unknowns.
  virtual void recentre(Data& d, int c, double push, Eigen::VectorXd* s) const = 0;
  // An open inequality (its slack clearly positive, its impulse below the central path's) moved
  // onto the path γ s = κ, w β∘η = κe at its present slack and duals, then the node's unknowns
  // stored; the others are left as they are (the derivatives' centring, docs/computation.md (112)).
  virtual void place_open_on_path(Data&, int, double, double, Eigen::VectorXd*) const {}
  // Complementarity: adds the pairs' products, a friction cone's weighted by `cone_weight`
  // (InteriorPointOptions::cone_weight), and their number (for the mean μ); the largest
  // product's magnitude, a surface contact's cones measured by `cone_test` (docs/computation.md
  // (63); the other kinds' cones unweighted).
  virtual void add_complementarity(const Contact& ct, double cone_weight, double* sum, int* pairs) const = 0;
  virtual double max_complementarity(const Contact& ct, const ConeTest& cone_test) const = 0;
  // Equality residuals (s − φ in m, friction duals × Δt) added to the line search's merit, and
  // the distance from the central path γ s = κ, w β∘η = κ e (w: `cone_weight`, as above).
  virtual void add_equality_merit(const Contact& ct, const ContactKinematics& k, double dt, double* m) const = 0;
  virtual void add_central_distance(const Contact& ct, double kappa, double cone_weight, double* m) const = 0;
  // Equality residuals within `tol` (gaps, m) and tol/Δt (velocities).
  virtual bool converged(const Contact& ct, const ContactKinematics& k, double tol, double dt) const = 0;
};

// The unknowns of inequality c's graph node in the step's vector `s` (SystemLayout::node).
template <class V>
auto inequality_unknowns(const Data& d, V&& s, int c) {
  return SystemLayout::node(s, workspace(d).contact_node[c]);
}

// The kind of an inequality (the one place that tells them apart).
const InequalityKind& inequality_kind(const Contact& c);

// What an inequality acts on, equal for the same one in two steps: its pair of bodies, joint row
// or tendon, side, and whether it has a normal (a joint row's limit and friction apart). A pair's
// several contact points share it and are told apart by their witness points (match_inequalities).
InequalityMatchScratch::Key inequality_identity(const Contact& c);
// match[c]: the inequality of `previous` that inequality c of `now` continues — the same one
// (inequality_identity) and, among a pair's several points, the one whose
// witness point on body b is nearest and within `radius` (InteriorPointOptions::warm_match_radius),
// each matched once — or −1. By identity, not by position in the lists: a candidate that enters
// or leaves the search shifts every later index. (`scratch`: sized here; InequalityMatchScratch
// in sim/solver/workspace.hpp.)
void match_inequalities(const std::vector<Contact>& previous, const std::vector<Contact>& now,
                        std::vector<int>* match, InequalityMatchScratch* scratch, double radius);

// ---- pieces the kinds share (sim/solver/inequality.cpp) ----

// β = (β0, b): β0 = μγ for surfaces, the fixed dry_limit for joint friction.
inline Vec3 friction_beta(const Contact& c, double gamma, const Vec2& b) {
  return Vec3(c.dry_limit > 0 ? c.dry_limit : c.friction * gamma, b(0), b(1));
}

// The measures of a contact's cone pair (β, η): βᵀη, the largest entry of |β∘η|, and the
// distance ‖β∘η − κe‖ from its central path.
inline double cone_pair_dot(const Contact& ct) { return friction_beta(ct, ct.gamma, ct.b).dot(ct.eta); }
double cone_pair_max(const Contact& ct);
// The convergence test's measure of a cone pair (ConeTest).
double cone_pair_test(const Vec3& beta, const Vec3& eta, const ConeTest& test);
double cone_pair_central_distance(const Contact& ct, double kappa);

// Coefficients of Δβ and Δη in the linearized complementarity of a contact's cone: the
// Nesterov–Todd form Arw(λ)W⁻¹, Arw(λ)W (docs/computation.md (56)–(57); see cone_nt_scaling),
// or the unscaled Arw(η), Arw(β) if the pair is not strictly inside.
void cone_linearization(const Contact& ct, ConeLinearization* out);
// The same for any cone pair (β, η) (a torsional cone's, TorsionalContact).
void cone_linearization(const Vec3& beta, const Vec3& eta, ConeLinearization* out);

// Right-hand side of a cone's three complementarity rows for target κ: −(λ∘λ + corrector − κe)
// in the scaled form (β∘η and Δβ_aff∘Δη_aff unscaled), plus the eliminated dual's residual term.
Vec3 cone_rhs(const Contact& ct, const ConeLinearization& lin, double kappa, const Vec3& dbeta_aff,
              const Vec3& deta_aff, const Vec2& r_eta);
// The same for any cone pair (β, η).
Vec3 cone_rhs(const Vec3& beta, const Vec3& eta, const ConeLinearization& lin, double kappa, const Vec3& dbeta_aff,
              const Vec3& deta_aff, const Vec2& r_eta);

// A joint's row Jacobian at z3 with respect to one body's unknowns: J3 times
// ∂z3/∂(v, ω) = diag(Δt I, ∂θ3/∂ω).
Mat6 joint_body_block_unscaled(const Mat6& J3, const Vec3& w, double dt);
// The same map for one row J3 (a ball's cone-limit row, joint_cone_row).
Row6 joint_row_unscaled(const Row6& J3, const Vec3& w, double dt);

// The Jacobian at z3 of the joint row a limit or joint friction `ct` acts on, with respect to
// the joint's child and parent (zero for the world): the rows of the joint's blocks that
// step_jacobian computed at the iterate before the inequalities' linearize (ws.joint_block_a/b).
void joint_row_jacobian(const Model& model, const Data& d, const Contact& ct, Row6* child, Row6* parent);

// The entry of a system vector (residual or right-hand side) on the joint row `ct` acts on (a
// joint limit's or joint friction's: ct.joint, ct.row), where folded inequalities add their terms.
inline double& joint_row_entry(const Workspace& ws, const Contact& ct, Eigen::VectorXd& v) {
  return v(6 * ws.layout.joint_node(ct.joint) + ct.row);
}

// Folds a damper into the joint row `ct` acts on (ct.joint, ct.row; joint friction's cone and a
// folded limit's gap pair): the row's blocks on its child and parent gain coefficient × j_child
// and × j_parent, and the whole row, diagonal included, is divided by 1 + the row's damping,
// armature / Δt and `conductance` (docs/computation.md (45): a stiff fold becomes a constrained
// row with a small compliance). Returns that scale, by which the fold's right-hand side is divided
// too.
double fold_into_joint_row(const Model& model, Workspace& ws, const Contact& ct, double conductance,
                           double coefficient, const Row6& j_child, const Row6& j_parent);

// The mass of a contact's lighter body (body_b, or body_a when it is a lighter body): the scale
// of the proximal term's and a compliant contact's ε (docs/computation.md (114)).
inline double lighter_mass(const Model& model, const Contact& c) {
  double mass = model.bodies[c.body_b].mass;
  if (c.body_a != kWorld) mass = std::min(mass, model.bodies[c.body_a].mass);
  return mass;
}

// A joint's limit row (JointLimit): not a tendon's limit, not dry joint friction.
inline bool is_joint_limit(const Contact& c) { return c.joint >= 0 && c.tendon < 0 && has_normal(c); }

// Whether c is solved as a plain surface contact (not a pyramid, a relaxed cone, a limit or
// joint friction): the contacts Painlevé's trap is tested on (sliding_into_surface). Which kinds
// carry a compliance (114) is InequalityKind::compliance's answer.
bool plain_surface_contact(const Contact& c);

// Painlevé's trap (docs/computation.md §12, (120)): whether the attempt that
// just ended left a plain surface contact with friction sliding (|v_t| > speed) into its surface,
// its gap violated (φ < −tol) while its slack has reached its boundary (s < −φ).
bool sliding_into_surface(const Data& d, double tol, double speed);
// How many plain surface contacts with friction slide faster than `speed` at the kinematics of
// the last residual: at an attempt's start, those start_sticking would start sticking.
int sliding_contacts(const Data& d, double speed);
// The sticking start of such an attempt (InteriorPointOptions::sticking_start), after every
// inequality's own start: each plain surface contact with friction sliding faster than `speed`
// starts sticking — γ at least the impulse m|v_t| that stops its lighter body, b half-way to the
// cone's edge against the sliding, η = (initial_slack, 0) — and its unknowns are stored in `s`.
void start_sticking(const Model& model, Data& d, double speed, double initial_slack, Eigen::VectorXd* s);

// Inequality c's compliance ε (a compliant joint limit's or contact's gap is φ + εγ,
// docs/computation.md (114)); 0 when the last solve's inequality c was rigid.
double compliance_epsilon(const Data& d, int c);

// The eliminated variables' steps from the solved Δν: Δs = Jφ Δν − r_s and Δη_t = J_vt Δν − r_η
// (r_η = 0 gives the tangential velocity step J_vt Δν).
void eliminated_steps(const Data& d, int c, const Eigen::VectorXd& delta, const Vec2& r_eta, double* ds, Vec2* deta);

// (Δη_t, 0, 0, 0, 0). Not a comma initializer: GCC 12 with AVX reports a false out-of-bounds
// read of the Vec2 inside Eigen's runtime-sized block copy.
inline void set_friction_dual_step(const Vec2& deta, Vec6* e) {
  e->head<2>() = deta;
  e->tail<4>().setZero();
}

// ---- loops over every inequality of the step (the interior point's, and the derivatives') ----
// The inequality rows of the Newton matrix (after step_jacobian at the same iterate).
void inequality_jacobian(const Model& model, Data& d);
// Right-hand side of the inequality rows for target κ, with Mehrotra's second-order terms from
// the affine steps (none for the predictor).
void inequality_rhs(const Model& model, Data& d, double kappa, const std::vector<Vec6>* affine, Eigen::VectorXd* rhs);
// Every inequality's step from the solved direction ([2c], [2c + 1]: see above); sizes `out`.
void recover_steps(const Data& d, const Eigen::VectorXd& delta, std::vector<Vec6>* out);
// Each inequality's variables moved by α along its step.
void apply_steps(const Data& d, std::vector<Contact>* cs, const std::vector<Vec6>& steps, double alpha);
// The interior point's variables of every contact (γ, s, b, η, the torsional and the pyramid
// ones: everything apply_step and the kinds' start and recentre write) from `from` into `to`,
// a copy of the same contacts: within one solve nothing else of a contact changes, so the trial
// contacts of the line search need only these (a whole Contact is ~60 numbers).
void copy_contact_variables(const std::vector<Contact>& from, std::vector<Contact>* to);

}  // namespace maxsim
