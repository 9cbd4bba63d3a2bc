"""Streaming tokenisation of text graph files: chunks of bytes → integer tokens with line boundaries.

`read_head` gives the first lines for header parsing in Python (a header is a handful of lines); `tokenize`
reads the body in chunks of `CHUNK_BYTES` that end at a newline, runs the Numba tokenizer on each, shows a
progress bar for large files, and returns one `Tokens` for the whole body.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import numpy as np

from apportion.errors import InputError
from apportion.graph.io import _parse_kernels as K
from apportion.graph.io._source import HEAD_BYTES, Source, binary_offset, quoted, read_full
from apportion.ui import _NullTask, progress

CHUNK_BYTES = 1 << 25        # 32 MiB per tokenizer call
PROGRESS_BYTES = 1 << 24     # show a bar for files larger than this (16 MiB)
PARALLEL_BYTES = 1 << 22     # chunks at least this large (4 MiB) are tokenised in pieces on several threads


@dataclass
class Tokens:
    """The body of a text file as numbers.

    values: int64 tokens (exact integer values; 0 where `is_integer` is 0).
    floats: float64 tokens (only when floats were asked for, else empty).
    is_integer: uint8 flags (only when floats were asked for, else empty).
    line_start: int64, len = lines + 1; line k holds values[line_start[k]:line_start[k+1]].
    line_number: int64 physical 1-based line number of each kept line.
    end_line: the physical line number after the last line.
    """

    values: np.ndarray
    floats: np.ndarray
    is_integer: np.ndarray
    line_start: np.ndarray
    line_number: np.ndarray
    end_line: int

    @property
    def lines(self) -> int:
        return int(self.line_number.shape[0])

    def counts(self) -> np.ndarray:
        return np.diff(self.line_start)


def read_head(source: Source, limit: int = HEAD_BYTES) -> bytes:
    """The first `limit` bytes of a text file (for header parsing); InputError when they are not text."""
    return source.text_head(limit)


def iter_head_lines(head: bytes):
    """(1-based line number, byte offset of the next line, text of the line) for the complete lines of `head`:
    its last line without a line break counts only when `head` is the whole file (shorter than HEAD_BYTES), so a
    header line cut by the head's end is never read as a shorter one."""
    offset = 0
    number = 1
    while True:
        end = head.find(b"\n", offset)
        if end < 0:
            if offset < len(head) and len(head) < HEAD_BYTES:
                yield number, len(head), head[offset:]
            return
        yield number, end + 1, head[offset:end]
        offset = end + 1
        number += 1


def _token_bytes(data: np.ndarray, offset: int) -> bytes:
    """The bad token at `offset` (at most 40 bytes)."""
    end = offset
    limit = min(data.shape[0], offset + 40)
    while end < limit and data[end] not in (9, 10, 11, 12, 13, 32):
        end += 1
    return bytes(data[offset:end])


def _tokenize_piece(piece, newlines: int, comment_a: int, comment_b: int, keep_blank: bool, want_float: bool,
                    first_line: int):
    """Run the tokenizer kernel on one piece of text (a memoryview ending at a line boundary or at the end of
    the file, holding `newlines` newline bytes). Returns (status, err_line, err_offset, data, values, floats, flags, starts, numbers,
    next_line) with the outputs trimmed to their lengths."""
    data = np.frombuffer(piece, dtype=np.uint8)
    capacity = data.shape[0] // 2 + 2
    values = np.empty(capacity, dtype=np.int64)
    floats = np.empty(capacity if want_float else 0, dtype=np.float64)
    flags = np.empty(capacity if want_float else 0, dtype=np.uint8)
    starts = np.empty(newlines + 2, dtype=np.int64)
    numbers = np.empty(newlines + 2, dtype=np.int64)
    status, ntok, nline, next_line, err_line, err_offset = K.tokenize_chunk(
        data, comment_a, comment_b, keep_blank, want_float, first_line, values, floats, flags, starts, numbers)
    return (status, err_line, err_offset, data, values[:ntok].copy(), floats[:ntok].copy() if want_float else floats,
            flags[:ntok].copy() if want_float else flags, starts[:nline].copy(), numbers[:nline].copy(),
            int(next_line))


def _pieces(buffer: bytes, first_line: int, workers: int):
    """Cut `buffer` (ending at a line boundary or at the end of the file) into up to `workers` pieces at line
    boundaries: [(memoryview, its newline count, its first physical line number)]."""
    view = memoryview(buffer)
    if workers <= 1 or len(buffer) < PARALLEL_BYTES:
        return [(view, buffer.count(b"\n"), first_line)]
    pieces = []
    start = 0
    line = first_line
    for w in range(1, workers + 1):
        if w == workers:
            end = len(buffer)
        else:
            end = buffer.find(b"\n", max(start, len(buffer) * w // workers))
            end = len(buffer) if end < 0 else end + 1
        if end > start:
            newlines = buffer.count(b"\n", start, end)
            pieces.append((view[start:end], newlines, line))
            line += newlines
        start = end
    return pieces


_POOL = None


def _pool(workers: int):
    global _POOL
    if _POOL is None or _POOL._max_workers < workers:  # noqa: SLF001 (our own executor)
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="apportion-tokenize")
    return _POOL


def tokenize(source: Source, *, start: int = 0, first_line: int = 1, comments: bytes = b"",
             keep_blank: bool = False, want_float: bool = False, what: str = "a number") -> Tokens:
    """Tokenise the file from byte `start` (which begins physical line `first_line`) to its end.

    A plain file is read straight from disk in chunks; a compressed file or a stream through its Source."""
    comment_a = comments[0] if len(comments) > 0 else -1
    comment_b = comments[1] if len(comments) > 1 else comment_a
    path = source.name
    total, by_position = source.progress(start)
    workers = max(1, min(os.cpu_count() or 1, 8))
    parts_values, parts_floats, parts_flags, parts_starts, parts_numbers = [], [], [], [], []
    token_base = 0
    line_no = first_line
    bar = progress(f"reading {os.path.basename(path)}", total=max(total, 1)) \
        if total is not None and total > PROGRESS_BYTES else contextlib.nullcontext(_NullTask())
    with source.open(start) as handle, bar as task:
        carry = b""
        # a plain file's read is short only at its end; a stream's may be short anywhere
        plain = source.plain_path is not None
        while True:
            block = handle.read(CHUNK_BYTES) if plain else read_full(handle, CHUNK_BYTES)
            at_end = len(block) < CHUNK_BYTES
            buffer = carry + block
            if not at_end:
                cut = buffer.rfind(b"\n")
                if cut < 0:
                    carry = buffer
                    continue
                carry = buffer[cut + 1:]
                buffer = buffer[:cut + 1]
            else:
                carry = b""
            pieces = _pieces(buffer, line_no, workers)
            args = (comment_a, comment_b, keep_blank, want_float)
            if len(pieces) == 1:
                results = [_tokenize_piece(pieces[0][0], pieces[0][1], *args, pieces[0][2])]
            else:  # the kernel releases the GIL: pieces run on threads at once
                results = list(_pool(workers).map(lambda p: _tokenize_piece(p[0], p[1], *args, p[2]), pieces))
            for status, err_line, err_offset, data, values, floats, flags, starts, numbers, next_line in results:
                if status != K.TOKEN_OK:  # the first piece with an error holds the earliest bad line
                    raw = _token_bytes(data, err_offset)
                    if binary_offset(raw) >= 0:
                        raise InputError("not a text file (binary data)", path=path, line=int(err_line))
                    if status == K.TOKEN_OVERFLOW:
                        raise InputError(f"number {quoted(raw)} is too large", path=path, line=int(err_line))
                    raise InputError(f"expected {what}, got {quoted(raw)}", path=path, line=int(err_line))
                parts_values.append(values)
                if want_float:
                    parts_floats.append(floats)
                    parts_flags.append(flags)
                parts_starts.append(starts + token_base)
                parts_numbers.append(numbers)
                token_base += values.shape[0]
            line_no = next_line
            if by_position:
                task.update(completed=source.raw_position())
            else:
                task.advance(len(buffer))
            if at_end:
                break
    line_start = np.concatenate(parts_starts + [np.array([token_base], dtype=np.int64)])
    return Tokens(
        values=np.concatenate(parts_values) if parts_values else np.empty(0, np.int64),
        floats=np.concatenate(parts_floats) if want_float and parts_floats else np.empty(0, np.float64),
        is_integer=np.concatenate(parts_flags) if want_float and parts_flags else np.empty(0, np.uint8),
        line_start=line_start,
        line_number=np.concatenate(parts_numbers) if parts_numbers else np.empty(0, np.int64),
        end_line=line_no,
    )
