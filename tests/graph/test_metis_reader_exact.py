"""The METIS reader's checks located exactly: an asymmetric adjacency or weight is reported at the first vertex
that has it, whichever vertex that is (the first and the last included), and out-of-range ids are refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.errors import InputError
from apportion.graph.io import read_graph


def write(tmp_path, text: str, name: str = "g.graph"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_asymmetry_only_at_the_first_vertex(tmp_path):
    # vertex 1 lists 2 and 3, neither lists 1; 2 and 3 list each other: 4 entries, m = 2 as declared
    path = write(tmp_path, "3 2\n2 3\n3\n2\n")
    with pytest.raises(InputError) as error:
        read_graph(path)
    assert error.value.line == 2
    assert "vertex 1 lists neighbour 2 but vertex 2 does not list 1" in error.value.problem


def test_weight_asymmetry_only_at_the_first_vertex(tmp_path):
    # edge (1, 2) weighs 5 in vertex 1's line and 7 in vertex 2's; (2, 3) agrees
    path = write(tmp_path, "3 2 1\n2 5\n1 7 3 1\n2 1\n")
    with pytest.raises(InputError) as error:
        read_graph(path)
    assert error.value.line == 2
    assert "edge (1, 2) has different weights" in error.value.problem


@settings(max_examples=40)
@given(n=st.integers(5, 14), data=st.data())
def test_asymmetry_is_located_at_any_vertex(tmp_path_factory, n, data):
    """A cycle 1..n in which vertex x (any one, the first and last included) also lists two non-neighbours
    y1 < y2 that do not list it back (2 more entries: m + 1 as declared): x is the only culprit, named with y1."""
    x = data.draw(st.integers(1, n))
    far = [y for y in range(1, n + 1) if y != x and (y - x) % n not in (1, n - 1)]
    y1, y2 = sorted(data.draw(st.lists(st.sampled_from(far), min_size=2, max_size=2, unique=True)))
    lines = {v: sorted({v % n + 1, (v - 2) % n + 1}) for v in range(1, n + 1)}
    lines[x] = sorted(lines[x] + [y1, y2])
    text = f"{n} {n + 1}\n" + "".join(" ".join(map(str, lines[v])) + "\n" for v in range(1, n + 1))
    path = tmp_path_factory.mktemp("asym") / "g.graph"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_graph(path)
    assert error.value.line == x + 1
    assert f"vertex {x} lists neighbour {y1} but vertex {y1} does not list {x}" in error.value.problem


@pytest.mark.parametrize("line, bad", [("0 3", 0), ("1 4", 4)])
def test_neighbour_id_out_of_range(tmp_path, line, bad):
    path = write(tmp_path, f"3 2\n2\n{line}\n2\n")
    with pytest.raises(InputError) as error:
        read_graph(path)
    assert error.value.line == 3
    assert f"vertex 2: neighbour id {bad} is out of range 1..3" in error.value.problem


def test_symmetric_file_reads_exactly(tmp_path):
    path = write(tmp_path, "4 4\n2 4\n1 3\n2 4\n1 3\n")
    graph = read_graph(path)
    assert graph.indptr.tolist() == [0, 2, 4, 6, 8]
    assert graph.indices.tolist() == [1, 3, 0, 2, 1, 3, 0, 2]
    np.testing.assert_array_equal(graph.degrees(), [2, 2, 2, 2])
