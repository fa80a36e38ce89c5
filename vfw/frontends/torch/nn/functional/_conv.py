"""Convolutions."""

__all__ = []
