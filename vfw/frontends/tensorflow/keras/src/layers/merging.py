"""layers.merging (stub: filled by its owner)."""

API = {}
