"""How ``torch.tensor`` reads Python data: the dtype it infers, tensors nested in lists (scalars where the nesting
ends, sequences above), and its errors for ragged or non-numeric nesting."""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dtype


def untensor(data):
    """``data`` (nested lists holding tensors) as nested lists of numbers and 0-d arrays, read as torch reads it.

    The sizes come from the first element at each level (a tensor there ends them, as a scalar); a tensor where a
    sequence is expected is iterated, one where a scalar is expected gives its single element.
    """
    sizes = []
    first = data
    while isinstance(first, (list, tuple)):
        sizes.append(len(first))
        if not first:
            break
        first = first[0]
    return _store(data, 0, sizes)


def _store(x, dim, sizes):
    if dim == len(sizes):
        if isinstance(x, CoreTensor):
            if x.array.size != 1:
                if x.array.dtype.kind in "iub":
                    raise TypeError("only integer tensors of a single element can be converted to an index")
                raise ValueError("only one element tensors can be converted to Python scalars")
            return x.array.reshape(())
        return x
    if isinstance(x, CoreTensor):
        if x.array.ndim == 0:
            raise TypeError("not a sequence")
        x = [CoreTensor(row) for row in x.array]
    if not isinstance(x, (list, tuple)):
        return x  # (numpy reports the ragged nesting)
    if len(x) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(x)})")
    return [_store(v, dim + 1, sizes) for v in x]


def ragged(data, np_dtype=None):
    """torch's error for nested lists numpy could not read as one array (ragged, mixed with strings or objects), or,
    where torch reads them anyway (some dimension is 0, so no element is stored), the empty array.

    Returns None where torch's rules find nothing wrong either (the caller then reports numpy's error).
    """
    sizes, first = [], data
    while isinstance(first, (list, tuple, str)):
        if isinstance(first, str):
            raise ValueError("too many dimensions 'str'")
        sizes.append(len(first))
        if not first:
            break
        first = first[0]
    scalars = list(_scalars(data))
    for v in scalars:  # torch infers the dtype, from every element, before it reads the nesting
        if isinstance(v, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(v, (bool, int, float, complex, np.generic, np.ndarray)):
            raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
    if 0 in sizes:  # (an empty list counts as a default-dtype float in torch's dtype inference)
        if np_dtype is None:
            np_dtype = infer_dtype([*scalars, 0.0])
        return np.empty(sizes, np_dtype)
    kind = np.dtype(np_dtype).kind if np_dtype is not None else \
        "f" if any(isinstance(v, (float, complex)) for v in scalars) else "i"
    _check_nesting(data, 0, sizes, kind)
    return None


def _scalars(data):
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _scalars(v)
        else:
            yield v


def _check_nesting(x, dim, sizes, kind):
    if dim == len(sizes):
        if isinstance(x, (list, tuple)):
            name = type(x).__name__
            raise TypeError(f"'{name}' object cannot be interpreted as an integer" if kind in "biu" else
                            f"must be real number, not {name}")
        return
    if not isinstance(x, (list, tuple)):
        raise TypeError("not a sequence")
    if len(x) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(x)})")
    for v in x:
        _check_nesting(v, dim + 1, sizes, kind)


def array_from(data, np_dtype=None):
    """An ndarray from Python data the way ``torch.tensor`` reads it (dtype inference included)."""
    if isinstance(data, CoreTensor):
        arr = data.array
        return arr.copy() if np_dtype is None else arr.astype(np_dtype)
    if isinstance(data, np.ndarray):
        if np_dtype is None:
            _dtype.from_numpy_dtype(data.dtype)
            return data.copy()
        return data.astype(np_dtype)
    if isinstance(data, (list, tuple)) and any(isinstance(v, CoreTensor) for v in _flat(data)):
        data = untensor(data)
    given = np_dtype
    try:
        if np_dtype is None:
            np_dtype = infer_dtype(data)
        try:
            arr = np.array(data, dtype=np_dtype)
        except (OverflowError, ValueError):
            arr = np.array(data).astype(np_dtype)
    except (TypeError, ValueError) as e:
        empty = ragged(data, given) if isinstance(data, (list, tuple)) else None  # (raises torch's error)
        if empty is not None:
            return empty
        if isinstance(e, TypeError):
            if str(e).startswith("Could not infer dtype"):  # (an object, a dict, a set: torch raises this one)
                raise RuntimeError(str(e)) from None
            raise
        raise ValueError(f"expected sequence of equal-length lists, got {_shape_note(data)} ({e})") from None
    return arr


def _flat(data):
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _shape_note(data):
    return f"a {type(data).__name__}"


def infer_dtype(data):
    """The dtype ``torch.tensor(data)`` picks: bool, int64, the default float or complex."""
    if isinstance(data, np.ndarray):
        return data.dtype
    if isinstance(data, CoreTensor):
        return data.array.dtype
    if isinstance(data, (list, tuple)):
        category = -1
        best = None
        for v in _flat(data) if data else ():
            d = v.dtype if isinstance(v, np.ndarray) else infer_dtype(v)
            c = _dtype._category(d)
            if c > category:
                category, best = c, d
            elif c == category and best is not None and d != best:
                best = _dtype.promote_types(best, d)
        return _dtype.default_float_np() if best is None else best
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    if isinstance(data, np.generic):  # numpy scalars keep their dtype in torch.tensor
        if data.dtype.kind in "SUOV":  # numpy strings, bytes and objects are no tensor dtype
            raise TypeError(f"new(): invalid data type 'numpy.{type(data).__name__}'")
        return data.dtype
    try:
        return _dtype.scalar_np_dtype(data)
    except TypeError:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}") from None
