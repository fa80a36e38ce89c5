"""tf.data.experimental: the transformations and helpers TF keeps there (most are Dataset methods now)."""

from vfw.frontends.tensorflow.data import _structure
from vfw.frontends.tensorflow.data._csv import CsvDataset, make_csv_dataset
from vfw.frontends.tensorflow.data._dataset import AUTOTUNE
from vfw.frontends.tensorflow.data._dataset import INFINITE as INFINITE_CARDINALITY
from vfw.frontends.tensorflow.data._dataset import UNKNOWN as UNKNOWN_CARDINALITY
from vfw.frontends.tensorflow.data._dataset import Dataset as _Dataset
from vfw.frontends.tensorflow.data._experimental_ops import (
    Reducer,
    dense_to_sparse_batch,
    group_by_reducer,
    pad_to_cardinality,
)
from vfw.frontends.tensorflow.data._iterator import Optional
from vfw.frontends.tensorflow.data._options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)

__all__ = ["AUTOTUNE", "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "Counter", "CsvDataset",
           "DistributeOptions",
           "ExternalStatePolicy", "INFINITE_CARDINALITY", "OptimizationOptions", "Optional", "RandomDataset",
           "ThreadingOptions", "UNKNOWN_CARDINALITY", "assert_cardinality", "bucket_by_sequence_length",
           "cardinality", "choose_from_datasets", "enumerate_dataset", "from_list", "get_next_as_optional",
           "get_single_element", "get_structure", "group_by_window", "ignore_errors", "make_csv_dataset",
           "sample_from_datasets", "scan",
           "shuffle_and_repeat", "take_while", "unbatch", "unique",
           "Reducer", "copy_to_device", "dense_to_ragged_batch", "dense_to_sparse_batch", "enable_debug_mode",
           "group_by_reducer", "load", "make_batched_features_dataset", "map_and_batch", "pad_to_cardinality",
           "parallel_interleave", "prefetch_to_device", "rejection_resample", "save", "snapshot"]


def cardinality(dataset):
    """``dataset.cardinality()``: a scalar int64 tensor (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def get_structure(dataset_or_iterator):
    """The element spec of a dataset or iterator."""
    return dataset_or_iterator.element_spec


def get_single_element(dataset):
    return dataset.get_single_element()


def get_next_as_optional(iterator):
    return iterator.get_next_as_optional()


def assert_cardinality(expected_cardinality):
    """A transformation (for ``Dataset.apply``) declaring the cardinality, checked while iterating
    (FailedPreconditionError when the input has more or fewer elements)."""
    from vfw.frontends.tensorflow.data._ordering import AssertCardinalityDataset

    return lambda dataset: AssertCardinalityDataset(dataset, expected_cardinality)


def enumerate_dataset(start=0):
    return lambda dataset: dataset.enumerate(start)


def ignore_errors(log_warning=False):
    return lambda dataset: dataset.ignore_errors(log_warning)


def scan(initial_state, scan_func):
    return lambda dataset: dataset.scan(initial_state, scan_func)


def take_while(predicate):
    return lambda dataset: dataset.take_while(predicate)


def unbatch():
    return lambda dataset: dataset.unbatch()


def unique():
    return lambda dataset: dataset.unique()


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """The order of ``shuffle(buffer_size, seed).repeat(count)`` (TF's fused form gives the same one)."""
    from vfw.frontends.tensorflow.data._ordering import ShuffleAndRepeatDataset

    return lambda dataset: ShuffleAndRepeatDataset(dataset, buffer_size, count, seed)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes, padding_values,
        pad_to_bucket_boundary, no_padding, drop_remainder)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return _Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    return _Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def Counter(start=0, step=1, dtype=None):  # noqa: N802  (TF's name)
    """An infinite dataset counting from ``start`` by ``step`` (int64 unless ``dtype``)."""
    from vfw.frontends.tensorflow import _dtypes

    return _Dataset.counter(start, step, _dtypes.int64 if dtype is None else dtype)


def RandomDataset(seed=None):  # noqa: N802  (TF's name)
    return _Dataset.random(seed)


def from_list(elements, name=None):
    """A dataset of the given elements (each a structure of tensors; all of one structure and dtypes)."""
    from vfw.frontends.tensorflow.data._sources import ElementsDataset

    values = [_structure.normalize(e) for e in elements]
    if not values:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    spec = _structure.structure_of(values[0])
    for value in values[1:]:
        other = _structure.structure_of(value)
        if not _structure.compatible_types(spec, other):
            raise TypeError(f"Invalid `elements`. All elements must have the same structure and dtypes, got {spec} "
                            f"and {other}.")
        spec = _structure.most_specific(spec, other)
    dataset = ElementsDataset(spec, [_structure.components(v) for v in values])
    dataset._tf_name = "_ListDataset"
    return dataset


def _named(dataset, tf_name):
    """``dataset`` shown (repr) under the class name TF gives the fused or device dataset it stands for."""
    dataset._tf_name = tf_name
    return dataset


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """``Dataset.rejection_resample`` as a transformation: ``(class, element)`` pairs resampled towards
    ``target_dist`` (see ``_resampling``: TF's class statistics, vfw's own random draws)."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """``Dataset.ragged_batch`` as a transformation."""
    from vfw.frontends.tensorflow import _dtypes

    splits = _dtypes.int64 if row_splits_dtype is None else row_splits_dtype
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, splits)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """``map(map_func)`` then ``batch(batch_size, drop_remainder)`` (TF's fused ``_MapAndBatchDataset``)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`map_and_batch` allows only one of `num_parallel_batches` and `num_parallel_calls` to be "
                         "set.")
    return lambda dataset: _named(dataset.map(map_func).batch(batch_size, drop_remainder), "_MapAndBatchDataset")


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """``interleave(map_func, cycle_length, block_length)`` in TF's deterministic order (``sloppy`` and the buffer
    sizes are accepted: vfw produces elements in order on one thread)."""
    return lambda dataset: _named(dataset.interleave(map_func, cycle_length, block_length),
                                  "ParallelInterleaveDataset")


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """``Dataset.save`` (vfw's own directory format, see ``_persistence``)."""
    dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None):
    """``Dataset.load`` of a directory :func:`save` wrote."""
    return _Dataset.load(path, element_spec, compression, reader_func)


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """``Dataset.snapshot`` as a transformation."""
    return lambda dataset: dataset.snapshot(path, compression, reader_func, shard_func)


def copy_to_device(target_device, source_device="/cpu:0"):
    """The same elements (vfw has one device: the copy is a pass-through)."""
    from vfw.frontends.tensorflow.data._experimental_ops import CopyToDeviceDataset

    return CopyToDeviceDataset


def prefetch_to_device(device, buffer_size=None):
    """The same elements, copied to ``device`` and prefetched (pass-throughs in vfw)."""
    return lambda dataset: dataset.apply(copy_to_device(device)).prefetch(AUTOTUNE if buffer_size is None
                                                                          else buffer_size)


def enable_debug_mode():
    """TF's tf.data debug mode runs user functions eagerly, one element at a time: vfw always does, so this changes
    nothing."""


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None, label_key=None, reader_args=None,
                                  num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None, parser_num_threads=None,
                                  sloppy_ordering=False, drop_final_batch=False):
    """Batches of ``tf.train.Example`` records parsed with ``features`` (a dict of ``tf.io.FixedLenFeature``), as
    TF builds them: the files matching ``file_pattern`` (shuffled unless ``shuffle=False``) read by ``reader``
    (TFRecordDataset) and interleaved, repeated ``num_epochs`` times (None: forever) and shuffled, batched,
    parsed with ``tf.io.parse_example``; with ``label_key``, ``(features, label)`` pairs."""
    from vfw.frontends.tensorflow import io
    from vfw.frontends.tensorflow.data._files import TFRecordDataset

    reader = TFRecordDataset if reader is None else reader
    files = _Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    threads = 1 if reader_num_threads is None else reader_num_threads
    dataset = files.interleave(lambda name: reader(name, *(reader_args or [])), cycle_length=threads, block_length=1)
    if num_epochs != 1 and shuffle:
        dataset = dataset.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch)
    dataset = dataset.map(lambda records: io.parse_example(records, features))
    if label_key is not None:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key}) must be one of the `features` keys.")
        dataset = dataset.map(lambda parsed: (parsed, parsed.pop(label_key)))
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
