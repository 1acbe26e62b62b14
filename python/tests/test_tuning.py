"""Tuning from Python: the programs' objectives evaluated in C++, the C++ searches over
them and over Python callables, CMA-ES (python3-cmaes), and mpi4py ranks giving the same bytes."""

import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import maxsim
import maxsim.tuning as tuning

from conftest import SOURCE_DIR

BINARY_DIR = os.environ.get("MAXSIM_BINARY_DIR", str(SOURCE_DIR / "build"))
SHORT = dict(conditions=2, duration=0.5)  # short walks: the objective's plumbing, not a gait


@pytest.fixture(scope="module")
def a1():
    return tuning.a1_gait_objective(**SHORT)


def test_the_a1_objective_is_a1_learns(a1, tmp_path):
    """maxsim.optimize over the bound objective writes the same log bytes as the a1_learn program
    with the same options: the same objective, the same search."""
    exe = os.path.join(BINARY_DIR, "a1_learn")
    if not os.path.exists(exe):
        pytest.skip("a1_learn not built")
    log_c, log_py = tmp_path / "c.csv", tmp_path / "py.csv"
    subprocess.run([exe, "--episodes", "3", "--samples", "2", "--conditions", "2", "--duration", "0.5", "--seed",
                    "11", "--threads", "1", "--log", str(log_c), "--params", str(tmp_path / "c.params")],
                   check=True, capture_output=True)
    r = maxsim.optimize("sample", a1, episodes=3, samples=2, radius=1.0, min_radius=0.05, max_radius=3.0, seed=11,
                        threads=2, log=str(log_py))
    assert log_c.read_bytes() == log_py.read_bytes()
    assert r["evaluations"] == 7 and r["error"] == ""


def test_batches_are_the_same_on_any_threads(a1):
    pts = a1.initial + np.outer([0.0, 1.0, -1.0], a1.scale)
    one, two = a1.evaluate(pts, 1), a1.evaluate(pts, 2)
    assert one.tobytes() == two.tobytes()
    assert one[0] == a1(a1.initial)
    assert len(set(one.tolist())) == 3  # three different gaits, three different distances
    with pytest.raises(ValueError, match="5 parameters expected"):
        a1.evaluate([[1.0, 2.0]])


def test_nlopt_and_sample_on_a_python_callable():
    """A Python objective through the C++ searches: both reach the maximum of a concave quadratic."""
    c = np.array([1.0, -2.0])
    f = lambda p: -float(np.sum((p - c) ** 2))  # noqa: E731
    params = [("a", 0.0, 1.0, -5.0, 5.0), ("b", 0.0, 1.0, -5.0, 5.0)]
    s = maxsim.optimize("sample", f, params, episodes=60, samples=6, radius=0.5)
    assert s["best_value"] > -0.05 and s["evaluations"] == 361
    if "nlopt:LN_SBPLX" in maxsim.optimizer_names():
        n = maxsim.optimize("nlopt:LN_SBPLX", f, params, episodes=50, samples=4, radius=0.5)
        assert n["best_value"] > -1e-8 and n["evaluations"] <= 201
    with pytest.raises(ValueError, match="unknown optimizer"):
        maxsim.optimize("annealing", f, params)


def test_a_raising_python_objective_stops_the_search_with_its_parameters(tmp_path):
    def f(p):
        if p[0] > 0.5:
            raise RuntimeError("refused")
        return -float(p[0] ** 2)

    r = maxsim.optimize("sample", f, [("a", 0.0, 1.0, -5.0, 5.0)], episodes=20, samples=4, radius=1.0,
                        params_file=str(tmp_path / "best.params"))
    assert "refused" in r["error"] and "parameters: a " in r["error"]
    assert r["best"][0] <= 0.5
    assert "best value" in (tmp_path / "best.params").read_text()


def test_cmaes_is_deterministic_and_logs_like_the_searches(a1, tmp_path):
    pytest.importorskip("cmaes")
    runs = []
    for k in range(2):
        log, params = tmp_path / f"cma{k}.csv", tmp_path / f"cma{k}.params"
        r = tuning.cmaes_search(a1, generations=2, population=4, seed=3, threads=2 - k, log=str(log),
                                params_file=str(params))
        runs.append((log.read_bytes(), params.read_bytes(), r))
    assert runs[0][0] == runs[1][0] and runs[0][1] == runs[1][1]
    r = runs[0][2]
    lines = runs[0][0].decode().splitlines()
    assert lines[0] == "episode,evaluations,best_value,episode_value,radius,improved"
    assert len(lines) == 4 and r["evaluations"] == 1 + 2 * 4
    assert all(b >= a for a, b in zip(r["history"], r["history"][1:]))
    assert float(lines[-1].split(",")[2]) == r["best_value"]


def test_cmaes_over_mpi_ranks_writes_the_same_bytes(tmp_path):
    """mpirun -np 2 of the example against the run without mpirun (skipped without mpirun/mpi4py)."""
    pytest.importorskip("cmaes")
    pytest.importorskip("mpi4py")
    mpirun = shutil.which("mpirun")
    if not mpirun:
        pytest.skip("mpirun not installed (openmpi-bin)")
    example = str(SOURCE_DIR / "python" / "examples" / "tune_cmaes.py")
    args = ["a1", "--generations", "2", "--population", "4", "--duration", "0.3", "--conditions", "1",
            "--threads", "1"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    alone = subprocess.run([sys.executable, example] + args + ["--log", str(tmp_path / "a.csv"), "--params",
                           str(tmp_path / "a.params")], env=env, capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr
    ranks = subprocess.run([mpirun, "-np", "2", "-x", "PYTHONPATH", sys.executable, example] + args +
                           ["--log", str(tmp_path / "m.csv"), "--params", str(tmp_path / "m.params")],
                           env=env, capture_output=True, text=True, timeout=300)
    assert ranks.returncode == 0, ranks.stdout + ranks.stderr
    assert "2 rank(s)" in ranks.stdout
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "m.csv").read_bytes()
    assert (tmp_path / "a.params").read_bytes() == (tmp_path / "m.params").read_bytes()
