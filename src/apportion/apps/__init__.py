"""apportion.apps."""
