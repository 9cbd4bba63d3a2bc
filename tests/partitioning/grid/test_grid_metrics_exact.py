"""Grid metrics on hand-made layouts (every side of a piece touching every other side), against values
derived by hand and an independent recount from the owner array."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.partitioning.grid.metrics import grid_metrics, shared_boundaries
from apportion.partitioning.grid.rectangles import rectangles_from_pieces


def recount(owner: np.ndarray, p: int):
    """(cut, items each processor sends, neighbours of each) from a rows × cols owner array, vectorised."""
    sent = np.zeros(p, dtype=np.int64)
    pairs = set()
    cut = 0
    for a, b in ((owner[:, :-1], owner[:, 1:]), (owner[:-1, :], owner[1:, :])):
        differ = a != b
        cut += int(differ.sum())
        np.add.at(sent, a[differ], 1)
        np.add.at(sent, b[differ], 1)
        pairs.update(zip(a[differ].tolist(), b[differ].tolist()))
    neighbours = np.zeros(p, dtype=np.int64)
    for x, y in {(min(x, y), max(x, y)) for x, y in pairs}:
        neighbours[x] += 1
        neighbours[y] += 1
    return cut, sent, neighbours


# (rows, cols, pieces (owner, row, col, height, width), cut, items sent per processor, messages per processor)
LAYOUTS = {
    # processor 0 on the RIGHT of processor 1: piece 0's left side is piece 1's right side
    "right-of": (4, 6, [(0, 0, 2, 4, 4), (1, 0, 0, 4, 2)], 4, [4, 4], [1, 1]),
    "left-of": (4, 6, [(0, 0, 0, 4, 2), (1, 0, 2, 4, 4)], 4, [4, 4], [1, 1]),
    # processor 0 BELOW processor 1
    "below": (5, 3, [(0, 2, 0, 3, 3), (1, 0, 0, 2, 3)], 3, [3, 3], [1, 1]),
    "above": (5, 3, [(0, 0, 0, 2, 3), (1, 2, 0, 3, 3)], 3, [3, 3], [1, 1]),
    # a T: 0 is the right column (6 × 3), 1 the top left (2 × 3), 2 the bottom left (4 × 3):
    # 0-1 share 2, 0-2 share 4, 1-2 share 3
    "tee": (6, 6, [(0, 0, 3, 6, 3), (1, 0, 0, 2, 3), (2, 2, 0, 4, 3)], 9, [6, 5, 7], [2, 2, 2]),
    # processor 0 owns two pieces on either side of processor 1 (a contiguous-points layout)
    "split-owner": (2, 6, [(0, 0, 0, 2, 2), (0, 0, 4, 2, 2), (1, 0, 2, 2, 2)], 4, [4, 4], [1, 1]),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_hand_made_layouts(name):
    rows, cols, pieces, cut, sent, messages = LAYOUTS[name]
    p = len(sent)
    rect = rectangles_from_pieces(rows, cols, np.ones(p), pieces, "hand")
    rect.validate()
    m = grid_metrics(rect)
    assert m.cut_length == cut and m.data_items == 2 * cut
    assert m.items_sent.tolist() == sent
    assert m.messages.tolist() == messages
    assert (cut, sent, messages) == tuple(x if isinstance(x, int) else x.tolist()
                                          for x in recount(rect.owner_array(), p))
    shared = shared_boundaries(rect)
    assert np.array_equal(shared, shared.T) and int(shared.sum()) // 2 >= cut


@st.composite
def guillotine_layouts(draw):
    """A random guillotine cut of a small grid into pieces, owned by a random permutation of processors (so the
    order of pieces against their positions varies)."""
    rows, cols = draw(st.integers(2, 12)), draw(st.integers(2, 12))
    regions = [(0, 0, rows, cols)]
    for _ in range(draw(st.integers(1, 7))):
        i = draw(st.integers(0, len(regions) - 1))
        r, c, h, w = regions[i]
        vertical = draw(st.booleans())
        if (w if vertical else h) < 2:
            continue
        at = draw(st.integers(1, (w if vertical else h) - 1))
        regions[i:i + 1] = ([(r, c, h, at), (r, c + at, h, w - at)] if vertical
                            else [(r, c, at, w), (r + at, c, h - at, w)])
    owners = draw(st.permutations(range(len(regions))))
    p = draw(st.integers(1, len(regions)))
    pieces = [(int(o) % p, *region) for o, region in zip(owners, regions)]
    used = sorted({piece[0] for piece in pieces})
    relabel = {o: j for j, o in enumerate(used)}
    return rows, cols, [(relabel[o], *rest) for o, *rest in pieces], len(used)


@settings(max_examples=150)
@given(layout=guillotine_layouts())
def test_metrics_match_recount_on_random_guillotine_layouts(layout):
    rows, cols, pieces, p = layout
    rect = rectangles_from_pieces(rows, cols, np.ones(p), pieces, "hand")
    m = grid_metrics(rect)
    cut, sent, neighbours = recount(rect.owner_array(), p)
    assert m.cut_length == cut
    assert m.items_sent.tolist() == sent.tolist()
    assert m.messages.tolist() == neighbours.tolist()
