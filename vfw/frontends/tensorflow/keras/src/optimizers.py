"""optimizers (stub: filled by its owner)."""

API = {}
