"""initializers (stub: filled by its owner)."""

API = {}
