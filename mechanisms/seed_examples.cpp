#include "mechanisms/seed_examples.hpp"

#include <cmath>

namespace maxsim {

void start_seed_example(const SeedExample& ex, Data& d) {
  d.v = ex.v0;
  d.w = ex.w0;
  d.controller = ex.load;
}

Eigen::VectorXd body_poses(const Data& d) {
  Eigen::VectorXd z(12 * d.x.size());
  for (size_t i = 0; i < d.x.size(); ++i) {
    z.segment<3>(12 * i) = d.x[i];
    z.segment<9>(12 * i + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(quat_to_rot(d.q[i]).data());
  }
  return z;
}

SeedExample make_free_rigid_body(double dt) {
  SeedExample ex;
  ex.model.name = "free_rigid_body";
  ex.model.opt.timestep = dt;
  ex.model.opt.gravity.setZero();
  Body b;
  b.name = "body";
  b.mass = 1;
  b.inertia = Vec3(6, 8, 3).asDiagonal();
  ex.model.add_body(b);
  ex.v0 = {Vec3::Zero()};
  ex.w0 = {Vec3(10, 20, 20)};
  return ex;
}

namespace {
// the heavy top's data (Kinon & Betsch 2024, eqs. 113–119)
constexpr double kTopA = 0.1, kTopL = 0.75 * kTopA, kTheta0 = M_PI / 3, kPrecession = 10, kGravity = 9.81;
double top_mass() { return 2700 * M_PI * (0.5 * kTopA) * (0.5 * kTopA) * kTopA / 3; }
double top_inertia() { return 3.0 / 80.0 * top_mass() * (4 * 0.25 * kTopA * kTopA + kTopA * kTopA); }  // = J0³ here
double top_spin() {
  const double m = top_mass(), J0 = top_inertia(), J1 = J0 + m * kTopL * kTopL, J3 = J0;
  return m * kGravity * kTopL / (J3 * kPrecession) + (J1 - J3) / J3 * kPrecession * std::cos(kTheta0);
}
}  // namespace

SeedExample make_heavy_top(double dt) {
  SeedExample ex;
  Model& m = ex.model;
  m.name = "heavy_top";
  m.opt.timestep = dt;
  m.opt.gravity = Vec3(0, 0, -kGravity);
  Body b;
  b.name = "top";
  b.mass = top_mass();
  b.inertia = top_inertia() * Mat3::Identity();
  b.q0 = quat_axis_angle(Vec3::UnitX(), kTheta0);
  const Vec3 d3 = quat_rotate(b.q0, Vec3::UnitZ());
  b.x0 = kTopL * d3;
  const int body = m.add_body(b);
  m.add_joint(make_joint(m, JointType::Spherical, kWorld, body, Vec3::Zero(), Vec3::UnitZ(), "pivot"));
  const Vec3 omega = kPrecession * Vec3::UnitZ() + top_spin() * d3;  // spatial (eq. 119)
  ex.v0 = {omega.cross(b.x0)};
  ex.w0 = {quat_rotate(quat_conj(b.q0), omega)};
  return ex;
}

Vec3 heavy_top_com(double t) {
  const double s = kTopL * std::sin(kTheta0);
  return Vec3(s * std::sin(kPrecession * t), -s * std::cos(kPrecession * t), kTopL * std::cos(kTheta0));
}

SeedExample make_seed_closed_loop(double dt) {
  SeedExample ex;
  Model& m = ex.model;
  m.name = "seed001_closed_loop";
  m.opt.timestep = dt;
  m.opt.gravity.setZero();
  const double l = 10, mass = 10, j_long = mass / 12 * 2, j_short = mass / 12 * (l * l + 1);
  const Vec3 com[4] = {{l / 2, 0, 0}, {0, l / 2, 0}, {-l / 2, 0, 0}, {0, -l / 2, 0}};
  for (int i = 0; i < 4; ++i) {
    Body b;
    b.name = "bar" + std::to_string(i + 1);
    b.mass = mass;
    // bars 1 and 3 lie along y, 2 and 4 along x
    b.inertia = (i % 2 == 0 ? Vec3(j_short, j_long, j_short) : Vec3(j_long, j_short, j_short)).asDiagonal();
    b.x0 = com[i];
    m.add_body(b);
  }
  const Vec3 corner[4] = {{l / 2, l / 2, 0}, {-l / 2, l / 2, 0}, {-l / 2, -l / 2, 0}, {l / 2, -l / 2, 0}};
  for (int i = 0; i < 4; ++i)
    m.add_joint(make_joint(m, JointType::Spherical, i, (i + 1) % 4, corner[i], Vec3::UnitZ(),
                           "corner" + std::to_string(i + 1)));
  ex.v0.assign(4, Vec3::Zero());
  ex.w0.assign(4, Vec3::Zero());
  // the load at the step's midpoint t + Δt/2 (Kinon & Betsch 2024, eq. 127); the torque is spatial
  ex.load = [](const Model& model, Data& d) {
    const double t = d.time + 0.5 * model.opt.timestep, fm = 100;
    const double f = t <= 0.5 ? 2 * fm * t : t <= 1 ? 2 * fm * (1 - t) : 0.0;
    d.body_force[0] = Vec3(8 * f, 0, 0);
    d.body_torque[0] = quat_rotate(quat_conj(d.q[0]), Vec3(6 * f, 0, 0));
  };
  return ex;
}

namespace {
constexpr double kDiskRadius = 0.5, kDiskSpin = 2, kDiskHeading = 0.5;
}

SeedExample make_rolling_disk(double dt) {
  SeedExample ex;
  Model& m = ex.model;
  m.name = "rolling_disk";
  m.opt.timestep = dt;
  Body b;
  b.name = "disk";
  b.mass = 1;
  const double r = kDiskRadius;
  b.inertia = Vec3(0.5 * r * r, 0.25 * r * r, 0.25 * r * r).asDiagonal();  // axis: body x
  b.x0 = Vec3(0, 0, r);
  const int body = m.add_body(b);
  NonholonomicConstraint c;
  c.name = "rolling";
  c.kind = NonholonomicKind::RollingDisk;
  c.body = body;
  c.radius = r;
  c.axis = Vec3::UnitX();
  m.add_nonholonomic(c);
  // spin about the axis and heading rate about e3; rolling: u = ω × (r e3)
  const Vec3 omega(kDiskSpin, 0, kDiskHeading);
  ex.v0 = {Vec3(0, -kDiskSpin * r, 0)};
  ex.w0 = {omega};
  return ex;
}

Vec3 rolling_disk_com(double t) {
  const double radius = kDiskSpin * kDiskRadius / kDiskHeading;  // speed / heading rate
  return Vec3(radius * (1 - std::cos(kDiskHeading * t)), -radius * std::sin(kDiskHeading * t), kDiskRadius);
}

SeedExample make_rolling_ball(double dt) {
  SeedExample ex;
  Model& m = ex.model;
  m.name = "rolling_ball";
  m.opt.timestep = dt;
  Body b;
  b.name = "ball";
  b.mass = 1;
  b.inertia = Vec3(0.1, 0.075, 0.125).asDiagonal();
  const double r = 0.5;
  b.x0 = Vec3(0, 0, r);
  const int body = m.add_body(b);
  NonholonomicConstraint c;
  c.name = "rolling";
  c.kind = NonholonomicKind::RollingBall;
  c.body = body;
  c.radius = r;
  m.add_nonholonomic(c);
  const Vec3 omega(2, 1, 0.7);
  ex.v0 = {omega.cross(Vec3(0, 0, r))};
  ex.w0 = {omega};
  return ex;
}

namespace {
constexpr double kSleighJ = 8, kSleighA = 1, kSleighM = 1;
}

SeedExample make_chaplygin_sleigh(double rho1, double dt) {
  SeedExample ex;
  Model& m = ex.model;
  m.name = "chaplygin_sleigh";
  m.opt.timestep = dt;
  m.opt.gravity.setZero();
  const double theta = 0.1, rho2 = -0.6;
  const Vec3 d(std::cos(theta), std::sin(theta), 0), contact(-5, 0, 0);
  Body b;
  b.name = "sleigh";
  b.mass = kSleighM;
  b.inertia = Vec3(0.5 * kSleighJ, 0.5 * kSleighJ, kSleighJ).asDiagonal();
  b.q0 = quat_axis_angle(Vec3::UnitZ(), theta);
  b.x0 = contact + kSleighA * d;
  const int body = m.add_body(b);
  m.add_joint(make_joint(m, JointType::PlanarAxis, kWorld, body, b.x0, Vec3::UnitZ(), "plane"));
  NonholonomicConstraint c;
  c.name = "blade";
  c.kind = NonholonomicKind::KnifeEdge;
  c.body = body;
  c.point = Vec3(-kSleighA, 0, 0);
  c.direction = Vec3::UnitX();
  m.add_nonholonomic(c);
  const double rate = rho1 / std::sqrt(kSleighJ + kSleighM * kSleighA * kSleighA);
  ex.v0 = {rho2 / std::sqrt(kSleighM) * d + rate * Vec3::UnitZ().cross(kSleighA * d)};
  ex.w0 = {Vec3(0, 0, rate)};
  return ex;
}

Eigen::Vector2d sleigh_rho(const Data& d) {
  const Vec3 dir = quat_rotate(d.q[0], Vec3::UnitX());
  const double rate = d.w[0].z();
  const Vec3 blade_velocity = d.v[0] - rate * Vec3::UnitZ().cross(kSleighA * dir);
  return Eigen::Vector2d(std::sqrt(kSleighJ + kSleighM * kSleighA * kSleighA) * rate, std::sqrt(kSleighM) * blade_velocity.dot(dir));
}

SeedExample make_suslov(double dt) {
  SeedExample ex;
  Model& m = ex.model;
  m.name = "suslov";
  m.opt.timestep = dt;
  m.opt.gravity.setZero();
  Body b;
  b.name = "body";
  b.mass = 1;
  b.inertia << 2, 0, 0.5, 0, 3, 0.4, 0.5, 0.4, 4;
  const int body = m.add_body(b);
  NonholonomicConstraint c;
  c.name = "suslov";
  c.kind = NonholonomicKind::AngularVelocity;
  c.body = body;
  c.axis = Vec3::UnitZ();
  m.add_nonholonomic(c);
  ex.v0 = {Vec3::Zero()};
  ex.w0 = {Vec3(1, 0.5, 0)};
  return ex;
}

void StiffPendulumReference::advance(double dt) {
  constexpr double h = 1e-3;
  const double t0 = t;
  auto f = [this](double s, double a) { return (9 * std::sin(0.1 * s) - 9.8 * std::sin(a)) / inertia; };
  const int n = static_cast<int>(std::lround(dt / h));
  for (int i = 0; i < n; ++i) {
    const double s = t0 + i * h;
    const double k1t = rate, k1o = f(s, theta), k2t = rate + 0.5 * h * k1o, k2o = f(s + 0.5 * h, theta + 0.5 * h * k1t);
    const double k3t = rate + 0.5 * h * k2o, k3o = f(s + 0.5 * h, theta + 0.5 * h * k2t), k4t = rate + h * k3o;
    const double k4o = f(s + h, theta + h * k3t);
    theta += h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t);
    rate += h / 6 * (k1o + 2 * k2o + 2 * k3o + k4o);
  }
  t = t0 + n * h;
}

}  // namespace maxsim
