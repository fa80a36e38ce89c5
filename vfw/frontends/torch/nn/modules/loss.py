"""Loss modules."""

__all__ = []
