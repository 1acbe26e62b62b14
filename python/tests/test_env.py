"""The gym-style environments (maxsim.env) against the Gymnasium API contract, and the examples."""

import os
import sys

import numpy as np
import pytest

import maxsim
from maxsim.env import A1WalkEnv, Box, MaxsimEnv

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
import cartpole  # noqa: E402  (python/examples/cartpole.py)


def check_contract(env, seed, steps):
    """Shapes, dtypes, bounds, the 5-tuple, and determinism under a seed; returns the run."""
    obs, info = env.reset(seed=seed)
    assert isinstance(info, dict)
    assert obs.dtype == np.float64 and obs.shape == env.observation_space.shape
    assert env.observation_space.contains(obs)
    assert env.action_space.dtype == np.float64 and env.action_space.shape == (env.model.nu,)
    run = [obs]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        a = env.action_space.low + (env.action_space.high - env.action_space.low) * rng.uniform(size=env.action_space.shape)
        assert env.action_space.contains(a)
        obs, reward, terminated, truncated, info = env.step(a)
        assert obs.shape == env.observation_space.shape and obs.dtype == np.float64
        assert isinstance(reward, float) and np.isfinite(reward)
        assert isinstance(terminated, bool) and isinstance(truncated, bool)
        assert "failure" not in info
        # the frame_skip engine steps of the action, every one counted
        assert info["failed_steps"] == 0 and info["not_converged_steps"] == 0
        assert env.frame_skip * info["iterations_max"] >= info["iterations"] >= info["iterations_max"] >= 0
        run.append(obs)
        if terminated or truncated:
            break
    return np.array(run)


def test_a1_walk_env_contract_and_determinism():
    env = A1WalkEnv(max_episode_steps=40)
    assert env.observation_space.shape == (35,)  # qpos without x, y (17) + qvel (18)
    assert env.action_space.shape == (12,)
    assert np.all(np.isfinite(env.action_space.low)) and np.all(env.action_space.low < env.action_space.high)
    first = check_contract(env, seed=3, steps=40)
    again = check_contract(env, seed=3, steps=40)  # reset with the same seed: the same run
    assert np.array_equal(first, again)
    other = A1WalkEnv(max_episode_steps=40)
    assert np.array_equal(first, check_contract(other, seed=3, steps=40))  # a new environment too
    different = check_contract(env, seed=4, steps=1)
    assert not np.array_equal(first[0], different[0])  # the reset noise follows the seed
    # truncated after max_episode_steps, not terminated, when the robot keeps standing at home
    env.reset(seed=0)
    for k in range(40):
        obs, reward, terminated, truncated, info = env.step(env.home)
        assert not terminated
        assert truncated == (k == 39)
    assert obs[0] > 0.2  # trunk height (qpos[2]): standing on its servos
    with pytest.raises(ValueError):
        env.step(np.zeros(11))
    with pytest.raises(ValueError):
        env.step(np.full(12, np.nan))


def test_generic_env_on_a_model_file():
    env = MaxsimEnv(os.path.join(HERE, "..", "..", "tests", "data", "models", "gym_mujoco", "hopper.xml"),
                    frame_skip=4, reset_noise_scale=0.005, max_episode_steps=10)
    assert env.action_space.shape == (3,)
    assert np.all(env.action_space.low == -1) and np.all(env.action_space.high == 1)
    run = check_contract(env, seed=1, steps=10)
    assert len(run) == 11
    with pytest.raises(ValueError, match="no actuators"):
        MaxsimEnv(maxsim.load_string('<mujoco><worldbody><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>'))
    with pytest.raises(KeyError, match="no keyframe"):
        MaxsimEnv(env.model, keyframe="nosuch")


def test_box():
    b = Box(np.array([-1.0, 0.0, -np.inf]), np.array([1.0, np.inf, np.inf]), seed=0)
    assert b.shape == (3,)
    for _ in range(20):
        assert b.contains(b.sample())
    assert not b.contains(np.array([2.0, 0.0, 0.0]))
    with pytest.raises(ValueError):
        Box(1.0, 0.0)


def test_cartpole_example_balances_from_0p2_rad():
    env = cartpole.CartPoleEnv()
    gains = cartpole.random_search(env, seed=0)
    total, obs, fell = cartpole.episode(env, gains)
    assert not fell
    # after 10 s the pole is upright within 1e-3 rad and the cart back within 1 cm of the start
    # (measured: 1.4e-4 rad, 1.1e-3 m; the search converges to K ≈ (4.6, 65, 4.6, 4.9) from
    # seeds 0, 1 and 2)
    assert abs(obs[1]) < 1e-3 and abs(obs[0]) < 1e-2
    # and without control it falls
    total0, _, fell0 = cartpole.episode(env, np.zeros(4))
    assert fell0 and total0 < total
