"""Flatten and Unflatten: reshapes of a range of dims, as modules (views where torch gives views)."""

from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims ``start_dim`` through ``end_dim`` into one (``input.flatten(start_dim, end_dim)``).

    Parameters
    ----------
    start_dim, end_dim : int
        First and last dim to merge (negative: counted from the end).

    Shape: input ``(*, S_start, ..., S_end, *)``, output ``(*, S_start * ... * S_end, *)``.
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into the sizes ``unflattened_size`` (``input.unflatten(dim, unflattened_size)``).

    Parameters
    ----------
    dim : int
    unflattened_size : tuple, list or torch.Size of ints
        Their product must be the size of ``dim`` (one entry may be -1).

    Shape: input ``(*, S_dim, *)``, output ``(*, U_1, ..., U_n, *)``.
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            _require_tuple_of_ints(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _require_tuple_of_ints(sizes):
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(sizes).__name__}")
    for pos, size in enumerate(sizes):
        if not isinstance(size, int):
            raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                            f"{type(size).__name__} at pos {pos}")
