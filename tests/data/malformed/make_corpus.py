"""Regenerate the malformed-input corpus (run from anywhere: `python tests/data/malformed/make_corpus.py`).

Each entry: file name, content, the line the error must name (None when no line is meaningful) and a word the
message must contain. tests/cli/test_malformed.py reads the same table (EXPECTED) so the two cannot drift.
Files named strict_* are malformed only under --strict; part_* are partition files for `evaluate` on karate;
part_targets_* are evaluated with --targets 1,1. Compressed entries are byte literals (the output of one
compressor run, cut short), so the corpus does not depend on the zlib/bzip2/xz build that regenerates it.
Sizes of 10^12 must be refused on any machine: the messages say how much memory they would need.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

KARATE_N = 34


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _part(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


_ok = [str(i % 2) for i in range(KARATE_N)]

# name -> (content, line or None, phrase)
EXPECTED: dict[str, tuple[bytes | str, int | None, str]] = {
    # ---------------------------------------------------------------- METIS
    "metis_empty.graph": ("", None, "empty"),
    "metis_comments_only.graph": ("% a comment\n% another\n", None, "header"),
    "metis_bad_header_text.graph": ("three 2\n2\n1 3\n2\n", 1, "header"),
    "metis_bad_header_too_many.graph": ("3 2 0 1 5\n2\n1 3\n2\n", 1, "header"),
    "metis_bad_fmt.graph": ("3 2 2\n2\n1 3\n2\n", 1, "fmt"),
    "metis_ncon_without_vertex_weights.graph": ("3 2 1 2\n2 1\n1 1 3 1\n2 1\n", 1, "ncon"),
    "metis_m_too_large.graph": ("3 5\n2\n1 3\n2\n", 1, "declares m"),
    "metis_m_too_small.graph": ("% comment first\n3 1\n2\n1 3\n2\n", 2, "declares m"),
    "metis_truncated.graph": ("4 3\n2\n1 3\n2 4\n", 5, "truncated"),
    "metis_extra_lines.graph": ("2 1\n2\n1\n1\n", 4, "more vertex lines"),
    "metis_id_out_of_range.graph": ("3 2\n2\n1 4\n2\n", 3, "out of range"),
    "metis_id_zero.graph": ("3 2\n2\n0 3\n2\n", 3, "out of range"),
    "metis_asymmetric.graph": ("3 2\n2 3\n1\n2\n", 2, "asymmetric"),
    "metis_asymmetric_weights.graph": ("2 1 1\n2 5\n1 6\n", 2, "asymmetric edge weights"),
    "metis_duplicate_neighbour.graph": ("3 3\n2 2\n1 1 3\n2\n", 2, "more than once"),
    "metis_non_numeric.graph": ("3 2\n2\n1 x3\n2\n", 3, "expected an integer"),
    "metis_float_token.graph": ("3 2\n2\n1 3.5\n2\n", 3, "expected an integer"),
    "metis_huge_number.graph": ("3 2\n2\n1 99999999999999999999999\n2\n", 3, "too large"),
    "metis_negative_edge_weight.graph": ("3 2 1\n2 -1\n1 -1 3 2\n2 2\n", 2, "edge weight"),
    "metis_zero_edge_weight.graph": ("3 2 1\n2 0\n1 0 3 2\n2 2\n", 2, "edge weight"),
    "metis_missing_edge_weight.graph": ("3 2 1\n2 1\n1 1 3\n2 2\n", 3, "weight after every neighbour"),
    "metis_missing_vertex_weights.graph": ("3 2 10 2\n1 1 2\n1\n1 1 2\n", 3, "vertex weights"),
    "metis_negative_vertex_weight.graph": ("2 1 10\n-1 2\n1 1\n", 2, "vertex weight"),
    "metis_binary_garbage.graph": (b"\x00\x01\x02\xffgarbage\n", 1, "not a text file"),
    "metis_latin1_header.graph": (b"dr\xe9i 2\n2\n1 3\n2\n", 1, "not UTF-8 text"),
    "metis_binary_in_body.graph": (b"3 2\n2\n1 \x01\x02x\n2\n", 3, "not a text file"),
    "metis_zip_archive.graph": (b"PK\x03\x04\x14\x00\x00\x00junk", None, "zip archive"),
    "metis_zstd.graph": (b"\x28\xb5\x2f\xfd\x04\x58junk", None, "zstd"),
    "metis_gzip_truncated.graph.gz": (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x033Q0\xe62\xe22\x04\x91\n&\\\xc6"
                                      b"\\\x00 \x04", None, "truncated gzip"),
    "metis_gzip_garbage.graph": (b"\x1f\x8b\x63garbage after a gzip signature", None, "damaged"),
    "metis_huge_vertex_count.graph": ("1000000000000 1\n2\n1\n", 1, "too large"),
    # weights that each fit int64 but whose total does not fit (2^62 is the limit): refused, never a wrapped total
    "metis_vertex_weight_total_overflow.graph": ("2 1 10\n4611686018427387904 2\n5 1\n", None,
                                                 "vertex weights add up to"),
    "metis_edge_weight_total_overflow.graph": ("3 2 1\n2 3000000000000000000\n1 3000000000000000000 3 1\n2 1\n",
                                               None, "edge weights"),
    "strict_metis_self_loop.graph": ("2 2\n1 2\n2 1\n", 2, "self-loop"),
    # ---------------------------------------------------------------- Matrix Market
    "mtx_empty.mtx": ("", None, "empty"),
    "mtx_bad_banner.mtx": ("%%MatrixMarket matrix\n3 3 1\n2 1\n", 1, "banner"),
    "mtx_array_layout.mtx": ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "layout"),
    "mtx_latin1_field.mtx": (b"%%MatrixMarket matrix coordinate r\xe9al general\n2 2 1\n2 1 1\n", 1,
                             "field (bytes that are not UTF-8 text)"),
    "mtx_complex.mtx": ("%%MatrixMarket matrix coordinate complex general\n2 2 1\n2 1 1 1\n", 1, "field"),
    "mtx_hermitian.mtx": ("%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n2 1 1\n", 1, "symmetry"),
    "mtx_no_size_line.mtx": ("%%MatrixMarket matrix coordinate pattern general\n% only comments\n", None,
                             "size line"),
    "mtx_huge_size_line.mtx": ("%%MatrixMarket matrix coordinate pattern general\n"
                               "1000000000000 1000000000000 1\n2 1\n", 2, "of memory"),
    "mtx_xz_truncated.mtx.xz": (b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4F\x02\x00!\x01\x16\x00\x00\x00t/\xe5\xa3\x01"
                                b"\x00:%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 1\n\x00\x00t0\x0e"
                                b"\x8c\xc3\x9f\t\x11\x00\x01S;\x98R\x1b\x00\x1f\xb6", None, "truncated xz"),
    "mtx_bad_size_line.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3\n2 1\n", 2, "size line"),
    "mtx_not_square.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", 2, "not square"),
    "mtx_truncated.mtx": ("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n", 2, "truncated"),
    "mtx_too_many_entries.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 1\n3 1\n", 2,
                                 "declares 1 entries"),
    "mtx_row_out_of_range.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n4 1\n", 3,
                                 "out of range"),
    "mtx_zero_index.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 1\n", 3, "out of range"),
    "mtx_missing_value.mtx": ("%%MatrixMarket matrix coordinate integer general\n3 3 2\n2 1 5\n3 1\n", 4,
                              "expected 3 numbers"),
    "mtx_negative_weight.mtx": ("%%MatrixMarket matrix coordinate integer symmetric\n3 3 1\n2 1 -4\n", 3,
                                "positive"),
    "mtx_non_numeric.mtx": ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 one\n", 3,
                            "expected an integer"),
    "mtx_fractional_index.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 1\n2.5 1 1.0\n", 3,
                                 "integers"),
    "strict_mtx_diagonal.mtx": ("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 1\n2 1\n", 3,
                                "self-loop"),
    # ---------------------------------------------------------------- edge lists
    "edgelist_empty.txt": ("", None, "empty"),
    "edgelist_comments_only.txt": ("# nothing here\n% nor here\n", None, "empty"),
    "edgelist_one_column.txt": ("# c\n1\n2\n", 2, "expected 'u v'"),
    "edgelist_ragged.txt": ("0 1\n1 2 3\n", 2, "expected 2 numbers"),
    "edgelist_four_columns.edges": ("0 1 2 3\n", 1, "got 4 numbers"),
    "edgelist_non_numeric.txt": ("0 1\na b\n", 2, "expected an integer"),
    "edgelist_negative_id.txt": ("0 1\n-1 2\n", 2, "below the base"),
    "edgelist_zero_weight.el": ("0 1 1\n1 2 0\n", 2, "positive"),
    "edgelist_float_id.edgelist": ("0 1.5\n", 1, "expected an integer"),
    "edgelist_header_edges_mismatch.txt": ("# Nodes: 3 Edges: 5\n0 1\n1 2\n", 1, "declares 5 edges"),
    "edgelist_header_nodes_mismatch.txt": ("# Nodes: 3 Edges: 3\n0 1\n1 7\n7 9\n", 1, "declares 3 nodes"),
    "edgelist_huge_id.txt": ("0 1\n1 1000000000000\n", 2, "--relabel"),
    "edgelist_snap_header_huge_nodes.txt": ("# Nodes: 1000000000000 Edges: 2\n0 1\n1 2\n", 1, "of memory"),
    "edgelist_binary_token.txt": (b"0 1\n1 2\n\xff\xfe\x00\x07 3\n", 3, "not a text file"),
    "edgelist_bzip2_truncated.txt.bz2": (b"BZh91AY&SY\x04\xe6\x0bT\x00\x00\x03X\x00\x00\x10@\x00x\x00 \x00\"\x1e\x93j"
                                         b"\x0c\x01\xab%@<]\xc9", None, "truncated bzip2"),
    "strict_edgelist_self_loop.txt": ("0 1\n1 1\n", 2, "self-loop"),
    # ---------------------------------------------------------------- npz
    "npz_empty.npz": ("", None, "empty"),
    "npz_not_a_zip.npz": ("hello, not an archive\n", None, "not a valid"),
    "npz_wrong_format.npz": (_npz(format=np.array("other"), indptr=np.array([0, 0]), indices=np.array([0])[:0]),
                             None, "not an apportion graph"),
    "npz_missing_indices.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 0])), None,
                                "missing"),
    "npz_id_out_of_range.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 1, 2]),
                                     indices=np.array([1, 5])), None, "out of range"),
    "npz_asymmetric.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 1, 1]),
                                indices=np.array([1])), None, "asymmetric"),
    "npz_self_loop.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 1, 2]),
                               indices=np.array([0, 1])), None, "self-loop"),
    "npz_float_indices.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 1, 2]),
                                   indices=np.array([1.0, 0.0])), None, "integers"),
    "npz_decreasing_indptr.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 2, 1]),
                                       indices=np.array([1, 0])), None, "decreases"),
    "npz_negative_edge_weight.npz": (_npz(format=np.array("apportion-graph"), indptr=np.array([0, 1, 2]),
                                          indices=np.array([1, 0]), edge_weights=np.array([-2, -2])), None,
                                     "positive"),
    "npz_gzip_truncated.npz": (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x033Q0\xe62", None, "truncated gzip"),
    # ---------------------------------------------------------------- others
    "unknown_extension.xyz": ("0 1\n", None, "cannot tell the graph format"),
    # ---------------------------------------------------------------- partition files (evaluate on karate)
    "part_non_numeric.part": (_part(_ok[:4] + ["x"] + _ok[5:]), 5, "expected an integer"),
    "part_negative.part": (_part(_ok[:2] + ["-1"] + _ok[3:]), 3, "negative"),
    "part_two_ids_on_a_line.part": (_part(_ok[:1] + ["0 1"] + _ok[2:]), 2, "one block id per line"),
    "part_blank_line.part": (_part(_ok[:3] + [""] + _ok[3:-1]), 4, "empty line"),
    "part_too_few_lines.part": (_part(_ok[:10]), None, "34 vertices"),
    "part_huge_block_id.part": (_part(_ok[:33] + ["1000000000000"]), 34, "too large"),
    "part_binary.part": (b"0\n1\n\x00\x01\n", 3, "not a text file"),
    "part_targets_block_beyond_k.part": (_part(_ok[:6] + ["5"] + _ok[7:]), 7, "outside"),
}


def main() -> None:
    for name, (content, _line, _phrase) in EXPECTED.items():
        data = content if isinstance(content, bytes) else content.encode()
        (HERE / name).write_bytes(data)
    print(f"wrote {len(EXPECTED)} files to {HERE}")


if __name__ == "__main__":
    main()
