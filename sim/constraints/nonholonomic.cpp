#include "sim/constraints/nonholonomic.hpp"

#include <bit>

#include "sim/integrator/energy_momentum.hpp"

namespace maxsim {

namespace {

using Row6 = Eigen::Matrix<double, 1, 6>;

Row6 row6(const Vec3& a, const Vec3& b) {
  Row6 r;
  r << a.transpose(), b.transpose();
  return r;
}

// W-orthogonal to the midpoint velocity (see the header): the force does no work over the step
Row6 workless(const Row6& f, const Body& body, const Vec3& vbar, const Vec3& rate_bar) {
  const Vec3 pv = body.mass * vbar, pw = body.inertia * rate_bar;
  const double energy = vbar.dot(pv) + rate_bar.dot(pw);
  if (!(energy > 1e-300)) return f;
  const double power = f.head<3>().dot(vbar) + f.tail<3>().dot(rate_bar);
  return f - (power / energy) * row6(pv, pw);
}

}  // namespace

void nonholonomic_rows(const NonholonomicConstraint& c, const Body& body, Integrator integrator,
                       const NonholonomicStep& s, NonholonomicRows* out) {
  const double h = s.dt;
  const Vec3 e3(0, 0, 1);
  const Mat3 dth = dtheta3_domega(s.omega, h);
  // position rows: at z3 in both integrators, their Jacobian through ∂z3/∂(v, ω) = diag(Δt I, ∂θ3/∂ω)
  NonholonomicRows at3;
  nonholonomic_rows_at(c, s.x3, s.q3, &at3);
  out->n = at3.n;
  out->position = at3.position;
  out->c.setZero();
  out->J.setZero();
  for (int r = 0; r < at3.n && ((at3.position >> r) & 1u); ++r) {
    out->c(r) = at3.c(r);
    out->J.row(r) << h * at3.J.row(r).head<3>(), at3.J.row(r).tail<3>() * dth;
  }
  const int first_rate = std::popcount(at3.position);
  if (integrator == Integrator::Variational) {
    // discrete Lagrange–d'Alembert: everything maps at z2, velocity rows on the interval velocity
    NonholonomicRows at2;
    nonholonomic_rows_at(c, s.x2, s.q2, &at2);
    out->M = at2.J;
    for (int r = first_rate; r < out->n; ++r) {
      out->J.row(r) = at2.J.row(r);
      out->c(r) = out->J.row(r).head<3>().dot(s.v) + out->J.row(r).tail<3>().dot(s.omega);
    }
    return;
  }
  // energy–momentum: position rows act through their exact discrete gradients (height: linear;
  // upright: Δ(e3·R n) = (R2 w)·((R̄ n) × e3)); velocity rows hold at the new knot with the knot
  // velocities u3 = 2v̄ − u2, Ω3 = 2w/Δt − Ω2 (with numerical damping, (105)) and act through
  // W-orthogonal forces
  const Mat3 R2 = quat_to_rot(s.q2), R3 = quat_to_rot(s.q3), Rbar = 0.5 * (R2 + R3);
  const Vec3 w = em_cayley(s.omega, h);
  auto body_torque = [&](const Vec3& T) -> Vec3 { return em_torque_map(w) * (R2.transpose() * T); };
  out->M.setZero();
  int r = 0;
  if (c.rolling())
    out->M.row(r++) = row6(e3, Vec3::Zero());
  if (c.kind == NonholonomicKind::RollingDisk) out->M.row(r++) = row6(Vec3::Zero(), body_torque((Rbar * c.axis).cross(e3)));
  const double gain = em_knot_gain(s.knot_weight);  // ∂u3/∂v̄
  const Vec3 u3 = em_linear_velocity(s.u2, s.v, s.knot_weight);
  const Vec3 rate3 = em_angular_velocity(s.rate2, s.omega, h, s.knot_weight);
  const Mat3 drate3 = (gain / h) * em_cayley_jacobian(s.omega, h);  // ∂Ω3/∂ω
  const Vec3 rate_bar = w / h;
  if (c.rolling()) {
    // e_k·(u3 + r e3 × R3 Ω3); δ(R3 Ω3) = R3 (−Ω̂3 δθ3 + δΩ3)
    const Vec3 slip = u3 + c.radius * e3.cross(R3 * rate3);
    const Mat3 dslip = c.radius * skew(e3) * R3 * (-skew(rate3) * dth + drate3);
    for (int k = 0; k < 2; ++k, ++r) {
      out->c(r) = slip(k);
      out->J.row(r) = row6(gain * Vec3::Unit(k), dslip.row(k).transpose());
      // a force at the contact point, lever −r e3 from the CoM
      out->M.row(r) = workless(row6(Vec3::Unit(k), body_torque((-c.radius * e3).cross(Vec3::Unit(k)))), body,
                               s.v, rate_bar);
    }
  } else if (c.kind == NonholonomicKind::KnifeEdge) {
    const Vec3 d3 = R3 * c.direction, n3 = e3.cross(d3);
    const Vec3 a = u3 + R3 * rate3.cross(c.point);  // the blade point's velocity
    out->c(r) = n3.dot(a);
    const Vec3 jw = (-(a.transpose() * skew(e3) * R3 * skew(c.direction)) * dth -
                     (n3.transpose() * R3) * (skew(rate3.cross(c.point)) * dth + skew(c.point) * drate3))
                        .transpose();
    out->J.row(r) = row6(gain * n3, jw);
    const Vec3 nbar = e3.cross(Rbar * c.direction);
    out->M.row(r) = workless(row6(nbar, body_torque((Rbar * c.point).cross(nbar))), body, s.v, rate_bar);
    ++r;
  } else {
    out->c(r) = c.axis.dot(rate3);
    out->J.row(r) = row6(Vec3::Zero(), drate3.transpose() * c.axis);
    out->M.row(r) = workless(row6(Vec3::Zero(), c.axis), body, s.v, rate_bar);
    ++r;
  }
}

void nonholonomic_rows_at(const NonholonomicConstraint& c, const Vec3& x, const Vec4& q, NonholonomicRows* out) {
  const Vec3 e3(0, 0, 1);
  const Mat3 R = quat_to_rot(q);
  out->n = c.rows();
  out->position = 0;
  out->c.setZero();
  out->J.setZero();
  out->M.setZero();
  int r = 0;
  if (c.rolling()) {
    out->c(r) = x.z() - c.radius;
    out->J.row(r) = row6(e3, Vec3::Zero());
    out->position |= 1u << r++;
  }
  if (c.kind == NonholonomicKind::RollingDisk) {
    out->c(r) = e3.dot(R * c.axis);
    out->J.row(r) = row6(Vec3::Zero(), c.axis.cross(R.transpose() * e3));
    out->position |= 1u << r++;
  }
  if (c.rolling()) {
    const Mat3 A = c.radius * skew(e3) * R;
    for (int k = 0; k < 2; ++k) out->J.row(r++) = row6(Vec3::Unit(k), A.row(k).transpose());
  } else if (c.kind == NonholonomicKind::KnifeEdge) {
    const Vec3 n = e3.cross(R * c.direction);
    out->J.row(r++) = row6(n, c.point.cross(R.transpose() * n));
  } else {
    out->J.row(r++) = row6(Vec3::Zero(), c.axis);
  }
}

double nonholonomic_violation(const Model& model, const std::vector<Vec3>& x, const std::vector<Vec4>& q,
                              const std::vector<Vec3>& v, const std::vector<Vec3>& w, double dt) {
  double m = 0;
  const bool em = model.opt.integrator == Integrator::EnergyMomentum;
  NonholonomicRows at, rate_rows;
  for (const NonholonomicConstraint& c : model.nonholonomic) {
    const int b = c.body;
    nonholonomic_rows_at(c, x[b], q[b], &at);
    // the velocity rows' geometry: the knot's (EM), or the interval's start (VI)
    if (!em) nonholonomic_rows_at(c, x[b], quat_mul(q[b], quat_conj(omega_step_quat(w[b], dt))), &rate_rows);
    const Vec6 nu = (Vec6() << v[b], w[b]).finished();
    for (int r = 0; r < at.n; ++r) {
      const bool position = (at.position >> r) & 1u;
      m = std::max(m, std::abs(position ? at.c(r) : (em ? at : rate_rows).J.row(r).dot(nu)));
    }
  }
  return m;
}

}  // namespace maxsim
