"""Output: HTML replays, plots, the trajectory CSV."""

import os

import numpy as np
import pytest

import maxsim


def test_write_replay_html_from_a_recorder(drop, tmp_path):
    m, d = drop
    rec = maxsim.ReplayRecorder(m)
    rec.record(m, d)
    for _ in range(40):
        maxsim.step(m, d, 2)
        rec.record(m, d)
    assert rec.replay.frames == 41
    assert rec.replay.poses.shape == (41, m.nbody, 7)
    if not os.path.exists(maxsim.viewer_js_path()):
        pytest.skip("no viewer bundle (make deps: npm ci in web/)")
    path = tmp_path / "drop.html"
    maxsim.write_replay_html(m, rec, str(path))
    html = path.read_text()
    assert html.lstrip().lower().startswith("<!doctype html") and "drop" in html
    assert len(html) > 10000  # the viewer's bundle is embedded


def test_replay_from_arrays_checks_shapes(drop, tmp_path):
    m, d = drop
    times = np.arange(3) * m.dt
    poses = np.zeros((3, m.nbody, 7))
    poses[:, :, 3] = 1
    r = maxsim.replay_from_arrays(m, times, poses, title="still")
    assert r.frames == 3 and r.title == "still"
    with pytest.raises(ValueError, match="poses"):
        maxsim.replay_from_arrays(m, times, poses[:, :, :6])


def test_write_replay_to_a_missing_directory_is_an_io_error(drop, tmp_path):
    m, _ = drop
    rec = maxsim.ReplayRecorder(m)
    with pytest.raises(maxsim.IoError):
        maxsim.write_replay_html(m, rec, str(tmp_path / "no" / "such" / "dir.html"))


def test_plots_svg_and_png(tmp_path):
    t = np.linspace(0, 1, 50)
    svg = maxsim.plot(tmp_path / "p.svg", t, {"sin": np.sin(t), "cos": np.cos(t)}, title="trig")
    text = open(svg).read()
    assert text.startswith("<?xml") or text.startswith("<svg")
    assert "trig" in text and "sin" in text
    png = maxsim.plot(tmp_path / "p.png", t, {"t": t})
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(maxsim.IoError):
        maxsim.plot(tmp_path / "p.gif", t, {"t": t})


def test_csv_round_trip(pendulum, tmp_path):
    m, d = pendulum
    path = str(tmp_path / "run.csv")
    with maxsim.CsvWriter(path, m) as w:
        w.write_row(m, d, first=True)
        for _ in range(5):
            maxsim.step(m, d)
            w.write_row(m, d)
    table = maxsim.read_csv(path)
    assert list(table) == maxsim.csv_columns(m)
    np.testing.assert_allclose(table["t"], np.arange(6) * m.dt, atol=1e-15)
    assert table["arm.x"][-1] == d.x[0, 0]  # shortest round-trip text: exact
