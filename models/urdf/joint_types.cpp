// Joint types: URDF's, then the dialect of Dojo.jl and ConstrainedDynamics.jl. Those read "ball",
// "fixedorientation", "cylindrical", "cylindricalfree", "planaraxis", "planarfree" and (Dojo)
// "orbital" (joint_selector in their urdf.jl); the other prototypes of Dojo's
// joints/prototypes.jl are accepted in the same lowercase spelling. Each is a translational x
// rotational part (JointType, sim/model.hpp) with Dojo's axis convention: a part with one
// constrained row constrains along / about the axis, a part with two constrains the two directions
// perpendicular to it (Dojo's constraint_mask: axis_mask3, or axis_mask1 and axis_mask2), so the
// axis is the engine joint frame's z. urdfdom is handed the dialect joints as "floating".
// (Dojo's and ConstrainedDynamics' "planar" is a Planar joint without rotation; maxsim keeps the
// URDF reading, PlanarAxis, and warns when a file that uses the dialect has one.)
#include <cstring>

#include "models/urdf/reader.hpp"

namespace maxsim::urdf_detail {

namespace {
constexpr UrdfJointType kJointTypes[] = {
    {"revolute", JointType::Revolute, false, true},
    {"continuous", JointType::Revolute, false, true},
    {"prismatic", JointType::Prismatic, false, true},
    {"fixed", JointType::Fixed, false, false},
    {"floating", JointType::Floating, false, false},
    {"planar", JointType::PlanarAxis, false, true},
    {"ball", JointType::Spherical, true, false},
    {"spherical", JointType::Spherical, true, false},
    {"fixedorientation", JointType::FixedOrientation, true, false},
    {"cylindrical", JointType::Cylindrical, true, true},
    {"planaraxis", JointType::PlanarAxis, true, true},
    {"freerevolute", JointType::FreeRevolute, true, true},
    {"orbital", JointType::Orbital, true, true},
    {"prismaticorbital", JointType::PrismaticOrbital, true, true},
    {"planarorbital", JointType::PlanarOrbital, true, true},
    {"freeorbital", JointType::FreeOrbital, true, true},
    {"cylindricalfree", JointType::CylindricalFree, true, true},
    {"planarfree", JointType::PlanarFree, true, true},
};
}  // namespace

const UrdfJointType* find_joint_type(const char* name) {
  for (const UrdfJointType& t : kJointTypes)
    if (std::strcmp(name, t.name) == 0) return &t;
  return nullptr;
}

std::string joint_type_list() {
  std::string urdf, dialect;
  for (const UrdfJointType& t : kJointTypes) {
    std::string& list = t.dialect ? dialect : urdf;
    list += (list.empty() ? "" : ", ") + std::string(t.name);
  }
  return "URDF joint types: " + urdf + "; Dojo/ConstrainedDynamics extensions: " + dialect;
}

int free_rows_of(JointType type) {
  Joint j;
  j.type = type;
  return j.dof();
}

}  // namespace maxsim::urdf_detail
