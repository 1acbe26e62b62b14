#include "models/urdf/schema.hpp"

namespace maxsim {

namespace {
using parse::Support;
constexpr Support S = Support::Supported, I = Support::Ignored;

// name, parent, support, supported / ignored / refused attributes, recursive, alias, note.
const parse::SchemaNode kNodes[] = {
    {"robot", -1, S, "name", "version", "", false, -1, ""},  // 0
    {"link", 0, S, "name", "", "", false, -1, ""},  // 1
    {"inertial", 1, S, "", "", "", false, -1, ""},  // 2
    {"origin", 2, S, "xyz rpy", "", "", false, -1, ""},  // 3
    {"mass", 2, S, "value", "", "", false, -1, ""},  // 4
    {"inertia", 2, S, "ixx ixy ixz iyy iyz izz", "", "", false, -1, ""},  // 5
    {"visual", 1, S, "name", "", "", false, -1, ""},  // 6
    {"origin", 6, S, "xyz rpy", "", "", false, -1, ""},  // 7
    {"geometry", 6, S, "", "", "", false, -1, ""},  // 8
    {"box", 8, S, "size", "", "", false, -1, ""},  // 9
    {"cylinder", 8, S, "radius length", "", "", false, -1, ""},  // 10
    {"sphere", 8, S, "radius", "", "", false, -1, "radius 0: a point contact"},  // 11
    {"mesh", 8, S, "filename scale", "", "", false, -1, ""},  // 12
    {"capsule", 8, S, "radius length", "", "", false, -1, "Dojo, PyBullet"},  // 13
    {"material", 6, S, "name", "", "", false, -1, ""},  // 14
    {"color", 14, S, "rgba", "", "", false, -1, ""},  // 15
    {"texture", 14, I, "", "filename", "", false, -1, "rendering"},  // 16
    {"collision", 1, S, "name", "", "", false, 6, ""},  // 17 (visual's children)
    {"contact", 1, S, "", "", "", false, -1, "PyBullet"},  // 18
    {"lateral_friction", 18, S, "value", "", "", false, -1, ""},  // 19
    {"rolling_friction", 18, I, "", "value", "", false, -1, ""},  // 20
    {"spinning_friction", 18, I, "", "value", "", false, -1, ""},  // 21
    {"restitution", 18, I, "", "value", "", false, -1, ""},  // 22
    {"stiffness", 18, I, "", "value", "", false, -1, ""},  // 23
    {"damping", 18, I, "", "value", "", false, -1, ""},  // 24
    {"contact_cfm", 18, I, "", "value", "", false, -1, ""},  // 25
    {"contact_erp", 18, I, "", "value", "", false, -1, ""},  // 26
    {"inertia_scaling", 18, I, "", "value", "", false, -1, ""},  // 27
    {"friction_anchor", 18, I, "", "", "", false, -1, ""},  // 28
    {"joint", 0, S, "name type", "", "", false, -1, "unknown types refused"},  // 29
    {"origin", 29, S, "xyz rpy", "", "", false, -1, ""},  // 30
    {"parent", 29, S, "link", "", "", false, -1, ""},  // 31
    {"child", 29, S, "link", "", "", false, -1, ""},  // 32
    {"axis", 29, S, "xyz", "", "", false, -1, ""},  // 33
    {"calibration", 29, I, "", "rising falling reference_position", "", false, -1, ""},  // 34
    {"dynamics", 29, S, "damping friction", "", "", false, -1, ""},  // 35
    {"limit", 29, S, "lower upper effort velocity", "", "", false, -1, ""},  // 36
    {"mimic", 29, S, "joint multiplier offset", "", "", false, -1, "an exact coupling row"},  // 37
    {"safety_controller", 29, I, "", "soft_lower_limit soft_upper_limit k_position k_velocity", "", false, -1, ""},  // 38
    {"material", 0, S, "name", "", "", false, 14, "a redefinition with another colour: warning, the first wins"},  // 39
    {"loop_joint", 0, S, "name type", "", "", false, -1, "Dojo, ConstrainedDynamics"},  // 40
    {"link1", 40, S, "link xyz rpy", "", "", false, -1, ""},  // 41
    {"link2", 40, S, "link xyz rpy", "", "", false, -1, ""},  // 42
    {"axis", 40, S, "xyz", "", "", false, -1, ""},  // 43
    {"dynamics", 40, S, "damping friction stiffness", "", "", false, -1, ""},  // 44
    {"limit", 40, S, "lower upper effort velocity", "", "", false, -1, ""},  // 45
    {"nonholonomic", 0, S, "name type", "", "", false, -1, "maxsim"},  // 46
    {"link", 46, S, "name", "", "", false, -1, ""},  // 47
    {"radius", 46, S, "value", "", "", false, -1, ""},  // 48
    {"axis", 46, S, "xyz", "", "", false, -1, ""},  // 49
    {"origin", 46, S, "xyz rpy", "", "", false, -1, ""},  // 50
    {"direction", 46, S, "xyz", "", "", false, -1, ""},  // 51
    {"maxsim", 0, S, "integrator", "", "", false, -1, "maxsim"},  // 52
    {"transmission", 0, I, "", "", "", false, -1, "ROS control"},  // 53
    {"gazebo", 0, I, "", "", "", false, -1, "Gazebo"},  // 54
    {"ros2_control", 0, I, "", "", "", false, -1, "ROS 2 control"},  // 55
    {"sensor", 52, S, "name type link ref_link joint actuator noise cutoff", "", "", false, -1, "maxsim: an MJCF sensor type"},  // 56
};
}  // namespace

const parse::Schema& urdf_schema() {
  static const parse::Schema schema(kNodes, static_cast<int>(sizeof kNodes / sizeof kNodes[0]));
  return schema;
}

}  // namespace maxsim
