"""Write outputs all at once: a temporary file in the same folder, renamed into place only on success."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


#: temporary files being written now: what an interrupt must remove before the process ends
#: (`remove_unfinished`, called by the command line's SIGINT handler, which exits without unwinding)
_unfinished: set[str] = set()


def remove_unfinished() -> None:
    """Delete every temporary output file still being written (their targets stay as they were)."""
    for name in list(_unfinished):
        with contextlib.suppress(OSError):
            os.unlink(name)
        _unfinished.discard(name)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish(tmp_name: str, target: Path) -> None:
    """Give the temporary file the mode a plain open() would have, then rename it into place."""
    os.chmod(tmp_name, 0o666 & ~_umask())
    os.replace(tmp_name, target)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Open a temporary sibling of `path` for writing; rename it to `path` when the block ends without error.

    On an exception the temporary file is removed and `path` is left as it was (absent or its old content).
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    _unfinished.add(tmp_name)
    try:
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            yield handle
        _publish(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    finally:
        _unfinished.discard(tmp_name)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path next to `path` for libraries that want a file name (np.savez, savefig)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp" + suffix, dir=folder)
    _unfinished.add(tmp_name)
    os.close(fd)
    try:
        yield Path(tmp_name)
        _publish(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    finally:
        _unfinished.discard(tmp_name)
