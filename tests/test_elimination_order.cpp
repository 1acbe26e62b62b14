// The graph LDU's elimination order is a choice of the solve, not of the physics: the default
// (candidates predicted open first, touching contacts last: SolverOptions::open_candidate_gap and
// closed_contacts_last), the depth-first post-order without them, and the bodies first
// (SolverOptions::bodies_first) — and the prototype that reuses the smooth part's factors
// (SolverOptions::reuse_iterations, every touching inequality last) — take a humanoid falling under random commands through the same
// steps to the solver's tolerance, with its contacts as exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "models/load.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"
#include "sim/state/state.hpp"
#include "sim/solver/workspace.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

struct FallRun {
  std::vector<std::vector<double>> qpos;  // after every step
  double penetration = 0;
  int not_ok = 0, flagged_steps = 0;
  int reusing_steps = 0;  // steps whose interior point reused the smooth part's factors
};

// MuJoCo's humanoid under commands redrawn every 0.05 s (seed 7): it falls from its pose and its
// limbs hit the floor, so candidates open and close.
enum class Order { PostOrder, Default, BodiesFirst, Reuse, FloatingRoot };

// fixed_fraction: τ fixed (InteriorPointOptions::full_predictor_fraction = 0), as the reused
// factorizations always step.
FallRun run_fall(Order order, int steps, bool fixed_fraction = false) {
  Model m = load_model(repo("tests/data/models/mujoco_models/humanoid/humanoid.xml"));
  if (fixed_fraction) m.opt.interior_point.full_predictor_fraction = 0;
  if (order == Order::PostOrder) {
    m.opt.solver.open_candidate_gap = -1;
    m.opt.solver.closed_contacts_last = false;
  }
  m.opt.solver.bodies_first = order == Order::BodiesFirst;
  if (order == Order::Reuse) m.opt.solver.reuse_iterations = 4;
  if (order == Order::FloatingRoot) m.opt.solver.fill_least_root = false;
  Data d(m);
  enable_contacts(m, d);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  FallRun r;
  for (int k = 0; k < steps; ++k) {
    if (k % 10 == 0)  // (every 0.05 s)
      for (double& c : d.ctrl) c = u(rng);
    const StepReport rep = step(m, d);
    if (rep.status != StepStatus::Ok) ++r.not_ok;
    r.penetration = std::max(r.penetration, max_penetration(d));
    r.qpos.push_back(get_qpos(m, d));
    const std::vector<char>& first = workspace(d).contact_first;
    if (std::find(first.begin(), first.end(), 1) != first.end()) ++r.flagged_steps;
    if (workspace(d).reuse.active && workspace(d).reuse.size > 0) ++r.reusing_steps;
  }
  return r;
}

}  // namespace

TEST(EliminationOrder, EveryOrderTakesTheSameSteps) {
  const int steps = 60;  // 0.3 s: the fall and the first touches
  const FallRun newton_post = run_fall(Order::PostOrder, steps);
  // (the reused factorizations step with τ fixed: against the post order's run with it fixed too,
  // whose answers end elsewhere within the tolerances, 7e-5 from the other run's by 0.3 s)
  const FallRun fixed_post = run_fall(Order::PostOrder, steps, true);
  for (const FallRun* p : {&newton_post, &fixed_post}) {
    ASSERT_EQ(p->not_ok, 0);
    EXPECT_EQ(p->flagged_steps, 0);
  }
  for (const Order order : {Order::Default, Order::BodiesFirst, Order::Reuse, Order::FloatingRoot}) {
    const FallRun& post = order == Order::Reuse ? fixed_post : newton_post;
    SCOPED_TRACE(order == Order::Default        ? "open first, closed last"
                 : order == Order::BodiesFirst  ? "open first, bodies first"
                 : order == Order::FloatingRoot ? "open first, closed last, the torso as the root"
                                                : "reusing the smooth part's factors");
    const FallRun r = run_fall(order, steps);
    EXPECT_EQ(r.not_ok, 0);
    EXPECT_GT(r.flagged_steps, steps / 4);  // (the option acted on the steps after the first touch)
    EXPECT_EQ(r.reusing_steps > steps / 4, order == Order::Reuse);
    // the contact contract: no deeper than the default order's run (whose deepest is the file's
    // own start pose inside the floor, pushed out at the recovery speed) plus the gap tolerance
    EXPECT_LT(r.penetration, post.penetration + 1e-9);
    // the same trajectory to the solver's tolerance: each step's impulses are determined to the
    // interior point's complementarity (1e-8 N·s·m), which moves the bodies by ~1e-6 over the fall
    // (measured 1.2e-6 m or rad); a different order that changed the physics would be off by the
    // limbs' motion, centimetres
    double diff = 0;
    for (int k = 0; k < steps; ++k)
      for (size_t i = 0; i < post.qpos[k].size(); ++i) diff = std::max(diff, std::abs(r.qpos[k][i] - post.qpos[k][i]));
    // (the reused factorizations' run, warm-started within the 1 cm match radius of
    // docs/computation.md (62), ends 5.5e-5 from its post-order run by 0.3 s: the spread the two
    // post-order runs with and without τ fixed show, 7e-5)
    EXPECT_LT(diff, order == Order::Reuse ? 1e-4 : 1e-5);
  }
}

// A floating robot's root is the body that keeps its touching contacts' fill least
// (SolverOptions::fill_least_root, docs/computation.md (126)): over the humanoid's fall, on the
// same contacts at every step, the graph rooted so has fewer fill blocks than the one rooted at
// the torso (the floating body), and the root leaves the torso once the limbs touch.
TEST(EliminationOrder, AFloatingRobotIsRootedWhereItsContactsAre) {
  Model m = load_model(repo("tests/data/models/mujoco_models/humanoid/humanoid.xml"));
  ASSERT_TRUE(m.opt.solver.fill_least_root);
  Model torso_root = m;
  torso_root.opt.solver.fill_least_root = false;
  Data d(m);
  enable_contacts(m, d);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  long fill = 0, fill_torso = 0;
  int moved = 0, fewer = 0, more = 0;
  for (int k = 0; k < 200; ++k) {
    if (k % 10 == 0)
      for (double& c : d.ctrl) c = u(rng);
    ASSERT_EQ(step(m, d).status, StepStatus::Ok) << k;
    // the graph of this step's contacts, each way
    const Workspace& ws = workspace(m, d);
    Data same = d;
    const Workspace& ws_torso = workspace(torso_root, same);
    ASSERT_EQ(ws_torso.graph_root, 0);  // (the torso: the floating body)
    fill += ws.ldu.num_fill_blocks();
    fill_torso += ws_torso.ldu.num_fill_blocks();
    moved += ws.graph_root != 0;
    fewer += ws.ldu.num_fill_blocks() < ws_torso.ldu.num_fill_blocks();
    more += ws.ldu.num_fill_blocks() > ws_torso.ldu.num_fill_blocks();
  }
  std::printf("fill blocks %ld (torso as the root: %ld); root moved at %d of 200 steps, fewer at %d, more at %d\n",
              fill, fill_torso, moved, fewer, more);
  EXPECT_GT(moved, 20);
  EXPECT_LT(static_cast<double>(fill), 0.9 * static_cast<double>(fill_torso));
}
