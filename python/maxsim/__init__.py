"""maxsim: maximal-coordinate rigid-body simulation with hard contacts (Python bindings).

The engine is C++ (the extension ``maxsim._maxsim``); this package re-exports it and adds
Python-side helpers::

    import maxsim
    m = maxsim.load("robots/a1/menagerie_variant/scene.xml")
    d = maxsim.Data(m)                 # contacts set up as the description asks
    maxsim.step(m, d, 1000)            # 1000 steps of m.dt, the GIL released
    d.x[:, 2]                          # body heights: numpy views onto the engine's state

Errors: a description the loader refuses raises ``maxsim.LoadError`` (a ``ValueError``) with
the loader's "FILE:LINE: message"; bad arguments raise ``ValueError``; output errors
``maxsim.IoError``.
"""

import os
import tempfile
import warnings

from . import _maxsim
from ._maxsim import *  # noqa: F401,F403  (the engine's classes and functions)
from ._maxsim import LoadError, LoadOptions, Plot, PlotSeries, __version__, write_plot
from .gradients import rollout_gradient

__all__ = [name for name in dir(_maxsim) if not name.startswith("_")] + [
    "load", "load_string", "plot", "rollout_gradient",
]


def load(path, *, fixed_base=False, merge_fixed_joints=True, package_paths=(), limits=None,
         lenient=False, armature_inertia_floor=None, options=None, warn=True):
    """Loads a URDF (.urdf) or MJCF (.xml, .mjcf) description into a Model.

    The keyword arguments are the loader's options (LoadOptions; or pass ``options``). The
    loader's warnings (ignored features, missing visual meshes) become Python warnings unless
    ``warn`` is False. Raises LoadError naming the file, line and problem; an MJCF element or
    attribute MuJoCo does not define (a misspelling) is one, unless ``lenient`` is True, which
    loads the file without it and names it in a warning. ``armature_inertia_floor`` (default
    1e-8; 0 keeps the file's inertias) raises each body's mass and principal moments to that
    ratio of its joints' largest rotor (armature).
    """
    if options is None:
        options = LoadOptions()
        options.fixed_base = fixed_base
        options.merge_fixed_joints = merge_fixed_joints
        options.package_paths = [os.fspath(p) for p in package_paths]
        options.lenient = lenient
        if armature_inertia_floor is not None:
            options.armature_inertia_floor = armature_inertia_floor
        if limits is not None:
            options.limits = limits
    model, report = _maxsim._load(os.fspath(path), options)
    if warn:
        for w in report.warnings:
            warnings.warn(w, stacklevel=2)  # (the loader names the file and line)
    return model


def load_string(text, format="mjcf", *, directory=None, **kwargs):
    """Loads a description given as a string (format "mjcf" or "urdf").

    The loader reads files, so the text is written to a temporary file in ``directory`` (default:
    the system's temporary directory) and removed after loading; relative mesh and include paths
    resolve against that directory. Keyword arguments as for load().
    """
    suffix = {"mjcf": ".xml", "urdf": ".urdf"}.get(format)
    if suffix is None:
        raise ValueError(f"load_string: format must be 'mjcf' or 'urdf', not {format!r}")
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="maxsim_", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return load(path, **kwargs)
    finally:
        os.unlink(path)


def plot(path, x, series, *, title="", x_label="", y_label=""):
    """Writes a line plot (SVG or PNG by the extension of ``path``).

    ``series``: {label: y values} sharing the x values ``x``, or {label: (x, y)} each with its own.
    """
    p = Plot()
    p.title, p.x_label, p.y_label = title, x_label, y_label
    lines = []
    for label, ys in series.items():
        if isinstance(ys, tuple) and len(ys) == 2:
            lines.append(PlotSeries(str(label), [float(v) for v in ys[0]], [float(v) for v in ys[1]]))
        else:
            lines.append(PlotSeries(str(label), [float(v) for v in x], [float(v) for v in ys]))
    p.series = lines
    write_plot(p, os.fspath(path))
    return path
