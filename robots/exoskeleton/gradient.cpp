#include "robots/exoskeleton/gradient.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>

#include "sim/derivatives/transition.hpp"

namespace maxsim::exo {

namespace {

// One routine's run with the closed-loop maps of every step, and its part of the gradient.
struct RoutinePass {
  Summary summary;
  double rms_gradient_scale = 0;  // ∂J/∂(rms) of this patient
  std::array<double, 4> gradient{};
  int steps = 0, implicit_steps = 0;
};

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

RoutinePass routine_pass(const Exoskeleton& e, const Gains& g, const Routine& r) {
  const Model& m = e.model;
  const int nv = qvel_size(m);
  const std::vector<int> va = qvel_addresses(m);
  std::vector<Matrix> phi, gain_map;  // per step: Φ_k (2nv × 2nv), G_k (2nv × 4)
  std::vector<Vector> torque_x;       // per step: ∂(elbow torque)/∂x_k
  std::vector<Eigen::Vector4d> torque_g;
  RoutinePass out;
  auto differentiate = [&](const Model& mm, const Data& d, const ExoController& c) {
    const ExoController::LawDerivatives law = c.law_derivatives(mm, d);
    std::vector<JointForceInput> forces;
    for (int j : law.joint) forces.push_back({j, 5});
    const TransitionDerivatives T = transition_derivatives(mm, d, 1e-6, -1.0, {}, forces);
    // ∂f/∂x: each force on its own row's coordinate and rate (scalar qpos and qvel entries of its
    // hinge). A's columns are taken along perturbations that set_qpos_qvel closes onto the loops;
    // a rollout's sensitivities already keep the loops closed, and on those A and this K are exact.
    Matrix K = Matrix::Zero(5, 2 * nv);
    for (int i = 0; i < 5; ++i) {
      K(i, va[law.joint[i]]) = law.state(i, 0);
      K(i, nv + va[law.joint[i]]) = law.state(i, 1);
    }
    phi.push_back(T.A + T.F * K);
    gain_map.push_back(T.F * law.gains);
    torque_x.push_back(K.row(3).transpose());
    torque_g.push_back(law.gains.row(3).transpose());
    ++out.steps;
    out.implicit_steps += T.implicit ? 1 : 0;
  };
  std::vector<Sample> trace;
  out.summary = run_routine(e, g, r, &trace, {}, differentiate);
  const Summary& s = out.summary;
  if (s.failed_steps > 0 || trace.empty()) return out;
  const int n = static_cast<int>(trace.size());
  // J = −rms/2 − 10 max(0, max_k |τ_k| − 4.9) per patient (gains_objective_value)
  const double rms = s.rms_tracking_error;
  const double tracking = rms > 0 ? 1.0 / (4.0 * n * rms) : 0.0;  // ∂J/∂q = e / (4 n rms) per error e
  int peak = -1;
  for (int k = 0; k < n; ++k)
    if (std::abs(trace[k].elbow_torque) == s.max_elbow_torque) {
      peak = k;
      break;
    }
  const bool penalized = s.max_elbow_torque > kTorqueTarget && peak >= 0;
  const double penalty = penalized ? -10.0 * std::copysign(1.0, trace[peak].elbow_torque) : 0.0;
  const int s_index = va[e.sFE], e_index = va[e.eFE];
  Vector lambda = Vector::Zero(2 * nv);
  Eigen::Vector4d grad = Eigen::Vector4d::Zero();
  for (int k = n - 1; k >= 0; --k) {
    // direct terms at x_{k+1}: e = ref − q after step k; rms² = Σ e² / 2n, so
    // ∂J/∂q = −(1/2)(1/(2 rms))(1/2n)(−2e) = e / (4 n rms)
    lambda(s_index) += tracking * (trace[k].sFE_ref - trace[k].sFE);
    lambda(e_index) += tracking * (trace[k].eFE_ref - trace[k].eFE);
    if (penalized && k + 1 == peak) lambda += penalty * torque_x[peak];
    grad += gain_map[k].transpose() * lambda;
    lambda = phi[k].transpose() * lambda;
  }
  if (penalized) grad += penalty * torque_g[peak];
  for (int i = 0; i < 4; ++i) out.gradient[i] = grad(i);
  return out;
}

std::array<double, 4> as_array(const Gains& g) { return {g.shoulder_kp, g.shoulder_kd, g.elbow_kp, g.elbow_kd}; }
Gains as_gains(const std::array<double, 4>& p) { return {p[0], p[1], p[2], p[3]}; }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

GainsGradient gains_gradient(const Exoskeleton& healthy, const Exoskeleton& spastic, const Gains& g, const Routine& r) {
  // the two routines on two threads (each its own Data and controller)
  std::future<RoutinePass> other = std::async(std::launch::async, [&] { return routine_pass(spastic, g, r); });
  const RoutinePass h = routine_pass(healthy, g, r);
  const RoutinePass s = other.get();
  GainsGradient out;
  out.healthy = h.summary;
  out.spastic = s.summary;
  out.value = gains_objective_value(h.summary, s.summary);
  out.steps = h.steps + s.steps;
  out.implicit_steps = h.implicit_steps + s.implicit_steps;
  if (std::isfinite(out.value))
    for (int i = 0; i < 4; ++i) out.gradient[i] = h.gradient[i] + s.gradient[i];
  return out;
}

GradientSearchResult gradient_search(const Exoskeleton& healthy, const Exoskeleton& spastic, const Gains& initial,
                                     int iterations, const Routine& r) {
  const std::vector<SearchParameter> params = searched_gains();
  GradientSearchResult out;
  std::array<double, 4> y = as_array(initial);  // in units of the scales
  for (int i = 0; i < 4; ++i) y[i] /= params[i].scale;
  auto gains_at = [&](const std::array<double, 4>& z) {
    std::array<double, 4> p;
    for (int i = 0; i < 4; ++i) p[i] = std::clamp(z[i] * params[i].scale, params[i].lower, params[i].upper);
    return as_gains(p);
  };
  auto value_at = [&](const Gains& g) {
    const auto t0 = std::chrono::steady_clock::now();
    std::future<Summary> other = std::async(std::launch::async, [&] { return run_routine(spastic, g, r); });
    const Summary h = run_routine(healthy, g, r);
    const double v = gains_objective_value(h, other.get());
    out.evaluation_time += seconds_since(t0);
    ++out.evaluations;
    return v;
  };
  double alpha = -1;  // (set from the first gradient)
  for (int it = 0; it < iterations; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    const GainsGradient gg = gains_gradient(healthy, spastic, gains_at(y), r);
    out.gradient_time += seconds_since(t0);
    ++out.gradients;
    if (it == 0) {
      out.best = gains_at(y);
      out.best_value = gg.value;
      out.history.push_back(gg.value);
    }
    if (!std::isfinite(gg.value)) break;
    std::array<double, 4> grad;  // ∇_y J = ∇_g J · scale
    double norm2 = 0;
    for (int i = 0; i < 4; ++i) {
      grad[i] = gg.gradient[i] * params[i].scale;
      norm2 += grad[i] * grad[i];
    }
    if (!(norm2 > 0)) break;
    if (alpha < 0) alpha = 0.5 / std::sqrt(norm2);  // the first step: half a scale
    bool accepted = false;
    while (alpha * std::sqrt(norm2) > 1e-6) {
      std::array<double, 4> z;
      double rise = 0;
      for (int i = 0; i < 4; ++i) {
        z[i] = std::clamp(y[i] + alpha * grad[i], params[i].lower / params[i].scale, params[i].upper / params[i].scale);
        rise += (z[i] - y[i]) * grad[i];
      }
      const double v = value_at(gains_at(z));
      if (std::isfinite(v) && v >= gg.value + 1e-4 * rise && rise > 0) {
        y = z;
        out.best = gains_at(y);
        out.best_value = v;
        alpha *= 1.5;
        accepted = true;
        break;
      }
      alpha *= 0.5;
    }
    out.history.push_back(out.best_value);
    if (!accepted) break;
  }
  return out;
}

}  // namespace maxsim::exo
