"""engine.keras_tensor (stub: filled by its owner)."""

API = {}
