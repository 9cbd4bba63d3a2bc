"""apportion.partitioning.grid."""
