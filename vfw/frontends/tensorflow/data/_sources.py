"""Source datasets: from_tensor_slices, from_tensors, range, counter, from_generator, random."""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._ragged_spec import RaggedTensorSpec
from vfw.frontends.tensorflow._shape import TensorShape, as_shape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _ragged_elements, _seeds, _sparse_elements, _tables
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import INFINITE, UNKNOWN, Dataset, int64_argument, keep_traced_value


def _element(tensors):
    """A source's element, normalized; TF's ValueError for an empty one."""
    if tensors is None or (structure.is_structure(tensors) and not structure.flatten(tensors)):
        raise ValueError("Invalid `element`. `element` should not be empty.")
    value = structure.normalize(tensors)
    for leaf in structure.flatten(value):
        if not structure.is_dataset(leaf):
            keep_traced_value(leaf, "tensors")
    return value


class TensorSliceDataset(Dataset):
    """``Dataset.from_tensor_slices``: the rows of every component, side by side."""

    _tf_name = "_TensorSliceDataset"

    def __init__(self, tensors):
        value = _element(tensors)
        columns = []  # arrays, and ragged tensors (sliced into rows one element at a time)
        for leaf in structure.flatten(value):
            if structure.is_dataset(leaf):
                raise TypeError("`from_tensor_slices` does not support datasets as components; use "
                                "`Dataset.from_tensors`.")
            column = _ragged_elements.component(leaf)
            if isinstance(column, SparseTensor):
                _sparse_elements.check_sliceable(column)
            if column.ndim == 0 if isinstance(column, np.ndarray) else False:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            rows = _ragged_elements.nrows(column)
            if columns and rows != _ragged_elements.nrows(columns[0]):
                raise ValueError(f"Dimensions {_ragged_elements.nrows(columns[0])} and {rows} are not compatible")
            columns.append(column)
        spec = structure.map_structure(_slice_spec, value)
        self._rows = _ragged_elements.nrows(columns[0])
        self._columns = columns
        ragged = _ragged_elements.has_ragged(structure.flatten(spec))
        sparse = any(isinstance(c, SparseTensor) for c in columns)
        super().__init__(spec, self._rows, None if ragged or sparse else _tables.SliceTable(columns))

    def _indices(self):
        if self._rows:
            yield range(0, self._rows)

    def _iterate(self):
        for i in range(self._rows):
            yield tuple([_ragged_elements.row(c, i) for c in self._columns])


def _slice_spec(leaf):
    """The spec of the slices of a source leaf (a ragged tensor's rows have one ragged rank less)."""
    if isinstance(leaf, RaggedTensor):
        return RaggedTensorSpec.from_value(leaf).unbatched()
    if isinstance(leaf, SparseTensor):
        return _sparse_elements.slice_spec(leaf)
    return TensorSpec(leaf.array.shape[1:], _dtypes.of_array(leaf.array))


class TensorDataset(Dataset):
    """``Dataset.from_tensors``: one element."""

    _tf_name = "_TensorDataset"

    def __init__(self, tensors):
        value = _element(tensors)
        self._components = structure.components(value)
        table = None
        if all(isinstance(c, np.ndarray) for c in self._components):
            table = _tables.SliceTable([c[np.newaxis] for c in self._components])
        super().__init__(structure.structure_of(value), 1, table)

    def _indices(self):
        yield range(0, 1)

    def _iterate(self):
        yield self._components


class ElementsDataset(Dataset):
    """A dataset of given flat elements (the windows of ``window``, stand-ins while tracing functions)."""

    _tf_name = "_VariantDataset"

    def __init__(self, element_spec, elements):
        self._items = elements
        super().__init__(element_spec, len(elements))

    def _iterate(self):
        return iter(self._items)


def empty_dataset(element_spec):
    """An empty dataset of elements ``element_spec``."""
    return ElementsDataset(element_spec, [])


class RangeDataset(Dataset):
    """``Dataset.range(stop)`` / ``range(start, stop[, step])``."""

    _tf_name = "_RangeDataset"

    def __init__(self, *args, output_type=_dtypes.int64, name=None):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        values = [int64_argument(a, "range") for a in args]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (values + [1])[:3]
        if step == 0:
            raise _dispatch.op_error("step must be a non-zero integer.", "RangeDataset")
        self._range = range(start, stop, step)
        dtype = _dtypes.as_dtype(output_type)
        super().__init__(TensorSpec([], dtype), len(self._range), _tables.RangeTable(start, step, dtype.np))

    def _indices(self):
        if len(self._range):
            yield range(0, len(self._range))


class CounterDataset(Dataset):
    """``Dataset.counter``: ``start``, ``start + step``... forever."""

    _tf_name = "_ScanDataset"

    def __init__(self, start, step, dtype):
        dtype = _dtypes.as_dtype(dtype)
        start = int(_dispatch.convert_to_tensor(start, dtype=dtype).array)
        step = int(_dispatch.convert_to_tensor(step, dtype=dtype).array)
        super().__init__(TensorSpec([], dtype), INFINITE, _tables.RangeTable(start, step, dtype.np))

    def _indices(self):
        return _tables.count_chunks()


class RandomDataset(Dataset):
    """``Dataset.random``: TF's stream of 32-bit words as int64 values, forever.

    Seeded as ``shuffle`` is (see ``_seeds``): each iteration draws its seeds from the dataset's
    seed generator when ``rerandomize_each_iteration`` is true, else uses the op seeds as they are.
    """

    _tf_name = "_RandomDataset"

    def __init__(self, seed, rerandomize_each_iteration):
        self._seeds = _seeds.SeedGenerator(seed, bool(rerandomize_each_iteration))
        super().__init__(TensorSpec([], _dtypes.int64), INFINITE)

    def _iterate(self):
        words = _seeds.words(*self._seeds.iteration_seeds())
        for word in words:
            yield (np.array(word, np.int64),)


# -- from_generator -----------------------------------------------------------------------------------------
def _generator_signature(output_types, output_shapes, output_signature):
    if output_signature is not None:
        if output_types is not None:
            raise TypeError("The `output_types` argument can not be used together with the `output_signature` "
                            "argument.")
        if output_shapes is not None:
            raise TypeError("The `output_shapes` argument can not be used together with the `output_signature` "
                            "argument.")
        for spec in structure.flatten(output_signature):
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` but "
                                f"found {type(spec)} which is not.")
        return output_signature
    if output_types is None:
        raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                        "argument or the `output_types` argument.")
    dtypes = structure.map_structure(_dtypes.as_dtype, output_types)
    if output_shapes is None:
        return structure.map_structure(lambda d: TensorSpec(None, d), dtypes)
    flat_shapes = _shapes_like(dtypes, output_shapes)
    return structure.pack(dtypes, [TensorSpec(s, d) for s, d in zip(flat_shapes, structure.flatten(dtypes))])


def _shapes_like(dtypes, output_shapes):
    """The shapes of ``output_shapes`` at the leaves of ``dtypes`` (a list or TensorShape is one shape)."""
    if not structure.is_structure(dtypes):
        return [as_shape(output_shapes)]
    if isinstance(dtypes, tuple):
        return [s for d, x in zip(dtypes, output_shapes) for s in _shapes_like(d, x)]
    return [s for key in sorted(dtypes) for s in _shapes_like(dtypes[key], output_shapes[key])]


def _generator_error(message, cause):
    """TF's error for an exception raised in the generator (a py_func's: TypeError/ValueError become
    InvalidArgumentError, others UnknownError)."""
    error = errors.InvalidArgumentError if isinstance(cause, (TypeError, ValueError)) else errors.UnknownError
    return _dispatch.op_error(message, "IteratorGetNext", error)


def _converted(value, spec):
    """A yielded leaf as an array of ``spec``'s dtype: numpy's array of it, cast (out-of-range ints wrap and
    floats truncate, as in TF)."""
    if spec.dtype == _dtypes.string:
        array = np.asarray(value, dtype=object)
        flat = array.reshape(-1)
        for i, item in enumerate(flat):
            if isinstance(item, str):
                flat[i] = item.encode("utf-8")
            elif isinstance(item, np.bytes_):
                flat[i] = bytes(item)
            elif not isinstance(item, bytes):
                raise _dispatch.op_error(f"Unsupported object type {type(item).__name__}", "IteratorGetNext",
                                         errors.InternalError)
        return array
    try:
        return np.asarray(value).astype(spec.dtype.np, copy=False)
    except (TypeError, ValueError) as e:
        raise _generator_error(f"TypeError: `generator` yielded an element that could not be converted to the "
                               f"expected type. The expected type was {spec.dtype.name}, but the yielded element "
                               f"was {value}.", e) from e


def _leaves_like(spec, value):
    """The leaves of a yielded ``value`` at the positions of ``spec``'s leaves (TypeError when they differ)."""
    if not structure.is_structure(spec):
        return [value]
    if isinstance(spec, tuple):
        if not isinstance(value, tuple) or len(value) != len(spec):
            raise TypeError
        return [leaf for s, v in zip(spec, value) for leaf in _leaves_like(s, v)]
    if not isinstance(value, dict) or set(value) != set(spec):
        raise TypeError
    return [leaf for key in sorted(spec) for leaf in _leaves_like(spec[key], value[key])]


class GeneratorDataset(Dataset):
    """``Dataset.from_generator``: the elements a Python generator yields, checked against the signature.

    Every iteration calls ``generator(*args)`` afresh (``args`` converted to tensors and passed as
    numpy values, as TF does).  A yielded element is converted with numpy to the signature's
    dtypes; a structure, dtype or shape mismatch, and an exception the generator raises, become
    the errors TF's iterator raises (InvalidArgumentError for TypeError/ValueError, else
    UnknownError).
    """

    _tf_name = "_FlatMapDataset"

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        signature = _generator_signature(output_types, output_shapes, output_signature)
        self._generator = generator
        self._args = () if args is None else tuple(_dispatch.convert_to_tensor(a).numpy() for a in args)
        super().__init__(signature, UNKNOWN)

    def _iterate(self):
        spec = self._structure
        flat_specs = self._flat_specs
        source = iter(self._generator(*self._args))
        while True:
            try:
                value = next(source)
            except StopIteration:
                return
            except Exception as e:  # noqa: BLE001  (the generator's exceptions become TF's iterator errors)
                raise _generator_error(f"{type(e).__name__}: {e}", e) from e
            try:
                leaves = _leaves_like(spec, value)
            except TypeError as e:
                raise _generator_error(f"TypeError: `generator` yielded an element that did not match the expected "
                                       f"structure. The expected structure was {structure.describe_types(spec)}, "
                                       f"but the yielded element was {value}.", e) from None
            arrays = []
            for leaf, leaf_spec in zip(leaves, flat_specs):
                array = _converted(leaf, leaf_spec)
                if not leaf_spec.shape.is_compatible_with(TensorShape(array.shape)):
                    raise _generator_error(f"TypeError: `generator` yielded an element of shape {array.shape} where "
                                           f"an element of shape {leaf_spec.shape} was expected.", TypeError())
                arrays.append(array)
            yield tuple(arrays)
