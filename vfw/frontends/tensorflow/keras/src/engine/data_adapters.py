"""Data adapters: what ``fit``/``evaluate``/``predict`` accept as data, turned into batches of tf tensors.

- arrays (numpy arrays, tf tensors, anything with ``__array__``; nested in lists/tuples/dicts for
  several inputs or outputs): ``ArrayDataAdapter`` slices batches of ``batch_size`` (default 32),
  the last one partial.  Floats of another dtype than ``floatx()`` are cast to it, as Keras does.
- ``tf.data.Dataset``: ``DatasetAdapter`` iterates it once per epoch (its elements are batches).
- ``keras.utils.PyDataset``: its items are batches (their order shuffled with Python's ``random``
  when ``shuffle``); a Python generator: its batches, read on as epochs go.

Shuffling arrays reproduces Keras on TensorFlow: Keras draws the epoch's order with
``tf.random.shuffle`` inside a ``tf.data`` function, whose kernel is created anew for every epoch's
iterator with the seeds ``(global seed, 0)``: after ``keras.utils.set_random_seed`` every epoch
sees the same order (TF's permutation of that kernel), and ``shuffle="batch"`` permutes each batch
in place with successive draws of one such kernel per epoch.  Without a global seed the orders are
random.
"""

import itertools
import math
import random
import types

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import _random_ops, nest
from vfw.frontends.tensorflow._random_common import Stream
from vfw.frontends.tensorflow._random_samplers import permutation
from vfw.frontends.tensorflow.data import Dataset
from vfw.frontends.tensorflow.distribute import DistributedDataset
from vfw.frontends.tensorflow.keras.src.backend.config import floatx
from vfw.frontends.tensorflow.keras.src.utils.data import PyDataset, pack_x_y_sample_weight, unpack_x_y_sample_weight


# -- helpers -------------------------------------------------------------------------------------------------
def _is_array(x):
    return x is None or isinstance(x, np.ndarray) or tf.is_tensor(x) or hasattr(x, "__array__")


def can_convert_arrays(arrays):
    """Whether every leaf of ``arrays`` is an array (or None)."""
    return all(_is_array(x) for x in nest.flatten(arrays))


def _as_numpy(x):
    """An array leaf as a numpy array, floats cast to ``floatx()`` (Keras' normalization)."""
    if x is None:
        return None
    array = x.numpy() if tf.is_tensor(x) or hasattr(x, "numpy") else np.asarray(x)
    if array.dtype.kind == "f" and array.dtype != np.dtype(floatx()):
        array = array.astype(floatx())
    return array


def check_data_cardinality(data):
    """Keras' ValueError when the arrays of ``(x, y, sample_weight)`` have different numbers of samples."""
    sizes = {int(x.shape[0]) for x in nest.flatten(data) if x is not None}
    if len(sizes) > 1:
        message = "Data cardinality is ambiguous. Make sure all arrays contain the same number of samples."
        for label, part in zip(("x", "y", "sample_weight"), data):
            message += f"'{label}' sizes: {', '.join(str(x.shape[0]) for x in nest.flatten(part))}\n"
        raise ValueError(message)


def class_weight_to_sample_weights(y, class_weight):
    """Per-sample weights (``floatx()``) from ``{class index: weight}``: labels are integer labels, the
    argmax of one-hot targets, or a last dim of 1 squeezed (rounded to the nearest class)."""
    labels = np.asarray(y.numpy() if tf.is_tensor(y) else y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else np.squeeze(labels, axis=-1)
    labels = np.round(labels).astype("int32")
    return np.array([class_weight.get(int(label), 1.0) for label in labels], dtype=floatx())


def train_validation_split(arrays, validation_split):
    """``(train, validation)``: the arrays' first ``floor(n * (1 - validation_split))`` samples, and the rest."""
    flat = nest.flatten(arrays)
    unsplittable = [type(x) for x in flat if not _is_array(x)]
    if unsplittable:
        raise ValueError("Argument `validation_split` is only supported for tensors or NumPy arrays."
                         f"Found incompatible type in the input: {unsplittable}")
    present = [x for x in flat if x is not None]
    if not present:
        return arrays, arrays
    count = int(present[0].shape[0])
    split_at = int(math.floor(count * (1.0 - validation_split)))
    if split_at in (0, count):
        raise ValueError(f"Training data contains {count} samples, which is not sufficient to split it into a "
                         f"validation and training set as specified by `validation_split={validation_split}`. Either "
                         "provide more data, or a different value for the `validation_split` argument.")

    def part(start, stop):
        return nest.map_structure(lambda x: None if x is None else x[start:stop], arrays)

    return part(0, split_at), part(split_at, count)


def lists_to_tuples(structure):
    """``structure`` with its lists as tuples (tf.data's form of nested batches)."""
    if isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields"):
        return tuple(lists_to_tuples(x) for x in structure)
    if isinstance(structure, dict):
        return {k: lists_to_tuples(v) for k, v in structure.items()}
    return structure


def _to_tensor(x):
    return x if x is None or tf.is_tensor(x) else tf.convert_to_tensor(x)


def as_tensors(batch):
    """A batch (nested structure of arrays) as tf tensors; lists become tuples, as tf.data makes them."""
    return nest.map_structure(_to_tensor, lists_to_tuples(batch))


def _global_seed():
    return _random_ops._state.global_seed  # noqa: SLF001  (the seed tf.random.set_seed recorded)


def _epoch_stream():
    """The generator of the RandomShuffle kernel Keras' epoch pipeline creates: seeds ``(global seed, 0)``."""
    seed = _global_seed()
    if seed is None:
        return Stream.of_seeds(0, 0)
    return Stream.of_seeds(*_random_ops.get_seed(0))


def _draw_permutation(stream, n):
    return permutation(stream.key, stream.reserve((n + 2) // 4), n)


# -- adapters ------------------------------------------------------------------------------------------------
class DataAdapter:
    """Base class: ``get_iterator()`` yields one epoch's batches (structures of tf tensors); ``first_batch_spec()``
    describes a batch (anything with ``shape`` and ``dtype`` per leaf) without reading the data's order."""

    num_batches = None
    batch_size = None
    per_replica = False  # the batches are this replica's already (not global batches fit slices)

    def get_iterator(self):
        raise NotImplementedError

    def first_batch_spec(self):
        raise NotImplementedError

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


class ArrayDataAdapter(DataAdapter):
    """Batches sliced from arrays (see the module docstring)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None, shuffle=False, class_weight=None):
        if not can_convert_arrays((x, y, sample_weight)):
            raise ValueError(f"Expected all elements of `x` to be array-like. Received invalid types: x={x}")
        if sample_weight is not None:
            if class_weight is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
            if nest.is_nested(y):
                sample_weight = self._per_output_weights(y, sample_weight)
        if class_weight is not None:
            if nest.is_nested(y):
                raise ValueError("`class_weight` is only supported for Models with a single output.")
            sample_weight = class_weight_to_sample_weights(y, class_weight)
        inputs = lists_to_tuples(pack_x_y_sample_weight(x, y, sample_weight))
        inputs = nest.map_structure(_as_numpy, inputs)
        check_data_cardinality(inputs if isinstance(inputs, tuple) else (inputs,))
        self._inputs = inputs
        self._num_samples = next(int(a.shape[0]) for a in nest.flatten(inputs) if a is not None)
        if not batch_size:
            batch_size = int(math.ceil(self._num_samples / steps)) if steps else 32
        self.batch_size = batch_size
        self.num_batches = int(math.ceil(self._num_samples / batch_size))
        self._shuffle = shuffle
        self._order = None  # the seeded epoch order, the same every epoch

    @staticmethod
    def _per_output_weights(y, sample_weight):
        if isinstance(sample_weight, (list, tuple, dict)):
            try:
                nest.assert_same_structure(y, sample_weight, check_types=False)
            except (ValueError, TypeError):
                raise ValueError("You should provide one `sample_weight` array per output in `y`. The two "
                                 f"structures did not match:\n- y: {y}\n- sample_weight: {sample_weight}\n") from None
            return sample_weight
        shape = np.shape(sample_weight)
        if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
            raise ValueError("For a model with multiple outputs, when providing a single `sample_weight` array, it "
                             "should only have one scalar score per sample (i.e. shape `(num_samples,)`). If you "
                             "want to use non-scalar sample weights, pass a `sample_weight` argument with one array "
                             "per model output.")
        return nest.map_structure(lambda _: sample_weight, y)

    def first_batch_spec(self):
        count = min(self.batch_size, self._num_samples)
        return nest.map_structure(lambda a: None if a is None else a[:count], self._inputs)

    def _epoch_order(self):
        """The sample order of this epoch (None: in order)."""
        if not self._shuffle or self._shuffle == "batch":
            return None
        if _global_seed() is None:
            return np.random.default_rng().permutation(self._num_samples)
        if self._order is None:
            self._order = _draw_permutation(_epoch_stream(), self._num_samples)
        return self._order

    def get_iterator(self):
        order = self._epoch_order()
        batch_stream = _epoch_stream() if self._shuffle == "batch" else None
        size, count = self.batch_size, self._num_samples
        for start in range(0, count, size):
            stop = min(start + size, count)
            if order is not None:
                index = order[start:stop]
            elif batch_stream is not None:
                index = _draw_permutation(batch_stream, stop - start) + start
            else:
                index = slice(start, stop)
            yield nest.map_structure(lambda a, i=index: None if a is None else tf.convert_to_tensor(a[i]),
                                     self._inputs)


class DatasetAdapter(DataAdapter):
    """A ``tf.data.Dataset`` of batches, iterated once per epoch (``class_weight`` maps labels to weights).

    ``per_replica``: the batches are already this replica's (``distribute_datasets_from_function``), so
    ``fit`` does not take a slice of them.
    """

    def __init__(self, dataset, class_weight=None, per_replica=False):
        self.per_replica = per_replica
        self._dataset = dataset
        self._class_weight = class_weight
        cardinality = int(dataset.cardinality())
        self.num_batches = cardinality if cardinality >= 0 else None
        first_spec = nest.flatten(dataset.element_spec)[0]
        self.batch_size = first_spec.shape[0] if first_spec.shape.rank else None

    def first_batch_spec(self):
        spec = self._dataset.element_spec
        if self._class_weight is not None:
            x, y, _ = unpack_x_y_sample_weight(spec)
            return x, y, tf.TensorSpec(y.shape[:1], floatx())
        return spec

    def get_iterator(self):
        # The dataset's iterator is created now, as Keras' TF backend does: creating it draws its shuffles' seeds.
        batches = iter(self._dataset)
        return batches if self._class_weight is None else map(self._weighted, batches)

    def _weighted(self, batch):
        x, y, sample_weight = unpack_x_y_sample_weight(batch)
        if sample_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        if nest.is_nested(y):
            raise ValueError("`class_weight` is only supported for Models with a single output.")
        return x, y, tf.convert_to_tensor(class_weight_to_sample_weights(y, self._class_weight))


class GeneratorDataAdapter(DataAdapter):
    """Batches from a Python generator (``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` tuples).

    As Keras, the first two batches are read ahead (to describe the data) and every epoch starts with
    them again before reading on: once the generator is exhausted, epochs see those two batches only.
    """

    def __init__(self, generator):
        self._generator = generator
        self._first_batches = list(itertools.islice(generator, 2))
        if not self._first_batches:
            raise ValueError("When passing a Python generator to a Keras model, the generator must yield at least "
                             "one batch. Received an empty generator.")
        if not isinstance(self._first_batches[0], tuple):
            raise ValueError("When passing a Python generator to a Keras model, the generator must return a tuple, "
                             "either (input,) or (inputs, targets) or (inputs, targets, sample_weights). Received: "
                             f"{self._first_batches[0]}")

    def first_batch_spec(self):
        return self._first_batches[0]

    def get_iterator(self):
        for batch in itertools.chain(self._first_batches, self._generator):
            yield as_tensors(batch)


_SPEC_BATCHES = 2


class PyDatasetAdapter(DataAdapter):
    """Batches ``py_dataset[i]`` of a ``keras.utils.PyDataset`` (order shuffled each epoch with ``shuffle``)."""

    def __init__(self, py_dataset, class_weight=None, shuffle=False):
        self._py_dataset = py_dataset
        self._class_weight = class_weight
        self._shuffle = shuffle
        self.num_batches = py_dataset.num_batches
        # As Keras' TF backend, which reads the first batches (two at most) once to find the data's spec.
        count = _SPEC_BATCHES if self.num_batches is None else min(_SPEC_BATCHES, self.num_batches)
        self._spec_batches = [self._standardize(py_dataset[index]) for index in range(count)]
        if not self._spec_batches:
            raise ValueError("The PyDataset has length 0")

    def first_batch_spec(self):
        return self._spec_batches[0]

    def get_iterator(self):
        if self.num_batches is None:
            indices = itertools.count()
        else:
            indices = list(range(self.num_batches))
            if self._shuffle:
                random.shuffle(indices)
        for index in indices:
            yield self._standardize(self._py_dataset[index])

    def _standardize(self, batch):
        # As Keras: a dict is the inputs, a bare array the only input.
        if isinstance(batch, dict):
            return as_tensors(batch)
        if isinstance(batch, np.ndarray):
            batch = (batch,)
        if isinstance(batch, list):
            batch = tuple(batch)
        if not isinstance(batch, tuple) or len(batch) not in (1, 2, 3):
            raise ValueError("PyDataset.__getitem__() must return a tuple or a dict. If a tuple, it must be ordered "
                             "either (input,) or (inputs, targets) or (inputs, targets, sample_weights). "
                             f"Received: {str(batch)[:100]}... of type {type(batch)}")
        if self._class_weight is not None:
            if len(batch) == 3:
                raise ValueError("You cannot specify `class_weight` and `sample_weight` at the same time.")
            if len(batch) == 2:
                batch = (batch[0], batch[1], class_weight_to_sample_weights(batch[1], self._class_weight))
        return as_tensors(batch)

    def on_epoch_begin(self):
        self._py_dataset.on_epoch_begin()

    def on_epoch_end(self):
        self._py_dataset.on_epoch_end()


def _unsupported(argument, description, kind):
    raise ValueError(f"When providing `x` as a {kind}, `{argument}` should not be passed. Instead, {description} "
                     f"should be included as part of the {kind}.")


def get_data_adapter(x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False,
                     class_weight=None):
    """The adapter for this kind of data (Keras' errors for arguments the kind does not take)."""
    if isinstance(x, DataAdapter):
        return x
    if can_convert_arrays((x, y, sample_weight)):
        return ArrayDataAdapter(x, y, sample_weight=sample_weight, class_weight=class_weight, shuffle=shuffle,
                                batch_size=batch_size, steps=steps_per_epoch)
    if isinstance(x, DistributedDataset):  # fit slices the global batches of experimental_distribute_dataset itself
        if class_weight is not None:  # Keras maps the dataset to weight it: a distributed one has no map
            raise AttributeError(f"'{type(x).__name__}' object has no attribute 'map'")
        x, per_replica = x._dataset, x._per_replica
    else:
        per_replica = False
    if isinstance(x, Dataset):
        if y is not None:
            _unsupported("y", "the targets", "tf.data.Dataset")
        if sample_weight is not None:
            _unsupported("sample_weights", "the sample weights", "tf.data.Dataset")
        if shuffle:
            warn_for_user("`shuffle=True` was passed, but will be ignored since the data `x` was provided as a "
                          "tf.data.Dataset. The Dataset is expected to already be shuffled (via "
                          "`.shuffle(buffer_size)`).")
        return DatasetAdapter(x, class_weight=class_weight, per_replica=per_replica)
    if isinstance(x, PyDataset):
        if y is not None:
            _unsupported("y", "the targets", "PyDataset")
        if sample_weight is not None:
            _unsupported("sample_weights", "the sample weights", "PyDataset")
        return PyDatasetAdapter(x, class_weight=class_weight, shuffle=shuffle)
    if isinstance(x, types.GeneratorType):
        if y is not None:
            _unsupported("y", "the targets", "generator")
        if sample_weight is not None:
            _unsupported("sample_weights", "the sample weights", "generator")
        if class_weight is not None:
            raise ValueError("Argument `class_weight` is not supported for Python generator inputs. Received: "
                             f"class_weight={class_weight}")
        if shuffle:
            warn_for_user("`shuffle=True` was passed, but will be ignored since the data `x` was provided as a "
                          "generator. The generator is expected to yield already-shuffled data.")
        return GeneratorDataAdapter(x)
    raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")
