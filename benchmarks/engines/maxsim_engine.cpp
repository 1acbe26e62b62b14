// maxsim as one of the compared engines: its own step on its own reading of the description, with
// the contact search the `maxsim` command installs and the description's actuators switched off.
#include <cmath>

#include "benchmarks/engines/engine.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::bench {
namespace {

class MaxsimEngine : public Engine {
 public:
  std::string name() const override { return "maxsim"; }

  void load(const SceneSetup& setup) override {
    model_ = *setup.model;
    model_.actuation = false;  // forces come from set_joint_force only (engine.hpp)
    model_.opt.timestep = setup.dt;
    data_.emplace(model_);
    set_coordinates(model_, *data_, setup.start_q, setup.start_qd);
    if (model_.contacts) enable_contacts(model_, *data_);
  }

  void set_joint_force(int joint, int row, double force) override { data_->joint_force[joint](row) += force; }

  bool step() override {
    const StepReport r = maxsim::step(model_, *data_);
    for (Vec6& f : data_->joint_force) f.setZero();
    iterations_ = r.iterations;
    return r.status == StepStatus::Ok;
  }

  void read(std::vector<BodyState>* bodies) const override { *bodies = body_states(*data_); }

  // The variational integrators keep their discrete energy, not the one of (x, v) at a knot
  // (sim/state/diagnostics.hpp): that is the quantity to measure their drift by.
  bool own_energy(double* energy) const override {
    *energy = total_energy(model_, *data_);
    return true;
  }

  int iterations() const override { return iterations_; }

 private:
  Model model_;
  std::optional<Data> data_;
  int iterations_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_maxsim_engine() { return std::make_unique<MaxsimEngine>(); }

}  // namespace maxsim::bench
