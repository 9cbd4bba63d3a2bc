"""Link: futures, packets, multiple buffering, shutdown -> empty segment, release."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.runtime.endpoint import Endpoint
from apportion.runtime.link import Link

A, B = Endpoint.device(0), Endpoint.device(1)


def test_send_then_receive_hands_over_the_arrays_and_completes_the_send():
    link = Link(A, B, packet_size=8, buffers=2)
    sent = link.send(np.arange(5), np.arange(5) * 10)
    segment = link.receive().result(timeout=1)
    assert sent.done()
    assert segment.source == A and len(segment) == 5
    np.testing.assert_array_equal(segment.arrays[1], np.arange(5) * 10)


def test_send_future_waits_for_a_posted_receive():
    link = Link(A, B, packet_size=8, buffers=2)
    sent = link.send(np.arange(3))
    assert not sent.done()
    receive = link.receive()
    assert receive.done() and sent.done()
    assert len(receive.result()) == 3


def test_a_receive_posted_first_gets_the_next_send():
    link = Link(A, B)
    receive = link.receive()
    assert not receive.done()
    link.send(np.array([7, 8]))
    np.testing.assert_array_equal(receive.result(timeout=1).arrays[0], [7, 8])


def test_messages_are_cut_into_packets_and_the_send_completes_with_the_last():
    link = Link(A, B, packet_size=4, buffers=8)
    sent = link.send(np.arange(10))
    first = link.receive().result(timeout=1)
    assert len(first) == 4 and not sent.done()
    second = link.receive().result(timeout=1)
    third = link.receive().result(timeout=1)
    assert [len(first), len(second), len(third)] == [4, 4, 2] and sent.done()
    np.testing.assert_array_equal(np.concatenate([s.arrays[0] for s in (first, second, third)]), np.arange(10))
    assert link.packets_sent == 3 and link.items_sent == 10


def test_buffers_bound_the_segments_held_and_release_lets_the_next_through():
    link = Link(A, B, packet_size=1, buffers=2)
    link.send(np.arange(3))
    first, second, third = link.receive(), link.receive(), link.receive()
    assert first.done() and second.done() and not third.done()
    assert link.held == 2
    link.release(first.result())
    assert third.result(timeout=1).arrays[0][0] == 2
    assert link.held == 2


def test_shutdown_delivers_what_was_sent_then_empty_segments():
    link = Link(A, B, packet_size=2, buffers=4)
    link.send(np.arange(3))
    link.shutdown()
    got = [link.receive().result(timeout=1) for _ in range(4)]
    assert [len(s) for s in got[:2]] == [2, 1]
    assert got[2].empty and got[3].empty
    with pytest.raises(RuntimeError):
        link.send(np.arange(1))


def test_shutdown_waits_for_a_free_buffer_before_the_empty_segment():
    link = Link(A, B, packet_size=1, buffers=1)
    link.send(np.arange(2))
    link.shutdown()
    first = link.receive().result(timeout=1)
    pending = link.receive()
    assert not pending.done()  # the second packet still needs the buffer
    link.release(first)
    assert not pending.result(timeout=1).empty
    assert link.receive().result(timeout=1).empty


def test_release_of_a_buffer_not_held_is_an_error_and_empty_segments_hold_none():
    link = Link(A, B)
    link.send(np.arange(1))
    segment = link.receive().result(timeout=1)
    link.release(segment)
    with pytest.raises(RuntimeError):
        link.release(segment)
    link.shutdown()
    link.release(link.receive().result(timeout=1))  # empty: nothing to hand back


def test_bad_links_are_refused():
    with pytest.raises(InputError):
        Link(A, A)
    with pytest.raises(InputError):
        Link(A, B, packet_size=0)
    with pytest.raises(InputError):
        Link(A, B, buffers=0)
    with pytest.raises(InputError):
        Link(A, B).send(np.arange(3), np.arange(2))
