"""The exit-code contract of the command line."""


def test_help_exits_zero(cli):
    result = cli("--help")
    assert result.returncode == 0
    assert "apportion" in result.stdout


def test_unknown_command_is_one_line_exit_2(cli):
    result = cli("no-such-command")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------------------------- argument gates
import json
import numba  # noqa: E402
import pytest  # noqa: E402

from apportion.cli.main import main  # noqa: E402

POOL = numba.config.NUMBA_NUM_THREADS
#: a 6-cycle in METIS format (written per test, so the tests need no shared graphs)
CYCLE = "6 6\n2 6\n1 3\n2 4\n3 5\n4 6\n5 1\n"


@pytest.fixture
def cycle(tmp_path):
    path = tmp_path / "cycle.graph"
    path.write_text(CYCLE)
    (tmp_path / "cycle.part").write_text("0\n0\n0\n1\n1\n1\n")
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("argv,message", [
    (["partition", "G", "-k", "2", "--seed", str(2**64 + 1)], "--seed must be between 0 and 4294967295"),
    (["partition", "G", "-k", "2", "--seed", "-1"], "--seed must be between 0 and"),
    (["partition", "G", "-k", "2", "--threads", "0"], f"--threads must be a positive integer between 1 and {POOL}"),
    (["partition", "G", "-k", "2", "--threads", str(POOL + 1)], f"between 1 and {POOL}"),
    (["partition", "G", "-k", "0"], "--k must be at least 1, got 0"),
    (["partition", "G", "-k", "7"], "--k = 7 is larger than the number of vertices (6)"),
    (["partition", "G", "-k", "2", "--imbalance", "nan"], "--imbalance must be a finite number"),
    (["partition", "G", "-k", "2", "--targets", "1e308,1e308"], "--targets: the values add up to more than"),
    (["partition", "G", "-k", "2", "--targets", "1,2,3"], "--targets has 3 entries but --k = 2"),
    (["partition", "G", "-k", "2", "--targets", "1,0"], "--targets must be positive; entry 1 is 0"),
    (["mst", "G", "--threads", str(POOL + 1)], f"--threads must be a positive integer between 1 and {POOL}"),
    (["edge-partition", "G", "-k", "2", "--seed", str(2**64)], "--seed must be between 0 and"),
    (["edge-partition", "G", "-k", "7"], "-k = 7 is larger than the number of edges (6)"),
    (["edge-partition", "G", "-k", "2", "--imbalance", "-1"], "--imbalance must be non-negative"),
    (["evaluate", "G", "P", "--k", "0"], "--k (the number of blocks) must be at least 1, got 0"),
    (["evaluate", "G", "P", "--targets", "1e308,1e308"], "--targets: the values add up to more than"),
    (["grid", "10", "10", "--speeds", "1e308,1e308"], "--speeds: the values add up to more than"),
    (["grid", "10", "10", "--speeds", "1,-2"], "--speeds must be positive; entry 1 is -2"),
    (["generate", "er", "--n", "10", "--seed", str(2**64), "-o", "OUT"], "--seed must be between 0 and"),
    (["schedule", "matmul", "--platform", "seed000", "--rounds", "0"], "--rounds must be at least 1, got 0"),
    (["schedule", "matmul", "--platform", "seed000", "--seed", "-4"], "--seed must be between 0 and"),
    (["stencil", "heat", "--grid", "8", "--seed", str(2**40)], "--seed must be between 0 and"),
])
def test_bad_arguments_are_one_line_naming_the_flag(argv, message, cycle, tmp_path, capsys):
    names = {"G": cycle, "P": tmp_path / "cycle.part", "OUT": tmp_path / "out.graph"}
    code, out, err = _run(capsys, *[names.get(a, a) for a in argv])
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("apportion: error: "), err
    assert message in err
    assert not (tmp_path / "out.graph").exists()


def test_seed_at_the_documented_bound_is_accepted(cycle, capsys):
    """The largest documented seed runs every Numba kernel of the partitioners (a larger one once gave a
    12-line Numba typing error)."""
    for argv in (["partition", cycle, "-k", "2"], ["edge-partition", cycle, "-k", "2", "--method", "spac"]):
        code, _out, err = _run(capsys, *argv, "--seed", str(2**32 - 1), "--json")
        assert code == 0, err


# ---------------------------------------------------------------------------------------------- number lists
from apportion.cli.common import MAX_LIST_ENTRIES, parse_number_list  # noqa: E402
from apportion.errors import InputError  # noqa: E402


@pytest.mark.parametrize("text,expected", [("4,2,1,1", [4, 2, 1, 1]), ("2x3,1x2", [2, 2, 2, 1, 1]),
                                           ("2×2", [2, 2]), (" 1, 2 ", [1, 2]), ("1.5x1", [1.5])])
def test_number_lists_keep_the_count_syntax(text, expected):
    assert parse_number_list(text, "--speeds") == expected


@pytest.mark.parametrize("text,fragment", [("1,,2", "entry 2 of '1,,2' is empty"), ("1,2,", "entry 3"),
                                           (",1", "entry 1"), ("", "empty list"), ("2x0", "at least 1"),
                                           ("2x1000000000000", f"more than {MAX_LIST_ENTRIES:,}"),
                                           ("a", "cannot read 'a'"), ("2x3x4", "cannot read")])
def test_number_lists_refuse_empty_entries_and_huge_counts(text, fragment):
    with pytest.raises(InputError) as info:
        parse_number_list(text, "--speeds")
    assert str(info.value).startswith("--speeds: ") and fragment in str(info.value)


@pytest.mark.parametrize("argv", [["grid", "10", "10", "--speeds", "1,,2"],
                                  ["partition", "G", "-k", "2", "--targets", "1,"],
                                  ["evaluate", "G", "P", "--targets", ",1,1"]])
def test_empty_list_entries_are_refused_by_every_command(argv, cycle, tmp_path, capsys):
    names = {"G": cycle, "P": tmp_path / "cycle.part"}
    code, out, err = _run(capsys, *[names.get(a, a) for a in argv])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "is empty" in err


# ---------------------------------------------------------------------------------------------- the error table
import apportion.cli.graph_commands as graph_commands  # noqa: E402
from apportion.errors import UnavailableError  # noqa: E402


@pytest.mark.parametrize("error,line,status", [
    (InputError("bad k", path="g.graph"), "apportion: error: g.graph: bad k\n", 2),
    (UnavailableError("no GPU"), "apportion: error: no GPU\n", 2),
    (FileNotFoundError(2, "No such file", "x.graph"), "apportion: error: x.graph: no such file\n", 2),
    (IsADirectoryError(21, "Is a directory", "d"), "apportion: error: d: is a directory\n", 2),
    (PermissionError(13, "Permission denied", "p"), "apportion: error: p: permission denied\n", 2),
    (OSError(36, "File name too long", "a" * 300 + ".mtx"), f"apportion: error: {'a' * 300}.mtx: File name too long\n",
     2),
    (OSError(28, "No space left on device"), "apportion: error: [Errno 28] No space left on device\n", 2),
    (MemoryError("Allocation failed"), "apportion: error: out of memory: the input needs more memory than this "
                                       "machine (or this process's limit) has\n", 2),
    (KeyboardInterrupt(), "apportion: interrupted\n", 130),
    (BrokenPipeError(32, "Broken pipe"), "", 0),
    (ZeroDivisionError("oops"), "apportion: internal error: ZeroDivisionError: oops "
                                "(set APPORTION_DEBUG=1 for a traceback)\n", 1),
])
def test_every_exception_has_one_line_and_its_status(error, line, status, monkeypatch, capsys):
    def handler(args):
        raise error

    monkeypatch.delenv("APPORTION_DEBUG", raising=False)
    monkeypatch.setattr(graph_commands, "run_info", handler)
    code, out, err = _run(capsys, "info", "whatever.graph")
    assert (code, out, err) == (status, "", line)


def test_debug_shows_the_traceback_of_errors_only(monkeypatch):
    def handler(args):
        raise InputError("bad")

    monkeypatch.setenv("APPORTION_DEBUG", "1")
    monkeypatch.setattr(graph_commands, "run_info", handler)
    with pytest.raises(InputError):
        main(["info", "whatever.graph"])


@pytest.mark.parametrize("speeds", ["1e308,1", "1e-308,3e-308", "1e300,1e300,2e300", "1e-320,1"])
def test_grid_takes_speeds_at_the_ends_of_the_float_range(speeds, capsys):
    """Finite relative speeds whose sum is finite are ratios like any other (they used to overflow: exit 1)."""
    code, out, err = _run(capsys, "grid", "10", "10", "--speeds", speeds, "--json")
    assert code == 0 and "warning" not in err, err  # 1e-320's target is far below one cell: no overflow shown
    assert sum(r["height"] * r["width"] for r in json.loads(out)["rectangles"]) == 100


@pytest.mark.parametrize("argv", [["stencil", "heat", "--grid", "10", "--platform", "seed000", "--steps", "0"],
                                  ["stencil", "gauss", "--grid", "1", "--platform", "ONE"]])
def test_stencil_runs_with_nothing_to_do_print_no_warning(argv, tmp_path, capsys):
    """No steps (or a 1 x 1 elimination on one device): nobody is busy, the imbalance is 0, not 0 / 0."""
    platform = tmp_path / "one.toml"
    platform.write_text('[[device]]\nname = "c"\ntype = "simulated"\npeak_gflops = 1\nmemory_bandwidth_gbs = 1\n')
    code, out, err = _run(capsys, *[str(platform) if a == "ONE" else a for a in argv])
    assert code == 0 and "warning" not in err, err
