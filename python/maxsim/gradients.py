"""Gradients of a rollout's cost by the adjoint (backward) pass over the steps' derivatives.

A rollout from the state of ``data`` under the commands ``controls`` (T × nu) visits the states
x_0 … x_T (x = (qpos, qvel); derivatives in the tangent layout of ``transition_derivatives``), each
step started from set_qpos_qvel of the last state (MuJoCo's convention that (qpos, qvel) is the
state: a Data stepped on also carries its bodies' velocities over the last interval, the chord of
a rotating link, which differ from those set_qpos_qvel places at O(Δt²)); its cost is

    J = Σ_t l(x_t, u_t) + l_f(x_T).

Each step's Jacobians A_t = ∂x_{t+1}/∂x_t, B_t = ∂x_{t+1}/∂u_t and P_t = ∂x_{t+1}/∂p come from
``maxsim.transition_derivatives`` (the implicit function theorem on the step's converged
equations, docs/computation.md §17), stored on the way forward; the adjoint λ_t = ∂J/∂x_t then
runs backwards (Pontryagin's costate; Bryson and Ho 1975, ch. 2):

    λ_T = ∂l_f/∂x_T,   ∂J/∂u_t = ∂l/∂u_t + B_tᵀ λ_{t+1},   λ_t = ∂l/∂x_t + A_tᵀ λ_{t+1},
    ∂J/∂p = Σ_t P_tᵀ λ_{t+1}

— one pass whatever the number of parameters and commands, where finite differences of J need two
rollouts per parameter.
"""

import numpy as np

from . import _maxsim

__all__ = ["rollout_gradient"]


def _state(model, data):
    return np.concatenate([_maxsim.get_qpos(model, data), _maxsim.get_qvel(model, data)])


def rollout_gradient(model, data, controls, stage_cost, final_cost, parameters=(), smoothing=-1.0):
    """(J, dJ/dcontrols (T × nu), dJ/dparameters (np,), states (T+1 × (nq + nv))) of a rollout.

    ``data`` is not changed (the rollout steps a copy, without its controller). ``stage_cost(x, u, t)`` returns
    (l, ∂l/∂x, ∂l/∂u) and ``final_cost(x)`` returns (l_f, ∂l_f/∂x), with x = (qpos, qvel) as numpy
    arrays and the gradients in the tangent layout (2nv: for a ball or free joint the rotation's
    three components in its body frame). ``parameters``: (kind, name[, row]) tuples as
    ``transition_derivatives`` takes them. A step that does not converge raises ValueError (its
    derivatives would not be those of the rollout).
    """
    controls = np.asarray(controls, dtype=float)
    if controls.ndim != 2 or controls.shape[1] != model.nu:
        raise ValueError(f"controls must be T × nu = T × {model.nu}, got shape {controls.shape}")
    parameters = list(parameters)
    nq = len(_maxsim.get_qpos(model, data))
    d = data.copy()
    d.controller = None  # (the commands are the controls given)
    T = controls.shape[0]
    states = [_state(model, d)]
    cost = 0.0
    jac = []
    grads = []
    for t in range(T):
        # the state is (qpos, qvel), as the derivatives take it: each step starts from
        # set_qpos_qvel of the last one's coordinates (a plain step() also carries the interval
        # velocities a stepped Data holds beyond them, which differ at O(Δt²))
        d.qpos = states[-1][:nq]
        d.qvel = states[-1][nq:]
        d.ctrl = controls[t]
        l, lx, lu = stage_cost(states[-1], controls[t], t)
        cost += l
        grads.append((np.asarray(lx, dtype=float), np.asarray(lu, dtype=float)))
        A, B, P = _maxsim.transition_derivatives(model, d, smoothing=smoothing, parameters=parameters)
        jac.append((A, B, P))
        report = _maxsim.step(model, d)
        if report.status != _maxsim.StepStatus.Ok:
            raise ValueError(f"rollout_gradient: step {t} did not converge ({report.status})")
        states.append(_state(model, d))
    lf, lam = final_cost(states[-1])
    cost += lf
    lam = np.asarray(lam, dtype=float)
    du = np.zeros_like(controls)
    dp = np.zeros(len(parameters))
    for t in reversed(range(T)):
        A, B, P = jac[t]
        lx, lu = grads[t]
        du[t] = lu + B.T @ lam
        if parameters:
            dp += P.T @ lam
        lam = lx + A.T @ lam
    return cost, du, dp, np.array(states)
