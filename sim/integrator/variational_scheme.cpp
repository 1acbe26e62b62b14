// The variational step (Brüdigam et al. 2023): each body's discrete Euler–Lagrange rows with the
// velocities over [t2, t3] as unknowns; constraint impulses act through their maps at z2.
#include "sim/integrator/body_dynamics.hpp"
#include "sim/integrator/integrator.hpp"

namespace maxsim {

namespace {

class VariationalScheme final : public IntegratorScheme {
 public:
  Integrator kind() const override { return Integrator::Variational; }

  Vec3 warm_angular(const Vec3& w, double) const override { return w; }
  // a body whose last interval turned it by less than 90° stays within the fold of the angular
  // momentum map (12) (docs/computation.md (8)), beyond which its rows have a second root
  double admissible_rate2(const Vec3& w, double dt) const override {
    const double fold2 = 0.99 * 2.0 / (dt * dt);
    return w.squaredNorm() < fold2 ? fold2 : IntegratorScheme::admissible_rate2(w, dt);  // (7)'s domain
  }
  // the unknowns are the next interval's velocities: one change on
  double warm_extrapolation(const Workspace&) const override { return 1.0; }

  Vec6 body_residual(const Model& model, const Data& d, Workspace& ws, int i, const Vec3& v,
                     const Vec3& w) const override {
    return maxsim::body_residual(model.bodies[i], d.v[i], d.w[i], v, w, model.opt.gravity, d.body_force[i],
                                 d.body_torque[i], ws.dt);
  }

  Mat6 body_jacobian(const Model& model, const Workspace& ws, int i, const Vec3& w) const override {
    return maxsim::body_jacobian(model.bodies[i], w, ws.dt);
  }

  void advance(const Model&, Data& d, const Workspace&, int i, const Vec3& v, const Vec3& w) const override {
    d.v[i] = v;
    d.w[i] = w;
  }

  bool bilinear_rows() const override { return false; }

  // a·(rate over [t2, t3] − rate over [t1, t2]); the spring at z2 (a potential)
  double armature_term(double dc, double rate2, double, const Workspace& ws) const override { return dc / ws.dt - rate2; }
  double damper_term(double dc, double, double, const Workspace&) const override { return dc; }
  double spring_coordinate(double coord, double) const override { return coord; }
  double free_row_gain(const Joint& jt, int r, double servo_damping, const Workspace& ws) const override {
    return jt.damping[r] + servo_damping + jt.armature[r] / ws.dt;
  }

  bool impulse_needs_rows3() const override { return false; }

  void apply_joint_impulse(const Model& model, const Data&, Workspace& ws, int j, const Vec6& u,
                           Eigen::VectorXd* F) const override {
    const Joint& jt = model.joints[j];
    const JointRows& r2 = ws.rows2[j];
    if (jt.parent != kWorld) SystemLayout::body(*F, jt.parent).noalias() -= r2.Ja.transpose() * u;
    SystemLayout::body(*F, jt.child).noalias() -= r2.Jb.transpose() * u;
  }

  Mat6 impulse_block(const Workspace& ws, int j, bool child) const override {
    return child ? Mat6(-ws.rows2[j].Jb.transpose()) : Mat6(-ws.rows2[j].Ja.transpose());
  }

  bool couples_bodies() const override { return false; }
  void begin_coupling(const Model&, Workspace&) const override {}
  void add_joint_coupling(const Model&, Workspace&, const Eigen::VectorXd&, int) const override {}
};

}  // namespace

const IntegratorScheme& variational_scheme() {
  static const VariationalScheme scheme;
  return scheme;
}

}  // namespace maxsim
