"""engine.layer (stub: filled by its owner)."""

API = {}
