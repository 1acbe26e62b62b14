// Jacobians and the joint-space mass matrix with respect to MuJoCo's qvel layout
// (sim/state/state.hpp), for model-based controllers: MuJoCo's mj_jac / mj_jacSite / mj_fullM,
// PyBullet's calculateJacobian / calculateMassMatrix.
//
// The map from qvel to the bodies' velocities is the one set_qpos_qvel uses (forward kinematics
// through the spanning tree of the joints, sim/state/kinematics.hpp): linear in qvel at a given
// configuration, so each column is the bodies' motion for a unit rate of one qvel entry. Joints
// that close loops have no qvel entries: the Jacobians and the mass matrix are the spanning
// tree's, as MuJoCo's are of its kinematic tree (its loop closures are equality constraints).
#pragma once

#include <Eigen/Core>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// The Jacobian of a point fixed in a body at the Data's configuration: linear (3 × nv) maps qvel to
// the point's velocity (world), angular (3 × nv, may be null) to the body's angular velocity
// (world). `point` is in world coordinates (MuJoCo's mj_jac). Throws std::invalid_argument for a
// body index out of range or a non-finite point; kWorld gives zeros.
void point_jacobian(const Model& model, const Data& data, int body, const Vec3& point, Eigen::MatrixXd* linear,
                    Eigen::MatrixXd* angular = nullptr);

// The same for a site's origin (MuJoCo's mj_jacSite).
void site_jacobian(const Model& model, const Data& data, int site, Eigen::MatrixXd* linear,
                   Eigen::MatrixXd* angular = nullptr);

// The joint-space mass matrix (nv × nv, symmetric positive semi-definite): the kinetic energy of
// the bodies is ½ qvelᵀ M qvel, plus each scalar row's armature on its diagonal entry (MuJoCo's
// mj_fullM with dof_armature).
Eigen::MatrixXd mass_matrix(const Model& model, const Data& data);

}  // namespace maxsim
