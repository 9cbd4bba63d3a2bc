"""apportion.platform."""
