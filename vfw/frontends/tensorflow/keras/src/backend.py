"""backend (stub: filled by its owner)."""

API = {}
