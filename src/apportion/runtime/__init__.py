"""apportion.runtime."""
