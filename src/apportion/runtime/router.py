"""Router: a virtual endpoint that takes messages from its inputs and hands each to an available output
(seed 003 §3 and §4.2, Fig. 8: segmenter, routing policy, multiplexer).

`Router(inputs, outputs, policy, packet_size, buffers)`:

- `send(source, *arrays, dest=None)` — the *segmenter* cuts the message into packets of at most `packet_size`
  items; the *policy* names the outputs that may take it (`policies.py`); the *multiplexer* gives each packet to
  the first of them that is available (a posted receive and a free buffer). Returns a future, done when every
  packet has been received.
- Packets of waiting messages are served round-robin, one packet per message in turn, so a small message never
  waits behind the whole of a big one (the head-of-line blocking §4.1 packetisation avoids).
- Every output is a pipelined receiver with `buffers` buffers: `receive(output)` posts a receive (future of a
  `Segment`), `release(output, segment)` hands the buffer back.
- `abort()` drops the waiting messages and shuts down at once (recovery after a device failure); later sends
  are dropped.
- `shutdown()`: once no message sent before it may still go to an output, that output's receives get an empty
  segment.

One lock guards the router's queues (the paper avoids a central lock with per-device queues and stale send
marks; in one Python process a lock held for a few list operations is cheaper than that machinery).
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future

from apportion.errors import InputError
from apportion.runtime.endpoint import Endpoint
from apportion.runtime.link import EMPTY, Segment, _check_sizes, _deliver, check_message, packets
from apportion.runtime.policies import Policy, resolve_policy


class _Message:
    __slots__ = ("parts", "targets", "done", "source")

    def __init__(self, parts, targets, done, source):
        self.parts = deque(parts)
        self.targets = targets
        self.done = done
        self.source = source


class _Output:
    __slots__ = ("receives", "free", "held")

    def __init__(self, buffers: int):
        self.receives: deque[Future] = deque()
        self.free = list(range(buffers - 1, -1, -1))
        self.held: set[int] = set()

    @property
    def available(self) -> bool:
        return bool(self.receives) and bool(self.free)


class Router:
    """Routes messages from `inputs` (endpoints) to `outputs` (endpoints, addressed by their position)."""

    def __init__(self, inputs: list[Endpoint], outputs: list[Endpoint], policy: "str | Policy" = "ring",
                 packet_size: int = 4096, buffers: int = 2):
        if not outputs:
            raise InputError("a router needs at least one output")
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.policy = resolve_policy(policy)
        self.packet_size, self.buffers = _check_sizes(packet_size, buffers)
        self._lock = threading.Lock()
        self._messages: deque[_Message] = deque()
        self._ports = [_Output(self.buffers) for _ in self.outputs]
        self._shut = False
        self._aborted = False
        self.messages_sent = 0
        self.packets_sent = 0
        self.items_sent = 0
        self.bytes_sent = 0

    def _source_index(self, source) -> int:
        if isinstance(source, Endpoint):
            return source.index if not source.is_host else -1
        return int(source)

    # -- sending ------------------------------------------------------------------------------------------------
    def send(self, source, *arrays, dest: int | None = None) -> Future:
        """Route one message from `source` (an input endpoint or device index, -1 = host); `dest` is the owner
        of its items when they have one. The future is done when all its packets are received."""
        message = check_message(arrays)
        src = self._source_index(source)
        targets = tuple(self.policy(src, dest, len(self.outputs)))
        if not targets or any(not 0 <= t < len(self.outputs) for t in targets):
            raise ValueError(f"routing policy returned invalid outputs {targets} for {len(self.outputs)} outputs")
        done: Future = Future()
        with self._lock:
            if self._aborted:
                done.set_result(None)  # dropped: the run is being recovered
                return done
            if self._shut:
                raise RuntimeError("router is shut down")
            self._messages.append(_Message(packets(message, self.packet_size), targets, done, src))
            self.messages_sent += 1
            ready = self._match()
        _deliver(ready)
        return done

    def shutdown(self) -> None:
        """No more messages: every output gets an empty segment after the last packet sent before this."""
        with self._lock:
            self._shut = True
            ready = self._match()
        _deliver(ready)

    def abort(self) -> None:
        """Drop every waiting message (their send futures complete) and shut down: after a device failure."""
        with self._lock:
            dropped = list(self._messages)
            self._messages.clear()
            self._shut = True
            self._aborted = True
            ready = self._match()
        for message in dropped:
            if not message.done.done():
                message.done.set_result(None)
        _deliver(ready)

    # -- receiving ----------------------------------------------------------------------------------------------
    def receive(self, output: int) -> Future:
        """Post a receive on output `output`: a future of the next `Segment` for it (empty after shutdown)."""
        future: Future = Future()
        with self._lock:
            self._ports[output].receives.append(future)
            ready = self._match()
        _deliver(ready)
        return future

    def release(self, output: int, segment: Segment) -> None:
        """Hand the buffer of `segment`, received on `output`, back."""
        if segment.empty:
            return
        with self._lock:
            port = self._ports[output]
            if segment.buffer not in port.held:
                raise RuntimeError(f"buffer {segment.buffer} of router output {output} is not held")
            port.held.remove(segment.buffer)
            port.free.append(segment.buffer)
            ready = self._match()
        _deliver(ready)

    @property
    def pending_messages(self) -> int:
        with self._lock:
            return len(self._messages)

    # -- the multiplexer (under the lock) -----------------------------------------------------------------------
    def _match(self):
        ready = []
        progress = True
        while progress and self._messages:
            progress = False
            if not any(port.available for port in self._ports):
                break
            # the message served longest ago goes first; a served one moves to the back with its remaining
            # packets, so a small message is not stuck behind a big one
            for position, message in enumerate(self._messages):
                target = next((t for t in message.targets if self._ports[t].available), None)
                if target is None:
                    continue
                part = message.parts.popleft()
                port = self._ports[target]
                buffer = port.free.pop()
                port.held.add(buffer)
                self.packets_sent += 1
                self.items_sent += len(part[0])
                self.bytes_sent += sum(int(a.nbytes) for a in part)
                last = not message.parts
                source = Endpoint.host() if message.source < 0 else Endpoint.device(message.source)
                ready.append((port.receives.popleft(), Segment(part, buffer, source),
                              message.done if last else None))
                del self._messages[position]
                if not last:
                    self._messages.append(message)
                progress = True
                break
        if self._shut:
            # an output is finished once no waiting message may go to it
            waiting = {t for message in self._messages for t in message.targets}
            for index, port in enumerate(self._ports):
                while port.receives and index not in waiting:
                    ready.append((port.receives.popleft(), EMPTY, None))
        return ready
