"""Datasets combining several: zip, concatenate, choose_from_datasets, sample_from_datasets."""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._sparse_tensor import SparseTensorSpec
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import INFINITE, UNKNOWN, Dataset, iterator_error


class ZipDataset(Dataset):
    """``zip``: elements of several datasets side by side, in the structure the datasets were given in."""

    _tf_name = "_ZipDataset"

    def __init__(self, datasets):
        inputs = structure.flatten(datasets)
        for d in inputs:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects but encountered object of type {type(d)}.")
        self._inputs = inputs
        spec = structure.pack(datasets, [d._structure for d in inputs])
        cardinality = INFINITE
        for d in inputs:
            if d._cardinality == UNKNOWN:
                cardinality = UNKNOWN
                break
            if d._cardinality != INFINITE and (cardinality == INFINITE or d._cardinality < cardinality):
                cardinality = d._cardinality
        super().__init__(spec, cardinality, inputs=inputs)

    def _iterate(self):
        iterators = [d._elements() for d in self._inputs]
        if len(iterators) == 1:
            yield from iterators[0]
            return
        while True:
            element = ()
            for it in iterators:
                part = next(it, None)
                if part is None:
                    return
                element += part
            yield element


def _common_spec(specs):
    """The most specific spec covering ``specs`` (TypeError when they are not compatible)."""
    common = specs[0]
    for spec in specs[1:]:
        if not structure.compatible_types(common, spec) or not structure.compatible(
                structure.map_structure(_any_shape, common), structure.map_structure(_any_shape, spec)):
            raise TypeError(f"Incompatible dataset elements:\n  {specs[0]} vs.   {spec}")
        common = structure.most_specific(common, spec)
    return common


def _any_shape(spec):
    return type(spec)(None, spec.dtype) if isinstance(spec, (TensorSpec, SparseTensorSpec)) else spec


class ConcatenateDataset(Dataset):
    _tf_name = "_ConcatenateDataset"

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"Invalid `dataset`. `dataset` must be a `tf.data.Dataset` object, got {type(second)}.")
        self._parts = (first, second)
        n1, n2 = first._cardinality, second._cardinality
        if INFINITE in (n1, n2):
            cardinality = INFINITE
        elif UNKNOWN in (n1, n2):
            cardinality = UNKNOWN
        else:
            cardinality = n1 + n2
        super().__init__(_common_spec([first._structure, second._structure]), cardinality, inputs=self._parts)

    def _inputs_opened_with_iterator(self):
        return self._parts[:1]  # TF opens the second part when the first ends

    def _iterate(self):
        for part in self._parts:
            yield from part._elements()


class DirectedInterleaveDataset(Dataset):
    """Each element from the dataset the next selector value names (TF's DirectedInterleave)."""

    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, selector, datasets, stop_on_empty_dataset):
        self._selector = selector
        self._datasets = datasets
        self._stop = bool(stop_on_empty_dataset)
        cardinality = INFINITE if any(d._cardinality == INFINITE for d in datasets) else UNKNOWN
        super().__init__(_common_spec([d._structure for d in datasets]), cardinality, inputs=[selector] + datasets)

    def _iterate(self):
        inputs = [d._elements() for d in self._datasets]
        active = len(inputs)
        for (choice,) in self._selector._elements():
            index = int(choice)
            if not 0 <= index < len(inputs):
                raise iterator_error(f"Selector index out of range: {index} >= {len(inputs)}")
            if inputs[index] is None:
                continue
            element = next(inputs[index], None)
            if element is not None:
                yield element
                continue
            if self._stop:
                return
            inputs[index] = None
            active -= 1
            if not active:
                return


def _dataset_list(datasets):
    if isinstance(datasets, Dataset):
        raise TypeError("Invalid `datasets`. `datasets` must be a list of `tf.data.Dataset` objects.")
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`. `datasets` must be a list of `tf.data.Dataset` objects, found "
                            f"{type(d)}.")
    return datasets


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """``Dataset.choose_from_datasets``."""
    datasets = _dataset_list(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` must be a `tf.data.Dataset` object, got "
                        f"{type(choice_dataset)}.")
    spec = choice_dataset.element_spec
    if not isinstance(spec, TensorSpec) or spec.dtype != _dtypes.int64 or not spec.shape.is_compatible_with([]):
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors "
                        f"but are {spec}.")
    return DirectedInterleaveDataset(choice_dataset, datasets, stop_on_empty_dataset)


class _SampleSelector(Dataset):
    """The selector of ``sample_from_datasets``: a category per pair of ``Dataset.random`` values, drawn by
    ``stateless_categorical(logits, 1, seed=pair)`` (TF's composition)."""

    _tf_name = "_MapDataset"

    def __init__(self, logits, seed, rerandomize_each_iteration):
        from vfw.frontends.tensorflow.data._sources import RandomDataset

        self._pairs = RandomDataset(seed, rerandomize_each_iteration).batch(2)
        self._logits = logits
        super().__init__(TensorSpec([], _dtypes.int64), INFINITE)

    def _iterate(self):
        from vfw.frontends.tensorflow._random_stateless import stateless_categorical

        for (pair,) in self._pairs._elements():
            yield (stateless_categorical(self._logits, 1, seed=_dispatch.wrap(pair)).array.reshape(()),)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """``Dataset.sample_from_datasets`` with TF's random selection (constant weights; not a dataset of them)."""
    datasets = _dataset_list(datasets)
    if isinstance(weights, Dataset):
        raise NotImplementedError("sample_from_datasets: `weights` given as a dataset is not supported by vfw; "
                                  "pass a list or a tensor of weights.")
    if weights is None:
        logits = np.ones((1, len(datasets)), np.float32)
    else:
        given = weights
        if not hasattr(weights, "array"):
            if len(weights) != len(datasets):
                raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with "
                                 f"`[len(datasets)]` but is {np.shape(weights)}.")
            kept = [(d, w) for d, w in zip(datasets, weights) if not (isinstance(w, (int, float)) and w == 0)]
            datasets, given = [d for d, _ in kept], [w for _, w in kept]
        tensor = _dispatch.convert_to_tensor(given)
        if _dtypes.of_array(tensor.array) not in (_dtypes.float32, _dtypes.float64):
            raise TypeError(f"Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` but is "
                            f"{_dtypes.of_array(tensor.array)!r}.")
        if tensor.array.shape != (len(datasets),):
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with `[len(datasets)]` "
                             f"but is {tensor.shape}.")
        with np.errstate(divide="ignore"):
            logits = np.log(tensor.array)[np.newaxis]
    if len(datasets) == 1:
        return datasets[0]
    selector = _SampleSelector(_dispatch.wrap(logits), seed, rerandomize_each_iteration)
    return DirectedInterleaveDataset(selector, datasets, stop_on_empty_dataset)
