"""Link: a one-way, multiple-buffered channel between two endpoints (seed 003 §3 and §4.2).

`Link(src, dst, packet_size, buffers)` moves *segments* — tuples of equally long NumPy arrays (for a worklist:
vertex ids and values) — from `src` to `dst`:

- `send(*arrays)` cuts the message into packets of at most `packet_size` items and returns a future that is done
  when every packet has been handed to a receive buffer (the sender may then drop its reference).
- `receive()` posts a receive and returns a future of a `Segment` (the pipelined receiver of §4.1: receives can
  be posted before anything is sent).
- At most `buffers` segments are held by the receiver at a time (multiple buffering); `release(segment)` hands
  its buffer back, which lets the next packet through.
- `shutdown()` closes the link like a socket: once every packet sent before it has been received, every
  further receive gets an *empty* segment (`segment.empty`), which is how a receiver learns to stop.

In one process nothing is copied: a segment holds the sender's arrays (views of its packet slices), and the
buffer is the right to hold one. The sender must not write to arrays it has sent.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from apportion.errors import InputError
from apportion.runtime.endpoint import Endpoint


@dataclass(frozen=True)
class Segment:
    """Received data: `arrays` (equal lengths), the link's buffer it occupies and its sender. An empty segment
    (no arrays) means the link was shut down."""

    arrays: tuple[np.ndarray, ...]
    buffer: int = -1
    source: Endpoint | None = None

    @property
    def empty(self) -> bool:
        return len(self.arrays) == 0

    def __len__(self) -> int:
        return 0 if self.empty else len(self.arrays[0])

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self.arrays)


EMPTY = Segment(())


def check_message(arrays: tuple) -> tuple[np.ndarray, ...]:
    """The arrays of one message as NumPy arrays of equal length (one array at least)."""
    if not arrays:
        raise InputError("a message needs at least one array")
    out = tuple(np.asarray(a) for a in arrays)
    length = len(out[0])
    if any(a.ndim != 1 or len(a) != length for a in out):
        raise InputError("the arrays of a message must be one-dimensional and equally long")
    return out


def packets(arrays: tuple[np.ndarray, ...], packet_size: int) -> list[tuple[np.ndarray, ...]]:
    """`arrays` cut into consecutive slices of at most `packet_size` items (one empty packet for an empty
    message, so that every send is delivered and acknowledged)."""
    length = len(arrays[0])
    if length == 0:
        return [arrays]
    return [tuple(a[start:start + packet_size] for a in arrays) for start in range(0, length, packet_size)]


def _check_sizes(packet_size: int, buffers: int) -> tuple[int, int]:
    packet_size, buffers = int(packet_size), int(buffers)
    if packet_size < 1:
        raise InputError(f"packet_size must be >= 1, got {packet_size}")
    if buffers < 1:
        raise InputError(f"buffers must be >= 1, got {buffers}")
    return packet_size, buffers


class Link:
    """A one-way channel src -> dst with `buffers` receive buffers and packets of at most `packet_size` items.

    Thread-safe: any thread may send, one receiving thread is expected (as in the paper), though several work.
    """

    def __init__(self, src: Endpoint, dst: Endpoint, packet_size: int = 4096, buffers: int = 2):
        if src == dst:
            raise InputError(f"a link cannot connect {src} to itself")
        self.src, self.dst = src, dst
        self.packet_size, self.buffers = _check_sizes(packet_size, buffers)
        self._lock = threading.Lock()
        self._pending: deque[tuple[tuple[np.ndarray, ...], Future | None]] = deque()  # packets not yet received
        self._receives: deque[Future] = deque()  # posted receives not yet matched
        self._free = list(range(self.buffers - 1, -1, -1))  # free buffer ids (a stack)
        self._held: set[int] = set()
        self._shut = False
        self.packets_sent = 0
        self.items_sent = 0
        self.bytes_sent = 0

    # -- sender side ----------------------------------------------------------------------------------------------
    def send(self, *arrays) -> Future:
        """Queue a message; the future is done once every packet of it is in a receive buffer."""
        message = check_message(arrays)
        done: Future = Future()
        parts = packets(message, self.packet_size)
        with self._lock:
            if self._shut:
                raise RuntimeError(f"link {self.src}->{self.dst} is shut down")
            for i, part in enumerate(parts):
                # only the last packet completes the send future (packets are delivered in order)
                self._pending.append((part, done if i == len(parts) - 1 else None))
            ready = self._match()
        _deliver(ready)
        return done

    def shutdown(self) -> None:
        """No more sends; the receiver gets an empty segment once everything sent before is received."""
        with self._lock:
            self._shut = True
            ready = self._match()
        _deliver(ready)

    # -- receiver side --------------------------------------------------------------------------------------------
    def receive(self) -> Future:
        """Post a receive: a future of the next `Segment` (empty after shutdown)."""
        future: Future = Future()
        with self._lock:
            self._receives.append(future)
            ready = self._match()
        _deliver(ready)
        return future

    def release(self, segment: Segment) -> None:
        """Hand the buffer of a received segment back (empty segments hold none)."""
        if segment.empty:
            return
        with self._lock:
            if segment.buffer not in self._held:
                raise RuntimeError(f"buffer {segment.buffer} of link {self.src}->{self.dst} is not held")
            self._held.remove(segment.buffer)
            self._free.append(segment.buffer)
            ready = self._match()
        _deliver(ready)

    @property
    def held(self) -> int:
        """Buffers the receiver holds now."""
        with self._lock:
            return len(self._held)

    # -- matching (under the lock) --------------------------------------------------------------------------------
    def _match(self) -> list[tuple[Future, Segment, Future | None]]:
        """Pair pending packets with posted receives while buffers are free; the futures are completed by the
        caller outside the lock (callbacks may send again)."""
        ready = []
        while self._receives and self._pending and self._free:
            part, send_done = self._pending.popleft()
            buffer = self._free.pop()
            self._held.add(buffer)
            self.packets_sent += 1
            self.items_sent += len(part[0])
            self.bytes_sent += sum(int(a.nbytes) for a in part)
            ready.append((self._receives.popleft(), Segment(part, buffer, self.src), send_done))
        if self._shut and not self._pending:
            while self._receives:
                ready.append((self._receives.popleft(), EMPTY, None))
        return ready


def _deliver(ready) -> None:
    """Complete matched receives (and the sends they finish) outside any lock."""
    for receive, segment, send_done in ready:
        receive.set_result(segment)
        if send_done is not None:
            send_done.set_result(None)
