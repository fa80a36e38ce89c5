"""tf.data.experimental: the transformations and helpers TF keeps there (most are Dataset methods now)."""

from vfw.frontends.tensorflow.data import _structure
from vfw.frontends.tensorflow.data._csv import CsvDataset, make_csv_dataset
from vfw.frontends.tensorflow.data._dataset import AUTOTUNE
from vfw.frontends.tensorflow.data._dataset import INFINITE as INFINITE_CARDINALITY
from vfw.frontends.tensorflow.data._dataset import UNKNOWN as UNKNOWN_CARDINALITY
from vfw.frontends.tensorflow.data._dataset import Dataset as _Dataset
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
           "shuffle_and_repeat", "take_while", "unbatch", "unique"]


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
