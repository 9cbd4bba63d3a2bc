"""Heterogeneous 2-D grid partitioning into rectangles (seed 002, ch. 3): strips, basic, SGP, PHP, NPHP, best."""

from apportion.partitioning.grid.api import GRID_METHODS, METHOD_NAMES, partition_grid
from apportion.partitioning.grid.rectangles import Rectangles

__all__ = ["partition_grid", "Rectangles", "METHOD_NAMES", "GRID_METHODS"]
