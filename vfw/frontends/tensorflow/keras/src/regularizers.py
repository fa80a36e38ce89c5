"""regularizers (stub: filled by its owner)."""

API = {}
