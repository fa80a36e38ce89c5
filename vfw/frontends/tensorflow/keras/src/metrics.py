"""metrics (stub: filled by its owner)."""

API = {}
