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
