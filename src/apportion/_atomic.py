"""Write outputs all at once: a temporary file in the same folder, renamed into place only on success.

Every problem is reported against the user's path, never the temporary file: a missing folder (not created:
an InputError naming it), a folder that cannot be written, a target that is a folder. `-` is standard output
(written only once the whole output is ready); a name ending in `.gz`, `.bz2` or `.xz` is compressed
accordingly by `atomic_output`.

A symbolic link is followed: the file it points to is replaced and the link stays. A path that is not a regular
file — a device such as /dev/null, a named pipe, a socket, /proc/self/fd/1 — cannot be replaced by a rename
(renaming over /dev/null would put a regular file in its place for the whole machine): the whole output is
collected first and then written into it, as for `-`.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO, Iterator

from apportion.errors import InputError

STDOUT = "-"
_COMPRESSORS = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bzip2", ".xz": "xz"}


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


def check_writable(path: str | os.PathLike) -> None:
    """InputError naming `path` when it cannot be written: its folder is missing or not a folder, or `path`
    is a folder. `-` (standard output) always passes."""
    if str(path) == STDOUT:
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise InputError("is a directory; name an output file", path=str(path))
    if not folder.exists():
        raise InputError(f"cannot write: the folder {str(folder)!r} does not exist (create it first)",
                         path=str(path))
    if not folder.is_dir():
        raise InputError(f"cannot write: {str(folder)!r} is not a folder", path=str(path))


def _is_special(path: str | os.PathLike) -> bool:
    """Whether `path` exists (links followed) and is neither a regular file nor a folder: a device, a named pipe,
    a socket — a file that a rename must not replace."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _link_target(path: str | os.PathLike) -> str:
    """The file a symbolic link at `path` finally names (the link itself stays), or `path` when it is not one."""
    return os.path.realpath(path) if os.path.islink(path) else os.fspath(path)


@contextlib.contextmanager
def _into_special(path: str | os.PathLike) -> Iterator[IO]:
    """Collect the whole output's bytes, then write them into the device, pipe or socket at `path` (nothing on
    an error)."""
    buffer = io.BytesIO()
    yield buffer
    try:
        with open(path, "wb") as handle:
            handle.write(buffer.getbuffer())
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path=str(path)) from None


def _temporary(path: str | os.PathLike, suffix: str) -> tuple[int, str]:
    """A new file `.NAME.XXXXXXXX<suffix>` next to `path` (created exclusively, mode 0600, like mkstemp), with
    errors naming `path` (the temporary name means nothing to the user).

    The name joins `_unfinished` *before* the file is created: an interrupt handled between the creation and
    the registration (the signal handler runs between two bytecodes) would otherwise leave the file behind —
    it did, once, in the CI run of 2026-11-26, with the interrupt test sending SIGINT the moment the file
    appeared on a loaded machine. Unlinking a name whose file does not exist yet is harmless."""
    check_writable(path)
    target = Path(_link_target(path))  # beside the file a link names, so that the rename keeps the link
    folder = target.parent if str(target.parent) else Path(".")
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp_name = os.path.abspath(os.path.join(folder, f".{target.name}.{secrets.token_hex(4)}{suffix}"))
        _unfinished.add(tmp_name)
        try:
            return os.open(tmp_name, flags, 0o600), tmp_name
        except FileExistsError:
            _unfinished.discard(tmp_name)
            continue
        except PermissionError:
            _unfinished.discard(tmp_name)
            raise InputError(f"cannot write: permission denied in the folder {str(folder)!r}",
                             path=str(path)) from None
        except OSError as error:
            _unfinished.discard(tmp_name)
            raise InputError(f"cannot write: {error.strerror or error}", path=str(path)) from None
    raise InputError("cannot write: no free temporary name beside it", path=str(path))


def _publish(tmp_name: str, path: str | os.PathLike) -> None:
    """Give the temporary file the mode a plain open() would have, then rename it into place."""
    os.chmod(tmp_name, 0o666 & ~_umask())
    try:
        os.replace(tmp_name, _link_target(path))
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", path=str(path)) from None


def _compressor(path: str | os.PathLike):
    """A function wrapping a binary file in the compressor its name asks for (`.gz`, `.bz2`, `.xz`), or None."""
    kind = next((k for s, k in _COMPRESSORS.items() if str(path).lower().endswith(s)), None)
    if kind == "gzip":
        import gzip

        return lambda raw: gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0)
    if kind == "bzip2":
        import bz2

        return lambda raw: bz2.BZ2File(raw, mode="wb")
    if kind == "xz":
        import lzma

        return lambda raw: lzma.LZMAFile(raw, mode="wb")
    return None


@contextlib.contextmanager
def _to_stdout(mode: str, open_kwargs: dict) -> Iterator[IO]:
    """Collect the whole output, then write it to standard output (nothing is written on an error)."""
    buffer: IO = io.BytesIO() if "b" in mode else io.StringIO(newline=open_kwargs.get("newline"))
    yield buffer
    if "b" in mode:
        sys.stdout.flush()
        sys.stdout.buffer.write(buffer.getbuffer())
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(buffer.getvalue())
        sys.stdout.flush()


@contextlib.contextmanager
def _handle(raw: IO, path: str | os.PathLike, mode: str, open_kwargs: dict) -> Iterator[IO]:
    """The binary file `raw` as the handle `atomic_output`'s caller asked for: compressed when the name of `path`
    says so, text or binary by `mode`. Everything is flushed into `raw` when the block ends."""
    compressor = _compressor(path)
    with contextlib.ExitStack() as stack:
        stream = stack.enter_context(compressor(raw)) if compressor is not None else raw  # its end written first
        if "b" in mode:
            yield stream
            return
        text = io.TextIOWrapper(stream, encoding=open_kwargs.get("encoding"), errors=open_kwargs.get("errors"),
                                newline=open_kwargs.get("newline"))
        try:
            yield text
            text.flush()
        finally:
            text.detach()  # the compressor and the file close themselves


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Open a temporary sibling of `path` for writing; rename it to `path` when the block ends without error.

    On an exception the temporary file is removed and `path` is left as it was (absent or its old content).
    `-` writes to standard output once the block ends without error, and so does a device or a pipe at `path`
    into it (module docstring). A `.gz`/`.bz2`/`.xz` name is written compressed. The folder of `path` must exist
    (InputError naming `path` otherwise).
    """
    if str(path) == STDOUT:
        with _to_stdout(mode, open_kwargs) as handle:
            yield handle
        return
    if _is_special(path):
        with _into_special(path) as raw, _handle(raw, path, mode, open_kwargs) as handle:
            yield handle
        return
    fd, tmp_name = _temporary(path, ".tmp")
    try:
        with os.fdopen(fd, "wb") as raw, _handle(raw, path, mode, open_kwargs) as handle:
            yield handle
        _publish(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    finally:
        _unfinished.discard(tmp_name)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path next to `path` for libraries that want a file name (np.savez, savefig)."""
    if str(path) == STDOUT:
        raise InputError("this output cannot go to standard output: name a file", path=STDOUT)
    if _is_special(path):  # a device or a pipe: the library writes a scratch file, copied in when it is done
        scratch = tempfile.mkdtemp(prefix="apportion-")
        try:
            written = Path(scratch) / ("output" + suffix)
            yield written
            try:
                with open(written, "rb") as source, open(path, "wb") as sink:
                    shutil.copyfileobj(source, sink)
            except OSError as error:
                raise InputError(f"cannot write: {error.strerror or error}", path=str(path)) from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return
    fd, tmp_name = _temporary(path, ".tmp" + suffix)
    os.close(fd)
    try:
        yield Path(tmp_name)
        _publish(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    finally:
        _unfinished.discard(tmp_name)
