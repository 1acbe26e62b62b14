#include "sim/data.hpp"


namespace maxsim {

const char* step_status_name(StepStatus s) {
  switch (s) {
    case StepStatus::Ok: return "ok";
    case StepStatus::NotConverged: return "not converged";
    case StepStatus::Failed: return "failed";
  }
  return "?";
}

Data::Data(const Model& model) {
  const int nb = static_cast<int>(model.bodies.size());
  const int nj = static_cast<int>(model.joints.size());
  x.resize(nb);
  q.resize(nb);
  for (int i = 0; i < nb; ++i) {
    x[i] = model.bodies[i].x0;
    q[i] = model.bodies[i].q0;
  }
  v.assign(nb, Vec3::Zero());
  w.assign(nb, Vec3::Zero());
  body_force.assign(nb, Vec3::Zero());
  body_torque.assign(nb, Vec3::Zero());
  joint_force.assign(nj, Vec6::Zero());
  ctrl.assign(model.actuators.size(), 0.0);
  actuator_force.assign(model.actuators.size(), 0.0);
  row_force = joint_force;
  row_damping.assign(nj, Vec6::Zero());
  joint_impulse.assign(nj, Vec6::Zero());
  velocity_change.assign(nb, Vec6::Zero());
  acceleration.assign(nb, Vec6::Zero());
  newmark_mean.assign(nb, Vec6::Zero());
  row_acceleration.assign(nj, Vec6::Zero());
  joint_angle.assign(nj, Vec3::Zero());
  nonholonomic_impulse.assign(model.nonholonomic.size(), Vec6::Zero());
  tendon_force.assign(model.tendons.size(), 0.0);
  tendon_impulse.assign(model.tendons.size(), 0.0);
  tendon_length.assign(model.tendons.size(), 0.0);
  coupling_impulse.assign(model.couplings.size(), 0.0);
  sensordata.assign(static_cast<size_t>(model.nsensordata()), 0.0);
}

}  // namespace maxsim
