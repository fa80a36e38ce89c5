"""layers.preprocessing (stub: filled by its owner)."""

API = {}
