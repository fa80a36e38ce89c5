"""engine.sequential (stub: filled by its owner)."""

API = {}
