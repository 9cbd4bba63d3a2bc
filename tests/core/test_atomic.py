"""Outputs appear whole or not at all, with the permissions a plain open() gives."""

from __future__ import annotations

import os
import stat

import pytest

from apportion._atomic import atomic_output, atomic_path


def test_atomic_output_publishes_with_umask_mode(tmp_path):
    target = tmp_path / "out.txt"
    with atomic_output(target) as handle:
        handle.write("hello\n")
        assert not target.exists()
    assert target.read_text() == "hello\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_atomic_output_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_output(target) as handle:
            handle.write("partial")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_atomic_output_keeps_old_content_on_error(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_output(target) as handle:
            handle.write("new")
            raise RuntimeError("boom")
    assert target.read_text() == "old"


def test_atomic_path_for_libraries(tmp_path):
    target = tmp_path / "pic.png"
    with atomic_path(target, suffix=".png") as tmp:
        assert tmp.suffix == ".png"
        tmp.write_bytes(b"x")
    assert target.read_bytes() == b"x"
    assert [p.name for p in tmp_path.iterdir()] == ["pic.png"]


def test_remove_unfinished_deletes_only_the_files_being_written(tmp_path):
    """What the command line's Ctrl-C handler calls before it ends the process: no partial output stays."""
    from apportion._atomic import _unfinished, atomic_output, atomic_path, remove_unfinished

    done = tmp_path / "done.txt"
    with atomic_output(done) as handle:
        handle.write("complete\n")
    with pytest.raises(KeyboardInterrupt):  # (the handler ends the process instead of leaving the blocks)
        with atomic_output(tmp_path / "a.txt") as handle, atomic_path(tmp_path / "b.png", ".png") as temporary:
            handle.write("half")
            temporary.write_bytes(b"half")
            assert len(_unfinished) == 2
            remove_unfinished()
            assert sorted(p.name for p in tmp_path.iterdir()) == ["done.txt"]
            assert not _unfinished
            raise KeyboardInterrupt
    assert not _unfinished and sorted(p.name for p in tmp_path.iterdir()) == ["done.txt"]
