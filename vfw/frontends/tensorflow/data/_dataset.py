"""tf.data.Dataset: the base class, its public methods, and how elements flow through a pipeline.

A dataset is a Python object holding its element spec, its cardinality and how to produce its
elements.  Iterating builds a chain of Python generators over *flat components* (one numpy
array per tensor leaf of the element spec, see ``_structure``); the iterator packs each
element back into its structure of ``tf.Tensor`` objects.

Fast path: a dataset whose elements are rows of one table (``from_tensor_slices``, ``range``,
``from_tensors``, and ``take``/``skip``/``shuffle``/``repeat``/``shard``/``cache``/``prefetch``
over them) also produces its elements as *index chunks* (Python ``range`` objects or int64
arrays of row numbers).  ``batch`` over such a dataset gathers whole batches with one slice or
one fancy index per component instead of stacking elements one by one, and ``shuffle`` moves
row numbers instead of elements.
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow.data import _structure as structure

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1


class Dataset:
    """A sequence of elements (nested structures of tensors) and the transformations that make new ones.

    Build datasets with the static constructors (:meth:`from_tensor_slices`, :meth:`range`,
    :meth:`from_generator`...) and transform them with methods (:meth:`map`, :meth:`batch`,
    :meth:`shuffle`...).  Iterate with ``for element in dataset`` or :meth:`as_numpy_iterator`.
    """

    _tf_name = "DatasetV2"

    def __init__(self, element_spec, cardinality, table=None, inputs=()):
        self._structure = element_spec
        self._flat_specs = structure.flatten(element_spec)
        self._cardinality = cardinality
        self._table = table  # the Table whose rows the elements are (index chunks), or None
        self._pack = structure.packer(element_spec)
        self._opened_inputs = tuple(inputs)  # the inputs TF opens along with this dataset's iterators
        self._options = None  # the tf.data.Options of the inputs, merged (TF's options() of a pipeline)
        for dataset in inputs:
            if dataset._options is not None:
                self._options = dataset._options if self._options is None else self._options.merge(dataset._options)

    # -- how subclasses produce elements -------------------------------------------------------------
    def _elements(self):
        """An iterator of the elements as flat component tuples."""
        if self._table is not None:
            return self._table.iterate(self._indices())
        return self._iterate()

    def _iterate(self):
        """The elements as flat component tuples (datasets without a table)."""
        raise NotImplementedError

    def _indices(self):
        """The elements as chunks of row numbers of ``self._table`` (datasets with a table)."""
        raise NotImplementedError

    def _inputs_opened_with_iterator(self):
        """The input datasets whose iterators TF creates when it creates this dataset's (see
        ``_seeds.draw_at_creation``)."""
        return self._opened_inputs

    # -- the dataset itself ------------------------------------------------------------------------------
    @property
    def element_spec(self):
        """The type specification of an element: a nested structure of ``tf.TensorSpec`` (``DatasetSpec``)."""
        return self._structure

    def cardinality(self):
        """The number of elements: a scalar int64 tensor (``tf.data.INFINITE_CARDINALITY`` = -1,
        ``tf.data.UNKNOWN_CARDINALITY`` = -2)."""
        return _dispatch.wrap(np.array(self._cardinality, np.int64))

    def __iter__(self):
        from vfw.frontends.tensorflow.data._iterator import OwnedIterator

        check_not_in_function()
        return OwnedIterator(self)

    def __len__(self):
        if self._cardinality == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __bool__(self):
        return True  # __len__ would make empty datasets false and raise for unknown ones

    def __repr__(self):
        return f"<{self._tf_name} element_spec={self._structure!r}>"

    def as_numpy_iterator(self):
        """An iterator of the elements as numpy values (0-d tensors as numpy scalars, strings as bytes).

        Raises
        ------
        TypeError
            For elements containing datasets.
        """
        from vfw.frontends.tensorflow.data._iterator import NumpyIterator

        for spec in self._flat_specs:
            if isinstance(spec, structure.DatasetSpec):
                raise TypeError(f"Dataset.as_numpy_iterator() is not supported for datasets that produce values of "
                                f"type {structure.DatasetSpec}")
        return NumpyIterator(self)

    def options(self):
        """The ``tf.data.Options`` set on this dataset and its inputs (:meth:`with_options`)."""
        from vfw.frontends.tensorflow.data._options import Options

        return self._options if self._options is not None else Options()

    # -- sources -----------------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the slices of ``tensors`` along their first dimension.

        Parameters
        ----------
        tensors : tensor, array, nested list, or a tuple/dict/namedtuple structure of them
            Every component must have rank >= 1 and the same first dimension.
        """
        from vfw.frontends.tensorflow.data._sources import TensorSliceDataset

        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, ``tensors`` (a structure of tensors, arrays, Python values, datasets)."""
        from vfw.frontends.tensorflow.data._sources import TensorDataset

        return TensorDataset(tensors)

    @staticmethod
    def range(*args, **kwargs):
        """A dataset of evenly spaced integers: ``range(stop)``, ``range(start, stop[, step])``.

        Parameters
        ----------
        output_type : DType, default tf.int64
        """
        from vfw.frontends.tensorflow.data._sources import RangeDataset

        return RangeDataset(*args, **kwargs)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """A dataset of the elements a Python generator yields (see ``_sources.GeneratorDataset``).

        Parameters
        ----------
        generator : callable
            Called (with ``args`` as numpy values) on every iteration; returns an iterator.
        output_signature : nested structure of tf.TensorSpec
            The element spec (or the older ``output_types`` and ``output_shapes``).
        args : tuple, optional
        """
        from vfw.frontends.tensorflow.data._sources import GeneratorDataset

        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """A dataset of the (sorted) names of the files matching ``file_pattern`` (a glob or several), shuffled
        unless ``shuffle=False``."""
        from vfw.frontends.tensorflow.data._files import list_files

        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def counter(start=0, step=1, dtype=_dtypes.int64, name=None):
        """An infinite dataset counting from ``start`` by ``step``."""
        from vfw.frontends.tensorflow.data._sources import CounterDataset

        return CounterDataset(start, step, dtype)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """An infinite dataset of pseudo-random int64 values in ``[0, 2**32)``, drawn as TF draws them."""
        from vfw.frontends.tensorflow.data._sources import RandomDataset

        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """A dataset of the elements of several datasets side by side, structured as the datasets are given.

        ``zip(a, b)`` and ``zip((a, b))`` give tuples, ``zip({"x": a})`` dicts; it stops with the shortest.
        """
        from vfw.frontends.tensorflow.data._combine import ZipDataset

        if args and datasets is not None:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        return ZipDataset(datasets)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """A dataset taking each element from ``datasets[i]`` for the next ``i`` of ``choice_dataset``."""
        from vfw.frontends.tensorflow.data._combine import choose_from_datasets

        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """A dataset drawing each element from a randomly chosen dataset (probabilities ``weights``)."""
        from vfw.frontends.tensorflow.data._combine import sample_from_datasets

        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    # -- element-wise transformations -------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """A dataset of ``map_func`` applied to each element (a tuple element is passed as arguments).

        ``num_parallel_calls`` and ``deterministic`` are accepted; elements are mapped in order.
        """
        from vfw.frontends.tensorflow.data._functional import MapDataset, ParallelMapDataset

        if num_parallel_calls is None:
            return MapDataset(self, map_func)
        return ParallelMapDataset(self, map_func)

    def filter(self, predicate, name=None):
        """A dataset of the elements for which ``predicate`` returns a true scalar tf.bool."""
        from vfw.frontends.tensorflow.data._functional import FilterDataset

        return FilterDataset(self, predicate)

    def flat_map(self, map_func, name=None):
        """A dataset of the elements of the datasets ``map_func`` returns for each element, in order."""
        from vfw.frontends.tensorflow.data._functional import FlatMapDataset

        return FlatMapDataset(self, map_func)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """A dataset cycling over ``cycle_length`` datasets made by ``map_func``, ``block_length`` elements each."""
        from vfw.frontends.tensorflow.data._functional import InterleaveDataset

        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls)

    def scan(self, initial_state, scan_func, name=None):
        """A dataset of ``scan_func(state, element) -> (new_state, output)`` outputs, state carried along."""
        from vfw.frontends.tensorflow.data._functional import ScanDataset

        return ScanDataset(self, initial_state, scan_func)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """``(class, element)`` pairs resampled towards the class distribution ``target_dist`` (see
        ``_resampling``)."""
        from vfw.frontends.tensorflow.data._resampling import rejection_resample

        return rejection_resample(self, class_func, target_dist, initial_dist, seed)

    def take_while(self, predicate, name=None):
        """A dataset of the elements until ``predicate`` first returns false."""
        from vfw.frontends.tensorflow.data._functional import TakeWhileDataset

        return TakeWhileDataset(self, predicate)

    def reduce(self, initial_state, reduce_func, name=None):
        """The final state of ``reduce_func(state, element) -> state`` over all elements."""
        from vfw.frontends.tensorflow.data._functional import reduce

        return reduce(self, initial_state, reduce_func)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset

    def enumerate(self, start=0, name=None):
        """A dataset of ``(index, element)`` pairs, indices int64 from ``start``."""
        from vfw.frontends.tensorflow.data._combine import ZipDataset
        from vfw.frontends.tensorflow.data._sources import CounterDataset

        return ZipDataset((CounterDataset(start, 1, _dtypes.int64), self))

    def concatenate(self, dataset, name=None):
        """The elements of this dataset followed by those of ``dataset`` (compatible element specs)."""
        from vfw.frontends.tensorflow.data._combine import ConcatenateDataset

        return ConcatenateDataset(self, dataset)

    # -- batching -----------------------------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """A dataset of consecutive elements stacked into batches of ``batch_size`` (the last may be smaller
        unless ``drop_remainder``)."""
        from vfw.frontends.tensorflow.data._batching import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder, parallel=num_parallel_calls is not None)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches of elements padded to ``padded_shapes`` (default: each batch's largest, for unknown dims)
        with ``padding_values`` (default 0, ``b''`` for strings)."""
        from vfw.frontends.tensorflow.data._batching import PaddedBatchDataset

        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=_dtypes.int64, name=None):
        """Batches of ``batch_size`` elements in which components with unknown dims become ``tf.RaggedTensor``s
        (ragged up to the last unknown dim, as TF); components of fully known shape are stacked."""
        from vfw.frontends.tensorflow.data._ragged_elements import ragged_batch

        return ragged_batch(self, batch_size, drop_remainder, row_splits_dtype)

    def sparse_batch(self, batch_size, row_shape, name=None):
        """Batches of ``batch_size`` elements as ``tf.SparseTensor``s of dense shape ``[n, *row_shape]``."""
        from vfw.frontends.tensorflow.data._experimental_ops import SparseBatchDataset

        return SparseBatchDataset(self, batch_size, row_shape)

    def fingerprint(self):
        """A scalar uint64 hash of how the dataset is defined (vfw's own hash, not TF's graph fingerprint)."""
        from vfw.frontends.tensorflow.data._experimental_ops import fingerprint

        return fingerprint(self)

    def unbatch(self):
        """A dataset of the rows of each element (the inverse of ``batch``)."""
        from vfw.frontends.tensorflow.data._batching import UnbatchDataset

        return UnbatchDataset(self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The rows of the batched elements regrouped into batches of ``batch_size`` (an int, or sizes used in
        turn)."""
        from vfw.frontends.tensorflow.data._batching import RebatchDataset

        return RebatchDataset(self, batch_size, drop_remainder)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Elements grouped by ``key_func`` (a scalar tf.int64) into windows of ``window_size`` (or
        ``window_size_func(key)``); each full window (and each group left at the end) goes through
        ``reduce_func(key, window_dataset)``, whose elements are output."""
        from vfw.frontends.tensorflow.data._grouping import GroupByWindowDataset

        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        """Batches of elements of similar length: bucket ``i`` holds lengths in
        ``[bucket_boundaries[i-1], bucket_boundaries[i])`` and batches ``bucket_batch_sizes[i]`` of them, padded
        (``padded_batch``) unless ``no_padding``."""
        from vfw.frontends.tensorflow.data._grouping import bucket_by_sequence_length

        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                         padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                         drop_remainder)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows: each a structure of datasets of ``size`` elements taken every ``stride``,
        windows starting every ``shift`` (default ``size``) elements."""
        from vfw.frontends.tensorflow.data._batching import WindowDataset

        return WindowDataset(self, size, shift, stride, drop_remainder)

    # -- order and amount --------------------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements drawn at random from a buffer of ``buffer_size`` elements (TF's order for a given seed).

        Parameters
        ----------
        buffer_size : int
        seed : int, optional
            With ``tf.random.set_seed`` (or alone), makes the order reproducible.
        reshuffle_each_iteration : bool, default True
            A different order on every iteration (else the same one).
        """
        from vfw.frontends.tensorflow.data._ordering import ShuffleDataset

        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The elements repeated ``count`` times (``None`` or -1: forever)."""
        from vfw.frontends.tensorflow.data._ordering import RepeatDataset

        return RepeatDataset(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (-1: all)."""
        from vfw.frontends.tensorflow.data._ordering import TakeDataset

        return TakeDataset(self, count)

    def skip(self, count, name=None):
        """The elements after the first ``count`` (-1: none)."""
        from vfw.frontends.tensorflow.data._ordering import SkipDataset

        return SkipDataset(self, count)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at element ``index``."""
        from vfw.frontends.tensorflow.data._ordering import ShardDataset

        return ShardDataset(self, num_shards, index)

    def cache(self, filename="", name=None):
        """The elements, kept in memory after the first complete iteration and read back afterwards.

        ``filename`` (a file cache in TF) is accepted; the cache is held in memory.
        """
        from vfw.frontends.tensorflow.data._ordering import CacheDataset

        return CacheDataset(self, filename)

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Write the elements under the directory ``path`` in vfw's own format (``_persistence``; not TF's
        snapshot format: round-trips vfw -> vfw). ``shard_func(element)`` (an int64 scalar) picks each
        element's shard file; ``compression`` None or "GZIP"; ``checkpoint_args`` is accepted and unused."""
        from vfw.frontends.tensorflow.data import _persistence

        _persistence.write(self, path, compression, shard_func)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None):
        """The dataset :meth:`save` wrote under ``path`` (read from JSON and ``.npy`` data only, never code);
        ``reader_func`` receives the dataset of the shards' datasets."""
        from vfw.frontends.tensorflow.data import _persistence

        return _persistence.load(path, element_spec, compression, reader_func)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        """The same elements, saved under ``path`` by the first complete iteration and read from there after
        (one snapshot per directory, see ``_persistence.SnapshotDataset``)."""
        from vfw.frontends.tensorflow.data._persistence import SnapshotDataset

        return SnapshotDataset(self, path, compression, shard_func)

    def prefetch(self, buffer_size, name=None):
        """The same elements (vfw produces elements on demand; ``buffer_size`` is checked and accepted)."""
        from vfw.frontends.tensorflow.data._ordering import PrefetchDataset

        return PrefetchDataset(self, buffer_size)

    def unique(self, name=None):
        """The elements that were not seen before (scalar or vector int32/int64/string elements)."""
        from vfw.frontends.tensorflow.data._ordering import UniqueDataset

        return UniqueDataset(self)

    def ignore_errors(self, log_warning=False, name=None):
        """The elements, leaving out those whose production raised an error."""
        from vfw.frontends.tensorflow.data._ordering import IgnoreErrorsDataset

        return IgnoreErrorsDataset(self)

    def with_options(self, options, name=None):
        """The same dataset with ``tf.data.Options`` set (merged with those already set)."""
        from vfw.frontends.tensorflow.data._ordering import OptionsDataset

        return OptionsDataset(self, options)

    def get_single_element(self, name=None):
        """The only element (InvalidArgumentError when the dataset is empty or has more than one)."""
        from vfw.frontends.tensorflow.data._iterator import OwnedIterator

        check_not_in_function()
        iterator = OwnedIterator(self)
        first = next(iterator, None)
        if first is None:
            raise _dispatch.op_error("Dataset was empty.", "DatasetToSingleElement")
        if next(iterator, None) is not None:
            raise _dispatch.op_error("Dataset had more than one element.", "DatasetToSingleElement")
        return first


def check_not_in_function():
    """Refuse to read elements in Python while a tf.function is traced.

    TF reads them with dataset ops inside the graph; vfw's traces record the values the tracing run
    read, so later calls would replay the first call's elements.  The reads vfw puts in the graph
    (``_graph_reads``, a converted ``for`` in ``_autograph_datasets``) do not come here.
    """
    from vfw.frontends.tensorflow._function import in_function_trace

    if in_function_trace():
        raise NotImplementedError("vfw cannot read a tf.data.Dataset this way inside a tf.function (the traced graph "
                                  "would replay the elements of the first call): `for x in dataset`, `iter(dataset)` "
                                  "and `next(iterator)` in code AutoGraph converts, and `Dataset.reduce`, read it in "
                                  "the graph; `get_single_element` and unconverted code (autograph=False, library "
                                  "code) do not: iterate outside and pass the elements to the function.")


def int64_argument(value, name):
    """An int64 scalar argument (``batch_size``, ``count``...) as a Python int, converted as TF converts it."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    array = getattr(value, "array", None)
    if array is not None and array.dtype.kind in "iu":
        if array.ndim:
            raise _dispatch.op_error(f"`{name}` must be a scalar", "Dataset")
        keep_traced_value(value, name)
        return int(array)
    tensor = _dispatch.convert_to_tensor(value, dtype=_dtypes.int64)
    keep_traced_value(tensor, name)
    return int(tensor.array)


def keep_traced_value(tensor, name):
    """Note that a dataset made while a tf.function is traced keeps the value ``tensor`` has now (``name``: the
    argument): when the tensor follows each call's values, every call checks that it still holds the traced value
    and raises InvalidArgumentError if not (vfw builds the dataset in Python once per trace, TF in the graph at
    every call), rather than reading the traced value's elements."""
    from vfw.frontends.tensorflow import _traced_shapes
    from vfw.frontends.tensorflow._function import in_function_trace

    if not in_function_trace() or not _traced_shapes.varies(tensor):
        return
    traced = np.array(tensor.array)

    def same_as_traced(array):
        if array.shape != traced.shape or not np.array_equal(array, traced, equal_nan=array.dtype.kind in "fc"):
            raise _dispatch.op_error(f"`{name}` of a tf.data dataset made inside this tf.function differs from its "
                                     "value when the function was traced: vfw.tensorflow builds such a dataset once "
                                     "per trace (TF at every call); make the dataset outside the function, or pass "
                                     "this value as a Python value", "Dataset")

    _traced_shapes.checked_at_run(same_as_traced, tensor)


def check_dataset(value, what):
    if not isinstance(value, Dataset):
        raise TypeError(f"{what} must be a `tf.data.Dataset` object, got {type(value)}.")
    return value


def iterator_error(message):
    """The error an iterator raises for a failure while producing an element (TF's IteratorGetNext error)."""
    return _dispatch.op_error(message, "IteratorGetNext")


def out_of_range():
    return _dispatch.op_error("End of sequence", "IteratorGetNext", errors.OutOfRangeError)
