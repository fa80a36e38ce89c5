"""engine.model (stub: filled by its owner)."""

API = {}
