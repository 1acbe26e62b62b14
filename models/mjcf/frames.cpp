// Poses: the orientation specifiers (quat, axisangle, euler, xyaxes, zaxis), an element's pose in
// its body frame, and <frame>s, whose pose is composed into the elements they hold.
#include <cctype>
#include <string>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

Vec4 MjcfReader::orientation(const XMLElement* e, const std::string& type,
                             const std::string& cls) const {
  static const char* kinds[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  // the element's own specifier first, then its class's
  const XMLElement* holder = nullptr;
  const char* kind = nullptr;
  for (const char* k : kinds) {
    if (own(e, k)) {
      if (kind) fail(e, std::string("multiple orientation specifiers ('") + kind + "' and '" + k + "')");
      holder = e;
      kind = k;
    }
  }
  if (!kind) {
    for (const char* k : kinds) {
      Attr a = attr(e, type, cls, k);
      if (a) {
        holder = a.e;
        kind = k;
        break;
      }
    }
  }
  if (!kind) return quat_identity();
  const std::string k = kind;
  if (k == "quat") {
    auto v = *xml_.numbers(holder, "quat", 4);
    Vec4 q(v[0], v[1], v[2], v[3]);
    if (q.norm() < 1e-12) fail(holder, "zero quaternion");
    return quat_normalize(parse::scaled(q));
  }
  if (k == "axisangle") {
    auto v = *xml_.numbers(holder, "axisangle", 4);
    Vec3 a(v[0], v[1], v[2]);
    if (a.norm() < 1e-12) fail(holder, "axisangle with a zero axis");
    return quat_axis_angle(parse::scaled(a), rotation_angle(v[3]));
  }
  if (k == "euler") {
    auto v = *xml_.numbers(holder, "euler", 3);
    if (eulerseq_.size() != 3) fail(holder, "compiler eulerseq must have 3 letters");
    Vec4 q = quat_identity();
    for (int i = 0; i < 3; ++i) {
      const char c = eulerseq_[i];
      const char l = static_cast<char>(std::tolower(c));
      Vec3 axis = l == 'x' ? Vec3::UnitX() : l == 'y' ? Vec3::UnitY() : Vec3::UnitZ();
      const Vec4 r = quat_axis_angle(axis, rotation_angle(v[i]));
      q = (c >= 'a' && c <= 'z') ? quat_mul(q, r) : quat_mul(r, q);  // rotating : fixed axes
    }
    return quat_normalize(q);
  }
  if (k == "xyaxes") {
    auto v = *xml_.numbers(holder, "xyaxes", 6);
    Vec3 x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
    if (x.norm() < 1e-12) fail(holder, "xyaxes with a zero x axis");
    x = parse::scaled(x);
    x.normalize();
    y = parse::scaled(y);
    y -= x * x.dot(y);
    if (y.norm() < 1e-12) fail(holder, "xyaxes with parallel axes");
    y.normalize();
    Mat3 R;
    R.col(0) = x;
    R.col(1) = y;
    R.col(2) = x.cross(y);
    return rot_to_quat(R);
  }
  auto v = *xml_.numbers(holder, "zaxis", 3);
  Vec3 z(v[0], v[1], v[2]);
  if (z.norm() < 1e-12) fail(holder, "zaxis of zero length");
  return quat_z_to(parse::scaled(z));
}

Pose MjcfReader::element_pose(const XMLElement* e, const std::string& type,
                              const std::string& cls, const Pose& body_world,
                              const Pose& frame_offset) const {
  Pose local;
  if (auto p = nums(attr(e, type, cls, "pos"), 3, 3)) local.p = Vec3((*p)[0], (*p)[1], (*p)[2]);
  local.q = orientation(e, type, cls);
  if (global_) return relative(body_world, local);
  return compose(frame_offset, local);
}

void MjcfReader::collect_parts(const XMLElement* container, const Pose& offset,
                               const std::string& childclass, int depth, Parts* out) {
  for (const XMLElement* c : children(container)) {
    const std::string n = c->Name();
    if (n == "frame") {
      const char* own_class = own(c, "childclass");
      const std::string cls = own_class ? own_class : childclass;
      if (own_class && !classes_.count(cls))
        fail(c, "unknown default class '" + cls + "'");
      Pose local;
      if (auto p = xml_.vec3(c, "pos")) local.p = *p;
      local.q = orientation(c, "frame", class_of(c, childclass));
      if (depth + 1 >= kMaxNesting) fail(c, "<frame>s nested more than " + std::to_string(kMaxNesting) + " deep");
      collect_parts(c, compose(offset, local), cls, depth + 1, out);
      continue;
    }
    out->emplace_back(c, offset, childclass);
  }
}

}  // namespace maxsim::mjcf_detail
