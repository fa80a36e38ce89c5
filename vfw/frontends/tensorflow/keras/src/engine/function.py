"""``keras.Function``: a stateless callable graph of operations between KerasTensors.

The graph is the one a functional model reads (``functional.map_graph``); a Function is an
``Operation``, not a layer: it tracks no variables and calling it runs each node's operation on the
given values (or KerasTensors, which records one node for the whole Function).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine.functional import _flat_shapes, _paths, map_graph
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.operation import Operation


class Function(Operation):
    """The computation from ``inputs`` to ``outputs``, callable on new values.

    Parameters
    ----------
    inputs : KerasTensor or nested structure of KerasTensors
    outputs : KerasTensor or nested structure of KerasTensors
        Computable from ``inputs`` alone.
    name : str, optional
    """

    def __init__(self, inputs, outputs, name=None):
        super().__init__(name=name)
        self._inputs_struct = nest.map_structure(lambda x: x, inputs)
        self._outputs_struct = nest.map_structure(lambda x: x, outputs)
        self._inputs = nest.flatten(inputs)
        self._outputs = nest.flatten(outputs)
        for label, flat in (("inputs", self._inputs), ("outputs", self._outputs)):
            if not flat:
                raise ValueError(f"`{label}` argument cannot be empty. Received:\ninputs={inputs}\noutputs={outputs}")
        self._nodes, self._nodes_by_depth, self._operations, self._operations_by_depth = map_graph(
            self._inputs, self._outputs)
        # Checks that every output is reachable from the inputs (raises otherwise).
        self._run_through_graph([None] * len(self._inputs),
                                lambda op: lambda *args, **kwargs: [None] * len(nest.flatten(op.output)))

    @property
    def operations(self):
        """list: the graph's operations, from the inputs toward the outputs."""
        return self._operations[:]

    @property
    def inputs(self):
        """list: the symbolic inputs, flat."""
        return self._inputs

    @property
    def outputs(self):
        """list: the symbolic outputs, flat."""
        return self._outputs

    def call(self, inputs):
        """The outputs (in the ``outputs`` structure) computed from new ``inputs`` (in the ``inputs`` structure)."""
        self._assert_input_compatibility(inputs)
        # Keras' ops turn numpy inputs into tensors of the same dtype; converting them once here keeps the
        # operators (``a + b`` nodes) from computing in numpy.
        inputs = nest.map_structure(lambda x: tf.convert_to_tensor(x) if isinstance(x, np.ndarray) else x, inputs)
        return self._run_through_graph(inputs, lambda op: op)

    def compute_output_spec(self, inputs):
        self._assert_input_compatibility(inputs)
        if all(tuple(x.shape) == tuple(ref.shape) for x, ref in zip(nest.flatten(inputs), self._inputs)):
            return nest.map_structure(lambda x: KerasTensor(x.shape, dtype=x.dtype), self._outputs_struct)
        return self._run_through_graph(inputs, lambda op: op.compute_output_spec)

    def compute_output_shape(self, input_shape):
        specs = [KerasTensor(shape, dtype=ref.dtype) for shape, ref in zip(_flat_shapes(input_shape), self._inputs)]
        specs = nest.pack_sequence_as(self._inputs_struct, specs)
        return nest.map_structure(lambda x: x.shape, self.compute_output_spec(specs))

    def _run_through_graph(self, inputs, operation_fn):
        """The graph's outputs on the flat ``inputs``; each node runs ``operation_fn(node.operation)``."""
        values = {id(x): y for x, y in zip(self._inputs, nest.flatten(inputs))}
        for depth in sorted(self._nodes_by_depth, reverse=True):
            for node in self._nodes_by_depth[depth]:
                if node.is_input or any(id(x) not in values for x in node.input_tensors):
                    continue
                args, kwargs = node.arguments.fill_in(values)
                outputs = operation_fn(node.operation)(*args, **kwargs)
                for x, y in zip(node.outputs, nest.flatten(outputs)):
                    values[id(x)] = y
        results = []
        for i, x in enumerate(self._outputs):
            if id(x) not in values:
                path = ".".join(str(p) for p in _paths(self._outputs_struct)[i])
                raise ValueError(f"Output with path `{path}` is not connected to `inputs`")
            results.append(values[id(x)])
        return nest.pack_sequence_as(self._outputs_struct, results)

    def _assert_input_compatibility(self, inputs):
        try:
            nest.assert_same_structure(inputs, self._inputs_struct)
        except (ValueError, TypeError):
            raise ValueError("Function was called with an invalid input structure. Expected input structure: "
                             f"{self._inputs_struct}\nReceived input structure: {inputs}") from None
        for x, ref in zip(nest.flatten(inputs), self._inputs):
            shape, ref_shape = tuple(x.shape), tuple(ref.shape)
            if len(shape) != len(ref_shape) or any(
                    d is not None and r is not None and d != r for d, r in zip(shape, ref_shape)):
                raise ValueError(f"{type(self).__name__} was passed incompatible inputs. For input '{ref.name}', "
                                 f"expected shape {ref_shape}, but received instead a tensor with shape {shape}.")


API = {"keras": ["Function"]}
