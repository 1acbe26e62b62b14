// The start every engine is given, and the conversion between a Data and BodyStates.
#include "benchmarks/engines/engine.hpp"

#include "sim/constraints/joint.hpp"
#include "sim/data.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/state/state.hpp"

namespace maxsim::bench {

std::vector<BodyState> body_states(const Data& data) {
  std::vector<BodyState> s(data.x.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = {data.x[i], data.q[i], data.v[i], data.w[i]};
  return s;
}

void place_bodies(const Model& model, const std::vector<BodyState>& bodies, Data* data) {
  for (size_t i = 0; i < bodies.size(); ++i) {
    data->x[i] = bodies[i].x;
    data->q[i] = bodies[i].q;
    data->v[i] = bodies[i].v;
    data->w[i] = bodies[i].w;
  }
  // the rotation rows' angles follow the new poses from the last ones by the shortest turn, as
  // the step unwraps them (sim/constraints/joint_constraint.cpp): read back step by step, a hinge
  // keeps its angle past ±π
  JointRows rows;
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& jt = model.joints[j];
    joint_rows(jt, body_pose(*data, jt.parent), body_pose(*data, jt.child), &rows);
    for (int k = 0; k < 3; ++k) data->joint_angle[j](k) += wrap_angle(rows.c(3 + k) - data->joint_angle[j](k));
  }
}

SceneSetup make_setup(const Model& model, const std::string& file, double dt, const Data& data) {
  SceneSetup s;
  s.model = &model;
  s.file = file;
  s.dt = dt;
  s.start = body_states(data);
  get_coordinates(model, data, &s.start_q, &s.start_qd);
  s.start_qpos = get_qpos(model, data);
  s.start_qvel = get_qvel(model, data);
  return s;
}

}  // namespace maxsim::bench
