"""Balancing a cart-pole with a linear policy tuned by random search, numpy and maxsim only.

The cart slides on a rail (a slide joint, motor "push" with ctrlrange ±20 N); the pole hangs on
a hinge about y and starts 0.2 rad from upright. The policy is u = K · (x, θ, ẋ, θ̇); basic random
search (Mania et al. 2018, "Simple random search provides a competitive approach to RL": antithetic
perturbations δ, step α/(N σ_R) Σ (R(K + νδ) − R(K − νδ)) δ) tunes K from zero on the episode
return of the gym-style environment (maxsim.env.MaxsimEnv). Run it:

    PYTHONPATH=build/python /usr/bin/python3 python/examples/cartpole.py
"""

import argparse
import sys

import numpy as np

import maxsim
from maxsim.env import MaxsimEnv

CARTPOLE = """
<mujoco model="cartpole">
  <option timestep="0.01"/>
  <worldbody>
    <body name="cart">
      <joint name="slider" type="slide" axis="1 0 0"/>
      <geom name="cart" type="box" size="0.2 0.1 0.05" mass="1" contype="0" conaffinity="0"/>
      <body name="pole">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom name="pole" type="capsule" fromto="0 0 0 0 0 0.6" size="0.02" mass="0.1"
              contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="push" joint="slider" ctrllimited="true" ctrlrange="-20 20"/>
  </actuator>
</mujoco>
"""

THETA0 = 0.2  # rad from upright at the start of every episode


class CartPoleEnv(MaxsimEnv):
    """Reward 1 per step while |θ| < 0.8 rad and |x| < 2.4 m, minus a small state cost."""

    def __init__(self, max_episode_steps=500):
        super().__init__(maxsim.load_string(CARTPOLE), max_episode_steps=max_episode_steps)

    def reward(self, action, x_before):
        x, theta = self.data.qpos
        return 1.0 - 0.1 * theta * theta - 0.01 * x * x

    def is_terminated(self):
        x, theta = self.data.qpos
        return abs(theta) > 0.8 or abs(x) > 2.4


def episode(env, gains, theta0=THETA0):
    """The return of one episode from θ0 under u = K·obs, and the final observation."""
    obs, _ = env.reset(options={"qpos": [0.0, theta0], "qvel": [0.0, 0.0]})
    total = 0.0
    while True:
        obs, reward, terminated, truncated, _ = env.step(np.array([gains @ obs]))
        total += reward
        if terminated or truncated:
            return total, obs, terminated


def random_search(env, iterations=30, directions=4, step=0.5, noise=2.0, seed=0):
    rng = np.random.default_rng(seed)
    gains = np.zeros(4)
    for _ in range(iterations):
        deltas = rng.normal(size=(directions, 4))
        plus = np.array([episode(env, gains + noise * d)[0] for d in deltas])
        minus = np.array([episode(env, gains - noise * d)[0] for d in deltas])
        spread = np.concatenate([plus, minus]).std()
        if spread > 0:
            gains = gains + step / (directions * spread) * ((plus - minus) @ deltas)
    return gains


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = CartPoleEnv()
    gains = random_search(env, iterations=args.iterations, seed=args.seed)
    total, obs, fell = episode(env, gains)
    print(f"gains K = {np.array2string(gains, precision=3)}")
    print(f"from θ0 = {THETA0} rad: return {total:.1f} over {env.max_episode_steps} steps, "
          f"{'fell' if fell else 'balanced'}: final x = {obs[0]:.4f} m, θ = {obs[1]:.5f} rad")
    return 0 if not fell else 1


if __name__ == "__main__":
    sys.exit(main())
