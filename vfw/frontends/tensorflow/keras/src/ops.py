"""ops (stub: filled by its owner)."""

API = {}
