"""Tensor creation: constant, convert_to_tensor (more creation functions: zeros, ones, fill, range...)."""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._shape import TensorShape


def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor from a Python or numpy value.

    Parameters
    ----------
    value : scalar, nested sequence, numpy array or Tensor
    dtype : DType, optional
        The element type (inferred as TF does when omitted: ints int32, floats float32).
    shape : sequence of int, optional
        The result's shape: a scalar is broadcast to it; a value with as many elements is reshaped.
    name : str
        Ignored (eager tensors have no names).
    """
    if isinstance(value, CoreTensor) and dtype is not None:
        t = convert_to_tensor(value)
        if t.dtype != _dtypes.as_dtype(dtype):
            raise TypeError(f"Expected tensor {t.array} with dtype {_dtypes.as_dtype(dtype)!r}, but got dtype "
                            f"{t.dtype!r}.")
    else:
        t = convert_to_tensor(value, dtype)
    if shape is None:
        return t
    dims = TensorShape(shape).as_list()
    if t.array.size == 1:
        return _dispatch.wrap(np.broadcast_to(t.array.reshape(()), dims).copy())
    if t.array.size != int(np.prod(dims)):
        raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {t.array} (converted from "
                        f"{value!r}) has {t.array.size} elements, but got `shape` {tuple(dims)} with "
                        f"{int(np.prod(dims))} elements).")
    return _dispatch.wrap(t.array.reshape(dims))


NAMESPACES = {"tf": ["constant", "convert_to_tensor"]}
TENSOR_METHODS = {}
