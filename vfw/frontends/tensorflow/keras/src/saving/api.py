"""saving.api (stub: filled by its owner)."""

API = {}
