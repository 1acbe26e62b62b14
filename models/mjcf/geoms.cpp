// <geom> (shape, size or fromto, contact and visual attributes, mesh, mass properties from
// density or mass) and <inertial>.
#include <string>

#include "models/load_error.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

Geom MjcfReader::read_geom(const XMLElement* e, const std::string& cls, const Pose& body_world,
                           const Pose& frame_offset, bool* ok, double* mass_out, bool* has_mass,
                           MassProps* props) {
  *ok = true;
  xml_.count_geom(e, "geoms");
  Geom g;
  if (const char* n = own(e, "name")) g.name = n;
  const std::string type = str(attr(e, "geom", cls, "type"), "sphere");
  if (type == "plane") g.type = GeomType::Plane;
  else if (type == "sphere") g.type = GeomType::Sphere;
  else if (type == "capsule") g.type = GeomType::Capsule;
  else if (type == "ellipsoid") g.type = GeomType::Ellipsoid;
  else if (type == "cylinder") g.type = GeomType::Cylinder;
  else if (type == "box") g.type = GeomType::Box;
  else if (type == "mesh") g.type = GeomType::Mesh;
  else if (type == "hfield") g.type = GeomType::HField;
  else
    fail(e, "unsupported geom type '" + type +
                "' (supported: plane, sphere, capsule, ellipsoid, cylinder, box, mesh, hfield)");
  std::vector<double> size = nums(attr(e, "geom", cls, "size"), 1, 3).value_or(std::vector<double>{});
  size.resize(3, 0.0);
  auto fromto = nums(attr(e, "geom", cls, "fromto"), 6, 6);
  if (fromto && (g.type == GeomType::Capsule || g.type == GeomType::Cylinder ||
                 g.type == GeomType::Box || g.type == GeomType::Ellipsoid)) {
    Vec3 a((*fromto)[0], (*fromto)[1], (*fromto)[2]), b((*fromto)[3], (*fromto)[4], (*fromto)[5]);
    Pose pa{a, quat_identity()}, pb{b, quat_identity()};
    if (global_) {
      pa = relative(body_world, pa);
      pb = relative(body_world, pb);
    } else {
      pa = compose(frame_offset, pa);
      pb = compose(frame_offset, pb);
    }
    const Vec3 d = pb.p - pa.p;
    if (d.norm() < 1e-12) fail(e, "geom fromto with coincident end points");
    g.pos = 0.5 * (pa.p + pb.p);
    g.quat = quat_z_to(d);
    const double hl = 0.5 * d.norm();
    if (g.type == GeomType::Capsule || g.type == GeomType::Cylinder) size[1] = hl;
    else size[2] = hl;
  } else {
    const Pose p = element_pose(e, "geom", cls, body_world, frame_offset);
    g.pos = p.p;
    g.quat = p.q;
  }
  auto need = [&](int k) {
    for (int i = 0; i < k; ++i)
      if (!(size[i] > 0))
        fail(e, "geom of type " + type + " needs " + std::to_string(k) + " positive size value" +
                    (k > 1 ? "s" : "") + " (or fromto for the length)");
  };
  switch (g.type) {
    case GeomType::Sphere: need(1); g.size = Vec3(size[0], 0, 0); break;
    case GeomType::Capsule:
    case GeomType::Cylinder: need(2); g.size = Vec3(size[0], size[1], 0); break;
    case GeomType::Box:
    case GeomType::Ellipsoid: need(3); g.size = Vec3(size[0], size[1], size[2]); break;
    case GeomType::Plane: g.size = Vec3(size[0], size[1], 0); break;
    case GeomType::Mesh: break;
    case GeomType::HField: {  // sized by its asset (MuJoCo: the geom's size is ignored)
      const std::string hname = str(attr(e, "geom", cls, "hfield"));
      auto it = hfield_names_.find(hname);
      if (hname.empty()) fail(e, "hfield geom without an 'hfield' attribute");
      if (it == hfield_names_.end()) fail(e, "geom refers to undefined hfield '" + hname + "'");
      g.hfield = it->second;
      const Eigen::Vector4d& s = hfields_[it->second].size;
      g.size = Vec3(s(0), s(1), s(2));
      break;
    }
  }
  // friction "sliding torsional rolling": maxsim models sliding and torsional friction; without
  // one the geom keeps -1, the world default (MuJoCo's 1, set by the reader; `--friction`
  // overrides it), and MuJoCo's torsional 0.005.
  const Attr fa = attr(e, "geom", cls, "friction");
  if (auto f = nums(fa, 1, 3)) {
    for (double v : *f)
      if (!(v >= 0)) fail(e, "geom friction must not be negative");
    g.friction = (*f)[0];
    if (f->size() >= 2) g.torsional_friction = (*f)[1];
    ++(fa.e == e ? friction_own_ : friction_class_);
  } else {
    ++friction_default_;
  }
  g.contype = integer(attr(e, "geom", cls, "contype")).value_or(1);
  g.conaffinity = integer(attr(e, "geom", cls, "conaffinity")).value_or(1);
  g.collision = !(g.contype == 0 && g.conaffinity == 0);
  if (auto m = num(attr(e, "geom", cls, "margin"))) g.margin = *m;
  if (auto c = integer(attr(e, "geom", cls, "condim"))) {
    if (*c != 1 && *c != 3 && *c != 4 && *c != 6) fail(e, "geom condim must be 1, 3, 4 or 6");
    if (*c == 6) ignore("geom condim 6's rolling friction (read as 4: sliding and torsional)");
    g.condim = *c;
  }
  if (auto p = integer(attr(e, "geom", cls, "priority"))) g.priority = *p;
  if (auto rgba = nums(attr(e, "geom", cls, "rgba"), 4, 4)) {
    g.rgba = Eigen::Vector4d((*rgba)[0], (*rgba)[1], (*rgba)[2], (*rgba)[3]);
  } else if (Attr m = attr(e, "geom", cls, "material")) {
    auto it = materials_.find(str(m));
    g.rgba = it != materials_.end() ? it->second : Eigen::Vector4d(0.5, 0.5, 0.5, 1);
  } else {
    g.rgba = Eigen::Vector4d(0.5, 0.5, 0.5, 1);
  }
  std::optional<double> mass = num(attr(e, "geom", cls, "mass"));
  const double density = num(attr(e, "geom", cls, "density")).value_or(1000.0);
  if (mass && *mass < 0) fail(e, "geom mass must not be negative");
  if (density < 0) fail(e, "geom density must not be negative");
  *has_mass = mass ? *mass > 0 : density > 0;
  if (g.type == GeomType::Mesh) {
    const std::string mname = str(attr(e, "geom", cls, "mesh"));
    if (mname.empty()) fail(e, "mesh geom without a 'mesh' attribute");
    auto it = meshes_.find(mname);
    if (it == meshes_.end()) fail(e, "geom refers to undefined mesh '" + mname + "'");
    const MeshAsset& ma = it->second;
    auto count_vertices = [&](size_t n) { xml_.count_mesh_vertices(e, n, "geoms"); };
    if (!ma.file.empty()) {
      try {
        const MeshData& d = mesh_cache_.get(ma.file, ma.scale);
        count_vertices(d.vertices.size());
        g.vertices = d.vertices;
        g.faces = d.faces;
        g.mesh_file = ma.file;
        g.mesh_scale = ma.scale;
      } catch (const LimitError&) {
        throw;
      } catch (const LoadError& err) {
        // A missing visual mesh is a warning; one that collides or carries mass is an error.
        const bool needed = g.collision || (props && *has_mass);
        if (needed)
          fail(e, "mesh '" + mname + "' (" + xml_.where(ma.e) + "): " + err.what());
        if (missing_meshes_.insert(mname).second)
          report_->warnings.push_back(xml_.where(ma.e) + ": mesh '" + mname + "': " + err.what() +
                                      "; the visual geoms using it are dropped");
        *ok = false;
        return g;
      }
    } else {
      count_vertices(ma.vertices.size());
      g.vertices = ma.vertices;
      g.faces = ma.faces;
      g.mesh_scale = ma.scale;
    }
  }
  *mass_out = 0;
  // MuJoCo's inertiagrouprange (default 0 5): geoms of other groups add no mass or inertia
  const int group = integer(attr(e, "geom", cls, "group")).value_or(0);
  const bool weighs = group >= inertia_groups_[0] && group <= inertia_groups_[1];
  if (!weighs) *has_mass = false;
  if (props && weighs && g.type != GeomType::Plane) {
    const SolidProps s = solid_props(g);
    double m = mass ? *mass : density * s.volume;
    if (m > 0 && s.volume > 0) {
      MassProps mp;
      mp.mass = m;
      mp.com = s.centroid;
      mp.inertia = s.unit_inertia * (m / s.volume);
      *props = transform_mass(mp, g.pos, g.quat);
      *mass_out = m;
    }
  }
  return g;
}

MassProps MjcfReader::read_inertial(const XMLElement* in, const std::string& name,
                                    const Pose& world) const {
  auto m = xml_.number(in, "mass");
  if (!m) fail(in, "<inertial> needs a 'mass' attribute");
  if (*m < 0) fail(in, "body '" + name + "': negative mass (" + xml_.text(in, "mass") + ")");
  Pose ip;
  if (auto p = xml_.vec3(in, "pos")) ip.p = *p;
  else fail(in, "<inertial> needs a 'pos' attribute");
  ip.q = orientation(in, "inertial", "main");
  if (global_) ip = relative(world, ip);
  Mat3 I;
  if (auto d = xml_.numbers(in, "diaginertia", 3)) {
    I = Vec3((*d)[0], (*d)[1], (*d)[2]).asDiagonal();
  } else if (auto f = xml_.numbers(in, "fullinertia", 6)) {
    const auto& v = *f;
    I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
  } else {
    fail(in, "<inertial> needs 'diaginertia' or 'fullinertia'");
  }
  if (*m > 0) {
    const std::string err = check_mass_inertia(*m, I, false);
    if (!err.empty()) fail(in, "body '" + name + "': " + err);
    // off the triangle inequality: MuJoCo refuses it unless <compiler balanceinertia="true">
    // (then every principal moment becomes their mean, adjust_masses); maxsim loads it as written
    if (!balanceinertia_)
      if (const std::string tri = triangle_inequality_violation(I); !tri.empty())
        report_->warnings.push_back(xml_.where(in) + ": body '" + name + "': " + tri +
                                    "; loaded as written (it is positive definite; MuJoCo refuses it without "
                                    "<compiler balanceinertia=\"true\">)");
  }
  MassProps mass;
  mass.mass = *m;
  mass.com = ip.p;
  mass.inertia = rotate_inertia(I, ip.q);
  return mass;
}

}  // namespace maxsim::mjcf_detail
