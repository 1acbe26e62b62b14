#include "sim/constraints/joint_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/integrator/integrator.hpp"
#include "sim/state/kinematics.hpp"

namespace maxsim {

namespace {

// A frictionless inequality on row `row` of joint j (a limit, or with dry_limit joint friction).
Contact joint_inequality(const Joint& jt, size_t j, int row, double bound, double side) {
  Contact c;
  c.body_a = jt.parent;
  c.body_b = jt.child;
  c.friction = 0;
  c.joint = static_cast<int>(j);
  c.row = row;
  c.bound = bound;
  c.side = side;
  return c;
}

}  // namespace

double recovering_bound(double coord, double bound, double dt, double recovery_time) {
  const double fraction = dt >= recovery_time ? 1.0 : dt / recovery_time;  // (τ = ∞: 0)
  return coord + fraction * (bound - coord);
}

void append_joint_limits(const Model& model, Data& d, double dt, double margin) {
  JointRows rows;
  const bool start = !d.limits_started;
  std::vector<bool> in_loop;
  if (start) {
    d.limits_started = true;
    d.limits_released.assign(model.joints.size(), 0);
    in_loop = loop_joints(model);
    d.limits_in_loop.assign(in_loop.begin(), in_loop.end());
  }
  const bool recheck = d.limits_recheck;  // (cleared by find_inequalities)
  if (recheck) d.limits_recovering.assign(model.joints.size(), 0);
  // a row limit folded into its joint's row (SolverOptions::fold_joint_limits) where the joint's
  // impulse acts through the rows at z2, as the limit's does, and the joint closes no loop; not
  // with the reused factors' prototype, which needs every inequality as a node
  const bool fold = model.opt.solver.fold_joint_limits && model.opt.solver.reuse_iterations == 0 &&
                    !integrator_scheme(model.opt.integrator).impulse_needs_rows3();
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    // dry friction: a 1-D friction cone on every free row that has it, always active
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r) || !(jt.friction[r] > 0)) continue;
      Contact c = joint_inequality(jt, j, r, 0, 1);
      c.dry_limit = jt.friction[r] * dt;
      d.contacts.push_back(c);
    }
    if (!jt.has_limits) continue;
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    // the row rates over the last interval bound how far the coordinate can move in one step
    Vec6 rate = rows.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += rows.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r) || !(jt.lower[r] < jt.upper[r])) continue;
      const double coord = r < 3 ? rows.c(r) : d.joint_angle[j](r - 3);
      const double reach = margin + 2.0 * std::abs(rate(r)) * dt;
      for (const double side : {1.0, -1.0}) {
        double bound = side > 0 ? jt.lower[r] : jt.upper[r];
        // A row that starts the run beyond its bound (a description whose zero pose violates its
        // own limits) is moved back by a fraction of the violation per step, as MuJoCo's soft
        // limits, over ModelOptions::limit_recovery_time. A row beyond it later (a converged
        // step's tolerance, a compliant attempt's give) is held where it is: it may only move
        // inwards (pulled in, the benchmark's ANYmal C took 3× the iterations and a relaxed
        // stretch). Not so a row of a closed loop that starts beyond its bound: that limit
        // has no row until the coordinate is back within its range. Held at zero gap it is an
        // active constraint the loop's own rows may already impose: two active constraints on one
        // direction leave an internal impulse free in their null space. On a tree joint the limit
        // row is independent of every other row and holding it is kept (docs/computation.md (43)).
        const std::uint16_t bit = static_cast<std::uint16_t>(1u << (2 * r + (side < 0)));
        const double gap = side * (coord - bound);
        const bool beyond = gap < 0;
        if (start && beyond && in_loop[j]) d.limits_released[j] |= bit;
        if (recheck && beyond && !(d.limits_released[j] & bit)) d.limits_recovering[j] |= bit;
        if (!beyond) {
          d.limits_released[j] &= ~bit;
          d.limits_recovering[j] &= ~bit;
        }
        if (d.limits_released[j] & bit) continue;
        if (gap > reach) continue;
        if (beyond)
          bound = d.limits_recovering[j] & bit ? recovering_bound(coord, bound, dt, model.opt.limit_recovery_time) : coord;
        Contact limit = joint_inequality(jt, j, r, bound, side);
        limit.folded = fold && j < d.limits_in_loop.size() && !d.limits_in_loop[j];
        d.contacts.push_back(limit);
      }
    }
    if (jt.cone_limit > 0) {
      // a ball joint's cone (docs/computation.md (115)): its rotation's angle θ ≤ cone_limit,
      // within reach of the relative angular speed; beyond it at the start (a pose that violates
      // it), moved back like a row's limit, and held where it is when beyond it later
      const double angle = joint_cone_row(jt, rows.q_rel).angle;
      constexpr std::uint16_t kConeBit = 1u << 12;
      if (recheck && angle > jt.cone_limit) d.limits_recovering[j] |= kConeBit;
      if (angle <= jt.cone_limit) d.limits_recovering[j] &= static_cast<std::uint16_t>(~kConeBit);
      const Mat3 Rb = quat_to_rot(d.q[jt.child]);
      Vec3 relative = Rb * d.w[jt.child];
      if (jt.parent != kWorld) relative -= quat_to_rot(d.q[jt.parent]) * d.w[jt.parent];
      const double reach = margin + 2.0 * relative.norm() * dt;
      if (jt.cone_limit - angle <= reach)
        d.contacts.push_back(joint_inequality(
            jt, j, kJointConeRow,
            angle <= jt.cone_limit              ? jt.cone_limit
            : d.limits_recovering[j] & kConeBit ? recovering_bound(angle, jt.cone_limit, dt, model.opt.limit_recovery_time)
                                                : angle,
            -1));
    }
  }
}

}  // namespace maxsim
