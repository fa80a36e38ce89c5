"""callbacks (stub: filled by its owner)."""

API = {}
