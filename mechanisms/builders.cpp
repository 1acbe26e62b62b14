#include "mechanisms/builders.hpp"

#include <cmath>
#include <string>

namespace maxsim {

namespace {

// A straight link between two world points (at the zero configuration), CoM at the middle,
// body z axis along the link.
int add_link(Model& m, const std::string& name, const Vec3& from, const Vec3& to, double mass,
             double radius) {
  Body b;
  b.name = name;
  b.mass = mass;
  const Vec3 d = to - from;
  b.x0 = 0.5 * (from + to);
  b.q0 = quat_z_to(d);
  b.inertia = radius > 0 ? inertia_cylinder(mass, radius, 0.5 * d.norm()) : inertia_rod(mass, d.norm());
  Geom g;
  g.type = GeomType::Capsule;
  g.size = Vec3(radius > 0 ? radius : 0.02, 0.5 * d.norm(), 0);
  b.geoms.push_back(g);
  return m.add_body(b);
}

}  // namespace

Model make_pendulum_chain(int n, JointType type, double length, double mass, double radius,
                          double dt) {
  Model m;
  m.name = std::string(joint_type_name(type)) + "_pendulum_" + std::to_string(n);
  m.opt.timestep = dt;
  for (int i = 0; i < n; ++i) {
    const Vec3 top(0, 0, -length * i), bottom(0, 0, -length * (i + 1));
    const int b = add_link(m, "link" + std::to_string(i + 1), top, bottom, mass, radius);
    m.add_joint(make_joint(m, type, i == 0 ? kWorld : b - 1, b, top, Vec3::UnitX(),
                           "joint" + std::to_string(i + 1)));
  }
  return m;
}

Model make_three_link_loop(double dt) {
  Model m;
  m.name = "three_link_loop";
  m.opt.timestep = dt;
  const double w = std::sqrt(2.0) / 2.0;
  const Vec3 A(0, 0, 0), B(w, 0, 0), A1(0, 0, -1), B1(w, 0, -1);
  const int l1 = add_link(m, "link1", A, A1, 1.0, 0.0);
  const int l2 = add_link(m, "link2", A1, B1, w, 0.0);
  const int l3 = add_link(m, "link3", B, B1, 1.0, 0.0);
  m.add_joint(make_joint(m, JointType::Revolute, kWorld, l1, A, Vec3::UnitY(), "joint1"));
  m.add_joint(make_joint(m, JointType::Revolute, l1, l2, A1, Vec3::UnitY(), "joint2"));
  m.add_joint(make_joint(m, JointType::Revolute, kWorld, l3, B, Vec3::UnitY(), "joint3"));
  m.add_joint(make_joint(m, JointType::Revolute, l2, l3, B1, Vec3::UnitY(), "joint4"));
  return m;
}

Model make_fourbar(double dt) {
  Model m;
  m.name = "fourbar";
  m.opt.timestep = dt;
  // a crank-rocker in the xz plane, solved for a consistent zero configuration
  const double lg = 1.0, lc = 0.4, lk = 1.0, lr = 0.8;
  const Vec3 O(0, 0, 0), Q(lg, 0, 0);
  const double a = M_PI / 2;  // crank angle from the ground line
  const Vec3 P = O + lc * Vec3(std::cos(a), 0, std::sin(a));
  // rocker tip R: |R − P| = lk, |R − Q| = lr (upper intersection)
  const Vec3 d = Q - P;
  const double dist = d.norm();
  const double x = (dist * dist + lk * lk - lr * lr) / (2 * dist);
  const double h = std::sqrt(lk * lk - x * x);
  const Vec3 ex = d / dist;
  const Vec3 n(-ex.z(), 0, ex.x());  // in-plane normal of P→Q
  const Vec3 R1 = P + x * ex + h * n, R2 = P + x * ex - h * n;
  const Vec3 R = R1.z() > R2.z() ? R1 : R2;
  const int ground = add_link(m, "ground", O, Q, 2.0, 0.02);
  const int crank = add_link(m, "crank", O, P, 0.4, 0.0);
  const int coupler = add_link(m, "coupler", P, R, 1.0, 0.0);
  const int rocker = add_link(m, "rocker", Q, R, 0.8, 0.0);
  m.add_joint(make_joint(m, JointType::Fixed, kWorld, ground, O, Vec3::UnitZ(), "weld"));
  m.add_joint(make_joint(m, JointType::Revolute, ground, crank, O, Vec3::UnitY(), "crank_joint"));
  m.add_joint(make_joint(m, JointType::Revolute, crank, coupler, P, Vec3::UnitY(), "coupler_joint"));
  m.add_joint(make_joint(m, JointType::Revolute, ground, rocker, Q, Vec3::UnitY(), "rocker_joint"));
  m.add_joint(make_joint(m, JointType::Revolute, coupler, rocker, R, Vec3::UnitY(), "loop_joint"));
  return m;
}

Model make_loop_chain(int segments, double dt) {
  Model m;
  m.name = "loop_chain_" + std::to_string(segments);
  m.opt.timestep = dt;
  int above = kWorld;  // the rung above the current segment
  Vec3 left(0, 0, 0), right(1, 0, 0);
  for (int k = 0; k < segments; ++k) {
    const std::string s = std::to_string(k + 1);
    const Vec3 left1 = left - Vec3(0, 0, 1), right1 = right - Vec3(0, 0, 1);
    const int lb = add_link(m, "left" + s, left, left1, 1.0, 0.0);
    const int rb = add_link(m, "right" + s, right, right1, 1.0, 0.0);
    const int rung = add_link(m, "rung" + s, left1, right1, 1.0, 0.0);
    m.add_joint(make_joint(m, JointType::Revolute, above, lb, left, Vec3::UnitY(), "left_top" + s));
    m.add_joint(make_joint(m, JointType::Revolute, above, rb, right, Vec3::UnitY(), "right_top" + s));
    m.add_joint(make_joint(m, JointType::Revolute, lb, rung, left1, Vec3::UnitY(), "left_bottom" + s));
    m.add_joint(make_joint(m, JointType::Revolute, rb, rung, right1, Vec3::UnitY(), "right_bottom" + s));
    above = rung;
    left = left1;
    right = right1;
  }
  return m;
}

Model make_fourbar_chain(int n, double dt) {
  Model m;
  m.name = "fourbar_chain_" + std::to_string(n);
  m.opt.timestep = dt;
  // upright: crank i from A_i = (i, 0, 0) to B_i = (i, 0, 1); coupler i from B_{i-1} to B_i
  int last_crank = -1;
  for (int i = 0; i <= n; ++i) {
    const std::string s = std::to_string(i);
    const Vec3 A(i, 0, 0), B(i, 0, 1);
    const int crank = add_link(m, "crank" + s, A, B, 1.0, 0.0);
    m.add_joint(make_joint(m, JointType::Revolute, kWorld, crank, A, Vec3::UnitY(), "A" + s));
    if (last_crank >= 0) {
      const int coupler = add_link(m, "coupler" + s, B - Vec3::UnitX(), B, 1.0, 0.0);
      // (names built with append: GCC 12's -Wrestrict misfires on chained operator+ here)
      std::string left = "B", right = "coupler";
      left.append(std::to_string(i - 1)).append("_coupler").append(s);
      right.append(s).append("_B").append(s);
      m.add_joint(make_joint(m, JointType::Revolute, last_crank, coupler, B - Vec3::UnitX(), Vec3::UnitY(), left));
      m.add_joint(make_joint(m, JointType::Revolute, coupler, crank, B, Vec3::UnitY(), right));
    }
    last_crank = crank;
  }
  return m;
}

}  // namespace maxsim
