"""layers.convolutional (stub: filled by its owner)."""

API = {}
