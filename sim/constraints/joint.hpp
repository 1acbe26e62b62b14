// Joint row functions and their Jacobians (docs/computation.md (18)–(22); Brüdigam et al. 2023,
// Appendix B).
//
// Every joint has six scalar row functions c_r(za, zb) of the two bodies' poses:
//   rows 0..2  d = Rot(qa ⊗ qja)ᵀ (xb + Rot(qb) pb − xa − Rot(qa) pa)   (child anchor seen from the
//              parent anchor, in the parent joint frame)
//   rows 3..5  from q_rel = (qa ⊗ qja)⁻¹ ⊗ (qb ⊗ qjb):
//              constrained row k: c = 2 v_k(q_rel)             (docs/computation.md (20): small
//                                                               angles in radians)
//              free row k:        c = 2 atan2(v_k, w)           (exactly the angle for a revolute)
//              Davenport joints (Joint::hinge_sequence): the hinges' angles, and for two hinges
//              the constrained row e_s0ᵀ R_rel e_s1 (docs/computation.md (94)–(97)); with hinges
//              through different points rows 0..2 subtract the offset chain the angles turn
//              (davenport_offset, docs/computation.md (98)–(100))
// A constrained row is the equation c_r(z3) = 0; a free row is a minimal coordinate on which
// springs, dampers and actuators act. Jacobians are taken with respect to right perturbations of
// each body (δx in world, δθ in the body frame), so J_rᵀ u is the wrench (world force, body
// torque) that the row impulse u applies to that body — the same map for constraint
// multipliers and for actuation, as Dojo's impulse_map.
#pragma once

#include <Eigen/Core>

#include "sim/model.hpp"

namespace maxsim {

using Vec6 = Eigen::Matrix<double, 6, 1>;  // a joint's six rows, or a body's (v, ω)
using Mat6 = Eigen::Matrix<double, 6, 6>;  // a Jacobian block

// A body's pose: CoM position and orientation.
struct Pose {
  Vec3 x = Vec3::Zero();     // CoM position (world)
  Vec4 q = quat_identity();  // orientation (body -> world)
};

// The six rows of a joint at two poses and their Jacobians.
struct JointRows {
  Vec6 c;           // row values
  Mat6 Ja;          // ∂c/∂(δxa, δθa)  (zero when the parent is the world)
  Mat6 Jb;          // ∂c/∂(δxb, δθb)
  Vec4 q_rel;       // relative rotation of the joint frames
};

// Evaluates the six rows and their Jacobians at the given body poses.
//
// `free_reference` matters only for joints whose three rotations are free (RotKind::Free:
// spherical, floating, …). Their rows measured per axis from q_rel, 2 atan2(v_k, w), are
// singular where w = v_k = 0 — half a turn about another axis, e.g. a floating base yawed by
// 180° — so the step measures them from a reference relative rotation instead (the previous
// knot's): c = 2 atan2(v_k, w) of ref⁻¹ ⊗ q_rel, a small rotation whose rows are regular. These
// rows carry only increments (dampers, dry friction, armature, accumulated angles), so the
// reference changes nothing else. Without a reference they are measured from the identity (and
// a row at its singular point reads 0 with a zero Jacobian row).
//
// `energy_momentum`: constrained rotation rows are sums of entries of R_rel = (Ra Rpf)ᵀ(Rb Rcf),
// i.e. of products (Ra ja_p)·(Rb jb_q) of the joint frames' axes, bilinear in the bodies'
// rotation matrices, which gives the energy–momentum integrator its exact discrete gradient
// (sim/integrator/energy_momentum.hpp): rotation_row_terms. Near the identity they equal the
// engine's rows to first order (docs/computation.md (69)).
void joint_rows(const Joint& joint, const Pose& a, const Pose& b, JointRows* out,
                const Vec4* free_reference = nullptr, bool energy_momentum = false);
// The same with the joint frames' rotation matrices given, Rpf = R(parent_frame) and
// Rcf = R(child_frame) (the step computes them once per step: the same numbers).
void joint_rows(const Joint& joint, const Pose& a, const Pose& b, const Mat3& Rpf, const Mat3& Rcf, JointRows* out,
                const Vec4* free_reference, bool energy_momentum);

// A ball joint's cone-limit row (Joint::cone_limit, docs/computation.md (115)) at relative rotation
// q_rel: the angle θ ∈ [0, π] of q_rel and its Jacobians with respect to right perturbations of
// each body (δx, δθ), as JointRows'. A right perturbation of the child turns q_rel by Rcfᵀ δθb on
// the right, one of the parent by −Rpfᵀ δθa on the left, and θ changes by the turn's component
// along the rotation's unit axis n (R n = n: the same in both frames). At θ = 0 the axis is
// undefined and the Jacobians are zero (a cone limit is never active there).
struct JointConeRow {
  double angle = 0;                                                       // θ ∈ [0, π], rad
  Eigen::Matrix<double, 1, 6> Ja = Eigen::Matrix<double, 1, 6>::Zero();  // ∂θ/∂(δxa, δθa)
  Eigen::Matrix<double, 1, 6> Jb = Eigen::Matrix<double, 1, 6>::Zero();  // ∂θ/∂(δxb, δθb)
};
// The cone-limit row of `joint` at relative rotation q_rel (see JointConeRow).
JointConeRow joint_cone_row(const Joint& joint, const Vec4& q_rel);
// The cone limit's impulse map over a step from q_rel2 (z2) to q_rel3 (z3): the gradient at the
// chordal midpoint normalize(q_rel2 + q_rel3) (docs/computation.md (115)). The axis n turns
// ~1/tan(θ/2) times faster than the joint: the gradient at z2 (the rows' limits' map) pumps energy
// into a light body spinning on a tight cone, the gradient at z3 over-dissipates.
JointConeRow joint_cone_map_row(const Joint& joint, const Vec4& q_rel2, const Vec4& q_rel3);

// The energy–momentum form of constrained rotation row 3 + k: c = Σ sign·R_rel[p, q] over at most
// two terms (count). A revolute joint (free about z) aligns the axes, c_x = R_rel[z, y],
// c_y = −R_rel[z, x]: zero whenever the child's z axis is the parent's, whatever the angle about
// it. Other constrained rows: c_k = ½(R_rel[j, i] − R_rel[i, j]) = 2 w v_k of q_rel ((i, j, k)
// cyclic), which vanishes only near the identity and at half turns.
struct RotationRowTerms {
  int count = 0;    // number of terms (1 or 2)
  double sign[2];   // each term's sign
  // each term's entry R_rel[p, q]
  int p[2], q[2];   // each term's entry R_rel[p, q]
  double constant = 0;  // subtracted from the sum (a two-hinge joint at a non-right angle)
};
// The terms of constrained rotation row 3 + k of `joint`.
RotationRowTerms rotation_row_terms(const Joint& joint, int k);

// Hinge m's axis (joint frame, before the hinges ahead of it turn it) of a Davenport joint: e_sm,
// or for the second of two hinges at a non-right angle c e_s0 + √(1 − c²) e_s1 (Joint::hinge_cosine).
Vec3 davenport_axis(const Joint& joint, int m);

// A Davenport joint's (Joint::hinge_sequence) relative rotation R_rel = Π_m R(e_sm, θ_sm) for the
// angles theta (indexed by joint-frame axis), and in *omega the relative angular velocity (parent
// joint frame) ω = Σ_m (Π_{l<m} R(e_sl, θ_sl)) e_sm θ̇_sm of the rates `rate` (docs/computation.md (96)).
Mat3 davenport_rotation(const Joint& joint, const Vec3& theta, const Vec3& rate, Vec3* omega);

// A Davenport joint's offset chain (Joint::hinge_offset): the last hinge's anchor seen from the
// first's in the parent joint frame, v = Σ_m R_s0 ⋯ R_sm d_m, at the angles theta (by joint-frame
// axis), and in *dv_dtheta its derivative by angle (column = axis; docs/computation.md (98), (99)).
Vec3 davenport_offset(const Joint& joint, const Vec3& theta, Mat3* dv_dtheta);

// Relative rotation of the child joint frame with respect to the parent joint frame.
Vec4 joint_relative_rotation(const Joint& joint, const Vec4& qa, const Vec4& qb);

// Wraps an angle difference into (−π, π] (free rotation rows are angles).
double wrap_angle(double a);

}  // namespace maxsim
