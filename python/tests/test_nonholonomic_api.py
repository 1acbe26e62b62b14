"""The integrator and nonholonomic interfaces in Python: Model.integrator, NonholonomicConstraint,
Model.add_nonholonomic, Model.nonholonomic, integrator_support and the step's refusal. (The
engine's use of them is tested with the engine; these tests cover the plumbing.)"""

import numpy as np
import pytest

import maxsim
from conftest import PENDULUM_XML, SOURCE_DIR

DATA = SOURCE_DIR / "tests/data/nonholonomic"


def test_enums_and_names():
    assert maxsim.Integrator.Variational != maxsim.Integrator.EnergyMomentum
    assert maxsim.integrator_name(maxsim.Integrator.EnergyMomentum) == "energy-momentum"
    assert {k.name for k in maxsim.NonholonomicKind.__members__.values()} == {
        "RollingDisk", "RollingBall", "KnifeEdge", "AngularVelocity"}


@pytest.mark.parametrize("file", ["sleigh.xml", "sleigh.urdf"])
def test_loaded_constraints_and_integrator(file):
    m = maxsim.load(DATA / file)
    assert m.integrator == maxsim.Integrator.EnergyMomentum
    blade, suslov = m.nonholonomic
    assert (blade.name, blade.kind, blade.kind_name, blade.body) == (
        "blade", maxsim.NonholonomicKind.KnifeEdge, "knife_edge", m.body_index("sleigh"))
    # the runner's blade in the sleigh's body frame (origin at the CoM): see tests/data/nonholonomic
    np.testing.assert_allclose(blade.point, [0.3, 0.2, 0], atol=1e-15)
    np.testing.assert_allclose(blade.direction, [0, 1, 0], atol=1e-15)
    assert blade.rows == 1
    assert (suslov.kind, suslov.body) == (maxsim.NonholonomicKind.AngularVelocity, m.body_index("top"))
    np.testing.assert_array_equal(suslov.axis, [0, 0, 1])


def test_integrator_is_writable():
    m = maxsim.load(DATA / "disk.xml")
    assert m.integrator == maxsim.Integrator.Variational  # (not declared)
    m.integrator = maxsim.Integrator.EnergyMomentum
    assert m.integrator == maxsim.Integrator.EnergyMomentum
    m.integrator = "variational"  # the files' spelling works too
    assert m.integrator == maxsim.Integrator.Variational
    with pytest.raises(ValueError, match="'variational', 'energy-momentum'"):
        m.integrator = "rk4"


def test_numerical_damping_is_writable_and_takes_energy():
    """Model.numerical_damping (0 by default, [0, 0.5]): a damped energy-momentum pendulum loses
    energy at every step where the conservative one keeps it to solver tolerance."""
    m = maxsim.load_string(PENDULUM_XML)
    m.integrator = "energy-momentum"
    assert m.numerical_damping == 0
    energies = {}
    for nu in (0.0, 0.2):
        m.numerical_damping = nu
        d = maxsim.Data(m, contacts=False)
        maxsim.set_qpos_qvel(m, d, [1.0], [0.0])
        e = [maxsim.total_energy(m, d)]
        for _ in range(50):
            maxsim.step(m, d)
            e.append(maxsim.total_energy(m, d))
        energies[nu] = np.array(e)
    assert np.abs(energies[0.0] - energies[0.0][0]).max() < 1e-6 * abs(energies[0.0][0]) + 1e-9
    assert np.all(np.diff(energies[0.2]) <= 1e-12)
    assert energies[0.2][-1] < energies[0.2][0] - 1e-4
    for bad in (-0.1, 0.6, float("nan")):
        with pytest.raises(ValueError, match="numerical_damping"):
            m.numerical_damping = bad


def test_add_nonholonomic_by_keywords_and_by_constraint():
    m = maxsim.load_string(PENDULUM_XML)
    assert m.nonholonomic == []
    i = m.add_nonholonomic(name="blade", kind="knife_edge", body="arm", point=(0, 0, -0.5), direction=(0, 0, 2))
    assert i == 0
    c = m.nonholonomic[0]
    assert (c.name, c.kind, c.body) == ("blade", maxsim.NonholonomicKind.KnifeEdge, 0)
    np.testing.assert_array_equal(c.point, [0, 0, -0.5])
    np.testing.assert_array_equal(c.direction, [0, 0, 1])  # normalized
    disk = maxsim.NonholonomicConstraint(name="roll", kind=maxsim.NonholonomicKind.RollingDisk, body=0, radius=0.05,
                                         axis=[0, 3, 0])
    assert m.add_nonholonomic(disk) == 1
    # keywords change the constraint passed in
    assert m.add_nonholonomic(disk, name="roll2", radius=0.1) == 2
    got = m.nonholonomic
    assert [x.name for x in got] == ["blade", "roll", "roll2"]
    assert (got[1].radius, got[2].radius) == (0.05, 0.1)
    np.testing.assert_array_equal(got[1].axis, [0, 1, 0])
    assert disk.radius == 0.05  # (the caller's constraint is not changed)
    assert m.validate() == ""
    # Model.nonholonomic holds copies: changing one changes nothing in the model
    got[0].radius = 7
    assert m.nonholonomic[0].radius == 0


def test_add_nonholonomic_refuses_bad_input():
    m = maxsim.load_string(PENDULUM_XML)
    with pytest.raises(KeyError, match="no body named 'nope'"):
        m.add_nonholonomic(kind="rolling_ball", body="nope", radius=0.1)
    with pytest.raises(ValueError, match=r"body index 5 out of range \(the model has 1 bodies\)"):
        m.add_nonholonomic(kind="rolling_ball", body=5, radius=0.1)
    with pytest.raises(ValueError, match="body index -1 out of range"):
        m.add_nonholonomic(maxsim.NonholonomicConstraint(kind="rolling_ball", body=-1, radius=0.1))
    with pytest.raises(ValueError, match="kind: expected a NonholonomicKind or one of rolling_disk"):
        m.add_nonholonomic(kind="wheel", body=0)
    with pytest.raises(ValueError, match="radius must be positive"):
        m.add_nonholonomic(kind="rolling_ball", body=0, radius=0)
    with pytest.raises(ValueError, match="axis must be a finite non-zero vector"):
        m.add_nonholonomic(kind="angular_velocity", body=0, axis=(0, 0, 0))
    with pytest.raises(ValueError, match="axis: expected three numbers"):
        m.add_nonholonomic(kind="angular_velocity", body=0, axis=(0, 1))
    with pytest.raises(TypeError, match="unexpected keyword 'speed'"):
        m.add_nonholonomic(kind="rolling_ball", body=0, radius=1, speed=2)
    assert m.nonholonomic == []  # nothing was added by the refused calls


def test_data_made_before_a_new_constraint_is_refused():
    m = maxsim.load_string(PENDULUM_XML)
    old = maxsim.Data(m)
    m.add_nonholonomic(kind="angular_velocity", body="arm", axis=(1, 0, 0))
    with pytest.raises(ValueError, match=r"made before the Model's nonholonomic constraints changed \(0 then, 1 now\)"):
        maxsim.step(m, old)
    d = maxsim.Data(m)
    assert maxsim.step(m, d).status != maxsim.StepStatus.Failed


def test_energy_momentum_refuses_contacts():
    # the MJCF sleigh's geoms can never touch (no ground, contype 0 on the sleigh): it runs
    free = maxsim.load(DATA / "sleigh.xml")
    assert maxsim.integrator_support(free, maxsim.Data(free)) == ""
    m = maxsim.load(DATA / "sleigh.urdf")  # energy-momentum, standing on the ground
    d = maxsim.Data(m)  # contacts as the description asks
    msg = maxsim.integrator_support(m, d)
    assert "handles equality constraints only, not contacts (the world and body 'top' can touch)" in msg
    t0 = d.time
    with pytest.raises(ValueError, match="not contacts.*contacts=False"):
        maxsim.step(m, d)
    assert d.time == t0  # nothing stepped
    quiet = maxsim.Data(m, contacts=False)
    assert maxsim.integrator_support(m, quiet) == ""
    r = maxsim.step(m, quiet, 3)
    assert r.status != maxsim.StepStatus.Failed and r.reason is None
    # the same model under the variational integrator takes the contacts
    m.integrator = maxsim.Integrator.Variational
    assert maxsim.integrator_support(m, d) == ""
    maxsim.step(m, d)


def test_rollout_refuses_what_the_integrator_cannot_step():
    m = maxsim.load(DATA / "sleigh.urdf")
    s0 = maxsim.get_maximal_state(m, maxsim.Data(m, contacts=False))
    with pytest.raises(ValueError, match="rollout: .*not contacts"):
        maxsim.rollout(m, s0, np.zeros((2, m.njoint * 6)), control="joint_force")
    states = maxsim.rollout(m, s0, np.zeros((2, m.njoint * 6)), control="joint_force", contacts=False)
    assert states.shape == (1, 2, maxsim.maximal_state_size(m))


ROLLING_DISK_XML = """
<mujoco model="unicycle">
  <option timestep="0.05" gravity="0 0 -9.81"/>
  <custom>
    <text name="maxsim:integrator" data="energy-momentum"/>
    <text name="maxsim:nonholonomic:roll" data="rolling_disk body=disk radius=0.5 axis=1,0,0"/>
  </custom>
  <worldbody>
    <body name="disk" pos="0 0 0.5">
      <freejoint/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.125 0.0625 0.0625"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("integrator", ["energy-momentum", "variational"])
def test_rolling_disk_from_python(integrator):
    # the upright disk of Celledoni et al. (2019), §2 (mechanisms/seed_examples.hpp's make_rolling_disk):
    # spin 2, heading rate 0.5
    m = maxsim.load_string(ROLLING_DISK_XML)
    m.integrator = integrator
    d = maxsim.Data(m, contacts=False)  # (the rolling rows are its only contact with the ground)
    d.v[0] = [0, -1, 0]
    d.w[0] = [2, 0, 0.5]
    m.solver.tolerance = 1e-12
    e0 = maxsim.total_energy(m, d)
    worst = 0.0
    for _ in range(200):  # 10 s
        maxsim.step(m, d)
        worst = max(worst, abs(maxsim.total_energy(m, d) - e0) / e0)
        assert maxsim.max_nonholonomic_violation(m, d) < 1e-9
    if integrator == "energy-momentum":
        assert worst < 1e-9  # exact to solver tolerance (measured 1e-12)
    else:
        assert 1e-9 < worst < 1e-3  # not exact, bounded (measured 2e-5)
    # on its circle of radius 2 about (2, 0)
    assert abs(np.linalg.norm(d.x[0][:2] - [2, 0]) - 2) < 2e-2
    assert np.any(d.nonholonomic_impulse[0][:4] != 0)


def test_newmark_integrator_and_its_parameters():
    """Model.integrator = "newmark" with Model.newmark_beta / newmark_gamma (0.25, 0.5: the
    trapezoidal rule): the pendulum steps with its knots on the joint rows, Data.acceleration holds
    the knot accelerations; parameters outside (0, 0.5] x [0.5, 1] raise."""
    m = maxsim.load_string(PENDULUM_XML)
    m.integrator = "newmark"
    assert m.integrator == maxsim.Integrator.Newmark
    assert maxsim.integrator_name(maxsim.Integrator.Newmark) == "newmark"
    assert (m.newmark_beta, m.newmark_gamma) == (0.25, 0.5)
    d = maxsim.Data(m, contacts=False)
    assert maxsim.integrator_support(m, d) == ""
    maxsim.set_qpos_qvel(m, d, [1.0], [0.0])
    e0 = maxsim.total_energy(m, d)
    for _ in range(200):
        assert maxsim.step(m, d).ok
    # the trapezoidal rule keeps a pendulum's energy to O(dt^2): bounded, no drift
    assert abs(maxsim.total_energy(m, d) - e0) < 1e-2 * abs(e0)
    a = np.asarray(d.acceleration)
    assert a.shape == (m.nbody, 6) and np.abs(a).max() > 1  # (swinging under gravity)
    m.newmark_beta = 1 / 12
    assert m.newmark_beta == pytest.approx(1 / 12)
    for name, bad in (("newmark_beta", 0.0), ("newmark_beta", 0.6), ("newmark_gamma", 0.4), ("newmark_gamma", 1.5)):
        with pytest.raises(ValueError, match=name):
            setattr(m, name, bad)
