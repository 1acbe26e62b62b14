"""Shared fixtures of the Python tests (run by ctest with PYTHONPATH=build/python)."""

import os
import pathlib

import numpy as np
import pytest

import maxsim

# the repository: ctest passes it; otherwise this file's place in it (python/tests/)
SOURCE_DIR = pathlib.Path(os.environ.get("MAXSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))

# A rigid pendulum: a 1 kg ball on a massless-looking thin rod, hinged about y 1 m above
# nothing (no floor: no contacts), dt = 1 ms.
PENDULUM_XML = """
<mujoco model="pendulum">
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom name="ball" type="sphere" pos="0 0 -0.5" size="0.05" mass="1"/>
      <geom name="rod" type="capsule" fromto="0 0 0 0 0 -0.45" size="0.005" mass="0.01"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="torque" joint="hinge" gear="1"/>
  </actuator>
</mujoco>
"""

# A box dropped onto a floor plane next to a hinged pendulum: contacts, a free body, a joint.
DROP_XML = """
<mujoco model="drop">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="box" pos="0 0 0.3">
      <freejoint name="box_free"/>
      <geom name="box_geom" type="box" size="0.1 0.1 0.1" mass="2"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="sphere" pos="0 0 -0.5" size="0.05" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.fixture
def pendulum():
    m = maxsim.load_string(PENDULUM_XML)
    d = maxsim.Data(m)
    return m, d


@pytest.fixture
def drop():
    m = maxsim.load_string(DROP_XML)
    d = maxsim.Data(m)
    return m, d


def hinge_angle(m, d):
    q, _ = maxsim.joint_coordinates(m, d, m.joint_index("hinge"))
    return float(q[0])


@pytest.fixture
def source_dir():
    return SOURCE_DIR
