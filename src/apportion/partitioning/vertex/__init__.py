"""apportion.partitioning.vertex."""
