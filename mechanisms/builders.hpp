// Classic mechanisms, built in code: the validation cases of Brüdigam et al. (2023), §5
// (pendulums, loops, chains) used by the tests, the benchmarks and the examples.
#pragma once

#include "sim/model.hpp"

namespace maxsim {

// n links of `length` and `mass` hanging from the world origin along −z, joined by `joint`
// (Revolute about x, or Spherical). radius = 0: thin rods; else solid cylinders of that radius.
// Bodies "link1".."linkN", joints "joint1".."jointN".
Model make_pendulum_chain(int n, JointType joint, double length = 1.0, double mass = 1.0,
                          double radius = 0.0, double dt = 0.01);

// Brüdigam et al. (2023), Fig. 7a: three links (l = 1, √2/2, 1; m = 1, √2/2, 1) hanging from two
// world pivots √2/2 apart and joined into a parallelogram: a kinematic loop closed by the world,
// all revolute joints about y (planar, so the 3D loop constraints are redundant).
Model make_three_link_loop(double dt = 0.01);

// Planar Grashof four-bar: a ground link welded to the world (Fixed joint), crank, coupler and
// rocker, all revolute about y; lengths ground 1.0, crank 0.4, coupler 1.0, rocker 0.8.
Model make_fourbar(double dt = 0.01);

// Brüdigam et al. (2023), Fig. 9a: a chain of `segments` four-link loops (each loop: two side
// links, the rung below them and the rung above, shared with the previous segment or the world),
// l = 1, m = 1.
Model make_loop_chain(int segments, double dt = 0.01);

// IFToMM benchmark A02: n four-bars in a row, 2n + 1 thin rods of 1 m and 1 kg, upright at the zero
// configuration. Cranks "crank0".."crankN" turn about y at A_i = (i, 0, 0) through joints "A0".."AN";
// coupler i joins the tips B_{i-1}, B_i of cranks i − 1 and i. One degree of freedom, which becomes
// n + 1 where the cranks lie flat (every loop's rows lose rank there).
Model make_fourbar_chain(int n, double dt = 0.01);

}  // namespace maxsim
