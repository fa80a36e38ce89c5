"""layers.attention (stub: filled by its owner)."""

API = {}
