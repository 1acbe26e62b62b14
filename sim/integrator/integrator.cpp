#include "sim/integrator/integrator.hpp"

namespace maxsim {

const IntegratorScheme& variational_scheme();      // variational_scheme.cpp
const IntegratorScheme& energy_momentum_scheme();  // energy_momentum_scheme.cpp
const IntegratorScheme& newmark_scheme();          // newmark_scheme.cpp

void zero_body_edges(const Model& model, Workspace& ws) {
  BlockLdu& A = ws.ldu;
  for (size_t j = 0; j < model.joints.size(); ++j)
    if (ws.body_edge[j] >= 0) {
      A.block(A.upper_id(ws.body_edge[j])).setZero();
      A.block(A.lower_id(ws.body_edge[j])).setZero();
    }
}

const IntegratorScheme& integrator_scheme(Integrator integrator) {
  switch (integrator) {
    case Integrator::EnergyMomentum: return energy_momentum_scheme();
    case Integrator::Newmark: return newmark_scheme();
    default: return variational_scheme();
  }
}

}  // namespace maxsim
