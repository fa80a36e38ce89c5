"""layers.core (stub: filled by its owner)."""

API = {}
