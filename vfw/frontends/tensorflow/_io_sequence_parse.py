"""``tf.io.parse_single_sequence_example`` / ``parse_sequence_example`` (TF's ParseSequenceExampleV2).

A ``SequenceExample`` holds ``context`` features (parsed as an Example's: ``FixedLenFeature``, ``VarLenFeature``)
and ``feature_lists``, one ``Feature`` per step.  A ``FixedLenSequenceFeature`` of shape ``s`` gives
``[steps, *s]`` (batches padded with zeros / empty strings to the longest sequence, whose lengths are returned
too); a ``VarLenFeature`` gives a SparseTensor ``[steps, longest step]`` (``[batch, steps, longest step]``).
Dense results run on the host (``host``: graphs recompute them on each call); sparse results are built eagerly.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow import _protobuf as pb
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._io_example import Example
from vfw.frontends.tensorflow._io_feature_specs import FixedLenSequenceFeature, numpy_dtype, padded
from vfw.frontends.tensorflow._io_ops import (
    FixedLenFeature,
    VarLenFeature,
    _dense,
    _on_stand_ins,
    _placeholder,
    _sparse,
)
from vfw.frontends.tensorflow._io_sequence_example import SequenceExample
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor

_OP = "ParseSequenceExampleV2"
_KINDS = {"string": "bytes_list", "float32": "float_list", "int64": "int64_list"}
_KIND_NAMES = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}


def _checked_specs(context_features, sequence_features):
    if context_features is None and sequence_features is None:
        raise ValueError("Both context_features and sequence_features are None, but at least one should have values.")
    for key, spec in (context_features or {}).items():
        if not isinstance(spec, (FixedLenFeature, VarLenFeature)):
            raise ValueError(f"Unsupported context feature type for {key!r}: {type(spec).__name__} (vfw parses "
                             "FixedLenFeature and VarLenFeature)")
    for key, spec in (sequence_features or {}).items():
        if not isinstance(spec, (FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(f"Unsupported sequence feature type for {key!r}: {type(spec).__name__} (expected "
                             "FixedLenSequenceFeature or VarLenFeature)")
        if isinstance(spec, FixedLenSequenceFeature) and spec.default_value is not None:
            raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
    for key, spec in {**(context_features or {}), **(sequence_features or {})}.items():
        if _dtypes.as_dtype(spec.dtype).name not in _KINDS:
            raise ValueError(f"Unsupported dtype {_dtypes.as_dtype(spec.dtype).name} for feature {key!r}: "
                             "expected float32, int64 or string")


def _sequence_example_of(record):
    try:
        return SequenceExample.FromString(record)
    except pb.DecodeError:
        raise op_error("Could not parse example input", _OP) from None


def _steps(sequence, key, dtype, name):
    """The per-step value arrays of feature list ``key`` (None when the list is absent)."""
    feature_list = sequence.feature_lists.feature_list.get(key)
    if feature_list is None:
        return None
    expected = _KINDS[dtype.name]
    steps = []
    for index, feature in enumerate(feature_list.feature):
        kind = feature.WhichOneof("kind")
        if kind is not None and kind != expected:
            raise op_error(f"Name: {name}, Feature list: {key}, Index: {index}.  Data types don't match. Expected "
                           f"type: {_KIND_NAMES[expected]}", _OP)
        values = getattr(feature, expected).value
        steps.append(np.array(values, dtype=numpy_dtype(dtype)).reshape(-1))
    return steps


def _dense_sequences(sequences, names, key, spec):
    """``([batch, longest, *shape] values, [batch] lengths)`` of the ``FixedLenSequenceFeature`` ``key``."""
    dtype = _dtypes.as_dtype(spec.dtype)
    shape = tuple(TensorShape(spec.shape).as_list())
    size = int(np.prod(shape, dtype=np.int64))
    rows = []
    for sequence, name in zip(sequences, names):
        steps = _steps(sequence, key, dtype, name)
        if steps is None:
            if not spec.allow_missing:
                raise op_error(f"Name: {name}, Feature list '{key}' is required but could not be found.  Did you "
                               "mean to include it in feature_list_dense_missing_assumed_empty or "
                               "feature_list_dense_defaults?", _OP)
            steps = []
        values = np.concatenate(steps) if steps else np.zeros(0, numpy_dtype(dtype))
        if values.size != len(steps) * size:
            shown = ",".join(["?", *map(str, shape)])
            raise op_error(f"Feature list '{key}' has an unexpected number of values.  Total values size: "
                           f"{values.size} is not consistent with output shape: [{shown}]", _OP)
        rows.append(values.reshape((len(steps), *shape)))
    lengths = np.array([len(r) for r in rows], np.int64)
    return padded(rows, shape, dtype, b"" if dtype == _dtypes.string else 0), lengths


def _sparse_sequences(sequences, names, key, spec, batched):
    """The ``VarLenFeature`` feature list ``key`` as a SparseTensor ``[batch, steps, longest step]``."""
    dtype = _dtypes.as_dtype(spec.dtype)
    indices, values, longest_steps, longest_step = [], [], 0, 0
    for b, (sequence, name) in enumerate(zip(sequences, names)):
        steps = _steps(sequence, key, dtype, name) or []
        longest_steps = max(longest_steps, len(steps))
        for s, step in enumerate(steps):
            longest_step = max(longest_step, step.size)
            indices += [(b, s, j) for j in range(step.size)]
            values.append(step)
    indices = np.array(indices, np.int64).reshape(-1, 3)
    values = np.concatenate(values) if values else np.zeros(0, numpy_dtype(dtype))
    if batched:
        return SparseTensor(indices, values, [len(sequences), longest_steps, longest_step])
    return SparseTensor(indices[:, 1:], values, [longest_steps, longest_step])


def _parsed(serialized, context_features, sequence_features, example_names, batched):
    _checked_specs(context_features, sequence_features)
    context_features, sequence_features = dict(context_features or {}), dict(sequence_features or {})
    serialized = convert_to_tensor(serialized, dtype=_dtypes.string)
    context_dense = [k for k, spec in context_features.items() if isinstance(spec, FixedLenFeature)]
    sequence_dense = [k for k, spec in sequence_features.items() if isinstance(spec, FixedLenSequenceFeature)]

    def names_for(count):
        if example_names is None:
            return ["<unknown>"] * count
        return [n.decode() if isinstance(n, bytes) else str(n) for n in np.asarray(example_names).reshape(-1)]

    def sequences_of(array):
        return [_sequence_example_of(record) for record in np.asarray(array).reshape(-1)]

    def dense(array):
        try:
            sequences = sequences_of(array)
            contexts = [Example(features=s.context) for s in sequences]
            results = [_dense(contexts, key, context_features[key]) for key in context_dense]
            parsed = [_dense_sequences(sequences, names_for(len(sequences)), key, sequence_features[key])
                      for key in sequence_dense]
        except errors.OpError:
            if not _on_stand_ins():
                raise
            results = [_placeholder(array.size, context_features[key]) for key in context_dense]
            parsed = [(_placeholder(array.size, sequence_features[key]), np.zeros(array.size, np.int64))
                      for key in sequence_dense]
        if not batched:
            results = [r[0, ...] for r in results]
            parsed = [(values[0, ...], lengths[0, ...]) for values, lengths in parsed]
        return tuple(results + [values for values, _ in parsed] + [lengths for _, lengths in parsed])

    context, feature_lists, lengths = {}, {}, {}
    if context_dense or sequence_dense:
        tensors = host(dense, serialized)
        tensors = tensors if isinstance(tensors, tuple) else (tensors,)
        context.update(zip(context_dense, tensors))
        feature_lists.update(zip(sequence_dense, tensors[len(context_dense):]))
        lengths.update(zip(sequence_dense, tensors[len(context_dense) + len(sequence_dense):]))
    context_sparse = [k for k in context_features if k not in context_dense]
    sequence_sparse = [k for k in sequence_features if k not in sequence_dense]
    if context_sparse or sequence_sparse:
        sequences = sequences_of(serialized.array)
        contexts = [Example(features=s.context) for s in sequences]
        names = names_for(len(sequences))
        context.update((key, _sparse(contexts, key, context_features[key], batched)) for key in context_sparse)
        feature_lists.update((key, _sparse_sequences(sequences, names, key, sequence_features[key], batched))
                             for key in sequence_sparse)
    return context, feature_lists, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """The context and sequence features of one serialized ``tf.train.SequenceExample`` (a scalar string).

    Parameters
    ----------
    serialized : scalar string tensor or bytes
    context_features : dict, optional
        Name -> ``FixedLenFeature`` (a tensor) or ``VarLenFeature`` (a 1-D SparseTensor).
    sequence_features : dict, optional
        Name -> ``FixedLenSequenceFeature(shape, dtype, allow_missing=False)`` (``[steps, *shape]``; its
        ``default_value`` must be None) or ``VarLenFeature`` (a SparseTensor ``[steps, longest step]``).
    example_name : str, optional
        Shown in error messages.

    Returns
    -------
    (dict, dict)
        The context features and the sequence features.

    Raises
    ------
    ValueError
        Without any features, or for a ``FixedLenSequenceFeature`` with a default value.
    InvalidArgumentError
        For a missing feature (list), a feature of another kind or a wrong number of values.
    """
    names = None if example_name is None else [example_name]
    context, feature_lists, _ = _parsed(serialized, context_features, sequence_features, names, batched=False)
    return context, feature_lists


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """A batch (a 1-D string tensor) of serialized ``SequenceExample``s (see ``parse_single_sequence_example``):
    context values ``[batch, ...]``, dense sequences padded to ``[batch, longest, *shape]``.

    Returns
    -------
    (dict, dict, dict)
        The context features, the sequence features and, for each ``FixedLenSequenceFeature``, the int64
        sequence lengths ``[batch]``.
    """
    return _parsed(serialized, context_features, sequence_features, example_names, batched=True)


NAMESPACES = {"io": ["parse_sequence_example", "parse_single_sequence_example"]}
TENSOR_METHODS = {}
