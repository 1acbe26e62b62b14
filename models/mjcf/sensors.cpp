// <sensor>: MuJoCo's sensors into Model::sensors (sim/sensor/sensors.hpp), after the model is
// built and its actuators and tendons are read. Types maxsim does not compute (user and MuJoCo 3's)
// are named in the warning and take no place in sensordata.
#include <Eigen/Eigenvalues>

#include "models/mjcf/reader.hpp"
#include "sim/sensor/sensors.hpp"

namespace maxsim::mjcf_detail {

namespace {

// The principal frame of a link's inertia (MuJoCo's body inertial frame): eigenvectors by
// decreasing moment, made right-handed.
Vec4 principal_frame(const Mat3& inertia) {
  Eigen::SelfAdjointEigenSolver<Mat3> eig(inertia);
  if (eig.info() != Eigen::Success || !inertia.allFinite() || inertia.isZero(0)) return quat_identity();
  Mat3 R;
  for (int k = 0; k < 3; ++k) R.col(k) = eig.eigenvectors().col(2 - k);
  if (R.determinant() < 0) R.col(2) = -R.col(2);
  return quat_normalize(rot_to_quat(R));
}

}  // namespace

SensorFrame MjcfReader::sensor_frame(const XMLElement* e, const char* type_attr, const char* name_attr,
                                     const BuildResult& built, const Model& model) const {
  const char* type = own(e, type_attr);
  const char* name = own(e, name_attr);
  if (!type) fail(e, std::string("sensor needs ") + type_attr);
  if (!name) fail(e, std::string("sensor needs ") + name_attr);
  const std::string t = type;
  if (t == "site") {
    const std::optional<int> s = model.find_site(name);
    if (!s) fail(e, std::string("sensor refers to undefined site '") + name + "'");
    return site_frame(model, *s);
  }
  if (t == "geom") {
    const auto found = model.find_geom(name);
    if (!found) fail(e, std::string("sensor refers to undefined geom '") + name + "'");
    const auto [body, geom] = *found;
    const Geom& g = body == kWorld ? model.world_geoms[geom] : model.bodies[body].geoms[geom];
    return SensorFrame{body, g.pos, g.quat};
  }
  if (t == "body" || t == "xbody") {
    if (std::string(name) == "world") return SensorFrame{};
    auto it = body_link_.find(name);
    if (it == body_link_.end()) fail(e, std::string("sensor refers to undefined body '") + name + "'");
    const int l = it->second;
    const int b = built.link_body[l];
    Pose link;
    link_frame_in_body(links_, built, model, l, &link.p, &link.q);
    if (t == "xbody") return SensorFrame{b, link.p, link.q};
    // the body's inertial frame: its own CoM and principal axes (MuJoCo's xipos, ximat)
    const Vec3 com = link.p + quat_rotate(link.q, links_[l].mass.com);
    return SensorFrame{b, com, quat_normalize(quat_mul(link.q, principal_frame(links_[l].mass.inertia)))};
  }
  fail(e, "sensor " + std::string(type_attr) + " '" + t + "' is not one of site, geom, body, xbody");
}

void MjcfReader::read_sensors(const XMLElement* e, const BuildResult& built, Model* model) {
  for (const XMLElement* c : children(e)) {
    const std::string n = c->Name();
    Sensor s;
    if (!sensor_type_from_name(n, &s.type)) {
      ignore("<sensor><" + n + ">");
      continue;
    }
    if (const char* nm = own(c, "name")) s.name = nm;
    if (!s.name.empty() && model->find_sensor(s.name)) fail(c, "sensor '" + s.name + "' is defined twice");
    if (auto v = num(attr(c, "sensor", "", "noise"))) s.noise = *v;
    if (auto v = num(attr(c, "sensor", "", "cutoff"))) s.cutoff = *v;
    auto need = [&](const char* a) {
      const char* v = own(c, a);
      if (!v) fail(c, "<" + n + "> needs " + a);
      return std::string(v);
    };
    switch (s.type) {
      case SensorType::Touch: case SensorType::Accelerometer: case SensorType::Velocimeter:
      case SensorType::Gyro: case SensorType::Force: case SensorType::Torque: case SensorType::Magnetometer:
      case SensorType::Rangefinder: {
        const std::string site = need("site");
        const std::optional<int> i = model->find_site(site);
        if (!i) fail(c, "sensor refers to undefined site '" + site + "'");
        s.object = *i;
        break;
      }
      case SensorType::JointLimitPos: case SensorType::JointLimitVel: case SensorType::JointLimitFrc: {
        // on a ball joint: its cone limit (MuJoCo's one limit row of a ball)
        const std::string jn = need("joint");
        auto it = joint_index_.find(jn);
        if (it != joint_index_.end() && mj_joints_[it->second].kind == 'b') {
          s.object = built.spec_joint[mj_joints_[it->second].spec];
          if (s.object < 0) fail(c, "joint '" + jn + "' was merged away");
          s.row = kJointConeRow;
        } else {
          s.object = scalar_joint(c, jn.c_str(), built, &s.row);
        }
        break;
      }
      case SensorType::JointPos: case SensorType::JointVel: case SensorType::JointActuatorFrc:
        s.object = scalar_joint(c, need("joint").c_str(), built, &s.row);
        break;
      case SensorType::BallQuat: case SensorType::BallAngVel: {
        const std::string jn = need("joint");
        auto it = joint_index_.find(jn);
        if (it == joint_index_.end()) fail(c, "sensor refers to undefined joint '" + jn + "'");
        const MjJoint& mj = mj_joints_[it->second];
        if (mj.kind != 'b') fail(c, "<" + n + "> needs a ball joint; '" + jn + "' is not one");
        s.object = built.spec_joint[mj.spec];
        if (s.object < 0) fail(c, "joint '" + jn + "' was merged away");
        break;
      }
      case SensorType::TendonPos: case SensorType::TendonVel:
      case SensorType::TendonLimitPos: case SensorType::TendonLimitVel: case SensorType::TendonLimitFrc: {
        const std::string tn = need("tendon");
        auto it = tendon_index_.find(tn);
        if (it == tendon_index_.end()) fail(c, "sensor refers to undefined tendon '" + tn + "'");
        s.object = it->second;
        break;
      }
      case SensorType::ActuatorPos: case SensorType::ActuatorVel: case SensorType::ActuatorFrc: {
        const std::string an = need("actuator");
        const std::optional<int> a = model->find_actuator(an);
        if (!a) {  // (an actuator maxsim does not model: named in the warning already)
          ignore("<sensor><" + n + "> on an actuator maxsim does not model");
          continue;
        }
        s.object = *a;
        break;
      }
      case SensorType::SubtreeCom: case SensorType::SubtreeLinVel: case SensorType::SubtreeAngMom: {
        const std::string bn = need("body");
        if (bn == "world") {
          s.object = kWorld;
          break;
        }
        auto it = body_link_.find(bn);
        if (it == body_link_.end()) fail(c, "sensor refers to undefined body '" + bn + "'");
        s.object = built.link_body[it->second];
        break;
      }
      case SensorType::Clock: break;
      default:  // the frame sensors
        s.frame = sensor_frame(c, "objtype", "objname", built, *model);
        if (own(c, "reftype") || own(c, "refname")) {
          s.relative = true;
          s.ref = sensor_frame(c, "reftype", "refname", built, *model);
        }
        break;
    }
    const std::string problem = validate_sensor(*model, s);
    if (!problem.empty()) fail(c, problem);
    model->add_sensor(s);
  }
}

}  // namespace maxsim::mjcf_detail
