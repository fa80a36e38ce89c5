"""losses (stub: filled by its owner)."""

API = {}
