"""Embedding, EmbeddingBag."""

__all__ = []
