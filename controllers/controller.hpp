// The controller interface: one way to plug C++ lambdas and classes into a step.
//
// step() calls Data::controller once per step, first, before the collide stage and the solve
// (sim/step.hpp). A controller reads the state at the current knot t — data.time, the maximal
// coordinates (data.x, q, v, w), minimal coordinates (joint_coordinates, row_coordinate in sim/state/kinematics.hpp),
// the previous step's contacts with their impulses (data.contacts) — and writes inputs that are
// held over [t, t + Δt]: data.ctrl (the model's actuators, sim/actuation.hpp), data.joint_force
// (force per free joint row), data.body_force and data.body_torque. Velocities in Data are those of the last interval [t − Δt, t], so a rate the
// controller sees is a backward difference: a one-step delay that any real sampled controller has.
//
//   Data data(model);
//   set_controller(data, [](const Model& m, Data& d) { d.joint_force[0](5) = -2.0 * ...; });
//
//   struct Hold : Controller { void control(const Model&, Data& d) override { ... } };
//   auto hold = std::make_shared<Hold>();
//   set_controller(data, hold);        // shared: the Data keeps it alive
//
// A Controller object may keep state between calls (filters, counters, logs). A controller
// installed in several Data at once is shared by them, so give each thread its own instance in
// parallel rollouts (controllers/rollout.hpp builds everything per rollout for that reason).
#pragma once

#include <functional>
#include <memory>

#include "sim/data.hpp"
#include "sim/state/kinematics.hpp"  // row_coordinate
#include "sim/model.hpp"

namespace maxsim {

// A controller as a function: reads the state, writes the inputs of the next step.
using ControlFunction = std::function<void(const Model&, Data&)>;

// A controller object, run once per step before the solve (it may keep state between calls).
class Controller {
 public:
  virtual ~Controller() = default;
  // Reads the state at data.time and writes the inputs held over the next step.
  virtual void control(const Model& model, Data& data) = 0;
};

// A lambda or function as a Controller (to keep lambdas and classes in one list).
class FunctionController : public Controller {
 public:
  // Wraps `f`.
  explicit FunctionController(ControlFunction f) : f_(std::move(f)) {}
  void control(const Model& model, Data& data) override { f_(model, data); }

 private:
  ControlFunction f_;
};

// Installs a controller as data.controller, replacing any previous one. The shared_ptr form keeps
// the object alive as long as the Data holds it; the reference form does not (the object must
// outlive every step of this Data).
void set_controller(Data& data, ControlFunction f);
void set_controller(Data& data, std::shared_ptr<Controller> controller);
void set_controller_ref(Data& data, Controller& controller);
inline void clear_controller(Data& data) { data.controller = nullptr; }


}  // namespace maxsim
