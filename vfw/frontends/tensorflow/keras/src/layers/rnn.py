"""layers.rnn (stub: filled by its owner)."""

API = {}
