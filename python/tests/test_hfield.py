"""Height fields from Python: read a field's data, set a run-time field's heights."""

import numpy as np
import pytest

import maxsim

# A 3 x 4 field left flat by the file (to be set at run time), 0.4 m high at full elevation, and
# a ball 0.31 m above its zero level.
RUNTIME_XML = """
<mujoco model="runtime_field">
  <option timestep="0.002"/>
  <asset><hfield name="terrain" nrow="3" ncol="4" size="1 1 0.4 0.1"/></asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="terrain"/>
    <body name="ball" pos="0.2 -0.3 0.31">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"""


def test_a_ball_rests_on_heights_set_at_run_time():
    m = maxsim.load_string(RUNTIME_XML)
    assert m.hfield_names == ["terrain"]
    assert m.hfield_shape(0) == (3, 4)
    np.testing.assert_array_equal(m.hfield_data(0), np.zeros(12))
    d = maxsim.Data(m)
    # after the Data: its contact search sees the new heights from its next step
    m.set_hfield_data("terrain", np.full(12, 0.5))  # 0.5 * 0.4 m: the top at z = 0.2
    np.testing.assert_array_equal(m.hfield_data(0), np.full(12, 0.5))
    maxsim.step(m, d, 500)
    assert d.x[m.body_index("ball"), 2] == pytest.approx(0.3, abs=1e-6)


def test_bad_heights_are_refused():
    m = maxsim.load_string(RUNTIME_XML)
    with pytest.raises(KeyError):
        m.set_hfield_data("nope", np.zeros(12))
    with pytest.raises(ValueError, match="takes nrow \\* ncol = 12 values"):
        m.set_hfield_data(0, np.zeros(11))
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        m.set_hfield_data(0, np.full(12, 2.0))
    with pytest.raises(IndexError):
        m.hfield_data(3)
