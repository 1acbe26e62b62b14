// Finite-difference transition derivatives (sim/derivatives/transition.hpp).
#include "sim/derivatives/transition.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/state/state.hpp"
#include "sim/step.hpp"

namespace maxsim {

namespace {

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

}  // namespace

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
  const std::vector<QuaternionBlock> blocks = quaternion_blocks(model);
  const std::vector<int> map = scalar_map(model);
  Eigen::VectorXd d = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(map.size()));
  for (size_t k = 0; k < map.size(); ++k)
    if (map[k] >= 0) d(static_cast<Eigen::Index>(k)) = b[map[k]] - a[map[k]];
  for (const QuaternionBlock& q : blocks)
    d.segment<3>(q.qvel) = quat_log(quat_mul(quat_conj(quaternion_at(a, q.qpos)), quaternion_at(b, q.qpos)));
  return d;
}

TransitionDerivatives transition_fd(const Model& model, const Data& data, double eps, bool centered) {
  if (!(eps > 0) || !std::isfinite(eps)) throw std::invalid_argument("transition_fd: eps must be finite and > 0");
  const int nv = qvel_size(model), nu = model.nu();
  const std::vector<double> qpos0 = get_qpos(model, data), qvel0 = get_qvel(model, data);
  Data base = data;
  base.controller = nullptr;  // (the inputs are the ones held now)
  // the next state of a copy started at (qpos, qvel) with commands ctrl
  auto next = [&](const std::vector<double>& qpos, const std::vector<double>& qvel, const std::vector<double>& ctrl,
                  std::vector<double>* qpos1, std::vector<double>* qvel1) {
    Data d = base;
    set_qpos_qvel(model, d, qpos, qvel);
    d.ctrl = ctrl;
    step(model, d);
    *qpos1 = get_qpos(model, d);
    *qvel1 = get_qvel(model, d);
  };
  std::vector<double> qpos_ref, qvel_ref;  // (the unperturbed step, for forward differences)
  next(qpos0, qvel0, data.ctrl, &qpos_ref, &qvel_ref);
  const Eigen::Map<const Eigen::VectorXd> v_ref(qvel_ref.data(), nv);
  // the column of a perturbation: (x'(+) − x'(−)) / 2eps, or (x'(+) − x') / eps
  auto column = [&](auto perturbed) {
    std::vector<double> qp, vp, qm, vm;
    perturbed(eps, &qp, &vp);
    Eigen::VectorXd col(2 * nv);
    if (centered) {
      perturbed(-eps, &qm, &vm);
      col.head(nv) = difference_qpos(model, qm, qp) / (2 * eps);
      col.tail(nv) = (Eigen::Map<const Eigen::VectorXd>(vp.data(), nv) - Eigen::Map<const Eigen::VectorXd>(vm.data(), nv)) / (2 * eps);
    } else {
      col.head(nv) = difference_qpos(model, qpos_ref, qp) / eps;
      col.tail(nv) = (Eigen::Map<const Eigen::VectorXd>(vp.data(), nv) - v_ref) / eps;
    }
    return col;
  };
  TransitionDerivatives out;
  out.A.resize(2 * nv, 2 * nv);
  out.B.resize(2 * nv, nu);
  for (int k = 0; k < nv; ++k) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(nv);
    e(k) = 1;
    out.A.col(k) = column([&](double h, std::vector<double>* q1, std::vector<double>* v1) {
      next(integrate_qpos(model, qpos0, e, h), qvel0, data.ctrl, q1, v1);
    });
    out.A.col(nv + k) = column([&](double h, std::vector<double>* q1, std::vector<double>* v1) {
      std::vector<double> v = qvel0;
      v[k] += h;
      next(qpos0, v, data.ctrl, q1, v1);
    });
  }
  for (int k = 0; k < nu; ++k)
    out.B.col(k) = column([&](double h, std::vector<double>* q1, std::vector<double>* v1) {
      std::vector<double> u = data.ctrl;
      u[k] += h;
      next(qpos0, qvel0, u, q1, v1);
    });
  return out;
}

}  // namespace maxsim
