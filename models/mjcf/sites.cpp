// <site>: named frames in bodies (spatial tendon paths, sensors). Read with the link they are
// declared in; once build_model has merged links into bodies, placed in Model::sites in the frame
// of the body they are part of (the CoM frame), or in the world for sites of the world and of
// bodies welded to it.
#include "models/load_error.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::read_site(const XMLElement* e, int link, const std::string& cls,
                           const Pose& link_world, const Pose& frame_offset) {
  SiteSpec s;
  s.name = xml_.text(e, "name");
  s.link = link;
  s.e = e;
  const std::string type = str(attr(e, "site", cls, "type"), "sphere");
  static const std::pair<const char*, GeomType> kShapes[] = {{"sphere", GeomType::Sphere}, {"capsule", GeomType::Capsule},
      {"cylinder", GeomType::Cylinder}, {"ellipsoid", GeomType::Ellipsoid}, {"box", GeomType::Box}};
  bool known = false;
  for (const auto& [name, shape] : kShapes)
    if (type == name) {
      s.type = shape;
      known = true;
    }
  if (!known) fail(e, "site type '" + type + "' is not one of sphere, capsule, cylinder, ellipsoid, box");
  if (auto size = nums(attr(e, "site", cls, "size"), 1, 3)) {
    // (MuJoCo: the values not given keep the default 0.005)
    for (size_t k = 0; k < size->size(); ++k) s.size(static_cast<int>(k)) = (*size)[k];
  }
  auto fromto = nums(attr(e, "site", cls, "fromto"), 6, 6);
  if (fromto && (type == "capsule" || type == "cylinder" || type == "box" || type == "ellipsoid")) {
    // the frame at the midpoint with z along the segment, as for geoms
    Pose a{Vec3((*fromto)[0], (*fromto)[1], (*fromto)[2]), quat_identity()};
    Pose b{Vec3((*fromto)[3], (*fromto)[4], (*fromto)[5]), quat_identity()};
    a = global_ ? relative(link_world, a) : compose(frame_offset, a);
    b = global_ ? relative(link_world, b) : compose(frame_offset, b);
    const Vec3 d = b.p - a.p;
    if (d.norm() < 1e-12) fail(e, "site fromto with coincident end points");
    s.pose = Pose{0.5 * (a.p + b.p), quat_z_to(d)};
    if (s.type != GeomType::Ellipsoid && s.type != GeomType::Box) s.size(1) = 0.5 * d.norm();  // (the half length)
    else s.size(2) = 0.5 * d.norm();
  } else {
    s.pose = element_pose(e, "site", cls, link_world, frame_offset);
  }
  for (const SiteSpec& o : sites_)
    if (!s.name.empty() && o.name == s.name) fail(e, "duplicate site name '" + s.name + "'");
  sites_.push_back(s);
}

void MjcfReader::add_sites(const BuildResult& built, Model* model) const {
  for (const SiteSpec& s : sites_) {
    Site site;
    site.name = s.name;
    site.body = s.link == 0 ? kWorld : built.link_body[s.link];  // (the world: link 0, identity)
    Pose link;
    link_frame_in_body(links_, built, *model, s.link, &link.p, &link.q);
    const Pose p = compose(link, s.pose);
    site.pos = p.p;
    site.quat = p.q;
    site.type = s.type;
    site.size = s.size;
    model->sites.push_back(site);
  }
}

}  // namespace maxsim::mjcf_detail
