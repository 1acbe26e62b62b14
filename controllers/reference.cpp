#include "controllers/reference.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace maxsim {

Reference constant_reference(double value) {
  return [value](double) { return ReferencePoint{value, 0.0}; };
}

Reference function_reference(std::function<double(double)> q, std::function<double(double)> rate) {
  if (!q) throw std::invalid_argument("function_reference: no function");
  if (rate) return [q, rate](double t) { return ReferencePoint{q(t), rate(t)}; };
  return [q](double t) {
    constexpr double h = 1e-5;
    return ReferencePoint{q(t), (q(t + h) - q(t - h)) / (2 * h)};
  };
}

Reference sampled_reference(std::vector<double> times, std::vector<double> values) {
  if (times.empty() || times.size() != values.size())
    throw std::invalid_argument("sampled_reference: need as many values as times (at least one)");
  for (size_t k = 1; k < times.size(); ++k)
    if (!(times[k] > times[k - 1])) throw std::invalid_argument("sampled_reference: times must increase");
  return [t_ = std::move(times), v_ = std::move(values)](double t) {
    if (t <= t_.front()) return ReferencePoint{v_.front(), 0.0};
    if (t >= t_.back()) return ReferencePoint{v_.back(), 0.0};
    const size_t k = static_cast<size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin()) - 1;
    const double slope = (v_[k + 1] - v_[k]) / (t_[k + 1] - t_[k]);
    return ReferencePoint{v_[k] + slope * (t - t_[k]), slope};
  };
}

ReferencePoint Sinusoid::at(double t) const {
  const double w = 2 * std::numbers::pi / period;
  return ReferencePoint{offset + amplitude * std::sin(w * t + phase), amplitude * w * std::cos(w * t + phase)};
}

Reference sinusoid_reference(const Sinusoid& s) {
  if (!(s.period > 0)) throw std::invalid_argument("sinusoid_reference: period must be > 0");
  return [s](double t) { return s.at(t); };
}

}  // namespace maxsim
