// Andrews' squeezing mechanism (Hairer & Wanner 1996, §VII.7; the Test Set for IVP Solvers'
// "andrews" problem): seven bodies closed by three <equality connect> at a triple joint, a spring
// between a site of K3 and a fixed site, a driving torque on the crank. The published reference:
// the crank angle β(0.03 s) = 15.81077119629904 rad from the consistent initial state at rest.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "models/load.hpp"
#include "sim/maxsim.hpp"
#include "sim/tendon/spatial.hpp"

using namespace maxsim;

namespace {

constexpr double kBeta0 = -0.0617138900142764496358948458001;  // published initial crank angle
constexpr double kBetaRef = 15.81077119629904;                   // β(0.03 s), Mazzia & Magherini
constexpr double kStiffness = 4530, kRestLength = 0.07785, kTorque = 0.033;

std::string file() { return std::string(MAXSIM_SOURCE_DIR) + "/tests/data/tendon/andrews_squeezer.xml"; }

int site_index(const Model& m, const std::string& name) {
  for (size_t i = 0; i < m.sites.size(); ++i)
    if (m.sites[i].name == name) return static_cast<int>(i);
  return -1;
}

// The crank's angle β, unwrapped from K1's orientation (a rotation about z) step by step.
struct CrankAngle {
  int body;
  double beta = kBeta0;
  void update(const Data& d) {
    const Vec4& q = d.q[body];
    const double a = 2 * std::atan2(q(3), q(0));
    beta += std::remainder(a - beta, 2 * M_PI);
  }
};

// β(0.03 s) with the spring applied by `spring` (a controller, or nothing when the model's own
// tendon does it), and the largest loop violation on the way.
double run(const Model& m, Data& d, double* violation) {
  CrankAngle crank{m.body_index("K1")};
  const int steps = static_cast<int>(std::lround(0.03 / m.opt.timestep));
  *violation = 0;
  for (int k = 0; k < steps; ++k) {
    const StepReport r = step(m, d);
    EXPECT_EQ(r.status, StepStatus::Ok) << "step " << k;
    if (r.status != StepStatus::Ok) break;
    crank.update(d);
    *violation = std::max(*violation, max_constraint_violation(m, d));
  }
  return crank.beta;
}

}  // namespace

// The spring as an explicit force through spatial_tendon_length: −c0 (L − l0) ∇L applied to the
// bodies at the start of every step (first order in Δt: the error halves with Δt). Validates
// the file's geometry, masses and initial state against the published solution.
TEST(AndrewsSqueezer, SpringThroughTheTendonGradientReachesThePublishedCrankAngle) {
  Model m = load_model(file());
  ASSERT_EQ(m.bodies.size(), 7u);
  const int D = site_index(m, "D"), C = site_index(m, "C");
  ASSERT_GE(D, 0);
  ASSERT_GE(C, 0);
  Tendon spring;
  spring.kind = Tendon::Kind::Spatial;
  spring.name = "spring";
  for (int s : {D, C}) {
    TendonPathElement e;
    e.site = s;
    spring.path.push_back(e);
  }
  ASSERT_EQ(validate_spatial_tendon(m, spring), "");
  // the published initial spring length, from the book's D and C
  {
    const double g = 0.455279819163070380255912382449;
    const Vec3 d(-0.03635 + 0.02 * std::cos(g) + 0.018 * std::sin(g), 0.03273 + 0.02 * std::sin(g) - 0.018 * std::cos(g), 0);
    EXPECT_NEAR(spatial_tendon_length(m, spring, zero_poses(m), nullptr), (d - Vec3(0.014, 0.072, 0)).norm(), 1e-15);
  }
  const int mom = m.actuator_index("mom");
  ASSERT_GE(mom, 0);

  double previous_error = 0, previous_beta = 0;
  for (double dt : {2e-6, 1e-6}) {
    m.opt.timestep = dt;
    m.opt.solver.tolerance = 1e-12;
    Data d(m);
    d.ctrl[mom] = kTorque;
    std::vector<Pose> poses(m.bodies.size());
    std::vector<std::pair<int, Vec6>> gradient;
    d.controller = [&](const Model& model, Data& data) {
      for (size_t b = 0; b < poses.size(); ++b) poses[b] = Pose{data.x[b], data.q[b]};
      const double L = spatial_tendon_length(model, spring, poses, &gradient);
      const double tension = kStiffness * (L - kRestLength);
      for (size_t b = 0; b < poses.size(); ++b) {
        data.body_force[b].setZero();
        data.body_torque[b].setZero();
      }
      for (const auto& [b, g] : gradient) {
        data.body_force[b] -= tension * g.head<3>();
        data.body_torque[b] -= tension * g.tail<3>();
      }
    };
    double violation;
    const double beta = run(m, d, &violation);
    const double error = beta - kBetaRef;
    std::printf("dt = %g s: beta(0.03) = %.10f, error %.3e rad, loop violation %.1e m\n", dt, beta, error, violation);
    EXPECT_LT(violation, 1e-10);
    if (previous_error != 0) {
      EXPECT_NEAR(error / previous_error, 0.5, 0.05) << "first order in dt";
      // Richardson's extrapolation removes the O(Δt) term: what is left is the model's own error
      // (measured 1.2e-5 rad)
      EXPECT_NEAR(2 * beta - previous_beta, kBetaRef, 5e-5);
    }
    previous_error = error;
    previous_beta = beta;
  }
  EXPECT_LT(std::abs(previous_error), 1e-3);  // measured 5.7e-4 rad at Δt = 1e-6 s
}
