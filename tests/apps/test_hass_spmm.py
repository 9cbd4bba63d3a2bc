"""HASS as spmm's threshold baseline: the row-chunk workload computes A×A exactly whoever runs which chunk, its
chunks carry equal work, and the estimate is HASS's last split at the price of all its rounds."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from apportion.apps.hass_spmm import SpMMRowsWorkload
from apportion.apps.split_common import device_pair
from apportion.apps.split_spmm import NONZERO_BYTES, check_square_matrix, split_spmm, work_per_row
from apportion.apps.threshold import compare_threshold, find_threshold
from apportion.errors import InputError
from apportion.graph.generate import generate
from apportion.platform.platform import Platform
from apportion.schedule.api import run_schedule

pytestmark = pytest.mark.timeout(300)


def _matrix(kind="delaunay", n=3000, seed=2):
    return check_square_matrix(generate(kind, n, seed=seed).to_scipy())


def test_the_row_chunks_have_equal_work_and_cover_the_product():
    matrix = _matrix("rmat", 1 << 11)
    workload = SpMMRowsWorkload(matrix, 40)
    work = work_per_row(matrix)
    per_chunk = [work[workload.bounds[c]:workload.bounds[c + 1]].sum() for c in range(workload.n_chunks)]
    assert sum(per_chunk) == work.sum() and workload.bounds[0] == 0 and workload.bounds[-1] == matrix.shape[0]
    assert max(per_chunk) <= work.sum() / 40 + work.max()  # equal up to the one row that crosses a boundary
    assert workload.work(range(workload.n_chunks)).flops == work.sum() + matrix.shape[0]
    assert workload.products_share(range(workload.n_chunks)) == 100.0 and workload.products_share([]) == 0.0


@pytest.mark.parametrize("kind", ["delaunay", "rmat"])
def test_a_simulated_pair_prices_hass_runs_as_the_split_run_prices_its_sides(kind):
    """HASS and the threshold it is judged against see the same devices: the whole product as one GPU run costs
    what split_spmm charges its GPU side at threshold 0 (lane operations: a warp waits for its longest row; B
    copied), and as one CPU run what it charges its CPU side at 100 (products + rows, nothing copied)."""
    matrix = _matrix(kind, 3000 if kind == "delaunay" else 1 << 11)
    pair = device_pair("seed004")
    workload = SpMMRowsWorkload(matrix)
    everything = range(workload.n_chunks)
    split = split_spmm(matrix, 0.0, None, pair=pair)
    gpu = pair.gpu.estimate(workload.work_on(pair.gpu, everything))
    # the split copies back the product's nonzeros, the workload charges its products (an upper bound)
    out_bytes = NONZERO_BYTES * (workload.prefix[-1] - split.result.nnz)
    assert gpu.total_s - pair.gpu.link.transfer_time(out_bytes) - pair.gpu.link.latency_s <= \
        split.device_times_s[pair.gpu.name] <= gpu.total_s * (1 + 1e-9)
    assert workload.work_on(pair.gpu, everything).flops > workload.work(everything).flops  # warps wait
    cpu = pair.cpu.estimate(workload.work_on(pair.cpu, everything))
    assert cpu.total_s == pytest.approx(split_spmm(matrix, 100.0, None, pair=pair).device_times_s[pair.cpu.name])


def test_hass_rounds_on_the_real_pair_compute_the_product():
    matrix = _matrix()
    workload = SpMMRowsWorkload(matrix, 24)
    pair = device_pair("local-pair")
    schedule = run_schedule(workload, Platform([pair.cpu, pair.gpu], name="pair"), "hass", 2)
    expected = (matrix @ matrix).tocsr()
    assert (schedule.result != expected).nnz == 0 and schedule.result.nnz == expected.nnz


def test_the_estimate_is_the_cpus_share_of_the_work_in_hass_last_round_and_costs_every_round():
    matrix = _matrix()
    pair = device_pair("seed004")
    workload = SpMMRowsWorkload(matrix)
    schedule = run_schedule(workload, Platform([pair.cpu, pair.gpu], name="seed004"), "hass", 6, compute=False)
    last = schedule.rounds[-1]
    chunks = [[c for d, run in last.runs if d == device for c in run] for device in (0, 1)]
    assert sorted(chunks[0] + chunks[1]) == list(range(workload.n_chunks)) and chunks[0] and chunks[1]
    estimate = find_threshold("spmm", matrix, pair, "hass")
    assert estimate.threshold == workload.products_share(chunks[0]) and estimate.runs == 6
    assert estimate.seconds == pytest.approx(sum(schedule.makespans))


def test_hass_is_for_the_divisible_workload_only_and_reports_table_one():
    graph = generate("grid2d", 400, seed=0)
    with pytest.raises(InputError, match="divisible"):
        find_threshold("cc", graph, "seed004", "hass")
    report = compare_threshold("spmm", graph, "seed004", "hass")
    assert 0 <= report["threshold"] <= 100 and report["overhead_pct"] > 50  # six whole products
    with pytest.raises(InputError, match="two rows"):
        SpMMRowsWorkload(check_square_matrix(sp.csr_matrix(np.eye(1))))
