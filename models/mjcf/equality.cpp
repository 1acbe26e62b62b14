// <equality>: connect (a Spherical loop joint at the anchor) and weld (a Fixed loop joint) between
// two bodies; the couplings maxsim cannot represent are refused.
#include <cstring>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_equality(const XMLElement* eq) {
  for (const XMLElement* c : children(eq)) {
    const std::string n = c->Name();
    const std::string cls = class_of(c, "");
    if (n == "distance" || n == "flex") fail(c, "equality " + n + " coupling is not supported");
    if (n != "connect" && n != "weld" && n != "joint" && n != "tendon") {
      ignore("<equality><" + n + ">");
      continue;
    }
    if (auto active = boolean(attr(c, "equality", cls, "active"), false); active && !*active) {
      ignore("inactive <equality>");
      continue;
    }
    if (n == "joint" || n == "tendon") {  // couplings: read once the joints and tendons exist
      couplings_.push_back(c);
      continue;
    }
    if (own(c, "site1") || own(c, "site2"))
      fail(c, "equality " + n + " between sites is not supported (use body1/body2)");
    const char* b1 = own(c, "body1");
    if (!b1) fail(c, "equality " + n + " needs 'body1'");
    const char* b2 = own(c, "body2");
    auto find = [&](const char* bn) {
      if (!bn || std::strcmp(bn, "world") == 0) return 0;
      auto it = body_link_.find(bn);
      if (it == body_link_.end()) fail(c, std::string("equality refers to undefined body '") + bn + "'");
      return it->second;
    };
    const int l1 = find(b1), l2 = find(b2);
    if (l1 == l2) fail(c, "equality " + n + " connects body '" + std::string(b1) + "' to itself");
    JointSpec s;
    s.tree = false;
    s.parent = l1 == 0 ? -1 : l1;
    s.child = l2;
    s.file = xml_.file_of(c);
    s.line = c->GetLineNum();
    if (const char* nm = own(c, "name")) s.proto.name = nm;
    const Pose p1{links_[l1].pos, links_[l1].quat};
    if (n == "connect") {
      auto a = xml_.vec3(c, "anchor");
      if (!a) fail(c, "equality connect needs 'anchor'");
      s.proto.type = JointType::Spherical;
      s.anchor = global_ ? *a : compose(p1, Pose{*a, quat_identity()}).p;
      if (s.proto.name.empty())
        s.proto.name = std::string(b1) + "_" + (b2 ? b2 : "world") + "_connect";
    } else {
      if (auto rp = xml_.numbers(c, "relpose", 7)) {
        if (Vec4((*rp)[3], (*rp)[4], (*rp)[5], (*rp)[6]).norm() > 0)
          fail(c, "equality weld relpose is not supported (welds hold the relative pose of the file)");
      }
      s.proto.type = JointType::Fixed;
      s.anchor = links_[l2].pos;
      if (s.proto.name.empty())
        s.proto.name = std::string(b1) + "_" + (b2 ? b2 : "world") + "_weld";
    }
    if (s.child == 0) {  // the world as body2: the world is the parent
      s.child = l1;
      s.parent = -1;
    }
    specs_.push_back(s);
  }
}

// <equality joint joint1 joint2 polycoef> and <equality tendon tendon1 tendon2 polycoef>: exact
// couplings a − a0 = Σ_k polycoef[k]·(b − b0)^k (a held at polycoef[0] without b).
void MjcfReader::read_couplings(const BuildResult& built, Model* model) {
  for (const XMLElement* c : couplings_) {
    const std::string n = c->Name();
    const std::string cls = class_of(c, "");
    Coupling k;
    k.kind = n == "joint" ? Coupling::Kind::Joint : Coupling::Kind::Tendon;
    if (const char* nm = own(c, "name")) k.name = nm;
    const std::string first = n + "1", second = n + "2";
    const char* a = own(c, first.c_str());
    if (!a) fail(c, "equality " + n + " needs '" + first + "'");
    const char* b = own(c, second.c_str());
    auto tendon = [&](const char* name) {
      auto it = tendon_index_.find(name);
      if (it == tendon_index_.end()) fail(c, std::string("equality refers to undefined tendon '") + name + "'");
      return it->second;
    };
    if (k.kind == Coupling::Kind::Joint) {
      k.a = scalar_joint(c, a, built, &k.a_row);
      if (b) k.b = scalar_joint(c, b, built, &k.b_row);
    } else {
      k.a = tendon(a);
      if (b) k.b = tendon(b);
    }
    if (b && std::strcmp(a, b) == 0) fail(c, "equality " + n + " couples '" + std::string(a) + "' to itself");
    if (auto p = nums(attr(c, "equality", cls, "polycoef"), 1, 5)) {
      k.polycoef = {0, 0, 0, 0, 0};
      for (size_t i = 0; i < p->size(); ++i) k.polycoef[i] = (*p)[i];
    }
    if (k.name.empty()) k.name = std::string(a) + "_" + (b ? b : "constant") + "_" + n;
    model->couplings.push_back(k);
  }
}

}  // namespace maxsim::mjcf_detail
