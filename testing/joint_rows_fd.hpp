// Central differences of a joint's rows over right perturbations of one of its bodies, against
// which the tests check the rows' analytic Jacobians (joint_rows).
#pragma once

#include "sim/constraints/joint.hpp"
#include "sim/math/quaternion.hpp"

namespace maxsim::testing {

// d c(a, b) / d(δx, δθ) of body `side` (0: a, 1: b) by central differences of step h; `reference`
// as joint_rows takes it; `wrap_rotation`: rows 3–5 are angles (Davenport rows), so their
// differences are taken modulo 2π.
inline Mat6 joint_rows_fd(const Joint& jt, const Pose& a, const Pose& b, int side, double h,
                          const Vec4* reference = nullptr, bool wrap_rotation = false) {
  Mat6 fd;
  for (int c = 0; c < 6; ++c) {
    Pose ap = a, am = a, bp = b, bm = b;
    Pose& pp = side == 0 ? ap : bp;
    Pose& pm = side == 0 ? am : bm;
    if (c < 3) {
      pp.x(c) += h;
      pm.x(c) -= h;
    } else {
      pp.q = quat_mul(pp.q, quat_exp(h * Vec3::Unit(c - 3)));
      pm.q = quat_mul(pm.q, quat_exp(-h * Vec3::Unit(c - 3)));
    }
    JointRows rp, rm;
    joint_rows(jt, ap, bp, &rp, reference);
    joint_rows(jt, am, bm, &rm, reference);
    Vec6 diff = rp.c - rm.c;
    if (wrap_rotation)
      for (int r = 3; r < 6; ++r) diff(r) = wrap_angle(diff(r));
    fd.col(c) = diff / (2 * h);
  }
  return fd;
}

}  // namespace maxsim::testing
