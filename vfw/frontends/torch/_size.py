"""torch.Size: the shape of a tensor, a tuple of ints."""

import numpy as np


class Size(tuple):
    """A tuple of dimension sizes (``tensor.shape``); slicing gives a ``Size``.

    Examples
    --------
    >>> Size([2, 3]).numel()
    6
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        items = []
        for s in sizes:
            if hasattr(s, "__index__") and not isinstance(s, bool):
                items.append(s.__index__())
            elif hasattr(s, "array") and getattr(s.array, "ndim", 1) == 0:
                items.append(int(s.array))
            else:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {len(items)} is "
                                f"'{type(s).__name__}')")
        return super().__new__(cls, items)

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def __getitem__(self, item):
        result = tuple.__getitem__(self, item)
        return Size(result) if isinstance(item, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self):
        """int: the number of elements a tensor of this shape holds."""
        return int(np.prod(self, dtype=np.int64))

    def __reduce__(self):
        return (Size, (tuple(self),))
