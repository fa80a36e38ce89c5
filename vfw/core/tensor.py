"""The engine tensor: a numpy array plus the flags autograd needs.

Frontend tensor classes (``vfw.torch.Tensor``, TF's eager tensor) subclass
:class:`Tensor`, so a frontend tensor *is* an engine tensor: no wrapper stack.
"""

import numpy as np

from vfw.core.registry import describe


class Tensor:
    """An n-dimensional array owned by the engine.

    Parameters
    ----------
    data : array_like
        The value; kept without a copy when it already is a numpy array.
    requires_grad : bool, optional
        Whether tapes record the ops that read this tensor.

    Attributes
    ----------
    array : numpy.ndarray
        The array the kernels read and write.
    requires_grad : bool
    grad_node : vfw.core.autograd.Node or None
        The recorded op that produced this tensor (``None`` for leaves).
    grad_slot : int
        Which output of ``grad_node`` this tensor is (set with ``grad_node``).
    """

    __slots__ = ("array", "requires_grad", "grad_node", "grad_slot", "__weakref__")

    def __init__(self, data, requires_grad=False):
        self.array = data if type(data) is np.ndarray else np.asarray(data)
        self.requires_grad = requires_grad
        self.grad_node = None

    @classmethod
    def wrap(cls, array):
        """Wrap an ndarray without any checks (the executors' fast path)."""
        t = object.__new__(cls)
        t.array = array
        t.requires_grad = False
        t.grad_node = None
        return t

    @property
    def shape(self):
        """tuple[int, ...]: the dimensions."""
        return self.array.shape

    @property
    def dtype(self):
        """numpy.dtype: the element type."""
        return self.array.dtype

    @property
    def ndim(self):
        """int: the number of dimensions."""
        return self.array.ndim

    @property
    def nbytes(self):
        """int: bytes held by the array."""
        return self.array.nbytes

    def numpy(self):
        """Return the underlying numpy array (shared, not copied)."""
        return self.array

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and dtype != self.array.dtype:
            return self.array.astype(dtype)
        return self.array.copy() if copy else self.array

    def __repr__(self):
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor({describe(self.array)}{grad})"


# The class of op results computed from a tensor of a class (a frontend sets its own,
# which its subclasses, e.g. parameters, inherit).
Tensor.result_class = Tensor
