"""apportion.schedule."""
