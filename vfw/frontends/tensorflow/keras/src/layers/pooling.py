"""layers.pooling (stub: filled by its owner)."""

API = {}
