"""pad, interpolate, grid_sample, affine_grid, pixel_shuffle, unfold/fold."""

__all__ = []
