"""Where graph bytes come from (graph/io/_source.py) and the size limits (graph/io/_limits.py).

Compressed data by content, streams read once with their head put back, chunk boundaries inside compressed
streams, binary bytes never quoted, and sizes refused before NumPy is asked for terabytes.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import apportion
from apportion.errors import InputError
from apportion.graph.io import _limits, _text, read_graph, write_graph
from apportion.graph.io._source import Source, binary_offset, printable, quoted
from apportion.graph.io.partfile import read_partition

COMPRESSORS = [None, gzip.compress, bz2.compress, lzma.compress]


def _same(a, b) -> bool:
    return (a.n == b.n and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and (a.edge_weights is None) == (b.edge_weights is None)
            and (a.edge_weights is None or np.array_equal(a.edge_weights, b.edge_weights)))


@st.composite
def small_graphs(draw):
    n = draw(st.integers(1, 30))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))
    weighted = draw(st.booleans())
    edges = sorted({(min(u, v), max(u, v)) for u, v in pairs if u != v})
    weights = np.array([draw(st.integers(1, 9)) for _ in edges], dtype=np.int64) if weighted and edges else None
    src = np.array([u for u, _ in edges], dtype=np.int64)
    dst = np.array([v for _, v in edges], dtype=np.int64)
    return apportion.Graph.from_edges(src, dst, weights, n=n)


@settings(max_examples=30, deadline=None)
@given(graph=small_graphs(), fmt=st.sampled_from(["graph", "mtx", "txt", "npz"]),
       compress=st.sampled_from(COMPRESSORS), disguise=st.booleans(), chunk=st.sampled_from([7, 64, 1 << 25]))
def test_compressed_and_plain_files_read_the_same_graph(tmp_path_factory, graph, fmt, compress, disguise, chunk):
    folder = tmp_path_factory.mktemp("g")
    plain = folder / f"g.{fmt}"
    write_graph(graph, plain)
    expected = read_graph(plain)
    if compress is None:
        return
    # tiny tokenizer chunks put chunk boundaries all through the decompressed stream
    original = _text.CHUNK_BYTES
    _text.CHUNK_BYTES = chunk
    try:
        suffix = {"gzip": ".gz", "bz2": ".bz2", "lzma": ".xz"}[compress.__module__]
        packed = folder / (f"h.{fmt}" if disguise else f"h.{fmt}{suffix}")  # the name tells the format
        packed.write_bytes(compress(plain.read_bytes()))
        got = read_graph(packed)
    finally:
        _text.CHUNK_BYTES = original
    assert _same(got, expected)


def test_compressed_name_picks_the_format_under_the_suffix(tmp_path):
    graph = apportion.generate("grid2d", rows=4, cols=5)
    for ext, suffix, compress in (("mtx", "bz2", bz2.compress), ("txt", "gz", gzip.compress),
                                  ("graph", "xz", lzma.compress)):
        write_graph(graph, tmp_path / f"plain.{ext}")
        packed = tmp_path / f"packed.{ext}.{suffix}"
        packed.write_bytes(compress((tmp_path / f"plain.{ext}").read_bytes()))
        assert _same(read_graph(packed), graph)
        assert read_graph(packed).name == "packed"


@pytest.mark.parametrize("compress", COMPRESSORS)
def test_standard_input_with_comments_before_the_header(compress, monkeypatch):
    text = b"% a comment\n% another\n3 2\n2\n1 3\n2\n"
    data = text if compress is None else compress(text)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    graph = read_graph("-", format="metis")
    assert (graph.n, graph.m, graph.name) == (3, 2, "stdin")


@pytest.mark.parametrize("compress", COMPRESSORS)
@pytest.mark.parametrize("fmt", ["graph", "mtx", "txt"])
@pytest.mark.parametrize("chunk", [5, 1 << 25])
def test_a_utf8_byte_order_mark_is_stepped_over(fmt, compress, chunk, tmp_path, monkeypatch):
    """Editors on Windows start text files with EF BB BF; it was refused as 'bytes that are not UTF-8 text'."""
    graph = apportion.Graph.from_edges([0, 1, 0], [1, 2, 3], np.array([2, 5, 7]), n=5)
    plain = tmp_path / f"g.{fmt}"
    write_graph(graph, plain)
    data = b"\xef\xbb\xbf" + plain.read_bytes()
    data = data if compress is None else compress(data)
    marked = tmp_path / f"marked.{fmt}"
    marked.write_bytes(data)
    monkeypatch.setattr(_text, "CHUNK_BYTES", chunk)  # tiny chunks: the offsets after the mark are right
    assert _same(read_graph(marked), read_graph(plain))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert _same(read_graph("-", format=fmt), read_graph(plain))


def test_a_partition_file_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "p.part"
    path.write_bytes(b"\xef\xbb\xbf0\n1\n1\n")
    assert read_partition(path, n=3).tolist() == [0, 1, 1]
    lone = tmp_path / "only_mark.graph"
    lone.write_bytes(b"\xef\xbb\xbf")
    with pytest.raises(InputError, match="empty file"):
        read_graph(lone)


def test_a_stream_is_read_once_and_its_head_first():
    source = Source.__new__(Source)  # a stream Source over an in-memory pipe
    source.path = source.name = "<test>"
    source.compression = None
    source.plain_path = None
    source._raw = source._stream = io.BytesIO(b"0 1\n1 2\n")
    source._head = None
    source._opened = False
    assert source.head(3) == b"0 1"
    with source.open(4) as handle:
        assert handle.read() == b"1 2\n"
    with pytest.raises(RuntimeError):
        with source.open(0):
            pass


def test_binary_token_beyond_the_head_is_not_quoted(tmp_path):
    lines = 20_000  # 80 KB of good lines: the binary token lies beyond the 64 KiB head check
    path = tmp_path / "late.txt"
    path.write_bytes(b"0 1\n" * lines + b"\x01\x02\xff 3\n")
    with pytest.raises(InputError) as info:
        read_graph(path)
    message = str(info.value)
    assert "not a text file" in message and f":{lines + 1}:" in message
    assert message.isprintable() and "\ufffd" not in message


def test_printable_and_binary_offset():
    assert printable(b"12 x3") == "12 x3"
    assert printable(b"\x00abc") is None and printable(b"\xff\xfe") is None
    assert printable("Müller".encode()) == "Müller"
    assert quoted(b"x3") == "'x3'" and quoted(b"\x00") == "(binary data)"
    assert quoted("é".encode("latin-1")) == "(bytes that are not UTF-8 text)"
    assert binary_offset(b"ab\tc\r\n") == -1 and binary_offset(b"ab\x00") == 2 and binary_offset(b"\x7f") == 0


# ------------------------------------------------------------------------------------------ limits
def test_graph_bytes_is_a_lower_bound_of_real_graphs():
    for graph in (apportion.generate("delaunay", 500, seed=1), apportion.generate("grid2d", rows=7, cols=9),
                  apportion.generate("er", 300, seed=2)):
        # the CSR and one 8-byte value per vertex (its degrees, as `info` makes them)
        actual = graph.indptr.nbytes + graph.indices.nbytes + np.diff(graph.indptr).nbytes
        assert _limits.graph_bytes(graph.n, 2 * graph.m) <= actual


@pytest.mark.parametrize("text", [
    "%%MatrixMarket matrix coordinate pattern general\n1000000000000 1000000000000 1\n2 1\n",
    "%%MatrixMarket matrix coordinate pattern general\n999999999999 1 1\n2 1\n",  # only with bipartite
])
def test_huge_matrix_market_sizes_are_input_errors(text, tmp_path):
    path = tmp_path / "big.mtx"
    path.write_text(text)
    with pytest.raises(InputError, match="memory"):
        read_graph(path, bipartite=True)


def test_limits_follow_this_machines_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(_limits, "available_memory", lambda: (1_000_000, "free on this machine"))  # 1 MB left
    path = tmp_path / "m.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n200000 200000 1\n2 1\n")
    with pytest.raises(InputError, match=r"3\.2 MB of memory \(1\.0 MB free on this machine\)"):
        read_graph(path)
    with pytest.raises(InputError, match="memory"):
        apportion.generate("er", 200_000)
    monkeypatch.setattr(_limits, "available_memory", lambda: None)  # unknown: nothing refused for memory
    assert read_graph(path).n == 200_000


def test_the_tightest_memory_limit_decides(monkeypatch):
    """Free memory, a container's limit and ulimit -v: the least of them, named in the message."""
    monkeypatch.setattr(_limits, "_meminfo_available", lambda: 8_000_000)
    monkeypatch.setattr(_limits, "_cgroup_room", lambda: 5_000_000)
    monkeypatch.setattr(_limits, "_address_space_room", lambda: None)
    assert _limits.available_memory() == (5_000_000, "left under this process's memory limit")
    monkeypatch.setattr(_limits, "_address_space_room", lambda: 2_000_000)
    with pytest.raises(InputError, match=r"2\.0 MB left under this process's address-space limit \(ulimit -v\)"):
        _limits.check_memory(3_000_000, "a graph of 10 vertices")
    monkeypatch.setattr(_limits, "_meminfo_available", lambda: None)
    monkeypatch.setattr(_limits, "physical_memory", lambda: 1_000)
    monkeypatch.setattr(_limits, "_cgroup_room", lambda: None)
    monkeypatch.setattr(_limits, "_address_space_room", lambda: None)
    assert _limits.available_memory() == (1_000, "this machine has")


def test_a_sparse_huge_id_under_ulimit_is_one_line_not_a_memory_error(tmp_path):
    """An id of 10^9 needs at least 8 GB for the row offsets alone: under `ulimit -v` 3 GB it is refused up
    front (it was a MemoryError, 'internal error', exit 1)."""
    import resource
    import subprocess
    import sys

    path = tmp_path / "ids.txt"
    path.write_text("0 1\n1 1000000000\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    run = subprocess.run([sys.executable, "-m", "apportion.cli.main", "info", str(path)], capture_output=True,
                         text=True, preexec_fn=limit, timeout=300)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "ulimit -v" in run.stderr and "relabel" in run.stderr, run.stderr


@pytest.mark.parametrize("kind, n, options", [
    ("er", 10 ** 12, {}), ("delaunay", 10 ** 12, {}), ("rgg", 10 ** 12, {}), ("ba", 10 ** 12, {}),
    ("grid2d", None, {"rows": 10 ** 6, "cols": 10 ** 6}), ("grid3d", None, {"dims": (10 ** 4,) * 3}),
    ("rmat", None, {"scale": 40}), ("er", 4 * 10 ** 9, {"avg_degree": 0.0}),
])
def test_generators_refuse_sizes_that_cannot_be_held(kind, n, options, monkeypatch):
    if kind == "er" and n == 4 * 10 ** 9:  # past the int64 pair keys even on a machine with memory to spare
        monkeypatch.setattr(_limits, "available_memory", lambda: (1 << 62, "free on this machine"))
    with pytest.raises(InputError):
        apportion.generate(kind, n, **options)


def test_partition_file_block_ids_are_bounded(tmp_path):
    path = tmp_path / "p.part"
    path.write_text("0\n1\n1000000000000\n")
    with pytest.raises(InputError, match=r"p\.part:3: block id 1,000,000,000,000 is too large"):
        read_partition(path, n=3)


@pytest.mark.parametrize("fmt, header, message", [
    ("mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n", "no size line 'rows cols entries' in the first"),
    ("graph", "", "no METIS header 'n m [fmt [ncon]]' in the first 64 KiB"),
])
@pytest.mark.parametrize("cut", [0, 2, 5])
def test_a_header_beyond_the_first_64_kib_of_comments_is_one_line_not_misread(fmt, header, message, cut, tmp_path):
    """The size line may start before the head's end and finish after it: its first digits alone must not be
    read as the size (and the message must not call the file truncated)."""
    from apportion.graph.io._source import HEAD_BYTES

    size = "1000 1000 1\n" if fmt == "mtx" else "1000 0\n"
    pad = HEAD_BYTES - len(header) - cut - 1  # the size line starts `cut` bytes before the head's end
    text = header + "%" + "c" * (pad - 1) + "\n" + size
    assert len((header + "%" + "c" * (pad - 1) + "\n").encode()) == HEAD_BYTES - cut
    path = tmp_path / f"long.{fmt}"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(message)):
        read_graph(path)


@pytest.mark.parametrize("fmt, text", [("txt", b"0 1\r1 2\r"), ("graph", b"3 2\r2\r1 3\r2\r"),
                                       ("mtx", b"%%MatrixMarket matrix coordinate pattern general\r3 3 1\r2 1\r")])
def test_carriage_return_line_ends_are_named_as_such(fmt, text, tmp_path):
    path = tmp_path / f"cr.{fmt}"
    path.write_bytes(text)
    with pytest.raises(InputError, match="carriage returns only"):
        read_graph(path)
    crlf = tmp_path / f"crlf.{fmt}"  # Windows line ends are read as they always were
    crlf.write_bytes(text.replace(b"\r", b"\r\n"))
    assert read_graph(crlf).m == 2 if fmt != "mtx" else read_graph(crlf).m == 1


def test_an_empty_zip_is_not_a_graph_archive(tmp_path):
    path = tmp_path / "e.npz"
    np.savez(path)
    with pytest.raises(InputError, match="an empty zip archive"):
        read_graph(path)
