// The examples of Kinon & Betsch (2024) and Celledoni et al. (2019), built in code with the papers'
// parameters: the tests, the example program `seed_examples` and the README's tables use them.
#pragma once

#include <functional>
#include <vector>

#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim {

// A model with its state at t = 0 and its external load.
struct SeedExample {
  Model model;  // the mechanism
  // per body: CoM velocity (world) and angular velocity (body frame) at t = 0; the
  // variational integrator takes them as the velocities of its first interval
  std::vector<Vec3> v0, w0;
  // external loads, as Data::controller (empty: none)
  std::function<void(const Model&, Data&)> load;
};

// Sets the example's initial velocities and load in `data` (made from example.model).
void start_seed_example(const SeedExample& example, Data& data);

// The poses of all bodies as one vector (per body its position and rotation matrix): what the
// order measurements compare where no exact solution is known.
Eigen::VectorXd body_poses(const Data& data);

// Kinon & Betsch (2024), §5.3: a torque-free rigid body, J = diag(6, 8, 3), Ω(0) = (10, 20, 20), no
// gravity.
SeedExample make_free_rigid_body(double dt = 0.05);

// Kinon & Betsch (2024), §5.4 (Kinon, Betsch & Schneider 2023, §5.1): the heavy top in steady
// precession. A cone (ρ = 2700 kg/m³, height a = 0.1 m, base radius a/2), CoM l = 3a/4 from the
// pivot, tilted by ϑ0 = π/3 about e1, spherical joint to the world at its tip;
// ω(0) = ω_p e3 + ω_s d3 with ω_p = 10 s⁻¹ and the steady-precession spin
// ω_s = mgl/(J3 ω_p) + (J1 − J3)/J3 ω_p cos ϑ0 = 135.6 s⁻¹ (their eq. 118; J1 = J0¹ + ml² about the
// pivot, J3 = J0³). Its CoM moves on a circle of radius l sin ϑ0 at height l cos ϑ0 (their
// eq. 120): heavy_top_com(t).
SeedExample make_heavy_top(double dt = 0.01);
Vec3 heavy_top_com(double t);

// Kinon & Betsch (2024), §5.5: four bars (l = 10, unit cross-section, ρ = 1: m = 10) in a square,
// joined by spherical joints at the corners, no gravity; the first bar takes a force 8 f(t) e1 and
// a spatial torque 6 f(t) e1 with f = 2 f_m t on [0, ½], 2 f_m (1 − t) on (½, 1], 0 after,
// f_m = 100. From t = 1 on it is a free conservative system.
SeedExample make_seed_closed_loop(double dt = 0.1);

// Celledoni et al. (2019), §2: a disk (m = 1, r = 0.5, axial inertia m r²/2, diametral m r²/4)
// rolling upright without slipping; spin 2 s⁻¹, heading rate 0.5 s⁻¹, speed 1 m/s along −y from the
// origin: its CoM runs on the circle of radius 2 about (2, 0, r), rolling_disk_com(t).
SeedExample make_rolling_disk(double dt = 0.05);
Vec3 rolling_disk_com(double t);

// A Chaplygin ball: m = 1, r = 0.5, J = diag(0.1, 0.075, 0.125) about its centre (its CoM),
// rolling without slipping, ω(0) = (2, 1, 0.7).
SeedExample make_rolling_ball(double dt = 0.05);

// Celledoni et al. (2019), §4.2, Fig. 3: the Chaplygin sleigh, J = 8 about the CoM, m = 1, the CoM
// a = 1 ahead of the blade along it; blade contact at (−5, 0), heading 0.1, ρ1 = √(J + ma²) θ̇
// = `rho1`, ρ2 = √m × (the blade point's speed along the blade) = −0.6: it starts backwards near
// the unstable equilibrium, turns round and tends to the straight line at ρ2 → √(ρ1² + ρ2²).
// A PlanarAxis joint holds it in the plane z = 0; the knife edge is its constraint.
SeedExample make_chaplygin_sleigh(double rho1 = 0.001, double dt = 0.5);
// (ρ1, ρ2) of a sleigh state (the variables of Celledoni et al.'s eq. 22).
Eigen::Vector2d sleigh_rho(const Data& data);

// Celledoni et al. (2019), §4.3: the Suslov problem, a body with inertia [[2, 0, 0.5], [0, 3, 0.4],
// [0.5, 0.4, 4]] whose angular velocity has no component along its body axis e3; CoM at rest,
// Ω(0) = (1, 0.5, 0), no gravity.
SeedExample make_suslov(double dt = 0.05);

// Seed 004's stiff pendulum (1 kg at 1 m on a massless truss, g = 9.8) under T = 9 sin(0.1 t) N·m
// at the pivot: the reference θ̈ = (T(t) − m g L sin θ)/I by RK4 at 1 ms, from θ = θ̇ = 0 at t = 0.
struct StiffPendulumReference {
  double inertia = 1 + 1e-6;  // about the pivot: 1 + the bob's own (1e-6 in the tests' file)
  double t = 0;               // the reference's time
  double theta = 0;           // its angle at t
  double rate = 0;            // its rate at t
  void advance(double dt);    // by dt, a multiple of 1 ms
};

}  // namespace maxsim
