"""Pictures: the extension names the format, an unknown one is refused (exit 2) before any work, writes are
atomic; progress lines: drawn on a terminal, nested under each other, silent when stderr is a pipe."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import threading

import pytest

from apportion import ui
from apportion._pictures import check_picture_path, picture_formats, save_figure
from apportion.cli.main import main
from apportion.errors import InputError

# the first bytes of a file of each format
MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF-", ".eps": b"%!PS-Adobe", ".jpg": b"\xff\xd8\xff"}
SPEEDS_29 = "2x10,4x5,5x4,3x5,1x5"


def _looks_like(path, suffix: str) -> bool:
    data = path.read_bytes()
    if suffix == ".svg":
        return data.lstrip().startswith(b"<?xml") and b"<svg" in data[:2000]
    return data.startswith(MAGIC[suffix])


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf", ".eps", ".jpg"])
def test_grid_plot_writes_the_format_its_extension_names(tmp_path, capsys, suffix):
    picture = tmp_path / f"grid{suffix}"
    assert main(["grid", "60", "60", "--speeds", SPEEDS_29, "--plot", str(picture)]) == 0, capsys.readouterr().err
    assert _looks_like(picture, suffix)
    assert [p.name for p in tmp_path.iterdir()] == [picture.name]  # no temporary file left beside it


def test_svgz_names_its_own_file_in_the_gzip_header(tmp_path, capsys):
    import gzip

    picture = tmp_path / "grid.svgz"
    assert main(["grid", "40", "40", "--speeds", "1,2", "--plot", str(picture)]) == 0, capsys.readouterr().err
    data = picture.read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[3] & 0x08  # gzip, with a stored file name
    stored = data[10:data.index(b"\0", 10)].decode()
    assert stored == "grid.svgz"  # matplotlib's own writer stored the temporary file's name
    assert b"<svg" in gzip.decompress(data)[:2000]


def test_extension_case_does_not_matter(tmp_path, capsys):
    picture = tmp_path / "grid.PDF"
    assert main(["grid", "40", "40", "--speeds", "1,2", "--plot", str(picture)]) == 0
    assert _looks_like(picture, ".pdf")


@pytest.mark.parametrize("suffix", [".svg", ".pdf", ".png"])
def test_schedule_gantt_writes_the_format_its_extension_names(tmp_path, capsys, suffix):
    picture = tmp_path / f"gantt{suffix}"
    status = main(["schedule", "matmul", "--platform", "seed000", "--rounds", "3", "--size", "600", "--chunks",
                   "30", "--json", "--gantt", str(picture)])
    assert status == 0, capsys.readouterr().err
    assert _looks_like(picture, suffix)


@pytest.mark.parametrize("name", ["grid.foo", "grid", "grid.pgf", "grid.png.txt"])
def test_grid_plot_unknown_format_is_refused_before_partitioning(tmp_path, capsys, monkeypatch, name):
    import apportion.partitioning.grid as grid_package

    def never(*args, **kwargs):
        raise AssertionError("partitioned before the picture's format was checked")

    monkeypatch.setattr(grid_package, "partition_grid", never)
    picture = tmp_path / name
    assert main(["grid", "60", "60", "--speeds", "1,2", "--plot", str(picture)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("apportion: error: --plot ") and ".png" in err, err
    assert list(tmp_path.iterdir()) == []


def test_schedule_gantt_unknown_format_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    import apportion.schedule.api as api

    def never(*args, **kwargs):
        raise AssertionError("scheduled before the picture's format was checked")

    monkeypatch.setattr(api, "run_schedule", never)
    picture = tmp_path / "gantt.docx"
    assert main(["schedule", "matmul", "--platform", "seed000", "--rounds", "2", "--gantt", str(picture)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--gantt" in err and "'.docx'" in err, err
    assert list(tmp_path.iterdir()) == []


def test_library_gantt_refuses_an_unknown_format(tmp_path):
    from apportion.schedule.api import run_schedule
    from apportion.apps.workloads import build_workload

    schedule = run_schedule(build_workload("matmul", 600, 30, materialize=False), "seed000", "greedy", 1,
                            compute=False)
    with pytest.raises(InputError, match="unknown picture format"):
        schedule.trace.gantt(tmp_path / "trace.xyz")
    assert list(tmp_path.iterdir()) == []
    assert _looks_like(schedule.trace.gantt(tmp_path / "trace.svg"), ".svg")


def test_formats_are_those_matplotlib_writes_here():
    formats = picture_formats()
    assert {"png", "svg", "pdf"} <= set(formats)
    assert "pgf" not in formats  # needs LaTeX at write time: refused up front instead of failing after the work
    assert check_picture_path("a/b.Svg") == "svg"
    with pytest.raises(InputError, match="--plot x.pgf"):
        check_picture_path("x.pgf", "--plot")


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    picture = tmp_path / "old.png"
    picture.write_bytes(b"old picture")
    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])

    def half_then_fail(self, target, **kwargs):
        with open(target, "wb") as handle:
            handle.write(b"\x89PNG half")
        raise OSError("disk full")

    monkeypatch.setattr(Figure, "savefig", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        save_figure(fig, picture)
    assert picture.read_bytes() == b"old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["old.png"]


# ---------------------------------------------------------------------- progress

class _FakeTerminal(io.StringIO):
    """A stderr that says it is a terminal and keeps what is written to it."""

    def isatty(self) -> bool:
        return True


def _visible(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_nested_progress_lines_share_one_display(monkeypatch):
    fake = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")
    ui.set_quiet(False)
    with ui.progress("outer work") as outer:
        with ui.progress("inner phase", total=4) as inner:
            inner.advance(2)
            outer.update(description="outer work, renamed")
        for _ in ui.track(range(3), "a loop"):
            pass
    shown = _visible(fake.getvalue())
    # the inner line is drawn under the outer one, in the same frame, indented
    assert re.search(r"outer work[^\n]*\n[^\n]*  inner phase", shown), shown
    assert "a loop" in shown
    assert ui._display is None and ui._open_tasks == 0  # the display ends with its last task


def test_progress_is_silent_when_quiet_or_not_a_terminal(monkeypatch):
    fake = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", fake)
    ui.set_quiet(True)
    try:
        with ui.progress("hidden"):
            pass
    finally:
        ui.set_quiet(False)
    pipe = io.StringIO()  # isatty() is False
    monkeypatch.setattr(sys, "stderr", pipe)
    with ui.progress("hidden too", total=2) as task:
        task.advance()
    assert fake.getvalue() == "" and pipe.getvalue() == ""


def _run_with_terminal_stderr(*args: str) -> tuple[int, bytes]:
    """Run `apportion ARGS` with stderr on a pseudo-terminal (stdout piped); return (exit status, stderr)."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120")
    env.pop("APPORTION_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "apportion.cli.main", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks: list[bytes] = []

    def pump() -> None:  # read while the command runs, so a full pty buffer never blocks it
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the pty's other end closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=pump)
    reader.start()
    proc.communicate(timeout=600)
    reader.join()
    os.close(master)
    return proc.returncode, b"".join(chunks)


# command, and the pattern of its progress: the command's line, then the library's own line (rounds,
# iterations) under it in the same frame
COMMANDS = {
    "schedule": (["schedule", "matmul", "--platform", "seed000", "--rounds", "5", "--size", "600"],
                 r"hass: matmul on 3 devices[^\n]*\n[^\n]*  rounds"),
    "stencil": (["stencil", "heat", "--grid", "64x64", "--steps", "30", "--platform", "seed002"],
                r"heat 64×64 on \d+ devices[^\n]*\n[^\n]*  iterations"),
    "run": (["run", "sssp", "dataset:4elt", "--source", "0"], r"sssp on 2 devices \(threads\)"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_long_runs_draw_progress_on_a_terminal_and_nothing_on_a_pipe(cli, name):
    args, pattern = COMMANDS[name]
    status, err = _run_with_terminal_stderr(*args)
    shown = _visible(err.decode("utf-8", "replace"))
    assert status == 0, shown
    assert re.search(pattern, shown), shown
    piped = cli(*args)
    assert piped.returncode == 0 and piped.stderr == ""
    quiet = _run_with_terminal_stderr(*args, "--quiet")
    assert quiet == (0, b"")


def test_spac_draws_its_phase_under_the_command_line(cli, tmp_path):
    import apportion
    from apportion.graph.io import write_graph

    graph = tmp_path / "ba.graph"
    write_graph(apportion.generate("ba", 3000, seed=1, m_attach=4), graph)
    status, err = _run_with_terminal_stderr("edge-partition", str(graph), "-k", "4")
    shown = _visible(err.decode("utf-8", "replace"))
    assert status == 0, shown
    assert re.search(r"spac: [\d,]+ edges into 4 parts[^\n]*\n[^\n]*  SPAC: partitioning", shown), shown
    piped = cli("edge-partition", graph, "-k", "4")
    assert piped.returncode == 0 and piped.stderr == ""


@pytest.mark.parametrize("rows, cols", [(20, 4000), (5000, 30), (60, 60), (30, 100)])
def test_grid_picture_of_an_elongated_grid_is_stretched_and_says_so(rows, cols):
    # drawn to scale, a 20 x 4,000 grid is a line one pixel high: beyond MAX_DRAWN_ASPECT it is stretched
    from matplotlib.figure import Figure

    from apportion.partitioning.grid import partition_grid
    from apportion.partitioning.grid.plot import MAX_DRAWN_ASPECT, draw_rectangles, drawn_aspect

    rect = partition_grid(rows, cols, [3, 3, 2, 1])
    ax = Figure(figsize=(6.4, 4.0)).add_subplot()
    draw_rectangles(ax, rect)
    ax.figure.canvas.draw()
    box = ax.get_position(original=False)  # the axes' box as its aspect leaves it, in figure fractions
    height_over_width = box.height * 4.0 / (box.width * 6.4)
    aspect = rows / cols
    expected = min(max(aspect, 1 / MAX_DRAWN_ASPECT), MAX_DRAWN_ASPECT)
    assert drawn_aspect(rows, cols) == pytest.approx(expected)
    assert height_over_width == pytest.approx(expected, rel=0.02)
    title = ax.get_title()
    if expected == aspect:
        assert "not to scale" not in title
    else:
        assert "not to scale" in title
        assert ("rows drawn" in title) == (aspect < 1) and ("columns drawn" in title) == (aspect > 1)
        assert f"{round(max(expected / aspect, aspect / expected)):,}×" in title
