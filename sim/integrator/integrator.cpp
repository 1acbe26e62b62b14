#include "sim/integrator/integrator.hpp"

namespace maxsim {

const IntegratorScheme& variational_scheme();      // variational_scheme.cpp
const IntegratorScheme& energy_momentum_scheme();  // energy_momentum_scheme.cpp

const IntegratorScheme& integrator_scheme(Integrator integrator) {
  return integrator == Integrator::EnergyMomentum ? energy_momentum_scheme() : variational_scheme();
}

}  // namespace maxsim
