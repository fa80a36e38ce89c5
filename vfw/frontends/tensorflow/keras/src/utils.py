"""utils (stub: filled by its owner)."""

API = {}
