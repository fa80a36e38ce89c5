"""Activation modules (ReLU, GELU, Softmax...)."""

__all__ = []
