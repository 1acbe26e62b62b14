// Jacobians and the mass matrix by forward kinematics of unit rates (sim/state/jacobian.hpp).
#include "sim/state/jacobian.hpp"

#include <stdexcept>
#include <string>

#include "sim/state/kinematics.hpp"
#include "sim/state/sites.hpp"
#include "sim/state/state.hpp"

namespace maxsim {

namespace {

// Per body, its velocity for a unit rate of each qvel entry: rows 0..2 the CoM's linear velocity,
// 3..5 the angular velocity, both world (6 × nv per body).
std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> body_columns(const Model& model, const Data& data) {
  const int nb = static_cast<int>(model.bodies.size()), nv = qvel_size(model);
  std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> J(nb, Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, nv));
  if (nv == 0) return J;
  std::vector<std::vector<double>> q, qd;
  get_coordinates(model, data, &q, &qd);
  Data scratch(model);  // (forward kinematics writes its poses and velocities)
  std::vector<double> unit(static_cast<size_t>(nv), 0.0);
  for (int k = 0; k < nv; ++k) {
    scratch.x = data.x;
    scratch.q = data.q;
    std::fill(scratch.v.begin(), scratch.v.end(), Vec3::Zero());  // (bodies off the tree do not move)
    std::fill(scratch.w.begin(), scratch.w.end(), Vec3::Zero());
    unit[k] = 1.0;
    set_coordinates(model, scratch, q, split_qvel(model, unit));
    unit[k] = 0.0;
    for (int b = 0; b < nb; ++b) {
      J[b].col(k).head<3>() = scratch.v[b];
      J[b].col(k).tail<3>() = quat_to_rot(scratch.q[b]) * scratch.w[b];
    }
  }
  return J;
}

}  // namespace

void point_jacobian(const Model& model, const Data& data, int body, const Vec3& point, Eigen::MatrixXd* linear,
                    Eigen::MatrixXd* angular) {
  if (body != kWorld && (body < 0 || body >= static_cast<int>(model.bodies.size())))
    throw std::invalid_argument("point_jacobian: no body " + std::to_string(body) + " (the model has " +
                                std::to_string(model.bodies.size()) + ")");
  if (!point.allFinite()) throw std::invalid_argument("point_jacobian: the point is not finite");
  const int nv = qvel_size(model);
  if (linear) linear->setZero(3, nv);
  if (angular) angular->setZero(3, nv);
  if (body == kWorld) return;
  const Eigen::Matrix<double, 6, Eigen::Dynamic> J = body_columns(model, data)[body];
  const Vec3 r = point - data.x[body];
  for (int k = 0; k < nv; ++k) {
    const Vec3 v = J.col(k).head<3>(), w = J.col(k).tail<3>();
    const Vec3 at_point = v + w.cross(r);
    // (entry by entry: GCC 12 misreads Eigen's AVX copy of a Vec3 into a dynamic column)
    for (int i = 0; i < 3; ++i) {
      if (linear) (*linear)(i, k) = at_point(i);
      if (angular) (*angular)(i, k) = w(i);
    }
  }
}

void site_jacobian(const Model& model, const Data& data, int site, Eigen::MatrixXd* linear, Eigen::MatrixXd* angular) {
  const Site& s = site_at(model, site);
  point_jacobian(model, data, s.body, fixed_frame_pose(data, s.body, s.pos, s.quat).x, linear, angular);
}

Eigen::MatrixXd mass_matrix(const Model& model, const Data& data) {
  const int nv = qvel_size(model);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(nv, nv);
  const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> J = body_columns(model, data);
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    const Body& body = model.bodies[b];
    const Mat3 R = quat_to_rot(data.q[b]);
    const Mat3 I = R * body.inertia * R.transpose();  // world frame
    M.noalias() += body.mass * J[b].topRows<3>().transpose() * J[b].topRows<3>();
    M.noalias() += J[b].bottomRows<3>().transpose() * I * J[b].bottomRows<3>();
  }
  // armature on each free row's own diagonal entry (MuJoCo's dof_armature)
  const std::vector<int> adr = qvel_addresses(model);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    if (adr[j] < 0) continue;
    const Joint& jt = model.joints[j];
    for (int r = 0; r < 6; ++r) {
      // a scalar row's rate, or a free rotation's (the last three rates, by axis)
      const int i = row_has_coordinate(jt, r) ? row_coordinate_index(jt, r)
                    : (r >= 3 && !jt.row_constrained(r) && rot_kind(jt.type) == RotKind::Free) ? jt.dof() - 3 + (r - 3)
                                                                                             : -1;
      if (i >= 0 && jt.armature[r] != 0) M(adr[j] + i, adr[j] + i) += jt.armature[r];
    }
  }
  return 0.5 * (M + M.transpose());
}

}  // namespace maxsim
