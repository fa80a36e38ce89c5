"""Dropout family."""

__all__ = []
