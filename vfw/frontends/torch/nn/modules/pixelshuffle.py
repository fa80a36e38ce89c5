"""PixelShuffle, PixelUnshuffle."""

__all__ = []
