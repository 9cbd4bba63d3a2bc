"""apportion.perfmodel."""
