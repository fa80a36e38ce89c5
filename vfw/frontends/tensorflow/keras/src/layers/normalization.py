"""layers.normalization (stub: filled by its owner)."""

API = {}
