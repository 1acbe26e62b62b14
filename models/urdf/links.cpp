// <link>: the checks of its <inertial>, <visual> and <collision> (with the Dojo <capsule> and
// pybullet's <contact><lateral_friction>), the link frames at the zero configuration and the
// geoms made from urdfdom's geometry.
#include <cstring>

#include "models/inertia.hpp"
#include "models/load_error.hpp"
#include "models/urdf/reader.hpp"

namespace maxsim::urdf_detail {

void UrdfReader::check_origin(const XMLElement* parent) {
  if (const XMLElement* o = parent->FirstChildElement("origin")) {
    xml_.vec3(o, "xyz");
    xml_.vec3(o, "rpy");
  }
}

void UrdfReader::check_geometry(const XMLElement* owner) {
  check_origin(owner);
  const XMLElement* g = owner->FirstChildElement("geometry");
  if (!g) xml_.fail(owner, "<" + std::string(owner->Name()) + "> without <geometry>");
  const XMLElement* shape = g->FirstChildElement();
  if (!shape) xml_.fail(g, "<geometry> without a shape");
  const std::string s = shape->Name();
  // sizes as the MJCF loader takes them: a solid of zero extent has no volume, inertia or surface
  auto positive = [&](const char* attr) {
    auto v = xml_.number(shape, attr);
    if (!v) xml_.fail(shape, "<" + s + "> needs a '" + attr + "' attribute");
    if (!(*v > 0))
      xml_.fail(shape, "<" + s + "> " + attr + " must be positive (got " + xml_.text(shape, attr) + ")");
  };
  if (s == "box") {
    auto v = xml_.numbers(shape, "size", 3);
    if (!v) xml_.fail(shape, "<box> needs a 'size' attribute");
    for (double x : *v)
      if (!(x > 0)) xml_.fail(shape, "<box> size must be positive in x, y and z (got '" + xml_.text(shape, "size") + "')");
  } else if (s == "sphere") {
    // radius 0: a point contact (Drake's convention, the seed code's Atlas feet)
    auto r = xml_.number(shape, "radius");
    if (!r) xml_.fail(shape, "<sphere> needs a 'radius' attribute");
    if (!(*r >= 0)) xml_.fail(shape, "<sphere> radius must not be negative (got " + xml_.text(shape, "radius") + ")");
  } else if (s == "cylinder") {
    positive("radius");
    positive("length");
  } else if (s == "capsule") {
    // Dojo's extension (src/mechanism/urdf.jl, get_shape): length is the distance between the
    // centres of the two end spheres (Capsule(r, h): a cylinder of height h along z and spheres at
    // z = ±h/2). urdfdom is handed it as a cylinder with the same attributes.
    positive("radius");
    positive("length");
    rewrite_for_urdfdom_ = true;
  } else if (s == "mesh") {
    if (!xml_.attribute(shape, "filename")) xml_.fail(shape, "<mesh> needs a 'filename' attribute");
    if (auto scale = xml_.numbers(shape, "scale", 3))
      for (double x : *scale)
        if (x == 0) xml_.fail(shape, "<mesh> scale must not be zero (got '" + xml_.text(shape, "scale") + "')");
  } else {
    xml_.fail(shape, "unsupported geometry <" + s +
                         "> (URDF geometries: box, sphere, cylinder, mesh; Dojo extension: capsule)");
  }
  if (const XMLElement* m = owner->FirstChildElement("material")) check_material(m);
}

void UrdfReader::check_link(const XMLElement* e, LinkXml* info) {
  info->e = e;
  if (const XMLElement* in = e->FirstChildElement("inertial")) {
    check_origin(in);
    const XMLElement* m = in->FirstChildElement("mass");
    if (!m) xml_.fail(in, "<inertial> without <mass>");
    auto mass = xml_.number(m, "value");
    if (!mass) xml_.fail(m, "<mass> needs a 'value' attribute");
    if (*mass < 0)
      xml_.fail(m, "link '" + xml_.text(e, "name") + "': negative mass (" + xml_.text(m, "value") + ")");
    if (*mass > 0)
      if (const std::string err = check_mass_range(*mass, options_.limits); !err.empty())
        xml_.fail_limit(m, "link '" + xml_.text(e, "name") + "': " + err);
    const XMLElement* ie = in->FirstChildElement("inertia");
    if (!ie) xml_.fail(in, "<inertial> without <inertia>");
    double v[6];
    const char* names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    for (int k = 0; k < 6; ++k) {
      auto x = xml_.number(ie, names[k]);
      if (!x) xml_.fail(ie, std::string("<inertia> needs the attribute '") + names[k] + "'");
      v[k] = *x;
    }
    if (*mass > 0) {
      Mat3 I;
      I << v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5];
      const std::string err = check_mass_inertia(*mass, I, false);
      // a positive definite tensor off the triangle inequality (Dojo's half-cheetah torso) is no
      // rigid body's, but simulates as written: a warning
      if (err.empty())
        if (const std::string tri = triangle_inequality_violation(I); !tri.empty())
          report_->warnings.push_back(xml_.where(ie) + ": link '" + xml_.text(e, "name") + "': " + tri +
                                      "; loaded as written (it is positive definite)");
      // An unphysical inertia (not positive definite, triangle inequality violated) is only
      // fatal for a link that is a body of its own: a part merged into a body by fixed joints is
      // judged by the merged body (real files have such parts, e.g. ANYmal's flat 'hatch' and
      // its camera links). Decided after merging, in load().
      if (!err.empty()) inertia_issues_[xml_.text(e, "name")] = {ie, err};
    }
  }
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "visual" || n == "collision") {
      xml_.count_geom(c, "visual and collision geometries");
      check_geometry(c);
      (n == "visual" ? info->visuals : info->collisions).push_back(c);
    } else if (n == "contact") {
      if (const XMLElement* lf = c->FirstChildElement("lateral_friction")) {
        auto v = xml_.number(lf, "value");
        if (!v) xml_.fail(lf, "<lateral_friction> needs a 'value' attribute");
        if (*v < 0) xml_.fail(lf, "lateral_friction must not be negative");
        info->lateral_friction = *v;
      }
    }
  }
}

void UrdfReader::pose_links(const urdf::ModelInterface& model, const std::map<std::string, int>& index,
                            const std::map<std::string, std::string>& parent_joint,
                            std::vector<LinkSpec>* links_out) {
  std::vector<LinkSpec>& links = *links_out;
  // (a link is posed after its parent: the chain of unposed ancestors is walked up first, without
  // recursion, so a long chain cannot exhaust the stack; each link is posed once)
  std::vector<bool> posed(links.size(), false);
  std::vector<int> pending;
  for (size_t l0 = 0; l0 < links.size(); ++l0) {
    for (int l = static_cast<int>(l0); !posed[l];) {
      pending.push_back(l);
      auto it = parent_joint.find(links[l].name);
      if (it == parent_joint.end()) break;  // root: at the origin
      l = index.at(joints_[it->second].parent);
    }
    for (; !pending.empty(); pending.pop_back()) {
      const int l = pending.back();
      posed[l] = true;
      auto it = parent_joint.find(links[l].name);
      if (it == parent_joint.end()) continue;
      const int p = index.at(joints_[it->second].parent);
      const urdf::JointConstSharedPtr uj = urdf_joint(model, it->second);
      const urdf::Pose& o = uj->parent_to_joint_origin_transform;
      double qx, qy, qz, qw;
      o.rotation.getQuaternion(qx, qy, qz, qw);
      links[l].pos = links[p].pos + quat_to_rot(links[p].quat) * Vec3(o.position.x, o.position.y, o.position.z);
      links[l].quat = quat_normalize(quat_mul(links[p].quat, quat_normalize(Vec4(qw, qx, qy, qz))));
    }
  }
}

std::vector<Geom> UrdfReader::link_geoms(const urdf::Link& link, const LinkXml& info) {
  std::vector<Geom> out;
  const std::string base_dir = parse::dir_of(path_);
  const std::vector<std::string> pkg = package_search_path(options_);
  auto convert = [&](const urdf::Pose& origin, const urdf::GeometrySharedPtr& geo,
                     const XMLElement* xml_owner, bool collision, const std::string& name,
                     Geom* g) -> bool {
    g->name = name;
    g->collision = collision;
    g->pos = Vec3(origin.position.x, origin.position.y, origin.position.z);
    double qx, qy, qz, qw;
    origin.rotation.getQuaternion(qx, qy, qz, qw);
    g->quat = quat_normalize(Vec4(qw, qx, qy, qz));
    switch (geo->type) {
      case urdf::Geometry::SPHERE:
        g->type = GeomType::Sphere;
        g->size = Vec3(static_cast<const urdf::Sphere&>(*geo).radius, 0, 0);
        break;
      case urdf::Geometry::BOX: {
        const auto& b = static_cast<const urdf::Box&>(*geo);
        g->type = GeomType::Box;
        g->size = 0.5 * Vec3(b.dim.x, b.dim.y, b.dim.z);
        break;
      }
      case urdf::Geometry::CYLINDER: {  // or a capsule (urdfdom_text): radius, length along z
        const auto& c = static_cast<const urdf::Cylinder&>(*geo);
        const XMLElement* shape = xml_owner->FirstChildElement("geometry")->FirstChildElement();
        g->type = std::strcmp(shape->Name(), "capsule") == 0 ? GeomType::Capsule : GeomType::Cylinder;
        g->size = Vec3(c.radius, 0.5 * c.length, 0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(*geo);
        g->type = GeomType::Mesh;
        g->mesh_scale = Vec3(m.scale.x, m.scale.y, m.scale.z);
        const XMLElement* mesh_el = xml_owner->FirstChildElement("geometry")->FirstChildElement();
        std::string tried;
        const std::string file = resolve_resource(m.filename, base_dir, pkg, &tried);
        std::string problem;
        if (file.empty()) {
          problem = "mesh '" + m.filename + "' not found (looked for " + tried + ")";
        } else {
          const MeshData* data = nullptr;
          try {
            data = &meshes_.get(file, g->mesh_scale);
          } catch (const LimitError&) {
            throw;
          } catch (const LoadError& e) {
            problem = "mesh '" + m.filename + "': " + e.what();
          }
          if (data) {
            xml_.count_mesh_vertices(mesh_el, data->vertices.size(), "geometries");
            g->mesh_file = file;
            g->vertices = data->vertices;
            g->faces = data->faces;
          }
        }
        if (!problem.empty()) {
          if (collision)
            xml_.fail(mesh_el, "link '" + link.name + "': collision " + problem);
          report_->warnings.push_back(xml_.where(mesh_el) + ": link '" + link.name + "': visual " +
                                      problem + "; visual dropped");
          return false;
        }
        break;
      }
    }
    return true;
  };
  // urdfdom keeps the elements in file order, as the tinyxml2 pass does (unless its XML parser
  // reads the link differently).
  if (link.collision_array.size() != info.collisions.size() || link.visual_array.size() != info.visuals.size())
    xml_.fail(info.e, "link '" + link.name + "': urdfdom reads its <visual>/<collision> elements differently "
                      "from tinyxml2 (text XML readers disagree on?)");
  for (size_t k = 0; k < link.collision_array.size(); ++k) {
    const auto& c = *link.collision_array[k];
    Geom g;
    if (!c.geometry) continue;
    if (convert(c.origin, c.geometry, info.collisions.at(k), true, c.name, &g)) {
      if (info.lateral_friction >= 0) g.friction = info.lateral_friction;
      out.push_back(std::move(g));
    }
  }
  for (size_t k = 0; k < link.visual_array.size(); ++k) {
    const auto& v = *link.visual_array[k];
    Geom g;
    if (!v.geometry) continue;
    if (convert(v.origin, v.geometry, info.visuals.at(k), false, v.name, &g)) {
      if (v.material)
        g.rgba = Eigen::Vector4d(v.material->color.r, v.material->color.g, v.material->color.b,
                                 v.material->color.a);
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace maxsim::urdf_detail
