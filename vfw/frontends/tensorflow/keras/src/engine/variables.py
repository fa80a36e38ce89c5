"""engine.variables (stub: filled by its owner)."""

API = {}
