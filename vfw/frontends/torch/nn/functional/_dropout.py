"""Dropout functions."""

__all__ = []
