// No heap allocation inside a step after the first (the workspace is sized when the graph is
// built): counted with a global operator new on a steady chain, a loop, and a box resting on the
// ground (a contact set that keeps its shape).
#include <gtest/gtest.h>

#include "mechanisms/builders.hpp"
#include "sim/geometry/contact_search.hpp"
#include "sim/maxsim.hpp"
#include "tests/counting_new.hpp"

using namespace maxsim;

namespace {
long allocations_during(const Model& m, Data& d, int steps) {
  for (int k = 0; k < 5; ++k) step(m, d);  // warm-up: first steps may size the workspace
  g_allocations = 0;
  g_count_allocations = true;
  for (int k = 0; k < steps; ++k) step(m, d);
  g_count_allocations = false;
  return g_allocations.load();
}
}  // namespace

TEST(Allocation, NonePerStepForChainsAndLoops) {
  {
    Model m = make_pendulum_chain(20, JointType::Spherical, 1.0, 1.0, 0.05, 0.01);
    Data d(m);
    set_joint_coordinates(m, d, 0, {std::cos(0.1), std::sin(0.1), 0, 0}, {});
    EXPECT_EQ(allocations_during(m, d, 100), 0);
  }
  {  // joint dry friction on every free row: interior-point steps, friction folded into the rows
    Model m = make_pendulum_chain(10, JointType::Revolute, 1.0, 1.0, 0.0, 0.01);
    for (Joint& j : m.joints) j.friction[5] = 0.1;
    Data d(m);
    set_joint_coordinates(m, d, 0, {0.5}, {});
    EXPECT_EQ(allocations_during(m, d, 100), 0);
  }
  {
    Model m = make_fourbar(0.01);
    Data d(m);
    set_joint_coordinates(m, d, 1, {0.0}, {2.0});
    project_state(m, d);
    EXPECT_EQ(allocations_during(m, d, 100), 0);
  }
}

TEST(Allocation, NoneWhileAContactSetKeepsItsShape) {
  Model m;
  Body b;
  b.name = "box";
  b.inertia = inertia_box(1.0, Vec3(0.25, 0.25, 0.25));
  b.x0 = Vec3(0, 0, 0.25);
  b.geoms.push_back(make_geom(GeomType::Box, Vec3(0.25, 0.25, 0.25)));
  m.add_body(b);
  Data d(m);
  enable_contacts(m, d);
  EXPECT_EQ(allocations_during(m, d, 100), 0);
  EXPECT_EQ(d.contacts.size(), 4u);
}
