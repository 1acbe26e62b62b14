// Reference trajectories of one joint coordinate: functions of time giving the desired position
// and rate (what a PD tracks, controllers/joint_pd.hpp).
#pragma once

#include <functional>
#include <vector>

namespace maxsim {

// A reference's value at one time: the desired coordinate and rate.
struct ReferencePoint {
  double q = 0;   // desired coordinate (rad or m)
  double qd = 0;  // desired rate
};

// A reference trajectory: time → desired coordinate and rate.
using Reference = std::function<ReferencePoint(double t)>;

// q(t) = value, rate 0.
Reference constant_reference(double value);

// q(t) given as a function; the rate is `rate` if given, else the central difference of q with
// h = 1e-5 s (error ~ h²·q''' and rounding ~ 1e-16·|q|/h: ~1e-10 for smooth references).
Reference function_reference(std::function<double(double)> q, std::function<double(double)> rate = {});

// A sampled table: piecewise linear between (times[k], values[k]), times strictly increasing;
// before the first and after the last sample the end value is held with rate 0; in between the
// rate is the segment's slope. Throws std::invalid_argument on an empty table, different
// lengths or times that do not increase.
Reference sampled_reference(std::vector<double> times, std::vector<double> values);

// q(t) = offset + amplitude · sin(2π t / period + phase): the rehabilitation-style sinusoid
// (the exoskeleton of Brüdigam et al. 2023, §5.4). Period must be > 0.
struct Sinusoid {
  double amplitude = 0;  // rad or m
  double period = 1;     // s
  double phase = 0;   // rad
  double offset = 0;     // rad or m
  ReferencePoint at(double t) const;  // the value and rate at time t
};
// The sinusoid as a Reference.
Reference sinusoid_reference(const Sinusoid& s);

}  // namespace maxsim
