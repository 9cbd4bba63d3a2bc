"""`partition(..., device="cuda")`: the multilevel partitioner with coarsening and refinement on a GPU
(`gpu_multilevel`), on the CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) with sub-meshes of 4elt of a few hundred
vertices: valid partitions within every block's own limit (unequal targets, k up to 8), the same result for the
same seed, cuts within 10 % of the CPU path's, the presets and the CLI; and, without a GPU, the device errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from scipy.sparse.csgraph import breadth_first_order

import apportion
from apportion import datasets
from apportion.errors import InputError, UnavailableError
from apportion.graph.csr import Graph
from apportion.partitioning.vertex.options import preset_options
from apportion.platform.cuda import cuda_device_count

from vertex_helpers import recount

QUIET = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


def submesh(size: int, start: int) -> Graph:
    """The first `size` vertices of a breadth-first search of the 4elt mesh from `start`: a connected piece of a
    real finite-element mesh small enough for the simulator."""
    mesh = datasets.load("4elt")
    order = breadth_first_order(mesh.to_scipy(), start, directed=False, return_predecessors=False)
    piece, _ = mesh.subgraph(np.sort(order[:size]))
    return piece


def check_valid(graph: Graph, result, k: int) -> None:
    assert result.assignment.shape == (graph.n,) and result.assignment.min() >= 0 and result.assignment.max() < k
    cut, weights = recount(graph, result.assignment, k)
    assert result.cut == cut
    np.testing.assert_array_equal(result.block_weights, weights[:, 0])
    assert np.all(weights[:, 0] <= result.max_block_weights) and result.balanced


#: few rounds and iterations (the simulator runs every CUDA thread as a Python thread), a small coarsest graph so
#: that several levels live on the device
SIMULATOR_OPTIONS = preset_options("fast", coarsest_min=16, coarsest_per_block=2, clustering_batches=2,
                                   lp_refine_passes=1)


@pytest.mark.gpu
@QUIET
def test_gpu_partition_is_balanced_and_reproducible():
    graph = submesh(80, 700)
    targets = [3, 3, 2, 2, 1, 1, 1, 1]
    options = SIMULATOR_OPTIONS
    first = apportion.partition(graph, 8, targets=targets, seed=3, preset=options, device="cuda")
    assert first.device == "cuda" and first.levels >= 2
    check_valid(graph, first, 8)
    again = apportion.partition(graph, 8, targets=targets, seed=3, preset=options, device="cuda")
    np.testing.assert_array_equal(first.assignment, again.assignment)


@pytest.mark.gpu
@QUIET
def test_gpu_partition_with_matching_first_and_a_vcycle():
    graph = submesh(80, 3000)
    # matching first ("auto"), then a V-cycle: the second cycle clusters inside the first one's blocks and
    # starts from its partition, so it can only lower the cut
    options = replace(SIMULATOR_OPTIONS, coarsening="auto")
    once = apportion.partition(graph, 4, seed=5, preset=options, device="cuda")
    assert once.levels >= 2
    check_valid(graph, once, 4)
    twice = apportion.partition(graph, 4, seed=5, preset=replace(options, vcycles=1), device="cuda")
    check_valid(graph, twice, 4)
    assert twice.cut <= once.cut


@pytest.mark.gpu
@QUIET
@pytest.mark.parametrize("start, k", [(0, 2), (10000, 4)])
def test_gpu_cut_is_within_ten_percent_of_the_cpu_cut(start, k):
    graph = submesh(250, start)
    cpu = apportion.partition(graph, k, seed=1, preset="fast")
    gpu = apportion.partition(graph, k, seed=1, preset="fast", device="cuda")
    check_valid(graph, gpu, k)
    assert gpu.cut <= 1.10 * cpu.cut, (gpu.cut, cpu.cut)


@pytest.mark.gpu
@QUIET
@pytest.mark.parametrize("preset", ["fast", "strong"])
def test_gpu_accepts_the_presets_and_isolated_vertices(preset):
    piece = submesh(60, 2000)
    u, v, _ = piece.edges()
    graph = Graph.from_edges(u, v, n=piece.n + 12)  # 12 isolated vertices: the core is partitioned apart
    result = apportion.partition(graph, 3, targets=[1, 2, 3], preset=preset, seed=2, device="cuda")
    assert result.preset == preset
    check_valid(graph, result, 3)


@pytest.mark.gpu
@QUIET
def test_gpu_partition_of_a_graph_with_hubs():
    # hubs of more than 32 neighbours take the scratch hash tables in Jet and the rebalancer (one level: the
    # kernel tests force them in label propagation)
    graph = apportion.generate("ba", 200, seed=3)
    assert np.diff(graph.indptr).max() > 32
    result = apportion.partition(graph, 4, targets=[1, 1, 2, 2], seed=1, preset="fast", device="cuda")
    check_valid(graph, result, 4)


@pytest.mark.gpu
@QUIET
def test_the_cpu_hard_rebalancer_is_the_last_safety_step(monkeypatch):
    # a refinement that leaves every vertex in block 0: the CPU's hard rebalancer still ends within the limits
    from apportion.partitioning.vertex import gpu_multilevel
    from apportion.partitioning.vertex._gpu_scan_cuda import fill

    monkeypatch.setattr(gpu_multilevel, "jet_refine_cuda", lambda *args, **kwargs: fill(args[4], 0))
    graph = submesh(60, 4000)
    result = apportion.partition(graph, 3, targets=[1, 2, 3], seed=1, preset="fast", device="cuda")
    check_valid(graph, result, 3)


def test_device_errors():
    graph = submesh(40, 0)
    with pytest.raises(InputError, match="device must be one of"):
        apportion.partition(graph, 2, device="gpu")
    two = graph.with_weights(vertex_weights=np.ones((graph.n, 2), dtype=np.int64))
    with pytest.raises(InputError, match="one vertex-weight constraint"):
        apportion.partition(two, 2, device="cuda")
    assert apportion.partition(two, 2, device="auto").device == "cpu"  # "auto" falls back to the CPU
    assert apportion.partition(graph, 2, device="auto").device == "cpu"  # a small graph stays on the CPU


@pytest.mark.skipif(cuda_device_count() > 0, reason="a CUDA device (or the simulator) is present")
def test_cuda_without_a_gpu_is_unavailable(cli, karate_file):
    with pytest.raises(UnavailableError, match="no CUDA device"):
        apportion.partition(submesh(40, 0), 2, device="cuda")
    result = cli("partition", karate_file, "-k", "2", "--device", "cuda")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "no CUDA device" in result.stderr


@pytest.mark.gpu
def test_cli_device_cuda_on_the_simulator(karate_file):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONWARNINGS="ignore")
    result = subprocess.run([sys.executable, "-m", "apportion.cli.main", "partition", str(karate_file), "-k", "2",
                             "--device", "cuda", "--seed", "1", "--json"], capture_output=True, text=True, env=env,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["device"] == "cuda" and report["balanced"] and report["k"] == 2


def test_the_cpu_path_never_imports_numba_cuda():
    # the GPU modules load only when device="cuda" runs (a CudaKernel reference in multilevel.py)
    code = ("import sys, apportion; apportion.partition(apportion.generate('delaunay', 300, seed=1), 4, "
            "device='auto'); print(sorted(m for m in sys.modules if m.startswith(('numba.cuda', 'numba_cuda')) "
            "or '_gpu_' in m or m.endswith('gpu_multilevel')))")
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
