#include "sim/solver/projection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "sim/constraints/equality.hpp"
#include "sim/solver/workspace.hpp"

namespace maxsim {

namespace {

// [M  −Jᵀ; J  0] with J the rows of every equality constraint at the current poses: a joint's
// constrained rows (its free rows are identity rows with zero right-hand side, i.e. no
// multiplier), a nonholonomic constraint's position rows always and its velocity rows with
// `velocities`.
void assemble_projection(const Model& model, Data& d, bool velocities) {
  Workspace& ws = workspace(d);
  BlockLdu& A = ws.ldu;
  A.set_zero();
  for (int i = 0; i < ws.layout.bodies; ++i) {
    A.diag(i).topLeftCorner<3, 3>() = model.bodies[i].mass * Mat3::Identity();
    A.diag(i).bottomRightCorner<3, 3>() = model.bodies[i].inertia;
  }
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) kind->projection_matrix(model, d, ws, k, velocities);
  // the last step's inequality nodes take no part: identity pivots with zero right-hand sides
  // (a zero block would be singular wherever its rows are not all regularized)
  for (const int node : ws.contact_node)
    if (node >= 0) A.diag(node).setIdentity();
}

// While it lives (with `use`), ws.ldu is Workspace::velocity_ldu where equality constraints close
// a loop, the step's factorization kept aside.
class VelocityFactors {
 public:
  VelocityFactors(const Model& model, Workspace& ws, bool use) : ws_(ws), on_(use && ws.velocity_ldu_separate) {
    if (!on_) return;
    analyze_velocity_ldu(model, ws_);
    std::swap(ws_.ldu, ws_.velocity_ldu);
  }
  ~VelocityFactors() {
    if (on_) std::swap(ws_.ldu, ws_.velocity_ldu);
  }
  VelocityFactors(const VelocityFactors&) = delete;
  VelocityFactors& operator=(const VelocityFactors&) = delete;

 private:
  Workspace& ws_;
  bool on_;
};

// The minimal mass-weighted change Δ of per-body 6-vectors with J Δ = rhs (rhs filled by
// `fill` on the projection's rows at the current poses), added by `apply`.
// `below` > 0: a rhs within it is left unprojected (no factorization). `placed`: a placed state's
// velocities (VelocityFactors). `refinements`: up to that many more solves with the same factors
// while the rhs, filled again after the change, exceeds max(below, 1e-12) (iterative refinement:
// the rows do not depend on what `apply` changes).
template <class Fill, class Apply>
bool project(const Model& model, Data& d, Fill fill, Apply apply, double below = 0, bool placed = false,
             int refinements = 0) {
  Workspace& ws = workspace(model, d);
  const VelocityFactors factors(model, ws, placed);
  Eigen::VectorXd& rhs = ws.delta;
  assemble_projection(model, d, true);
  rhs.setZero();
  fill(ws, rhs);
  if (below > 0 && rhs.lpNorm<Eigen::Infinity>() <= below) return true;
  if (!ws.ldu.factor()) return false;
  for (int pass = 0;; ++pass) {
    ws.ldu.solve(rhs);
    for (int i = 0; i < ws.layout.bodies; ++i) apply(i, Vec6(ws.layout.body(rhs, i)));
    if (pass == refinements) return true;
    rhs.setZero();
    fill(ws, rhs);
    if (rhs.lpNorm<Eigen::Infinity>() <= std::max(below, 1e-12)) return true;
  }
}

}  // namespace

Pose pose_along_motion(const Data& d, int body, double e) {
  if (body == kWorld) return Pose{};
  const Vec6& a = d.acceleration[body];
  return Pose{d.x[body] + e * d.v[body] + 0.5 * e * e * a.head<3>(),
              quat_mul(d.q[body], quat_exp(e * d.w[body] + 0.5 * e * e * a.tail<3>()))};
}

// velocities: onto J ν = 0 at the current poses, the nonholonomic rows included
namespace {
bool velocities_onto_rows(const Model& model, Data& d, double below, bool placed, int refinements = 0) {
  return project(
      model, d,
      [&](const Workspace& ws, Eigen::VectorXd& rhs) {
        for (const EqualityKind* kind : equality_kinds())
          for (int k = 0; k < kind->count(model); ++k) kind->velocity_rhs(model, d, ws, k, &rhs);
      },
      [&](int i, const Vec6& dv) {
        d.v[i] += dv.head<3>();
        d.w[i] += dv.tail<3>();
      },
      below, placed, refinements);
}
}  // namespace

bool project_velocities(const Model& model, Data& d, double below) { return velocities_onto_rows(model, d, below, false); }

// accelerations: onto the joints' rows at acceleration level, J a + J̇ ν = 0, the rows' second
// derivative along the motion by central differences (docs/computation.md (109))
bool project_accelerations(const Model& model, Data& d) {
  return project(
      model, d,
      [&](const Workspace& ws, Eigen::VectorXd& rhs) {
        constexpr double eps = 1e-4;
        for (size_t j = 0; j < model.joints.size(); ++j) {
          const Joint& jt = model.joints[j];
          if (ws.passive[j]) continue;
          JointRows plus, minus;
          joint_rows(jt, pose_along_motion(d, jt.parent, eps), pose_along_motion(d, jt.child, eps), &plus);
          joint_rows(jt, pose_along_motion(d, jt.parent, -eps), pose_along_motion(d, jt.child, -eps), &minus);
          const Vec6& c0 = ws.rows2[j].c;  // (assemble_projection's rows at the poses)
          for (int r = 0; r < 6; ++r)
            if (jt.row_constrained(r))
              ws.layout.entry(rhs, ws.layout.joint_node(static_cast<int>(j)), r) =
                  -(plus.c(r) - 2 * c0(r) + minus.c(r)) / (eps * eps);
        }
      },
      [&](int i, const Vec6& da) { d.acceleration[i] += da; });
}

ProjectionReport project_state(const Model& model, Data& d, double tolerance, int max_iterations,
                               double velocity_below) {
  const int nb = static_cast<int>(model.bodies.size());
  Workspace& ws = workspace(model, d);  // the graph of the last step (built if there is none)
  const SystemLayout& layout = ws.layout;
  Eigen::VectorXd& rhs = ws.delta;
  ProjectionReport rep;

  // positions: minimal mass-weighted correction onto c(z) = 0, Gauss–Newton
  for (rep.iterations = 0; rep.iterations <= max_iterations; ++rep.iterations) {
    assemble_projection(model, d, false);
    rep.violation = 0;
    rep.worst_joint = rep.worst_row = -1;
    rhs.setZero();
    for (const EqualityKind* kind : equality_kinds())
      for (int k = 0; k < kind->count(model); ++k) {
        int row = -1;
        const double violation = kind->position_rhs(model, ws, k, &rhs, &row);
        if (row >= 0 && violation > rep.violation) {  // (a joint's row: the report names it)
          rep.worst_joint = k;
          rep.worst_row = row;
        }
        rep.violation = std::max(rep.violation, violation);
      }
    if (rep.violation < tolerance) {
      rep.converged = true;
      break;
    }
    if (rep.iterations == max_iterations) {
      rep.failure = ProjectionReport::Failure::IterationLimit;
      break;
    }
    if (!ws.ldu.factor()) {
      rep.failure = ProjectionReport::Failure::Singular;
      break;
    }
    ws.ldu.solve(rhs);
    if (!rhs.allFinite()) {
      rep.failure = ProjectionReport::Failure::NonFinite;
      break;
    }
    for (int i = 0; i < nb; ++i) {
      d.x[i] += layout.velocity(rhs, i);
      d.q[i] = quat_normalize(quat_mul(d.q[i], quat_exp(layout.angular(rhs, i))));
    }
  }
  if (!rep.converged) return rep;

  // the rows' rates after one pass are round-off amplified by redundant rows (Cassie's rods:
  // ~1e-5 of rates of order 1); the same projection of that residual takes it to ~1e-8, so up to
  // two refinements follow while it is above 1e-12
  if (!velocities_onto_rows(model, d, velocity_below, true, 2)) {
    rep.converged = false;
    rep.failure = ProjectionReport::Failure::VelocitySingular;
    return rep;
  }
  follow_joint_angles(model, d);  // (the rows of the velocity projection's assembly)
  return rep;
}

std::string worst_row_description(const Model& m, const ProjectionReport& pr) {
  if (pr.worst_joint < 0 || pr.worst_joint >= static_cast<int>(m.joints.size()) || pr.worst_row < 0) return {};
  auto body = [&](int b) { return b == kWorld ? std::string("world") : m.bodies[b].name; };
  const Joint& j = m.joints[pr.worst_joint];
  char violation[32];
  std::snprintf(violation, sizeof violation, "%.6g", pr.violation);
  return "joint '" + j.name + "' (" + joint_type_name(j.type) + ", " + body(j.parent) + " -> " + body(j.child) +
         ") is off by " + violation + (pr.worst_row >= 3 ? " rad about" : " m along") + " its frame's " +
         "xyz"[pr.worst_row % 3] + " axis";
}

void follow_joint_angles(const Model& model, Data& d) {
  Workspace& ws = workspace(model, d);
  for (size_t j = 0; j < model.joints.size(); ++j)
    for (int k = 0; k < 3; ++k)
      d.joint_angle[j](k) += wrap_angle(ws.rows2[j].c(3 + k) - d.joint_angle[j](k));
}

Eigen::VectorXd equality_rows(const Model& model, Data& d, bool rates) {
  Workspace& ws = workspace(model, d);
  assemble_projection(model, d, rates);
  Eigen::VectorXd rhs = Eigen::VectorXd::Constant(ws.delta.size(), std::numeric_limits<double>::quiet_NaN());
  for (const EqualityKind* kind : equality_kinds())
    for (int k = 0; k < kind->count(model); ++k) {
      int row = -1;
      if (rates)
        kind->velocity_rhs(model, d, ws, k, &rhs);
      else
        kind->position_rhs(model, ws, k, &rhs, &row);
    }
  return -rhs;
}

}  // namespace maxsim
