"""Ctrl-C at any moment: exit 130, the one line `apportion: interrupted` on stderr, no output file left.

The subprocess tests send SIGINT at moments recognised by what the process shows (no fixed sleeps): while
NumPy's library is being loaded (the imports before `main` runs its command, /proc/PID/maps), while the
partitioners' chunked kernels run (a pool thread named apportion-chunk exists), and while an output file is
being written (its temporary sibling exists). Linux only (/proc).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import apportion.cli.graph_commands as graph_commands
from apportion.cli.main import main

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")

#: how long a marker may take to appear (first runs compile the kernels); a limit on waiting, not an assertion
MARKER_TIMEOUT_S = 600


def _default_sigint() -> None:
    """In the child before it runs Python: SIGINT's default action, as a shell in the foreground gives it. A test
    runner started in the background (`make test &` in a non-interactive shell) ignores SIGINT, every child
    inherits that, and Python leaves an ignored SIGINT ignored until the command line installs its handler, so
    a signal sent at once after the start was lost (exit 2 from the command's own error instead of 130)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(*args: str) -> subprocess.Popen:
    env = dict(os.environ)
    env.pop("APPORTION_DEBUG", None)
    return subprocess.Popen([sys.executable, "-m", "apportion.cli.main", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_default_sigint)


def _maps_mention(pid: int, text: str) -> bool:
    try:
        return text in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _has_chunk_thread(pid: int) -> bool:
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            if task.joinpath("comm").read_text().startswith("apportion-chunk"):
                return True
        except OSError:
            continue
    return False


def _interrupt_when(process: subprocess.Popen, ready) -> bool:
    """Poll until `ready(pid)`, then send SIGINT; False when the process ended first."""
    deadline = time.monotonic() + MARKER_TIMEOUT_S
    while process.poll() is None and time.monotonic() < deadline:
        if ready(process.pid):
            process.send_signal(signal.SIGINT)
            return True
        time.sleep(0.001)
    return False


def _assert_interrupted(process: subprocess.Popen) -> None:
    out, err = process.communicate(timeout=MARKER_TIMEOUT_S)
    assert process.returncode == 130, (process.returncode, err[-2000:])
    assert err == "apportion: interrupted\n", err[-2000:]


def _assert_no_output(folder: Path, name: str) -> None:
    left = sorted(p.name for p in folder.iterdir() if p.name == name or p.name.startswith(f".{name}."))
    assert left == [], left


@pytest.fixture(scope="module")
def big_graph(tmp_path_factory) -> Path:
    """A generated graph big enough that partitioning it runs the chunked (multi-threaded) kernels a while."""
    path = tmp_path_factory.mktemp("interrupt") / "rgg.graph"
    done = subprocess.run([sys.executable, "-m", "apportion.cli.main", "generate", "rgg", "--n", "300000",
                           "--seed", "1", "-o", str(path), "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return path


def test_interrupt_right_after_start(tmp_path):
    """At once after the start: before the interpreter has set up its own handler the signal ends the process
    without output (a shell reports that as status 130 too); while the interpreter itself is still starting
    (importing `site`, before any line of apportion runs) Python stops with its own fatal-error report (exit 1;
    seen on a loaded machine); from then on it is exit 130 and one line."""
    process = _start("info", tmp_path / "missing.graph")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=MARKER_TIMEOUT_S)
    if process.returncode == -signal.SIGINT:
        assert err == ""
    elif process.returncode == 1 and "init_import_site" in err:
        assert "KeyboardInterrupt" in err
    else:
        assert process.returncode == 130, (process.returncode, err)
        assert err == "apportion: interrupted\n"


def test_interrupt_during_the_imports(tmp_path):
    """The first 0.2 s: the command modules import NumPy and Numba before `main` runs the command (this gave a
    31-line traceback)."""
    graph = tmp_path / "cycle.graph"
    graph.write_text("3 3\n2 3\n1 3\n1 2\n")
    process = _start("partition", graph, "-k", "2", "-o", tmp_path / "out.part")
    if not _interrupt_when(process, lambda pid: _maps_mention(pid, "_multiarray_umath")):
        pytest.fail(f"ended before NumPy was loaded: {process.communicate()}")
    _assert_interrupted(process)
    _assert_no_output(tmp_path, "out.part")


@pytest.mark.parametrize("command", [["partition", "-k", "16"], ["edge-partition", "-k", "16"]])
def test_interrupt_during_the_parallel_kernels(command, big_graph, tmp_path):
    """While the chunked kernels run on the thread pool (edge-partition once ended in 'internal error:
    SystemError ... returned a result with an exception set')."""
    name, *options = command
    output = tmp_path / "out.txt"
    process = _start(name, big_graph, *options, "-q", "-o", output)
    if not _interrupt_when(process, _has_chunk_thread):
        pytest.fail(f"ended before the chunked kernels ran: {process.communicate()}")
    _assert_interrupted(process)
    _assert_no_output(tmp_path, "out.txt")


def test_interrupt_while_writing_removes_the_unfinished_output(big_graph, tmp_path):
    output = tmp_path / "out.mtx"
    process = _start("convert", big_graph, output, "-q")
    if not _interrupt_when(process, lambda pid: any(p.name.startswith(".out.mtx.") for p in tmp_path.iterdir())):
        pytest.fail(f"ended before writing: {process.communicate()}")
    _assert_interrupted(process)
    _assert_no_output(tmp_path, "out.mtx")


def test_an_error_caused_by_an_interrupt_is_reported_as_the_interrupt(monkeypatch, tmp_path, capsys):
    """A KeyboardInterrupt that surfaces inside a compiled call comes out as SystemError with the interrupt as
    its context: that is exit 130 and the one line, not an internal error."""
    def handler(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("<function> returned a result with an exception set")  # noqa: B904

    monkeypatch.setattr(graph_commands, "run_info", handler)
    assert main(["info", str(tmp_path / "g.graph")]) == 130
    captured = capsys.readouterr()
    assert captured.err == "apportion: interrupted\n" and captured.out == ""


def test_main_restores_the_callers_sigint_handler(tmp_path, capsys):
    before = signal.getsignal(signal.SIGINT)
    main(["info", str(tmp_path / "missing.graph")])
    capsys.readouterr()
    assert signal.getsignal(signal.SIGINT) is before


def test_an_interrupt_sent_to_the_command_alone_stops_its_child_processes(tmp_path):
    """`kill -INT PID` reaches the command, not its process group: the handler ends the command at once, so it
    must stop the children it started (`apportion compile`'s workers kept compiling on every core)."""
    script = tmp_path / "parent.py"
    pid_file = tmp_path / "child.pid"
    script.write_text(
        "import os, signal, subprocess, sys, time\n"
        "from apportion import _children\n"
        "from apportion.cli.main import _install_sigint_handler\n"
        "_install_sigint_handler()\n"
        "child = _children.started(subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']))\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(60)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          preexec_fn=_default_sigint)
    assert done.returncode == 130 and done.stderr.strip().endswith("apportion: interrupted")
    child = int(pid_file.read_text())
    for _ in range(200):  # SIGTERM was sent before the parent exited; the child ends within moments
        state = Path(f"/proc/{child}/stat")
        if not state.exists() or state.read_text().split(")")[-1].split()[0] == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the child process outlived the interrupted command")
