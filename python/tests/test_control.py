"""End-to-end checks of control from Python: the A1's MJCF stands under a PD law written in
Python, and one control sequence gives the same trajectory, to the last bit, through a Python
loop, through rollout() on C++ threads and through `maxsim simulate --ctrl-file`."""

import csv
import os
import subprocess

import numpy as np
import pytest

import maxsim
from conftest import SOURCE_DIR

SCENE = str(SOURCE_DIR / "robots" / "a1" / "menagerie_variant" / "scene.xml")
BINARY_DIR = os.environ.get("MAXSIM_BINARY_DIR", str(SOURCE_DIR / "build"))


def test_a1_stands_under_a_python_pd_law():
    m = maxsim.load(SCENE, warn=False)
    m.actuation = False  # the file's position servos off: the torques come from Python alone
    d = maxsim.Data(m)
    home = m.keyframe_index("home")
    maxsim.reset_data(m, d, home)
    target = np.array(m.keyframes[home].ctrl)  # the standing pose's joint angles
    joints = [a.joint for a in m.actuators]
    qa = np.array(m.qpos_addresses)[joints]
    va = np.array(m.qvel_addresses)[joints]
    torques = []

    def pd(model, data):
        q, qd = data.qpos[qa], data.qvel[va]
        tau = np.clip(60.0 * (target - q) - 2.0 * qd, -33.5, 33.5)  # the motors' torque limit
        data.joint_force[joints, 5] = tau  # a hinge's free row is 5
        torques.append(tau)

    d.controller = pd
    maxsim.step(m, d, 300)  # 3 s
    trunk = m.body_index("trunk")
    assert d.report.ok
    assert 0.22 < d.x[trunk, 2] < 0.30  # standing (keyframe trunk height 0.27 m; 0.12 lying)
    assert np.max(np.abs(d.qpos[qa] - target)) < 0.1  # joints near the pose, sagging under weight
    assert len(torques) == 300 and np.max(np.abs(torques[-1])) > 1.0  # it is the PD that holds it
    # without it the robot folds
    d2 = maxsim.Data(m)
    maxsim.reset_data(m, d2, home)
    maxsim.step(m, d2, 300)
    assert d2.x[trunk, 2] < 0.2


def test_one_control_sequence_three_ways_bitwise():
    m = maxsim.load(SCENE, warn=False)
    home = m.keyframe_index("home")
    steps = 120
    base = np.array(m.keyframes[home].ctrl)
    k = np.arange(steps)[:, None]
    controls = base + 0.15 * np.sin(0.1 * k + np.arange(m.nu)[None, :])  # (steps, nu)

    # the Python loop: ctrl written before every step
    d = maxsim.Data(m)
    maxsim.reset_data(m, d, home)
    s0 = maxsim.get_maximal_state(m, d)
    times, xs = [], []
    for u in controls:
        times.append(d.time)
        d.ctrl[:] = u
        maxsim.step(m, d, 1)
        xs.append(np.array(d.x))
    x_loop = np.array(d.x)

    # rollout(): the same start and controls on C++ threads
    states = maxsim.rollout(m, s0, controls, threads=2)
    nb = len(m.bodies)
    assert states.shape[-2:] == (steps, maxsim.maximal_state_size(m))
    x_rollout = states.reshape(steps, -1)[:, 1:1 + 3 * nb].reshape(steps, nb, 3)
    assert np.array_equal(x_rollout, np.array(xs))  # every step

    # the command line: the same sequence as a --ctrl-file at the step times
    tmp = os.path.join(BINARY_DIR, "python_ctrl_file")
    os.makedirs(tmp, exist_ok=True)
    table, out = os.path.join(tmp, "controls.csv"), os.path.join(tmp, "run.csv")
    with open(table, "w") as f:
        f.write("t," + ",".join(a.name for a in m.actuators) + "\n")
        for t, u in zip(times, controls):
            f.write(repr(t) + "," + ",".join(repr(float(v)) for v in u) + "\n")
    r = subprocess.run([os.path.join(BINARY_DIR, "maxsim"), "simulate", SCENE, "--keyframe", "home",
                        "--ctrl-file", table, "--steps", str(steps), "--output", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == steps + 1  # t = 0, then every step
    x_cli = np.array([[[float(r[f"{b.name}.{c}"]) for c in "xyz"] for b in m.bodies] for r in rows[1:]])
    assert np.array_equal(x_cli, np.array(xs))  # every step, to the last bit
    assert x_loop[m.body_index("trunk"), 2] > 0.2  # and the robot is still up
