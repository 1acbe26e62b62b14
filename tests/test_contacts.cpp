// Hard contacts with friction: no sinking, Coulomb stick/slip, maximum dissipation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "mechanisms/builders.hpp"
#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/geometry/ground.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/workspace.hpp"

using namespace maxsim;

namespace {

Body box_body(const std::string& name, double mass, const Vec3& half, const Vec3& pos) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia = inertia_box(mass, half);
  b.x0 = pos;
  b.geoms.push_back(make_geom(GeomType::Box, half));
  return b;
}

Body sphere_body(const std::string& name, double mass, double r, const Vec3& pos) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia = inertia_sphere(mass, r);
  b.x0 = pos;
  b.geoms.push_back(make_geom(GeomType::Sphere, Vec3(r, 0, 0)));
  return b;
}

struct RunStats {
  int failed = 0;
  double penetration = 0;
};

RunStats run(const Model& m, Data& d, int steps) {
  RunStats r;
  for (int k = 0; k < steps; ++k) {
    if (step(m, d).status != StepStatus::Ok) ++r.failed;
    r.penetration = std::max(r.penetration, max_penetration(d));
  }
  return r;
}

// gravity of an incline of angle θ about y (the "downhill" direction is +x)
Vec3 incline_gravity(double theta) { return 9.81 * Vec3(std::sin(theta), 0, -std::cos(theta)); }

}  // namespace

// Brüdigam et al. (2023), Fig. 7d: a 0.5 m, 1 kg cube dropped from 0.4 m (Δt = 0.01). MuJoCo's soft contact
// lets it sink 2.7 cm; here the gap is a constraint at the next knot, so penetration stays at
// solver tolerance (bound 1e-4 m) and the cube comes to rest.
TEST(Contacts, BoxDropDoesNotSink) {
  Model m;
  m.add_body(box_body("box", 1.0, Vec3(0.25, 0.25, 0.25), Vec3(0, 0, 0.4 + 0.25)));
  Data d(m);
  enable_contacts(m, d);
  const RunStats r = run(m, d, 300);
  EXPECT_EQ(r.failed, 0);
  EXPECT_LT(r.penetration, 1e-4);
  EXPECT_NEAR(d.x[0].z(), 0.25, 1e-4);
  EXPECT_LT(d.v[0].norm(), 1e-6);
  EXPECT_EQ(d.contacts.size(), 4u);  // a face on the ground: four corners
  // the four normal impulses carry the weight over the step
  double gamma = 0;
  for (const Contact& c : d.contacts) gamma += c.gamma;
  EXPECT_NEAR(gamma, 9.81 * m.opt.timestep, 1e-8);
}

// Once the dropped cube rests, each step starts settled (InteriorPointOptions::settled_slack,
// settled_answer_floor): its last answer passes the convergence test, so almost no step
// factors (two factorizations per step from the usual warm floor), still at rest to 1e-4 m
// with the weight carried; and a cube that starts sliding is never taken for settled (same
// answer as with settled starts switched off).
TEST(Contacts, SettledStepsStartFromTheirLastImpulse) {
  Model m;
  m.add_body(box_body("box", 1.0, Vec3(0.25, 0.25, 0.25), Vec3(0, 0, 0.4 + 0.25)));
  Data d(m);
  enable_contacts(m, d);
  ASSERT_EQ(run(m, d, 200).failed, 0);
  Data usual = d;
  Model never_settled = m;
  never_settled.opt.interior_point.settled_starts = false;
  int settled_iterations = 0, usual_iterations = 0;
  for (int k = 0; k < 50; ++k) {
    settled_iterations += step(m, d).iterations;
    usual_iterations += step(never_settled, usual).iterations;
  }
  EXPECT_LE(settled_iterations, 5);
  EXPECT_GE(usual_iterations, 2 * 50);
  EXPECT_NEAR(d.x[0].z(), 0.25, 1e-4);
  double gamma = 0;
  for (const Contact& c : d.contacts) gamma += c.gamma;
  EXPECT_NEAR(gamma, 9.81 * m.opt.timestep, 1e-8);
  // pushed sideways: sliding contacts start from the usual floor, so both runs agree exactly
  d.v[0].x() = 1.0;
  usual.x[0] = d.x[0];
  usual.q[0] = d.q[0];
  usual.v[0] = d.v[0];
  usual.w[0] = d.w[0];
  usual.contacts = d.contacts;
  usual.report = d.report;
  for (int k = 0; k < 5; ++k) {
    step(m, d);
    step(m, usual);
  }
  EXPECT_NEAR((d.x[0] - usual.x[0]).norm(), 0.0, 1e-12);
}

// Box on an incline (gravity tilted by θ), μ = 0.5: sticks when tan θ < μ (creep < 1e-4 m over
// 2 s), slides when tan θ > μ with a = g (sin θ − μ cos θ) within 2 % — with either friction cone
// (the slide is along a pyramid direction, where the linearized cone is exact).
TEST(Contacts, BoxOnInclineSticksAndSlides) {
  const double mu = 0.5;
  for (FrictionCone cone : {FrictionCone::Nonlinear, FrictionCone::Linear, FrictionCone::Relaxed}) {
    for (double theta : {0.35, 0.55}) {  // tan = 0.365 (stick), 0.613 (slide)
      Model m;
      m.opt.gravity = incline_gravity(theta);
      m.add_body(box_body("box", 1.0, Vec3(0.1, 0.1, 0.1), Vec3(0, 0, 0.1)));
      Data d(m);
      ContactOptions& o = m.opt.contact;
      o.friction = mu;
      o.cone = cone;
      enable_contacts(m, d);
      const RunStats r = run(m, d, 200);
      const char* name = friction_cone_name(cone);
      EXPECT_EQ(r.failed, 0) << name;
      EXPECT_LT(r.penetration, 1e-4) << name;
      if (std::tan(theta) < mu) {
        EXPECT_LT(std::abs(d.x[0].x()), 1e-4) << "creep at θ = " << theta << ", " << name << " cone";
      } else {
        const double a = 9.81 * (std::sin(theta) - mu * std::cos(theta));
        // after the first step the block slides at constant deceleration: v = a (t − Δt) or so
        EXPECT_NEAR(d.v[0].x() / (a * d.time), 1.0, 0.02) << "θ = " << theta << ", " << name << " cone";
      }
    }
  }
}

// A sphere on the incline rolls without slipping (contact point at rest, a = 5/7 g sin θ) while
// tan θ < 7/2 μ, and slides with a = g (sin θ − μ cos θ) beyond.
TEST(Contacts, SphereOnInclineRollsOrSlides) {
  const double mu = 0.2, r = 0.1;
  for (FrictionCone cone : {FrictionCone::Nonlinear, FrictionCone::Linear, FrictionCone::Relaxed}) {
    for (double theta : {0.3, 0.8}) {  // tan = 0.31 < 0.7 (roll), 1.03 > 0.7 (slide)
      Model m;
      m.opt.gravity = incline_gravity(theta);
      m.add_body(sphere_body("ball", 1.0, r, Vec3(0, 0, r)));
      Data d(m);
      ContactOptions& o = m.opt.contact;
      o.friction = mu;
      o.cone = cone;
      enable_contacts(m, d);
      const RunStats rr = run(m, d, 100);
      const char* name = friction_cone_name(cone);
      EXPECT_EQ(rr.failed, 0) << name;
      EXPECT_LT(rr.penetration, 1e-4) << name;
      const double a = std::tan(theta) < 3.5 * mu ? 5.0 / 7.0 * 9.81 * std::sin(theta)
                                                  : 9.81 * (std::sin(theta) - mu * std::cos(theta));
      EXPECT_NEAR(d.v[0].x() / (a * d.time), 1.0, 0.02) << "θ = " << theta << ", " << name << " cone";
    }
  }
}

// A rolling ball's contact point moves over its surface by |ω| r Δt a step (here 1 m/s on r = 5 cm
// at Δt = 5 ms: 5 mm); within InteriorPointOptions::warm_match_radius (1 cm) the contact continues
// the last step's and starts warm from its impulses (docs/computation.md (62)), beyond it (the
// former 1 mm) it starts cold. The warm start changes the interior point's path, not its answer:
// both roll without slipping (a = 5/7 g sin θ) on the same trajectory, within what the tolerances
// allow over 100 steps (the rows converge to 1e-9 m a step: 2e-7 m/s), and the warm one takes fewer
// iterations (every step after the first starts warm). A radius that is not finite and
// non-negative is refused.
TEST(Contacts, ARollingContactContinuesWithinTheMatchRadius) {
  const double r = 0.05, v0 = 1.0, dt = 0.005;
  Vec3 v_end[2];
  int iterations[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    Model m;
    m.opt.timestep = dt;
    m.opt.gravity = incline_gravity(0.2);
    m.add_body(sphere_body("ball", 1.0, r, Vec3(0, 0, r)));
    m.opt.contact.friction = 0.8;
    m.opt.interior_point.warm_match_radius = k == 0 ? InteriorPointOptions{}.warm_match_radius : 1e-3;
    Data d(m);
    d.v[0] = Vec3(v0, 0, 0);
    d.w[0] = Vec3(0, v0 / r, 0);  // rolling along +x (body frame = world frame at the start)
    enable_contacts(m, d);
    for (int n = 0; n < 100; ++n) {
      const StepReport rep = step(m, d);
      ASSERT_EQ(rep.status, StepStatus::Ok) << "radius " << m.opt.interior_point.warm_match_radius << ", step " << n;
      iterations[k] += rep.iterations;
      ASSERT_EQ(d.contacts.size(), 1u);
      if (n > 0) {
        EXPECT_EQ(workspace(d).previous_match[0] >= 0, k == 0) << "step " << n;
      }
    }
    // rolling without slipping down the incline: a = 5/7 g sin θ (sliding would slow it at
    // g (sin θ − μ cos θ) < 0); 1e-3 m/s covers the chord of the 0.17 rad turned per step
    EXPECT_NEAR(d.v[0].x(), v0 + 5.0 / 7.0 * 9.81 * std::sin(0.2) * d.time, 1e-3);
    v_end[k] = d.v[0];
  }
  EXPECT_LT((v_end[0] - v_end[1]).norm(), 1e-6);
  EXPECT_LT(iterations[0], iterations[1]);
  std::printf("iterations over 100 steps: warm %d, cold %d\n", iterations[0], iterations[1]);
  for (const double bad : {-1e-3, std::numeric_limits<double>::infinity(), std::nan("")}) {
    Model m;
    m.add_body(sphere_body("ball", 1.0, r, Vec3(0, 0, r)));
    m.opt.interior_point.warm_match_radius = bad;
    Data d(m);
    enable_contacts(m, d);
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
}

// A block sliding diagonally: friction opposes the sliding velocity (maximum dissipation: the
// direction does not change) and the speed decays at μ g per second. The direction holds to what
// the convergence test promises: each contact's friction opposes its sliding within
// cone_direction_tolerance θ (docs/computation.md (63)), which turns the velocity by at most θ
// times the change of speed over the speed, summed over the steps.
TEST(Contacts, SlidingBlockDecaysAtMuG) {
  const double mu = 0.4;
  Model m;
  m.add_body(box_body("block", 2.0, Vec3(0.1, 0.1, 0.05), Vec3(0, 0, 0.05)));
  Data d(m);
  ContactOptions& o = m.opt.contact;
  o.friction = mu;
  enable_contacts(m, d);
  const Vec3 v0(1.5, 1.0, 0.0);
  d.v[0] = v0;
  const RunStats r = run(m, d, 20);
  EXPECT_EQ(r.failed, 0);
  const Vec3 v = d.v[0];
  const double theta = m.opt.interior_point.cone_direction_tolerance;
  EXPECT_LT(Vec3(v.x(), v.y(), 0).normalized().cross(v0.normalized()).norm(),
            theta * std::log(v0.norm() / v.norm()));  // (θ ∫ d|v|/|v|: 5.7e-5 rad; measured 1.1e-6)
  EXPECT_NEAR(v0.norm() - v.norm(), mu * 9.81 * d.time, 0.02 * mu * 9.81 * d.time);
}

namespace {

// A 1 kg ball of radius r on the floor with friction μ.
Model ball_on_the_floor(double r, double mu) {
  Model m;
  m.add_body(sphere_body("ball", 1.0, r, Vec3(0, 0, r)));
  m.opt.contact.friction = mu;
  return m;
}

// The ball thrown spinning onto the floor for 200 steps (it slides, then rolls): where it ends,
// its spin, and the time.
double throw_spinning(const Model& m, Vec3* end, Vec3* spin) {
  Data d(m);
  enable_contacts(m, d);
  d.v[0] = Vec3(2.0, 0.5, 0.0);
  d.w[0] = Vec3(5.0, -3.0, 2.0);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(step(m, d).status, StepStatus::Ok) << i;
    EXPECT_LT(max_penetration(d), 1e-6);
  }
  *end = d.x[0];
  *spin = d.w[0];
  return d.time;
}

}  // namespace

// The cone weight (InteriorPointOptions::cone_weight, docs/computation.md (111)) changes the
// interior point's path, not its answer where the answer is unique: a ball thrown spinning onto
// the floor slides, then rolls (one contact: Coulomb's answer is unique; four corners of a box
// share their load in a way the rigid model leaves open, and the interior point's analytic centre
// depends on the weight). Both paths end within what the tolerances allow (gaps 1e-9 m per step,
// the complementarity's 1e-8 N·s·m: 5e-7 m of gap at the ball's load; the tangential rows 1e-7
// m/s per step: over 200 steps 2e-5 m/s at the ball's surface, 2e-4 rad/s of spin — measured
// 1.8e-5 rad/s with the rolling contact warm-started, 4e-6 when it started cold); a weight that
// is not finite and positive is refused.
TEST(Contacts, ConeWeightChangesThePathNotTheAnswer) {
  Model m = ball_on_the_floor(0.1, 0.3);
  Vec3 end[2], spin[2];
  for (int k = 0; k < 2; ++k) {
    m.opt.interior_point.cone_weight = k == 0 ? 1.0 : 0.1;
    m.opt.interior_point.cone_direction_tolerance = 0;  // (tested on its own below)
    throw_spinning(m, &end[k], &spin[k]);
  }
  EXPECT_GT((end[0] - Vec3(0, 0, 0.1)).norm(), 0.5);  // it went somewhere
  EXPECT_LT((end[1] - end[0]).norm(), 1e-6);
  EXPECT_LT((spin[1] - spin[0]).norm(), 1e-4);
  for (const double bad : {0.0, -0.1, std::numeric_limits<double>::infinity(), std::nan("")}) {
    m.opt.interior_point.cone_weight = bad;
    Data d(m);
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
}

// The relaxed cone (Anitescu) keeps Coulomb's friction along −v_t but holds a sliding contact's gap
// at μΔt|v_t| over the step: a block set sliding on the floor is launched at v_n = μ|v_t| in its
// first step (the known price of the relaxation: a hop), lands, and then slides at μg with its
// gap no larger than μΔt|v_t|, never below the floor.
TEST(Contacts, RelaxedConeHopsThenSlidesAtMuG) {
  const double mu = 0.4, half = 0.05;
  Model m;
  m.add_body(box_body("block", 2.0, Vec3(0.1, 0.1, half), Vec3(0, 0, half)));
  Data d(m);
  ContactOptions& o = m.opt.contact;
  o.friction = mu;
  o.cone = FrictionCone::Relaxed;
  enable_contacts(m, d);
  const Vec3 v0(1.5, 1.0, 0.0);
  d.v[0] = v0;
  auto slide_speed = [&d]() { return Vec3(d.v[0].x(), d.v[0].y(), 0).norm(); };
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  EXPECT_NEAR(d.v[0].z(), mu * slide_speed(), 1e-9);
  double min_gap = 1;
  for (int k = 1; k < 30; ++k) {
    const double before = slide_speed();
    ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    const double gap = d.x[0].z() - half;
    min_gap = std::min(min_gap, gap);
    if (k >= 20) {  // landed (at k ≈ 13)
      EXPECT_NEAR(before - slide_speed(), mu * 9.81 * m.opt.timestep, 0.02 * mu * 9.81 * m.opt.timestep) << "step " << k;
      EXPECT_LT(gap, mu * m.opt.timestep * before * (1 + 1e-9)) << "step " << k;
    }
  }
  const Vec3 v = d.v[0];
  EXPECT_LT(Vec3(v.x(), v.y(), 0).normalized().cross(v0.normalized()).norm(), 1e-6);
  EXPECT_GT(min_gap, -1e-9);
}

// The linearized cone's known difference: maximum dissipation over the pyramid |b1| + |b2| ≤ μγ
// picks its vertex nearest to −v, so a block sliding at v = (1.5, 1.0) is braked along x alone
// (at μ g) while v_x > v_y, and v_y is untouched (the exact cone would brake along −v).
TEST(Contacts, LinearConeBrakesAlongThePyramidEdge) {
  const double mu = 0.4;
  Model m;
  m.add_body(box_body("block", 2.0, Vec3(0.1, 0.1, 0.05), Vec3(0, 0, 0.05)));
  Data d(m);
  ContactOptions& o = m.opt.contact;
  o.friction = mu;
  o.cone = FrictionCone::Linear;
  enable_contacts(m, d);
  d.v[0] = Vec3(1.5, 1.0, 0.0);
  const RunStats r = run(m, d, 10);  // v_x = 1.5 − μ g t stays above 1.0 until t = 0.127 s
  EXPECT_EQ(r.failed, 0);
  ASSERT_FALSE(d.contacts.empty());
  EXPECT_TRUE(d.contacts[0].linear_cone);
  EXPECT_NEAR(1.5 - d.v[0].x(), mu * 9.81 * d.time, 0.02 * mu * 9.81 * d.time);
  EXPECT_NEAR(d.v[0].y(), 1.0, 1e-6);
}

// The adaptive search margin (opt-in) still catches every approach in time: the cube drop and a
// stack settle without penetration, with a margin that shrinks to min_margin at rest.
TEST(Contacts, AdaptiveMarginCatchesTheImpact) {
  Model m;
  m.add_body(box_body("box", 1.0, Vec3(0.25, 0.25, 0.25), Vec3(0, 0, 0.4 + 0.25)));
  m.add_body(box_body("top", 1.0, Vec3(0.1, 0.1, 0.1), Vec3(0.05, 0, 0.9 + 0.1)));
  Data d(m);
  ContactOptions& o = m.opt.contact;
  o.adaptive_margin = true;
  enable_contacts(m, d);
  const RunStats r = run(m, d, 200);
  EXPECT_EQ(r.failed, 0);
  EXPECT_LT(r.penetration, 1e-4);
  EXPECT_NEAR(d.x[0].z(), 0.25, 1e-4);
  EXPECT_NEAR(d.x[1].z(), 0.6, 1e-3);
  EXPECT_EQ(d.contacts.size(), 8u);  // four corners on the ground, four under the small box
}

// The adaptive margin's floor follows the geometry's size (docs/computation.md (42)): a scene of
// 1 cm balls is the 10 cm scene scaled (time by √s): a ball dropped on another lands and rests on
// it without penetration, and at rest the search carries the same contacts at both scales — a ball
// 1.5 sizes to the side is no candidate (with the absolute 2 cm floor it would be one at 1 cm).
TEST(Contacts, AdaptiveMarginFollowsTheGeometrysSize) {
  size_t count[2];
  for (int k = 0; k < 2; ++k) {
    const double s = k == 0 ? 1.0 : 0.1, r = 0.05 * s;
    Model m;
    m.opt.timestep = 0.01 * std::sqrt(s);
    m.add_body(sphere_body("bottom", 1.0, r, Vec3(0, 0, r)));
    m.add_body(sphere_body("top", 1.0, r, Vec3(0, 0, 3 * r + 0.2 * s)));
    m.add_body(sphere_body("side", 1.0, r, Vec3(2 * r + 0.15 * s, 0, r)));
    Data d(m);
    enable_contacts(m, d);
    const RunStats run_stats = run(m, d, 300);
    EXPECT_EQ(run_stats.failed, 0) << "s = " << s;
    EXPECT_LT(run_stats.penetration, 1e-6 * s) << "s = " << s;
    EXPECT_NEAR(d.x[1].z(), 3 * r, 1e-6 * s) << "s = " << s;  // resting on the bottom ball
    for (const Contact& c : d.contacts)
      EXPECT_FALSE((c.body_a == 2 && c.body_b != kWorld) || (c.body_b == 2 && c.body_a != kWorld)) << "s = " << s;
    count[k] = d.contacts.size();
  }
  EXPECT_EQ(count[0], count[1]);
}

// Momentum passed on within a step is searched for in time (docs/computation.md (42): every pair's
// margin carries the fastest body's reach): a ball thrown at 10 m/s strikes a resting one that lies
// 3 cm from a third (Δt = 0.01 s, no gravity); the struck ball moves 5 cm within the step of the
// strike, so its pair with the third must have been a candidate before either moved — a margin of
// the resting pair's own speeds (2 cm) would let it sink 2 cm into the third.
TEST(Contacts, AnImpactPassedOnWithinAStepIsFoundInTime) {
  for (const bool pair_margin : {false, true}) {
    Model m;
    m.opt.timestep = 0.01;
    m.opt.gravity = Vec3::Zero();
    m.opt.contact.ground = false;
    m.opt.contact.pair_margin = pair_margin;  // (the resting pair's own margin is the floor's)
    m.add_body(sphere_body("struck", 1.0, 0.05, Vec3(0, 0, 0)));
    m.add_body(sphere_body("next", 1.0, 0.05, Vec3(0.13, 0, 0)));
    m.add_body(sphere_body("thrown", 1.0, 0.05, Vec3(-1.0, 0, 0)));
    Data d(m);
    d.v[2] = Vec3(10.0, 0, 0);
    enable_contacts(m, d);
    const RunStats r = run(m, d, 30);  // (the strike at t = 0.1 s)
    EXPECT_EQ(r.failed, 0) << "pair_margin " << pair_margin;
    EXPECT_LT(r.penetration, 1e-6) << "pair_margin " << pair_margin;
    EXPECT_GT(d.v[1].x(), 1.0) << "pair_margin " << pair_margin;  // the momentum reached the third ball
    // and none was made or lost
    EXPECT_NEAR(d.v[0].x() + d.v[1].x() + d.v[2].x(), 10.0, 1e-6) << "pair_margin " << pair_margin;
  }
}

// A body driven hard within one step (docs/computation.md (123)): a ball at rest 10 cm above its
// floor is pushed down by 200 g for one step of 0.01 s. The search margin (42) follows the
// speeds at the knot (at rest: the 2 cm floor), so the floor is no candidate; the step's motion,
// 20 cm, is checked after the solve, the knot searched again within it, and the step solved again
// with the floor: the ball stops on it instead of ending 10 cm inside.
TEST(Contacts, ABodyDrivenHardWithinAStepIsStoppedByAPairBeyondTheMargin) {
  for (const bool pair_margin : {false, true}) {
    Model m;
    m.opt.timestep = 0.01;
    m.opt.contact.pair_margin = pair_margin;
    m.add_body(sphere_body("ball", 1.0, 0.05, Vec3(0, 0, 0.15)));
    Data d(m);
    enable_contacts(m, d);
    d.body_force[0] = Vec3(0, 0, -200.0 * 9.81);
    const StepReport r = step(m, d);
    EXPECT_EQ(r.status, StepStatus::Ok) << "pair_margin " << pair_margin;
    EXPECT_LT(max_world_penetration(m, d, true), 1e-6) << "pair_margin " << pair_margin;
    EXPECT_NEAR(d.x[0].z(), 0.05, 1e-6) << "pair_margin " << pair_margin;  // on the floor
    EXPECT_EQ(d.contacts.size(), 1u) << "pair_margin " << pair_margin;
  }
}

// The margin per pair (docs/computation.md (122)): two boxes resting 3 cm apart on the floor
// while a ball flies past at 20 m/s far away. The one margin of (42) follows the ball (2Δt(2·20
// m/s) = 8 cm) and lists the boxes' facing sides as candidates; each pair's own margin (2 cm at
// rest) leaves them out. Either way the boxes rest where they are.
TEST(Contacts, ARestingPairIsSearchedWithinItsOwnReach) {
  for (const bool pair_margin : {false, true}) {
    Model m;
    m.opt.timestep = 0.002;
    m.opt.contact.pair_margin = pair_margin;
    m.add_body(box_body("left", 1.0, Vec3(0.1, 0.1, 0.1), Vec3(0, 0, 0.1)));
    m.add_body(box_body("right", 1.0, Vec3(0.1, 0.1, 0.1), Vec3(0.23, 0, 0.1)));
    m.add_body(sphere_body("ball", 0.1, 0.02, Vec3(-5.0, 3.0, 1.5)));
    Data d(m);
    d.v[2] = Vec3(20.0, 0, 0);
    enable_contacts(m, d);
    int between = 0;
    for (int k = 0; k < 10; ++k) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      for (const Contact& c : d.contacts) between += c.body_a == 0 && c.body_b == 1;
    }
    EXPECT_EQ(between > 0, !pair_margin) << "pair_margin " << pair_margin;
    EXPECT_LT((d.x[0] - Vec3(0, 0, 0.1)).norm(), 1e-6) << "pair_margin " << pair_margin;
    EXPECT_LT((d.x[1] - Vec3(0.23, 0, 0.1)).norm(), 1e-6) << "pair_margin " << pair_margin;
  }
}

// Three stacked boxes stay stacked within 1 mm for 10 s.
TEST(Contacts, StackedBoxesStay) {
  Model m;
  for (int i = 0; i < 3; ++i) m.add_body(box_body("box" + std::to_string(i), 1.0, Vec3(0.2, 0.2, 0.1), Vec3(0, 0, 0.1 + 0.2 * i)));
  Data d(m);
  enable_contacts(m, d);
  const RunStats r = run(m, d, 1000);
  EXPECT_EQ(r.failed, 0);
  for (int i = 0; i < 3; ++i) EXPECT_LT((d.x[i] - Vec3(0, 0, 0.1 + 0.2 * i)).norm(), 1e-3) << "box " << i;
}

// Brüdigam et al. (2023), Fig. 8b: a chain of N spheres (r = 0.25, 1 kg) joined by spherical joints at their
// touching points, dropped flat from 0.1 m above the ground: no failed step, penetration < 1e-4 m.
TEST(Contacts, SphereChainOnGround) {
  for (int n : {2, 10, 50, 200}) {
    Model m;
    for (int i = 0; i < n; ++i) {
      std::string name = "s";  // (appending: GCC 12's -Wrestrict misfires on "s" + to_string)
      name += std::to_string(i);
      m.add_body(sphere_body(name, 1.0, 0.25, Vec3(0.5 * i, 0, 0.35)));
    }
    for (int i = 1; i < n; ++i)
      m.add_joint(make_joint(m, JointType::Spherical, i - 1, i, Vec3(0.5 * i - 0.25, 0, 0.35), Vec3::UnitZ()));
    Data d(m);
    enable_contacts(m, d);
    const RunStats r = run(m, d, 100);
    EXPECT_EQ(r.failed, 0) << "N = " << n;
    EXPECT_LT(r.penetration, 1e-4) << "N = " << n;
    EXPECT_NEAR(d.x[n / 2].z(), 0.25, 1e-3) << "N = " << n;  // landed and resting
    EXPECT_LT(max_constraint_violation(m, d), 1e-8);
  }
}

// A rod pendulum released at 0.8 rad swings into its lower limit at −0.2 rad: it stops there
// (inelastic, the limit is an inequality on the next configuration) and never passes it by more
// than 1e-4 rad; the limit impulse is positive only while it is touched.
TEST(JointLimits, PendulumStopsAtItsLimit) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  m.joints[0].has_limits = true;
  m.joints[0].lower[5] = -0.2;
  m.joints[0].upper[5] = 1.0;
  Data d(m);
  set_joint_coordinates(m, d, 0, {0.8}, {});
  double lowest = 1e9, highest_after = -1e9;
  bool touched = false;
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    double q, qd;
    joint_coordinates(m, d, 0, &q, &qd);
    lowest = std::min(lowest, q);
    for (const Contact& c : d.contacts)
      if (c.joint == 0 && c.side > 0 && c.gamma > 1e-6) touched = true;
    if (touched) highest_after = std::max(highest_after, q);
  }
  EXPECT_TRUE(touched);
  EXPECT_GT(lowest, -0.2 - 1e-4);  // never through the limit
  EXPECT_LT(lowest, -0.2 + 1e-4);  // and it did reach it
  // the impact was inelastic: afterwards it swings between the limit and +0.2 at most
  EXPECT_LT(highest_after, 0.2 + 1e-3);
  EXPECT_LT(max_constraint_violation(m, d), 1e-8);
}

// A row limit folded into its joint's row (SolverOptions::fold_joint_limits, docs/computation.md
// (127)) is the elimination of the limit node's γ before the rest: a three-link chain swung from
// 1.2 rad into limits of ±0.3 rad (the last joint ±0.01 rad, both sides at once; the middle one
// with dry friction on the same row), each step solved from the same state with the
// limits folded and as nodes, takes the same steps. The folded limits have no node (the graph is
// the bodies and joints alone), both solves converge at every step to the same answer (velocities
// and limit impulses within 1e-7, the solver's tolerances amplified by the chain's 3 links), and
// the joint's reported row impulse carries the folded limit's impulse (joint_impulse + the node's
// γ equals the folded joint_impulse).
TEST(JointLimits, AFoldedLimitTakesTheLimitNodesSteps) {
  Model folded = make_pendulum_chain(3, JointType::Revolute, 0.5, 1.0, 0.0, 0.01);
  for (Joint& jt : folded.joints) {
    jt.has_limits = true;
    jt.lower[5] = -0.3;
    jt.upper[5] = 0.3;
  }
  folded.joints[1].friction[5] = 2.0;  // (a limit folds into a row joint friction folded into first)
  folded.joints[2].lower[5] = -0.01;   // (both sides within reach at once: two folds on one row)
  folded.joints[2].upper[5] = 0.01;
  ASSERT_TRUE(folded.opt.solver.fold_joint_limits);
  Model nodes = folded;
  nodes.opt.solver.fold_joint_limits = false;
  Data d(folded);
  set_joint_coordinates(folded, d, 0, {0.29}, {4.0});
  set_joint_coordinates(folded, d, 1, {-0.29}, {-6.0});
  set_joint_coordinates(folded, d, 2, {0.0}, {8.0});
  int both_sides = 0;
  int limit_steps = 0, active_steps = 0;
  for (int k = 0; k < 200; ++k) {
    d.joint_force[1](5) = 30.0 * std::sin(0.1 * k);  // (keeps the chain swinging into its stops)
    Data n = d;
    ASSERT_EQ(step(nodes, n).status, StepStatus::Ok) << "step " << k;
    ASSERT_EQ(step(folded, d).status, StepStatus::Ok) << "step " << k;
    const Workspace& ws = workspace(d);
    bool any = false, active = false;
    int last_joint_sides = 0;
    for (size_t c = 0; c < d.contacts.size(); ++c) {
      if (d.contacts[c].joint < 0 || d.contacts[c].dry_limit > 0) continue;
      any = true;
      last_joint_sides += d.contacts[c].joint == 2;
      EXPECT_TRUE(d.contacts[c].folded);
      EXPECT_LT(ws.contact_node[c], 0) << "step " << k;
      ASSERT_EQ(n.contacts.size(), d.contacts.size());
      EXPECT_FALSE(n.contacts[c].folded);
      // (with friction on its row, the split of the row's load between the limit and the friction
      // is the barrier's: only their sum, the row's impulse, is the step's answer)
      if (d.contacts[c].joint != 1) {
        EXPECT_NEAR(d.contacts[c].gamma, n.contacts[c].gamma, 1e-6) << "step " << k << ", joint " << d.contacts[c].joint;
      }
      active = active || d.contacts[c].gamma > 1e-3;
    }
    if (any) {
      EXPECT_EQ(ws.layout.nodes, static_cast<int>(folded.bodies.size() + folded.joints.size())) << "step " << k;
    }
    limit_steps += any;
    active_steps += active;
    both_sides += last_joint_sides == 2;
    const std::vector<double> vf = get_qvel(folded, d), vn = get_qvel(nodes, n);
    for (size_t i = 0; i < vf.size(); ++i) EXPECT_NEAR(vf[i], vn[i], 1e-6) << "step " << k;
    // the folded joint's row impulse is the node's joint impulse plus the limit's
    for (size_t j = 0; j < folded.joints.size(); ++j) {
      double u = n.joint_impulse[j](5);
      for (const Contact& c : n.contacts)
        if (c.joint == static_cast<int>(j) && c.dry_limit == 0) u += c.side * c.gamma;
      EXPECT_NEAR(d.joint_impulse[j](5), u, 1e-6) << "step " << k << ", joint " << j;
    }
    d = n;  // (both follow the nodes' trajectory: the same problems for both)
  }
  EXPECT_GT(limit_steps, 100);  // the limits were in most steps
  EXPECT_GT(active_steps, 20);  // and held the chain in many
  EXPECT_GT(both_sides, 20);    // the narrow joint's two sides in one step
}

// A row that starts beyond its bound on a tree joint is held where it is: it may only move back
// towards its range (the pendulum starts at 0 under a lower bound of 0.2 and gravity pulls it
// outwards).
TEST(JointLimits, TreeRowBeyondItsBoundAtTheStartIsHeld) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  m.joints[0].has_limits = true;
  m.joints[0].lower[5] = 0.2;
  m.joints[0].upper[5] = 1.0;
  Data d(m);
  set_joint_coordinates(m, d, 0, {0.0}, {-1.0});
  double q = 0, qd = 0;
  for (int k = 0; k < 100; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    joint_coordinates(m, d, 0, &q, &qd);
    ASSERT_GT(q, -1e-6) << "step " << k;
  }
}

// With ModelOptions::limit_recovery_time τ the same row is moved back by Δt/τ of its violation per
// step: pressed on the moving bound by a torque of 1 000 N·m outwards (10 rad/s per step on the
// 1 kg·m² pendulum, more than the bound's motion gives it), q_k = 0.2 − 0.2 (1 − Δt/τ)^k to the
// solver's tolerance, then it rests on the bound itself. (Unpressed, it moves on into its range
// with the rate the first step gave it, v₀/τ = 5 rad/s, as a joint thrown in by a soft limit.)
TEST(JointLimits, TreeRowBeyondItsBoundRecoversAtItsRate) {
  Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
  m.joints[0].has_limits = true;
  m.joints[0].lower[5] = 0.2;
  m.joints[0].upper[5] = 1.0;
  m.opt.limit_recovery_time = 0.04;
  Data d(m);
  set_joint_coordinates(m, d, 0, {0.0}, {-1.0});
  d.joint_force[0](5) = -1000;
  double q = 0, qd = 0;
  for (int k = 1; k <= 100; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    joint_coordinates(m, d, 0, &q, &qd);
    if (k <= 10) {
      EXPECT_NEAR(q, 0.2 - 0.2 * std::pow(0.75, k), 1e-8) << "step " << k;
    }
  }
  EXPECT_NEAR(q, 0.2, 1e-8);
  // a state set by hand mid-run is a start too: put back beyond the bound, the row is pulled in
  set_qpos_qvel(m, d, std::vector<double>{0.0}, std::vector<double>{0.0});
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  joint_coordinates(m, d, 0, &q, &qd);
  EXPECT_NEAR(q, 0.05, 1e-8);
  // the option is checked
  m.opt.limit_recovery_time = -1;
  EXPECT_THROW(step(m, d), std::invalid_argument);
  EXPECT_NE(validate_model(m), "");
}

// gym's ant.xml starts with its four ankles at 0, 30° outside their ranges (30°..70°): MuJoCo's soft
// limits pull them in and it stands (torso at 0.55 m after 1 s, MuJoCo 2.2.2). As an MJCF file it
// gets limit_recovery_time 0.04 s: it stands too (measured 0.61 m: its feet stick where MuJoCo's
// soft contacts let them creep outwards), every ankle within its range; held where they start it
// lies on its torso (0.25 m).
TEST(JointLimits, MjcfFileStartingBeyondItsRangesIsPulledIn) {
  for (const bool held : {false, true}) {
    Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/gym_mujoco/ant.xml");
    EXPECT_EQ(m.opt.limit_recovery_time, 0.04);
    if (held) m.opt.limit_recovery_time = std::numeric_limits<double>::infinity();
    Data d(m);
    enable_contacts(m, d);
    const int n = static_cast<int>(std::lround(1.0 / m.opt.timestep));
    for (int k = 0; k < n; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << k;
    const double z = get_qpos(m, d)[2];
    if (held) {
      EXPECT_LT(z, 0.3);
      continue;
    }
    EXPECT_GT(z, 0.5);
    for (const Joint& jt : m.joints)
      if (jt.has_limits && jt.name.find("ankle") != std::string::npos) {
        double q, qd;
        joint_coordinates(m, d, m.joint_index(jt.name), &q, &qd);
        EXPECT_GT(q, jt.lower[5] - 1e-6) << jt.name;
        EXPECT_LT(q, jt.upper[5] + 1e-6) << jt.name;
      }
  }
}

// A row that starts beyond its bound on a joint of a closed loop has no limit until it is back in
// its range: the loop's own rows may already hold it there. Cassie's zero pose has each foot
// four-bar (foot crank, plantar rod, foot) nearly collinear, the foot at the loop's extreme, and
// the foot and crank 30° beyond their ranges; held, the foot's limit and the loop were two active
// constraints on one direction (an internal impulse of 3.3 N·s in their null space, and the
// random-PD scene failed at step 14).
TEST(JointLimits, LoopRowBeyondItsBoundAtTheStartIsReleased) {
  const Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/agility_cassie/cassie.xml");
  const std::vector<bool> loop = loop_joints(m);
  for (const char* name : {"left-foot", "left-foot-crank", "left-knee", "left-tarsus", "right-foot"})
    EXPECT_TRUE(loop[m.joint_index(name)]) << name;
  for (const char* name : {"left-hip-roll", "left-hip-yaw", "left-hip-pitch", "right-hip-pitch"})
    EXPECT_FALSE(loop[m.joint_index(name)]) << name;
  Data d(m);
  ASSERT_EQ(step(m, d).status, StepStatus::Ok);
  for (const Contact& c : d.contacts) {
    const std::string& name = m.joints[c.joint].name;
    EXPECT_TRUE(name.find("foot") == std::string::npos) << name << " row " << c.row;
  }
}

// MuJoCo's humanoid.xml falls from its standing pose and lies on the floor (Δt = 0.005, 3 s):
// penetration < 1e-3 m (measured 1.5e-6), pelvis below 0.3 m, and every step converged (measured
// 0 of 600; 3 allowed for libm differences between machines).
TEST(Contacts, HumanoidFallsAndLiesOnTheFloor) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/mujoco_models/humanoid/humanoid.xml");
  Data d(m);
  ContactOptions& co = m.opt.contact;
  co.ground = m.implicit_ground;  // the file's floor is its world (no second half-space)
  enable_contacts(m, d);
  Model model = m;
  model.opt.timestep = 0.005;
  const RunStats r = run(model, d, 600);
  EXPECT_LT(r.penetration, 1e-3);
  EXPECT_LE(r.failed, 3);
  const int pelvis = m.body_index("torso");
  ASSERT_GE(pelvis, 0);
  EXPECT_LT(d.x[pelvis].z(), 0.3);
  RecordProperty("failed_steps", r.failed);
}

// Restitution (Newton's law on the normal speed): a ball dropped from h = 1 m (its bottom) bounces
// to e² h. The impact step closes the gap at φ = 0 and the next step opens it at e v⁻, so the apex
// carries an O(Δt) error: measured 0.2505 / 0.6403 / 0.9998 m for e = 0.5 / 0.8 / 1 at
// Δt = 0.001 (bounds 5 mm), 0.9712 m for e = 1 at Δt = 0.01 (bound 5 %). e = 0 stays down (the
// default hard contact); the ball never penetrates the ground.
double bounce_apex(double e, double dt) {
  const double r = 0.1;
  Model m;
  m.add_body(sphere_body("ball", 1.0, r, Vec3(0, 0, 1.0 + r)));
  m.opt.timestep = dt;
  Data d(m);
  ContactOptions& co = m.opt.contact;
  co.restitution = e;
  enable_contacts(m, d);
  double apex = 0, pen = 0;
  bool bounced = false;
  for (int k = 0; k < static_cast<int>(std::lround(0.9 / dt)); ++k) {  // the fall takes 0.45 s
    EXPECT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    pen = std::max(pen, max_penetration(d));
    if (d.v[0].z() > 0) bounced = true;
    if (bounced) apex = std::max(apex, d.x[0].z() - r);
  }
  EXPECT_LT(pen, 1e-6);
  return apex;
}
TEST(Contacts, RestitutionBallBouncesToESquaredH) {
  EXPECT_NEAR(bounce_apex(0.8, 0.001), 0.64, 0.005);
  EXPECT_NEAR(bounce_apex(1.0, 0.001), 1.0, 0.005);
  EXPECT_NEAR(bounce_apex(0.5, 0.001), 0.25, 0.005);
  EXPECT_LT(bounce_apex(0.0, 0.001), 1e-6);
  EXPECT_NEAR(bounce_apex(1.0, 0.01), 1.0, 0.05);
}

// The A1 (URDF, 12 kg, self-collision on) dropped with zero torque: trunk at 0.4 m, legs in the
// standing pose (thigh 0.8 rad, calf −1.5 rad, feet 0.1 m above the ground). Unpowered, it lands
// on its feet, folds and comes to rest on its trunk and legs. Every step converges (measured 0 of
// 600 at Δt = 0.005 and 0 of 1200 at Δt = 0.001, up to 90 contacts), penetration stays at solver
// level (measured 1e-9 m; bound 1e-4), and after 3 s the trunk is at rest (|v| measured 2e-8 m/s).
void a1_drop(double dt, double duration, bool expect_rest) {
  Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + "/robots/a1/urdf/a1.urdf");
  m.opt.timestep = dt;
  Data d(m);
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& jt = m.joints[j];
    if (jt.type == JointType::Floating) set_joint_coordinates(m, d, static_cast<int>(j), {0, 0, 0.4, 1, 0, 0, 0}, {});
    if (jt.name.find("thigh_joint") != std::string::npos) set_joint_coordinates(m, d, static_cast<int>(j), {0.8}, {});
    if (jt.name.find("calf_joint") != std::string::npos) set_joint_coordinates(m, d, static_cast<int>(j), {-1.5}, {});
  }
  ASSERT_EQ(max_penetration(d), 0.0);
  enable_contacts(m, d);
  const int steps = static_cast<int>(std::lround(duration / dt));
  const RunStats r = run(m, d, steps);
  EXPECT_EQ(r.failed, 0) << "dt " << dt;
  EXPECT_LT(r.penetration, 1e-4);
  EXPECT_LT(max_constraint_violation(m, d), 1e-8);
  const int trunk = m.body_index("trunk");
  ASSERT_GE(trunk, 0);
  EXPECT_GT(d.x[trunk].z(), 0.03);  // on the floor, not in it
  EXPECT_LT(d.x[trunk].z(), 0.4);
  if (expect_rest) {
    EXPECT_LT(d.v[trunk].norm(), 1e-3);
    EXPECT_LT(d.w[trunk].norm(), 1e-2);
  }
}
TEST(Contacts, A1DropComesToRest) { a1_drop(0.005, 3.0, true); }
TEST(Contacts, A1DropSmallStepsThroughTheImpact) { a1_drop(0.001, 1.2, false); }

// Dry joint friction f on a rod pendulum (m g l/2 = 4.905 N·m): released at 0.3 rad (gravity
// torque 1.45 N·m) it stays put when f = 2 N·m; with f = 0.2 N·m it swings and its amplitude
// decays linearly — by 2f/(m g l/2) ≈ 0.0815 rad every half swing (small-angle Coulomb result).
TEST(JointFriction, StaysPutOrDecaysLinearly) {
  auto make = [](double f) {
    Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.005);
    m.joints[0].friction[5] = f;
    return m;
  };
  {
    const Model m = make(2.0);
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.3}, {});
    for (int k = 0; k < 400; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok);
    double q, qd;
    joint_coordinates(m, d, 0, &q, &qd);
    EXPECT_NEAR(q, 0.3, 1e-6);
    // the friction is eliminated into the hinge's row (no graph node of its own), whose impulse
    // then carries the holding torque m g (l/2) sin q over the step
    EXPECT_EQ(workspace(d).layout.nodes, 2);
    EXPECT_NEAR(std::abs(d.joint_impulse[0](5)), 9.81 * 0.5 * std::sin(0.3) * m.opt.timestep, 1e-9);
  }
  {
    const Model m = make(0.2);
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.3}, {});
    std::vector<double> extremes{0.3};
    double prev_qd = 0;
    for (int k = 0; k < 1200; ++k) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok);
      double q, qd;
      joint_coordinates(m, d, 0, &q, &qd);
      if (k > 0 && (prev_qd > 0) != (qd > 0) && std::abs(q) > 0.05) extremes.push_back(std::abs(q));
      prev_qd = qd;
    }
    ASSERT_GE(extremes.size(), 3u);
    const double expected = 2 * 0.2 / (1.0 * 9.81 * 0.5);
    for (size_t i = 1; i < 3; ++i) EXPECT_NEAR(extremes[i - 1] - extremes[i], expected, 0.1 * expected) << "half swing " << i;
  }
}

// The proximal rate of joint friction (InteriorPointOptions::joint_friction_rate,
// docs/computation.md (113)) is in the Newton matrix only: it changes the interior point's path,
// never its answer. The pendulum above, held (f = 2 N·m) and swinging through its sticking
// turns (f = 0.2 N·m), follows the same trajectory without the term, with the default and with
// a rate 300 times larger, within what the tolerances allow (the row rates converge to 1e-8 /
// Δt² at the sticking turns: 4e-4 rad/s over 0.005 s, so ~1e-6 rad over a few turns); a rate in
// the residual would move the held pendulum by ν Δt per step. A rate that is not finite and
// non-negative is refused.
TEST(JointFriction, ProximalRateChangesThePathNotTheAnswer) {
  for (const double f : {2.0, 0.2}) {
    std::vector<double> q_end;
    for (const double rate : {0.0, 3e-6, 1e-3}) {
      Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.005);
      m.joints[0].friction[5] = f;
      m.opt.interior_point.joint_friction_rate = rate;
      Data d(m);
      set_joint_coordinates(m, d, 0, {0.3}, {});
      for (int k = 0; k < 600; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "f " << f << " rate " << rate;
      double q, qd;
      joint_coordinates(m, d, 0, &q, &qd);
      q_end.push_back(q);
    }
    if (f == 2.0) EXPECT_NEAR(q_end[0], 0.3, 1e-6);
    else EXPECT_GT(std::abs(q_end[0] - 0.3), 0.1);  // it swung
    EXPECT_NEAR(q_end[1], q_end[0], 1e-6) << "f " << f;
    EXPECT_NEAR(q_end[2], q_end[0], 1e-6) << "f " << f;
  }
  for (const double bad : {-1e-6, std::numeric_limits<double>::infinity(), std::nan("")}) {
    Model m = make_pendulum_chain(1, JointType::Revolute, 1.0, 1.0, 0.0, 0.005);
    m.opt.interior_point.joint_friction_rate = bad;
    Data d(m);
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
}

// A free body under dry friction and damping on its floating joint (MJCF <joint frictionloss>
// defaults reach a free joint, as in ANYmal's menagerie file), yawed half a turn: its free
// rotation rows are measured from the previous knot (sim/constraints/joint.hpp), so the half turn, where
// rows measured from the identity are singular, is a regular step. Dropped in the air it falls
// at g (friction and damping act on relative motion to the world: the fall takes f Δt off each
// translation row; with f = 0.1 N on 1 kg: the free fall slows by 0.1 m/s²).
TEST(JointFriction, FloatingBaseHalfTurnedIsRegular) {
  Model m;
  m.add_body(box_body("base", 1.0, Vec3(0.2, 0.1, 0.05), Vec3(0, 0, 1)));
  Joint j = make_joint(m, JointType::Floating, kWorld, 0, Vec3(0, 0, 1));
  j.friction.fill(0.1);
  j.damping.fill(0.0);
  m.add_joint(j);
  m.opt.timestep = 0.01;
  Data d(m);
  set_joint_coordinates(m, d, 0, {0, 0, 1, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0.3});  // yaw π
  for (int k = 0; k < 50; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
  EXPECT_NEAR(d.v[0].z(), -(9.81 - 0.1) * 0.5, 1e-6);
}

// Geoms that overlap in the state a simulation starts from and that the joints may keep
// together are not contacts until they have separated (ContactOptions::start_overlap). A rod
// hinged to the world starts horizontal through a static box: the pair is ignored, so the rod
// swings down freely; swinging back it meets the box's underside as a hard contact and stops
// well short of the horizontal it would otherwise reach again (≈ 69° from the vertical where it
// touches; 90° without the box).
TEST(Contacts, StartOverlapOfJoinedBodiesIsIgnoredUntilItSeparates) {
  Model m;
  Body rod;
  rod.name = "rod";
  rod.mass = 1.0;
  rod.inertia = inertia_rod(1.0, 1.0);
  rod.x0 = Vec3(0, 0, -0.5);
  rod.geoms.push_back(make_geom(GeomType::Capsule, Vec3(0.05, 0.45, 0)));
  m.add_body(rod);
  m.add_joint(make_joint(m, JointType::Revolute, kWorld, 0, Vec3::Zero(), Vec3::UnitY()));
  Geom block = make_geom(GeomType::Box, Vec3(0.1, 0.2, 0.1), Vec3(0.5, 0, 0));
  m.world_geoms.push_back(block);
  m.opt.timestep = 0.005;
  Data d(m);
  set_joint_coordinates(m, d, 0, {-M_PI / 2}, {});  // rod along +x, through the block
  ContactOptions& co = m.opt.contact;
  co.ground = false;
  enable_contacts(m, d);
  double q = 0, qd = 0, max_back = 0;
  bool crossed = false;
  for (int k = 0; k < 600; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    joint_coordinates(m, d, 0, &q, &qd);
    if (q > 0.5) crossed = true;  // swung through the bottom to the other side
    if (crossed) max_back = std::max(max_back, -q);
  }
  EXPECT_TRUE(crossed);
  EXPECT_GT(max_back, 1.0);   // it came back up on the block's side ...
  EXPECT_LT(max_back, 1.30);  // ... and was stopped by the block (≈ 1.21 rad)
}

// A slider whose plate starts 0.5 mm inside the table it rides on (gym's thrower goal): its
// joints cannot lift it, so demanding the separation would be an infeasible step; the overlap is
// ignored and the plate slides under a push as if frictionless.
TEST(Contacts, SliderStartingInsideItsTableSlides) {
  Model m;
  m.add_body(box_body("plate", 1.0, Vec3(0.075, 0.075, 0.001), Vec3(0, 0, -0.0005)));
  m.add_joint(make_joint(m, JointType::Prismatic, kWorld, 0, Vec3(0, 0, -0.0005), Vec3::UnitX()));
  Geom table = make_geom(GeomType::Plane, Vec3::Zero(), Vec3(0, 0, 0.0005));
  m.world_geoms.push_back(table);
  m.opt.timestep = 0.01;
  Data d(m);
  d.joint_force[0](2) = 1.0;  // 1 N along the slide
  ContactOptions& co = m.opt.contact;
  co.ground = false;
  enable_contacts(m, d);
  for (int k = 0; k < 100; ++k) ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
  double q, qd;
  joint_coordinates(m, d, 0, &q, &qd);
  EXPECT_NEAR(qd, 1.0, 1e-6);  // a = F/m over 1 s
}

// Penetration recovery relaxes the contacts of one body pair and one normal by the depth of the
// deepest (ContactOptions::recovery_speed). A foot sphere under a thin box, the box's bottom 5 cm
// and the sphere's 7 cm in the ground (the A1 MJCF's calves start so): the sphere alone is pushed
// out, at recovery_speed, and the box's four corners stay ~2 cm above their relaxed bound instead
// of being four more active contacts on the sphere's patch (relaxed by their own depths they were:
// a rank-3 set of five normal rows, on which the A1's calves under PD slid without converging).
TEST(Contacts, RecoveryRelaxesAPairByItsDeepestPoint) {
  Model m;
  Body leg = box_body("leg", 0.5, Vec3(0.008, 0.008, 0.1), Vec3(0, 0, 0.05));
  leg.geoms.push_back(make_geom(GeomType::Sphere, Vec3(0.02, 0, 0), Vec3(0, 0, -0.1)));
  m.add_body(leg);
  m.opt.timestep = 0.002;
  Data d(m);
  ContactOptions& co = m.opt.contact;
  co.friction = 0.6;
  enable_contacts(m, d);
  const double weight = 0.5 * 9.81;
  d.body_force[0] = Vec3(0.7 * co.friction * weight, 0.0, 0.0);
  d.body_torque[0] = Vec3(0.0, 0.0, 0.05);
  for (int k = 0; k < 100; ++k) {
    const StepReport rep = step(m, d);
    ASSERT_EQ(rep.status, StepStatus::Ok) << "step " << k;
    int corners = 0, spheres = 0;
    for (const Contact& c : d.contacts) {
      const bool corner = c.core_b == c.point_b;  // (a sphere's core is its centre)
      ++(corner ? corners : spheres);
      if (corner) {
        EXPECT_GT(c.slack, 0.015) << "step " << k;  // inactive
      }
    }
    EXPECT_EQ(corners, 4) << "step " << k;
    EXPECT_EQ(spheres, 1) << "step " << k;
    // (the depth the step's search found, at its start)
    EXPECT_NEAR(max_penetration(d), 0.07 - co.recovery_speed * (d.time - m.opt.timestep), 1e-5) << "step " << k;
  }
}

// ContactOptions::hold_depth (docs/computation.md (41)): a box resting 5e-8 m inside its floor,
// shallower than the hold (3e-7 m), is held there — its first step lifts it by the central path's
// slack as it lifts any box set down (4e-8 m), and from then on it stays within 1e-11 m for 1 s,
// no deeper and never out — where without the hold it returns to the surface (round-off 1e-12 m);
// one 5e-7 m inside, deeper than the hold, is pushed out within its first step. A negative hold
// is refused.
TEST(Contacts, ShallowPenetrationIsHeldDeeperRecovered) {
  auto rest = [](double depth, double hold) {
    Model m;
    m.add_body(box_body("box", 1.0, Vec3(0.1, 0.1, 0.05), Vec3(0, 0, 0.05 - depth)));
    m.opt.timestep = 0.002;
    m.opt.contact.hold_depth = hold;
    Data d(m);
    enable_contacts(m, d);
    std::vector<double> z;  // the box's bottom after each step
    for (int k = 0; k < 500; ++k) {
      EXPECT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
      z.push_back(d.x[0].z() - 0.05);
    }
    return z;
  };
  const double hold = ContactOptions{}.hold_depth;
  ASSERT_EQ(hold, 3e-7);
  const std::vector<double> held = rest(5e-8, hold);
  for (size_t k = 0; k < held.size(); ++k) {
    EXPECT_GT(held[k], -5e-8 - 1e-9) << "step " << k;  // no deeper
    EXPECT_LT(held[k], -1e-9) << "step " << k;         // not pushed out
    EXPECT_NEAR(held[k], held[1], 1e-11) << "step " << k;
  }
  EXPECT_GT(rest(5e-8, 0.0).back(), -1e-11);  // (recovered without the hold)
  const std::vector<double> deep = rest(5e-7, hold);
  EXPECT_GT(*std::min_element(deep.begin(), deep.end()), -1e-9);
  EXPECT_GT(deep.back(), -1e-11);
  Model m;
  m.add_body(box_body("box", 1.0, Vec3(0.1, 0.1, 0.05), Vec3(0, 0, 0.05)));
  m.opt.contact.hold_depth = -3e-7;
  Data d(m);
  EXPECT_THROW(enable_contacts(m, d), std::invalid_argument);
}

// InteriorPointOptions::full_predictor_fraction (docs/computation.md (121)): τ = 0.9999 after a
// nearly full predictor takes iterations off a robot with few inequalities (gym's reacher under
// sinusoidal commands, against τ = 0.99 throughout: at least a sixth of them over 100 steps, 303 →
// 247 since the armature's momentum sets the rows' tolerance; 3.9 → 2.7 per step in the
// benchmark's pairs before) and ends within the tolerances' room of the fixed
// fraction's run (velocities within 1e-4 after 1 s); values outside [0, 1) are refused.
TEST(InteriorPointOptions, FullPredictorFractionTakesIterationsOffTheReacher) {
  const Model base = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/gym_mujoco/reacher.xml");
  int iterations[2] = {0, 0};
  std::vector<double> qvel[2];
  for (int k = 0; k < 2; ++k) {
    Model m = base;
    m.opt.interior_point.full_predictor_fraction = k ? InteriorPointOptions{}.full_predictor_fraction : 0.0;
    Data d(m);
    enable_contacts(m, d);
    for (int n = 0; n < 100; ++n) {
      for (int a = 0; a < m.nu(); ++a) d.ctrl[a] = std::sin(3.0 * d.time + 2.0 * a);
      const StepReport r = step(m, d);
      ASSERT_EQ(r.status, StepStatus::Ok);
      iterations[k] += r.iterations;
    }
    qvel[k] = get_qvel(m, d);
  }
  RecordProperty("iterations", std::to_string(iterations[0]) + " -> " + std::to_string(iterations[1]));
  EXPECT_LT(iterations[1], 5.0 / 6.0 * iterations[0]);
  for (size_t i = 0; i < qvel[0].size(); ++i) EXPECT_NEAR(qvel[1][i], qvel[0][i], 1e-4) << i;
  for (const double bad : {-0.1, 1.0, std::nan("")}) {
    Model m = base;
    m.opt.interior_point.full_predictor_fraction = bad;
    Data d(m);
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
}

// The centring scale (InteriorPointOptions::centering_scale, docs/computation.md (124)): a scale
// outside (0, 1] is refused, naming it. (Not asserted: at 0.1 a ball thrown spinning onto its
// floor ends 1.6e-6 m and 5e-4 rad/s from the default's answer, beyond what the cone weight's test
// above allows; docs/performance.md, "a lower centring target".)
TEST(Contacts, BadCentringScalesAreRefused) {
  const Model base = ball_on_the_floor(0.1, 0.5);
  for (const double bad : {0.0, -0.5, 1.5, std::nan("")}) {
    Model m = base;
    m.opt.interior_point.centering_scale = bad;
    Data d(m);
    try {
      step(m, d);
      ADD_FAILURE() << bad << " was not refused";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("centering_scale"), std::string::npos) << e.what();
    }
  }
}

namespace {

// The gym humanoid under smooth commands for 3 s (its feet and hands on and off the floor), each
// step solved from the same state under two models' options: the iterations each took, and the
// largest difference of their answers' velocities (both recorded as the test's properties,
// b → a). The trajectory is `a`'s.
struct SameStates {
  long iterations[2] = {0, 0};
  double apart = 0;
};
SameStates humanoid_on_the_same_states(const Model& a, const Model& b) {
  SameStates out;
  Data d(a);
  enable_contacts(a, d);
  for (int n = 0; n < 1000; ++n) {
    for (int k = 0; k < a.nu(); ++k) d.ctrl[k] = 0.4 * std::sin(5.0 * d.time + 1.3 * k);
    Data e = d;
    const StepReport r = step(a, d), q = step(b, e);
    EXPECT_EQ(r.status, StepStatus::Ok) << n;
    EXPECT_EQ(q.status, StepStatus::Ok) << n;
    out.iterations[0] += r.iterations;
    out.iterations[1] += q.iterations;
    const std::vector<double> v = get_qvel(a, d), w = get_qvel(b, e);
    for (size_t i = 0; i < v.size(); ++i) out.apart = std::max(out.apart, std::abs(v[i] - w[i]));
  }
  ::testing::Test::RecordProperty("iterations", std::to_string(out.iterations[1]) + " -> " + std::to_string(out.iterations[0]));
  ::testing::Test::RecordProperty("apart", std::to_string(out.apart));
  return out;
}

}  // namespace

// The convergence test weights a surface contact's friction-cone product by the cone weight w, as
// the central path does (docs/computation.md (63), (111)): on the path every pair's product is
// then κ, where the unweighted cones' were ten times the gap products and the last to pass. The
// gym humanoid under smooth commands (its feet and hands on and off the floor), each step solved
// from the same state with either test (3 s): the weighted one takes fewer iterations (measured
// 2026-12-04: 15 410 → 13 648; 10–25 % over the benchmark's robots with many contacts) and its
// answers lie within the tolerances' room of the strict one's (measured 2.3e-4 m/s apart at most).
TEST(InteriorPointOptions, WeightedConeTestTakesIterationsOffTheHumanoid) {
  Model weighted = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/gym_mujoco/humanoid.xml");
  ASSERT_TRUE(weighted.opt.interior_point.weighted_cone_test);  // (the default)
  weighted.opt.interior_point.cone_direction_tolerance = 0;  // (tested on its own below)
  // (the trajectory of the measurement: with the sticking attempt (SolverOptions::sticking_retry)
  // the run reaches a hard impact at t = 0.912 s that the strict test solves only in half steps,
  // an answer of another discretization 4 m/s apart)
  weighted.opt.solver.sticking_retry = false;
  // (and τ fixed, docs/computation.md (121): with τ → 1 the trajectory reaches other states)
  weighted.opt.interior_point.full_predictor_fraction = 0;
  // (and the conservative retry, SolverOptions::conservative_retry: without it the two tests' answers
  // part by 1.02e-3 m/s at a step one of them solves only there)
  weighted.opt.solver.conservative_retry = true;
  Model strict = weighted;
  strict.opt.interior_point.weighted_cone_test = false;
  const SameStates r = humanoid_on_the_same_states(weighted, strict);
  EXPECT_LT(r.iterations[0], 0.95 * r.iterations[1]);
  EXPECT_LT(r.apart, 1e-3);
}

// A sliding contact's cone passes the convergence test on its scalar part once its friction
// opposes the sliding within θ (InteriorPointOptions::cone_direction_tolerance, docs/computation.md
// (63)): the product's vector part measures the distance from the path's direction and falls ~20 %
// per iteration while μ falls a hundredfold. The gym humanoid under smooth commands, each step
// solved from the same state with θ = 1e-4 (the default) and θ = 0 (3 s): fewer iterations
// (measured 2026-12-04: 13 623 → 11 396) and the same answers to the room the rigid model leaves
// (its feet's four-corner loads are not unique, so the analytic centre the solve ends near moves
// with the test: measured 2.1e-3 m/s apart at most, as between other options' runs).
TEST(InteriorPointOptions, ConeDirectionTestTakesIterationsOffTheHumanoid) {
  const Model loose = load_model(std::string(MAXSIM_SOURCE_DIR) + "/tests/data/models/gym_mujoco/humanoid.xml");
  ASSERT_EQ(loose.opt.interior_point.cone_direction_tolerance, 1e-4);  // (the default)
  Model whole = loose;
  whole.opt.interior_point.cone_direction_tolerance = 0;
  const SameStates r = humanoid_on_the_same_states(loose, whole);
  EXPECT_LT(r.iterations[0], 0.9 * r.iterations[1]);
  EXPECT_LT(r.apart, 1e-2);
}

// Where the answer is unique, the direction test moves it by no more than its bound: a ball
// thrown spinning onto the floor (one contact) slides, then rolls. Each step's friction is off
// the sliding direction by at most θ, a torque impulse of at most r θ μ m g Δt about the centre;
// over the run's t = 0.4 s the spin moves by at most r θ μ m g t / I = 2.5 θ μ g t / r (I = 0.4 m
// r²), its position by θ μ g t²/2. With θ = 1e-4 against the whole test (θ = 0): measured
// 3.8e-4 rad/s and 1.2e-6 m (bounds ×2, for the two runs' errors: 5.9e-3 rad/s and 4.7e-5 m); an
// angle that is not finite and ≥ 0 is refused.
TEST(InteriorPointOptions, ConeDirectionTestMovesAUniqueAnswerWithinItsBound) {
  const double mu = 0.3, r = 0.1, g = 9.81;
  Model m = ball_on_the_floor(r, mu);
  const double theta = m.opt.interior_point.cone_direction_tolerance;
  ASSERT_GT(theta, 0);
  Vec3 end[2], spin[2];
  double t = 0;
  for (int k = 0; k < 2; ++k) {
    m.opt.interior_point.cone_direction_tolerance = k == 0 ? theta : 0.0;
    t = throw_spinning(m, &end[k], &spin[k]);
  }
  EXPECT_GT((end[0] - Vec3(0, 0, r)).norm(), 0.5);  // it went somewhere
  EXPECT_LT((spin[1] - spin[0]).norm(), 2 * 2.5 * theta * mu * g * t / r);
  EXPECT_LT((end[1] - end[0]).norm(), 2 * 0.5 * theta * mu * g * t * t);
  for (const double bad : {-1e-4, std::numeric_limits<double>::infinity(), std::nan("")}) {
    m.opt.interior_point.cone_direction_tolerance = bad;
    Data d(m);
    EXPECT_THROW(step(m, d), std::invalid_argument) << bad;
  }
}
