"""random (stub: filled by its owner)."""

API = {}
