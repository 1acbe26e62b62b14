"""Sensors from Python: names, MuJoCo's layout, sensordata after a step and update_sensors for a
state set by hand (sim/sensor/sensors.hpp)."""

import numpy as np
import pytest

import maxsim
from conftest import SOURCE_DIR
from maxsim.env import MaxsimEnv

G = 9.81


def test_layout_and_lookup():
    m = maxsim.load(str(SOURCE_DIR / "tests/data/sensors/every_sensor.xml"))
    assert m.nsensordata == 99 and len(m.sensor_names) == 46
    assert m.sensor_adr[0] == 0 and m.sensor_adr[-1] + m.sensor_dim[-1] == m.nsensordata
    i = m.sensor_index("ankle_quat")
    assert m.sensor_types[i] == "ballquat" and m.sensor_dim[i] == 4
    with pytest.raises(KeyError):
        m.sensor_index("ankle_qat")
    d = maxsim.Data(m)
    assert d.sensordata.shape == (99,)


def test_joint_sensors_follow_a_state_set_by_hand():
    m = maxsim.load(str(SOURCE_DIR / "tests/data/sensors/every_sensor.xml"))
    d = maxsim.Data(m)
    qpos = np.array(maxsim.get_qpos(m, d))
    qvel = np.zeros(len(maxsim.get_qvel(m, d)))
    hip = m.qpos_addresses[m.joint_index("hip")]
    qpos[hip] = 0.3
    qvel[m.qvel_addresses[m.joint_index("hip")]] = -0.7
    maxsim.set_qpos_qvel(m, d, qpos, qvel)
    maxsim.update_sensors(m, d)
    adr = m.sensor_adr
    assert d.sensordata[adr[m.sensor_index("hip_pos")]] == pytest.approx(0.3, abs=1e-12)
    assert d.sensordata[adr[m.sensor_index("hip_vel")]] == pytest.approx(-0.7, abs=1e-12)
    # the hip motor's length is gear (2) times qpos
    assert d.sensordata[adr[m.sensor_index("hip_act_pos")]] == pytest.approx(0.6, abs=1e-12)


def test_resting_box_touch_reads_its_weight(tmp_path):
    xml = """<mujoco model="box"><option timestep="0.002"/>
      <worldbody><geom type="plane" size="2 2 0.1"/>
        <body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="2"/>
          <site name="bottom" type="box" size="0.11 0.11 0.01" pos="0 0 -0.1"/></body></worldbody>
      <sensor><touch name="touch" site="bottom"/><accelerometer name="acc" site="bottom"/></sensor></mujoco>"""
    path = tmp_path / "box.xml"
    path.write_text(xml)
    m = maxsim.load(str(path))
    d = maxsim.Data(m)  # (contacts on by default)
    for _ in range(300):
        maxsim.step(m, d)
    assert d.sensordata[0] == pytest.approx(2 * G, rel=1e-6)
    assert np.allclose(d.sensordata[1:4], [0, 0, G], rtol=0, atol=1e-6 * G)


def test_jacobians_and_mass_matrix():
    m = maxsim.load(str(SOURCE_DIR / "tests/data/sensors/every_sensor.xml"))
    d = maxsim.Data(m)
    qpos = np.array(maxsim.get_qpos(m, d))
    qvel = np.random.default_rng(1).normal(size=len(maxsim.get_qvel(m, d)))
    maxsim.set_qpos_qvel(m, d, qpos, qvel)
    M = maxsim.mass_matrix(m, d)
    assert M.shape == (len(qvel), len(qvel))
    assert np.allclose(M, M.T)
    # the kinetic energy plus the knee's armature
    knee = m.qvel_addresses[m.joint_index("knee")]
    assert 0.5 * qvel @ M @ qvel == pytest.approx(maxsim.kinetic_energy(m, d) + 0.5 * 0.02 * qvel[knee] ** 2, rel=1e-12)
    jacp, jacr = maxsim.site_jacobian(m, d, "imu")
    assert jacp.shape == (3, len(qvel)) and jacr.shape == (3, len(qvel))
    # the imu's velocity (a velocimeter reads it in the site's frame) is jacp @ qvel
    maxsim.update_sensors(m, d)
    i = m.sensor_index("imu_vel")
    frame = m.sensor_index("imu_quat")
    w, x, y, z = d.sensordata[m.sensor_adr[frame]:m.sensor_adr[frame] + 4]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    assert np.allclose(R.T @ (jacp @ qvel), d.sensordata[m.sensor_adr[i]:m.sensor_adr[i] + 3], atol=1e-12)
    with pytest.raises(KeyError):
        maxsim.site_jacobian(m, d, "no_such_site")
    with pytest.raises(ValueError):
        maxsim.point_jacobian(m, d, 99, [0, 0, 0])


def test_environment_observes_sensors():
    path = str(SOURCE_DIR / "tests/data/sensors/every_sensor.xml")
    env = MaxsimEnv(path, observe="sensors", contacts=False)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (99,) == env.observation_space.shape
    m = env.model
    hip = m.sensor_adr[m.sensor_index("hip_pos")]
    assert obs[hip] == pytest.approx(env.data.qpos[m.qpos_addresses[m.joint_index("hip")]], abs=1e-12)
    obs, *_ = env.step(env.action_space.sample())
    assert np.array_equal(obs, env.data.sensordata)
    both = MaxsimEnv(path, observe="state+sensors", contacts=False)
    state = MaxsimEnv(path, contacts=False)
    assert both.observation_space.shape[0] == state.observation_space.shape[0] + 99
    with pytest.raises(ValueError):
        MaxsimEnv(path, observe="sensor")
    with pytest.raises(ValueError):
        MaxsimEnv(str(SOURCE_DIR / "tests/data/models/gym_mujoco/ant.xml"), observe="sensors")


def test_sensors_declared_in_python():
    m = maxsim.load(str(SOURCE_DIR / "tests/data/models/franka_panda/panda.urdf"))
    assert m.nsensordata == 0 and "panda_grasptarget" in m.site_names
    i = m.add_sensor("framepos", name="tip", site="panda_grasptarget")
    m.add_sensor("jointpos", name="j1", joint="panda_joint1")
    m.add_sensor("subtreecom", name="com")
    assert m.sensor_names == ["tip", "j1", "com"] and m.nsensordata == 7 and i == 0
    d = maxsim.Data(m, contacts=False)
    qpos = np.array(maxsim.get_qpos(m, d))
    qpos[m.qpos_addresses[m.joint_index("panda_joint1")]] = 0.4
    maxsim.set_qpos_qvel(m, d, qpos, np.zeros(len(maxsim.get_qvel(m, d))))
    maxsim.update_sensors(m, d)
    assert d.sensordata[3] == pytest.approx(0.4, abs=1e-12)
    with pytest.raises(KeyError):
        m.add_sensor("gyro", site="no_such_site")
    with pytest.raises(ValueError):
        m.add_sensor("gyro", sight="panda_hand")
    with pytest.raises(ValueError):
        m.add_sensor("gyroscope", site="panda_hand")
    m.add_sensor("gyro", site="panda_hand")
    with pytest.raises(ValueError):  # made before the gyro
        maxsim.step(m, d)


def test_site_pose_and_velocity():
    m = maxsim.load(str(SOURCE_DIR / "tests/data/sensors/every_sensor.xml"))
    d = maxsim.Data(m, contacts=False)
    rng = np.random.default_rng(4)
    qpos = np.array(maxsim.get_qpos(m, d))
    qvel = rng.normal(size=len(maxsim.get_qvel(m, d)))
    maxsim.set_qpos_qvel(m, d, qpos, qvel)
    maxsim.update_sensors(m, d)
    pos, quat = maxsim.site_pose(m, d, "imu")
    a = m.sensor_adr
    assert np.allclose(pos, d.sensordata[a[m.sensor_index("imu_pos")]:][:3], atol=1e-14)
    assert np.allclose(quat, d.sensordata[a[m.sensor_index("imu_quat")]:][:4], atol=1e-14)
    lin, ang = maxsim.site_velocity(m, d, "sole")
    assert np.allclose(lin, d.sensordata[a[m.sensor_index("sole_linvel")]:][:3], atol=1e-13)
    assert np.allclose(ang, d.sensordata[a[m.sensor_index("sole_angvel")]:][:3], atol=1e-13)
    with pytest.raises(KeyError):
        maxsim.site_pose(m, d, "nosuch")


def test_transition_fd_of_a_pendulum():
    xml = """<mujoco model="p"><option timestep="0.001"><flag contact="disable"/></option>
      <worldbody><body name="bob" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom type="sphere" size="0.01" pos="0 0 -0.8" mass="2"/></body></worldbody>
      <actuator><motor name="m" joint="hinge"/></actuator></mujoco>"""
    import tempfile, os
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p.xml")
        with open(path, "w") as f:
            f.write(xml)
        m = maxsim.load(path)
    d = maxsim.Data(m)
    A, B = maxsim.transition_fd(m, d)
    assert A.shape == (2, 2) and B.shape == (2, 1)
    dt, g, L = 0.001, 9.81, 0.8
    assert A[1, 0] == pytest.approx(-dt * g / L, rel=1e-4)
    assert B[1, 0] == pytest.approx(dt / (2 * L * L + 0.4 * 2 * 1e-4), rel=1e-4)
    with pytest.raises(ValueError):
        maxsim.transition_fd(m, d, eps=0.0)
    # the implicit function theorem on the converged step gives the same Jacobians
    d.qvel = [0.7]
    Ai, Bi = maxsim.transition_derivatives(m, d)
    Af, Bf = maxsim.transition_fd(m, d)
    assert np.abs(Ai - Af).max() < 1e-6 * np.abs(Af).max()
    assert np.abs(Bi - Bf).max() < 1e-6 * np.abs(Bf).max()
    with pytest.raises(ValueError):
        maxsim.transition_derivatives(m, d, eps=-1.0)


def test_finite_differences_on_the_central_path():
    # an arm sliding in its dry friction beside a box resting on the floor: finite differences of
    # the answers put on the central path (smoothing=-1) are those of what transition_derivatives
    # differentiates; the plain ones carry the interior point's stopping point
    # (measured: A 3e-8 on the path, 8e-5 plain)
    xml = """<mujoco model="hold"><option timestep="0.002"/>
      <worldbody><geom type="plane" size="5 5 0.1"/>
        <body name="arm" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0" frictionloss="2"/>
          <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03" mass="1"/></body>
        <body name="box" pos="0.3 0.5 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
      </worldbody><actuator><motor name="m" joint="hinge"/></actuator></mujoco>"""
    with pytest.warns(UserWarning, match="frictionloss"):
        m = maxsim.load_string(xml)
    d = maxsim.Data(m)
    for _ in range(200):
        maxsim.step(m, d)
    A, B = maxsim.transition_derivatives(m, d)
    Af, Bf = maxsim.transition_fd(m, d)
    Ap, Bp = maxsim.transition_fd(m, d, smoothing=-1.0)
    assert B[7, 0] > 0.02  # the arm slides: the motor moves it
    assert np.abs(A - Ap).max() < 1e-6 * np.abs(Ap).max()
    assert np.abs(B - Bp).max() < 1e-5 * np.abs(Bp).max()
    assert np.abs(A - Af).max() > 10 * np.abs(A - Ap).max()
    with pytest.raises(ValueError, match="smoothing"):
        maxsim.transition_fd(m, d, smoothing=float("nan"))


def test_parameter_columns_of_a_servo_pendulum():
    xml = """<mujoco model="sp"><option timestep="0.002"><flag contact="disable"/></option>
      <worldbody><body name="bob" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0" damping="0.3"/>
        <geom type="sphere" size="0.05" pos="0 0 -0.5" mass="1.5"/></body></worldbody>
      <actuator><position name="servo" joint="hinge" kp="40" kv="1.5"/></actuator></mujoco>"""
    m = maxsim.load_string(xml)
    d = maxsim.Data(m)
    d.qpos = [0.4]
    d.qvel = [-1.1]
    d.ctrl = [0.2]
    params = [("actuator_kp", "servo"), ("actuator_kv", "servo"), ("body_mass", "bob"), ("joint_damping", "hinge")]
    A, B, P = maxsim.transition_derivatives(m, d, parameters=params)
    _, _, Pf = maxsim.transition_fd(m, d, eps=1e-4, parameters=params)
    assert P.shape == (2, 4)
    assert np.all(np.abs(Pf).max(axis=0) > 1e-6)
    assert np.abs(P - Pf).max(axis=0) == pytest.approx(0, abs=1e-6 * np.abs(Pf).max())
    # a stiffer servo pulls harder toward its command, which is below the angle: ∂v'/∂kp < 0
    assert np.sign(P[1, 0]) == np.sign(0.2 - 0.4)
    with pytest.raises(ValueError, match="unknown parameter kind"):
        maxsim.transition_derivatives(m, d, parameters=[("actuator_kq", "servo")])
    with pytest.raises(KeyError):
        maxsim.transition_derivatives(m, d, parameters=[("body_mass", "bobb")])


def test_sensor_noise_is_seeded():
    xml = """<mujoco model="n"><option timestep="0.002"><flag sensornoise="enable"/></option>
      <worldbody><body name="b" pos="0 0 1"><joint name="s" type="slide" axis="0 0 1"/>
        <geom type="sphere" size="0.1" mass="1"/></body></worldbody>
      <sensor><jointpos name="p" joint="s" noise="0.1"/></sensor></mujoco>"""
    import tempfile, os
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "n.xml")
        with open(path, "w") as f:
            f.write(xml)
        m = maxsim.load(path)
    a, b, c = maxsim.Data(m), maxsim.Data(m), maxsim.Data(m)
    assert a.sensor_noise_state == 0
    b.sensor_noise_state = 12345
    c.sensor_noise_state = 12345
    for d in (a, b, c):
        maxsim.step(m, d)
    assert b.sensordata[0] == c.sensordata[0] != a.sensordata[0]


def test_loop_tangent_of_a_four_bar():
    # Dojo's four-bar closes a loop: the tangent basis is orthonormal, smaller than the tree's
    # coordinates, and the step maps tangent perturbations onto the loop's tangent at its end, which
    # the start's T leaves by the tangent's turn over one step: (I - S S^T) A S small (measured
    # 1.3e-6 of A's largest entry; a column off the loop would be of order 1). On a tree T = I
    m = maxsim.load(str(SOURCE_DIR / "tests/data/models/dojo_fourbar/fourbar.urdf"))
    d = maxsim.Data(m)
    d.ctrl = [0.3] * m.nu
    for _ in range(50):
        maxsim.step(m, d)
    T = maxsim.loop_tangent(m, d)
    nv = len(d.qvel)
    assert T.shape[0] == nv and 0 < T.shape[1] < nv
    assert np.abs(T.T @ T - np.eye(T.shape[1])).max() < 1e-12
    A, B = maxsim.transition_derivatives(m, d)
    S = np.block([[T, np.zeros_like(T)], [np.zeros_like(T), T]])
    off = (np.eye(2 * nv) - S @ S.T) @ A @ S
    assert np.abs(off).max() < 1e-4 * np.abs(A).max()
    p = maxsim.load_string("""<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1"/></body></worldbody></mujoco>""")
    assert np.array_equal(maxsim.loop_tangent(p, maxsim.Data(p)), np.eye(1))
