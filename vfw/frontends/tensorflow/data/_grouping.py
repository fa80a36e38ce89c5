"""Grouping: ``group_by_window`` and ``bucket_by_sequence_length`` (built on it, as in TF)."""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import UNKNOWN, Dataset, int64_argument, iterator_error
from vfw.frontends.tensorflow.data._functional import StructuredFunction, normalized_output
from vfw.frontends.tensorflow.data._sources import ElementsDataset

_KEY_SPEC = TensorSpec([], _dtypes.int64)
_INT32_MIN, _INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)


def _int64_function(func, input_spec, transformation):
    function = StructuredFunction(func, input_spec, transformation)
    if function.output_spec != _KEY_SPEC and not (
            isinstance(function.output_spec, TensorSpec) and function.output_spec.dtype == _dtypes.int64 and
            function.output_spec.shape.is_compatible_with([])):
        raise ValueError(f"`{transformation}` must return a scalar tf.int64 tensor, but its return type is "
                         f"{function.output_spec}.")
    return function


def _scalar(result):
    return int(normalized_output(result).array)


class GroupByWindowDataset(Dataset):
    """``group_by_window``: elements gathered per key (``key_func``); a group reaching its window size (``window_size``
    or ``window_size_func(key)``) becomes a dataset passed to ``reduce_func(key, window)``, whose elements are
    output.  At the end, the groups left are flushed in increasing key order (TF's)."""

    _tf_name = "_GroupByWindowDataset"

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func, element_spec=None):
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified.")
        if window_size is not None:
            size = int64_argument(window_size, "window_size")
            window_size_func = lambda key: _dispatch.wrap(np.array(size, np.int64))  # noqa: E731
        self._input = input_dataset
        self._key = _int64_function(key_func, input_dataset._structure, "key_func")
        self._window_size = _int64_function(window_size_func, _KEY_SPEC, "window_size_func")
        self._reduce = StructuredFunction(reduce_func, (_KEY_SPEC, structure.DatasetSpec(input_dataset._structure)),
                                          "reduce_func")
        if not isinstance(self._reduce.output_spec, structure.DatasetSpec):
            raise TypeError(f"`reduce_func` must return a `Dataset` object, got {self._reduce.output_spec}.")
        spec = self._reduce.output_spec.element_spec if element_spec is None else element_spec
        super().__init__(spec, UNKNOWN, inputs=[input_dataset])

    def _flush(self, key, group):
        window = ElementsDataset(self._input._structure, group)
        return self._reduce((np.array(key, np.int64), window))._elements()

    def _iterate(self):
        groups, sizes = {}, {}
        for element in self._input._elements():
            key = _scalar(self._key(element))
            if key not in sizes:
                size = _scalar(self._window_size((np.array(key, np.int64),)))
                if size <= 0:
                    raise iterator_error(f"Window size must be greater than zero, but got {size}.")
                sizes[key] = size
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._flush(key, group)
        while groups:
            key = min(groups)
            yield from self._flush(key, groups.pop(key))


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
                              padding_values, pad_to_bucket_boundary, no_padding, drop_remainder):
    """``Dataset.bucket_by_sequence_length``: elements batched with others whose length
    (``element_length_func``) falls in the same bucket ``[boundaries[i-1], boundaries[i])``, bucket ``i``
    batching ``bucket_batch_sizes[i]`` elements (padded to the batch's longest, or to the bucket's boundary
    minus one with ``pad_to_bucket_boundary``)."""
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(s) for s in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(sizes)}` and `len(bucket_boundaries)={len(boundaries)}`.")
    lows, highs = [_INT32_MIN] + boundaries, boundaries + [_INT32_MAX]

    def bucket(*element):
        length = _scalar(element_length_func(*element))
        found = next((i for i, (lo, hi) in enumerate(zip(lows, highs)) if lo <= length < hi), None)
        return _dispatch.wrap(np.array(np.iinfo(np.int64).max if found is None else found, np.int64))

    def window_size(bucket_id):
        return _dispatch.wrap(np.array(sizes[int(bucket_id.array)], np.int64))

    def batches(bucket_id, window):
        bucket_id = int(bucket_id.array)
        if no_padding:
            return window.batch(sizes[bucket_id], drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary:
            if bucket_id >= len(sizes) - 1:
                raise _dispatch.op_error("assertion failed: [When pad_to_bucket_boundary=True, elements must have "
                                         "length < max(bucket_boundaries).]", "IteratorGetNext", errors.InternalError)
            filler = boundaries[bucket_id] - 1
        shapes = structure.map_structure(lambda s: s.shape, window.element_spec) if padded_shapes is None else \
            padded_shapes
        shapes = structure.map_structure(lambda s: TensorShape([filler if d is None else d for d in s]), shapes)
        return window.padded_batch(sizes[bucket_id], shapes, padding_values, drop_remainder=drop_remainder)

    return GroupByWindowDataset(dataset, bucket, batches, None, window_size,
                                element_spec=_bucketed_spec(dataset.element_spec, padded_shapes, no_padding))


def _bucketed_spec(spec, padded_shapes, no_padding):
    """TF's element spec of bucketed batches: batch dims unknown (the batch size depends on the bucket), padded dims
    as given (unknown ones stay unknown: they depend on the batch or on the bucket's boundary)."""
    if no_padding:
        return structure.batched(spec, None)
    if padded_shapes is None:
        shapes = [s.shape for s in structure.flatten(spec)]
    else:
        shapes = [TensorShape([None if d is None or d == -1 else d for d in s])
                  for s in structure.flatten(padded_shapes)]
    return structure.pack(spec, [TensorSpec(TensorShape([None]).concatenate(shape), s.dtype)
                                 for shape, s in zip(shapes, structure.flatten(spec))])
