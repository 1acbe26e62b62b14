"""Rollout gradients by the adjoint pass (maxsim.rollout_gradient) against central differences of
the rollout's cost, with respect to the commands and to model parameters, on a servo pendulum."""

import numpy as np
import pytest

import maxsim

VALUES = {"actuator_kp": 40.0, "actuator_kv": 1.5, "body_mass": 1.5, "joint_damping": 0.3}
TEMPLATE = """<mujoco model="sp"><option timestep="0.01"><flag contact="disable"/></option>
  <worldbody><body name="bob" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0" damping="{joint_damping!r}"/>
    <inertial pos="0 0 -0.5" mass="{body_mass!r}" diaginertia="0.001 0.001 0.001"/>
    <geom type="sphere" size="0.05" pos="0 0 -0.5" contype="0" conaffinity="0"/></body></worldbody>
  <actuator><position name="servo" joint="hinge" kp="{actuator_kp!r}" kv="{actuator_kv!r}"/></actuator></mujoco>"""


def pendulum(**changes):
    return maxsim.load_string(TEMPLATE.format(**{**VALUES, **changes}))

TARGET = np.array([0.8, 0.0])  # the angle and rate the cost asks for at the end


def stage(x, u, t):
    return 0.01 * (x[0] ** 2 + u[0] ** 2), np.array([0.02 * x[0], 0.0]), np.array([0.02 * u[0]])


def final(x):
    e = x - TARGET
    return e @ e, 2 * e


def cost_only(m, d, controls):
    return maxsim.rollout_gradient(m, d, controls, stage, final)[0]


def test_adjoint_gradient_of_a_servo_pendulum_matches_finite_differences():
    m = pendulum()
    d = maxsim.Data(m)
    d.qpos = [0.3]
    T = 40
    controls = np.linspace(0.0, 1.0, T).reshape(T, 1)
    params = [("actuator_kp", "servo"), ("actuator_kv", "servo"), ("body_mass", "bob"), ("joint_damping", "hinge")]
    J, du, dp, states = maxsim.rollout_gradient(m, d, controls, stage, final, parameters=params)
    assert states.shape == (T + 1, 2)
    assert d.time == 0  # the Data is not stepped
    assert J == pytest.approx(cost_only(m, d, controls))
    # controls: central differences of J, h = 1e-5 (their error ~1e-9 relative)
    h = 1e-5
    for t in (0, 17, T - 1):
        up, dn = controls.copy(), controls.copy()
        up[t, 0] += h
        dn[t, 0] -= h
        fd = (cost_only(m, d, up) - cost_only(m, d, dn)) / (2 * h)
        assert du[t, 0] == pytest.approx(fd, rel=1e-5, abs=1e-9)
    # parameters: central differences of J on models loaded with the parameter moved by 1e-4
    # relative (body_mass keeps the inertia tensor, as the file's <inertial> does)
    for k, (kind, _) in enumerate(params):
        h = 1e-4 * VALUES[kind]
        values = []
        for sign in (1, -1):
            mp = pendulum(**{kind: VALUES[kind] + sign * h})
            dq = maxsim.Data(mp)
            dq.qpos = [0.3]
            values.append(cost_only(mp, dq, controls))
        fd = (values[0] - values[1]) / (2 * h)
        assert abs(fd) > 1e-6
        assert dp[k] == pytest.approx(fd, rel=1e-4), kind


def test_bad_controls_are_refused():
    m = pendulum()
    d = maxsim.Data(m)
    with pytest.raises(ValueError, match="T × nu"):
        maxsim.rollout_gradient(m, d, np.zeros((3, 2)), stage, final)


def test_force_inputs_and_friction_parameters():
    """F = dx'/df of a joint row's applied force equals the column of a gear-1 motor on that row;
    a geom's friction coefficient is a parameter column matching finite differences (1e-4, a sliding
    sphere); unknown names raise KeyError."""
    m = maxsim.load_string("""<mujoco model="fp"><option timestep="0.002"><flag contact="disable"/></option>
      <worldbody><body name="bob" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom type="sphere" size="0.01" pos="0 0 -0.8" mass="2"/></body></worldbody>
      <actuator><motor name="m" joint="hinge"/></actuator></mujoco>""")
    d = maxsim.Data(m)
    maxsim.set_qpos_qvel(m, d, [0.3], [-0.5])
    A, B, F = maxsim.transition_derivatives(m, d, forces=["hinge"])
    assert F.shape == (2, 1)
    np.testing.assert_allclose(F, B, rtol=1e-9, atol=0)
    with pytest.raises(KeyError):
        maxsim.transition_derivatives(m, d, forces=["hinj"])

    s = maxsim.load_string("""<mujoco model="fs"><option timestep="0.002"/>
      <worldbody><geom name="floor" type="plane" size="50 50 0.1" friction="0.3"/>
        <body name="b" pos="0 0 0.1"><freejoint/><geom name="ball" type="sphere" size="0.1" mass="1" friction="0.4"/></body>
      </worldbody><keyframe><key qpos="0 0 0.0999 1 0 0 0" qvel="3 1 0 0 0 5"/></keyframe></mujoco>""")
    ds = maxsim.Data(s)
    maxsim.reset_data(s, ds, 0)
    for _ in range(20):
        maxsim.step(s, ds)
    p = [("geom_friction", "ball")]
    _, _, P = maxsim.transition_derivatives(s, ds, parameters=p)
    _, _, Pfd = maxsim.transition_fd(s, ds, eps=1e-4, parameters=p)
    assert np.abs(Pfd).max() > 1e-3
    assert np.abs(P - Pfd).max() < 1e-4 * np.abs(Pfd).max()
    with pytest.raises(KeyError):
        maxsim.transition_derivatives(s, ds, parameters=[("geom_friction", "bal")])
