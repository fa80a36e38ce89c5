"""layers.reshaping (stub: filled by its owner)."""

API = {}
