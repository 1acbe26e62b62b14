// Derivatives of one step (issue-level plan: docs/roadmap.md, "Derivatives").
//
// The state is MuJoCo's: x = (δqpos, qvel) with δqpos in the tangent space of qpos (nv entries: a
// ball or free joint's quaternion perturbed by a rotation vector in its body frame, q ⊗ exp(δ),
// as MuJoCo's mj_integratePos), u = Data::ctrl. One step maps (x, u) to x'; its Jacobians are
// A = ∂x'/∂x (2nv × 2nv) and B = ∂x'/∂u (2nv × nu), MuJoCo's mjd_transitionFD layout.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

struct TransitionDerivatives {
  Eigen::MatrixXd A;  // ∂x'/∂x, 2nv × 2nv
  Eigen::MatrixXd B;  // ∂x'/∂u, 2nv × nu
};

// A and B by finite differences of step(): each column perturbs the state (set_qpos_qvel, loops
// closed) or one command by ±eps (central) or +eps (forward) and steps a copy of the Data (its
// contact search, warm starts and controller-free inputs as they are; the controller is not
// called). The Data is unchanged. A step across a contact mode change within ±eps differentiates
// the jump. Throws std::invalid_argument for eps not finite and > 0.
TransitionDerivatives transition_fd(const Model& model, const Data& data, double eps = 1e-6, bool centered = true);

// qpos moved along a tangent vector (nv entries) by h: scalar coordinates add, quaternions turn by
// q ⊗ exp(h δ) (MuJoCo's mj_integratePos).
std::vector<double> integrate_qpos(const Model& model, std::vector<double> qpos, const Eigen::VectorXd& dq, double h);

// The tangent vector from qpos a to qpos b (nv entries): b − a, and log(a⁻¹ ⊗ b) for quaternions
// (MuJoCo's mj_differentiatePos with dt = 1).
Eigen::VectorXd difference_qpos(const Model& model, const std::vector<double>& a, const std::vector<double>& b);

}  // namespace maxsim
