"""Transformations that run user functions: map, filter, flat_map, interleave, scan, take_while, reduce.

How a function meets the elements, against TF 2.21:

- **When the transformation is made**, TF traces the function once into a graph on symbolic
  tensors of the element spec: that gives the output spec, and trace-time errors (a dtype
  mismatch is a TypeError, a shape mismatch a ValueError) are raised by ``map()`` itself.  vfw
  runs the function on two stand-in elements (unknown dims sized 2, then 3; every value 0, then
  1) under a graph trace whose writes are undone, so the same errors come at the same time; the
  output dims that differ between the two runs become None (those following unknown input dims,
  and those depending on values, as ``tf.boolean_mask``'s).  Python side effects run twice then
  (TF: once).  A run that fails on the stand-in values (an assertion) is left out if the other
  succeeds.  Python ``if``/``while`` on tensors, which TF's AutoGraph converts, makes a traced run
  fail: vfw then runs the function eagerly on the stand-in instead.
- **Per element**, vfw calls the function eagerly on the element's tensors (TF runs the traced
  graph).  Results are TF's; Python side effects (``print``, counters, Python randomness) run for
  every element, where TF ran them once while tracing, and TF random ops inside draw from eager
  kernels rather than from the traced graph's ops.
- A tuple element is passed as separate arguments (exactly ``tuple``: a namedtuple or dict is
  one argument); a list the function returns is taken as a tuple, and Python values in the result
  become tensors (ints int32, floats float32...).
"""

import os

import numpy as np

from vfw.core.graph.subgraph import SubgraphTrace
from vfw.frontends.tensorflow import _dispatch, _dtypes, _function, errors
from vfw.frontends.tensorflow._tensor import Tensor, TensorBase
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _randomness
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import (
    AUTOTUNE,
    UNKNOWN,
    Dataset,
    check_not_in_function,
    int64_argument,
    iterator_error,
)
from vfw.frontends.tensorflow.data._ordering import IGNORING_ERRORS

# The stand-in elements a function is traced with: (size of unknown dims, value of every element).  Two runs
# that differ in both tell which output dims follow unknown input dims or the values.
_EXAMPLES = ((2, 0), (3, 1))
# Tried when both of those fail: their strings ("", "1") break parsers that index fields of a CSV line
# (``tf.strings.split(line, ",")[2]``); these hold 12 and 13 comma-separated digits.
_FIELD_EXAMPLES = ((2, 2), (3, 3))
# Truthy while a function runs on stand-in elements to find its output spec (the size of the stand-ins' unknown
# dims, 2 then 3): ops whose kernels need meaningful values (parsing serialized protos, decoding files) then give
# results of their static shapes (unknown dims of that size) instead of failing on the stand-ins.
ON_STAND_INS = [False]


def normalized_output(value):
    """A function's result as an element: a returned list is a tuple; leaves become tensors (datasets stay)."""
    if type(value) is list:
        value = tuple(value)
    return structure.normalize(value)


def output_components(value):
    """The flat components of a function's result (the common results without the general conversion)."""
    if type(value) is Tensor:
        return (value.array,)
    if type(value) is tuple:
        for x in value:
            if type(x) is not Tensor:
                break
        else:
            return tuple([x.array for x in value])
    return structure.components(normalized_output(value))


def _captured_values(func):
    """The values ``func`` reads from its closure cells and defaults."""
    target = getattr(func, "__func__", func)
    values = list(getattr(target, "__defaults__", None) or ())
    for cell in getattr(target, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # a cell not filled yet
            pass
    return values


def _refuse_traced_captures(func, transformation):
    """Refuse a dataset function made while a tf.function is traced that reads tensors following the call's values
    (through its closure or defaults): vfw runs it in Python, where they would keep their traced values."""
    if not _function.in_function_trace():
        return
    from vfw.core.graph.trace import current_trace
    from vfw.core.tensor import Tensor as CoreTensor
    from vfw.frontends.tensorflow import nest

    trace = current_trace()
    leaves = [leaf for value in _captured_values(func) for leaf in nest.flatten(value)]
    # Tensors the trace computed (eager tensors from outside are fixed; variables are read when the function runs).
    if trace is not None and any(isinstance(leaf, CoreTensor) and id(leaf.array) in trace._arrays
                                 and trace.varies(leaf) for leaf in leaves):
        raise NotImplementedError(f"vfw.tensorflow: the `{transformation}` function of a tf.data dataset made inside a "
                                  "tf.function reads tensors that follow the call's values; vfw runs dataset "
                                  "functions in Python, where they would keep their traced values: make the dataset "
                                  "outside the function, or pass such values through the dataset's elements")


class StructuredFunction:
    """A user function applied to dataset elements (or to ``(state, element)`` pairs).

    Parameters
    ----------
    func : callable
    input_spec : nested structure of specs
        What the function receives; a tuple is spread into positional arguments.
    transformation : str
        The transformation's name, for messages (``map``, ``filter``...).

    Attributes
    ----------
    output_spec : nested structure of TensorSpec / DatasetSpec
        The spec of the function's result (see the module docstring).
    """

    def __init__(self, func, input_spec, transformation):
        if not callable(func):
            raise ValueError(f"Argument `func` must be a callable. Received func={func} (of type {type(func)})")
        _refuse_traced_captures(func, transformation)
        self._func = func
        self._spread = type(input_spec) is tuple
        self._kernels = {}  # random kernels when no iteration is pulled (see _randomness)
        self._pack = structure.packer(input_spec)
        self._input_specs = structure.flatten(input_spec)
        self._name = transformation
        self.output_spec = self._trace()

    def __call__(self, components):
        """The function's raw result on an element given as flat components."""
        return _randomness.call(self._func, self._pack(components), self._spread, self, self._kernels)

    def _trace(self):
        specs, failures = [], []
        for examples in (_EXAMPLES, _FIELD_EXAMPLES):
            for size, fill in examples:
                try:
                    specs.append(self._example_spec(size, fill))
                except Exception as e:  # noqa: BLE001  (a check of the stand-in values may fail: TF checks per element)
                    failures.append(e)
            if specs:
                break
        if not specs:
            raise failures[0]
        merged = specs[0]
        for other in specs[1:]:
            if not structure.compatible_types(merged, other):
                raise TypeError(f"The `{self._name}` function returns different structures or dtypes for different "
                                f"inputs: {merged} and {other}.")
            merged = structure.most_specific(merged, other)
        return self._with_empty_example(merged)

    def _with_empty_example(self, merged):
        """``merged`` widened by one more stand-in whose unknown dims are empty.  TF's static shapes leave unknown
        what follows an unknown dim (``w[-1:]`` of a window: (None,)), where sizes 2 and 3 both give 1; a function
        that fails on empty elements, or returns another structure for them, is left as traced."""
        if not any(isinstance(s, TensorSpec) and (s.shape.rank is None or None in s.shape.as_list())
                   for s in self._input_specs):
            return merged
        try:
            empty = self._example_spec(0, 1)
        except Exception:  # noqa: BLE001  (as in _trace: the stand-in may fail a check TF makes per element)
            return merged
        if not structure.compatible_types(merged, empty):
            return merged
        return structure.most_specific(merged, empty)

    def _example_spec(self, size, fill):
        """The spec of the function's result on stand-in elements (unknown dims of ``size``, values ``fill``)."""
        components = [structure.example_component(s, size, fill) for s in self._input_specs]
        outer, ON_STAND_INS[0] = ON_STAND_INS[0], size  # functions may make datasets whose functions trace too
        try:
            with SubgraphTrace(f"{self._name}_function", None):
                try:
                    result = self(components)
                except errors.InvalidArgumentError as e:
                    raise _function.graph_error(e) from None
                return self._output_spec(result)
        except errors.OperatorNotAllowedInGraphError:
            return self._output_spec(self(components))  # Python control flow on tensors: AutoGraph's job in TF
        finally:
            ON_STAND_INS[0] = outer

    def _output_spec(self, result):
        if result is None:
            raise _dispatch.op_error(f"The `{self._name}` function returned None: it must return at least one "
                                     "tensor.", "MapDataset")
        return structure.structure_of(normalized_output(result))


def _run(function, components):
    """``function(components)``; None for an element that failed while an ignore_errors dataset pulls."""
    try:
        return function(components)
    except errors.OpError:
        if IGNORING_ERRORS[0]:
            return None
        raise


def _component_dtypes(specs):
    """The numpy dtype of each component of ``specs`` (None for datasets)."""
    return [s.dtype.np if isinstance(s, TensorSpec) else None for s in specs]


def _check_components(components, dtypes, specs, transformation):
    if len(components) == len(dtypes):
        for c, dtype in zip(components, dtypes):
            if dtype is not None and c.dtype != dtype:
                break
        else:
            return
    raise iterator_error(f"The `{transformation}` function returned an element that does not match the structure or "
                         f"dtypes it returned when traced ({structure.describe_types(specs)}).")


class MapDataset(Dataset):
    _tf_name = "_MapDataset"

    def __init__(self, input_dataset, map_func):
        self._input = input_dataset
        self._function = StructuredFunction(map_func, input_dataset._structure, "map")
        super().__init__(self._function.output_spec, input_dataset._cardinality, inputs=[input_dataset])

    def _iterate(self):
        function, specs = self._function, self._flat_specs
        dtypes = _component_dtypes(specs)
        for element in self._input._elements():
            result = _run(function, element)
            if result is None:
                continue
            components = output_components(result)
            _check_components(components, dtypes, specs, "map")
            yield components


class ParallelMapDataset(MapDataset):
    """``map`` with ``num_parallel_calls``: the same elements in the same order (vfw maps one at a time)."""

    _tf_name = "_ParallelMapDataset"


def _predicate(predicate, input_spec, transformation):
    function = StructuredFunction(predicate, input_spec, transformation)
    spec = function.output_spec
    if not isinstance(spec, TensorSpec) or spec.dtype != _dtypes.bool or spec.shape.rank != 0:
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return "
                         f"type is {spec}.")
    return function


def _truth(result):
    return bool(result.array if isinstance(result, Tensor) else np.asarray(result))


class FilterDataset(Dataset):
    _tf_name = "_FilterDataset"

    def __init__(self, input_dataset, predicate):
        self._input = input_dataset
        self._predicate = _predicate(predicate, input_dataset._structure, "filter")
        super().__init__(input_dataset._structure, UNKNOWN, inputs=[input_dataset])

    def _iterate(self):
        predicate = self._predicate
        for element in self._input._elements():
            result = _run(predicate, element)
            if result is not None and _truth(result):
                yield element


class TakeWhileDataset(Dataset):
    _tf_name = "_TakeWhileDataset"

    def __init__(self, input_dataset, predicate):
        self._input = input_dataset
        self._predicate = _predicate(predicate, input_dataset._structure, "take_while")
        super().__init__(input_dataset._structure, UNKNOWN, inputs=[input_dataset])

    def _iterate(self):
        for element in self._input._elements():
            if not _truth(self._predicate(element)):
                return
            yield element


def _dataset_function(map_func, input_spec, transformation):
    function = StructuredFunction(map_func, input_spec, transformation)
    if not isinstance(function.output_spec, structure.DatasetSpec):
        # TF fails with an AttributeError here (it reads a dataset attribute of the result).
        raise AttributeError(f"The `map_func` argument must return a `Dataset` object. Got "
                             f"{_value_type(function.output_spec)}.")
    return function


def _value_type(spec):
    return TensorBase if isinstance(spec, TensorSpec) else type(spec)


def _result_dataset(function, element):
    dataset = function(element)
    if not isinstance(dataset, Dataset):
        raise iterator_error(f"The `map_func` argument must return a `Dataset` object. Got {type(dataset)}.")
    return dataset


class FlatMapDataset(Dataset):
    _tf_name = "_FlatMapDataset"

    def __init__(self, input_dataset, map_func):
        self._input = input_dataset
        self._function = _dataset_function(map_func, input_dataset._structure, "flat_map")
        super().__init__(self._function.output_spec.element_spec, UNKNOWN, inputs=[input_dataset])

    def _iterate(self):
        for element in self._input._elements():
            yield from _result_dataset(self._function, element)._elements()


def default_cycle_length():
    """TF's cycle length for AUTOTUNE: the number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class InterleaveDataset(Dataset):
    """``interleave``: TF's deterministic order: ``cycle_length`` open datasets visited in turn, ``block_length``
    elements from each; an exhausted one is replaced, in its slot, by the next input element's dataset."""

    _tf_name = "_InterleaveDataset"

    def __init__(self, input_dataset, map_func, cycle_length, block_length, num_parallel_calls):
        cycle = AUTOTUNE if cycle_length is None else int64_argument(cycle_length, "cycle_length")
        block = 1 if block_length is None else int64_argument(block_length, "block_length")
        if cycle != AUTOTUNE and cycle <= 0:
            raise _dispatch.op_error("cycle_length must be greater than zero.", "InterleaveDataset")
        if block <= 0:
            raise _dispatch.op_error("block_length must be greater than zero.", "InterleaveDataset")
        if num_parallel_calls is not None:
            self._tf_name = "_ParallelInterleaveDataset"
        self._cycle_length = default_cycle_length() if cycle == AUTOTUNE else cycle
        self._block_length = block
        self._input = input_dataset
        self._function = _dataset_function(map_func, input_dataset._structure, "interleave")
        super().__init__(self._function.output_spec.element_spec, UNKNOWN, inputs=[input_dataset])

    def _iterate(self):
        return interleave(self._input._elements(), lambda element: _result_dataset(self._function, element)._elements(),
                          self._cycle_length, self._block_length)


def interleave(inputs, open_input, cycle_length, block_length):
    """TF's deterministic interleave: ``cycle_length`` slots, each holding the elements ``open_input`` gives for an
    input; the slots are visited in turn, ``block_length`` elements from each, and an exhausted slot takes the
    next input when its turn comes."""
    slots = [None] * cycle_length
    open_count = 0
    index = 0
    block = 0
    input_done = False
    while not input_done or open_count:
        current = slots[index]
        if current is not None:
            element = next(current, None)
            if element is not None:
                block += 1
                if block == block_length:
                    block, index = 0, (index + 1) % cycle_length
                yield element
                continue
            slots[index] = None
            open_count -= 1
        elif not input_done:
            source = next(inputs, None)
            if source is None:
                input_done = True
            else:
                slots[index] = open_input(source)
                open_count += 1
            continue
        block, index = 0, (index + 1) % cycle_length


def initial_state_of(initial_state):
    """``initial_state`` of ``reduce``/``scan`` as an element, and its structure."""
    state = normalized_output(initial_state)
    return state, structure.structure_of(state)


def check_state(new_spec, state_spec):
    if not structure.compatible_types(new_spec, state_spec):
        raise TypeError(f"The element types for the new state must match the initial state. Expected "
                        f"{structure.describe_types(state_spec)}; got {structure.describe_types(new_spec)}.")


class ScanDataset(Dataset):
    """``scan``: ``scan_func(state, element)`` returns ``(new_state, output)``; outputs are the elements."""

    _tf_name = "_ScanDataset"

    def __init__(self, input_dataset, initial_state, scan_func):
        self._input = input_dataset
        state, state_spec = initial_state_of(initial_state)
        self._initial = structure.components(state)
        self._state_count = len(structure.flatten(state_spec))
        self._function = StructuredFunction(scan_func, (state_spec, input_dataset._structure), "scan")
        result = self._function.output_spec
        if not isinstance(result, tuple) or len(result) != 2:
            raise TypeError("The scan function must return a pair comprising the new state and the output value.")
        check_state(result[0], state_spec)
        super().__init__(result[1], input_dataset._cardinality, inputs=[input_dataset])

    def _iterate(self):
        state = self._initial
        for element in self._input._elements():
            new_state, output = self._function(state + element)
            state = output_components(new_state)
            yield output_components(output)


def reduce(dataset, initial_state, reduce_func):
    """``Dataset.reduce``: the final state of ``reduce_func(state, element)`` over the elements."""
    from vfw.frontends.tensorflow._function import in_function_trace
    from vfw.frontends.tensorflow.data._graph_reads import graph_trace, reduce_in_graph

    if graph_trace() is not None and in_function_trace():
        return reduce_in_graph(dataset, initial_state, reduce_func)  # reads the dataset at every call
    check_not_in_function()
    state, state_spec = initial_state_of(initial_state)
    function = StructuredFunction(reduce_func, (state_spec, dataset._structure), "reduce")
    check_state(function.output_spec, state_spec)
    components = structure.components(state)
    previous = _randomness.enter_iteration({})
    try:
        for element in dataset._elements():
            components = output_components(function(components + element))
    finally:
        _randomness.leave_iteration(previous)
    return structure.packer(state_spec)(components)
