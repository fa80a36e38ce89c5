"""pairwise_distance, cosine_similarity, pdist."""

__all__ = []
