"""engine.input_layer (stub: filled by its owner)."""

API = {}
