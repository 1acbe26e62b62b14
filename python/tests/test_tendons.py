"""Tendons and couplings from Python: the Robotiq-style gripper of tests/data/tendons."""

import pytest

import maxsim
from conftest import SOURCE_DIR


def test_tendon_servo_and_couplings_report_through_data():
    m = maxsim.load(str(SOURCE_DIR / "tests/data/tendons/coupled_gripper.xml"))
    assert m.tendon_names == ["split"] and m.ncoupling == 3 and m.nu == 1
    assert m.actuators[0].tendon == 0 and m.actuators[0].joint == -1
    d = maxsim.Data(m)
    d.ctrl[0] = 0.5
    for _ in range(2500):
        maxsim.step(m, d)
    # the position servo brings the tendon (each driver's angle) to its command, at rest
    assert d.tendon_length[0] == pytest.approx(0.5, abs=2e-3)
    assert abs(d.tendon_impulse[0]) < 1e-6
    assert d.coupling_impulse.shape == (3,)
    with pytest.raises(ValueError):
        d.tendon_length[0] = 1.0  # a read-only copy
