// <actuator>: motor, position, velocity and the forms of general they stand for, on hinge and
// slide joints and on tendons; the others are named in the warning.
#include <cmath>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_actuators(const XMLElement* act, Model* model) {
  for (const XMLElement* c : children(act)) {
    const std::string n = c->Name();
    actuator_map_.push_back(-1);
    if (n == "plugin" || !is_actuator_type(n)) {
      ignore("<actuator><" + n + ">");
      continue;
    }
    if (n != "motor" && n != "position" && n != "velocity" && n != "general") {
      ignore("<actuator><" + n + ">");
      continue;
    }
    const std::string cls = class_of(c, "");
    const char* jn = own(c, "joint");
    if (!jn) jn = own(c, "jointinparent");
    const char* tn = own(c, "tendon");
    if (!jn && !tn) {
      ignore("actuator without a joint or tendon transmission (site/body)");
      continue;
    }
    if (jn && tn) fail(c, "actuator has two transmissions (joint and tendon)");
    Actuator a;
    if (tn) {  // along the tendon's length (read before the actuators)
      auto t = tendon_index_.find(tn);
      if (t == tendon_index_.end()) fail(c, std::string("actuator refers to undefined tendon '") + tn + "'");
      a.tendon = t->second;
    } else {
      auto it = joint_index_.find(jn);
      if (it == joint_index_.end()) fail(c, std::string("actuator refers to undefined joint '") + jn + "'");
      const MjJoint& mj = mj_joints_[it->second];
      if (mj.kind != 'h' && mj.kind != 's') {
        ignore("actuator on a ball or free joint");
        continue;
      }
      a.row = mj.scalar_row();
      a.joint = mj.spec;  // spec index for now; mapped to the joint after building
    }
    if (const char* nm = own(c, "name")) a.name = nm;
    else a.name = std::string(jn ? jn : tn) + "_" + n;
    if (auto g = nums(attr(c, "actuator", cls, "gear"), 1, 6)) a.gear = (*g)[0];
    auto ctrlrange = nums(attr(c, "actuator", cls, "ctrlrange"), 2, 2);
    auto ctrllimited = boolean(attr(c, "actuator", cls, "ctrllimited"), true);
    // "auto" (MuJoCo): limited when a range other than "0 0" (its default) is given
    auto has_range = [](const std::optional<std::vector<double>>& r) { return r && ((*r)[0] != 0 || (*r)[1] != 0); };
    a.ctrl_limited = ctrllimited ? *ctrllimited : (autolimits_ && has_range(ctrlrange));
    if (a.ctrl_limited) {
      if (!ctrlrange) fail(c, "actuator is ctrllimited but has no ctrlrange");
      a.ctrl_lower = (*ctrlrange)[0];
      a.ctrl_upper = (*ctrlrange)[1];
      if (a.ctrl_lower > a.ctrl_upper) fail(c, "actuator ctrlrange lower bound above the upper bound");
    }
    auto forcerange = nums(attr(c, "actuator", cls, "forcerange"), 2, 2);
    auto forcelimited = boolean(attr(c, "actuator", cls, "forcelimited"), true);
    a.force_limited = forcelimited ? *forcelimited : (autolimits_ && has_range(forcerange));
    if (a.force_limited) {
      if (!forcerange) fail(c, "actuator is forcelimited but has no forcerange");
      a.force_lower = (*forcerange)[0];
      a.force_upper = (*forcerange)[1];
    }
    if (n == "motor") {
      a.kind = Actuator::Kind::Motor;
    } else if (n == "position") {
      a.kind = Actuator::Kind::Position;
      a.kp = num(attr(c, "actuator", cls, "kp")).value_or(1.0);
      a.kv = num(attr(c, "actuator", cls, "kv")).value_or(0.0);
    } else if (n == "velocity") {
      a.kind = Actuator::Kind::Velocity;
      a.kv = num(attr(c, "actuator", cls, "kv")).value_or(1.0);
    } else {  // general: recognise the motor / position / velocity forms
      std::vector<double> gain = nums(attr(c, "actuator", cls, "gainprm"), 1, 10).value_or(std::vector<double>{1});
      std::vector<double> bias = nums(attr(c, "actuator", cls, "biasprm"), 1, 10).value_or(std::vector<double>{});
      gain.resize(10, 0.0);
      bias.resize(10, 0.0);
      const std::string gaintype = str(attr(c, "actuator", cls, "gaintype"), "fixed");
      const std::string biastype = str(attr(c, "actuator", cls, "biastype"), "none");
      const std::string dyntype = str(attr(c, "actuator", cls, "dyntype"), "none");
      if (dyntype != "none") ignore("actuator activation dynamics (dyntype)");
      if (gaintype != "fixed") {
        ignore("general actuator with gaintype " + gaintype);
        continue;
      }
      const double g0 = gain[0];
      if (biastype == "none" || (bias[0] == 0 && bias[1] == 0 && bias[2] == 0)) {
        a.kind = Actuator::Kind::Motor;
        a.gear *= g0;
      } else if (biastype == "affine" && bias[0] == 0 && std::abs(bias[1] + g0) <= 1e-12 * std::abs(g0)) {
        a.kind = Actuator::Kind::Position;
        a.kp = g0;
        a.kv = -bias[2];
      } else if (biastype == "affine" && bias[0] == 0 && bias[1] == 0 &&
                 std::abs(bias[2] + g0) <= 1e-12 * std::abs(g0)) {
        a.kind = Actuator::Kind::Velocity;
        a.kv = g0;
      } else {
        ignore("general actuator with an unsupported bias");
        continue;
      }
    }
    actuator_map_.back() = static_cast<int>(model->actuators.size());
    model->actuators.push_back(a);
  }
}

}  // namespace maxsim::mjcf_detail
