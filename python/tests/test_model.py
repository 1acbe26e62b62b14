"""Loading (options, errors), names and ids, the model's parts."""

import numpy as np
import pytest

import maxsim
from conftest import PENDULUM_XML, SOURCE_DIR

A1_SCENE = SOURCE_DIR / "robots/a1/menagerie_variant/scene.xml"
A1_URDF = SOURCE_DIR / "robots/a1/urdf/a1.urdf"


def test_pendulum_from_string_has_its_parts():
    m = maxsim.load_string(PENDULUM_XML)
    assert m.name == "pendulum"
    assert (m.nbody, m.njoint, m.nu, m.dof) == (1, 1, 1, 1)
    assert m.dt == pytest.approx(0.001)
    assert m.dt_from_file
    np.testing.assert_array_equal(m.gravity, [0, 0, -9.81])
    assert m.body_names == ["arm"] and m.joint_names == ["hinge"] and m.actuator_names == ["torque"]
    assert m.joint_index("hinge") == 0
    with pytest.raises(KeyError, match=r"no joint named 'hinje'.* \(did you mean 'hinge'\?\)"):
        m.joint_index("hinje")
    assert m.body_index("arm") == 0 and m.actuator_index("torque") == 0
    j = m.joints[0]
    assert j.type == maxsim.JointType.Revolute and j.type_name == "revolute" and j.parent == -1 and j.child == 0 and j.dof == 1
    a = m.actuators[0]
    assert a.kind == "motor" and a.joint == 0 and a.row == 5
    # the two geoms' masses add up
    assert m.total_mass == pytest.approx(1.01)
    assert m.validate() == ""


def test_a1_mjcf_names_actuators_and_keyframe():
    m = maxsim.load(A1_SCENE, warn=False)
    assert m.nbody == 13 and m.nu == 12
    assert m.joints[0].type == maxsim.JointType.Floating and m.joints[0].nq == 7
    assert m.actuator_index("FR_hip") >= 0
    # a typo is an error naming what was meant, never index -1 (the last actuator)
    with pytest.raises(KeyError, match="no actuator named 'FR_hipp' in model 'a1 scene' \\(did you mean 'FR_hip', "):
        m.actuator_index("FR_hipp")
    assert m.keyframe_names == ["home"]
    k = m.keyframes[m.keyframe_index("home")]
    assert k.joint_q[0] == pytest.approx([0, 0, 0.27, 1, 0, 0, 0])  # the free joint's qpos
    assert not m.implicit_ground  # the scene has its own floor


def test_load_options_reach_the_loader():
    free = maxsim.load(A1_SCENE, warn=False)
    fixed = maxsim.load(A1_SCENE, fixed_base=True, warn=False)
    assert free.joints[0].type == maxsim.JointType.Floating and fixed.joints[0].type == maxsim.JointType.Fixed
    urdf = maxsim.load(A1_URDF, warn=False)
    kept = maxsim.load(A1_URDF, merge_fixed_joints=False, warn=False)
    assert urdf.implicit_ground and kept.nbody > urdf.nbody


def test_inertia_floor_raises_the_throwers_links_and_can_be_turned_off():
    thrower = SOURCE_DIR / "tests/data/models/gym_mujoco/thrower.xml"
    floored = maxsim.load(thrower, warn=False)
    plain = maxsim.load(thrower, armature_inertia_floor=0, warn=False)
    lowest = [np.linalg.eigvalsh(b.inertia).min() for b in floored.bodies]
    plain_lowest = [np.linalg.eigvalsh(b.inertia).min() for b in plain.bodies]
    assert min(plain_lowest) < 1e-12  # the file's links
    raised = [i for i in range(floored.nbody) if plain_lowest[i] < 7.5e-9 * (1 - 1e-9)]
    assert raised and all(lowest[i] >= 7.5e-9 * (1 - 1e-9) for i in raised)  # 1e-8 x 0.75 kg m^2
    with pytest.raises(maxsim.LoadError, match="armature_inertia_floor"):
        maxsim.load(thrower, armature_inertia_floor=0.5, warn=False)


def test_a_missing_file_is_a_load_error_naming_it(tmp_path):
    path = tmp_path / "absent.urdf"
    with pytest.raises(maxsim.LoadError, match="absent.urdf"):
        maxsim.load(path)


def test_a_malformed_file_names_file_line_and_problem(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<mujoco>\n  <worldbody>\n    <body name="b">\n      <geom type="sphere" size="-1"/>\n'
                   '    </body>\n  </worldbody>\n</mujoco>\n')
    with pytest.raises(maxsim.LoadError) as err:
        maxsim.load(bad)
    assert isinstance(err.value, ValueError)  # bad input, as the command's exit status 2
    assert str(err.value).startswith(str(bad) + ":")  # "FILE:LINE: message"


def test_misspelled_attribute_refused_unless_lenient(tmp_path):
    f = tmp_path / "axsi.xml"
    f.write_text('<mujoco>\n<worldbody>\n<body name="b">\n<joint name="j" axsi="0 1 0"/>\n'
                 '<geom type="sphere" size="0.1"/>\n</body>\n</worldbody>\n</mujoco>\n')
    with pytest.raises(maxsim.LoadError, match=r"axsi.xml:4: unknown attribute 'axsi'.*did you mean 'axis'"):
        maxsim.load(f)
    with pytest.warns(UserWarning, match=r"axsi.xml:4: unknown attribute 'axsi'"):
        m = maxsim.load(f, lenient=True)
    assert m.njoint == 1


def test_mjcf_defaults_are_mujocos():
    m = maxsim.load_string("<mujoco><worldbody><geom type='plane' size='1 1 1'/></worldbody></mujoco>")
    assert m.dt == 0.002 and not m.dt_from_file  # MuJoCo's default time step
    assert m.contact.friction == 1.0  # MuJoCo's default geom friction


def test_broken_xml_and_unknown_extension(tmp_path):
    with pytest.raises(maxsim.LoadError, match="line|XML|xml"):
        maxsim.load_string("<mujoco><worldbody></mujoco>")
    other = tmp_path / "model.txt"
    other.write_text("nothing")
    with pytest.raises(maxsim.LoadError, match="model.txt"):
        maxsim.load(other)
    with pytest.raises(ValueError):
        maxsim.load_string("<robot/>", format="sdf")


def test_limits_option_refuses_with_its_hint():
    limits = maxsim.LoadLimits()
    limits.bodies = 3
    with pytest.raises(maxsim.LoadError, match="LoadLimits::bodies"):
        maxsim.load(A1_SCENE, limits=limits, warn=False)


def test_writable_parameters_are_checked():
    m = maxsim.load_string(PENDULUM_XML)
    m.dt = 0.002
    m.gravity = (0, 0, -1.62)
    assert m.dt == 0.002 and m.gravity[2] == -1.62
    with pytest.raises(ValueError):
        m.dt = -1
    with pytest.raises(ValueError):
        m.gravity = (1, 2)


def test_merged_joint_rows_keep_their_names():
    # the cheetah's root: slide x, slide z, hinge y in one joint; 14 kg as settotalmass says
    m = maxsim.load(str(SOURCE_DIR / "tests/data/models/gym_mujoco/half_cheetah.xml"))
    assert m.nbody == 7 and m.total_mass == pytest.approx(14.0, abs=1e-12)
    j, row = m.joint_row("rooty")
    assert m.joint_index("rooty") == j == m.joint_index("rootx")
    assert m.joints[j].row_names[row] == "rooty"
    assert m.actuators[0].joint != j  # the cheetah's motors drive its legs
    with pytest.raises(KeyError):
        m.joint_row("bthigh")  # a one-joint body's hinge is a joint of its own


def test_a_ball_joints_range_is_a_cone_on_its_rotation_angle():
    m = maxsim.load_string("""<mujoco><worldbody><body name="arm">
      <joint name="shoulder" type="ball" range="0 45"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/></body></worldbody></mujoco>""")
    j = m.joints[0]
    assert j.has_limits and j.cone_limit == pytest.approx(np.pi / 4)
    d = maxsim.Data(m)
    for _ in range(500):  # 1 s: the arm falls from horizontal onto its 45° cone and rests there
        maxsim.step(m, d)
    w, v = d.q[0][0], np.linalg.norm(d.q[0][1:])
    assert 2 * np.arctan2(v, abs(w)) == pytest.approx(np.pi / 4, abs=1e-6)
