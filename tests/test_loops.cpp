// Kinematic loops: no drift (Brüdigam et al. 2023, Fig. 7a), redundant constraints (planar loops
// in 3D), and chains of loop segments (their Fig. 9a).
#include <gtest/gtest.h>

#include <cmath>

#include "mechanisms/builders.hpp"
#include "models/load.hpp"
#include "sim/maxsim.hpp"
#include "sim/solver/workspace.hpp"

using namespace maxsim;

// The three-link loop of Brüdigam et al. (2023), Fig. 7a (a parallelogram closed by the world),
// released at 30°. The loop constraints are imposed on the next configuration and solved to
// 1e-10, so the violation stays below 1e-8 for all 10 000 steps.
TEST(Loops, ThreeLinkLoopDoesNotDrift) {
  Model m = make_three_link_loop(0.01);
  Data d(m);
  const double a = M_PI / 6;
  set_coordinates(m, d, {{a}, {-a}, {a}, {}}, {{}, {}, {}, {}});
  ASSERT_TRUE(project_state(m, d).converged);
  EXPECT_LT(max_constraint_violation(m, d), 1e-10);
  const double e0 = total_energy(m, d);
  double worst = 0;
  for (int k = 0; k < 10000; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    worst = std::max(worst, max_constraint_violation(m, d));
  }
  EXPECT_LT(worst, 1e-8);
  // it keeps swinging with bounded energy error (energy scale: m g l ≈ 10 J)
  EXPECT_LT(std::abs(total_energy(m, d) - e0), 0.1);
  RecordProperty("max_violation", std::to_string(worst));
}

// A planar crank-rocker of revolute joints in 3D: 3 of its loop equations are redundant. The
// regularized Newton matrix keeps it solvable and the violation at solver tolerance for 10 s.
TEST(Loops, PlanarFourbarWithRedundantConstraints) {
  Model m = make_fourbar(0.01);
  Data d(m);
  set_joint_coordinates(m, d, 1, {0.0}, {2.0});  // crank spinning at 2 rad/s
  ASSERT_TRUE(project_state(m, d).converged);
  double worst = 0;
  for (int k = 0; k < 1000; ++k) {
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << "step " << k;
    worst = std::max(worst, max_constraint_violation(m, d));
  }
  EXPECT_LT(worst, 1e-8);
  // the crank actually moved (gravity and the initial rate drive it)
  double q, qd;
  joint_coordinates(m, d, 1, &q, &qd);
  EXPECT_GT(std::abs(q) + std::abs(qd), 0.1);
}

// Chains of four-link loop segments stay on their constraints; the loop count is what the graph
// search reports.
TEST(Loops, LoopChainSegments) {
  for (int segments : {1, 3, 8}) {
    Model m = make_loop_chain(segments, 0.01);
    Data d(m);
    EXPECT_EQ(workspace(m, d).ldu.num_loops(), segments - 1);  // the first loop closes through the world, which is no graph node
    set_joint_coordinates(m, d, 0, {0.3}, {});
    ASSERT_TRUE(project_state(m, d).converged);
    double worst = 0;
    for (int k = 0; k < 300; ++k) {
      ASSERT_EQ(step(m, d).status, StepStatus::Ok) << segments << " segments, step " << k;
      worst = std::max(worst, max_constraint_violation(m, d));
    }
    EXPECT_LT(worst, 1e-8) << segments << " segments";
  }
}

// IFToMM benchmark A02: 40 four-bars in a row (81 rods of 1 m, 1 kg), started upright with the
// tip B0 of the first crank at 1 m/s. Every crank turns alike, θ̈ = c sin θ with
// c = g ((N+1)/2 + N) / ((N+1)/3 + N) (the cranks' and the translating couplers' energy); at every
// horizontal pass each loop's rows lose rank and the chain could fold onto the other branch.
namespace {
struct ChainRun {
  int not_ok = 0;
  // largest |θ_i − θ_0| over the cranks and the steps: 0 on the branch, up to ~1e-5 rad at a flat
  // pass (rows held to 1e-9 m along a direction whose singular value is ~1e-4), radians on the other
  double branch = 0;
  double b0_error = 0; // largest distance of B0 from the reference [m]
  double energy = 0;   // largest |E − E0| [J]
};

ChainRun run_fourbar_chain(int n, double dt, Integrator integrator, double seconds, double tolerance) {
  Model m = make_fourbar_chain(n, dt);
  m.opt.integrator = integrator;
  m.opt.solver.tolerance = tolerance;
  Data d(m);
  std::vector<std::vector<double>> q(m.joints.size()), qd(m.joints.size());
  std::vector<int> cranks;
  for (size_t j = 0; j < m.joints.size(); ++j) {
    // the cranks turn at 1 rad/s; each coupler translates (−1 on its crank, +1 to the next)
    const std::string& name = m.joints[j].name;
    qd[j] = {name[0] == 'B' ? -1.0 : 1.0};
    if (name[0] == 'A') cranks.push_back(static_cast<int>(j));
  }
  set_coordinates(m, d, q, qd);
  EXPECT_TRUE(project_state(m, d).converged);
  const double e0 = total_energy(m, d);
  const double c = 9.81 * ((n + 1) / 2.0 + n) / ((n + 1) / 3.0 + n);
  double th = 0, om = 1;  // the reference, RK4 at Δt/50
  auto rk4 = [c](double& x, double& v, double h) {
    const double k1x = v, k1v = c * std::sin(x);
    const double k2x = v + h / 2 * k1v, k2v = c * std::sin(x + h / 2 * k1x);
    const double k3x = v + h / 2 * k2v, k3v = c * std::sin(x + h / 2 * k2x);
    const double k4x = v + h * k3v, k4v = c * std::sin(x + h * k3x);
    x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  };
  ChainRun r;
  const int steps = static_cast<int>(std::lround(seconds / dt));
  for (int k = 0; k < steps; ++k) {
    if (step(m, d).status != StepStatus::Ok) ++r.not_ok;
    for (int s = 0; s < 50; ++s) rk4(th, om, dt / 50);
    double q0, qd0;
    joint_coordinates(m, d, cranks[0], &q0, &qd0);
    for (int j : cranks) {
      double qj, qdj;
      joint_coordinates(m, d, j, &qj, &qdj);
      r.branch = std::max(r.branch, std::abs(qj - q0));
    }
    r.b0_error = std::max(r.b0_error, std::hypot(std::sin(q0) - std::sin(th), std::cos(q0) - std::cos(th)));
    r.energy = std::max(r.energy, std::abs(total_energy(m, d) - e0));
  }
  return r;
}
}  // namespace

// The variational step keeps the branch through the 26 flat passes of 20 s at Δt = 0.01 s
// (docs/computation.md (106): from the velocities held, Newton's first correction took the
// chain onto the other branch at t ≈ 5.2 s, with failed steps after). It runs ahead of the
// reference in phase, a first-order error: B0 0.69 m off after 20 s (0.34 m at Δt = 0.005 s).
TEST(Loops, FourBarChainKeepsItsBranchVariational) {
  const ChainRun r = run_fourbar_chain(40, 0.01, Integrator::Variational, 20.0, 1e-9);
  EXPECT_EQ(r.not_ok, 0);
  EXPECT_LT(r.branch, 1e-3);
  RecordProperty("b0_error", std::to_string(r.b0_error));
}

// The energy–momentum step: IFToMM's A02 within 0.1 m at Δt = 0.01 s, its energy at solver
// tolerance through the passes (1e-6 of 620 J; measured 5e-5 J).
TEST(Loops, FourBarChainMatchesItsReferenceEnergyMomentum) {
  const ChainRun r = run_fourbar_chain(40, 0.01, Integrator::EnergyMomentum, 20.0, 1e-9);
  EXPECT_EQ(r.not_ok, 0);
  EXPECT_LT(r.branch, 1e-3);
  EXPECT_LT(r.b0_error, 0.1);
  EXPECT_LT(r.energy, 620.34 * 1e-6);
  RecordProperty("b0_error", std::to_string(r.b0_error));
}

// The Newmark step (trapezoidal) keeps the branch too, with no failed step, its knots on the
// rows at all three levels (the projections (109) on the loops' redundant rows are the regularized
// graph LDU's). B0 0.157 m off at Δt = 0.01 s (0.165 m at 0.005 s, 2.7e-3 m at 0.0025 s) with
// 1.7 J of 620 lost: the projections at the flat passes take energy out.
TEST(Loops, FourBarChainNewmark) {
  const ChainRun r = run_fourbar_chain(40, 0.01, Integrator::Newmark, 20.0, 1e-9);
  EXPECT_EQ(r.not_ok, 0);
  EXPECT_LT(r.branch, 1e-3);
  EXPECT_LT(r.b0_error, 0.2);
  RecordProperty("b0_error", std::to_string(r.b0_error));
}

// ... and within IFToMM's high precision, 1e-3 m, at Δt = 0.001 s with the solver tolerance at
// 1e-11 (measured 1.2e-4 m; at 1e-9 the passes' stalled iterates lose 0.1 J over 20 s and B0 ends
// 2e-2 m behind). 20 000 steps of 81 bodies: left out of the sanitizer run.
TEST(Loops, FourBarChainHighPrecisionEnergyMomentum) {
  const ChainRun r = run_fourbar_chain(40, 0.001, Integrator::EnergyMomentum, 20.0, 1e-11);
  EXPECT_EQ(r.not_ok, 0);
  EXPECT_LT(r.branch, 1e-3);
  EXPECT_LT(r.b0_error, 1e-3);
  RecordProperty("b0_error", std::to_string(r.b0_error));
}

namespace {

// The largest rate of a joint's constrained rows (equality rows: the loops' closures among them).
double constrained_row_rate(const Model& m, const Data& d) {
  double worst = 0;
  for (const Joint& jt : m.joints) {
    JointRows rows;
    const Pose a = jt.parent == kWorld ? Pose{} : Pose{d.x[jt.parent], d.q[jt.parent]};
    joint_rows(jt, a, Pose{d.x[jt.child], d.q[jt.child]}, &rows);
    Vec6 rate = rows.Jb * (Vec6() << d.v[jt.child], d.w[jt.child]).finished();
    if (jt.parent != kWorld) rate += rows.Ja * (Vec6() << d.v[jt.parent], d.w[jt.parent]).finished();
    for (int r = 0; r < 6; ++r)
      if (jt.row_constrained(r)) worst = std::max(worst, std::abs(rate(r)));
  }
  return worst;
}

}  // namespace

// Placing a state on loops closed by equality rows projects its velocities with the bodies
// eliminated first (Workspace::velocity_ldu). After a step the workspace holds inequality nodes
// (contacts, limits) that the projection leaves out: their zero blocks are regularized at the
// size the step factored them, which the bodies-first factorization must share (it kept them at
// six rows and failed on every placed state with an inequality, leaving the rates as given).
// Cassie on its floor (rods closing each leg) and the exoskeleton (cuffs closing two loops, joint
// limits): rates pushed off the loops' tangent come back onto it, the constrained rows' rates
// ~1e-9 of rates of order 1 (round-off amplified by the loops' redundant rows), and the projection
// reports convergence.
TEST(Loops, PlacedVelocitiesFollowTheLoops) {
  for (const char* file : {"/tests/data/models/agility_cassie/scene.xml", "/robots/exoskeleton/exoskeleton.urdf"}) {
    SCOPED_TRACE(file);
    const Model m = load_model(std::string(MAXSIM_SOURCE_DIR) + file);
    Data d(m);
    enable_contacts(m, d);
    for (int i = 0; i < 100; ++i) {
      for (int a = 0; a < m.nu(); ++a) d.ctrl[a] = 0.5 * std::sin(10.0 * d.time + a);
      ASSERT_NE(step(m, d).status, StepStatus::Failed);
    }
    ASSERT_GT(d.contacts.size(), 0u);  // (the workspace has inequality nodes)
    std::vector<double> v = get_qvel(m, d);
    for (size_t k = 0; k < v.size(); ++k) v[k] += 0.5 * std::cos(1.0 + k);  // off the loops' tangent
    set_qpos_qvel(m, d, get_qpos(m, d), v);
    const double rate = constrained_row_rate(m, d);
    RecordProperty("constrained row rate", std::to_string(rate));
    EXPECT_LT(rate, 1e-8);
    EXPECT_TRUE(project_state(m, d).converged);
  }
}
