"""``torch.utils.benchmark.utils``: the timer, measurements and comparison tables."""
