"""``tf.io.serialize_sparse`` / ``serialize_many_sparse`` / ``deserialize_many_sparse``: SparseTensors as
serialized ``TensorProto``s of their indices, values and dense shape, byte for byte as TF writes them (the content
in ``tensor_content``; for strings, the varint lengths of all strings, then their bytes).

``serialize_many_sparse`` splits a SparseTensor of rank R > 1 along its first dimension: row ``b`` holds the
entries whose first index is ``b`` (indices without it, in their order) and the shape without the first dim.
``deserialize_many_sparse`` concatenates such rows back, the dense shape being ``[rows, max of each dim]``.
Computed on the host, eagerly.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow import _protobuf as pb
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, kernel_type_name, op_error, wrap
from vfw.frontends.tensorflow._io_ops import _BY_ENUM, numeric_array, tensor_proto, tensor_proto_parts
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor


def _proto(array):
    """A serialized ``TensorProto`` of ``array`` with its data in ``tensor_content``, as TF's
    ``AsProtoTensorContent``."""
    return tensor_proto(array, strings_in_content=True)


def _strings_of_content(content, count):
    lengths, pos = [], 0
    for _ in range(count):
        length, pos = pb._read_varint(content, pos)
        lengths.append(length)
    out = []
    for length in lengths:
        out.append(content[pos:pos + length])
        pos += length
    return out


def _array_of(data, tf_op):
    """``(dtype, array)`` of a serialized ``TensorProto`` (``tensor_content`` or ``*_val`` string entries)."""
    try:
        dtype_enum, dims, content, strings = tensor_proto_parts(data)
    except pb.DecodeError:
        raise op_error("Could not parse serialized proto", tf_op) from None
    dtype = _BY_ENUM.get(dtype_enum)
    if dtype is None:
        raise op_error(f"Could not parse serialized proto: unsupported dtype enum {dtype_enum}", tf_op)
    count = int(np.prod(dims, dtype=np.int64))
    if dtype == _dtypes.string:
        items = strings if strings or not content else _strings_of_content(content, count)
        return dtype, np.array(items, dtype=object).reshape(dims)
    return dtype, numeric_array(dtype, content, dims)


def _checked_out_type(out_type):
    out_type = _dtypes.as_dtype(out_type)
    if out_type != _dtypes.string:
        raise NotImplementedError(f"vfw serializes SparseTensors to tf.string only, not {out_type.name}")


def _parts(sp_input):
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    return sp_input.indices.numpy(), sp_input.values.numpy(), sp_input.dense_shape.numpy()


def serialize_sparse(sp_input, out_type=_dtypes.string, name=None):
    """A SparseTensor as a 1-D string tensor of 3 serialized ``TensorProto``s: indices, values, dense shape."""
    _checked_out_type(out_type)
    indices, values, shape = _parts(sp_input)
    return wrap(np.array([_proto(indices), _proto(values), _proto(shape)], dtype=object))


def serialize_many_sparse(sp_input, out_type=_dtypes.string, name=None):
    """A SparseTensor of rank R > 1 as a ``[dense_shape[0], 3]`` string tensor: each row the
    ``serialize_sparse`` of its entries with the first dimension dropped.

    Raises
    ------
    InvalidArgumentError
        For a rank-1 SparseTensor.
    """
    _checked_out_type(out_type)
    indices, values, shape = _parts(sp_input)
    if shape.size < 2:
        raise op_error(f"Rank of input SparseTensor should be > 1, but saw rank: {shape.size}", "SerializeManySparse")
    rows = []
    inner_shape = _proto(shape[1:])
    for b in range(int(shape[0])):
        mine = indices[:, 0] == b
        rows.append([_proto(np.ascontiguousarray(indices[mine, 1:])), _proto(values[mine]), inner_shape])
    return wrap(np.array(rows, dtype=object).reshape(len(rows), 3))


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of a ``[N, 3]`` string tensor of serialized SparseTensors (``serialize_many_sparse``'s
    output): the rows concatenated along a new first dimension.

    Parameters
    ----------
    serialized_sparse : string tensor ``[N, 3]``
    dtype : DType
        The values' dtype (InvalidArgumentError when a row's differs).
    rank : int, optional
        Unused (the static rank TF may set).
    """
    tf_op = "DeserializeManySparse"
    dtype = _dtypes.as_dtype(dtype)
    serialized = convert_to_tensor(serialized_sparse, dtype=_dtypes.string).numpy()
    if serialized.ndim != 2 or serialized.shape[1] != 3:
        raise op_error(f"Serialized sparse should be a matrix with 3 columns but received shape "
                       f"[{','.join(map(str, serialized.shape))}]", tf_op)
    all_indices, all_values, shapes = [], [], []
    for b, (raw_indices, raw_values, raw_shape) in enumerate(serialized):
        _, indices = _array_of(bytes(raw_indices), tf_op)
        values_dtype, values = _array_of(bytes(raw_values), tf_op)
        _, shape = _array_of(bytes(raw_shape), tf_op)
        if values_dtype != dtype:
            raise op_error(f"Requested SparseTensor of type {kernel_type_name(dtype)} but SparseTensor[{b}]"
                           f".values.dtype() == {kernel_type_name(values_dtype)}", tf_op)
        if shapes and shape.size != shapes[0].size:
            raise op_error(f"Inconsistent shape across SparseTensors: rank prior to SparseTensor[{b}] was: "
                           f"{shapes[0].size + 1} but rank of SparseTensor[{b}] is: {shape.size + 1}", tf_op)
        shapes.append(shape)
        batch_column = np.full((len(indices), 1), b, np.int64)
        all_indices.append(np.concatenate([batch_column, indices.reshape(len(indices), shape.size)], axis=1))
        all_values.append(values)
    if not shapes:
        raise op_error("Serialized sparse should have at least one row", tf_op)
    dense_shape = np.concatenate([[len(shapes)], np.max(np.stack(shapes), axis=0)]).astype(np.int64)
    return SparseTensor(np.concatenate(all_indices), np.concatenate(all_values), dense_shape)


NAMESPACES = {"io": ["deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse"]}
TENSOR_METHODS = {}
