// <keyframe><key>: qpos, qvel and ctrl in MuJoCo's layout, mapped onto the model's joints and
// actuators.
#include <cstring>

#include "models/mjcf/reader.hpp"
#include "sim/state/kinematics.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_keyframes(const XMLElement* kf, Model* model) {
  int nq = 0, nv = 0;
  for (const auto& j : mj_joints_) {
    nq += j.kind == 'f' ? 7 : j.kind == 'b' ? 4 : 1;
    nv += j.kind == 'f' ? 6 : j.kind == 'b' ? 3 : 1;
  }
  const int nu = static_cast<int>(actuator_map_.size());
  std::map<std::string, int> model_joint;  // (Model::joint_index searches: once per joint)
  for (size_t j = 0; j < model->joints.size(); ++j) {
    model_joint.emplace(model->joints[j].name, static_cast<int>(j));
    for (const std::string& row_name : model->joints[j].row_names)
      if (!row_name.empty()) model_joint.emplace(row_name, static_cast<int>(j));
  }
  // one value of a merged joint's coordinates (the others stay at the file's pose, 0)
  auto set_row = [&](std::vector<double>* values, int ji, const MjJoint& j, int n, double v) {
    if (values->empty()) values->assign(n, 0.0);
    (*values)[row_coordinate_index(model->joints[ji], j.row)] = v;
  };
  auto joint_of = [&](const std::string& name) {
    auto it = model_joint.find(name);
    return it == model_joint.end() ? -1 : it->second;
  };
  for (const XMLElement* c : children(kf)) {
    if (std::strcmp(c->Name(), "key") != 0) {
      ignore("<keyframe><" + std::string(c->Name()) + ">");
      continue;
    }
    Keyframe k;
    const char* key_name = own(c, "name");
    k.name = key_name ? key_name : "key" + std::to_string(model->keyframes.size());
    k.time = xml_.number(c, "time").value_or(0);
    k.joint_q.assign(model->joints.size(), {});
    k.joint_qd.assign(model->joints.size(), {});
    if (auto q = xml_.numbers(c, "qpos", 0, 1 << 30)) {
      if (static_cast<int>(q->size()) != nq)
        fail(c, "keyframe '" + k.name + "': qpos has " + std::to_string(q->size()) +
                    " values, the model has nq = " + std::to_string(nq));
      int at = 0;
      for (const auto& j : mj_joints_) {
        const int n = j.kind == 'f' ? 7 : j.kind == 'b' ? 4 : 1;
        std::vector<double> v(q->begin() + at, q->begin() + at + n);
        at += n;
        if (n == 1) v[0] -= j.ref;
        if (n >= 4) {  // normalise the quaternion part
          Eigen::Map<Vec4> qq(v.data() + (n - 4));
          if (qq.norm() < 1e-12) fail(c, "keyframe '" + k.name + "': zero quaternion for joint '" + j.name + "'");
          qq = parse::scaled(Vec4(qq));
          qq.normalize();
        }
        const int ji = joint_of(j.name);
        // (a free joint turned Fixed by LoadOptions::fixed_base takes no coordinates)
        if (ji >= 0 && j.row >= 0) set_row(&k.joint_q[ji], ji, j, model->joints[ji].nq(), v[0]);
        else if (ji >= 0 && model->joints[ji].nq() == n) k.joint_q[ji] = v;
      }
    }
    if (auto qd = xml_.numbers(c, "qvel", 0, 1 << 30)) {
      if (static_cast<int>(qd->size()) != nv)
        fail(c, "keyframe '" + k.name + "': qvel has " + std::to_string(qd->size()) +
                    " values, the model has nv = " + std::to_string(nv));
      int at = 0;
      for (const auto& j : mj_joints_) {
        const int n = j.kind == 'f' ? 6 : j.kind == 'b' ? 3 : 1;
        std::vector<double> v(qd->begin() + at, qd->begin() + at + n);
        at += n;
        const int ji = joint_of(j.name);
        if (ji >= 0 && j.row >= 0) set_row(&k.joint_qd[ji], ji, j, model->joints[ji].dof(), v[0]);
        else if (ji >= 0 && model->joints[ji].dof() == n) k.joint_qd[ji] = v;
      }
    }
    if (auto u = xml_.numbers(c, "ctrl", 0, 1 << 30)) {
      if (static_cast<int>(u->size()) != nu)
        fail(c, "keyframe '" + k.name + "': ctrl has " + std::to_string(u->size()) +
                    " values, the model has nu = " + std::to_string(nu));
      k.ctrl.assign(model->actuators.size(), 0.0);
      for (int i = 0; i < nu; ++i)
        if (actuator_map_[i] >= 0) k.ctrl[actuator_map_[i]] = (*u)[i];
    }
    model->keyframes.push_back(k);
  }
}

}  // namespace maxsim::mjcf_detail
