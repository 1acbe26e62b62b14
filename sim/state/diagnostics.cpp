#include "sim/state/diagnostics.hpp"

#include <cmath>

#include "sim/constraints/tendon.hpp"
#include "sim/integrator/body_dynamics.hpp"
#include "sim/constraints/nonholonomic.hpp"

namespace maxsim {

double kinetic_energy(const Model& model, const Data& d) {
  double e = 0;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const Body& b = model.bodies[i];
    e += 0.5 * b.mass * d.v[i].squaredNorm() + 0.5 * d.w[i].dot(b.inertia * d.w[i]);
  }
  return e;
}

double potential_energy(const Model& model, const Data& d) {
  double e = 0;
  // gravity: the mean of the two knots of the last interval, (V(x2) + V(x3))/2 = V(x3 − Δt v/2),
  // as in the discrete Lagrangian; pairs with the kinetic energy of v over that interval
  // (energy–momentum: the knot's own)
  const double lag = model.opt.integrator != Integrator::Variational ? 0.0 : 0.5 * model.opt.timestep;
  for (size_t i = 0; i < model.bodies.size(); ++i)
    e -= model.bodies[i].mass * model.opt.gravity.dot(d.x[i] - lag * d.v[i]);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    bool any = false;
    for (int r = 0; r < 6; ++r) any |= (jt.stiffness[r] != 0 && !jt.row_constrained(r));
    if (!any) continue;
    JointRows rows;
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    for (int r = 0; r < 6; ++r) {
      if (jt.row_constrained(r) || jt.stiffness[r] == 0) continue;
      const double c = r < 3 ? rows.c(r) : d.joint_angle[j](r - 3);
      e += 0.5 * jt.stiffness[r] * (c - jt.spring_ref[r]) * (c - jt.spring_ref[r]);
    }
  }
  // tendon springs: ½ k s² with s the stretch beyond the dead band (docs/computation.md (83))
  for (size_t t = 0; t < model.tendons.size(); ++t) {
    const Tendon& tendon = model.tendons[t];
    if (tendon.stiffness == 0) continue;
    const double L = tendon_length(model, d, static_cast<int>(t));
    const double zero = tendon.spring_from_zero ? tendon_zero_length(model, static_cast<int>(t)) : 0.0;
    const double lo = tendon.spring_from_zero ? zero : tendon.spring_lower;
    const double hi = tendon.spring_from_zero ? zero : tendon.spring_upper;
    const double stretch = L > hi ? L - hi : L < lo ? L - lo : 0.0;
    e += 0.5 * tendon.stiffness * stretch * stretch;
  }
  return e;
}

Vec3 linear_momentum(const Model& model, const Data& d) {
  Vec3 p = Vec3::Zero();
  for (size_t i = 0; i < model.bodies.size(); ++i) p += model.bodies[i].mass * d.v[i];
  return p;
}

Vec3 angular_momentum(const Model& model, const Data& d) {
  Vec3 L = Vec3::Zero();
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const Body& b = model.bodies[i];
    L += d.x[i].cross(b.mass * d.v[i]);
    L += model.opt.integrator != Integrator::Variational ? Vec3(quat_rotate(d.q[i], b.inertia * d.w[i]))
                                                        : body_angular_momentum(b, d.q[i], d.w[i], model.opt.timestep);
  }
  return L;
}

double max_constraint_violation(const Model& model, const Data& d) {
  double m = 0;
  JointRows rows;
  for (const Joint& jt : model.joints) {
    joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
    for (int r = 0; r < 6; ++r)
      if (jt.row_constrained(r)) m = std::max(m, std::abs(rows.c(r)));
  }
  for (size_t k = 0; k < model.couplings.size(); ++k)  // (86)
    m = std::max(m, std::abs(coupling_violation(model, d, static_cast<int>(k))));
  return m;
}

double max_nonholonomic_violation(const Model& model, const Data& d) {
  return nonholonomic_violation(model, d.x, d.q, d.v, d.w, model.opt.timestep);
}

}  // namespace maxsim
