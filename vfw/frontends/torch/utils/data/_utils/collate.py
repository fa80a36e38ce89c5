"""Collating samples into batches: ``default_collate`` (auto-batching) and ``default_convert`` (no batching).

``collate(batch, collate_fn_map=...)`` walks the structure of the first sample: a type found
in ``collate_fn_map`` (exactly, else by ``isinstance`` in the map's order) is handled by its
function; mappings, namedtuples and sequences are collated field by field. Extend
``default_collate_fn_map`` (a copy of it) to collate custom types.
"""

import collections.abc
import copy
import re

import numpy as np

from vfw.frontends.torch import _creation, _joining
from vfw.frontends.torch._dtype import float64
from vfw.frontends.torch._tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn"]

# numpy dtype strings of bytes, unicode and object arrays: not convertible to tensors
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def _rebuild(template, values):
    """A container like ``template`` holding ``values`` (a dict for mappings, a list for sequences).

    A mutable container is copied and filled (keeping its type and other attributes); an
    immutable one is rebuilt by calling its type; a type that cannot be rebuilt that way
    falls back to a plain dict / list.
    """
    if isinstance(template, collections.abc.Mapping):
        try:
            if isinstance(template, collections.abc.MutableMapping):
                clone = copy.copy(template)
                clone.update(values)
                return clone
            return type(template)(values)
        except TypeError:
            return dict(values)
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(template)(values)
    except TypeError:
        return list(values)


def _is_numpy_value(x):
    """numpy arrays and scalars other than ``numpy.str_`` (what ``default_convert`` turns into tensors)."""
    return type(x).__module__ == "numpy" and not isinstance(x, np.str_)


def default_convert(data):
    """Convert numpy arrays and scalars (also inside mappings, namedtuples and sequences) to tensors.

    What a DataLoader applies to each sample when ``batch_size=None``. Tensors and other
    values pass unchanged; arrays of strings or objects stay numpy arrays; tuples become lists.
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if type(data) is np.ndarray and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(v) for v in data))
    if isinstance(data, tuple):
        return [default_convert(v) for v in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(v) for v in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples into a batch, dispatching on the first sample's type.

    Parameters
    ----------
    batch : list
        Samples of one structure.
    collate_fn_map : dict, optional
        ``{type or tuple of types: fn(batch, *, collate_fn_map)}`` for leaf types.

    Raises
    ------
    RuntimeError
        Sequence samples of different lengths.
    TypeError
        A type neither in the map nor a container.
    """
    first = batch[0]
    if collate_fn_map is not None:
        fn = collate_fn_map.get(type(first))
        if fn is None:
            fn = next((f for types, f in collate_fn_map.items() if isinstance(first, types)), None)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(first, collections.abc.Mapping):
        return _rebuild(first, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in first})
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # namedtuple
        return type(first)(*(collate(field, collate_fn_map=collate_fn_map) for field in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        size = len(first)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # each column is a tuple (so a column of strings stays a tuple)
        columns = [collate(column, collate_fn_map=collate_fn_map) for column in zip(*batch)]
        return columns if isinstance(first, tuple) else _rebuild(first, columns)
    raise TypeError(default_collate_err_msg_format.format(type(first)))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack tensors along a new first dimension (torch's error when their sizes differ)."""
    return _joining.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """numpy arrays -> tensors, then collated as tensors; string and object arrays are a TypeError."""
    dtype = batch[0].dtype
    if np_str_obj_array_pattern.search(dtype.str):
        raise TypeError(default_collate_err_msg_format.format(dtype))
    return collate([_creation.as_tensor(a) for a in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """numpy scalars -> a 1-D tensor of their dtype."""
    return _creation.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats -> a float64 tensor."""
    return _creation.tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints -> an int64 tensor (bools -> a bool tensor)."""
    return _creation.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes stay as they are: the batch itself."""
    return batch


# Order matters for the isinstance fallback: numpy scalars (np.float64 is also a float) before
# Python numbers, ints after floats (bool is an int).
default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Collate samples into a batch as torch's default ``collate_fn`` does.

    Tensors are stacked (a new first dimension); numpy arrays and scalars become tensors
    (then stacked); Python ints, floats and bools become int64 / float64 / bool tensors;
    strings and bytes stay a list; mappings, namedtuples and sequences keep their structure
    with each field collated (tuples and sequences are transposed: a list of columns).

    Parameters
    ----------
    batch : list
        The samples of one batch.
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
