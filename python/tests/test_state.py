"""ctrl and actuator forces, MuJoCo-layout qpos/qvel, reset to the model or a keyframe, restore."""

import numpy as np
import pytest

import maxsim
from conftest import PENDULUM_XML, SOURCE_DIR, hinge_angle

A1_SCENE = SOURCE_DIR / "robots/a1/menagerie_variant/scene.xml"

SERVO_XML = PENDULUM_XML.replace('<motor name="torque" joint="hinge" gear="1"/>',
                                 '<position name="servo" joint="hinge" kp="50" kv="5"/>')


@pytest.fixture(scope="module")
def a1():
    return maxsim.load(A1_SCENE, warn=False)


def test_ctrl_is_a_view_the_step_applies(pendulum):
    m, d = pendulum
    ctrl = d.ctrl
    assert ctrl.shape == (1,) and np.shares_memory(ctrl, d.ctrl)
    ctrl[0] = 2.0  # the motor's torque [N m]
    maxsim.step(m, d, 100)
    assert d.actuator_force[0] == 2.0  # a motor's force is its command
    inertia = 1.0 * 0.5 ** 2 + 0.4 * 1.0 * 0.05 ** 2 + 0.01 * 0.45 ** 2 / 3
    # as joint_force did in test_data: tau t^2 / (2 I), 3 % for gravity's restoring moment
    assert hinge_angle(m, d) == pytest.approx(2.0 * 0.1 ** 2 / (2 * inertia), rel=0.03)
    with pytest.raises(ValueError):
        d.ctrl = [1.0, 2.0]


def test_a_position_servo_holds_its_target():
    m = maxsim.load_string(SERVO_XML)
    d = maxsim.Data(m)
    d.ctrl = [0.4]
    maxsim.step(m, d, 4000)  # kp = 50, kv = 5 on I ~ 0.25: settled within 4 s
    q = hinge_angle(m, d)
    # at rest the servo balances gravity: kp (0.4 - q) = m g l sin q
    assert 50 * (0.4 - q) == pytest.approx(9.81 * 0.50225 * np.sin(q), rel=1e-3)
    assert d.actuator_force[0] == pytest.approx(50 * (0.4 - q), rel=1e-3)


def test_qpos_qvel_in_mujocos_layout(a1):
    d = maxsim.Data(a1)
    assert (a1.nq, a1.nv) == (19, 18)
    maxsim.reset_data(a1, d, "home")
    key = [0, 0, 0.27, 1, 0, 0, 0] + [0, 0.9, -1.8] * 4  # a1.xml's <key name="home" qpos=...>
    np.testing.assert_allclose(d.qpos, key, atol=1e-9)
    assert not d.qpos.flags.writeable  # computed from the bodies: in-place writes would be lost
    with pytest.raises(ValueError):
        d.qpos[0] = 1.0
    qvel = np.zeros(18)
    qvel[0] = 0.5  # the trunk moving along x
    d.qvel = qvel
    np.testing.assert_allclose(d.qvel, qvel, atol=1e-12)
    np.testing.assert_allclose(d.v[a1.body_index("trunk")], [0.5, 0, 0], atol=1e-12)
    qpos = np.array(key, float)
    qpos[2] = 0.4
    maxsim.set_qpos_qvel(a1, d, qpos, np.zeros(18))
    assert maxsim.get_qpos(a1, d)[2] == pytest.approx(0.4)


def test_reset_to_a_keyframe_takes_its_ctrl_and_keeps_views(a1):
    d = maxsim.Data(a1)
    x = d.x  # a view taken before the reset
    maxsim.step(a1, d, 5)
    maxsim.reset_data(a1, d, "home")
    assert d.time == 0.0
    np.testing.assert_array_equal(x, d.x)  # the old view shows the reset state: same memory
    assert np.shares_memory(x, d.x)
    key = a1.keyframes[a1.keyframe_index("home")]
    np.testing.assert_array_equal(d.ctrl, key.ctrl)  # the keyframe's ctrl (servo targets)
    with pytest.raises(KeyError, match="no keyframe named 'away'"):
        maxsim.reset_data(a1, d, "away")
    with pytest.raises(ValueError, match="out of range"):
        maxsim.reset_data(a1, d, 3)


def test_a_reset_data_runs_as_a_new_one(a1):
    d = maxsim.Data(a1)
    maxsim.reset_data(a1, d, "home")
    maxsim.step(a1, d, 30)  # contacts, warm starts, limit memory
    maxsim.reset_data(a1, d, "home")
    maxsim.step(a1, d, 30)
    fresh = maxsim.Data(a1)
    maxsim.reset_data(a1, fresh, "home")
    maxsim.step(a1, fresh, 30)
    np.testing.assert_array_equal(d.x, fresh.x)  # to the last bit
    np.testing.assert_array_equal(d.q, fresh.q)
    # standing on its servos (home ctrl): the trunk stays near its 0.27 m
    assert 0.2 < d.x[a1.body_index("trunk"), 2] < 0.35
    maxsim.reset_data(a1, d)  # the model's own pose
    np.testing.assert_array_equal(d.x, maxsim.Data(a1).x)
    assert (d.ctrl == 0).all()


def test_restore_a_snapshot(pendulum):
    m, d = pendulum
    maxsim.set_joint_coordinates(m, d, 0, [0.8], [0.0])
    maxsim.step(m, d, 50)
    snap = d.copy()
    x = d.x
    maxsim.step(m, d, 200)
    after = d.x.copy()
    d.restore(snap)
    assert d.time == snap.time and np.shares_memory(x, d.x)
    np.testing.assert_array_equal(d.x, snap.x)
    maxsim.step(m, d, 200)
    np.testing.assert_array_equal(d.x, after)  # the same continuation, bitwise
    other = maxsim.Data(maxsim.load_string(PENDULUM_XML))
    with pytest.raises(ValueError, match="another Model"):
        d.restore(other)


def test_restore_with_contacts_continues_as_the_snapshot(drop):
    m, d = drop
    maxsim.step(m, d, 60)  # the box has landed: contacts, warm starts
    assert d.ncon > 0
    snap = d.copy()
    maxsim.step(m, d, 30)
    after = d.x.copy()
    d.restore(snap)
    maxsim.step(m, d, 30)
    np.testing.assert_array_equal(d.x, after)  # the snapshot's search state came along
