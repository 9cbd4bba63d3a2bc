"""apportion.schedule.policies."""
