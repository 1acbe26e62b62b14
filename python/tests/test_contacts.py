"""Contacts (points, normals, impulses) and the diagnostics: energies, momenta."""

import numpy as np
import pytest

import maxsim
from conftest import DROP_XML


def test_a_resting_box_carries_its_weight_on_its_corners(drop):
    m, d = drop
    box = m.body_index("box")
    maxsim.step(m, d, 200)  # 1 s: dropped 0.2 m, landed, at rest
    assert d.x[box, 2] == pytest.approx(0.1, abs=1e-3)
    c = maxsim.contacts(m, d)
    n = len(c["body_b"])
    assert n == d.ncon == 4  # its four bottom corners on the plane
    assert set(c["body_a"]) == {-1} and set(c["body_b"]) == {box}
    np.testing.assert_allclose(c["normal"], np.tile([0, 0, 1], (n, 1)), atol=1e-12)
    np.testing.assert_allclose(np.abs(c["point_b"][:, :2]), 0.1, atol=2e-3)  # the corners
    np.testing.assert_allclose(c["point_b"][:, 2], 0.0, atol=1e-3)  # on the floor
    # the impulses over the step hold the weight: sum gamma = m g dt, to the solver's tolerance
    assert c["impulse_normal"].sum() == pytest.approx(2.0 * 9.81 * m.dt, rel=1e-6)
    np.testing.assert_allclose(c["force"].sum(axis=0), [0, 0, 2.0 * 9.81], atol=1e-4)
    assert maxsim.max_penetration(d) < 1e-6
    assert c["tangent"].shape == (n, 3, 2)


SPIN_XML = """<mujoco><option timestep="0.001"/><worldbody>
  <geom type="plane" size="1 1 0.1" condim="4" friction="1 0.02 0.0001"/>
  <body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
</worldbody></mujoco>"""


def test_torsional_friction_brakes_a_spinning_ball():
    # condim 4: the moment about the normal, mu_t m g = 0.1962 N m on I = 0.004 kg m^2, brakes the
    # spin linearly (49.05 rad/s^2); a torsion gap below the resting contact's 0 turns it off
    for gap, expected in [(1e-4, 10 - 0.02 * 9.81 / 0.004 * 0.1), (-1.0, 10.0)]:
        m = maxsim.load_string(SPIN_XML)
        m.contact.torsion_gap = gap
        d = maxsim.Data(m)
        d.qvel = [0, 0, 0, 0, 0, 10]
        maxsim.step(m, d, 100)
        assert d.qvel[5] == pytest.approx(expected, abs=1e-3)


def test_joint_rows_are_listed_on_request(drop):
    m, d = drop
    maxsim.step(m, d, 5)
    c = maxsim.contacts(m, d, all=True)
    assert (c["joint"] >= -1).all() and len(c["joint"]) >= d.ncon


def test_free_flight_conserves_momentum_and_energy():
    # the drop scene without gravity or contacts: the box spins and drifts, the pendulum rests
    m = maxsim.load_string(DROP_XML.replace('<option timestep="0.005"/>', '<option timestep="0.005" gravity="0 0 0"/>'))
    d = maxsim.Data(m, contacts=False)
    box = m.body_index("box")
    d.v[box] = [0.3, -0.2, 0.5]
    d.w[box] = [1.0, 2.0, -0.5]
    maxsim.step(m, d)
    p0 = maxsim.linear_momentum(m, d)
    l0 = maxsim.angular_momentum(m, d)
    e0 = maxsim.kinetic_energy(m, d)
    maxsim.step(m, d, 400)
    # the integrator conserves the discrete momenta exactly (to round-off and the solver's
    # tolerance, ~1e-9 relative); kinetic energy of a free rigid body likewise
    np.testing.assert_allclose(maxsim.linear_momentum(m, d), p0, atol=1e-9)
    np.testing.assert_allclose(maxsim.angular_momentum(m, d), l0, atol=1e-8)
    assert maxsim.kinetic_energy(m, d) == pytest.approx(e0, rel=1e-6)
    assert maxsim.potential_energy(m, d) == 0.0
