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
  m.tendons.clear();  // the spring is applied by hand here, not by the file's tendon
  const int D = m.site_index("D"), C = m.site_index("C");
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

// The same through the file alone: the <spatial> tendon's spring and the motor (keyframe
// "driven" sets its command) in the step.
TEST(AndrewsSqueezer, FileTendonSpringReachesThePublishedCrankAngle) {
  Model m = load_model(file());
  ASSERT_EQ(m.tendons.size(), 1u);
  // (first order in Δt as the explicit spring above: 1.1e-3 rad at 2e-6 s, 5.7e-4 at 1e-6 s)
  m.opt.timestep = 1e-6;
  m.opt.solver.tolerance = 1e-12;
  Data d(m);
  reset_data(m, d, m.keyframe_index("driven"));
  ASSERT_DOUBLE_EQ(d.ctrl[m.actuator_index("mom")], kTorque);
  double violation;
  const double beta = run(m, d, &violation);
  std::printf("beta(0.03) = %.10f, error %.3e rad, loop violation %.1e m\n", beta, beta - kBetaRef, violation);
  EXPECT_NEAR(beta, kBetaRef, 1e-3);
  EXPECT_LT(violation, 1e-10);
}

// The file's sites where the book puts them, in the bodies' CoM frames.
TEST(AndrewsSqueezer, SitesAreLoadedInTheirBodies) {
  const Model m = load_model(file());
  const int D = m.site_index("D"), C = m.site_index("C");
  ASSERT_GE(D, 0);
  ASSERT_GE(C, 0);
  EXPECT_EQ(m.sites[C].body, kWorld);
  EXPECT_NEAR((m.sites[C].pos - Vec3(0.014, 0.072, 0)).norm(), 0, 1e-15);
  EXPECT_EQ(m.sites[D].body, m.body_index("K3"));
  // D at (sd, −sc) from B in K3's frame, the CoM at (sb, −sa)
  const Vec3 local = Vec3(0.02, -0.018, 0) - Vec3(0.01043, -0.01874, 0);
  EXPECT_NEAR((m.sites[D].pos - local).norm(), 0, 1e-15);
}

// Sites in <frame>s, in bodies merged into their parent (no joint) and in static bodies, with
// their orientation: placed where MuJoCo places them at qpos0.
TEST(MjcfSites, AreFixedWhereTheFilePutsThem) {
  const std::string path = std::string(MAXSIM_BINARY_DIR) + "/mjcf_sites.xml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(R"(<mujoco>
  <compiler angle="degree"/>
  <worldbody>
    <body name="static" pos="0 0 1" euler="0 0 90">
      <site name="s_static" pos="1 0 0"/>
    </body>
    <body name="arm" pos="0 0 2" euler="90 0 0">
      <joint type="hinge" axis="0 0 1"/>
      <geom type="sphere" size="0.1" pos="0.5 0 0" mass="1"/>
      <frame pos="0 1 0" euler="0 0 90">
        <site name="s_frame" pos="1 0 0" euler="0 90 0"/>
      </frame>
      <body name="welded" pos="1 0 0">
        <geom type="sphere" size="0.1" mass="1"/>
        <site name="s_welded" pos="0 0 1"/>
      </body>
    </body>
  </worldbody>
</mujoco>)", f);
    std::fclose(f);
  }
  const Model m = load_model(path);
  auto world = [&](const std::string& name) {
    for (const Site& s : m.sites)
      if (s.name == name) {
        if (s.body == kWorld) return std::make_pair(s.pos, s.quat);
        const Body& b = m.bodies[s.body];
        return std::make_pair(Vec3(b.x0 + quat_to_rot(b.q0) * s.pos), quat_mul(b.q0, s.quat));
      }
    ADD_FAILURE() << "no site " << name;
    return std::make_pair(Vec3(Vec3::Zero()), quat_identity());
  };
  ASSERT_EQ(m.sites.size(), 3u);
  EXPECT_EQ(m.sites[0].body, kWorld);                       // the static body is the world's
  EXPECT_NEAR((world("s_static").first - Vec3(0, 1, 1)).norm(), 0, 1e-15);
  // arm: rotated 90° about x (its y is the world's z); the frame's (0, 1, 0) is world (0, 0, 1)
  // above the arm, the frame turned 90° about z, so the site's (1, 0, 0) is the arm's y: world z
  EXPECT_NEAR((world("s_frame").first - Vec3(0, 0, 4)).norm(), 0, 1e-14);
  const Vec4 expected = quat_mul(quat_mul(quat_axis_angle(Vec3::UnitX(), M_PI / 2), quat_axis_angle(Vec3::UnitZ(), M_PI / 2)),
                                 quat_axis_angle(Vec3::UnitY(), M_PI / 2));
  EXPECT_NEAR(std::abs(world("s_frame").second.dot(expected)), 1, 1e-14);
  // the welded body is merged into the arm: its site rides on the arm; its z is the world's −y
  EXPECT_EQ(m.bodies.size(), 1u);
  EXPECT_EQ(m.sites[2].body, 0);
  EXPECT_NEAR((world("s_welded").first - Vec3(1, -1, 2)).norm(), 0, 1e-14);
}
