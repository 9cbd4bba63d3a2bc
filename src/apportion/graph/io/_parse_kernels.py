"""Numba kernels behind the graph readers and writers: tokenising text, assembling and checking CSR arrays.

The readers never loop over lines or edges in Python. A file is read in large byte chunks that end at a line
boundary; `tokenize_chunk` turns each chunk into integer (and, for Matrix Market `real` data, floating-point)
tokens plus the boundaries of the lines it kept and their physical line numbers, so that every later error can
name its line. The remaining kernels turn tokens into CSR arrays and check the graph invariants (ids in range,
no self-loops, sorted duplicate-free neighbour lists, symmetric adjacency with equal weights).

Error reporting convention: a kernel returns a status code (0 = fine) with the position that caused it; the
Python caller turns that into an `InputError` naming the file and line.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.graph._segmented_kernels import sort_segment as sort_row

# status codes of tokenize_chunk
TOKEN_OK = 0
TOKEN_BAD = 1          # a token that is not a number of the expected kind
TOKEN_OVERFLOW = 2     # an integer too large for int64 / a mantissa with too many digits

_SPACE = 32
_TAB = 9
_CR = 13
_LF = 10
_VT = 11
_FF = 12


@njit(cache=True, nogil=True)
def _is_blank(c):
    return c == _SPACE or c == _TAB or c == _CR or c == _VT or c == _FF


@njit(cache=True, nogil=True)
def tokenize_chunk(data, comment_a, comment_b, keep_blank, want_float, first_line_number,
                   int_out, float_out, is_int_out, line_start_out, line_number_out):
    """Tokenise `data` (uint8, ending at a line boundary or at the end of the file).

    Tokens are maximal runs of non-blank bytes. Lines whose first non-blank byte is `comment_a` or `comment_b`
    (byte values, -1 for none) are skipped; blank lines are kept as lines with no tokens when `keep_blank`,
    skipped otherwise. With `want_float` false every token must be an integer `[+-]?[0-9]+`; with it true
    decimal numbers with a fraction and/or exponent are accepted too: `int_out` then holds the exact integer
    value where the number is an integer (`is_int_out` = 1) and `float_out` its approximate value.

    Outputs are written into the preallocated arrays (`int_out` etc. need len(data) // 2 + 1 entries,
    `line_*_out` one more than the number of newlines + 1). Returns (status, number of tokens, number of kept
    lines, line number after the chunk, line number of the error, byte offset of the error).
    """
    ntok = 0
    nline = 0
    line_no = first_line_number
    i = 0
    size = data.shape[0]
    while i < size:
        # start of a physical line
        j = i
        while j < size and _is_blank(data[j]):
            j += 1
        if j < size and (data[j] == comment_a or data[j] == comment_b):
            while j < size and data[j] != _LF:
                j += 1
            i = j + 1
            line_no += 1
            continue
        line_first_token = ntok
        while j < size and data[j] != _LF:
            c = data[j]
            if _is_blank(c):
                j += 1
                continue
            # one token starting at j
            start = j
            negative = False
            if c == 43 or c == 45:  # + -
                negative = c == 45
                j += 1
            mantissa = np.int64(0)
            digits = 0
            dropped_digits = 0
            lost = False  # a non-zero digit beyond the int64 mantissa was dropped: the value is not exact
            while j < size and data[j] >= 48 and data[j] <= 57:
                # the next digit fits while mantissa * 10 + digit <= 2^63 − 1 = 922337203685477580 * 10 + 7
                if mantissa > 922337203685477580 or (mantissa == 922337203685477580 and data[j] > 55):
                    if not want_float:
                        return TOKEN_OVERFLOW, ntok, nline, line_no, line_no, start
                    dropped_digits += 1
                    lost = lost or data[j] != 48
                else:
                    mantissa = mantissa * 10 + (data[j] - 48)
                digits += 1
                j += 1
            exponent = dropped_digits
            if want_float and j < size and data[j] == 46:  # '.'
                j += 1
                while j < size and data[j] >= 48 and data[j] <= 57:
                    if mantissa <= 922337203685477579:
                        mantissa = mantissa * 10 + (data[j] - 48)
                        exponent -= 1
                    else:
                        lost = lost or data[j] != 48
                    digits += 1
                    j += 1
            if want_float and digits > 0 and j < size and (data[j] == 101 or data[j] == 69):  # e E
                j += 1
                exp_negative = False
                if j < size and (data[j] == 43 or data[j] == 45):
                    exp_negative = data[j] == 45
                    j += 1
                exp_digits = 0
                e = 0
                while j < size and data[j] >= 48 and data[j] <= 57:
                    if e < 100000:
                        e = e * 10 + (data[j] - 48)
                    exp_digits += 1
                    j += 1
                if exp_digits == 0:
                    return TOKEN_BAD, ntok, nline, line_no, line_no, start
                exponent += -e if exp_negative else e
            if digits == 0 or (j < size and not _is_blank(data[j]) and data[j] != _LF):
                return TOKEN_BAD, ntok, nline, line_no, line_no, start
            if negative:
                mantissa = -mantissa
            if want_float:
                value = float(mantissa) * (10.0 ** exponent)
                float_out[ntok] = value
                # exact integer test: strip trailing zeros of the mantissa against a negative exponent
                exact = not lost
                m = mantissa
                ex = exponent
                while ex < 0 and m != 0 and m % 10 == 0:
                    m //= 10
                    ex += 1
                if m == 0:
                    ex = 0
                if ex < 0 or ex > 18:
                    exact = False
                elif ex > 0:
                    limit = np.int64(1)
                    for _ in range(ex):
                        limit *= 10
                    if abs(m) > 9223372036854775807 // limit:
                        exact = False
                    else:
                        m = m * limit
                if exact:
                    int_out[ntok] = m
                    is_int_out[ntok] = 1
                else:
                    int_out[ntok] = 0
                    is_int_out[ntok] = 0
            else:
                int_out[ntok] = mantissa
            ntok += 1
        if ntok > line_first_token or keep_blank:
            # a final line without newline and without tokens is not a line
            if ntok > line_first_token or j < size:
                line_start_out[nline] = line_first_token
                line_number_out[nline] = line_no
                nline += 1
        i = j + 1
        line_no += 1
    line_start_out[nline] = ntok
    return TOKEN_OK, ntok, nline, line_no, line_no, -1


# --------------------------------------------------------------------------------------------- METIS body
METIS_OK = 0
METIS_FEW_TOKENS = 1       # fewer tokens than the vertex size + vertex weights
METIS_ODD_TOKENS = 2       # edge-weighted line with a neighbour missing its weight
METIS_ID_RANGE = 3         # neighbour id outside 1..n
METIS_EDGE_WEIGHT = 4      # edge weight <= 0
METIS_VERTEX_WEIGHT = 5    # vertex weight < 0
METIS_VERTEX_SIZE = 6      # vertex size < 0


@njit(cache=True, nogil=True)
def assemble_metis(tokens, line_start, n, has_size, nvw, has_ew):
    """Turn the tokens of the n vertex lines into CSR arrays (0-based ids, file order within each line).

    Returns (status, vertex, value, indptr, adjacency, edge_weights, vertex_weights (n, nvw), sizes).
    On an error `vertex` is the 0-based vertex whose line is wrong and `value` the offending number.
    """
    prefix = has_size + nvw
    stride = 1 + has_ew
    indptr = np.empty(n + 1, dtype=np.int64)
    indptr[0] = 0
    empty_i = np.empty(0, dtype=np.int64)
    for v in range(n):
        count = line_start[v + 1] - line_start[v]
        if count < prefix:
            return METIS_FEW_TOKENS, v, count, indptr, empty_i, empty_i, np.empty((0, 0), np.int64), empty_i
        rest = count - prefix
        if rest % stride != 0:
            return METIS_ODD_TOKENS, v, count, indptr, empty_i, empty_i, np.empty((0, 0), np.int64), empty_i
        indptr[v + 1] = indptr[v] + rest // stride
    total = indptr[n]
    adjacency = np.empty(total, dtype=np.int64)
    edge_weights = np.empty(total if has_ew else 0, dtype=np.int64)
    vertex_weights = np.empty((n, nvw), dtype=np.int64)
    sizes = np.empty(n if has_size else 0, dtype=np.int64)
    for v in range(n):
        t = line_start[v]
        if has_size:
            s = tokens[t]
            if s < 0:
                return METIS_VERTEX_SIZE, v, s, indptr, adjacency, edge_weights, vertex_weights, sizes
            sizes[v] = s
            t += 1
        for c in range(nvw):
            w = tokens[t]
            if w < 0:
                return METIS_VERTEX_WEIGHT, v, w, indptr, adjacency, edge_weights, vertex_weights, sizes
            vertex_weights[v, c] = w
            t += 1
        for e in range(indptr[v], indptr[v + 1]):
            u = tokens[t]
            if u < 1 or u > n:
                return METIS_ID_RANGE, v, u, indptr, adjacency, edge_weights, vertex_weights, sizes
            adjacency[e] = u - 1
            t += 1
            if has_ew:
                w = tokens[t]
                if w <= 0:
                    return METIS_EDGE_WEIGHT, v, w, indptr, adjacency, edge_weights, vertex_weights, sizes
                edge_weights[e] = w
                t += 1
    return METIS_OK, -1, 0, indptr, adjacency, edge_weights, vertex_weights, sizes


# --------------------------------------------------------------------------------------------- CSR helpers
@njit(cache=True, nogil=True)
def drop_self_loops(indptr, adjacency, edge_weights):
    """Remove entries v→v. Returns (count, first vertex with a loop or -1, indptr, adjacency, edge weights)."""
    n = indptr.shape[0] - 1
    count = 0
    first = -1
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            if adjacency[e] == v:
                count += 1
                if first < 0:
                    first = v
    if count == 0:
        return 0, -1, indptr, adjacency, edge_weights
    has_w = edge_weights.shape[0] > 0
    new_indptr = np.empty(n + 1, dtype=np.int64)
    new_adj = np.empty(adjacency.shape[0] - count, dtype=adjacency.dtype)
    new_w = np.empty(new_adj.shape[0] if has_w else 0, dtype=np.int64)
    k = 0
    new_indptr[0] = 0
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            if adjacency[e] != v:
                new_adj[k] = adjacency[e]
                if has_w:
                    new_w[k] = edge_weights[e]
                k += 1
        new_indptr[v + 1] = k
    return count, first, new_indptr, new_adj, new_w


@njit(cache=True, nogil=True)
def sort_rows(indptr, adjacency, edge_weights):
    """Sort every neighbour list in place (edge weights, when not empty, follow their neighbours); rows
    already in order are only scanned. Serial and cache-friendly: a row at a time."""
    n = indptr.shape[0] - 1
    has_w = edge_weights.shape[0] > 0
    for v in range(n):
        lo = indptr[v]
        hi = indptr[v + 1]
        for e in range(lo + 1, hi):
            if adjacency[e] < adjacency[e - 1]:
                sort_row(adjacency, edge_weights, has_w, lo, hi)
                break


@njit(cache=True, nogil=True)
def transpose_csr(indptr, adjacency, edge_weights):
    """The transpose of a CSR adjacency by one counting-sort pass, O(n + m), no comparison sort.

    Entry v→u of the input becomes entry u→v of the output. Rows are scanned in increasing v, so every output
    row comes out sorted (repeated entries stay adjacent). Applied twice it sorts the rows of any CSR; for a
    symmetric adjacency one application already gives the sorted rows. `edge_weights` (aligned with
    `adjacency`, or empty) follow their entries. Returns (indptr, adjacency, edge weights) of the transpose:
    adjacency in the input's dtype, weights int64 (empty when the input's are).
    """
    n = indptr.shape[0] - 1
    has_w = edge_weights.shape[0] > 0
    fill = np.zeros(n + 1, dtype=np.int64)
    for e in range(adjacency.shape[0]):
        fill[adjacency[e] + 1] += 1
    for v in range(n):
        fill[v + 1] += fill[v]
    t_indptr = fill.copy()
    transposed = np.empty(adjacency.shape[0], dtype=adjacency.dtype)
    transposed_w = np.empty(edge_weights.shape[0], dtype=np.int64)
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            u = adjacency[e]
            position = fill[u]
            transposed[position] = v
            if has_w:
                transposed_w[position] = edge_weights[e]
            fill[u] = position + 1
    return t_indptr, transposed, transposed_w


@njit(cache=True, nogil=True)
def row_order_fault(indptr, adjacency):
    """Scan the neighbour lists in vertex order and report the first row that is not strictly increasing:
    (0, -1, -1) when none; (1, v, u) when row v is sorted but lists u twice (the smallest such u); (2, v, -1)
    when row v is out of order (the caller then sorts the rows and scans again)."""
    n = indptr.shape[0] - 1
    for v in range(n):
        duplicate = -1
        for e in range(indptr[v] + 1, indptr[v + 1]):
            if adjacency[e] < adjacency[e - 1]:
                return 2, v, -1
            if adjacency[e] == adjacency[e - 1] and duplicate < 0:
                duplicate = e
        if duplicate >= 0:
            return 1, v, adjacency[duplicate]
    return 0, -1, -1


@njit(cache=True, nogil=True)
def split_pair_keys(indptr, adjacency, upper, lower):
    """For sorted rows: the key v·n + u of every entry v→u with v < u into `upper` (in CSR order, hence
    sorted) and the key u·n + v of every entry v→u with u < v into `lower` (in CSR order, not sorted).
    Each array needs room for every entry. Returns (entries in upper, entries in lower). The adjacency is
    symmetric exactly when both counts agree and `lower`, once sorted, equals `upper` (sequential passes and
    NumPy's sort instead of a transpose's random writes)."""
    n = indptr.shape[0] - 1
    k_up = 0
    k_low = 0
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            u = np.int64(adjacency[e])
            if u > v:
                upper[k_up] = np.int64(v) * n + u
                k_up += 1
            else:
                lower[k_low] = u * n + v
                k_low += 1
    return k_up, k_low


def unweighted_is_symmetric(indptr: np.ndarray, adjacency: np.ndarray) -> bool:
    """True when a CSR with sorted, duplicate-free rows and no self-loops is symmetric (`split_pair_keys`)."""
    upper = np.empty(adjacency.shape[0], dtype=np.int64)
    lower = np.empty(adjacency.shape[0], dtype=np.int64)
    k_up, k_low = split_pair_keys(indptr, adjacency, upper, lower)
    if k_up != k_low:
        return False
    lower = lower[:k_low]
    lower.sort()
    return bool(np.array_equal(upper[:k_up], lower))


def is_symmetric(indptr: np.ndarray, adjacency: np.ndarray, edge_weights: np.ndarray) -> bool:
    """True when a CSR with sorted, duplicate-free rows equals its transpose (weights included); O(n + m).

    int64 ids (other integer dtypes are converted, so the kernel has one signature). `find_asymmetry` locates a
    culprit when the answer is False.
    """
    adjacency = np.ascontiguousarray(adjacency, dtype=np.int64)
    edge_weights = np.ascontiguousarray(edge_weights, dtype=np.int64)
    t_indptr, t_adj, t_w = transpose_csr(np.ascontiguousarray(indptr, dtype=np.int64), adjacency, edge_weights)
    return bool(np.array_equal(t_indptr, indptr) and np.array_equal(t_adj, adjacency)
                and np.array_equal(t_w, edge_weights))


@njit(cache=True, nogil=True)
def find_asymmetry(indptr, adjacency, edge_weights):
    """First (v, u, kind) with u in N(v) but v not in N(u) (kind 1) or unequal weights (kind 2); (-1,-1,0).

    Rows must be sorted. "First" means smallest v, then the first such u in v's list. Serial: an error path.
    """
    n = indptr.shape[0] - 1
    has_w = edge_weights.shape[0] > 0
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            u = adjacency[e]
            lo = indptr[u]
            hi = indptr[u + 1]
            while lo < hi:  # binary search for v in u's sorted row
                mid = (lo + hi) >> 1
                if adjacency[mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            if lo >= indptr[u + 1] or adjacency[lo] != v:
                return v, u, 1
            if has_w and edge_weights[lo] != edge_weights[e]:
                return v, u, 2
    return -1, -1, 0


@njit(cache=True, nogil=True)
def check_csr_shape(indptr, adjacency, n):
    """Validate raw CSR arrays: returns (code, position, value); code 0 ok, 1 indptr[0] != 0,
    2 decreasing offset at position, 3 last offset != len(adjacency), 4 id out of range at position."""
    if indptr[0] != 0:
        return 1, 0, indptr[0]
    for v in range(n):
        if indptr[v + 1] < indptr[v]:
            return 2, v, indptr[v + 1]
    if indptr[n] != adjacency.shape[0]:
        return 3, n, indptr[n]
    for e in range(adjacency.shape[0]):
        if adjacency[e] < 0 or adjacency[e] >= n:
            return 4, e, adjacency[e]
    return 0, -1, 0


@njit(cache=True, nogil=True)
def pair_keys(src, dst, n, keys):
    """keys[k] = min · n + max for the pairs (src[i], dst[i]) that are not self-loops, in order; returns k."""
    k = 0
    for i in range(src.shape[0]):
        a = np.int64(src[i])
        b = np.int64(dst[i])
        if a < b:
            keys[k] = a * n + b
            k += 1
        elif b < a:
            keys[k] = b * n + a
            k += 1
    return k


@njit(cache=True, nogil=True)
def scatter_sorted_pairs(keys, n, adjacency):
    """CSR of the simple undirected graph whose edges are the pair keys lo · n + hi (lo < hi), given sorted;
    a key repeated is one edge. Fills `adjacency` (room for 2 · len(keys) entries, any integer dtype) and
    returns (indptr, number of entries written).

    One counting-sort pass, and the rows come out sorted: row x receives first the lo-ends of the pairs
    (a, x), a < x, in increasing a, then the hi-ends of the pairs (x, b), b > x, in increasing b.
    """
    indptr = np.zeros(n + 1, dtype=np.int64)
    previous = np.int64(-1)
    a = np.int64(0)
    base = np.int64(0)  # a · n: the keys are sorted, so lo = key // n only grows (no division needed)
    for i in range(keys.shape[0]):
        key = keys[i]
        if key != previous:
            while key >= base + n:
                a += 1
                base += n
            indptr[a + 1] += 1
            indptr[key - base + 1] += 1
            previous = key
    for v in range(n):
        indptr[v + 1] += indptr[v]
    fill = indptr[:-1].copy()
    previous = np.int64(-1)
    a = np.int64(0)
    base = np.int64(0)
    for i in range(keys.shape[0]):
        key = keys[i]
        if key == previous:
            continue
        previous = key
        while key >= base + n:
            a += 1
            base += n
        b = key - base
        adjacency[fill[a]] = b
        fill[a] += 1
        adjacency[fill[b]] = a
        fill[b] += 1
    return indptr, indptr[n]


def simple_graph_csr(src: np.ndarray, dst: np.ndarray, n: int, index_dtype, *,
                     overwrite_src: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr int64, sorted neighbour ids of `index_dtype`) of the undirected simple graph on the pairs
    {src[i], dst[i]} (ids in 0..n-1): self-loops dropped, repeated pairs (either direction) merged. With
    `overwrite_src` the keys are written over `src` when it is a writable int64 array (`pair_keys` writes key k
    only after reading pair i ≥ k), instead of into an array of their own.

    `pair_keys` gives the canonical keys min·n + max, NumPy's vectorised sort puts them in order, and
    `scatter_sorted_pairs` writes the CSR in one pass with the rows already sorted and repeats skipped:
    O(m log m) in NumPy's compiled sort plus O(n + m), and no sort compiled by Numba.
    """
    src = np.ascontiguousarray(src, dtype=np.int64)  # one kernel signature
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    reuse = overwrite_src and src.flags.writeable
    keys = src if reuse else np.empty(src.shape[0], dtype=np.int64)
    count = pair_keys(src, dst, np.int64(max(n, 1)), keys)
    keys = keys[:count]
    if count > 1 and not (keys[1:] >= keys[:-1]).all():  # lattices and ordered files come sorted
        keys.sort()
    adjacency = np.empty(2 * count, dtype=index_dtype)
    indptr, entries = scatter_sorted_pairs(keys, np.int64(max(n, 1)), adjacency)
    if entries < adjacency.shape[0]:
        adjacency = adjacency[:entries].copy()
    return indptr[:n + 1] if n else np.zeros(1, dtype=np.int64), adjacency


@njit(cache=True, nogil=True)
def pairs_to_csr(src, dst, weights, n):
    """CSR of the undirected simple graph on the pairs {src[i], dst[i]} (0-based ids in 0..n-1), rows sorted.

    Pairs with src[i] == dst[i] are skipped; a pair listed several times (in either direction) becomes one edge
    that keeps its largest weight. `weights` is aligned with the pairs, or empty for an unweighted graph.
    One counting-sort pass scatters every pair into the rows of both ends; then, a row at a time, the row is
    sorted (`sort_row`), its repeats are merged and it is moved to its final place (rows only move towards the
    front, so this is done in place). Returns (indptr, adjacency (int64), edge weights (int64; empty when
    `weights` is)).
    """
    has_w = weights.shape[0] > 0
    degree = np.zeros(n + 1, dtype=np.int64)
    for i in range(src.shape[0]):
        if src[i] != dst[i]:
            degree[src[i] + 1] += 1
            degree[dst[i] + 1] += 1
    for v in range(n):
        degree[v + 1] += degree[v]
    total = degree[n]
    fill = degree[:-1].copy()
    adjacency = np.empty(total, dtype=np.int64)
    ew = np.empty(total if has_w else 0, dtype=np.int64)
    for i in range(src.shape[0]):
        a = src[i]
        b = dst[i]
        if a == b:
            continue
        adjacency[fill[a]] = b
        adjacency[fill[b]] = a
        if has_w:
            ew[fill[a]] = weights[i]
            ew[fill[b]] = weights[i]
        fill[a] += 1
        fill[b] += 1
    indptr = np.empty(n + 1, dtype=np.int64)
    indptr[0] = 0
    k = 0
    for v in range(n):
        first = degree[v]
        last = degree[v + 1]
        sort_row(adjacency, ew, has_w, first, last)
        row_start = k
        for e in range(first, last):
            if k > row_start and adjacency[k - 1] == adjacency[e]:  # a repeat: keep the largest weight
                if has_w and ew[e] > ew[k - 1]:
                    ew[k - 1] = ew[e]
                continue
            adjacency[k] = adjacency[e]
            if has_w:
                ew[k] = ew[e]
            k += 1
        indptr[v + 1] = k
    if k == total:
        return indptr, adjacency, ew
    return indptr, adjacency[:k].copy(), ew[:k].copy() if has_w else ew


# --------------------------------------------------------------------------------------------- writing text
@njit(cache=True, nogil=True)
def _digits(x):
    if x < 0:
        x = -x
        d = 2
    else:
        d = 1
    while x >= 10:
        x //= 10
        d += 1
    return d


@njit(cache=True, nogil=True)
def join_int_lines(values, line_start):
    """Text of integer lines: line i holds values[line_start[i]:line_start[i+1]] separated by single spaces.

    Every line (empty ones included) ends with a newline. Returns a uint8 array.
    """
    nlines = line_start.shape[0] - 1
    length = 0
    for i in range(values.shape[0]):
        length += _digits(values[i]) + 1
    # a value is followed by a space or a newline; an empty line is one newline
    for i in range(nlines):
        if line_start[i + 1] == line_start[i]:
            length += 1
    out = np.empty(length, dtype=np.uint8)
    pos = 0
    for i in range(nlines):
        lo = line_start[i]
        hi = line_start[i + 1]
        if lo == hi:
            out[pos] = _LF
            pos += 1
            continue
        for t in range(lo, hi):
            x = values[t]
            if x < 0:
                out[pos] = 45
                pos += 1
                x = -x
            d = _digits(x)
            end = pos + d
            for q in range(d):
                out[end - 1 - q] = 48 + x % 10
                x //= 10
            pos = end
            out[pos] = _SPACE if t + 1 < hi else _LF
            pos += 1
    return out
