"""Fold, Unfold."""

__all__ = []
