"""layers.regularization (stub: filled by its owner)."""

API = {}
