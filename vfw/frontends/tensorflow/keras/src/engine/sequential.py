"""``keras.Sequential``: a stack of layers, each called on the previous one's output.

With a known input shape (an ``Input`` first, a first layer given ``input_shape``, or ``build(shape)``)
the model builds a functional graph of its layers at once; otherwise it is built on its first call.
"""

import copy
import inspect

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine import layer_call
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_shape
from vfw.frontends.tensorflow.keras.src.engine.input_layer import InputLayer
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.model import Model


class Sequential(Model):
    """A linear stack of layers.

    Parameters
    ----------
    layers : list of Layer, optional
    trainable : bool
    name : str, optional
    """

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self._functional = None
        self._layers = []
        if layers:
            for layer in layers:
                self.add(layer, rebuild=False)
            self._maybe_rebuild()

    def add(self, layer, rebuild=True):
        """Append ``layer`` (an ``Input`` tensor adds its InputLayer); rebuild when the input shape is known."""
        if not self._layers and getattr(layer, "_input_shape_arg", None) is not None:
            self.add(InputLayer(shape=layer._input_shape_arg))
        history = getattr(layer, "_keras_history", None)
        if history is not None and isinstance(history[0], InputLayer):
            layer = history[0]
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential model. Received: {layer} "
                             f"(of type {type(layer)})")
        if any(other.name == layer.name and other is not layer for other in self._layers):
            raise ValueError(f"All layers added to a Sequential model should have unique names. Name '{layer.name}' "
                             "is already the name of a layer in this model. Update the `name` argument to pass a "
                             "unique name.")
        if isinstance(layer, InputLayer) and self._layers and isinstance(self._layers[0], InputLayer):
            raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                             f"{self._layers[0].batch_shape}. You cannot add a different Input layer to it.")
        self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()
        else:
            self.built = False
            self._functional = None

    def pop(self, rebuild=True):
        """Remove and return the last layer."""
        layer = self._layers.pop()
        self.built = False
        self._functional = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self):
        self.built = False
        self._functional = None
        if isinstance(self._layers[0], InputLayer) and len(self._layers) > 1:
            self.build(self._layers[0].batch_shape)
        elif hasattr(self._layers[0], "input_shape") and len(self._layers) > 1:
            self.build(self._layers[0].input_shape)

    def _lock_state(self):
        pass  # layers may be added after the model is built

    def _obj_type(self):
        return "Sequential"

    def build(self, input_shape=None):
        """Build the functional graph of the layers for inputs of ``input_shape`` (batch dim included)."""
        try:
            input_shape = standardize_shape(input_shape)
        except Exception:
            return  # no shape: built on the first call
        if not self._layers:
            raise ValueError(f"Sequential model {self.name} cannot be built because it has no layers. Call "
                             "`model.add(layer)`.")
        if isinstance(self._layers[0], InputLayer):
            if self._layers[0].batch_shape != input_shape:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                                 f"{self._layers[0].batch_shape}. You cannot build it with input_shape {input_shape}")
        else:
            self._layers = [InputLayer(batch_shape=input_shape, dtype=self._layers[0].compute_dtype)] + self._layers
        from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

        inputs = self._layers[0].output
        x = inputs
        for layer in self._layers[1:]:
            try:
                x = layer(x)
            except NotImplementedError:
                return
            except TypeError as e:
                _explain_call_signature(layer)
                raise e
        self._functional = Functional(inputs=inputs, outputs=x)
        self.built = True

    def call(self, inputs, training=None, mask=None, **kwargs):
        if self._functional is not None:
            return self._functional.call(inputs, training=training, mask=mask, **kwargs)
        outputs = inputs
        for layer in self.layers:
            layer_kwargs = {k: kwargs[k] for k in getattr(layer, "_call_has_context_arg", {}) if k in kwargs}
            if layer._call_has_mask_arg:
                layer_kwargs["mask"] = mask
            if layer._call_has_training_arg and training is not None:
                layer_kwargs["training"] = training
            outputs = layer(inputs, **layer_kwargs)
            inputs = outputs
            mask = nest.map_structure(layer_call.get_keras_mask, outputs)
        return outputs

    @property
    def layers(self):
        """list: the layers (without the InputLayer)."""
        layers = self._layers
        if layers and isinstance(layers[0], InputLayer):
            return layers[1:]
        return layers[:]

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Sequential.layers` attribute is reserved and should not be used. Use `add()` and "
                             "`pop()` to change the layers in this model.")

    def compute_output_spec(self, inputs, training=None, mask=None, **kwargs):
        if self._functional is not None:
            return self._functional.compute_output_spec(inputs, training=training, mask=mask)
        for layer in self.layers:
            inputs = layer.compute_output_spec(inputs, training=training, **kwargs)
        return inputs

    def compute_output_shape(self, input_shape):
        if self._functional is not None:
            return self._functional.compute_output_shape(input_shape)
        for layer in self.layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def _defined(self, attribute, what):
        if self._functional is not None:
            return getattr(self._functional, attribute)
        raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")

    @property
    def input_shape(self):
        return self._defined("input_shape", "input shape")

    @property
    def output_shape(self):
        return self._defined("output_shape", "output shape")

    @property
    def inputs(self):
        return self._defined("inputs", "inputs")

    @property
    def outputs(self):
        return self._defined("outputs", "outputs")

    @property
    def input_dtype(self):
        layers = self._layers
        if layers and isinstance(layers[0], InputLayer):
            return layers[0].dtype
        return super().input_dtype

    def get_config(self):
        from vfw.frontends.tensorflow.keras.src.utils import serialization

        layer_configs = [serialization.serialize_keras_object(layer) for layer in self._layers]
        config = Model.get_config(self)
        config["name"] = self.name
        config["layers"] = copy.deepcopy(layer_configs)
        if self._functional is not None:
            config["build_input_shape"] = self._layers[0].batch_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from vfw.frontends.tensorflow.keras.src.utils import serialization

        if "name" not in config:
            raise ValueError("A Sequential model configuration must be a dictionary containing the 'name' and "
                             f"'layers' keys. Received: config={config}")
        model = cls(name=config["name"])
        for layer_config in config["layers"]:
            model.add(serialization.deserialize_keras_object(layer_config, custom_objects=custom_objects))
        build_input_shape = config.get("build_input_shape")
        if model._functional is None and build_input_shape and isinstance(build_input_shape, (tuple, list)):
            model.build(build_input_shape)
        return model


def _explain_call_signature(layer):
    """Keras' ValueError when a layer's ``call`` cannot take a single input (else nothing)."""
    parameters = inspect.signature(layer.call).parameters.values()
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if not positional:
        raise ValueError("Layers added to a Sequential model should have a single positional argument, the input "
                         f"tensor. Layer {type(layer).__name__} has no positional arguments.")
    if len(required) > 1:
        raise ValueError("Layers added to a Sequential model can only have a single required positional argument, "
                         f"the input tensor. Layer {type(layer).__name__} has multiple required positional "
                         f"arguments: {required}")


API = {"keras": ["Sequential"], "models": ["Sequential"]}
