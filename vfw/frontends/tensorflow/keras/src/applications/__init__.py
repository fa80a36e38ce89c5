"""Implementations of ``keras.applications`` (one module per architecture family)."""
