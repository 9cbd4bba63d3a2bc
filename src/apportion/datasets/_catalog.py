"""The catalog of the graphs shipped in `apportion.datasets`: one record per dataset, nothing loaded.

Kept free of NumPy and of the graph readers so that listing the datasets (`apportion datasets`) costs nothing.
`source_sha256` is the SHA-256 of the original file the archive was made from (tools/make_datasets.py checks it).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

_NETWORKIT = "MIT (the NetworKit repository's licence); the data themselves carry no licence statement"
_METIS = "Apache-2.0 (the METIS repository's licence)"


@dataclass(frozen=True)
class Dataset:
    """What one shipped graph is: size, kind, where the file came from, who made the data, and the licence."""

    name: str           # what `load(name)` and `dataset:NAME` take
    n: int              # vertices
    m: int              # undirected edges
    kind: str           # one line: what the graph is
    weights: str        # "none", or which weights the graph carries
    origin: str         # the repository and path the original file was taken from
    credit: str         # who made the data (cite them when you publish results on it)
    licence: str
    source_file: str    # the original file's name (in the shared graphs folder used by tools/make_datasets.py)
    source_sha256: str

    @property
    def file(self) -> str:
        """The archive's file name inside the package's data folder."""
        return f"{self.name}.npz"

    def to_dict(self) -> dict:
        return {**asdict(self), "file": self.file}


DATASETS: tuple[Dataset, ...] = (
    Dataset("karate", 34, 78, "social network (Zachary's karate club)", "none",
            "NetworKit repository, input/karate.graph",
            "W. W. Zachary, J. Anthropological Research 33 (1977)", _NETWORKIT,
            "karate.graph", "f06b7c71274732ee160032d5876fbb6f08f5c5fd7ec06aa716eb107d63b707e9"),
    Dataset("jazz", 198, 2742, "jazz musicians' collaborations", "none",
            "NetworKit repository, input/jazz.graph",
            "P. Gleiser and L. Danon, Advances in Complex Systems 6 (2003)", _NETWORKIT,
            "jazz.graph", "8139a37d49b957d9c0bd0a22fb14badbcb8b45a59d5122f6b19c21a28062aaf7"),
    Dataset("polblogs", 1490, 16715, "US political blog links, 266 isolated vertices", "none",
            "NetworKit repository, input/polblogs.graph",
            "L. A. Adamic and N. Glance, LinkKDD 2005", _NETWORKIT,
            "polblogs.graph", "8f537dfd68120a193821b2c5b34701d0d8d17118c0f219cc575e16b9e95c9893"),
    Dataset("test_mgraph", 766, 1314, "METIS's multi-constraint example", "2 vertex weights",
            "METIS repository, graphs/test.mgraph",
            "G. Karypis et al., University of Minnesota", _METIS,
            "test.mgraph", "aa83a922e56743e489b1e25a6c4c032232491309bb4c26309c1727ca1070aa78"),
    Dataset("wiki-Vote", 7115, 100762,
            "Wikipedia votes: directed SNAP file made undirected",
            "none", "NetworKit repository, input/wiki-Vote.txt (from SNAP)",
            "J. Leskovec, D. Huttenlocher and J. Kleinberg, CHI 2010 (SNAP)", _NETWORKIT,
            "wiki-Vote.txt", "d2afbedf262126f820c6b3dd9f39a6d68e6f5ea839c0508297032ca77578b28a"),
    Dataset("PGPgiantcompo", 10680, 24316, "PGP web of trust (giant component)", "none",
            "NetworKit repository, input/PGPgiantcompo.graph",
            "M. Boguñá, R. Pastor-Satorras, A. Díaz-Guilera and A. Arenas, Phys. Rev. E 70 (2004)", _NETWORKIT,
            "PGPgiantcompo.graph", "ee6a0508db1686d237b6646bf12b8e33232fbf17699cf26ebc45f7898090903b"),
    Dataset("4elt", 15606, 45878, "2-D finite-element mesh (Walshaw archive)", "none",
            "METIS repository, graphs/4elt.graph",
            "C. Walshaw's graph partitioning archive (the archive states no licence)", _METIS,
            "4elt.graph", "246997040b286050864a4b4ebbe387026e9c317eef504e6fc79a97cc0af5967f"),
)
