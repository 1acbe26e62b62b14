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
  joint_impulse.assign(nj, Vec6::Zero());
  joint_angle.assign(nj, Vec3::Zero());

  // the system graph: body nodes 0..nb-1, joint nodes nb..nb+nj-1, an edge per joint-body pair
  ws.parent_edge.assign(nj, -1);
  ws.child_edge.assign(nj, -1);
  int root = -1;
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = model.joints[j];
    if (jt.parent != kWorld) {
      ws.parent_edge[j] = static_cast<int>(ws.edges.size());
      ws.edges.emplace_back(nb + j, jt.parent);
    } else if (root < 0) {
      root = jt.child;  // eliminate towards the body held by the world
    }
    ws.child_edge[j] = static_cast<int>(ws.edges.size());
    ws.edges.emplace_back(nb + j, jt.child);
  }
  // joint nodes carry multipliers (−εI diagonal on constrained rows): never eliminated first
  std::vector<char> multiplier(nb + nj, 0);
  for (int j = 0; j < nj; ++j) multiplier[nb + j] = 1;
  ws.ldu.analyze(nb + nj, ws.edges, root, &multiplier);
  for (int j = 0; j < nj; ++j) {
    unsigned mask = 0;
    for (int r = 0; r < 6; ++r)
      if (model.joints[j].row_constrained(r)) mask |= 1u << r;
    ws.ldu.set_regularized_rows(nb + j, mask);
  }
  ws.rows2.resize(nj);
  ws.rows3.resize(nj);
  ws.x3.resize(nb);
  ws.q3.resize(nb);
  const int n = 6 * (nb + nj);
  ws.unknowns.setZero(n);
  ws.trial.setZero(n);
  ws.residual.setZero(n);
  ws.trial_residual.setZero(n);
  ws.delta.setZero(n);
}

}  // namespace maxsim
