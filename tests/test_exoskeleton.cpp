// The arm exoskeleton (Brüdigam et al. 2023, §5.4, Fig. 14): robots/exoskeleton/exoskeleton.urdf
// (4-DoF exoskeleton + human arm + two spring-damper cuffs = two connected kinematic loops), the
// healthy and spastic patients, the rehabilitation routine under PD control
// (robots/exoskeleton/exoskeleton.hpp) and the exo_run program.
//
// What is asserted is physics: the loops hold through the routine, the cuffs carry the arm's
// weight (their forces balance gravity's moment about the shoulder ball, which carries none),
// the clinical gains stay under the 5 N·m elbow torque limit for the healthy patient and exceed it
// for the spastic one, and the checked-in tuned gains (robots/exoskeleton/gains_tuned.params) meet
// the limit for both while tracking within the bound. A routine (8 s, 8000 steps) takes ~0.3 s.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "robots/exoskeleton/exoskeleton.hpp"
#include "robots/exoskeleton/gradient.hpp"

namespace maxsim {
namespace {

const std::string kSource = MAXSIM_SOURCE_DIR;

// The model as the description says.
TEST(Exoskeleton, ModelHasTwoLoopsOfSpringDamperCuffs) {
  const exo::Exoskeleton e = exo::load_exoskeleton(kSource, exo::healthy_patient());
  const Model& m = e.model;
  EXPECT_EQ(m.bodies.size(), 6u);  // 4 exoskeleton links, upper arm, forearm (torso = world)
  EXPECT_EQ(m.joints.size(), 8u);
  // joints - bodies = independent loops
  EXPECT_EQ(static_cast<int>(m.joints.size()) - static_cast<int>(m.bodies.size()), 2);
  EXPECT_EQ(m.joints[e.shoulder].type, JointType::Spherical);
  EXPECT_EQ(m.joints[e.elbow].type, JointType::Revolute);
  for (int c : {e.cuff_upper, e.cuff_fore}) {
    const Joint& j = m.joints[c];
    EXPECT_EQ(j.type, JointType::PlanarAxis);  // two translations + one rotation
    EXPECT_EQ(j.dof(), 3);
    EXPECT_DOUBLE_EQ(j.stiffness[0], 4000);
    EXPECT_DOUBLE_EQ(j.stiffness[1], 4000);
    EXPECT_DOUBLE_EQ(j.stiffness[5], 20);
    EXPECT_DOUBLE_EQ(j.damping[0], 40);
    EXPECT_DOUBLE_EQ(j.damping[5], 0.2);
  }
  // the exoskeleton's ranges (Dojo's mechanism.jl) as limits
  const double deg = M_PI / 180;
  const std::map<int, std::pair<double, double>> ranges = {
      {e.sAA, {0, 90 * deg}}, {e.sFE, {0, 90 * deg}}, {e.sIE, {-80 * deg, 25 * deg}}, {e.eFE, {-125 * deg, 0}}};
  for (const auto& [j, r] : ranges) {
    EXPECT_TRUE(m.joints[j].has_limits) << m.joints[j].name;
    EXPECT_NEAR(m.joints[j].lower[5], r.first, 1e-12) << m.joints[j].name;
    EXPECT_NEAR(m.joints[j].upper[5], r.second, 1e-12) << m.joints[j].name;
  }
  // human segments (Winter 2009 for a 75 kg person): 2.8 % and 2.2 % of the body mass
  EXPECT_NEAR(m.bodies[e.upper_arm].mass, 0.028 * 75, 1e-9);
  EXPECT_NEAR(m.bodies[e.forearm].mass, 0.022 * 75, 1e-9);
  // the patients live in the model's elbow row
  const exo::Exoskeleton s = exo::load_exoskeleton(kSource, exo::spastic_patient());
  EXPECT_GT(s.model.joints[s.elbow].stiffness[5], 0);
  EXPECT_NEAR(s.model.joints[s.elbow].spring_ref[5], -M_PI / 2, 1e-12);
  EXPECT_EQ(m.joints[e.elbow].stiffness[5], 0);
}

// The initial state closes both loops at the routine's start pose.
TEST(Exoskeleton, InitialStateClosesTheLoops) {
  const exo::Exoskeleton e = exo::load_exoskeleton(kSource, exo::healthy_patient());
  const exo::Routine r;
  Data d(e.model);
  exo::set_initial_state(e, d, r);
  EXPECT_LT(max_constraint_violation(e.model, d), 1e-10);
  EXPECT_NEAR(row_coordinate(e.model, d, e.sFE, 5).q, r.sFE0, 1e-9);
  EXPECT_NEAR(row_coordinate(e.model, d, e.eFE, 5).q, r.eFE0, 1e-9);
  EXPECT_NEAR(row_coordinate(e.model, d, e.elbow, 5).q, r.eFE0, 1e-9);
  // the upper cuff is undeformed (the shoulder ball sits at the exoskeleton's shoulder centre);
  // the forearm cuff is displaced by the chord of the 1 cm elbow-axis misalignment turned by the
  // elbow angle, 2 sin(θ/2) · 1 cm
  double deflection = 1;
  exo::cuff_spring_force(e.model, d, e.cuff_upper, &deflection);
  EXPECT_LT(deflection, 1e-9);
  exo::cuff_spring_force(e.model, d, e.cuff_fore, &deflection);
  EXPECT_NEAR(deflection, 2 * std::sin(std::abs(r.eFE0) / 2) * 0.01, 1e-9);
}

// Clinical gains: both loops hold through the whole routine, the cuff springs carry load all the
// time, the healthy patient's elbow torque stays under 5 N·m and the spastic one's exceeds it.
TEST(Exoskeleton, ClinicalGainsHealthyWithinSpasticExceeds) {
  const exo::Routine r;
  const exo::Gains g = exo::clinical_gains();
  const exo::Summary h = exo::run_routine(exo::load_exoskeleton(kSource, exo::healthy_patient()), g, r);
  const exo::Summary s = exo::run_routine(exo::load_exoskeleton(kSource, exo::spastic_patient()), g, r);
  for (const exo::Summary* x : {&h, &s}) {
    SCOPED_TRACE(x->patient);
    EXPECT_EQ(x->steps, r.steps());
    EXPECT_EQ(x->failed_steps, 0);
    EXPECT_LT(x->max_loop_violation, 1e-6);
    EXPECT_LT(x->max_constraint_violation, 1e-6);
    EXPECT_GT(x->min_cuff_force, 1.0);        // N, at every step
    EXPECT_GT(x->max_cuff_deflection, 1e-3);  // m: the springs deflect by millimetres
    EXPECT_LT(x->max_cuff_deflection, 0.03);
    EXPECT_LT(x->max_limit_excess, 1e-6);     // the routine stays inside the exoskeleton's ranges
    EXPECT_LT(x->rms_tracking_error, 0.05);   // stiff gains track closely
  }
  EXPECT_LT(h.max_elbow_torque, exo::kComfortTorque);
  EXPECT_GT(s.max_elbow_torque, exo::kComfortTorque);
  // the elbow carries the forearm's weight: at least ~2 N·m for either patient
  EXPECT_GT(h.max_elbow_torque, 2.0);
}

// The tuned gains as checked in: under 5 N·m for both patients, tracking within the bound.
TEST(Exoskeleton, TunedGainsWithinLimitsForBothPatients) {
  const exo::Gains g = exo::read_gains(kSource + "/robots/exoskeleton/gains_tuned.params");
  const exo::Routine r;
  for (const exo::Patient& p : {exo::healthy_patient(), exo::spastic_patient()}) {
    SCOPED_TRACE(p.name);
    const exo::Summary x = exo::run_routine(exo::load_exoskeleton(kSource, p), g, r);
    EXPECT_EQ(x.failed_steps, 0);
    EXPECT_LT(x.max_loop_violation, 1e-6);
    EXPECT_LT(x.max_elbow_torque, exo::kComfortTorque);
    EXPECT_LT(x.rms_tracking_error, exo::kTrackingBound);
    EXPECT_GT(x.min_cuff_force, 1.0);
  }
}

// The cuffs carry the arm: held still with the upper arm flexed and the forearm horizontal, the
// moments about the shoulder centre of gravity on the human arm and of the two cuffs' wrenches
// on it (their row impulses mapped through the joint Jacobians) cancel — the ball joint carries
// no moment, so the whole gravity moment (~6 N·m) goes through the springs of the loops.
TEST(Exoskeleton, CuffsBalanceTheArmsWeightAboutTheShoulder) {
  const exo::Exoskeleton e = exo::load_exoskeleton(kSource, exo::healthy_patient());
  const Model& m = e.model;
  exo::Routine r;
  r.sFE0 = M_PI / 2 - 0.6;  // upper arm 34° forward
  r.eFE0 = -1.0;            // elbow flexed 57°: forearm ~horizontal
  r.shoulder_amplitude = r.elbow_amplitude = 0;
  r.duration = 3.0;
  Vec3 residual = Vec3::Constant(1e9), gravity_moment = Vec3::Zero();
  double last_rate = 1e9;
  const Joint& sh = m.joints[e.shoulder];
  auto observer = [&](const Model& mm, const Data& d) {
    if (d.time < r.duration - 0.5 * mm.opt.timestep) return;
    const Vec3 c = sh.parent_anchor;  // the shoulder centre (parent: the world)
    gravity_moment.setZero();
    for (int b : {e.upper_arm, e.forearm}) gravity_moment += (d.x[b] - c).cross(mm.bodies[b].mass * mm.opt.gravity);
    Vec3 cuffs = Vec3::Zero();
    for (int j : {e.cuff_upper, e.cuff_fore}) {
      const Joint& jt = mm.joints[j];
      JointRows rows;
      joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
      const Vec6 w = rows.Jb.transpose() * d.joint_impulse[j] / mm.opt.timestep;  // (world force, body torque) on the arm
      const int b = jt.child;
      cuffs += (d.x[b] - c).cross(Vec3(w.head<3>())) + quat_to_rot(d.q[b]) * Vec3(w.tail<3>());
    }
    residual = gravity_moment + cuffs;
    last_rate = d.w[e.forearm].norm() + d.v[e.forearm].norm();
  };
  const exo::Summary s = exo::run_routine(e, exo::clinical_gains(), r, nullptr, observer);
  ASSERT_EQ(s.failed_steps, 0);
  EXPECT_LT(last_rate, 1e-3);                  // at rest
  EXPECT_GT(gravity_moment.norm(), 4.0);       // N·m
  EXPECT_LT(residual.norm(), 1e-3 * gravity_moment.norm()) << residual.transpose();
}

// The exoskeleton's ranges are inequality constraints: the PD driving sAA 0.3 rad past its
// adduction stop (the arm into the trunk) and eFE past full extension leaves both joints on their
// limits (within solver tolerance), with the loops still closed.
TEST(Exoskeleton, JointLimitsStopTheMotors) {
  const exo::Exoskeleton e = exo::load_exoskeleton(kSource, exo::healthy_patient());
  const Model& m = e.model;
  const exo::Routine start;  // the usual start pose, inside the ranges
  exo::Routine push = start;
  push.sAA = M_PI / 2 + 0.3;     // reference 0.3 rad past the sAA stop
  push.shoulder_amplitude = 0;
  push.elbow_amplitude = -0.6;   // the eFE reference rises from -0.1 to +0.5 rad (past 0)
  Data d(m);
  exo::set_initial_state(e, d, start);
  set_controller(d, std::make_shared<exo::ExoController>(e, exo::clinical_gains(), push));
  double max_saa = -1e9, max_efe = -1e9, max_loop = 0;
  for (int k = 0; k < 1500; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    max_saa = std::max(max_saa, row_coordinate(m, d, e.sAA, 5).q);
    max_efe = std::max(max_efe, row_coordinate(m, d, e.eFE, 5).q);
    max_loop = std::max({max_loop, exo::joint_violation(m, d, e.cuff_upper), exo::joint_violation(m, d, e.cuff_fore)});
  }
  EXPECT_LT(max_loop, 1e-6);
  EXPECT_NEAR(max_saa, M_PI / 2, 1e-6);  // pressed onto the stops, not through them
  EXPECT_NEAR(max_efe, 0.0, 1e-6);
  EXPECT_NEAR(row_coordinate(m, d, e.sAA, 5).q, M_PI / 2, 1e-6);  // and resting there
}

// exo_run: the JSON summary is the last line; bad options exit with status 2.
struct ExoRun {
  int status = -1;
  std::string out;
};
ExoRun run_exo(const std::string& args) {
  const std::string cmd = std::string(MAXSIM_BINARY_DIR) + "/exo_run " + args + " 2>/dev/null";
  ExoRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) r.out += buf;
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(Exoskeleton, ExoRunPrintsJsonAndRefusesBadOptions) {
  if (!std::filesystem::exists(std::string(MAXSIM_BINARY_DIR) + "/exo_run")) GTEST_SKIP() << "exo_run not built";
  const ExoRun ok = run_exo("--patient spastic");
  EXPECT_EQ(ok.status, 0);
  std::string last = ok.out.substr(0, ok.out.size() - 1);
  last = last.substr(last.rfind('\n') + 1);
  EXPECT_EQ(last.front(), '{');
  EXPECT_EQ(last.back(), '}');
  for (const char* key : {"\"max_elbow_torque_nm\"", "\"rms_tracking_error_rad\"", "\"max_loop_violation\"",
                          "\"failed_steps\": 0"})
    EXPECT_NE(last.find(key), std::string::npos) << key << " in " << last;
  EXPECT_EQ(run_exo("").status, 2);                              // --patient is required
  EXPECT_EQ(run_exo("--patient elderly").status, 2);             // unknown patient
  EXPECT_EQ(run_exo("--patient healthy --gains").status, 2);     // missing value
  EXPECT_EQ(run_exo("--patient healthy --gains /nonexistent.params").status, 2);
  EXPECT_EQ(run_exo("--patient healthy --speed 2").status, 2);   // unknown option
  EXPECT_EQ(run_exo("--patient healthy --every 0").status, 2);
}

// The gains objective's gradient through the two routines (robots/exoskeleton/gradient.hpp) at the
// clinical gains over the routine's first 1.5 s, which hold the spastic patient's elbow torque
// peak (6.1 N·m at 1.33 s), penalized: against central differences of the objective (relative
// steps 1e-4) to 1e-2 of the gradient's norm (measured 4e-4: the elbow gains' components to 1e-3,
// the shoulder's, 1e-3 of the norm, to 40 % — the rollout steps plainly, its states carrying the
// interval's chord velocities that (qpos, qvel) does not, docs/computation.md §17; the full 8 s
// routine measures the same). Every step is differentiated implicitly.
TEST(ExoskeletonGradient, MatchesFiniteDifferencesOfTheObjective) {
  const exo::Exoskeleton h = exo::load_exoskeleton(kSource, exo::healthy_patient());
  const exo::Exoskeleton s = exo::load_exoskeleton(kSource, exo::spastic_patient());
  exo::Routine r;
  r.duration = 1.5;
  const exo::Gains g = exo::clinical_gains();
  const exo::GainsGradient G = exo::gains_gradient(h, s, g, r);
  ASSERT_GT(G.spastic.max_elbow_torque, exo::kTorqueTarget);  // the penalty's term is in the gradient
  EXPECT_EQ(G.steps, 2 * r.steps());
  EXPECT_EQ(G.implicit_steps, G.steps);
  const exo::GainsObjective objective{&h, &s, r};
  const std::vector<double> p = {g.shoulder_kp, g.shoulder_kd, g.elbow_kp, g.elbow_kd};
  EXPECT_DOUBLE_EQ(G.value, objective(p));
  double diff2 = 0, norm2 = 0;
  for (int i = 0; i < 4; ++i) {
    std::vector<double> a = p, b = p;
    const double step = 1e-4 * p[i];
    a[i] += step;
    b[i] -= step;
    const double fd = (objective(a) - objective(b)) / (2 * step);
    diff2 += (G.gradient[i] - fd) * (G.gradient[i] - fd);
    norm2 += fd * fd;
    if (i >= 2) {
      EXPECT_NEAR(G.gradient[i], fd, 1e-2 * std::abs(fd)) << i;
    }
  }
  EXPECT_LT(std::sqrt(diff2), 1e-2 * std::sqrt(norm2));
}

// Gradient ascent on a 0.5 s routine from the clinical gains: each accepted step raises the
// objective (Armijo's condition), so the history never falls, and two gradients raise it.
TEST(ExoskeletonGradient, SearchRaisesTheObjective) {
  const exo::Exoskeleton h = exo::load_exoskeleton(kSource, exo::healthy_patient());
  const exo::Exoskeleton s = exo::load_exoskeleton(kSource, exo::spastic_patient());
  exo::Routine r;
  r.duration = 0.5;
  const exo::GradientSearchResult res = exo::gradient_search(h, s, exo::clinical_gains(), 2, r);
  ASSERT_GE(res.history.size(), 2u);
  for (size_t k = 1; k < res.history.size(); ++k) EXPECT_GE(res.history[k], res.history[k - 1]);
  EXPECT_GT(res.best_value, res.history.front());
  EXPECT_GE(res.evaluations, res.gradients - 1);
  const exo::GainsObjective objective{&h, &s, r};
  EXPECT_DOUBLE_EQ(objective({res.best.shoulder_kp, res.best.shoulder_kd, res.best.elbow_kp, res.best.elbow_kd}),
                   res.best_value);
}

}  // namespace
}  // namespace maxsim
