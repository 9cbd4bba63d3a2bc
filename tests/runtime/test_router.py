"""Router: the policy names possible outputs, the first available takes the packet; packets interleave."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.runtime.endpoint import Endpoint
from apportion.runtime.policies import any_device, direct, resolve_policy, ring
from apportion.runtime.router import Router


def make(k=3, policy="any", packet_size=4, buffers=1):
    devices = [Endpoint.device(i) for i in range(k)]
    return Router([Endpoint.host(), *devices], devices, policy, packet_size=packet_size, buffers=buffers)


def test_the_first_output_with_a_posted_receive_takes_the_message():
    router = make()
    at_two = router.receive(2)
    router.send(-1, np.arange(3))
    assert at_two.done() and len(at_two.result()) == 3


def test_an_output_without_a_free_buffer_is_passed_over():
    router = make(k=2, buffers=1)
    held = router.receive(0)
    router.send(-1, np.arange(1))
    assert held.done()  # output 0 now holds its only buffer
    waiting_zero, waiting_one = router.receive(0), router.receive(1)
    router.send(-1, np.arange(2))
    assert waiting_one.done() and not waiting_zero.done()
    router.release(0, held.result())
    router.send(-1, np.arange(3))
    assert waiting_zero.done() and len(waiting_zero.result()) == 3


def test_policy_order_decides_between_available_outputs():
    def prefer_last(source, dest, outputs):
        return tuple(reversed(range(outputs)))

    router = make(k=3, policy=prefer_last)
    receives = [router.receive(i) for i in range(3)]
    router.send(0, np.arange(2))
    assert [r.done() for r in receives] == [False, False, True]


def test_a_waiting_message_goes_to_the_first_output_that_becomes_available():
    router = make(k=3)
    sent = router.send(0, np.arange(2))
    assert not sent.done() and router.pending_messages == 1
    one = router.receive(1)
    assert one.done() and sent.done() and router.pending_messages == 0


def test_a_small_message_does_not_wait_behind_all_packets_of_a_big_one():
    router = make(k=1, packet_size=2, buffers=1)
    big = router.send(-1, np.arange(20))  # 10 packets
    small = router.send(-1, np.array([99]))
    order = []
    for _ in range(11):
        segment = router.receive(0).result(timeout=1)
        order.append(int(segment.arrays[0][0]))
        router.release(0, segment)
    assert small.done() and big.done()
    assert order.index(99) <= 2  # after at most one packet of the big message, not after ten
    assert sorted(order) == sorted([*range(0, 20, 2), 99])


def test_ring_and_direct_policies():
    ring_policy, direct_policy = ring(), direct()
    assert [ring_policy(i, None, 4) for i in range(4)] == [(1,), (2,), (3,), (0,)]
    assert ring_policy(-1, 2, 4) == (2,) and ring_policy(-1, None, 4) == (0,)
    assert direct_policy(0, 3, 4) == (3,)
    with pytest.raises(ValueError):
        direct_policy(0, None, 4)
    assert any_device()(1, None, 3) == (0, 1, 2)
    with pytest.raises(InputError):
        resolve_policy("star")


def test_ring_routing_through_a_router_reaches_the_next_device():
    router = make(k=3, policy="ring", buffers=2)
    receives = [router.receive(i) for i in range(3)]
    router.send(2, np.arange(1))
    assert [r.done() for r in receives] == [True, False, False]


def test_shutdown_sends_empty_segments_after_the_pending_packets():
    router = make(k=2, policy="direct", packet_size=8, buffers=2)
    router.send(-1, np.arange(3), dest=1)
    router.shutdown()
    assert router.receive(0).result(timeout=1).empty
    assert len(router.receive(1).result(timeout=1)) == 3
    assert router.receive(1).result(timeout=1).empty
    with pytest.raises(RuntimeError):
        router.send(-1, np.arange(1), dest=0)


def test_a_policy_naming_a_missing_output_is_an_error():
    router = make(k=2, policy=lambda s, d, k: (5,))
    with pytest.raises(ValueError):
        router.send(0, np.arange(1))
