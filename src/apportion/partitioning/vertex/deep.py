"""Deep multilevel partitioning for large k (Gottesbüren, Heuer, Sanders, Schimek, Schlag: "Deep Multilevel
Graph Partitioning", ESA 2021; KaMinPar's default).

Plain multilevel partitioning stops coarsening at `coarsest_per_block` · k vertices and bisects that graph
recursively: at k in the thousands the coarsest graph is most of the input, and each of the log2 k levels of
the recursion is a multilevel bisection of all of it. Here the graph is coarsened much further (to
`coarsest_size(2)`), split into a few groups of blocks there, and every group is split further during
uncoarsening, on the first level with `coarsest_per_block` vertices per group or more, so that the splits of
the top of the recursion run on small graphs and only the last ones on large levels.

The groups are the nodes of the recursion's tree over the target vector (`split_blocks`: a group of c blocks
splits into its first c // 2 and the rest): a group is (its first block, its block count), and a partition into
groups labels each vertex with the group's index. Between extensions the groups' partition is rebalanced and
refined as a k-way partition whose block limits are the sums of its blocks' final limits. A group is split with
the tolerance its blocks have left: (1 + ε) times its target weight over the weight it holds (KaMinPar's
adaptive ε), so a group that was filled to its limit splits tightly and one with room splits loosely.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from apportion._chunked import run_pair
from apportion.partitioning.vertex._partition_kernels import vertices_by_block
from apportion.partitioning.vertex.coarsen import coarsest_size
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph, induced_level
from apportion.partitioning.vertex.initial import split_blocks
from apportion.partitioning.vertex.options import PartitionOptions

#: the least tolerance a group is split with, when it holds (1 + ε) times its target weight or more
MIN_GROUP_EPSILON = 1e-4


def wanted(options: PartitionOptions, k: int, n: int) -> bool:
    """Whether a k-way multilevel cycle of an n-vertex graph runs deep: k of at least `options.deep_from_k`
    (0: never) whose plain coarsest graph (`coarsest_size`) would be at least `options.deep_coarsest_fraction`
    of the graph, so that the plain recursion's log2 k levels of bisections would each split most of it."""
    return 0 < options.deep_from_k <= k and coarsest_size(k, options) >= options.deep_coarsest_fraction * n


def coarsest_vertices(options: PartitionOptions) -> int:
    """Deep coarsening stops at this many vertices (the plain coarsest size of a bisection)."""
    return max(2 * options.coarsest_per_block, options.coarsest_min)


@dataclass(frozen=True)
class Groups:
    """A partition's groups of final blocks: group i is blocks first[i] .. first[i] + count[i] - 1."""

    first: np.ndarray  # int64
    count: np.ndarray  # int64

    @classmethod
    def root(cls, k: int) -> "Groups":
        return cls(np.zeros(1, dtype=np.int64), np.array([k], dtype=np.int64))

    @property
    def final(self) -> bool:
        return bool(np.all(self.count == 1))

    def split(self, levels: int) -> "Groups":
        """Each group split `levels` times over (groups of one block stay)."""
        first, count = self.first, self.count
        for _ in range(levels):
            if np.all(count == 1):
                break
            of = np.repeat(np.arange(count.shape[0]), np.where(count > 1, 2, 1))  # the group each child is of
            second = np.zeros(of.shape[0], dtype=bool)
            second[1:] = of[1:] == of[:-1]
            whole, left = count[of], count[of] // 2
            first = first[of] + np.where(second, left, 0)
            count = np.where(second, whole - left, np.where(whole > 1, left, whole))
        return Groups(first, count)

    def levels_for(self, n: int, per_group: int, at_least: int = 0) -> int:
        """How many times to split the groups for a level of n vertices: the most that leaves at least
        `per_group` vertices per group, and at least `at_least` while groups of several blocks are left."""
        levels, groups = 0, self
        while not groups.final:
            finer = groups.split(1)
            if levels >= at_least and finer.first.shape[0] * per_group > n:
                break
            groups, levels = finer, levels + 1
        return levels

    def context(self, ctx: PartitionContext) -> PartitionContext:
        """`ctx` for a partition into these groups: a group's target is its blocks' sum, its limit their
        limits' sum."""
        if self.first.shape[0] == ctx.k:
            return ctx
        targets = np.add.reduceat(np.asarray(ctx.targets, dtype=np.float64), self.first)
        limits = np.add.reduceat(ctx.max_block_weights, self.first, axis=0)
        return ctx.derive(k=self.first.shape[0], targets=targets / targets.sum(), max_block_weights=limits)


def group_epsilon(epsilon: float, target: np.ndarray, held: np.ndarray) -> float:
    """The tolerance left to a group of target weight `target` that holds `held` (per constraint)."""
    ratios = [t / h for t, h in zip(target, held) if h > 0]
    if not ratios:
        return epsilon
    return max((1.0 + epsilon) * min(ratios) - 1.0, MIN_GROUP_EPSILON)


def extend(graph: LevelGraph, part: np.ndarray | None, groups: Groups, levels: int, ctx: PartitionContext,
           seed: int) -> tuple[np.ndarray, Groups]:
    """Split every group of `part` (int32 group indices over `graph`'s vertices; None: one group holding them
    all) `levels` times over, each group as the subgraph it induces (`split_blocks`); returns the new
    partition (group indices) and its groups. Groups are split two at a time (`run_pair`); the result does not
    depend on the thread count."""
    finer = groups.split(levels)
    n, k = graph.n, ctx.k
    if part is None:
        part = np.zeros(n, dtype=np.int32)
    order, bounds = vertices_by_block(np.arange(n, dtype=np.int64), part, groups.first.shape[0])
    total = graph.vertex_weights.sum(axis=0).astype(np.float64)
    targets = np.asarray(ctx.targets, dtype=np.float64)
    blocks = np.empty(n, dtype=np.int32)  # the first final block of each vertex's new group
    split_options = replace(ctx.options, initial_tries=ctx.options.deep_initial_tries,
                            bisection_coarsest=max(ctx.options.bisection_coarsest, ctx.options.deep_flat_vertices // 2))

    def split_group(g: int) -> None:
        ids = order[bounds[g]:bounds[g + 1]]
        first, count = int(groups.first[g]), int(groups.count[g])
        if count == 1 or ids.shape[0] == 0:
            blocks[ids] = first
            return
        sub = induced_level(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, ids)
        share = targets[first:first + count]
        held = sub.vertex_weights.sum(axis=0).astype(np.float64)
        eps = group_epsilon(ctx.epsilon, share.sum() * total, held)
        local = np.empty(sub.n, dtype=np.int32)
        split_blocks(sub, np.arange(sub.n, dtype=np.int64), share, first, eps, split_options,
                     (seed * 1_000_003 + first) % (1 << 40), local, levels)
        blocks[ids] = local

    def split_range(lo: int, hi: int) -> None:
        if hi - lo == 1:
            split_group(lo)
            return
        mid = (lo + hi) // 2
        run_pair(lambda: split_range(lo, mid), lambda: split_range(mid, hi))  # disjoint entries of `blocks`

    if groups.first.shape[0]:
        split_range(0, groups.first.shape[0])
    index_of_first = np.zeros(k, dtype=np.int32)
    index_of_first[finer.first] = np.arange(finer.first.shape[0], dtype=np.int32)
    return index_of_first[blocks], finer
