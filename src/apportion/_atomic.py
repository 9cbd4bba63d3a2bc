"""Write outputs all at once: a temporary file in the same folder, renamed into place only on success.

Every problem is reported against the user's path, never the temporary file: a missing folder (not created:
an InputError naming it), a folder that cannot be written, a target that is a folder. `-` is standard output
(written only once the whole output is ready); a name ending in `.gz`, `.bz2` or `.xz` is compressed
accordingly by `atomic_output`.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import sys
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


def _temporary(path: str | os.PathLike, suffix: str) -> tuple[int, str]:
    """A new file `.NAME.XXXXXXXX<suffix>` next to `path` (created exclusively, mode 0600, like mkstemp), with
    errors naming `path` (the temporary name means nothing to the user).

    The name joins `_unfinished` *before* the file is created: an interrupt handled between the creation and
    the registration (the signal handler runs between two bytecodes) would otherwise leave the file behind —
    it did, once, in the CI run of 2026-11-26, with the interrupt test sending SIGINT the moment the file
    appeared on a loaded machine. Unlinking a name whose file does not exist yet is harmless."""
    check_writable(path)
    target = Path(path)
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
        os.replace(tmp_name, Path(path))
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
def atomic_output(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Open a temporary sibling of `path` for writing; rename it to `path` when the block ends without error.

    On an exception the temporary file is removed and `path` is left as it was (absent or its old content).
    `-` writes to standard output once the block ends without error. A `.gz`/`.bz2`/`.xz` name is written
    compressed. The folder of `path` must exist (InputError naming `path` otherwise).
    """
    if str(path) == STDOUT:
        with _to_stdout(mode, open_kwargs) as handle:
            yield handle
        return
    fd, tmp_name = _temporary(path, ".tmp")
    try:
        compressor = _compressor(path)
        if compressor is None:
            with os.fdopen(fd, mode, **open_kwargs) as handle:
                yield handle
        else:
            with os.fdopen(fd, "wb") as raw, compressor(raw) as stream:  # the stream's end is written first
                if "b" in mode:
                    yield stream
                else:
                    text = io.TextIOWrapper(stream, encoding=open_kwargs.get("encoding"),
                                            errors=open_kwargs.get("errors"), newline=open_kwargs.get("newline"))
                    try:
                        yield text
                        text.flush()
                    finally:
                        text.detach()  # the compressor and the file close themselves
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
