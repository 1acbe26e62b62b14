"""Python step overhead and rollout throughput (README "Python"): run from the repository with

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_overhead.py

Per model: microseconds per step of step(m, d, 1) called N times from a Python loop against one
step(m, d, N) call (the difference is what a Python call costs), then rollout() throughput on 1
and 2 threads. Timings are the best of a few repeats (a shared machine's noise only adds time).
"""

import pathlib
import sys
import time

import numpy as np

import maxsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
PENDULUM = """
<mujoco model="pendulum">
  <option timestep="0.001"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="sphere" pos="0 0 -0.5" size="0.05" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"""


def fresh(m, setup):
    d = maxsim.Data(m)
    setup(m, d)
    return d


def best(f, repeats=3):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def measure(name, m, setup, n, batch, ctrl=None):
    def python_loop():
        d = fresh(m, setup)
        for _ in range(n):
            maxsim.step(m, d)

    def one_call():
        d = fresh(m, setup)
        maxsim.step(m, d, n)

    loop = best(python_loop) / n * 1e6
    call = best(one_call) / n * 1e6
    print(f"{name}: step(m, d, 1) x {n} in Python: {loop:.2f} us/step; step(m, d, {n}): {call:.2f} us/step; "
          f"overhead {loop - call:.2f} us per call")
    s0 = maxsim.get_maximal_state(m, fresh(m, setup))
    # the same n steps as above (their cost varies along a run), the same commands
    controls = np.tile(np.zeros(m.nu) if ctrl is None else ctrl, (n, 1))
    for threads in (1, 2):
        t = best(lambda: maxsim.rollout(m, np.tile(s0, (batch, 1)), controls, threads=threads), repeats=2)
        print(f"{name}: rollout {batch} x {n} steps on {threads} thread(s): "
              f"{batch * n / t:,.0f} steps/s, {t / (batch * n) * 1e6:.1f} us/step ({t:.2f} s)")


def main():
    pendulum = maxsim.load_string(PENDULUM)
    measure("pendulum", pendulum, lambda m, d: maxsim.set_joint_coordinates(m, d, 0, [1.0], [0.0]),
            n=20000, batch=16)
    a1 = maxsim.load(ROOT / "robots/a1/menagerie_variant/scene.xml", warn=False)
    home = a1.keyframes[a1.keyframe_index("home")]
    # the home keyframe with its ctrl: the A1 stands on its position servos (4 feet in contact)
    measure("A1 (menagerie scene.xml, home keyframe, standing)", a1,
            lambda m, d: maxsim.reset_data(m, d, "home"), n=500, batch=8, ctrl=np.array(home.ctrl))


if __name__ == "__main__":
    sys.exit(main())
