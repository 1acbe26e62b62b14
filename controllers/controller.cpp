#include "controllers/controller.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/kinematics.hpp"

namespace maxsim {

void set_controller(Data& data, ControlFunction f) { data.controller = std::move(f); }

void set_controller(Data& data, std::shared_ptr<Controller> controller) {
  if (!controller) {
    data.controller = nullptr;
    return;
  }
  data.controller = [c = std::move(controller)](const Model& m, Data& d) { c->control(m, d); };
}

void set_controller_ref(Data& data, Controller& controller) {
  data.controller = [c = &controller](const Model& m, Data& d) { c->control(m, d); };
}

bool row_has_coordinate(const Joint& joint, int row) {
  if (row < 0 || row > 5 || joint.row_constrained(row)) return false;
  return row < 3 || rot_kind(joint.type) != RotKind::Free;
}

RowCoordinate row_coordinate(const Model& model, const Data& data, int joint, int row) {
  if (joint < 0 || joint >= static_cast<int>(model.joints.size()))
    throw std::invalid_argument("row_coordinate: joint index " + std::to_string(joint) + " out of range");
  const Joint& jt = model.joints[joint];
  if (!row_has_coordinate(jt, row))
    throw std::invalid_argument("joint '" + jt.name + "' row " + std::to_string(row) +
                                " has no scalar coordinate (constrained, or a ball/free rotation)");
  // joint_coordinates lists the free translational rows in order, then the rotation's angles
  // (revolute: row 5; orbital: rows 3 and 4)
  int index = 0;
  for (int r = 0; r < std::min(row, 3); ++r)
    if (!jt.row_constrained(r)) ++index;
  if (row >= 3 && rot_kind(jt.type) == RotKind::Orbital) index += row - 3;
  double q[7], qd[6];
  joint_coordinates(model, data, joint, q, qd);
  return RowCoordinate{q[index], qd[index]};
}

}  // namespace maxsim
