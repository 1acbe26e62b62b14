"""Controller tuning from Python: the example programs' objectives, batches evaluated on
C++ threads or over MPI ranks with mpi4py, and CMA-ES (python3-cmaes) beside the C++ searches.

The objectives are the ones a1_learn and exo_tune maximize, evaluated in C++ (the GIL released)::

    import maxsim.tuning as t
    f = t.a1_gait_objective()            # worst distance of 10 s walks over 3 conditions (m)
    f(f.initial)                         # one point
    f.evaluate(points, threads=2)        # a batch (k, 5) on C++ threads, value i of point i

    r = maxsim.optimize("nlopt:LN_SBPLX", f, episodes=60, samples=2, radius=1.0)  # C++ searches
    r = t.cmaes_search(f, generations=15, seed=1)                                   # CMA-ES

Under ``mpirun -np K python3 ...`` pass ``comm=MPI.COMM_WORLD`` (mpi4py): rank 0 runs CMA-ES and
broadcasts each generation's points, rank r evaluates the points i with i % K == r on its own
threads, the values gather to rank 0. Only parameter vectors and values cross; the log and the
best file are the same bytes for any number of ranks and threads.
"""

import math
import os

import numpy as np

from . import _maxsim
from .env import robots_dir

__all__ = ["a1_gait_objective", "exo_gains_objective", "evaluate_on_ranks", "serve", "cmaes_search", "SearchLog"]


def _source_dir():
    return os.path.dirname(os.path.abspath(robots_dir()))


def a1_gait_objective(conditions=3, duration=10.0):
    """a1_learn's objective (maxsim.SearchObjective): the worst forward distance in `duration` s
    over the first `conditions` learning conditions, -10 m for a fall."""
    return _maxsim.a1_gait_objective(_source_dir(), conditions, duration)


def exo_gains_objective():
    """exo_tune's objective (maxsim.SearchObjective): -(mean RMS tracking error) - 10 * (elbow
    torque above 4.9 N m) over the routines of both patients."""
    return _maxsim.exo_gains_objective(_source_dir())


def _share(count, rank, size):
    return list(range(rank, count, size))


def evaluate_on_ranks(objective, points, comm=None, threads=0):
    """Values of a batch: on this process's threads without `comm`, else over its ranks (rank 0
    passes the points and gets the values; the other ranks call serve()). An evaluation that
    raises on any rank raises RuntimeError on rank 0 naming the rank and the point."""
    points = np.asarray(points, dtype=float)
    if comm is None or comm.Get_size() == 1:
        return objective.evaluate(points, threads)
    comm.bcast(points, root=0)
    return _evaluate_share(objective, points, comm, threads)


def _evaluate_share(objective, points, comm, threads):
    rank, size = comm.Get_rank(), comm.Get_size()
    mine = _share(len(points), rank, size)
    try:
        local = (list(objective.evaluate(points[mine], threads)) if mine else [], None)
    except Exception as e:  # noqa: BLE001 - sent to rank 0, which raises it with the rank
        local = ([], str(e))
    gathered = comm.gather(local, root=0)
    if rank != 0:
        return None
    values = np.empty(len(points))
    for r, (vals, error) in enumerate(gathered):
        if error is not None:
            raise RuntimeError(f"rank {r}: {error}")
        values[_share(len(points), r, size)] = vals
    return values


def serve(objective, comm, threads=0):
    """The loop of ranks other than 0: evaluate the batches rank 0 sends until it sends None."""
    while True:
        points = comm.bcast(None, root=0)
        if points is None:
            return
        _evaluate_share(objective, points, comm, threads)


def stop_serving(comm):
    """Rank 0: releases the ranks in serve()."""
    if comm is not None and comm.Get_size() > 1:
        comm.bcast(None, root=0)


class SearchLog:
    """The C++ searches' CSV log (episode,evaluations,best_value,episode_value,radius,improved) and
    best-parameter file (name value, 17 digits), written the same way: a row per episode and the
    file after every improvement."""

    def __init__(self, names, log=None, params_file=None, comments=()):
        self.names, self.params_file, self.comments = list(names), params_file, list(comments)
        self.best, self.best_value, self.evaluations, self.improvements = None, -math.inf, 0, 0
        self.history = []
        self._log = open(log, "w") if log else None
        if self._log:
            self._log.write("episode,evaluations,best_value,episode_value,radius,improved\n")
            self._log.flush()

    def episode(self, episode, points, values, radius):
        """Records an episode's evaluated points; returns whether the best improved."""
        self.evaluations += len(values)
        k = int(np.argmax(values))  # ties: the lowest index, as the C++ search
        improved = episode == 0 or values[k] > self.best_value
        if improved:
            self.best, self.best_value = np.array(points[k], dtype=float), float(values[k])
            self.improvements += episode > 0
            self._write_best()
        self.history.append(self.best_value)
        if self._log:
            self._log.write("%d,%d,%s,%s,%s,%d\n" % (episode, self.evaluations, _g17(self.best_value),
                                                     _g17(values[k]), _g17(radius), 1 if improved and episode else 0))
            self._log.flush()
        return improved and episode > 0

    def _write_best(self):
        if not self.params_file:
            return
        with open(self.params_file, "w") as f:
            for c in self.comments + ["best value %s after %d evaluations" % (_g17(self.best_value), self.evaluations)]:
                f.write("# " + c + "\n")
            for n, v in zip(self.names, self.best):
                f.write("%s %s\n" % (n, _g17(v)))

    def close(self):
        if self._log:
            self._log.close()


def _g17(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%.17g" % x


def cmaes_search(objective, generations=15, population=None, sigma=1.0, seed=1, comm=None, threads=0,
                 log=None, params_file=None, comments=()):
    """CMA-ES (python3-cmaes) maximizing a SearchObjective from its initial point, in units of each
    parameter's scale (sigma = 1: a step of one scale) within its bounds. Generation 0 is the
    initial point alone, as the C++ searches' episode 0; then `generations` generations of
    `population` points (CMA-ES's default 4 + 3 ln n when None), evaluated as one batch (on
    threads, or over the ranks of `comm`). Non-finite values count as -inf (CMA-ES sees 1e30).
    Every rank calls it; rank 0 returns a dict (best, best_value, history, evaluations,
    improvements, names), the others None."""
    from cmaes import CMA

    rank = comm.Get_rank() if comm is not None else 0
    if rank != 0:
        serve(objective, comm, threads)
        return None
    x0, scale = np.asarray(objective.initial), np.asarray(objective.scale)
    bounds = np.stack([(np.asarray(objective.lower) - x0) / scale, (np.asarray(objective.upper) - x0) / scale], axis=1)
    record = SearchLog(objective.names, log, params_file, comments)
    try:
        value0 = evaluate_on_ranks(objective, [x0], comm, threads)
        record.episode(0, [x0], _finite(value0), sigma)
        cma = CMA(mean=np.zeros(len(x0)), sigma=sigma, bounds=bounds, seed=seed, population_size=population)
        for g in range(1, generations + 1):
            z = [cma.ask() for _ in range(cma.population_size)]
            points = np.array([x0 + scale * zi for zi in z])
            values = _finite(evaluate_on_ranks(objective, points, comm, threads))
            cma.tell([(zi, -v if math.isfinite(v) else 1e30) for zi, v in zip(z, values)])
            record.episode(g, points, values, cma._sigma)
    finally:
        stop_serving(comm)
        record.close()
    return {"best": record.best, "best_value": record.best_value, "history": np.array(record.history),
            "evaluations": record.evaluations, "improvements": record.improvements, "names": record.names}


def _finite(values):
    v = np.asarray(values, dtype=float).copy()
    v[~np.isfinite(v)] = -math.inf
    return v
