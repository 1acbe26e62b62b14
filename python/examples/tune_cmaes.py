"""CMA-ES (python3-cmaes) on the objectives of a1_learn and exo_tune, alone or over MPI ranks.

The objective is evaluated in C++ on threads (maxsim.tuning); each generation's points are one
batch. Under mpirun the batch spreads over the ranks with mpi4py (python3-mpi4py) and the log and
best file are the same bytes as without mpirun::

    PYTHONPATH=build/python /usr/bin/python3 python/examples/tune_cmaes.py a1 --generations 15
    mpirun -np 2 env PYTHONPATH=build/python /usr/bin/python3 python/examples/tune_cmaes.py a1 --threads 1

It prints one line per generation and, at the end, the evaluations it took to reach --target (the
12 m of Brüdigam et al. 2023 for the A1) and the final value.
"""

import argparse
import math
import os
import sys
import time

import maxsim
import maxsim.tuning as tuning


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("objective", choices=["a1", "exo"])
    p.add_argument("--generations", type=int, default=15)
    p.add_argument("--population", type=int, default=None, help="points per generation (CMA-ES's default)")
    p.add_argument("--sigma", type=float, default=1.0, help="initial step in units of each parameter's scale")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=0, help="threads per rank (0: all cores)")
    p.add_argument("--duration", type=float, default=10.0, help="A1: seconds per walk")
    p.add_argument("--conditions", type=int, default=3, help="A1: learning conditions (1-3)")
    p.add_argument("--target", type=float, default=None, help="report the evaluations to reach it (A1: 12 m)")
    p.add_argument("--log", default=None)
    p.add_argument("--params", default=None)
    a = p.parse_args()

    comm = None
    if any(v in os.environ for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")):
        from mpi4py import MPI  # python3-mpi4py
        comm = MPI.COMM_WORLD
    rank = comm.Get_rank() if comm else 0
    size = comm.Get_size() if comm else 1

    if a.objective == "a1":
        f = tuning.a1_gait_objective(a.conditions, a.duration)
        target = 12.0 if a.target is None else a.target
    else:
        f = tuning.exo_gains_objective()
        target = a.target
    if rank == 0:
        print(f"tune_cmaes: {f.name}, {a.generations} generations, seed {a.seed}, {size} rank(s)", flush=True)
    t0 = time.monotonic()
    r = tuning.cmaes_search(f, a.generations, a.population, a.sigma, a.seed, comm, a.threads, a.log, a.params,
                            comments=[f"{f.name} parameters found by CMA-ES (python/examples/tune_cmaes.py)"])
    if r is None:
        return 0
    wall = time.monotonic() - t0
    for g, best in enumerate(r["history"]):
        print(f"generation {g:3d}: best {best:.5g}")
    reached = None
    if target is not None:
        evaluations = 1
        # the log's rows: evaluations after each generation (population per generation)
        pop = (r["evaluations"] - 1) // max(1, a.generations) if a.generations else 0
        for g, best in enumerate(r["history"]):
            evaluations = 1 + g * pop
            if best >= target:
                reached = evaluations
                break
    print(f"best {r['best_value']:.6g} after {r['evaluations']} evaluations ({wall:.1f} s, {size} rank(s)); "
          f"target {target}: " + (f"reached after {reached} evaluations" if reached else "not reached"))
    for n, v in zip(r["names"], r["best"]):
        print(f"  {n} {v:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
