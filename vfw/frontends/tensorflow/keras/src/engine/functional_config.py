"""Configs of functional models: ``get_config`` (layers with their inbound nodes) and rebuilding from one.

Format (Keras 3): ``{"name", "trainable", "layers": [<serialized layer> + {"name", "inbound_nodes":
[{"args": [...], "kwargs": {...}}]}], "input_layers": [name, node, tensor], "output_layers": ...}``;
KerasTensors in node arguments are ``{"class_name": "__keras_tensor__", "config": {"shape", "dtype",
"keras_history": [layer name, node index, tensor index]}}`` with node indices counted among the
nodes that belong to the model.
"""

import copy
import inspect

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine import symbolic_ops
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasHistory, KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.operation import Operation


def _serialization():
    from vfw.frontends.tensorflow.keras.src.utils import serialization

    return serialization


def internal_objects():
    """Classes configs name by Keras' internal module paths (``keras.src.models.functional.Functional``,
    the operators' operations): what deserializing a model config needs besides the public names."""
    from vfw.frontends.tensorflow.keras.src import ops  # noqa: F401  (defines every keras.ops operation class)
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
    from vfw.frontends.tensorflow.keras.src.ops._common import OPERATION_CLASSES

    return {"Functional": Functional, **OPERATION_CLASSES, **symbolic_ops.CLASSES}


def functional_like_constructor(cls):
    """Whether ``cls``'s constructor takes a functional model's arguments (so configs can rebuild it)."""
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

    spec = inspect.getfullargspec(cls.__init__)
    if spec.args[1:] == inspect.getfullargspec(Functional.__init__).args[1:]:
        return True
    return spec.varargs is not None and spec.varkw is not None


def get_config(model):
    """The config of a functional model (see the module docstring)."""
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional, node_key
    from vfw.frontends.tensorflow.keras.src.engine.model import Model

    if not functional_like_constructor(type(model)):
        return Model.get_config(model)
    serialize = _serialization().serialize_keras_object
    config = {"name": model.name, "trainable": model.trainable}
    reindex = {}
    for operation in model.operations:
        kept = 1 if isinstance(operation, Functional) else 0  # a functional model's own first node
        for index in range(len(operation._inbound_nodes)):
            key = node_key(operation, index)
            if key in model._nodes:
                reindex[key] = kept
                kept += 1
    layers = []
    for operation in model.operations:
        nodes = []
        for index, node in enumerate(operation._inbound_nodes):
            if node_key(operation, index) in model._nodes:
                data = _serialize_node(node, model._nodes)
                if data is not None:
                    nodes.append(data)
        layer_config = serialize(operation)
        layer_config["name"] = operation.name
        layer_config["inbound_nodes"] = nodes
        layers.append(layer_config)
    config["layers"] = layers

    def tensor_config(x):
        operation, index, tensor_index = x._keras_history
        return [operation.name, reindex[node_key(operation, index)], tensor_index]

    config["input_layers"] = nest.map_structure(tensor_config, model._inputs_struct)
    config["output_layers"] = nest.map_structure(tensor_config, model._outputs_struct)
    return copy.deepcopy(config)


def _serialize_node(node, own_nodes):
    from vfw.frontends.tensorflow.keras.src.engine.functional import node_key

    if not node.input_tensors:
        return None
    serialize = _serialization().serialize_keras_object

    def tensor(x):
        if not isinstance(x, KerasTensor):
            return x
        operation, index, tensor_index = x._keras_history
        skipped = sum(1 for i in range(index) if node_key(operation, i) not in own_nodes)
        x._keras_history = KerasHistory(operation, index - skipped, tensor_index)
        try:
            return serialize(x)
        finally:
            x._keras_history = KerasHistory(operation, index, tensor_index)

    args = nest.map_structure(tensor, node.arguments.args)
    kwargs = nest.map_structure(tensor, node.arguments.kwargs)
    return {"args": serialize(args), "kwargs": serialize(kwargs)}


def from_config(cls, config, custom_objects=None):
    """A functional model (of class ``cls``) rebuilt from ``get_config``'s output."""
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

    serialization = _serialization()
    layer_data = config.pop("layers")  # the keys are taken out of ``config`` (as Keras does)
    input_layers, output_layers = config.pop("input_layers"), config.pop("output_layers")
    name, trainable = config.pop("name", None), config.pop("trainable", None)
    created, pending = {}, {}
    custom_objects = {**internal_objects(), **(custom_objects or {})}
    for data in layer_data:
        layer = serialization.deserialize_keras_object(data, custom_objects=custom_objects)
        if not isinstance(layer, Operation):
            raise ValueError(f"Unexpected object from deserialization, expected a layer or operation, got a "
                             f"{type(layer)}")
        created[data["name"]] = layer
        if data["inbound_nodes"]:
            pending[data["name"]] = list(data["inbound_nodes"])
    while pending:
        progressed = False
        for data in layer_data:
            nodes = pending.get(data["name"])
            if not nodes:
                continue
            layer = created[data["name"]]
            while nodes:
                try:
                    args, kwargs = _deserialize_node(nodes[0], created)
                except IndexError:
                    break  # an inbound node does not exist yet
                layer(*args, **kwargs)
                nodes.pop(0)
                progressed = True
            if not nodes:
                del pending[data["name"]]
        if not progressed:
            raise ValueError("Invalid Functional model configuration. The graph of the Functional model either has "
                             f"loops or disconnected nodes. The following nodes failed to be resolved: {pending}")

    def tensor(layer_name, node_index, tensor_index):
        if layer_name not in created:
            raise RuntimeError(f"Internal error: could not find layer {layer_name}.")
        layer = created[layer_name]
        if isinstance(layer, Functional):
            node_index -= 1  # functional models start with a node of their own
        return layer._inbound_nodes[node_index].output_tensors[tensor_index]

    def tensors(data):
        if isinstance(data, list) and len(data) == 3 and isinstance(data[0], str):
            return tensor(*data)
        if isinstance(data, dict):
            return {k: tensors(v) for k, v in data.items()}
        if isinstance(data, tuple):
            return tuple(tensors(v) for v in data)
        return [tensors(v) for v in data]

    return cls(inputs=tensors(input_layers), outputs=tensors(output_layers), name=name, trainable=trainable, **config)


def _deserialize_node(data, created):
    """``(args, kwargs)`` of a serialized node, its KerasTensors resolved to the created layers' outputs."""
    serialization = _serialization()
    args = serialization.deserialize_keras_object(data["args"])
    kwargs = serialization.deserialize_keras_object(data["kwargs"])

    def resolve(x):
        if not isinstance(x, KerasTensor):
            return x
        history = getattr(x, "_pre_serialization_keras_history", None)
        if history is None:
            return x
        layer = created.get(history[0])
        if layer is None:
            raise ValueError(f"Unknown layer: {history[0]}")
        if len(layer._inbound_nodes) <= history[1]:
            raise IndexError(f"Layer node index out of bounds.\ninbound_layer = {layer}\ninbound_node_index = "
                             f"{history[1]}")
        return layer._inbound_nodes[history[1]].output_tensors[history[2]]

    return nest.map_structure(resolve, args), nest.map_structure(resolve, kwargs)
