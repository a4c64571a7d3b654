"""rbac."""
