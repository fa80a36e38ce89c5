"""activations (stub: filled by its owner)."""

API = {}
