"""config (stub: filled by its owner)."""

API = {}
