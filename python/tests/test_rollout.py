"""rollout(): batched, on C++ threads, deterministic, equal to the Python loop."""

import numpy as np
import pytest

import maxsim
from conftest import DROP_XML, PENDULUM_XML


def python_loop(m, s0, controls, control="ctrl"):
    d = maxsim.Data(m)
    maxsim.set_maximal_state(m, d, s0)
    out = []
    for u in controls:
        if control == "ctrl":
            d.ctrl = u
        else:
            d.joint_force = u.reshape(m.njoint, 6)
        maxsim.step(m, d)
        out.append(maxsim.get_maximal_state(m, d))
    return np.array(out)


@pytest.fixture(scope="module")
def batch():
    m = maxsim.load_string(DROP_XML)
    d = maxsim.Data(m)
    base = maxsim.get_maximal_state(m, d)
    rng = np.random.default_rng(16)
    n, steps = 6, 80  # 0.4 s: the boxes land (contacts) during the rollouts
    states = np.tile(base, (n, 1))
    box = m.body_index("box")
    ns = m.nbody
    for i in range(n):  # different heights and spins
        states[i, 1 + 3 * box + 2] += 0.05 * i
        states[i, 1 + 10 * ns + 3 * box:1 + 10 * ns + 3 * box + 3] = rng.normal(size=3)
    controls = np.zeros((n, steps, 6 * m.njoint))
    hinge = m.joint_index("hinge")
    controls[:, :, 6 * hinge + 5] = rng.normal(size=(n, steps))  # random hinge torques
    return m, states, controls


def test_rollouts_are_deterministic_across_thread_counts(batch):
    m, states, controls = batch
    one = maxsim.rollout(m, states, controls, threads=1, control="joint_force")
    two = maxsim.rollout(m, states, controls, threads=2, control="joint_force")
    assert one.shape == (len(states), controls.shape[1], maxsim.maximal_state_size(m))
    np.testing.assert_array_equal(one, two)  # bitwise
    np.testing.assert_array_equal(one, maxsim.rollout(m, states, controls, threads=2, control="joint_force"))


def test_rollouts_equal_the_serial_python_loop(batch):
    m, states, controls = batch
    rolled = maxsim.rollout(m, states, controls, threads=2, control="joint_force")
    for i in (0, 3, 5):
        np.testing.assert_array_equal(rolled[i], python_loop(m, states[i], controls[i], "joint_force"))
    # they did something: time advanced, the boxes landed on the floor
    assert rolled[0, -1, 0] == pytest.approx(controls.shape[1] * m.dt)
    assert rolled[:, -1, 1 + 3 * m.body_index("box") + 2] == pytest.approx(0.1, abs=0.02)


def test_broadcasting_and_info(batch):
    m, states, controls = batch
    jf = {"control": "joint_force"}
    shared = maxsim.rollout(m, states[0], controls[:2], threads=2, **jf)  # one state, two control sets
    assert shared.shape[0] == 2
    np.testing.assert_array_equal(shared[0], maxsim.rollout(m, states[0], controls[0], **jf)[0])
    states_out, info = maxsim.rollout(m, states[:2], controls[0], return_info=True, **jf)
    assert list(info["failed"]) == [0, 0] and list(info["not_converged"]) == [0, 0]
    # every step counted, as step(m, d, n)'s summary counts them in the serial loop
    d = maxsim.Data(m)
    maxsim.set_maximal_state(m, d, states[1])
    iterations = []
    for u in controls[0]:
        d.joint_force = u.reshape(m.njoint, 6)
        iterations.append(maxsim.step(m, d).iterations)
    assert info["iterations_max"][1] == max(iterations)
    assert info["iterations_mean"][1] == pytest.approx(np.mean(iterations), rel=1e-12)
    assert info["iterations_max"][1] > 1  # (the box landed: interior-point iterations)
    assert list(info["relaxed"]) == [0, 0] and list(info["substepped"]) == [0, 0]
    assert np.all(np.isnan(info["first_not_ok_time"])) and np.all(info["residual_max"] >= 0)


def test_bad_shapes_are_value_errors(batch):
    m, states, controls = batch
    jf = {"control": "joint_force"}
    with pytest.raises(ValueError, match="initial_states"):
        maxsim.rollout(m, states[:, :-1], controls, **jf)
    with pytest.raises(ValueError, match="controls"):
        maxsim.rollout(m, states, controls[:, :, :-1], **jf)
    with pytest.raises(ValueError, match="controls.*one per actuator"):
        maxsim.rollout(m, states, controls)  # the drop scene has no actuators: nu = 0
    with pytest.raises(ValueError, match="batch"):
        maxsim.rollout(m, states[:3], controls[:2], **jf)
    with pytest.raises(ValueError, match="control must be"):
        maxsim.rollout(m, states, controls, control="torque")


def test_ctrl_rollouts_drive_the_actuators():
    # the pendulum's motor: random torques per step and rollout, through Data.ctrl
    m = maxsim.load_string(PENDULUM_XML)
    s0 = maxsim.get_maximal_state(m, maxsim.Data(m))
    rng = np.random.default_rng(3)
    u = rng.normal(scale=2.0, size=(4, 300, m.nu))
    one = maxsim.rollout(m, s0, u, threads=1)
    two = maxsim.rollout(m, s0, u, threads=2)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one[2], python_loop(m, s0, u[2]))
    # different torques, different motions (the hinge angle is in the state's joint_angle part)
    angle = one[:, -1, -1]
    assert np.ptp(angle) > 1e-3
    # a non-finite command is refused naming its actuator
    u[1, 5, 0] = np.nan
    with pytest.raises(ValueError, match="torque"):
        maxsim.rollout(m, s0, u, threads=2)
