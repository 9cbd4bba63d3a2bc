"""Where a reader's bytes come from: a plain file, a compressed file, standard input or a pipe.

`Source(path)` looks at the content, not the name: gzip, bzip2 and xz data are decompressed whatever the file
is called; `-` is standard input; FIFOs, `/dev/stdin` and `/dev/fd/N` are read once, front to back. A plain
regular file keeps the fast path the readers always had: it is opened and seeked directly, with no copy
(`Source.plain_path`). Every other source is one forward stream whose first `HEAD_BYTES` are kept for
header parsing and handed back in front of the rest when the body is read (`Source.open`). A UTF-8 byte-order
mark at the start of the data is stepped over by every access (`Source.skip`), so offsets count from after it.

`text_head()` refuses what is not text (NUL or other control bytes, a zip archive, zstd data) with one line
that never echoes the bytes themselves; `printable()` guards every piece of file text a message quotes.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import stat
import sys
import zlib
from typing import BinaryIO, Iterator

from apportion.errors import InputError

STDIN = "-"
STDIN_NAME = "<stdin>"
HEAD_BYTES = 1 << 16

# compression: magic bytes at the start of the data, and the file-name suffixes that name it
_MAGIC = {"gzip": b"\x1f\x8b", "bzip2": b"BZh", "xz": b"\xfd7zXZ\x00"}
COMPRESSION_SUFFIXES = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bzip2", ".xz": "xz"}
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ZIP_MAGIC = b"PK\x03\x04"
_BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark, which editors on Windows put at the start of text files
_DECOMPRESS_ERRORS = (EOFError, OSError, lzma.LZMAError, zlib.error)

# bytes a text graph file may hold: printable ASCII, tab, newline, vertical tab, form feed, carriage return and
# anything ≥ 0x80 (comments in any 8-bit encoding); the rest (NUL, other controls, DEL) means binary data
_NOT_TEXT = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r") + b"\x7f"


def is_stdin(path: str | os.PathLike) -> bool:
    return str(path) == STDIN


def display_name(path: str | os.PathLike) -> str:
    """How messages name `path`: as given, or `<stdin>` for `-`."""
    return STDIN_NAME if is_stdin(path) else str(path)


def compression_suffix(path: str | os.PathLike) -> str:
    """The compression suffix of a file name ('.gz', '.bz2', '.xz', '.gzip') or ''."""
    lower = str(path).lower()
    return next((s for s in COMPRESSION_SUFFIXES if lower.endswith(s)), "")


def strip_compression(path: str | os.PathLike) -> str:
    """The name without its compression suffix: 'x.graph.gz' → 'x.graph'."""
    suffix = compression_suffix(path)
    return str(path)[:-len(suffix)] if suffix else str(path)


def printable(raw: bytes) -> str | None:
    """`raw` as text fit to quote in a one-line message, or None when it holds binary data or is not UTF-8."""
    if raw.translate(None, _NOT_TEXT) != raw:
        return None
    text = raw.decode("utf-8", "replace")
    return text if text.isprintable() and "\ufffd" not in text else None


def quoted(raw: bytes, limit: int = 60) -> str:
    """`raw` (cut to `limit` characters) as a repr for a message, or a description when it cannot be shown."""
    text = printable(raw)
    if text is None:
        return "(bytes that are not UTF-8 text)" if binary_offset(raw) < 0 else "(binary data)"
    return repr(text[:limit])


def binary_offset(data: bytes) -> int:
    """The offset of the first byte that text cannot hold, or -1."""
    kept = data.translate(None, _NOT_TEXT)
    if len(kept) == len(data):
        return -1
    return next(i for i, b in enumerate(data) if b in _NOT_TEXT)


def read_full(handle, size: int) -> bytes:
    """Up to `size` bytes, fewer only at the end of the data (pipes and decompressors may return short reads)."""
    block = handle.read(size)
    if len(block) == size or not block:
        return block
    parts = [block]
    got = len(block)
    while got < size:
        more = handle.read(size - got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return block if len(parts) == 1 else b"".join(parts)


class _Prefixed(io.RawIOBase):
    """`prefix` followed by the rest of `stream`: puts back bytes already read from a stream."""

    def __init__(self, prefix: bytes, stream, source_name: str, compression: str | None):
        self._prefix = memoryview(prefix)
        self._stream = stream
        self._name = source_name
        self._compression = compression

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if len(self._prefix):
            count = min(len(buffer), len(self._prefix))
            buffer[:count] = self._prefix[:count]
            self._prefix = self._prefix[count:]
            return count
        try:
            data = self._stream.read(len(buffer))
        except _DECOMPRESS_ERRORS as error:
            raise _damaged(self._name, self._compression, error) from None
        buffer[:len(data)] = data
        return len(data)


def _damaged(name: str, compression: str | None, error: BaseException) -> InputError:
    if compression is None:
        return InputError(f"cannot read: {error}", path=name)
    detail = str(error) or type(error).__name__
    return InputError(f"damaged or truncated {compression} data ({detail})", path=name)


def _decompressor(kind: str, raw):
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(raw, mode="rb")
    return lzma.LZMAFile(raw, mode="rb")


class Source:
    """The bytes of one graph or partition file, decompressed (see the module docstring).

    Attributes:
        name: how messages name it (the user's path, or `<stdin>`).
        compression: "gzip", "bzip2", "xz" or None.
        plain_path: the path when it is a plain regular file (open and seek it directly), else None.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        self.name = display_name(path)
        self.compression: str | None = None
        self.plain_path: str | None = None
        self._raw = None          # the open raw file of a non-plain source
        self._stream = None       # the decompressed forward stream of a non-plain source
        self._head: bytes | None = None
        self._opened = False
        self.skip = 0  # 3 when the data starts with a UTF-8 byte-order mark, which every access steps over
        if is_stdin(path):
            raw = sys.stdin.buffer
            regular = False
        else:
            if os.path.isdir(self.path):
                raise InputError("is a directory, not a graph file", path=self.name)
            raw = open(self.path, "rb")  # FileNotFoundError / PermissionError name the user's path
            try:
                regular = stat.S_ISREG(os.fstat(raw.fileno()).st_mode)
            except BaseException:
                raw.close()
                raise
        try:
            if regular:
                magic = raw.read(8)
                raw.seek(0)
                stream_prefix = b""
            else:  # a stream: what is read to look at it is put back in front
                magic = read_full(raw, 8)
                stream_prefix = magic
            self.compression = next((k for k, m in _MAGIC.items() if magic.startswith(m)), None)
            if magic.startswith(_ZSTD_MAGIC):
                raise InputError("zstd-compressed data is not supported (gzip, bzip2 and xz are): decompress "
                                 "it first, e.g. 'zstd -d'", path=self.name)
            if regular and self.compression is None:
                raw.close()
                self.plain_path = self.path
                self.skip = len(_BOM) if magic.startswith(_BOM) else 0
                return
            self._raw = raw
            stream = _Prefixed(stream_prefix, raw, self.name, None) if stream_prefix else raw
            self._stream = _decompressor(self.compression, stream) if self.compression else stream
        except BaseException:
            if not is_stdin(path):
                raw.close()
            raise

    # ---------------------------------------------------------------------------------------------- access
    def head(self, limit: int = HEAD_BYTES) -> bytes:
        """The first `limit` bytes (at most HEAD_BYTES) of the decompressed data."""
        if self.plain_path is not None:
            with open(self.plain_path, "rb") as handle:
                handle.seek(self.skip)
                return handle.read(limit)
        if self._head is None:
            if self._opened:
                raise RuntimeError("the head of a stream must be read before its body")
            try:
                self._head = read_full(self._stream, HEAD_BYTES)
            except _DECOMPRESS_ERRORS as error:
                raise _damaged(self.name, self.compression, error) from None
            if self._head.startswith(_BOM):
                self.skip = len(_BOM)
                self._head = self._head[self.skip:]
        return self._head[:limit]

    def text_head(self, limit: int = HEAD_BYTES) -> bytes:
        """`head()`, refused with one line when it is not text (binary bytes are never echoed)."""
        head = self.head(limit)
        if head.startswith(_ZIP_MAGIC):
            raise InputError("not a text file: a zip archive (an apportion .npz graph? name it .npz or pass "
                             "--format npz)", path=self.name)
        if b"\r" in head and b"\n" not in head:
            raise InputError("its lines end in carriage returns only (classic Mac OS text): convert them to "
                             "newlines first, e.g. tr '\\r' '\\n' < FILE", path=self.name)
        offset = binary_offset(head)
        if offset >= 0:
            line = head.count(b"\n", 0, offset) + 1
            raise InputError(f"not a text file (binary byte 0x{head[offset]:02x} at byte {offset:,})",
                             path=self.name, line=line)
        return head

    def is_empty(self) -> bool:
        if self.plain_path is not None:
            return os.path.getsize(self.plain_path) <= self.skip
        return not self.head(1)

    @contextlib.contextmanager
    def open(self, start: int = 0) -> Iterator[BinaryIO]:
        """A binary handle on the decompressed data from byte `start` (a stream: once, and `start` must lie
        within the head)."""
        if self.plain_path is not None:
            with open(self.plain_path, "rb") as handle:
                handle.seek(self.skip + start)
                yield handle
            return
        head = self.head()
        if start > len(head):
            raise RuntimeError("a stream can only be re-read from within its head")
        if self._opened:
            raise RuntimeError("a stream can be read only once")
        self._opened = True
        yield io.BufferedReader(_Prefixed(head[start:], self._stream, self.name, self.compression),
                                buffer_size=1 << 20)

    def read_all(self) -> bytes:
        """Every decompressed byte (for formats that need random access, like .npz)."""
        with self.open(0) as handle:
            return handle.read()

    def progress(self, start: int) -> tuple[int | None, bool]:
        """(total, by_position): the size a progress bar counts to (None: unknown) and whether progress is the
        raw file's position (compressed files) rather than the bytes handed out (plain files)."""
        if self.plain_path is not None:
            return max(os.path.getsize(self.plain_path) - self.skip - start, 0), False
        if self._raw is not None and self._raw is not sys.stdin.buffer:
            with contextlib.suppress(OSError):
                mode = os.fstat(self._raw.fileno()).st_mode
                if stat.S_ISREG(mode):
                    return os.fstat(self._raw.fileno()).st_size, True
        return None, False

    def raw_position(self) -> int:
        try:
            return self._raw.tell()
        except (OSError, AttributeError, ValueError):
            return 0

    def close(self) -> None:
        if self._stream is not None and self._stream is not self._raw:
            with contextlib.suppress(Exception):
                self._stream.close()
        if self._raw is not None and self._raw is not sys.stdin.buffer:
            self._raw.close()
        self._stream = self._raw = None


@contextlib.contextmanager
def sourced(path) -> Iterator[Source]:
    """`path` as a Source: the given one (left open), or a new one closed at the end of the block."""
    if isinstance(path, Source):
        yield path
        return
    source = Source(path)
    try:
        yield source
    finally:
        source.close()
