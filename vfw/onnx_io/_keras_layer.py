"""An imported ONNX model as a Keras layer with trainable weights.

:func:`to_keras_layer` imports the model (without constant folding: the weights stay the file's
initializers) and wraps its engine graph in a ``keras.layers.Layer``: each initializer becomes a
weight of the layer (float ones trainable, except batch norm's running statistics, scalars and settings
such as ReLU6's bounds: see ``initializer_roles``; others not),
named after the initializer with ``.`` and ``/`` replaced by ``_`` (Keras forbids ``/`` in weight
names).  ``call`` runs the graph op by
op through the eager executor with the weights' values, so a ``tf.GradientTape`` differentiates
it, Keras trains it, and ``vfw.onnx_io.export`` traces a model holding it again.
"""

import base64
import re

import vfw.tensorflow as tf
from vfw.core.graph.subgraph import run_graph
from vfw.core.ir import proto_to_tensor
from vfw.core.proto import GraphDef
from vfw.onnx_io._import import initializer_roles


@tf.keras.saving.register_keras_serializable(package="vfw")
class OnnxLayer(tf.keras.layers.Layer):
    """An ONNX graph as a Keras layer (see :func:`vfw.onnx_io.to_keras_layer`).

    Calling it takes one tensor per model input (a list when the model has several) and returns
    one tensor per output (a list when several).

    Attributes
    ----------
    input_names, output_names : list[str]
        The model's input and output names.
    initializer_names : list[str]
        The ONNX name of each weight, in the order of ``weights``.
    """

    def __init__(self, graph, input_names, output_names, **kwargs):
        super().__init__(**kwargs)
        self._source = graph.SerializeToString()  # for get_config: a saved model rebuilds the layer from it
        graph, roles = initializer_roles(graph)
        runnable = GraphDef()
        runnable.CopyFrom(graph)
        del runnable.initializer[:]
        self._held = []
        taken = set()
        for proto in graph.initializer:
            value = proto_to_tensor(proto)
            name = re.sub(r"[./]", "_", proto.name) or "initializer"
            while name in taken:
                name += "_"
            taken.add(name)
            self._held.append(self.add_weight(shape=value.shape, initializer=lambda shape, dtype=None, v=value: v,
                                              dtype=value.dtype.name, name=name,
                                              trainable=roles[proto.name] == "weight"))
            runnable.input.append(proto.name)
        self._graph = runnable
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        # Keras lists the trainable weights first: the names follow that order.
        by_weight = {id(w): t.name for w, t in zip(self._held, graph.initializer)}
        self.initializer_names = [by_weight[id(w)] for w in self.weights]

    def get_config(self):
        """The layer's config: its graph (serialized, base64) and names; Keras saves the weights' values."""
        return {**super().get_config(), "graph": base64.b64encode(self._source).decode("ascii"),
                "input_names": self.input_names, "output_names": self.output_names}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        graph = GraphDef()
        graph.ParseFromString(base64.b64decode(config.pop("graph")))
        return cls(graph, **config)

    def call(self, inputs):
        """Run the graph on ``inputs`` (a tensor, or a list with one tensor per model input)."""
        feeds = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(feeds) != len(self.input_names):
            raise ValueError(f"OnnxLayer {self.name!r} takes {len(self.input_names)} input(s) "
                             f"({', '.join(self.input_names)}), got {len(feeds)}")
        feeds = [tf.convert_to_tensor(x) for x in feeds] + [tf.convert_to_tensor(w) for w in self._held]
        results = run_graph(self._graph, feeds)
        return results[0] if len(results) == 1 else list(results)


def to_keras_layer(model, name=None):
    """Wrap an ONNX model as a Keras layer whose initializers are weights.

    Parameters
    ----------
    model : str, os.PathLike, bytes, file object, onnx.ModelProto or ImportedModel
        An :class:`~vfw.onnx_io.ImportedModel` is wrapped as it is; anything else is imported
        without folding.
    name : str, optional
        The layer's name.

    Returns
    -------
    OnnxLayer
    """
    from vfw.onnx_io._import import ImportedModel, load

    imported = model if isinstance(model, ImportedModel) else load(model, opt_level=0)
    return OnnxLayer(imported.self_contained_graph(), imported.input_names, imported.output_names, name=name)
