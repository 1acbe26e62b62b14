"""The iLQR example (python/examples/ilqr_cartpole.py): a cart-pole swing-up on maxsim's transition
derivatives, the analytic ones against finite differences."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import ilqr_cartpole  # noqa: E402  (python/examples/ilqr_cartpole.py)


def test_ilqr_swings_the_pole_up_with_either_derivative():
    plant = ilqr_cartpole.CartPole()
    x0 = np.array([0.0, np.pi, 0.0, 0.0])
    horizon = int(round(3.0 / plant.dt))
    _, _, cost_first = ilqr_cartpole.rollout(plant, x0, np.full(horizon, 1.0))
    results = {}
    for analytic in (True, False):
        xs, us, cost, done, _ = ilqr_cartpole.ilqr(plant, x0, horizon, 20, analytic)
        results[analytic] = cost
        # upright (θ = 2π after one swing) and the cart back near the origin, at rest
        assert abs(np.cos(xs[-1][1]) - 1) < 1e-4, xs[-1]
        assert abs(xs[-1][0]) < 0.02 and abs(xs[-1][2]) < 0.1 and abs(xs[-1][3]) < 0.1, xs[-1]
        assert cost < 0.05 * cost_first
    # the two derivatives agree to ~1e-9: the same iterates, the same cost
    assert abs(results[True] - results[False]) < 1e-6 * results[False]
