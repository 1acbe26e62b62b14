// Redundant equality sets (a weld on top of a hinge, a connect on top of a locked chain): rows
// that are linearly dependent but consistent are part of the method (the LDU's regularized pivots,
// docs/computation.md (51)), so such a chain converges in Newton's few iterations, exactly, without
// the failure policy's compliant fallback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/load.hpp"
#include "sim/maxsim.hpp"

using namespace maxsim;

namespace {

std::string repo(const std::string& rel) { return std::string(MAXSIM_SOURCE_DIR) + "/" + rel; }

// 2 s under motor commands that switch every 0.1 s between ±20 N·m: the locked chain must not
// move (its equalities hold it against gravity and the motors), and every step converges exactly.
void holds_still(const std::string& file) {
  SCOPED_TRACE(file);
  const Model m = load_model(repo(file));
  ASSERT_EQ(m.nu(), 2);
  Data d(m);
  const std::vector<Vec3> x0 = d.x;
  int worst_iterations = 0;
  double drift = 0, violation = 0;
  for (int k = 0; k < 1000; ++k) {
    const int period = static_cast<int>(d.time / 0.1);
    d.ctrl = {period % 2 ? 20.0 : -20.0, period % 3 ? -15.0 : 10.0};
    const StepReport r = step(m, d);
    ASSERT_EQ(r.status, StepStatus::Ok) << "step " << k;
    ASSERT_FALSE(r.relaxed) << "step " << k;
    ASSERT_FALSE(r.substeps) << "step " << k;
    worst_iterations = std::max(worst_iterations, r.iterations);
    violation = std::max(violation, max_constraint_violation(m, d));
    for (size_t i = 0; i < x0.size(); ++i) drift = std::max(drift, (d.x[i] - x0[i]).norm());
  }
  EXPECT_LE(worst_iterations, 5);  // Newton's method: quadratic convergence from the warm start
  EXPECT_LT(violation, 1e-8);      // the loop contract
  EXPECT_LT(drift, 1e-8);          // locked: the motors and gravity do not move it
}

}  // namespace

TEST(RedundantEqualities, WeldOnAHingeAndAConnectLockAChain) { holds_still("tests/data/equality/weld_connect_chain.xml"); }

TEST(RedundantEqualities, WeldBetweenLinksAndAConnectLockAChain) {
  holds_still("tests/data/equality/weld_connect_links.xml");
}
