"""constraints (stub: filled by its owner)."""

API = {}
