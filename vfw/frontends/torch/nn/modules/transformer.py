"""Transformer and its encoder/decoder layers."""

__all__ = []
