"""LayerNorm, GroupNorm, LocalResponseNorm, RMSNorm."""

__all__ = []
