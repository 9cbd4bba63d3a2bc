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


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    with atomic_output(link) as handle:
        handle.write("new\n")
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert real.read_text() == "new\n"
    with atomic_path(link, suffix=".npz") as tmp:
        tmp.write_bytes(b"bytes")
    assert link.is_symlink() and real.read_bytes() == b"bytes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("made.txt")  # a link to a file still to be written
    with atomic_output(dangling) as handle:
        handle.write("made\n")
    assert dangling.is_symlink() and (tmp_path / "made.txt").read_text() == "made\n"


def _pipe_reader(path, out):
    import threading

    def read():
        with open(path, "rb") as pipe:
            out.append(pipe.read())
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("compressed", [False, True])
def test_a_named_pipe_receives_the_whole_output_and_stays_a_pipe(tmp_path, compressed):
    """A rename would replace a pipe or a device (/dev/null, for the whole machine) by a regular file."""
    import gzip

    pipe = tmp_path / ("pipe.gz" if compressed else "pipe")
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = _pipe_reader(pipe, received)
    with atomic_output(pipe) as handle:
        handle.write("line 1\nline 2\n")
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    data = gzip.decompress(received[0]) if compressed else received[0]
    assert data == b"line 1\nline 2\n"
    reader = _pipe_reader(pipe, received)  # and for libraries that want a file name
    with atomic_path(pipe, suffix=".png") as tmp:
        tmp.write_bytes(b"picture")
    reader.join(timeout=30)
    assert received[1] == b"picture" and stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == [pipe.name]


def test_nothing_reaches_a_pipe_when_the_output_fails(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(RuntimeError):
        with atomic_output(pipe) as handle:  # an error before the end: the pipe is never even opened
            handle.write("partial")
            raise RuntimeError("boom")
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_a_device_stays_a_device(tmp_path):
    """A private copy of /dev/null's device (a regression here must not replace the machine's own)."""
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError):
        pytest.skip("creating a device node needs privileges this run has not")
    with atomic_output(device) as handle:
        handle.write("discarded\n")
    assert stat.S_ISCHR(os.lstat(device).st_mode) and os.lstat(device).st_rdev == os.makedev(1, 3)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]
