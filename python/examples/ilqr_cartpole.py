"""A cart-pole swing-up by iLQR on maxsim's transition derivatives, analytic against finite differences.

The cart-pole of cartpole.py without its force limit starts hanging (θ = π) at rest and must stand
the pole up (θ = 0 or 2π) and bring the cart back to x = 0 within the horizon. iLQR (Li and Todorov
2004; the regularized form of Tassa et al. 2012) linearizes one step of maxsim at every knot of the
nominal trajectory, x' ≈ A δx + B δu, with A, B from `maxsim.transition_derivatives` (the implicit
function theorem on the converged step, one back-substitution per column) or from
`maxsim.transition_fd` (central differences of whole steps), solves the LQR backward pass for a
feedback law and rolls it out with a line search. The cost per step is
Δt (q_x x² + 2 q_θ (1 − cos θ) + q_v ẋ² + q_ω θ̇² + r u²), the terminal one the same state terms times
`TERMINAL`. Run it:

    PYTHONPATH=build/python /usr/bin/python3 python/examples/ilqr_cartpole.py

It prints, for each kind of derivative, the iterations, the final cost, the final state and the
time spent on derivatives and in total, then a JSON summary as its last line.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

import maxsim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cartpole  # noqa: E402  (python/examples/cartpole.py)

# cartpole.py's cart-pole at Δt = 0.02 s, its motor without the force limit
CARTPOLE = cartpole.CARTPOLE.replace('timestep="0.01"', 'timestep="0.02"').replace(
    ' ctrllimited="true" ctrlrange="-20 20"', "")
assert "ctrlrange" not in CARTPOLE and 'timestep="0.02"' in CARTPOLE

Q = np.array([1.0, 5.0, 0.1, 0.1])  # q_x, q_θ, q_v, q_ω
R = 0.01
TERMINAL = 100.0


def state_cost(x, weight):
    """w (q_x x² + 2 q_θ (1 − cos θ) + q_v ẋ² + q_ω θ̇²), its gradient and (Gauss–Newton) Hessian."""
    c = weight * (Q[0] * x[0] ** 2 + 2 * Q[1] * (1 - np.cos(x[1])) + Q[2] * x[2] ** 2 + Q[3] * x[3] ** 2)
    g = weight * np.array([2 * Q[0] * x[0], 2 * Q[1] * np.sin(x[1]), 2 * Q[2] * x[2], 2 * Q[3] * x[3]])
    # (the angle's curvature 2 q_θ cos θ is kept positive: a local model that is a minimum)
    H = weight * np.diag([2 * Q[0], 2 * Q[1] * max(np.cos(x[1]), 0.1), 2 * Q[2], 2 * Q[3]])
    return c, g, H


class CartPole:
    def __init__(self):
        self.model = maxsim.load_string(CARTPOLE)
        self.data = maxsim.Data(self.model)
        self.dt = self.model.dt

    def set_state(self, x, u):
        self.data.qpos = x[:2]
        self.data.qvel = x[2:]
        self.data.ctrl = [u]

    def step(self, x, u):
        self.set_state(x, u)
        maxsim.step(self.model, self.data)
        return np.concatenate([self.data.qpos, self.data.qvel])

    def derivatives(self, x, u, analytic):
        self.set_state(x, u)
        if analytic:
            return maxsim.transition_derivatives(self.model, self.data)
        return maxsim.transition_fd(self.model, self.data)


def rollout(plant, x0, us, xs_ref=None, k=None, K=None, alpha=1.0):
    """States and cost of the controls us (or of the feedback law u + αk + K(x − x_ref))."""
    xs = [x0]
    new_us = np.array(us, dtype=float)
    cost = 0.0
    for t in range(len(us)):
        if k is not None:
            new_us[t] = us[t] + alpha * k[t] + K[t] @ (xs[t] - xs_ref[t])
        c, _, _ = state_cost(xs[t], plant.dt)
        cost += c + plant.dt * R * new_us[t] ** 2
        xs.append(plant.step(xs[t], new_us[t]))
    cost += state_cost(xs[-1], TERMINAL)[0]
    return np.array(xs), new_us, cost


def ilqr(plant, x0, horizon, iterations, analytic, tol=1e-6):
    """Returns (states, controls, cost, iterations done, seconds in derivatives)."""
    us = np.full(horizon, 1.0)  # (a push: at rest and hanging, every gradient vanishes by symmetry)
    xs, us, cost = rollout(plant, x0, us)
    mu = 1e-6  # regularization of Q_uu (Tassa et al. 2012)
    spent = 0.0
    done = 0
    for done in range(1, iterations + 1):
        t0 = time.perf_counter()
        AB = [plant.derivatives(xs[t], us[t], analytic) for t in range(horizon)]
        spent += time.perf_counter() - t0
        _, Vx, Vxx = state_cost(xs[-1], TERMINAL)
        k = np.zeros(horizon)
        K = np.zeros((horizon, 4))
        for t in reversed(range(horizon)):
            A, B = AB[t]
            B = B[:, 0]
            _, lx, lxx = state_cost(xs[t], plant.dt)
            Qx = lx + A.T @ Vx
            Qu = 2 * plant.dt * R * us[t] + B @ Vx
            Qxx = lxx + A.T @ Vxx @ A
            Quu = 2 * plant.dt * R + B @ Vxx @ B + mu
            Qux = B @ Vxx @ A
            k[t] = -Qu / Quu
            K[t] = -Qux / Quu
            Vx = Qx + K[t] * Quu * k[t] + K[t] * Qu + Qux * k[t]
            Vxx = Qxx + Quu * np.outer(K[t], K[t]) + np.outer(K[t], Qux) + np.outer(Qux, K[t])
            Vxx = 0.5 * (Vxx + Vxx.T)
        for alpha in (1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125):
            new_xs, new_us, new_cost = rollout(plant, x0, us, xs, k, K, alpha)
            if new_cost < cost:
                break
        else:
            mu = max(10 * mu, 1e-4)  # no decrease along the step: more regularization
            continue
        improvement = cost - new_cost
        xs, us, cost = new_xs, new_us, new_cost
        mu = max(mu / 10, 1e-9)
        if improvement < tol * cost:
            break
    return xs, us, cost, done, spent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--horizon", type=float, default=3.0, help="seconds")
    args = parser.parse_args(argv)
    plant = CartPole()
    x0 = np.array([0.0, np.pi, 0.0, 0.0])
    horizon = int(round(args.horizon / plant.dt))
    summary = {}
    for analytic in (True, False):
        name = "transition_derivatives" if analytic else "transition_fd"
        t0 = time.perf_counter()
        xs, us, cost, done, spent = ilqr(plant, x0, horizon, args.iterations, analytic)
        total = time.perf_counter() - t0
        xf = xs[-1]
        print(f"{name}: {done} iterations, cost {cost:.6g}, final x {xf[0]:.4f} m, θ {xf[1]:.4f} rad, "
              f"ẋ {xf[2]:.4f}, θ̇ {xf[3]:.4f}; derivatives {spent:.3f} s of {total:.3f} s")
        summary[name] = {"iterations": done, "cost": cost, "final_state": xf.tolist(),
                         "derivative_seconds": spent, "seconds": total}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
