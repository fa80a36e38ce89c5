"""Functional models: ``keras.Model(inputs, outputs)`` over the graph of layer calls on KerasTensors.

The graph is read back from the outputs' ``_keras_history`` (``map_graph``): nodes get depths
(outputs 0, growing toward the inputs) and the operations are ordered by decreasing depth, then by
the order a depth-first walk from the outputs first reaches them (Keras' order of ``model.layers``).
Calling the model runs the nodes from the deepest to depth 0 on the given values (``training``
passed to the layers that take it); calling it on KerasTensors records one node for the whole model.
"""

import collections

import vfw.frontends.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine import layer_call, tracking
from vfw.frontends.tensorflow.keras.src.engine.input_layer import InputLayer
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.model import Model
from vfw.frontends.tensorflow.keras.src.engine.trainer import Trainer


class Functional(Model):
    """A model defined by its input and output KerasTensors (nested lists/dicts allowed).

    Parameters
    ----------
    inputs, outputs : KerasTensor or nested structure of KerasTensors
    name : str, optional
    trainable : bool, optional
    """

    def __init__(self, inputs, outputs, name=None, **kwargs):
        if isinstance(inputs, dict):
            for key, value in inputs.items():
                if isinstance(value, KerasTensor) and key != value.name:
                    warn_for_user("When providing `inputs` as a dict, all keys in the dict must match the names of the "
                                  f"corresponding tensors. Received key '{key}' mapping to value {value} which has "
                                  f"name '{value.name}'. Change the tensor name to '{key}' (via `Input(..., "
                                  f"name='{key}')`)")
        trainable = kwargs.pop("trainable", None)
        for label, structure in (("inputs", inputs), ("outputs", outputs)):
            for x in nest.flatten(structure):
                if not isinstance(x, KerasTensor):
                    raise ValueError(f"All `{label}` values must be KerasTensors. Received: {label}={structure} "
                                     f"including invalid value {x} of type {type(x)}")
        Trainer.__init__(self)
        Layer.__init__(self, name=name, **kwargs)
        with tracking.no_tracking():
            self._inputs_struct = nest.map_structure(lambda x: x, inputs)
            self._outputs_struct = nest.map_structure(lambda x: x, outputs)
            self._inputs = nest.flatten(inputs)
            self._outputs = nest.flatten(outputs)
            if not self._inputs:
                raise ValueError(f"`inputs` argument cannot be empty. Received:\ninputs={inputs}\noutputs={outputs}")
            if not self._outputs:
                raise ValueError(f"`outputs` argument cannot be empty. Received:\ninputs={inputs}\noutputs={outputs}")
            self._nodes, self._nodes_by_depth, self._operations, self._operations_by_depth = map_graph(
                self._inputs, self._outputs)
            self._run_through_graph([None] * len(self._inputs), lambda op: _no_outputs(op))
        if trainable is not None:
            self.trainable = trainable
        for layer in self.layers:
            self._tracker.track(layer)
        self.build(None)
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.output_names = [x._keras_history[0].name for x in self._outputs]

    def _lock_state(self):
        pass  # layers may be attached to a functional model after it is built

    def _obj_type(self):
        return "Functional"

    @property
    def operations(self):
        """list: every operation of the graph, in order."""
        return self._operations[:]

    @property
    def layers(self):
        """list: the layers of the graph (InputLayers included), in order."""
        return [op for op in self._operations if isinstance(op, Layer)]

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Model.layers` attribute is reserved and should not be used. Please use another name.")

    @property
    def inputs(self):
        """list: the input KerasTensors, flat."""
        return self._inputs

    @property
    def outputs(self):
        """list: the output KerasTensors, flat."""
        return self._outputs

    @property
    def input(self):
        """The inputs in the structure given to the constructor."""
        return self._inputs_struct

    @property
    def output(self):
        """The outputs in the structure given to the constructor."""
        return self._outputs_struct

    @property
    def input_shape(self):
        shapes = [x.shape for x in self._inputs]
        return shapes[0] if len(shapes) == 1 else nest.pack_sequence_as(self._inputs_struct, shapes)

    @property
    def output_shape(self):
        shapes = [x.shape for x in self._outputs]
        return shapes[0] if len(shapes) == 1 else nest.pack_sequence_as(self._outputs_struct, shapes)

    def build(self, input_shape):
        self.built = True

    # -- running -------------------------------------------------------------------------------------------
    def call(self, inputs, training=None, mask=None, **kwargs):
        inputs = self._standardize_inputs(inputs)
        if mask is not None:
            for x, m in zip(inputs, nest.flatten(mask)):
                if m is not None:
                    layer_call.set_keras_mask(x, m)
        outputs = self._run_through_graph(inputs, lambda op: _with_context(op, training=training, **kwargs))
        return outputs[0] if isinstance(outputs, (list, tuple)) and len(outputs) == 1 else outputs

    def compute_output_spec(self, inputs, training=None, mask=None):
        if all(tuple(x.shape) == ref.shape for x, ref in zip(nest.flatten(inputs), self._inputs)):
            return nest.map_structure(lambda x: KerasTensor(x.shape, dtype=x.dtype), self._outputs_struct)
        return self._run_through_graph(nest.flatten(inputs), lambda op: op.compute_output_spec)

    def compute_output_shape(self, input_shape):
        specs = [KerasTensor(s, dtype=ref.dtype) for s, ref in zip(_flat_shapes(input_shape), self._inputs)]
        return nest.map_structure(lambda x: x.shape, self.compute_output_spec(specs))

    def _run_through_graph(self, inputs, operation_fn):
        """The outputs (in the output structure) of the graph on the flat ``inputs``."""
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
        if isinstance(self._outputs_struct, KerasTensor):
            return results[0]
        return nest.pack_sequence_as(self._outputs_struct, results)

    def _standardize_inputs(self, inputs):
        """The call's inputs, flat, as tensors of the inputs' dtypes, matched to the model's input structure."""
        struct = self._inputs_struct
        mismatch = False
        if isinstance(inputs, tf.Tensor) and (isinstance(struct, KerasTensor) or (
                isinstance(struct, list) and len(struct) == 1)):  # one tensor for one input: no structure to check
            return [self._adjusted_rank(self._converted(inputs, self._inputs[0]), 0)]
        if isinstance(struct, list) and len(struct) == 1 and tf.is_tensor(inputs):
            inputs = [inputs]
        elif isinstance(inputs, dict) and not isinstance(struct, dict):
            if isinstance(struct, (list, tuple)) and all(isinstance(x, KerasTensor) for x in struct):
                names = [x.name for x in struct]
                mismatch = not set(names).issubset(inputs)
                inputs = inputs if mismatch else [inputs[n] for n in names]
            elif isinstance(struct, KerasTensor):
                mismatch = struct.name not in inputs
                inputs = inputs if mismatch else [inputs[struct.name]]
            else:
                mismatch = True
        if isinstance(struct, dict) and not isinstance(inputs, dict) and list(struct) != sorted(struct):
            mismatch = True
        self._check_structure(inputs, mismatch)
        flat = [self._converted(x, ref) for x, ref in zip(nest.flatten(inputs), self._inputs)]
        return [self._adjusted_rank(x, i) for i, x in enumerate(flat)]

    def _check_structure(self, inputs, raise_error):
        try:
            nest.assert_same_structure(_lists_to_tuples(inputs), _lists_to_tuples(self._inputs_struct),
                                       check_types=False)
        except (ValueError, TypeError):
            expected = nest.map_structure(lambda x: "None" if x is None else x.name, self._inputs_struct)
            received = nest.map_structure(lambda x: "None" if x is None else f"Tensor(shape={x.shape})", inputs)
            message = ("The structure of `inputs` doesn't match the expected structure.\nExpected: "
                       f"{expected}\nReceived: inputs={received}")
            if raise_error:
                raise ValueError(message) from None
            warn_for_user(message)

    def _converted(self, x, ref):
        if x is None:
            layer = ref._keras_history[0]
            if isinstance(layer, InputLayer) and not layer.optional:
                raise ValueError(f"The input '{ref.name}' is not optional, but None was passed. Please provide a "
                                 "valid tensor.")
            return x
        mask = layer_call.get_keras_mask(x)
        if isinstance(x, tf.Tensor):
            converted = x
        elif hasattr(x, "_as_tensor") or ref.dtype == "bool" or "int" in ref.dtype:
            converted = tf.convert_to_tensor(x)  # then cast: TF refuses to convert floats to ints
        else:
            converted = tf.convert_to_tensor(x, dtype=ref.dtype)
        if converted.dtype.name != ref.dtype:
            converted = tf.cast(converted, ref.dtype)
        if mask is not None and converted is not x:
            layer_call.set_keras_mask(converted, mask)
        return converted

    def _adjusted_rank(self, x, index):
        if x is None:
            return x
        ref_shape = self._inputs[index].shape
        rank, ref_rank = len(x.shape), len(ref_shape)
        if rank == ref_rank:
            return x
        mask = layer_call.get_keras_mask(x)
        if rank == ref_rank + 1 and x.shape[-1] == 1:
            adjusted = tf.squeeze(x, axis=-1)
        elif rank == ref_rank - 1 and ref_shape[-1] == 1:
            adjusted = tf.expand_dims(x, axis=-1)
        else:
            path = ".".join(str(p) for p in _paths(self._inputs_struct)[index])
            raise ValueError(f"Invalid input shape for input {x} with name '{self._inputs[index].name}' and path "
                             f"'{path}'. Expected shape {ref_shape}, but input has incompatible shape {x.shape}")
        if mask is not None:
            layer_call.set_keras_mask(adjusted, mask)
        return adjusted

    def _assert_input_compatibility(self, first_arg):
        for x, ref in zip(nest.flatten(first_arg), self._inputs):
            layer = getattr(ref, "_keras_history", (None,))[0]
            if x is None and isinstance(layer, InputLayer) and not layer.optional:
                raise ValueError(f"The input '{ref.name}' is not optional, but None was passed. Please provide a "
                                 "valid tensor.")
        Layer._assert_input_compatibility(self, first_arg)

    @property
    def input_spec(self):
        if "_manual_input_spec" in self.__dict__:
            return self._manual_input_spec
        if "_input_spec_cache" not in self.__dict__:
            object.__setattr__(self, "_input_spec_cache", self._graph_input_spec())
        return self._input_spec_cache

    def _graph_input_spec(self):
        """InputSpecs of the graph inputs (batch dim free, last axis squeezable), by name for dict inputs."""

        def spec(x, name=None):
            layer = x._keras_history[0]
            shape = list(x.shape)
            if shape:
                shape[0] = None
            return InputSpec(shape=tuple(shape), allow_last_axis_squeeze=True,
                             name=layer.name if name is None else name,
                             optional=isinstance(layer, InputLayer) and layer.optional)

        if isinstance(self._inputs_struct, dict):
            if all(isinstance(x, KerasTensor) for x in self._inputs_struct.values()):
                return [spec(self._inputs_struct[name], name) for name in sorted(self._inputs_struct)]
            return None
        return [spec(x) for x in self._inputs]

    @input_spec.setter
    def input_spec(self, value):
        self._manual_input_spec = value

    def add_loss(self, loss):
        raise NotImplementedError

    def get_config(self):
        from vfw.frontends.tensorflow.keras.src.engine import functional_config

        return functional_config.get_config(self)


Functional.__module__ = "keras.src.models.functional"  # Keras' module: model configs name the class by it


# -- graph construction ------------------------------------------------------------------------------------
def node_key(operation, node_index):
    return f"{id(operation)}_ib-{node_index}"


def map_graph(inputs, outputs):
    """``(node keys, nodes by depth, operations, operations by depth)`` of the graph from ``inputs`` to ``outputs``."""
    ordered_nodes, first_seen = _nodes_in_order(inputs, outputs)
    in_graph = set(ordered_nodes)
    keys = {node_key(n.operation, n.operation._inbound_nodes.index(n)) for n in ordered_nodes}
    node_depths, op_depths = {}, {}
    for node in reversed(ordered_nodes):
        depth = max(node_depths.setdefault(node, 0), op_depths.get(node.operation, 0))
        op_depths[node.operation] = depth
        node_depths[node] = depth
        for parent in node.parent_nodes:
            if parent in in_graph:
                node_depths[parent] = max(depth + 1, node_depths.get(parent, 0))
    for x in inputs:  # inputs no output depends on still belong to the graph
        operation, index, _ = x._keras_history
        if operation is not None and operation not in op_depths and operation._inbound_nodes[index].is_input:
            op_depths[operation] = 0
            first_seen[operation] = -1
            node_depths[operation._inbound_nodes[index]] = 0
            keys.add(node_key(operation, index))
    nodes_by_depth = collections.defaultdict(list)
    for node, depth in node_depths.items():
        nodes_by_depth[depth].append(node)
    ops_by_depth = collections.defaultdict(list)
    for operation, depth in op_depths.items():
        ops_by_depth[depth].append(operation)
    operations = []
    for depth in sorted(ops_by_depth, reverse=True):
        operations.extend(sorted(ops_by_depth[depth], key=lambda op: first_seen[op]))
    _check_connected(inputs, nodes_by_depth)
    names = [op.name for op in operations]
    for name in names:
        if names.count(name) != 1:
            raise ValueError(f'The name "{name}" is used {names.count(name)} times in the model. All operation names '
                             "should be unique.")
    return keys, nodes_by_depth, operations, ops_by_depth


def _nodes_in_order(inputs, outputs):
    """The nodes between ``inputs`` and ``outputs`` in topological order (depth first from the outputs),
    and the order in which the walk first reached each operation."""
    finished, in_progress, ordered, first_seen = set(), set(), [], {}
    input_ids = {id(x) for x in inputs}

    def visit(tensor):
        operation, index, _ = tensor._keras_history
        if not operation:
            return
        node = operation._inbound_nodes[index]
        if node in finished:
            return
        if not node.is_input and id(tensor) in input_ids:
            finished.add(node)
            return
        if node in in_progress:
            raise ValueError(f"Tensor {tensor} from operation '{operation.name}' is part of a cycle.")
        first_seen.setdefault(operation, len(first_seen))
        in_progress.add(node)
        if not node.is_input:
            for x in node.input_tensors:
                visit(x)
        finished.add(node)
        in_progress.remove(node)
        ordered.append(node)

    for output in outputs:
        visit(output)
    return ordered, first_seen


def _check_connected(inputs, nodes_by_depth):
    computable = {id(x) for x in inputs}
    reached = []
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            for x in node.input_tensors:
                if id(x) not in computable:
                    raise ValueError(f"Graph disconnected: cannot find parent for tensor {x} at operation "
                                     f"'{node.operation}'. The following previous operations were accessed without "
                                     f"issue: {reached}")
                reached.append(node.operation.name)
            computable.update(id(x) for x in node.outputs)


# -- helpers -------------------------------------------------------------------------------------------------
def _no_outputs(operation):
    return lambda *args, **kwargs: [None] * len(nest.flatten(operation.output))


def _with_context(operation, **context):
    """``operation`` called with the context arguments (``training``) it takes, when not None."""
    def call(*args, **kwargs):
        for name, value in context.items():
            if name in getattr(operation, "_call_context_args", ()) and value is not None:
                kwargs[name] = value
        return operation(*args, **kwargs)

    return call


def _flat_shapes(shape):
    if isinstance(shape, (tuple, list)) and all(d is None or isinstance(d, int) for d in shape):
        return [tuple(shape)]
    if isinstance(shape, dict):
        return [s for key in sorted(shape) for s in _flat_shapes(shape[key])]
    return [s for item in shape for s in _flat_shapes(item)]


def _paths(structure, prefix=()):
    """The path (keys and indices) of each leaf of ``structure``, in flattening order."""
    if isinstance(structure, dict):
        return [p for key in sorted(structure) for p in _paths(structure[key], prefix + (key,))]
    if isinstance(structure, (list, tuple)):
        return [p for i, item in enumerate(structure) for p in _paths(item, prefix + (i,))]
    return [prefix]


def _lists_to_tuples(structure):
    if isinstance(structure, dict):
        return {k: _lists_to_tuples(v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return tuple(_lists_to_tuples(x) for x in structure)
    return structure
