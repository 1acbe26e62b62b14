#include "sim/state/state.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/constraints/joint.hpp"
#include "sim/state/kinematics.hpp"
#include "sim/solver/projection.hpp"

namespace maxsim {

namespace {

// Calls f(joint, qpos offset, qvel offset) for every joint of the layout.
template <class F>
void for_each_coordinate_joint(const Model& model, F f) {
  const std::vector<bool> tree = spanning_tree_joints(model);
  int iq = 0, iv = 0;
  for (size_t j = 0; j < model.joints.size(); ++j) {
    if (!tree[j]) continue;
    f(static_cast<int>(j), iq, iv);
    iq += model.joints[j].nq();
    iv += model.joints[j].dof();
  }
}

void check_size(const char* what, size_t got, int expected) {
  if (static_cast<int>(got) != expected)
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(got) + " values, the model has " +
                                std::to_string(expected));
}

}  // namespace

int qpos_size(const Model& model) {
  int n = 0;
  for_each_coordinate_joint(model, [&](int j, int, int) { n += model.joints[j].nq(); });
  return n;
}

int qvel_size(const Model& model) {
  int n = 0;
  for_each_coordinate_joint(model, [&](int j, int, int) { n += model.joints[j].dof(); });
  return n;
}

std::vector<int> qpos_addresses(const Model& model) {
  std::vector<int> out(model.joints.size(), -1);
  for_each_coordinate_joint(model, [&](int j, int iq, int) { out[j] = iq; });
  return out;
}

std::vector<int> qvel_addresses(const Model& model) {
  std::vector<int> out(model.joints.size(), -1);
  for_each_coordinate_joint(model, [&](int j, int, int iv) { out[j] = iv; });
  return out;
}

namespace {

// qpos and/or qvel (a null span is not written): one pass over the coordinate joints.
// `rows`: every joint's rows at the Data's poses, or null (evaluated here).
void read_coordinates(const Model& model, const Data& data, std::span<double> qpos, std::span<double> qvel,
                      const std::vector<JointRows>* rows = nullptr) {
  double q[7], qd[6];
  for_each_coordinate_joint(model, [&](int j, int iq, int iv) {
    double* qj = qpos.empty() ? q : qpos.data() + iq;
    joint_coordinates(model, data, j, qj, qvel.empty() ? qd : qvel.data() + iv, rows ? &(*rows)[j] : nullptr);
    if (qpos.empty()) return;
    const Joint& jt = model.joints[j];
    if (jt.nq() == 1) qj[0] += jt.ref;
    for (int r = 0; r < 6; ++r)  // the refs of a merged joint's rows
      if (!jt.row_names[r].empty()) qj[row_coordinate_index(jt, r)] += jt.row_ref[r];
  });
}

}  // namespace

void get_qpos(const Model& model, const Data& data, std::span<double> qpos) {
  check_size("qpos", qpos.size(), qpos_size(model));
  read_coordinates(model, data, qpos, {});
}

void get_qvel(const Model& model, const Data& data, std::span<double> qvel) {
  check_size("qvel", qvel.size(), qvel_size(model));
  read_coordinates(model, data, {}, qvel);
}

void get_qpos_qvel(const Model& model, const Data& data, std::span<double> qpos, std::span<double> qvel) {
  check_size("qpos", qpos.size(), qpos_size(model));
  check_size("qvel", qvel.size(), qvel_size(model));
  read_coordinates(model, data, qpos, qvel);
}

void get_qpos_qvel(const Model& model, const Data& data, const std::vector<JointRows>& rows, std::span<double> qpos,
                   std::span<double> qvel) {
  check_size("qpos", qpos.size(), qpos_size(model));
  check_size("qvel", qvel.size(), qvel_size(model));
  if (rows.size() != model.joints.size())
    throw std::invalid_argument("joint rows: " + std::to_string(rows.size()) + " given, the model has " +
                                std::to_string(model.joints.size()) + " joints");
  read_coordinates(model, data, qpos, qvel, &rows);
}

std::vector<double> get_qpos(const Model& model, const Data& data) {
  std::vector<double> out(qpos_size(model));
  get_qpos(model, data, out);
  return out;
}

std::vector<double> get_qvel(const Model& model, const Data& data) {
  std::vector<double> out(qvel_size(model));
  get_qvel(model, data, out);
  return out;
}

std::vector<std::vector<double>> split_qpos(const Model& model, std::span<const double> qpos) {
  check_size("qpos", qpos.size(), qpos_size(model));
  std::vector<std::vector<double>> q(model.joints.size());
  for_each_coordinate_joint(model, [&](int j, int iq, int) {
    const Joint& jt = model.joints[j];
    q[j].assign(qpos.begin() + iq, qpos.begin() + iq + jt.nq());
    if (jt.nq() == 1) q[j][0] -= jt.ref;
    for (int r = 0; r < 6; ++r)
      if (!jt.row_names[r].empty()) q[j][row_coordinate_index(jt, r)] -= jt.row_ref[r];
  });
  return q;
}

std::vector<std::vector<double>> split_qvel(const Model& model, std::span<const double> qvel) {
  check_size("qvel", qvel.size(), qvel_size(model));
  std::vector<std::vector<double>> qd(model.joints.size());
  for_each_coordinate_joint(model, [&](int j, int, int iv) {
    qd[j].assign(qvel.begin() + iv, qvel.begin() + iv + model.joints[j].dof());
  });
  return qd;
}

void set_qpos_qvel(const Model& model, Data& data, std::span<const double> qpos, std::span<const double> qvel) {
  check_size("qpos", qpos.size(), qpos_size(model));
  check_size("qvel", qvel.size(), qvel_size(model));
  for (double v : qpos)
    if (!std::isfinite(v)) throw std::invalid_argument("qpos has a non-finite value");
  for (double v : qvel)
    if (!std::isfinite(v)) throw std::invalid_argument("qvel has a non-finite value");
  const std::vector<std::vector<double>> q = split_qpos(model, qpos), qd = split_qvel(model, qvel);
  set_coordinates(model, data, q, qd);
  const ProjectionReport r = project_state(model, data);
  data.limits_recheck = true;  // (a state set by hand: the limits it is beyond are pulled in)
  if (!r.converged) {
    std::string where = worst_row_description(model, r);
    if (!where.empty()) where = ": " + where;
    throw std::invalid_argument(
        r.failure == ProjectionReport::Failure::IterationLimit
            ? "qpos does not close the model's loops (" + std::to_string(r.iterations) + " projection iterations" + where +
                  "); the Data holds the tree's placement"
            : std::string("the state could not be projected onto the model's constraints (a singular system at this ") +
                  (r.failure == ProjectionReport::Failure::VelocitySingular ? "pose's velocities" : "pose") + where +
                  "); the Data holds the tree's placement");
  }
}

void reset_data(const Model& model, Data& data) {
  Data fresh(model);
  fresh.controller = std::move(data.controller);
  const bool contacts = data.contact_search.has_value();
  data = fresh;  // copy-assigned: every array keeps its storage (views onto it stay valid)
  if (contacts) enable_contacts(model, data);  // a new search, as a new Data's
}

void reset_data(const Model& model, Data& data, int keyframe) {
  if (keyframe < 0 || keyframe >= static_cast<int>(model.keyframes.size()))
    throw std::invalid_argument("keyframe index " + std::to_string(keyframe) + " out of range (the model has " +
                                std::to_string(model.keyframes.size()) + " keyframes)");
  const Keyframe& key = model.keyframes[keyframe];
  const size_t nj = model.joints.size();
  std::vector<std::vector<double>> q(nj), qd(nj);
  for (size_t j = 0; j < nj; ++j) {
    if (j < key.joint_q.size()) q[j] = key.joint_q[j];
    if (j < key.joint_qd.size()) qd[j] = key.joint_qd[j];
  }
  reset_data(model, data);
  set_coordinates(model, data, q, qd);
  project_state(model, data);
  data.time = key.time;
  for (size_t i = 0; i < key.ctrl.size() && i < data.ctrl.size(); ++i) data.ctrl[i] = key.ctrl[i];
}

}  // namespace maxsim
