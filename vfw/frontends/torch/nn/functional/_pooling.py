"""Pooling."""

__all__ = []
