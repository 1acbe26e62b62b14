// Scalar coordinates of the step beyond the joints' own rows: a tendon's length L (fixed: a linear
// combination of free joint-row coordinates; spatial: a path through sites, sim/tendon/spatial.hpp)
// and the couplings between two scalar coordinates (docs/computation.md (82)–(88)).
//
// A scalar coordinate is a value with a gradient per body in the joint rows' convention
// (δx world, δθ body; sim/constraints/joint.hpp): a joint row's Ja/Jb row, or a tendon's
// Σ coef·(row gradients). The step turns a tendon with a spring, damper, armature, actuator or
// limit into an equality node of two rows (its impulse u and its length ℓ at z3,
// sim/constraints/tendon_constraint.cpp), a coupling into an equality node of one constrained row
// (coupling_constraint.cpp), and a tendon limit into an inequality on ℓ (sim/solver/tendon_limit.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/constraints/joint.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// A scalar coordinate's gradient: per body it depends on, dvalue/d(δx world, δθ body).
using BodyGradient = std::vector<std::pair<int, Vec6>>;

// Adds scale·g to body's entry of `out` (a new entry if the body has none; kWorld is skipped).
void add_body_gradient(BodyGradient* out, int body, const Vec6& g, double scale);
// The coordinate's rate at the bodies' velocities (Data::v, w: the last interval's).
double gradient_rate(const BodyGradient& gradient, const Data& data);

// The coordinate of free row r of a joint from its rows: the row value for a translation, the
// angle unwrapped next to `angle` (the joint's unwrapped angle, Data::joint_angle) for a rotation.
double joint_row_value(const JointRows& rows, int r, double angle);
// Adds scale × the row's gradient (Ja row to the parent, Jb row to the child) to `out`.
void add_joint_row_gradient(const Joint& joint, const JointRows& rows, int r, double scale, BodyGradient* out);

// The length of tendon t at the Data's current poses (MuJoCo's: a fixed tendon sums coef·qpos, a
// one-coordinate joint's qpos being its coordinate plus Joint::ref), and its gradient when asked.
double tendon_length(const Model& model, const Data& data, int t, BodyGradient* gradient = nullptr);
// The length at the model's zero configuration (the spring's rest length when
// Tendon::spring_from_zero, and the origin of <equality tendon>).
double tendon_zero_length(const Model& model, int t);
// The bodies its length depends on, without repeats (not the world).
std::vector<int> tendon_bodies(const Model& model, int t);
// Whether tendon t is a node of the step: it has a spring, damper, armature, actuator or limit.
bool tendon_active(const Model& model, int t);

// The value of a coupling's coordinate a or b (Coupling::Kind) at the Data's current poses, from
// its zero configuration's value, with its gradient when asked.
double coupling_coordinate(const Model& model, const Data& data, const Coupling& coupling, bool a,
                           BodyGradient* gradient = nullptr);
// Σ_k polycoef[k]·x^k and its derivative.
double coupling_polynomial(const Coupling& coupling, double x, double* derivative = nullptr);
// The coupling's residual c = a − P(b) at the Data's current poses (0 when it holds).
double coupling_violation(const Model& model, const Data& data, int k);

// A position or velocity servo on a tendon without a force range enters the tendon's row at the
// new state (docs/computation.md (88)): its force Σ g f = F0 − K ℓ − D (ℓ − L(z2))/Δt is linear in
// the length ℓ at z3. tendon_servo sums F0, K, D over tendon t's actuators that qualify
// (tendon_servo_implicit) from Data::ctrl; the step's actuation leaves them out of
// Data::tendon_force (it still reports each one's force at the state at the start of the step).
bool tendon_servo_implicit(const Actuator& actuator);
struct TendonServo {
  double force = 0, stiffness = 0, damping = 0;  // F0 [N], K [N/m], D [N·s/m]
};
TendonServo tendon_servo(const Model& model, const Data& data, int t);

// Appends the tendon limits near their bounds to Data::contacts (as append_joint_limits does for
// joint rows): φ = side·(L(z3) − bound) ≥ 0 on the tendon node's length ℓ; and each tendon's dry
// friction (frictionloss), the 1-D cone on its length's rate (sim/solver/joint_friction.cpp).
void append_tendon_limits(const Model& model, Data& data, double dt, double margin = 0.0);

// Checks tendons, couplings and tendon actuators (indices, rows with a scalar coordinate, finite
// parameters, ordered ranges); "" when valid, else a message naming the tendon or coupling.
std::string validate_tendons(const Model& model);

}  // namespace maxsim
