"""embedding, embedding_bag, one_hot."""

__all__ = []
