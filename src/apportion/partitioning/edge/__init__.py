"""apportion.partitioning.edge."""
