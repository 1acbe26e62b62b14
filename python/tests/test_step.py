"""step(): physics, n steps, the GIL, Python controllers."""

import threading
import time

import numpy as np
import pytest

import maxsim
from conftest import PENDULUM_XML, hinge_angle


def test_pendulum_conserves_energy(pendulum):
    m, d = pendulum
    maxsim.set_joint_coordinates(m, d, 0, [1.0], [0.0])  # 57 degrees out, at rest
    e0 = maxsim.total_energy(m, d)
    energies, angles = [], []
    for _ in range(100):
        r = maxsim.step(m, d, 20)  # 2 s in all: more than one period (~1.42 s)
        assert r.status == maxsim.StepStatus.Ok
        energies.append(maxsim.total_energy(m, d))
        angles.append(hinge_angle(m, d))
    # A variational integrator's energy error stays bounded and O(dt^2): measured 2.7e-5 J here
    # (1.2e-5 of the 2.3 J the swing exchanges between its two forms, over three periods);
    # 1e-4 of the swing leaves a factor 8.
    swing = 1.01 * 9.81 * 0.5 * (1 - np.cos(1.0))
    assert max(abs(e - e0) for e in energies) < 1e-4 * max(1.0, swing)
    # and it swings, to the other side at nearly the same height (within 1 degree), its hinge
    # closed to the solver's tolerance
    assert min(angles) < -1.0 + 0.0175
    assert maxsim.max_constraint_violation(m, d) < 1e-8


def test_pendulum_period_matches_the_small_angle_law(pendulum):
    m, d = pendulum
    maxsim.set_joint_coordinates(m, d, 0, [0.05], [0.0])
    angles = []
    for _ in range(3000):  # 3 s: two downward crossings of the bottom (T ~ 1.42 s)
        maxsim.step(m, d)
        angles.append(hinge_angle(m, d))
    angles = np.array(angles)
    crossings = np.nonzero((angles[:-1] > 0) & (angles[1:] <= 0))[0]
    period = (crossings[1] - crossings[0]) * m.dt
    # physical pendulum: T = 2 pi sqrt(I / (m g l)), I about the hinge (ball 0.25 + 2/5 m r^2,
    # rod m L^2 / 3 with L = 0.45 + caps) ; the ~1 % from the rod's mass and 0.05 rad amplitude
    # is what the 2 % tolerance covers, a wrong sign or axis would not pass
    inertia = 1.0 * 0.5 ** 2 + 0.4 * 1.0 * 0.05 ** 2 + 0.01 * 0.45 ** 2 / 3
    mgl = 9.81 * (1.0 * 0.5 + 0.01 * 0.225)
    assert period == pytest.approx(2 * np.pi * np.sqrt(inertia / mgl), rel=0.02)


def test_n_steps_equal_n_single_steps(pendulum):
    m, d = pendulum
    maxsim.set_joint_coordinates(m, d, 0, [0.7], [0.0])
    e = d.copy()
    maxsim.step(m, d, 250)
    for _ in range(250):
        maxsim.step(m, e)
    np.testing.assert_array_equal(d.x, e.x)
    assert d.time == pytest.approx(0.25) and e.time == d.time


def test_step_releases_the_gil(pendulum):
    m, d = pendulum

    def measure(steps):
        window = {}

        def run():
            window["enter"] = time.perf_counter()
            maxsim.step(m, d, steps)
            window["exit"] = time.perf_counter()

        worker = threading.Thread(target=run)
        stamps = []
        worker.start()
        while worker.is_alive():  # this thread keeps running Python meanwhile ...
            stamps.append(time.perf_counter())
        worker.join()
        inside = [t for t in stamps if window["enter"] < t < window["exit"]]
        return window["exit"] - window["enter"], inside

    # a call long against the switch interval: a pendulum at rest steps without Newton
    # iterations, so the number of steps grows until the call lasts 50 ms on this machine
    steps = 100000
    span, inside = measure(steps)
    while span < 0.05 and steps < 100000 * 4**5:
        steps *= 4
        span, inside = measure(steps)
    assert span > 0.05
    # ... through the whole call: with the GIL held by step this thread could run at most one
    # switch interval (5 ms) of it, between the worker's clock reading and the call; released,
    # its clock readings cover the call end to end (half of it asked, for a loaded machine)
    assert inside and inside[-1] - inside[0] > 0.5 * span, (span, len(inside))


def test_steps_from_threads_match_serial(pendulum):
    m, _ = pendulum
    datas = [maxsim.Data(m) for _ in range(4)]
    for i, d in enumerate(datas):
        maxsim.set_joint_coordinates(m, d, 0, [0.1 * (i + 1)], [0.0])
    serial = [d.copy() for d in datas]
    threads = [threading.Thread(target=maxsim.step, args=(m, d, 500)) for d in datas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for d, s in zip(datas, serial):
        maxsim.step(m, s, 500)
        np.testing.assert_array_equal(d.x, s.x)


def test_a_python_controller_changes_the_motion(pendulum):
    m, d = pendulum
    calls = []

    def hold(model, data):
        # PD holding the arm at 0.3 rad; the model and data passed are the caller's objects
        assert model is m and data is d
        q, qd = maxsim.joint_coordinates(model, data, 0)
        data.joint_force[0, 5] = 40.0 * (0.3 - q[0]) - 4.0 * qd[0]
        calls.append(data.time)

    d.controller = hold
    assert d.controller is hold
    maxsim.step(m, d, 3000)
    assert len(calls) == 3000 and calls[0] == 0.0
    # at rest where the spring balances gravity: 40 (0.3 - q) = m g l sin q, q ~ 0.236
    q = hinge_angle(m, d)
    assert 40.0 * (0.3 - q) == pytest.approx(9.81 * 0.50225 * np.sin(q), rel=1e-3)
    d.controller = None
    maxsim.step(m, d, 10)
    assert len(calls) == 3000


class Boom(RuntimeError):
    pass


def test_a_controller_exception_propagates(pendulum):
    m, d = pendulum
    raised = Boom("from the controller")

    def failing(model, data):
        if data.time >= 0.0045:
            raise raised

    d.controller = failing
    with pytest.raises(Boom) as err:
        maxsim.step(m, d, 100)
    assert err.value is raised  # the very exception object
    # the controller runs first in a step: the failing step changed nothing
    assert d.time == pytest.approx(0.005)
    d.controller = None
    maxsim.step(m, d, 2)  # the Data still works
    assert d.time == pytest.approx(0.007)


def test_controller_must_be_callable(pendulum):
    _, d = pendulum
    with pytest.raises(TypeError):
        d.controller = 3


def test_a_copy_keeps_the_controller(pendulum):
    m, d = pendulum
    seen = []
    d.controller = lambda model, data: seen.append(data)
    c = d.copy()
    maxsim.step(m, c)
    assert seen == [c]


# A parallelogram four-bar (the rocker's tip pinned by a connect: a closed loop), no gravity, at
# rest: every step converges with no Newton iteration, until a kick on the coupler.
FOURBAR_XML = """
<mujoco>
  <option timestep="0.01" gravity="0 0 0"/>
  <worldbody>
    <body name="crank" pos="0 0 1">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/>
      <body name="coupler" pos="0 0 -0.5">
        <joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
        <body name="rocker" pos="0.5 0 0">
          <joint name="j3" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.03"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><connect body1="rocker" anchor="0 0 0.5"/></equality>
</mujoco>
"""


def test_n_steps_count_an_unconverged_step_when_the_last_is_ok():
    # With no Newton iteration allowed the kicked step (its residual is the kick's impulse) cannot
    # converge: substeps, then the loop's compliant fallback; the iterate kept is the warm start,
    # at rest, so every later step converges again with no iteration.
    m = maxsim.load_string(FOURBAR_XML)
    m.solver.max_iterations = 0
    d = maxsim.Data(m)
    coupler = m.body_index("coupler")

    def kick(model, data):
        data.body_force[coupler] = [50, 0, 20] if round(data.time / model.dt) == 3 else [0, 0, 0]

    d.controller = kick
    r = maxsim.step(m, d, 10)
    # the last step's report, as before
    assert r.status == maxsim.StepStatus.Ok and not r.relaxed and not r.substeps and r.iterations == 0
    assert r.last.ok
    # and every step's
    assert not r.ok
    assert (r.steps, r.not_converged_steps, r.relaxed_steps, r.substepped_steps, r.failed_steps) == (10, 1, 1, 1, 0)
    assert r.first_not_ok_time == pytest.approx(0.03, abs=1e-12)
    assert r.first_relaxed_time == pytest.approx(0.03, abs=1e-12)
    assert r.residual_max == pytest.approx(50 * 0.01 / 2 ** 3, abs=1e-12)  # F Δt over the Δt/8 substep
    assert r.iterations_total == 0 and r.iterations_max == 0 and r.iterations_mean == 0.0
    assert "1 not converged" in repr(r)


def test_n_steps_summary_sums_the_single_steps(drop):
    m, d = drop
    e = d.copy()
    s = maxsim.step(m, d, 60)  # the box falls 0.2 m (0.2 s), lands and rests
    reports = [maxsim.step(m, e) for _ in range(60)]
    assert s.steps == 60 and s.ok and s.first_not_ok_time is None
    assert s.iterations_total == sum(r.iterations for r in reports) > 0
    assert s.iterations_max == max(r.iterations for r in reports)
    assert s.relaxed_steps == sum(r.relaxed for r in reports)
    assert s.iterations == reports[-1].iterations
    assert np.array_equal(np.array(d.x), np.array(e.x))


def test_a_negative_number_of_steps_is_a_value_error():
    m = maxsim.load_string(FOURBAR_XML)
    d = maxsim.Data(m)
    with pytest.raises(ValueError, match="number of steps must be >= 0, not -2"):
        maxsim.step(m, d, -2)
    assert d.time == 0.0  # nothing stepped


RECOVERING_XML = """<mujoco><compiler angle="radian"/><option timestep="0.002"/><worldbody>
  <body name="rod"><joint name="h" type="hinge" axis="0 1 0" range="0.2 1" limited="true"/>
    <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/></body></worldbody>
  <actuator><motor joint="h"/></actuator></mujoco>"""


def test_a_limit_the_state_is_beyond_is_pulled_back_at_its_rate():
    # MJCF: 0.04 s, the fraction dt/tau = 0.05 of the violation per step while a motor presses the
    # hinge outwards; math.inf holds it where it starts; a negative time is refused. To the slack
    # the interior point leaves at the limit, gamma s <= 1e-8 with gamma = 20 N m * dt, in each of
    # the 10 steps.
    import math
    m = maxsim.load_string(RECOVERING_XML)
    assert m.limit_recovery_time == 0.04
    for tau, expected in [(0.04, 0.2 - 0.2 * 0.95 ** 10), (math.inf, 0.0)]:
        m.limit_recovery_time = tau
        d = maxsim.Data(m)
        d.ctrl = [-20]
        r = maxsim.step(m, d, 10)
        assert r.ok
        assert d.qpos[0] == pytest.approx(expected, abs=10 * 1e-8 / (20 * 0.002))
    with pytest.raises(ValueError, match="limit_recovery_time"):
        m.limit_recovery_time = -1
