"""saving.serialization (stub: filled by its owner)."""

API = {}
