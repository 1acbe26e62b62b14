// Transition derivatives (sim/derivatives/transition.hpp): by finite differences of whole steps
// (transition_fd) and by the implicit function theorem on the converged step (transition_derivatives,
// docs/computation.md §17), with the model parameters' columns of both.
#include "sim/derivatives/transition.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include "sim/actuation.hpp"
#include "sim/solver/assemble.hpp"
#include "sim/solver/inequality.hpp"
#include "sim/solver/projection.hpp"
#include "sim/solver/solve.hpp"
#include "sim/solver/workspace.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"
#include "sim/step.hpp"
#include "sim/step_stages.hpp"

namespace maxsim {

namespace {

// A friction cone pair that the interior point left on its boundary to round-off — a sliding
// joint's |b| = Δt f_dry and η0 = |η_t| in the last bits, which the proximal rate of
// docs/computation.md (113) makes common — has no Nesterov–Todd scaling (NaN in the exact
// matrix, and the centring cannot start): moved inside by a relative 1e-12, far below the
// tolerances. Strictly interior pairs are untouched.
void strictly_inside(Contact* ct) {
  if (ct->linear_cone || !has_cone(*ct)) return;
  constexpr double margin = 1e-12;
  const double beta0 = friction_beta(*ct, ct->gamma, ct->b)(0);
  if (beta0 > 0 && ct->b.norm() > (1 - margin) * beta0) ct->b *= (1 - margin) * beta0 / ct->b.norm();
  const double eta_t = ct->eta.tail<2>().norm();
  if (ct->eta(0) < (1 + margin) * eta_t) ct->eta(0) = (1 + margin) * eta_t;
}

// Per joint with qpos entries: where its quaternion is, in qpos and in qvel (-1: none).
struct QuaternionBlock {
  int qpos = -1, qvel = -1;
};
std::vector<QuaternionBlock> quaternion_blocks(const Model& model) {
  std::vector<QuaternionBlock> out;
  const std::vector<int> qa = qpos_addresses(model), va = qvel_addresses(model);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    if (qa[j] < 0 || jt.nq() == jt.dof()) continue;  // (a free rotation: its quaternion is last)
    out.push_back({qa[j] + jt.nq() - 4, va[j] + jt.dof() - 3});
  }
  return out;
}

// The scalar qpos entries in qvel order: qvel index -> qpos index (-1 for rotation rates).
std::vector<int> scalar_map(const Model& model) {
  std::vector<int> map(static_cast<size_t>(qvel_size(model)), -1);
  const std::vector<int> qa = qpos_addresses(model), va = qvel_addresses(model);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    if (qa[j] < 0) continue;
    const Joint& jt = model.joints[j];
    const int scalars = jt.nq() == jt.dof() ? jt.dof() : jt.dof() - 3;
    for (int k = 0; k < scalars; ++k) map[va[j] + k] = qa[j] + k;
  }
  return map;
}

Vec4 quaternion_at(const std::vector<double>& q, int i) { return Vec4(q[i], q[i + 1], q[i + 2], q[i + 3]); }

// Where the tangent space's entries are in qpos (asked once per call: a column's difference of two
// states reads it).
struct TangentLayout {
  std::vector<QuaternionBlock> blocks;
  std::vector<int> map;  // scalar_map
  explicit TangentLayout(const Model& model) : blocks(quaternion_blocks(model)), map(scalar_map(model)) {}
};

Eigen::VectorXd tangent_difference(const TangentLayout& t, const std::vector<double>& a, const std::vector<double>& b) {
  Eigen::VectorXd d = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(t.map.size()));
  for (size_t k = 0; k < t.map.size(); ++k)
    if (t.map[k] >= 0) d(static_cast<Eigen::Index>(k)) = b[t.map[k]] - a[t.map[k]];
  for (const QuaternionBlock& q : t.blocks)
    d.segment<3>(q.qvel) = quat_log(quat_mul(quat_conj(quaternion_at(a, q.qpos)), quaternion_at(b, q.qpos)));
  return d;
}

// The inputs of a step that the columns move: its start and its commands.
struct Start {
  std::vector<double> qpos, qvel, ctrl;
  std::vector<Vec6> joint_force;
};
Start start_of(const Model& model, const Data& data) {
  return {get_qpos(model, data), get_qvel(model, data), data.ctrl, data.joint_force};
}
// Whether the spanning tree's placement meets every equality: joints alone, none closing a loop
// (no coupling or nonholonomic row), where project_state would only confirm it. A tendon's node is
// an identity row of the projection (its length follows the poses), so tendons do not count.
bool tree_only(const Model& model) {
  if (!model.couplings.empty() || !model.nonholonomic.empty()) return false;
  const std::vector<bool> loops = loop_joints(model);
  return std::none_of(loops.begin(), loops.end(), [](bool b) { return b; });
}

// The model the derivatives solve their steps with: the caller's with Mehrotra's centring target
// (InteriorPointOptions::centering_scale = 1, docs/computation.md (124)). The path's point at κ
// they differentiate does not depend on the answer the centring starts from, but Newton's
// centring (ConvergedStep::centre) reaches it from an answer of Mehrotra's target and not from
// one of a lower target, whose products spread over more decades (the A1 file's held joints: 48
// of 48 perturbed answers not centred at three of eleven states with c = 0.1). `storage` holds
// the copy when one is needed.
const Model& derivative_model(const Model& model, std::optional<Model>* storage) {
  if (model.opt.interior_point.centering_scale == 1.0) return model;
  storage->emplace(model);
  (*storage)->opt.interior_point.centering_scale = 1.0;
  return **storage;
}

// The central path's κ of a `smoothing` argument: negative, a thousandth of the complementarity
// tolerance the step met (transition_derivatives says why).
double path_kappa(const Model& model, double smoothing) {
  return smoothing < 0 ? 1e-3 * model.opt.interior_point.complementarity_tolerance : smoothing;
}

// Starts on a model with loops, placed in the state's own coordinates (docs/computation.md (119)):
// the spanning tree places the bodies from qpos and qvel, and what the loops' rows then violate is
// removed by the least change of the tangent coordinates (Euclidean), through the pseudo-inverse of
// the rows' Jacobian J truncated to its numerical rank at the unperturbed start. Its derivative
// there is the orthogonal projector onto the tangent space of that rank, so each column of A is
// the derivative along the projection of its coordinate: well defined where rows are nearly
// redundant in the bodies' space (Cassie's rods), where set_qpos_qvel's mass-weighted projection
// through the graph's regularized pivot moved a start perturbed by h (its rows violated by 1e-5 h)
// by up to 111 h.
class LoopPlacement {
 public:
  LoopPlacement(const Model& model, const Data& data, const Start& s) {
    Data scratch = data;
    scratch.controller = nullptr;
    const std::vector<std::vector<double>> q = split_qpos(model, s.qpos);
    set_coordinates(model, scratch, q, split_qvel(model, s.qvel));
    const Eigen::VectorXd c = equality_rows(model, scratch, false);
    const Eigen::MatrixXd J = rate_jacobian(model, scratch, q);
    // the rows that act: the equality rows but the tree's own (zero at every placement)
    const double scale = J.lpNorm<Eigen::Infinity>();
    for (Eigen::Index i = 0; i < J.rows(); ++i) {
      if (!(J.row(i).lpNorm<Eigen::Infinity>() > 1e-12 * scale)) continue;
      rate_rows_.push_back(i);
      if (std::isfinite(c(i))) position_rows_.push_back(i);
    }
    const Eigen::MatrixXd Jq = rows_of(J, position_rows_);
    position_inverse_ = truncated_inverse(Jq, &tangent_);
    rate_inverse_ = truncated_inverse(rows_of(J, rate_rows_), nullptr);
  }

  // An orthonormal basis (nv × r) of the positions' tangent space the placement projects onto.
  const Eigen::MatrixXd& tangent() const { return tangent_; }

  // Places s in d, with its commands and applied forces: positions by simplified Newton steps
  // −J⁺c, then velocities by −J⁺(J(q) v) (J and its truncated pseudo-inverse of the unperturbed
  // start: the rows shrink by a factor O(|q − q₀|) a step).
  void place(const Model& model, const Start& s, Data& d) const {
    const std::vector<std::vector<double>> v0 = split_qvel(model, s.qvel);
    set_coordinates(model, d, split_qpos(model, s.qpos), v0);
    const std::vector<double> qpos = settle(
        s.qpos, [&](const std::vector<double>& x) { set_coordinates(model, d, split_qpos(model, x), v0); },
        [&] { return rows_of(equality_rows(model, d, false), position_rows_); },
        [&](const std::vector<double>& x, const Eigen::VectorXd& c) {
          return integrate_qpos(model, x, -position_inverse_ * c, 1.0);
        });
    place_rates(model, s, d, split_qpos(model, qpos));
  }

  // The velocities of place() alone, where d holds its poses of q and their unwrapped angles.
  void place_rates(const Model& model, const Start& s, Data& d, const std::vector<std::vector<double>>& q) const {
    settle(
        s.qvel, [&](const std::vector<double>& x) { set_coordinate_rates(model, d, q, split_qvel(model, x)); },
        [&] { return rows_of(equality_rows(model, d, true), rate_rows_); },
        [&](std::vector<double> x, const Eigen::VectorXd& r) {
          Eigen::Map<Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())) -= rate_inverse_ * r;
          return x;
        });
    follow_joint_angles(model, d);  // (the rows of the last evaluation are at these poses)
    d.ctrl = s.ctrl;
    d.joint_force = s.joint_force;
  }

 private:
  // ∂(J ν)/∂qvel at d's poses (q placed there): the rows' rates are linear in qvel, one unit rate
  // per column
  static Eigen::MatrixXd rate_jacobian(const Model& model, Data& d, const std::vector<std::vector<double>>& q) {
    const int nv = qvel_size(model);
    Eigen::MatrixXd J;
    std::vector<double> unit(static_cast<size_t>(nv), 0.0);
    for (int k = 0; k < nv; ++k) {
      unit[k] = 1.0;
      set_coordinate_rates(model, d, q, split_qvel(model, unit));
      unit[k] = 0.0;
      const Eigen::VectorXd r = equality_rows(model, d, true);
      if (J.size() == 0) J.setZero(r.size(), nv);
      J.col(k) = r.unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
    }
    return J;
  }
  static Eigen::MatrixXd rows_of(const Eigen::MatrixXd& M, const std::vector<Eigen::Index>& rows) {
    Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), M.cols());
    for (size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = M.row(rows[i]);
    return out;
  }
  static Eigen::VectorXd rows_of(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& rows) {
    Eigen::VectorXd out(static_cast<Eigen::Index>(rows.size()));
    for (size_t i = 0; i < rows.size(); ++i) out(static_cast<Eigen::Index>(i)) = x(rows[i]);
    return out;
  }
  // V_r Σ_r⁻¹ U_rᵀ of the singular triplets above 1e-8 of the largest (rows nearly redundant below
  // it count as redundant); `tangent` (optional): the right singular vectors past them, an
  // orthonormal basis of the null space
  static Eigen::MatrixXd truncated_inverse(const Eigen::MatrixXd& J, Eigen::MatrixXd* tangent) {
    const Eigen::Index n = J.cols();
    if (J.rows() == 0) {
      if (tangent) *tangent = Eigen::MatrixXd::Identity(n, n);
      return Eigen::MatrixXd::Zero(n, 0);
    }
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Eigen::VectorXd& sv = svd.singularValues();
    const Eigen::Index r = (sv.array() > kRankTolerance * sv(0)).count();
    if (tangent) *tangent = svd.matrixV().rightCols(n - r);
    return svd.matrixV().leftCols(r) * sv.head(r).cwiseInverse().asDiagonal() * svd.matrixU().leftCols(r).transpose();
  }
  static constexpr double kRankTolerance = 1e-8;

  // x ← step(x, r(x)) while |r| halves and exceeds round-off (1e-14 m, rad, m/s or rad/s), the
  // Data placed at x by `put` and r evaluated there by `rows` (the first x is placed already).
  // Returns the x of the smallest |r| met, placed.
  template <class Put, class Rows, class Step>
  static std::vector<double> settle(std::vector<double> x, Put put, Rows rows, Step step) {
    std::vector<double> best = x;
    double least = INFINITY;
    for (int it = 0; it < 20; ++it) {
      if (it > 0) put(x);
      const Eigen::VectorXd r = rows();
      const double size = r.size() ? r.lpNorm<Eigen::Infinity>() : 0.0;
      if (!(size < 0.5 * least)) {
        put(best);
        return best;
      }
      least = size;
      best = x;
      if (size <= 1e-14) return best;
      x = step(x, r);
    }
    return best;  // (the Data holds it: the last x was not placed)
  }

  std::vector<Eigen::Index> position_rows_, rate_rows_;
  Eigen::MatrixXd position_inverse_, rate_inverse_, tangent_;
};

// Places the start in d with its commands and applied forces: through the spanning tree, and with
// `loops` (a model with loops) onto them as LoopPlacement does; on trees without projecting
// velocities the tree already makes tangent to round-off (the projection's assemblies and
// factorization were a third of a column's cost on the A1 and the humanoid).
void place(const Model& model, const Start& s, Data& d, const LoopPlacement* loops) {
  if (loops) return loops->place(model, s, d);
  set_coordinates(model, d, split_qpos(model, s.qpos), split_qvel(model, s.qvel));
  d.ctrl = s.ctrl;
  d.joint_force = s.joint_force;
}

// A column's perturbation of the start: moves it by h along the column.
using Perturbation = std::function<void(double h, Start* start)>;

// Where a column goes: its matrix ('A', 'B' or 'F') and its index there.
struct ColumnId {
  char matrix;
  int index;
};

// A, B and F column by column (qpos tangent, qvel, ctrl, then the forces), `column` giving each
// one's (2nv) values.
void fill_columns(const Model& model, const std::vector<JointForceInput>& forces,
                  const std::function<Eigen::VectorXd(const Perturbation&, ColumnId)>& column,
                  TransitionDerivatives* out);

// Throws std::invalid_argument unless every force row is a free row of an actuated joint.
void check_forces(const Model& model, const std::vector<JointForceInput>& forces, const char* who) {
  for (const JointForceInput& f : forces) {
    const auto bad = [&](const std::string& what) {
      return std::invalid_argument(std::string(who) + ": force input (joint " + std::to_string(f.joint) + ", row " +
                                   std::to_string(f.row) + ") " + what);
    };
    if (f.joint < 0 || f.joint >= static_cast<int>(model.joints.size()))
      throw bad("is out of range (the model has " + std::to_string(model.joints.size()) + " joints)");
    if (f.row < 0 || f.row >= 6) throw bad("has a row that is not 0..5");
    const Joint& j = model.joints[f.joint];
    if (j.row_constrained(f.row)) throw bad("is a constrained row of joint '" + j.name + "'");
    if (!j.actuated) throw bad("is on joint '" + j.name + "', which takes no applied force");
  }
}

}  // namespace

namespace {
constexpr const char* kParameterNames[] = {"actuator_kp",     "actuator_kv",   "actuator_gear",
                                           "body_mass",       "joint_stiffness", "joint_damping",
                                           "joint_armature",  "joint_friction", "geom_friction"};
}

const char* parameter_kind_name(ModelParameter::Kind kind) { return kParameterNames[static_cast<int>(kind)]; }

bool parameter_kind_from_name(const std::string& name, ModelParameter::Kind* out) {
  for (int k = 0; k < static_cast<int>(std::size(kParameterNames)); ++k)
    if (name == kParameterNames[k]) {
      *out = static_cast<ModelParameter::Kind>(k);
      return true;
    }
  return false;
}

double& parameter_value(Model& model, const ModelParameter& p) {
  using K = ModelParameter::Kind;
  auto bad = [&](const char* what, size_t n) {
    return std::invalid_argument(std::string(parameter_kind_name(p.kind)) + ": " + what + " " + std::to_string(p.index) +
                                 " is out of range (the model has " + std::to_string(n) + ")");
  };
  switch (p.kind) {
    case K::ActuatorKp:
    case K::ActuatorKv:
    case K::ActuatorGear: {
      if (p.index < 0 || p.index >= static_cast<int>(model.actuators.size())) throw bad("actuator", model.actuators.size());
      Actuator& a = model.actuators[p.index];
      return p.kind == K::ActuatorKp ? a.kp : p.kind == K::ActuatorKv ? a.kv : a.gear;
    }
    case K::BodyMass:
      if (p.index < 0 || p.index >= static_cast<int>(model.bodies.size())) throw bad("body", model.bodies.size());
      return model.bodies[p.index].mass;
    case K::GeomFriction: {
      if (p.index < kWorld || p.index >= static_cast<int>(model.bodies.size())) throw bad("body", model.bodies.size());
      std::vector<Geom>& geoms = p.index == kWorld ? model.world_geoms : model.bodies[p.index].geoms;
      if (p.row < 0 || p.row >= static_cast<int>(geoms.size()))
        throw std::invalid_argument("geom_friction: geom " + std::to_string(p.row) + " of body " +
                                    std::to_string(p.index) + " is out of range (it has " +
                                    std::to_string(geoms.size()) + ")");
      Geom& g = geoms[p.row];
      if (g.friction < 0)
        throw std::invalid_argument("geom_friction: geom " + std::to_string(p.row) + " of body " +
                                    std::to_string(p.index) + " takes the world default friction (set its own)");
      return g.friction;
    }
    default: {
      if (p.index < 0 || p.index >= static_cast<int>(model.joints.size())) throw bad("joint", model.joints.size());
      if (p.row < 0 || p.row >= 6)
        throw std::invalid_argument(std::string(parameter_kind_name(p.kind)) + ": row " + std::to_string(p.row) + " is not 0..5");
      Joint& j = model.joints[p.index];
      return p.kind == K::JointStiffness ? j.stiffness[p.row]
             : p.kind == K::JointDamping ? j.damping[p.row]
             : p.kind == K::JointFriction ? j.friction[p.row]
                                          : j.armature[p.row];
    }
  }
}

namespace {
// The parameter's perturbation: eps relative to its size, at least eps.
double parameter_step(const Model& model, const ModelParameter& p, double eps) {
  return eps * std::max(1.0, std::abs(parameter_value(const_cast<Model&>(model), p)));  // (read only)
}
}  // namespace

Eigen::MatrixXd loop_tangent(const Model& model, const Data& data) {
  const int nv = qvel_size(model);
  if (tree_only(model)) return Eigen::MatrixXd::Identity(nv, nv);
  return LoopPlacement(model, data, start_of(model, data)).tangent();
}

std::vector<double> integrate_qpos(const Model& model, std::vector<double> qpos, const Eigen::VectorXd& dq, double h) {
  const std::vector<QuaternionBlock> blocks = quaternion_blocks(model);
  const std::vector<int> map = scalar_map(model);
  for (size_t k = 0; k < map.size(); ++k)
    if (map[k] >= 0) qpos[map[k]] += h * dq(static_cast<Eigen::Index>(k));
  for (const QuaternionBlock& b : blocks) {
    const Vec4 q = quat_normalize(quat_mul(quaternion_at(qpos, b.qpos), quat_exp(h * dq.segment<3>(b.qvel))));
    for (int c = 0; c < 4; ++c) qpos[b.qpos + c] = q(c);
  }
  return qpos;
}

Eigen::VectorXd difference_qpos(const Model& model, const std::vector<double>& a, const std::vector<double>& b) {
  return tangent_difference(TangentLayout(model), a, b);
}

namespace {
void fill_columns(const Model& model, const std::vector<JointForceInput>& forces,
                  const std::function<Eigen::VectorXd(const Perturbation&, ColumnId)>& column,
                  TransitionDerivatives* out) {
  const int nv = qvel_size(model), nu = model.nu();
  out->A.resize(2 * nv, 2 * nv);
  out->B.resize(2 * nv, nu);
  out->F.resize(2 * nv, static_cast<Eigen::Index>(forces.size()));
  const TangentLayout tangent(model);
  const std::vector<QuaternionBlock>& blocks = tangent.blocks;
  const std::vector<int>& map = tangent.map;
  for (int k = 0; k < nv; ++k) {
    // integrate_qpos along e_k, touching only the entries e_k moves (the other quaternions are
    // not normalized again: the start's placement keeps every other joint's bodies)
    const Perturbation along = [&, k](double h, Start* s) {
      if (map[k] >= 0) {
        s->qpos[map[k]] += h;
        return;
      }
      for (const QuaternionBlock& b : blocks) {
        if (k < b.qvel || k >= b.qvel + 3) continue;
        const Vec4 q = quat_normalize(quat_mul(quaternion_at(s->qpos, b.qpos), quat_exp(h * Vec3::Unit(k - b.qvel))));
        for (int c = 0; c < 4; ++c) s->qpos[b.qpos + c] = q(c);
      }
    };
    out->A.col(k) = column(along, {'A', k});
    out->A.col(nv + k) = column([&](double h, Start* s) { s->qvel[k] += h; }, {'A', nv + k});
  }
  for (int k = 0; k < nu; ++k) out->B.col(k) = column([&](double h, Start* s) { s->ctrl[k] += h; }, {'B', k});
  for (size_t k = 0; k < forces.size(); ++k) {
    const int f = static_cast<int>(k);
    out->F.col(f) = column([&](double h, Start* s) { s->joint_force[forces[k].joint](forces[k].row) += h; }, {'F', f});
  }
}
}  // namespace

namespace {
// (x'(+) − x'(−)) / span in the tangent layout
Eigen::VectorXd state_difference(const TangentLayout& tangent, const std::vector<double>& qp, const std::vector<double>& vp,
                                 const std::vector<double>& qm, const std::vector<double>& vm, double span) {
  const Eigen::Index nv = static_cast<Eigen::Index>(vp.size());
  Eigen::VectorXd col(2 * nv);
  col.head(nv) = tangent_difference(tangent, qm, qp) / span;
  col.tail(nv) = (Eigen::Map<const Eigen::VectorXd>(vp.data(), nv) - Eigen::Map<const Eigen::VectorXd>(vm.data(), nv)) / span;
  return col;
}

// Whether a parameter's value is in the collision world a Data's contact search builds (it is
// rebuilt from the moved model's copy for that column).
bool in_collision_world(const ModelParameter& p) { return p.kind == ModelParameter::Kind::GeomFriction; }

// Throws std::invalid_argument, naming `who`, for eps not finite and > 0, smoothing not finite, a
// bad parameter or a bad force row.
void check_arguments(const Model& model, double eps, double smoothing, const std::vector<ModelParameter>& parameters,
                     const std::vector<JointForceInput>& forces, const char* who) {
  if (!(eps > 0) || !std::isfinite(eps)) throw std::invalid_argument(std::string(who) + ": eps must be finite and > 0");
  if (!std::isfinite(smoothing)) throw std::invalid_argument(std::string(who) + ": smoothing must be finite");
  for (const ModelParameter& p : parameters) parameter_step(model, p, eps);  // (throws for a bad one)
  check_forces(model, forces, who);
}

// P's columns: `column(plus, minus, p, span)` gives (x'(plus) − x'(minus)) / span for copies of the
// model whose parameter p is moved by +h and −h (by +h and 0 when not centered).
void fill_parameter_columns(
    const Model& model, const std::vector<ModelParameter>& parameters, double eps, bool centered,
    const std::function<Eigen::VectorXd(const Model&, const Model&, const ModelParameter&, double)>& column,
    TransitionDerivatives* out) {
  out->P.resize(2 * qvel_size(model), static_cast<Eigen::Index>(parameters.size()));
  for (size_t k = 0; k < parameters.size(); ++k) {
    const double h = parameter_step(model, parameters[k], eps);
    Model plus = model, minus = model;
    parameter_value(plus, parameters[k]) += h;
    if (centered) parameter_value(minus, parameters[k]) -= h;
    out->P.col(static_cast<Eigen::Index>(k)) = column(plus, minus, parameters[k], centered ? 2 * h : h);
  }
}
}  // namespace

namespace {

// The converged step, replayed at perturbed starts (transition_derivatives).
class ConvergedStep {
 public:
  // (`loops`: the placement onto a model's loops, null on trees)
  ConvergedStep(const Model& model, Data& d, double kappa, const LoopPlacement* loops)
      : model_(&model), d_(d), ws_(workspace(d)), kappa_(kappa), loops_(loops) {
    unknowns_ = ws_.unknowns;
    for (Contact& ct : d.contacts) strictly_inside(&ct);
    converged_ = d.contacts;
    ws_.cone_weight = model.opt.interior_point.cone_weight;  // the step's own central path
    // the implicit function theorem needs the exact matrix: no proximal term of the last attempt
    ws_.proximal = 0.0;
    ws_.joint_friction_rate = 0.0;
  }

  // The start (x, u): kinematics, the actuators' forces, the inequalities' geometry at this knot
  // on the converged set, and the knot quantities. Returns false when the contact search found
  // another set here (the converged geometry is then kept). `same_poses` (after factor): s has the
  // unperturbed start's qpos, whose geometry factor found (the search is skipped: a velocity or a
  // command moves no contact point). `rates`: the velocities are placed anew even where they are
  // the unperturbed start's (a rate column's reference, placed as its perturbed starts are).
  bool set_start(const Start& s, bool same_poses = false, bool rates = false) {
    const bool placed_poses = !placed_.empty() && model_ == placed_model_ && s.qpos == placed_start_.qpos;
    if (placed_poses && s.qvel == placed_start_.qvel && !rates) {
      restore_placement(s);  // (a command's or a force's column: the unperturbed start's state)
    } else if (placed_poses) {
      // (a rate's column: the unperturbed start's poses and angles, the velocities placed anew;
      // with loops onto them)
      restore_placement(s);
      set_coordinate_rates(*model_, d_, placed_q_, split_qvel(*model_, s.qvel));
      if (loops_) loops_->place_rates(*model_, s, d_, placed_q_);
    } else if (!placed_.empty() && model_ == placed_model_ && !loops_ && s.qvel == placed_start_.qvel) {
      // (a qpos column: the bodies past the joint it moves are placed again, the others put back)
      const std::vector<std::vector<double>> q = split_qpos(*model_, s.qpos);
      std::vector<bool> changed(q.size());
      for (size_t j = 0; j < q.size(); ++j) changed[j] = q[j] != placed_q_[j];
      restore_placement(s);
      set_changed_coordinates(*model_, d_, q, split_qvel(*model_, s.qvel), changed);
    } else {
      place(*model_, s, d_, loops_);
    }
    if (placed_.empty()) keep_placement(s);
    apply_actuation(*model_, d_);
    // (the inequalities at the unperturbed poses, as the first such call set them)
    if (same_poses && same_pose_model_ == model_) {
      d_.contacts = same_pose_contacts_;
      step_prepare(*model_, d_);
      return same_pose_match_;
    }
    if (same_poses) {
      found_ = found_at_start_;
    } else {
      found_.clear();
      found_.swap(d_.contacts);
      find_inequalities(*model_, d_, ws_.dt);
      found_.swap(d_.contacts);  // (d_.contacts empty again)
    }
    d_.contacts = converged_;
    const bool same = match_found();
    // (the first call, at the unperturbed start, keeps the step's own geometry and sets the shifts)
    for (size_t c = 0; c < converged_.size() && !offset_shift_.empty(); ++c) {
      if (match_[c] < 0) continue;
      Contact& ct = d_.contacts[c];
      const Contact& f = found_[match_[c]];
      ct.point_a = f.point_a;
      ct.point_b = f.point_b;
      ct.core_a = f.core_a;
      ct.core_b = f.core_b;
      ct.normal = f.normal;
      ct.tangent = f.tangent;
      ct.bound = f.bound;
      ct.friction = f.friction;    // (a friction parameter's column)
      ct.dry_limit = f.dry_limit;
      ct.offset = f.offset + offset_shift_[c];  // (restitution's opening, docs/computation.md §4)
    }
    if (same_poses && !offset_shift_.empty()) {
      same_pose_contacts_ = d_.contacts;
      same_pose_match_ = same;
      same_pose_model_ = model_;
    }
    step_prepare(*model_, d_);
    return same;
  }

  // The state place() sets, kept at the unperturbed start and put back for the columns that move
  // only commands or forces: placing walks the spanning tree (and projects loops) for the same
  // answer.
  struct Placement {
    std::vector<Vec3> x, v, w, joint_angle;
    std::vector<Vec4> q;
    bool empty() const { return x.empty() && q.empty(); }
  };
  void keep_placement(const Start& s) {
    placed_ = {d_.x, d_.v, d_.w, d_.joint_angle, d_.q};
    placed_start_ = s;
    placed_q_ = split_qpos(*model_, s.qpos);
    placed_model_ = model_;
  }
  void restore_placement(const Start& s) {
    d_.x = placed_.x;
    d_.q = placed_.q;
    d_.v = placed_.v;
    d_.w = placed_.w;
    d_.joint_angle = placed_.joint_angle;
    d_.ctrl = s.ctrl;  // (as place)
    d_.joint_force = s.joint_force;
  }

  // match_[c]: the inequality of found_ that is the converged one c — the same constraint and, among
  // a pair's several points, the one whose witness point is nearest and within 1 mm (the search
  // may list them in another order at a perturbed start) — or −1. True if every one is matched and
  // none is new.
  bool match_found() {
    match_inequalities(found_, converged_, &match_, &match_scratch_, 1e-3);
    return found_.size() == converged_.size() && std::find(match_.begin(), match_.end(), -1) == match_.end();
  }

  // At the unperturbed start: what the step added to the found geometry (restitution), then the
  // Newton matrix at the answer, factored. False if it cannot be factored.
  bool factor(const Start& s) {
    set_start(s);
    found_at_start_ = found_;
    offset_shift_.assign(converged_.size(), 0.0);
    for (size_t c = 0; c < converged_.size(); ++c)
      if (match_[c] >= 0) offset_shift_[c] = converged_[c].offset - found_[match_[c]].offset;
    if (kappa_ > 0 && !centre()) return false;
    step_residual(*model_, d_, unknowns_, &ws_.residual);
    step_jacobian(*model_, d_, unknowns_);
    inequality_jacobian(*model_, d_);
    if (!ws_.ldu.factor()) return false;
    factored_ = ws_.ldu;  // (step_prepare at the next start writes the impulse maps into ws.ldu)
    for (ConeLinearization& lin : ws_.cone_lin) lin.evaluated = true;  // (a friction column moves β)
    for (ConeLinearization& lin : ws_.spin_lin) lin.evaluated = true;
    return true;
  }
  int regularized() const { return factored_.num_regularized(); }
  // The model the next starts are evaluated with: a copy with one parameter moved gives that
  // parameter's column, with the factorization of the model the step was solved with; `rebuild`
  // makes the contact search's collision world the model's (a geom's friction).
  void use_model(const Model& model, bool rebuild) {
    model_ = &model;
    if (rebuild && d_.contact_search) d_.contact_search->rebuild(model);
  }

  // The smoothed step (docs/computation.md §17): from the answer, Newton's method on the same
  // equations with every complementarity pair on the central path γ s = κ, w β∘η = κe
  // (docs/computation.md (111)), the fraction to the boundary 0.99 keeping the pairs inside.
  // False if it does not get there.
  bool centre() {
    const EqualityTest converged = equality_test(*model_, d_);
    const double tol = model_->opt.solver.tolerance;
    double last = INFINITY;
    const double n = static_cast<double>(d_.contacts.size());
    // open candidates onto the path first: from the answer their Newton direction leaves the cone
    // at once (docs/computation.md (112))
    for (size_t c = 0; c < d_.contacts.size(); ++c)
      ws_.kinds[c]->place_open_on_path(d_, static_cast<int>(c), kappa_, ws_.cone_weight, &unknowns_);
    for (int it = 0; it < 100; ++it) {
      step_residual(*model_, d_, unknowns_, &ws_.residual);
      if (!ws_.residual.allFinite()) return false;
      double distance = 0;
      bool rows_ok = converged(ws_.residual);
      for (size_t c = 0; c < d_.contacts.size(); ++c) {
        ws_.kinds[c]->add_central_distance(d_.contacts[c], kappa_, ws_.cone_weight, &distance);
        rows_ok = rows_ok && ws_.kinds[c]->converged(d_.contacts[c], ws_.contact_kin[c], tol, ws_.dt);
      }
      // on the path within 1e-3 κ, or within 0.1 κ per inequality where the distance stalls
      // (round-off; held joints' load sharing, which only the barrier fixes: docs/computation.md §17)
      if (rows_ok && (distance < 1e-3 * kappa_ || (distance < 0.1 * n * kappa_ && distance > 0.5 * last))) {
        converged_ = d_.contacts;
        return true;
      }
      last = distance;
      step_jacobian(*model_, d_, unknowns_);
      inequality_jacobian(*model_, d_);
      if (!ws_.ldu.factor()) return false;
      ws_.delta = -ws_.residual;
      inequality_rhs(*model_, d_, kappa_, nullptr, &ws_.delta);
      ws_.ldu.solve(ws_.delta);
      recover_steps(d_, ws_.delta, &steps_);
      double alpha = 1.0;
      for (size_t c = 0; c < d_.contacts.size(); ++c)
        alpha = ws_.kinds[c]->max_step(d_.contacts[c], steps_[2 * c], steps_[2 * c + 1], alpha);
      alpha = std::min(1.0, 0.99 * alpha);
      unknowns_ += alpha * ws_.delta;
      apply_steps(d_, &d_.contacts, steps_, alpha);
    }
    return false;
  }

  // x' after one linearized Newton step from the answer with the start set by set_start:
  // s = s* − (∂F/∂s)⁻¹ F(s*; p), the inequalities' variables along their recovered steps.
  void next_state(std::vector<double>* qpos, std::vector<double>* qvel) {
    step_residual(*model_, d_, unknowns_, &ws_.residual);
    advance_from(ws_.residual, qpos, qvel);
  }

  // F(s*; p) at the start set by set_start; what next_state_from needs of this knot is kept.
  const Eigen::VectorXd& residual() {
    step_residual(*model_, d_, unknowns_, &ws_.residual);
    knot_contacts_ = d_.contacts;
    return ws_.residual;
  }
  // next_state with the residual given, for a start that differs from the last residual()'s only in
  // what that residual carries (a command or an applied force: the poses, velocities, geometry and
  // knot quantities are the same): that knot is put back and x' read as next_state would.
  void next_state_from(const Eigen::VectorXd& residual, std::vector<double>* qpos, std::vector<double>* qvel) {
    restore_placement(placed_start_);
    d_.contacts = knot_contacts_;
    advance_from(residual, qpos, qvel);
  }

 private:
  void advance_from(const Eigen::VectorXd& residual, std::vector<double>* qpos, std::vector<double>* qvel) {
    ws_.delta = -residual;
    inequality_rhs(*model_, d_, kappa_, nullptr, &ws_.delta);
    factored_.solve(ws_.delta);
    recover_steps(d_, ws_.delta, &steps_);
    ws_.unknowns = unknowns_ + ws_.delta;
    apply_steps(d_, &d_.contacts, steps_, 1.0);
    step_knot(*model_, d_, ws_.unknowns);  // (z3 and its joint rows, which advance_knot reads)
    advance_knot(*model_, d_);
    qpos->resize(qpos_size(*model_));
    qvel->resize(qvel_size(*model_));
    get_qpos_qvel(*model_, d_, ws_.rows3, *qpos, *qvel);  // (the rows at z3 advance_knot left)
  }

  const Model* model_;  // the model the start is evaluated with (a parameter column's copy)
  Data& d_;
  Workspace& ws_;
  double kappa_;  // the central path's target (0: the step's own answer)
  const LoopPlacement* loops_;  // the placement onto the loops (null: a tree)
  Eigen::VectorXd unknowns_;
  std::vector<Contact> converged_, found_;
  std::vector<Contact> found_at_start_;  // what the search found at the unperturbed start (factor)
  std::vector<int> match_;  // per converged inequality, its index in found_ (match_found)
  InequalityMatchScratch match_scratch_;
  std::vector<double> offset_shift_;
  std::vector<Vec6> steps_;
  BlockLdu factored_;
  Placement placed_;         // (keep_placement)
  Start placed_start_;
  std::vector<Contact> knot_contacts_;  // the inequalities at the last residual()'s start
  std::vector<Contact> same_pose_contacts_;  // set_start's inequalities at the unperturbed poses
  bool same_pose_match_ = false;             // and whether they matched the converged set
  const Model* same_pose_model_ = nullptr;   // (the model they were set with; null: not yet)
  std::vector<std::vector<double>> placed_q_;  // placed_start_'s qpos per joint
  const Model* placed_model_ = nullptr;
};

}  // namespace

TransitionDerivatives transition_fd(const Model& caller_model, const Data& data, double eps, bool centered,
                                    const std::vector<ModelParameter>& parameters,
                                    const std::vector<JointForceInput>& forces, double smoothing) {
  check_arguments(caller_model, eps, smoothing, parameters, forces, "transition_fd");
  std::optional<Model> copy;
  const Model& model = derivative_model(caller_model, &copy);
  const TangentLayout tangent(model);
  const double kappa = path_kappa(model, smoothing);
  int uncentred = 0;
  const Start start0 = start_of(model, data);
  const std::optional<LoopPlacement> loop_placement =
      tree_only(model) ? std::nullopt : std::optional<LoopPlacement>(std::in_place, model, data, start0);
  const LoopPlacement* loops = loop_placement ? &*loop_placement : nullptr;
  Data base = data;
  base.controller = nullptr;  // (the inputs are the ones held now)
  // a perturbed step's x': its own answer, and (smoothing ≠ 0) that answer put on the central path
  // at κ, as transition_derivatives holds it
  struct Answer {
    std::vector<double> qpos, qvel;            // the step's own answer
    std::vector<double> path_qpos, path_qvel;  // that answer put on the path (when `centred`)
    bool centred = false;
    bool uncentred = false;  // it had inequalities to centre and could not be put there
  };
  // the next state of a copy started at the start moved by h (with a collision world of mp's)
  auto next_with = [&](const Model& mp, bool rebuild, const Perturbation& perturb, double h) {
    Start s = start0;
    if (perturb) perturb(h, &s);
    Data d = base;
    if (rebuild && d.contact_search) d.contact_search->rebuild(mp);
    place(mp, s, d, loops);
    const StepReport report = step(mp, d);
    Answer a;
    a.qpos.resize(qpos_size(mp));
    a.qvel.resize(qvel_size(mp));
    get_qpos_qvel(mp, d, a.qpos, a.qvel);
    if (smoothing == 0 || d.contacts.empty()) return a;  // (nothing to centre: on the path as it is)
    if (report.status == StepStatus::Ok && !report.substeps) {
      ConvergedStep centred(mp, d, kappa, loops);
      if (centred.factor(s)) {
        centred.set_start(s);
        centred.next_state(&a.path_qpos, &a.path_qvel);
        a.centred = true;
      }
    }
    a.uncentred = !a.centred;
    return a;
  };
  auto next = [&](const Perturbation& perturb, double h) { return next_with(model, false, perturb, h); };
  // (x'(+) − x'(−)) / span on the path when both answers are there, else of both plain answers: a
  // column mixing the two differences their stopping points (a held joint's creep), ~1e-6 / eps
  auto difference = [&](const Answer& p, const Answer& m, double span) {
    const bool plain = p.uncentred || m.uncentred;
    uncentred += plain;
    auto qpos = [&](const Answer& a) -> const std::vector<double>& { return a.centred && !plain ? a.path_qpos : a.qpos; };
    auto qvel = [&](const Answer& a) -> const std::vector<double>& { return a.centred && !plain ? a.path_qvel : a.qvel; };
    return state_difference(tangent, qpos(p), qvel(p), qpos(m), qvel(m), span);
  };
  Answer reference;  // (the unperturbed step, for forward differences)
  if (!centered) reference = next(nullptr, 0.0);
  // the column of a perturbation: (x'(+) − x'(−)) / 2eps, or (x'(+) − x') / eps
  TransitionDerivatives out;
  fill_columns(model, forces, [&](const Perturbation& perturb, ColumnId) {
    const Answer plus = next(perturb, eps);
    return centered ? difference(plus, next(perturb, -eps), 2 * eps) : difference(plus, reference, eps);
  }, &out);
  fill_parameter_columns(model, parameters, eps, centered,
                         [&](const Model& plus, const Model& minus, const ModelParameter& p, double span) {
                           const Answer a = next_with(plus, in_collision_world(p), nullptr, 0.0);
                           return difference(a, next_with(minus, in_collision_world(p), nullptr, 0.0), span);
                         }, &out);
  out.smoothing = smoothing == 0 ? 0.0 : kappa;
  out.uncentred = uncentred;
  if (loops) out.tangent = loops->tangent();
  return out;
}

TransitionDerivatives transition_derivatives(const Model& caller_model, const Data& data, double eps,
                                             double smoothing, const std::vector<ModelParameter>& parameters,
                                             const std::vector<JointForceInput>& forces) {
  check_arguments(caller_model, eps, smoothing, parameters, forces, "transition_derivatives");
  std::optional<Model> copy;
  const Model& model = derivative_model(caller_model, &copy);
  const TangentLayout tangent(model);
  const Start start0 = start_of(model, data);
  const bool tree = tree_only(model);
  const std::optional<LoopPlacement> loop_placement =
      tree ? std::nullopt : std::optional<LoopPlacement>(std::in_place, model, data, start0);
  const LoopPlacement* loops = loop_placement ? &*loop_placement : nullptr;
  Data d = data;
  d.controller = nullptr;  // (the inputs are the ones held now)
  place(model, start0, d, loops);  // (as transition_fd starts each of its steps)
  TransitionDerivatives out;
  out.report = step(model, d);
  // κ < 0: the converged answer, held on the central path at a thousandth of the complementarity
  // tolerance it met — a point the interior point accepts as converged, where redundant contacts'
  // load sharing stays determined (at κ = 0 the matrix is singular along it); its softening of a
  // contact, compliance κ/γ², is below 1e-5 of a step's mobility for impulses above ~1e-3 N·s
  double kappa = d.contacts.empty() ? 0.0 : path_kappa(model, smoothing);
  const bool solved = out.report.status == StepStatus::Ok && !out.report.substeps;
  const std::vector<Contact> answer = d.contacts;
  auto differentiate = [&](double k) {
    d.contacts = answer;
    auto step = std::make_unique<ConvergedStep>(model, d, k, loops);
    if (!step->factor(start0)) step.reset();
    return step;
  };
  std::unique_ptr<ConvergedStep> converged;
  if (solved) converged = differentiate(kappa);
  if (solved && !converged && kappa > 0 && smoothing < 0) converged = differentiate(kappa = 0.0);
  out.smoothing = kappa;
  if (!converged) {
    TransitionDerivatives fd = transition_fd(model, data, eps, true, parameters, forces);
    fd.report = out.report;
    return fd;
  }
  out.implicit = true;
  if (loops) out.tangent = loops->tangent();
  out.regularized_pivots = converged->regularized();
  // the column of a perturbed start: (x'(+eps) − x'(−eps)) / 2 eps, (102); a column that keeps
  // the poses (a command, a force; on trees a rate), (x'(+eps) − x'(0)) / eps: the linearized step
  // is affine in the commands and forces and, but for the bodies' rotation terms, in the rates
  // (forward and central differences agree to 1e-7 of B and 1e-10 of A on the benchmark's models).
  // With loops a rate column's start is projected when its velocities leave the tangent space by
  // more than round-off, the unperturbed one is not: both sides are perturbed there.
  const int nv = qvel_size(model);
  out.A_set_changed.assign(2 * nv, false);
  out.B_set_changed.assign(model.nu(), false);
  struct Reference {
    std::vector<double> q, v;
  } reference[2];  // x' at the unperturbed start, placed as a rate column's [1] or a command's [0]
  // Inputs that each act on one entry of the step's equations alone — a joint actuator's command,
  // an applied joint force: its free row's Δt·force — are perturbed together and the residual split
  // by entry: each column's residual is then bitwise the one its own perturbation gives, and only
  // the solve and the read of x' are per column. Every other entry must come out unchanged (else,
  // as for tendon actuators or two inputs on one row, the columns are taken one by one).
  const SystemLayout& layout = workspace(d).layout;
  auto batch = [&](const std::vector<Eigen::Index>& entries, const Perturbation& each, Eigen::MatrixXd* cols) {
    std::vector<Eigen::Index> sorted = entries;
    std::sort(sorted.begin(), sorted.end());
    if (entries.size() < 2 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
    Reference& r = reference[0];
    converged->set_start(start0, true, false);
    const Eigen::VectorXd f0 = converged->residual();
    if (r.q.empty()) converged->next_state_from(f0, &r.q, &r.v);
    Start all = start0;
    each(eps, &all);  // (every input of the batch at once)
    converged->set_start(all, true, false);
    const Eigen::VectorXd f1 = converged->residual();
    Eigen::VectorXd unchanged = f1;
    for (Eigen::Index e : entries) unchanged(e) = f0(e);
    if (!(unchanged.array() == f0.array()).all()) return false;
    cols->resize(2 * nv, static_cast<Eigen::Index>(entries.size()));
    std::vector<double> q, v;
    Eigen::VectorXd f;
    for (size_t k = 0; k < entries.size(); ++k) {
      f = f0;
      f(entries[k]) = f1(entries[k]);
      converged->next_state_from(f, &q, &v);
      cols->col(static_cast<Eigen::Index>(k)) = state_difference(tangent, q, v, r.q, r.v, eps);
    }
    return true;
  };
  Eigen::MatrixXd batched_B, batched_F;
  bool command_batch = false, force_batch = false;
  {
    std::vector<Eigen::Index> entries;
    for (const Actuator& a : model.actuators)
      if (a.tendon < 0) entries.push_back(6 * static_cast<Eigen::Index>(layout.joint_node(a.joint)) + a.row);
    if (entries.size() == model.actuators.size())
      command_batch = batch(entries, [&](double h, Start* s) { for (double& u : s->ctrl) u += h; }, &batched_B);
    entries.clear();
    for (const JointForceInput& f : forces) entries.push_back(6 * static_cast<Eigen::Index>(layout.joint_node(f.joint)) + f.row);
    force_batch = batch(entries, [&](double h, Start* s) {
      for (const JointForceInput& f : forces) s->joint_force[f.joint](f.row) += h;
    }, &batched_F);
  }
  fill_columns(model, forces, [&](const Perturbation& perturb, ColumnId where) {
    if (where.matrix == 'B' && command_batch) return Eigen::VectorXd(batched_B.col(where.index));
    if (where.matrix == 'F' && force_batch) return Eigen::VectorXd(batched_F.col(where.index));
    std::vector<double> q[2], v[2];
    bool same = true;
    const bool same_poses = !(where.matrix == 'A' && where.index < nv);  // (qvel, ctrl, force columns)
    const bool rate = where.matrix == 'A' && where.index >= nv;
    if (same_poses && (tree || !rate)) {
      Reference& r = reference[rate];
      if (r.q.empty()) {
        converged->set_start(start0, true, rate);
        converged->next_state(&r.q, &r.v);
      }
      Start s = start0;
      perturb(eps, &s);
      converged->set_start(s, true, rate);
      converged->next_state(&q[0], &v[0]);
      return state_difference(tangent, q[0], v[0], r.q, r.v, eps);
    }
    for (int k = 0; k < 2; ++k) {
      Start s = start0;
      perturb(k == 0 ? eps : -eps, &s);
      if (!converged->set_start(s, same_poses)) ++out.contact_set_changes, same = false;
      converged->next_state(&q[k], &v[k]);
    }
    if (where.matrix == 'A') out.A_set_changed[where.index] = !same;
    if (where.matrix == 'B') out.B_set_changed[where.index] = !same;
    return state_difference(tangent, q[0], v[0], q[1], v[1], 2 * eps);
  }, &out);
  // parameter columns: the same step, its start evaluated with a copy of the model whose
  // parameter is moved (the factorization stays the model's)
  fill_parameter_columns(model, parameters, eps, true,
                         [&](const Model& plus, const Model& minus, const ModelParameter& p, double span) {
                           std::vector<double> q[2], v[2];
                           for (int k = 0; k < 2; ++k) {
                             converged->use_model(k == 0 ? plus : minus, in_collision_world(p));
                             if (!converged->set_start(start0)) ++out.contact_set_changes;
                             converged->next_state(&q[k], &v[k]);
                           }
                           converged->use_model(model, in_collision_world(p));
                           return state_difference(tangent, q[0], v[0], q[1], v[1], span);
                         }, &out);
  return out;
}

}  // namespace maxsim
