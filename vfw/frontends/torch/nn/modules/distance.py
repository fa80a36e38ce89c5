"""PairwiseDistance, CosineSimilarity."""

__all__ = []
