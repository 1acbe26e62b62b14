#include "models/builder.hpp"

#include <set>
#include <string>
#include <vector>

#include "models/load_error.hpp"

namespace maxsim {

namespace {
constexpr int kWorldGroup = -2;

struct Pose {
  Vec3 p = Vec3::Zero();
  Vec4 q = quat_identity();
};

// Pose b expressed in frame a.
Pose relative(const Pose& a, const Pose& b) {
  Pose r;
  r.p = quat_to_rot(a.q).transpose() * (b.p - a.p);
  r.q = quat_normalize(quat_mul(quat_conj(a.q), b.q));
  return r;
}
Pose compose(const Pose& a, const Pose& b) {
  Pose r;
  r.p = a.p + quat_to_rot(a.q) * b.p;
  r.q = quat_normalize(quat_mul(a.q, b.q));
  return r;
}

// A link's frame in the frame of the body it is part of (link_frame_in_body).
Pose link_in_body(const std::vector<LinkSpec>& links, const BuildResult& built, const Model& model, int l) {
  const int b = built.link_body[l];
  if (b == kWorld) return Pose{links[l].pos, links[l].quat};
  const Body& body = model.bodies[b];
  return relative(Pose{body.x0, body.q0}, Pose{links[l].pos, links[l].quat});
}
}  // namespace

void link_frame_in_body(const std::vector<LinkSpec>& links, const BuildResult& built, const Model& model, int l,
                        Vec3* pos, Vec4* quat) {
  const Pose p = link_in_body(links, built, model, l);
  *pos = p.p;
  *quat = p.q;
}

void build_model(const std::vector<LinkSpec>& links, std::vector<JointSpec> joints,
                 const LoadOptions& options, Model* model, BuildResult* result,
                 LoadReport* report) {
  const int n = static_cast<int>(links.size());
  std::vector<int> tree_spec(n, -1);
  for (int s = 0; s < static_cast<int>(joints.size()); ++s) {
    const JointSpec& j = joints[s];
    if (!j.tree) continue;
    if (j.child < 0 || j.child >= n || tree_spec[j.child] != -1)
      throw LoadError(j.file, j.line, "internal loader error: link with two tree joints");
    tree_spec[j.child] = s;
  }
  for (int l = 0; l < n; ++l)
    if (tree_spec[l] < 0)
      throw LoadError(links[l].file, links[l].line,
                      "internal loader error: link '" + links[l].name + "' has no joint");

  // Parents before children.
  std::vector<int> order;
  std::vector<int> state(n, 0);  // 0 new, 1 visiting, 2 done
  for (int l0 = 0; l0 < n; ++l0) {
    std::vector<int> chain;
    int l = l0;
    while (l >= 0 && state[l] == 0) {
      state[l] = 1;
      chain.push_back(l);
      l = joints[tree_spec[l]].parent;
    }
    if (l >= 0 && state[l] == 1)
      throw LoadError(links[l].file, links[l].line,
                      "kinematic cycle through link '" + links[l].name + "'");
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[*it] = 2;
      order.push_back(*it);
    }
  }

  // Groups of rigidly joined links; the group is named by its topmost link.
  std::vector<int> group(n);
  for (int l : order) {
    const JointSpec& s = joints[tree_spec[l]];
    group[l] = l;
    if (s.proto.type != JointType::Fixed) continue;
    const bool massless = !(links[l].mass.mass > 0);
    if (s.parent < 0) {
      if (s.static_weld) group[l] = kWorldGroup;
      continue;
    }
    const int gp = group[s.parent];
    bool merge;
    if (gp == kWorldGroup)
      merge = s.static_weld || massless;
    else
      merge = options.merge_fixed_joints || massless || !(links[s.parent].mass.mass > 0) ||
              s.static_weld;
    if (merge) group[l] = gp;
  }
  // The links of each group in index order (a group only ever joins the world from here on).
  std::vector<std::vector<int>> members(n);
  for (int l = 0; l < n; ++l)
    if (group[l] >= 0) members[group[l]].push_back(l);
  auto join_world = [&](int g) {
    for (int m : members[g]) group[m] = kWorldGroup;
    members[g].clear();
  };
  // Massless roots are part of the world; otherwise floating (or fixed with fixed_base).
  std::vector<double> group_mass(n, 0.0);
  for (int l = 0; l < n; ++l)
    if (group[l] >= 0) group_mass[group[l]] += std::max(0.0, links[l].mass.mass);
  for (int l : order) {
    JointSpec& s = joints[tree_spec[l]];
    if (!s.auto_root || group[l] != l) continue;
    if (!(group_mass[l] > 0)) {
      join_world(l);
      // children of parts of the world: re-evaluate their fixed joints
    } else {
      s.proto.type = options.fixed_base ? JointType::Fixed : JointType::Floating;
      s.frames = options.fixed_base ? FrameRule::Axis : FrameRule::FreeBase;
    }
  }
  // Links fixed to something that became the world: massless ones join it.
  for (int l : order) {
    const JointSpec& s = joints[tree_spec[l]];
    if (group[l] != l || s.proto.type != JointType::Fixed || s.parent < 0) continue;
    if (group[s.parent] == kWorldGroup && (s.static_weld || !(links[l].mass.mass > 0))) join_world(l);
  }
  if (options.fixed_base) {
    for (int l : order) {
      JointSpec& s = joints[tree_spec[l]];
      const bool world_parent = s.parent < 0 || group[s.parent] == kWorldGroup;
      if (group[l] == l && world_parent && s.proto.type == JointType::Floating) {
        s.proto.type = JointType::Fixed;
        s.frames = FrameRule::Axis;
      }
    }
  }

  // Bodies.
  result->link_body.assign(n, kWorld);
  for (int r = 0; r < n; ++r) {
    if (group[r] != r) continue;
    const Pose rep{links[r].pos, links[r].quat};
    MassProps total;
    for (int m : members[r]) {
      const Pose rel = relative(rep, Pose{links[m].pos, links[m].quat});
      total = combine_mass(total, transform_mass(links[m].mass, rel.p, rel.q));
    }
    if (!(total.mass > 0)) {
      const JointSpec& s = joints[tree_spec[r]];
      std::string jn = s.proto.name.empty() ? "" : " '" + s.proto.name + "'";
      throw LoadError(links[r].file, links[r].line,
                      "'" + links[r].name + "' has zero mass but can move (" +
                          joint_type_name(s.proto.type) + " joint" + jn +
                          "); give it an inertial with positive mass");
    }
    // A physical inertia (an unphysical one is the loaders' and validate_model's to name) must be
    // plausible too; virtual bodies' small ones are the loader's own.
    if (!links[r].is_virtual && check_mass_inertia(total.mass, total.inertia, false).empty()) {
      if (const std::string err = check_inertia_range(total.inertia, options.limits); !err.empty()) {
        std::string parts;
        for (int m : members[r])
          if (m != r && parts.size() < 200) parts += (parts.empty() ? "" : ", ") + links[m].name;
        throw LimitError(links[r].file, links[r].line,
                         "body '" + links[r].name + "'" +
                             (parts.empty() ? std::string() : " (with the parts merged into it: " + parts + ")") +
                             ": " + err);
      }
    }
    Body b;
    b.name = links[r].name;
    b.mass = total.mass;
    b.inertia = total.inertia;
    b.q0 = quat_normalize(links[r].quat);
    b.x0 = links[r].pos + quat_to_rot(b.q0) * total.com;
    b.link_origin = -total.com;
    const Pose bp{b.x0, b.q0};
    for (int m : members[r]) {
      const Pose rel = relative(bp, Pose{links[m].pos, links[m].quat});
      for (Geom g : links[m].geoms) {
        const Pose gp = compose(rel, Pose{g.pos, g.quat});
        g.pos = gp.p;
        g.quat = gp.q;
        b.geoms.push_back(std::move(g));
      }
    }
    result->link_body[r] = model->add_body(b);
  }
  for (int m = 0; m < n; ++m) {
    if (group[m] == m) continue;
    if (group[m] == kWorldGroup) {
      for (Geom g : links[m].geoms) {
        const Pose gp = compose(Pose{links[m].pos, links[m].quat}, Pose{g.pos, g.quat});
        g.pos = gp.p;
        g.quat = gp.q;
        model->world_geoms.push_back(std::move(g));
      }
      if (!links[m].name.empty()) report->merged.emplace_back(links[m].name, "world");
    } else {
      result->link_body[m] = result->link_body[group[m]];
      report->merged.emplace_back(links[m].name, links[group[m]].name);
    }
  }
  for (int l = 0; l < n; ++l)
    if (links[l].is_virtual && group[l] == l) report->virtual_bodies.push_back(links[l].name);

  // Joints.
  std::set<std::string> names;
  for (const auto& s : joints)
    if (!s.proto.name.empty()) names.insert(s.proto.name);
  auto link_in_body = [&](int l) { return maxsim::link_in_body(links, *result, *model, l); };
  result->spec_joint.assign(joints.size(), -1);
  for (int si = 0; si < static_cast<int>(joints.size()); ++si) {
    JointSpec s = joints[si];
    if (s.tree && group[s.child] != s.child) continue;  // merged (or part of the world)
    int pl = s.parent, cl = s.child;
    int pb = pl < 0 ? kWorld : result->link_body[pl];
    int cb = result->link_body[cl];
    if (!s.tree) {
      if (pb == cb) {
        throw LoadError(s.file, s.line,
                        "loop joint '" + s.proto.name + "' connects links of one rigid body (" +
                            (pb == kWorld ? std::string("the world") : model->bodies[pb].name) +
                            ")");
      }
      if (cb == kWorld) {  // the engine wants a body as child
        std::swap(pl, cl);
        std::swap(pb, cb);
        std::swap(s.parent_anchor_link, s.child_anchor_link);
        std::swap(s.parent_frame_link, s.child_frame_link);
      }
    }
    std::string name = s.proto.name;
    if (name.empty()) {
      const std::string base = model->bodies[cb].name + "_joint";
      name = base;
      for (int k = 2; names.count(name); ++k) name = base + "_" + std::to_string(k);
      names.insert(name);
    }
    Joint j = make_joint(*model, s.proto.type, pb, cb, s.anchor, s.axis, name);
    j.stiffness = s.proto.stiffness;
    j.damping = s.proto.damping;
    j.spring_ref = s.proto.spring_ref;
    j.lower = s.proto.lower;
    j.upper = s.proto.upper;
    j.effort = s.proto.effort;
    j.velocity = s.proto.velocity;
    j.friction = s.proto.friction;
    j.armature = s.proto.armature;
    j.ref = s.proto.ref;
    j.has_limits = s.proto.has_limits;
    j.cone_limit = s.proto.cone_limit;
    j.actuated = s.proto.actuated;
    j.hinge_sequence = s.proto.hinge_sequence;
    j.hinge_offset = s.proto.hinge_offset;
    j.hinge_cosine = s.proto.hinge_cosine;
    j.row_names = s.proto.row_names;
    j.row_ref = s.proto.row_ref;
    j.coordinate_order = s.proto.coordinate_order;
    const Vec4 qa = pb == kWorld ? quat_identity() : model->bodies[pb].q0;
    switch (s.frames) {
      case FrameRule::Axis:
        break;
      case FrameRule::ChildBody: {
        const Pose cl_in_b = link_in_body(cl);
        j.child_frame = cl_in_b.q;
        j.parent_frame = quat_normalize(quat_mul(quat_conj(qa), links[cl].quat));
        break;
      }
      case FrameRule::FreeBase:
        if (pb == kWorld) {
          j.parent_anchor = Vec3::Zero();
          j.parent_frame = quat_identity();
          j.child_anchor = link_in_body(cl).p;
          j.child_frame = link_in_body(cl).q;
        }
        break;
      case FrameRule::World:
        j.parent_frame = quat_normalize(quat_mul(quat_conj(qa), s.frame_world));
        j.child_frame = quat_normalize(quat_mul(quat_conj(model->bodies[cb].q0), s.frame_world));
        break;
      case FrameRule::Explicit: {
        const Pose pin = pl < 0 ? Pose{} : link_in_body(pl);
        const Pose cin = link_in_body(cl);
        const Pose pj = compose(pin, Pose{s.parent_anchor_link, s.parent_frame_link});
        const Pose cj = compose(cin, Pose{s.child_anchor_link, s.child_frame_link});
        j.parent_anchor = pj.p;
        j.parent_frame = pj.q;
        j.child_anchor = cj.p;
        j.child_frame = cj.q;
        break;
      }
    }
    // offset hinges: the child's anchor is the last hinge's (the chain's offsets from the first)
    if (j.hinge_offsets()) j.child_anchor += quat_to_rot(j.child_frame) * (j.hinge_offset[0] + j.hinge_offset[1]);
    result->spec_joint[si] = model->add_joint(j);
  }
}

const char* missing_nonholonomic_parameter(NonholonomicKind kind, const std::set<std::string>& given) {
  for (const char* key : {"radius", "axis", "direction"})
    if (nonholonomic_parameter(kind, key) == ParameterUse::Required && !given.count(key)) return key;
  return nullptr;
}

void add_nonholonomic(const std::vector<LinkSpec>& links, const BuildResult& built,
                      const std::vector<NonholonomicSpec>& specs, Model* model) {
  std::set<std::string> names;
  for (const NonholonomicSpec& s : specs) {
    const std::string what = std::string(nonholonomic_kind_name(s.proto.kind)) + " constraint '" + s.proto.name + "'";
    if (!names.insert(s.proto.name).second)
      throw LoadError(s.file, s.line, what + ": a nonholonomic constraint of this name is declared twice");
    if (built.link_body[s.link] == kWorld)
      throw LoadError(s.file, s.line, what + ": '" + links[s.link].name +
                                          "' is part of the world (fixed to it, or without mass); it cannot roll or slide");
    // as the FrameRule::Explicit joints: compose(link_in_body, pose in the link frame)
    const Pose in_body = link_in_body(links, built, *model, s.link);
    const Mat3 R = quat_to_rot(in_body.q);
    // (the parameters the kind does not take keep their defaults)
    NonholonomicConstraint c = s.proto;
    c.body = built.link_body[s.link];
    if (nonholonomic_takes(s.proto.kind, "point")) c.point = compose(in_body, Pose{s.proto.point, quat_identity()}).p;
    if (nonholonomic_takes(s.proto.kind, "axis")) c.axis = R * s.proto.axis;
    if (nonholonomic_takes(s.proto.kind, "direction")) c.direction = R * s.proto.direction;
    model->add_nonholonomic(c);
  }
}

void validate_or_throw(const Model& model, const std::string& file) {
  const std::string err = validate_model(model);
  if (!err.empty()) throw LoadError(file, "invalid model: " + err);
}

}  // namespace maxsim
