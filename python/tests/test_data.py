"""Data: numpy views that alias the engine's state, assignment, copies, coordinates."""

import gc

import numpy as np
import pytest

import maxsim
from conftest import DROP_XML, PENDULUM_XML, hinge_angle


def test_views_share_the_engines_memory(pendulum):
    m, d = pendulum
    x1, x2 = d.x, d.x
    assert x1.shape == (1, 3) and d.q.shape == (1, 4) and d.joint_force.shape == (1, 6)
    assert np.shares_memory(x1, x2)  # two views of one std::vector, not two copies
    assert x1.flags.writeable and x1.base is not None


def test_a_write_through_a_view_reaches_the_step(drop):
    m, d = drop
    box = m.body_index("box")
    v = d.v  # taken before the write and the step
    v[box] = [1.0, 0.0, 0.0]
    x0 = d.x[box].copy()
    maxsim.step(m, d)
    # the box flies (no contact yet, 0.2 m above the floor): x advances by v dt exactly as the
    # step's velocity update leaves v_x alone (gravity is along z)
    assert d.x[box, 0] - x0[0] == pytest.approx(1.0 * m.dt, rel=1e-12)
    assert v[box, 2] == pytest.approx(-9.81 * m.dt, rel=1e-9)  # the old view shows the new v


def test_joint_force_through_a_view_drives_the_joint(pendulum):
    m, d = pendulum
    d.joint_force[0, 5] = 2.0  # the hinge's free row: a torque about its axis
    maxsim.step(m, d, 100)
    # from hanging straight down the torque turns the arm at tau / I, I ~ 0.2525 kg m^2 about the
    # hinge: tau t^2 / (2 I) = 0.0396 rad after 0.1 s, less gravity's restoring moment as it
    # rises (a factor 1 - w0^2 t^2 / 12 ~ 0.98 with w0^2 = m g l / I); 3 % covers both
    inertia = 1.0 * 0.5 ** 2 + 0.4 * 1.0 * 0.05 ** 2 + 0.01 * 0.45 ** 2 / 3
    assert hinge_angle(m, d) == pytest.approx(2.0 * 0.1 ** 2 / (2 * inertia), rel=0.03)


def test_assignment_copies_into_the_same_memory(pendulum):
    m, d = pendulum
    view = d.w
    d.w = [[0.0, 1.5, 0.0]]
    assert view[0, 1] == 1.5 and np.shares_memory(view, d.w)
    with pytest.raises(ValueError, match="shape"):
        d.w = np.zeros((2, 3))


def test_views_keep_data_and_model_alive():
    m = maxsim.load_string(PENDULUM_XML)
    d = maxsim.Data(m)
    x = d.x
    expected = x.copy()
    del d, m
    gc.collect()
    np.testing.assert_array_equal(x, expected)  # still the Data's memory, not freed
    x[0, 0] = 3.0  # and still writable


def test_data_keeps_its_model(pendulum):
    _, d = pendulum
    m2 = maxsim.load_string(PENDULUM_XML)
    with pytest.raises(ValueError, match="another Model"):
        maxsim.step(m2, d)
    assert d.model.name == "pendulum"


def test_copy_is_independent_and_continues_identically(drop):
    m, d = drop
    maxsim.step(m, d, 60)  # the box has landed: contacts, warm starts
    assert d.ncon > 0
    c = d.copy()
    assert not np.shares_memory(c.x, d.x)
    maxsim.step(m, d, 20)
    maxsim.step(m, c, 20)
    np.testing.assert_array_equal(c.x, d.x)  # bitwise: same state, inputs, warm start
    np.testing.assert_array_equal(c.q, d.q)
    c.x[0, 0] += 1.0
    assert c.x[0, 0] != d.x[0, 0]


def test_joint_coordinates_round_trip(pendulum):
    m, d = pendulum
    maxsim.set_joint_coordinates(m, d, 0, [0.3], [0.2])
    q, qd = maxsim.joint_coordinates(m, d, 0)
    assert q[0] == pytest.approx(0.3, abs=1e-12) and qd[0] == pytest.approx(0.2, abs=1e-12)
    # the ball's CoM swings on its 0.5 m circle about the hinge at z = 1
    assert np.linalg.norm(d.x[0] - [0, 0, 1]) == pytest.approx(np.linalg.norm(m.bodies[0].x0 - [0, 0, 1]))
    qs, qds = maxsim.get_coordinates(m, d)
    assert qs == [[pytest.approx(0.3)]]
    with pytest.raises(ValueError):
        maxsim.set_joint_coordinates(m, d, 0, [0.1, 0.2], [])


def test_maximal_state_round_trip(drop):
    m, d = drop
    n = maxsim.maximal_state_size(m)
    assert n == 1 + 13 * m.nbody + 3 * m.njoint
    maxsim.step(m, d, 3)
    s = maxsim.get_maximal_state(m, d)
    assert s[0] == pytest.approx(3 * m.dt)
    e = maxsim.Data(m)
    maxsim.set_maximal_state(m, e, s)
    np.testing.assert_array_equal(e.x, d.x)
    np.testing.assert_array_equal(e.w, d.w)
    assert e.time == d.time


def test_solver_options_are_the_models(pendulum):
    m, d = pendulum
    m.solver.max_iterations = 7
    assert m.solver.max_iterations == 7
    assert maxsim.Data(m).model.solver.max_iterations == 7
    assert maxsim.load_string(PENDULUM_XML).solver.max_iterations == 50
    assert d.contact_options is not None and not d.contact_options.ground  # MJCF: no implicit ground
    assert maxsim.Data(m, contacts=False).contact_options is None


def test_interior_point_cone_weight_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.cone_weight == pytest.approx(0.1)  # seconds (docs/computation.md (111))
    m.interior_point.cone_weight = 1.0
    assert maxsim.Data(m).model.interior_point.cone_weight == 1.0
    maxsim.step(m, d)
    m.interior_point.cone_weight = 0.0
    with pytest.raises(ValueError, match="cone_weight"):
        maxsim.step(m, d)


def test_interior_point_jam_rule_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.jammed_iterations == 20  # (sim/options.hpp: 0 turns the rule off)
    assert m.interior_point.jammed_alpha == pytest.approx(0.01)
    m.interior_point.jammed_iterations = 0
    maxsim.step(m, d)
    m.interior_point.jammed_iterations = -1
    with pytest.raises(ValueError, match="jammed_iterations"):
        maxsim.step(m, d)
    m.interior_point.jammed_iterations = 10
    assert m.interior_point.jammed_window == 25  # (20 short steps of the last 25)
    m.interior_point.jammed_window = 0
    with pytest.raises(ValueError, match="jammed_window"):
        maxsim.step(m, d)
    m.interior_point.jammed_window = 25
    m.interior_point.jammed_alpha = 2.0
    with pytest.raises(ValueError, match="jammed_alpha"):
        maxsim.step(m, d)


def test_interior_point_settled_budget_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.settled_iterations == 30  # (sim/options.hpp: 0 gives max_iterations)
    m.interior_point.settled_iterations = 0
    maxsim.step(m, d)
    m.interior_point.settled_iterations = -1
    with pytest.raises(ValueError, match="settled_iterations"):
        maxsim.step(m, d)


def test_interior_point_compliant_iterations_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.compliant_iterations == 80  # (sim/options.hpp)
    m.interior_point.compliant_iterations = 0
    with pytest.raises(ValueError, match="compliant_iterations"):
        maxsim.step(m, d)
    m.interior_point.compliant_iterations = 40
    maxsim.step(m, d)


def test_interior_point_joint_friction_start_rate_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.joint_friction_start_rate == pytest.approx(0.1)  # rad/s (docs/computation.md (44))
    m.interior_point.joint_friction_start_rate = -1.0
    with pytest.raises(ValueError, match="joint_friction_start_rate"):
        maxsim.step(m, d)


def test_interior_point_joint_friction_rate_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.joint_friction_rate == pytest.approx(3e-6)  # rad/s (docs/computation.md (113))
    m.interior_point.joint_friction_rate = 0.0
    maxsim.step(m, d)
    m.interior_point.joint_friction_rate = -1.0
    with pytest.raises(ValueError, match="joint_friction_rate"):
        maxsim.step(m, d)


def test_interior_point_warm_match_radius_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.warm_match_radius == pytest.approx(1e-2)  # m (docs/computation.md (62))
    m.interior_point.warm_match_radius = 1e-3
    maxsim.step(m, d)
    m.interior_point.warm_match_radius = float("nan")
    with pytest.raises(ValueError, match="warm_match_radius"):
        maxsim.step(m, d)


def test_limit_compliance_is_the_models(pendulum):
    m, d = pendulum
    assert m.interior_point.limit_compliance == 0.0  # rigid limits (docs/computation.md (114))
    assert not m.solver.compliant_limit_fallback  # (an option: docs/performance.md)
    assert m.solver.compliant_last_resort  # (the shortest substep's last resort)
    assert m.solver.compliant_contacts_last_resort  # (with the contacts compliant too)
    assert m.solver.sticking_retry  # (Painlevé's trap: docs/computation.md (120))
    assert not m.solver.conservative_retry  # (off since 2026-12-07: docs/performance.md)
    assert m.interior_point.contact_compliance == 0.0  # rigid contacts
    assert m.solver.limit_fallback_compliance == pytest.approx(1e-3)
    m.interior_point.limit_compliance = -1.0
    with pytest.raises(ValueError, match="limit_compliance"):
        maxsim.step(m, d)
    m.interior_point.limit_compliance = 0.0
    m.solver.limit_fallback_compliance = 0.0
    with pytest.raises(ValueError, match="limit_fallback_compliance"):
        maxsim.step(m, d)
    m.solver.limit_fallback_compliance = 1e-3
    m.interior_point.contact_compliance = float("nan")
    with pytest.raises(ValueError, match="contact_compliance"):
        maxsim.step(m, d)


def test_contact_options_are_the_models(pendulum):
    m, d = pendulum
    assert not m.contact.ground  # MJCF: the file's geoms are its world
    m.contact.friction = 0.4  # a reference: the next step of every Data of m reads it
    assert m.contact.friction == 0.4 and d.contact_options.friction == 0.4
    maxsim.step(m, d)
    assert m.contact.pair_min_margin == m.contact.min_margin  # one floor by default
    m.contact.pair_min_margin = -1e-3
    with pytest.raises(ValueError, match="pair_min_margin"):
        maxsim.step(m, d)
    m.contact.pair_min_margin = 0.005
    maxsim.step(m, d)
    assert m.solver.compliant_retry == 1e-5  # the nearly rigid attempt, on by default
    m.solver.compliant_retry = -1e-5
    with pytest.raises(ValueError, match="compliant_retry"):
        maxsim.step(m, d)
    m.solver.compliant_retry = 0  # (off)
    maxsim.step(m, d)
    o = maxsim.ContactOptions()
    o.cone = maxsim.FrictionCone.Linear
    m.contact = o
    assert m.contact.cone == maxsim.FrictionCone.Linear and m.contact.friction == 0.8
    with pytest.raises(ValueError):
        maxsim.Data(m, contacts=o)  # the options are the Model's: set m.contact


def test_the_maximal_state_carries_the_unwrapped_joint_angles():
    # a hinge with a spring: the spring acts on the unwrapped angle, which a step only advances by
    # its wrapped change, so a state without it would restart the spring from angle 0
    m = maxsim.load_string(PENDULUM_XML.replace('axis="0 1 0"/>', 'axis="0 1 0" stiffness="5"/>'))
    d = maxsim.Data(m)
    maxsim.set_joint_coordinates(m, d, 0, [0.5 + 2 * np.pi], [0.0])  # one turn plus 0.5 rad
    assert d.joint_angle[0, 2] == pytest.approx(0.5 + 2 * np.pi)
    e = maxsim.Data(m)
    maxsim.set_maximal_state(m, e, maxsim.get_maximal_state(m, d))
    maxsim.step(m, d, 100)
    maxsim.step(m, e, 100)
    np.testing.assert_array_equal(e.x, d.x)
    np.testing.assert_array_equal(e.joint_angle, d.joint_angle)
