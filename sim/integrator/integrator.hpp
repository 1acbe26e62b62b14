// The integrator of a step, chosen once per step (integrator_scheme(model.opt.integrator)): the one
// place that tells the variational and the energy–momentum step apart. The assembly, the graph,
// the warm start and the advance ask it; none of them tests which integrator runs.
//
//   variational        Brüdigam et al. (2023): discrete Euler–Lagrange rows of each body
//                      (docs/computation.md (9)–(12)); impulses act through the maps at z2
//   energy–momentum    the midpoint Lie–Poisson form of Kinon & Betsch's Livens scheme
//                      (docs/computation.md (60)–(68)); impulses act through force maps at the iterate
//   Newmark            seed 004's tangent-space Newmark (docs/computation.md (107)–(110)): the
//                      equations of motion at z3, impulses through the maps at z3
#pragma once

#include <limits>

#include <Eigen/Core>

#include "sim/data.hpp"
#include "sim/model.hpp"
#include "sim/solver/workspace.hpp"

namespace maxsim {

class IntegratorScheme {
 public:
  virtual ~IntegratorScheme() = default;
  virtual Integrator kind() const = 0;

  // ---- bodies ----
  // The first guess of body i's angular unknown from its angular velocity w at the knot.
  virtual Vec3 warm_angular(const Vec3& w, double dt) const = 0;
  // The first guess of body i's unknowns from what the last step recorded, if the integrator keeps
  // such a record and it is valid for this step (false: the guess from the velocities above).
  virtual bool recorded_start(const Data&, const Workspace&, int, Vec3*, Vec3*) const { return false; }
  // The largest rotation (rad) a body may make in one Newton iteration: a trust region where the
  // step's equations have other roots within reach (infinite: none).
  virtual double newton_turn_limit() const { return std::numeric_limits<double>::infinity(); }
  // The largest |ω|² a trial point of the solvers may give a body whose velocity at the step's
  // start is w, at step length dt (docs/computation.md (8)): inside the domain of the rotation
  // update (7), with a margin.
  virtual double admissible_rate2(const Vec3&, double dt) const { return 0.99 * 4.0 / (dt * dt); }
  // The fraction of the last step's change of velocity that the first guess adds to the
  // velocities (docs/computation.md (106)): how far past the knot the unknowns sit.
  virtual double warm_extrapolation(const Workspace& ws) const = 0;
  // Body i's residual rows at its unknowns (v, ω), z3 = ws.x3/q3[i] already moved; also the body's
  // per-iterate scratch (the energy–momentum interval).
  virtual Vec6 body_residual(const Model& model, const Data& d, Workspace& ws, int i, const Vec3& v,
                             const Vec3& w) const = 0;
  // Its diagonal block of the Newton matrix at the angular unknown w.
  virtual Mat6 body_jacobian(const Model& model, const Workspace& ws, int i, const Vec3& w) const = 0;
  // Body i's velocities at the end of the step (of length ws.dt) from the unknowns (v, ω) and its
  // velocities d.v[i], d.w[i] at the start, written over them (and what else the knot keeps).
  virtual void advance(const Model& model, Data& d, const Workspace& ws, int i, const Vec3& v,
                       const Vec3& w) const = 0;
  // After every body and constraint has advanced to the new knot (d.time is its time).
  virtual void finish_knot(const Model&, Data&) const {}

  // ---- joint rows ----
  // Whether the joints' constrained rotation rows take the bilinear form (joint_rows).
  virtual bool bilinear_rows() const = 0;
  // A free row's armature term (the change of the row rate) from its change dc over the step (of
  // length ws.dt), its rate over the last interval (or at the knot) and its acceleration at the
  // knot (Newmark's record, else 0); the displacement its damper acts on (the rate it damps times
  // Δt); and the coordinate its spring acts at.
  virtual double armature_term(double dc, double rate2, double accel2, const Workspace& ws) const = 0;
  virtual double damper_term(double dc, double rate2, double accel2, const Workspace& ws) const = 0;
  virtual double spring_coordinate(double coord, double dc) const = 0;
  // The factor of a free row's Jacobian: d(row residual)/d(dc) of its damper (the joint's plus the
  // actuators' `servo_damping`), armature and spring.
  virtual double free_row_gain(const Joint& jt, int r, double servo_damping, const Workspace& ws) const = 0;
  // Whether the impulse of joint j needs its rows at z3 (a passive joint's are computed only then).
  virtual bool impulse_needs_rows3() const = 0;
  // Joint j's impulse u on its bodies' residual rows.
  virtual void apply_joint_impulse(const Model& model, const Data& d, Workspace& ws, int j, const Vec6& u,
                                   Eigen::VectorXd* F) const = 0;
  // The Newton matrix's lower block of joint j for its child (or parent): ∂(body rows)/∂u.
  virtual Mat6 impulse_block(const Workspace& ws, int j, bool child) const = 0;
  // The bodies' coupling through the joints (the energy–momentum force maps' derivatives): the
  // blocks it writes are zeroed first (begin_coupling), then each joint adds its own.
  virtual bool couples_bodies() const = 0;
  virtual void begin_coupling(const Model& model, Workspace& ws) const = 0;
  virtual void add_joint_coupling(const Model& model, Workspace& ws, const Eigen::VectorXd& s, int j) const = 0;
};

const IntegratorScheme& integrator_scheme(Integrator integrator);

// The body–body edges of the schemes that couple bodies (couples_bodies), zeroed: their
// begin_coupling.
void zero_body_edges(const Model& model, Workspace& ws);

}  // namespace maxsim
