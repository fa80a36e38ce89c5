"""``keras.Model``: a layer with layers, ``summary``, configs and (from the ``Trainer`` mixin) training.

``keras.Model(inputs, outputs)`` builds a functional model (``Functional``); subclassing ``Model``
with ``__init__`` and ``call`` gives a subclassed model, whose layers are the tracked sublayers.

Contract for the training helper: ``Model`` inherits ``Trainer`` (``engine/trainer.py``) first, so
``compile``/``fit``/``evaluate``/``predict``/``train_step``... defined there are model methods;
``Trainer.__init__(self)`` runs at the start of ``Model.__init__``.
"""

import inspect
import json

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.operation import infer_output_spec, is_default
from vfw.frontends.tensorflow.keras.src.engine.stateless import StatelessModel
from vfw.frontends.tensorflow.keras.src.engine.trainer import Trainer


def _functional_arguments(args, kwargs):
    return len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or ("inputs" in kwargs and "outputs" in kwargs)


class Model(StatelessModel, Trainer, Layer):
    """A model: ``Model(inputs, outputs, name=None)`` (functional) or a subclass defining ``call``."""

    def __new__(cls, *args, **kwargs):
        if cls is Model and _functional_arguments(args, kwargs):
            from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        if _functional_arguments(args, kwargs):
            _inject_functional(type(self))
            from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

            Functional.__init__(self, *args, **kwargs)
            return
        Trainer.__init__(self)
        Layer.__init__(self, *args, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"Model {type(self).__name__} does not have a `call()` method implemented.")

    @property
    def layers(self):
        """list: the model's direct sublayers, in tracking order."""
        return list(self._flatten_layers(include_self=False, recursive=False))

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Model.layers` attribute is reserved and should not be used. Please use another name.")

    def get_layer(self, name=None, index=None):
        """A layer by ``name`` or by ``index`` in ``layers`` (ValueError when missing or both given)."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            layers = self.layers
            if len(layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has {len(layers)} "
                                 "layers.")
            return layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        """Print Keras' table of the model's layers, output shapes and parameter counts.

        Parameters
        ----------
        line_length : int, optional
            The table's width (default: 88, or 108 with a "Connected to" column, at most the
            terminal's width minus 4).
        positions : list of float, optional
            Right edges of the columns as fractions of the width (or absolute positions).
        print_fn : callable, optional
            Called with the whole summary text (default: printed to stdout).
        expand_nested : bool
            List the layers of nested models under them.
        show_trainable : bool
            Add a "Trainable" column.
        layer_range : (str, str), optional
            Names (regular expressions) of the first and last layers to list.
        """
        from vfw.frontends.tensorflow.keras.src.engine import summary

        summary.print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                              expand_nested=expand_nested, show_trainable=show_trainable, layer_range=layer_range)

    def build_from_config(self, config):
        if not config:
            return
        built = False
        if "input_shape" in config or "shapes_dict" in config:
            shapes = config.get("shapes_dict")
            if is_default(self.build):  # a subclassed model: its call on symbolic inputs builds the layers
                built = self._build_by_running(config.get("input_shape"), shapes)
            else:
                try:
                    if shapes is None:
                        self.build(config["input_shape"])
                    else:
                        self.build(**shapes)
                    built = True
                except Exception:
                    built = False
            self._build_shapes_dict = config if shapes is None else shapes
        if not built:
            warn_for_user(f"Model '{self.name}' had a build config, but the model cannot be built automatically in "
                          "`build_from_config(config)`. You should implement `def build_from_config(self, config)`, "
                          "and you might also want to implement the method  that generates the config at saving "
                          "time, `def get_build_config(self)`. The method `build_from_config()` is meant to create "
                          "the state of the model (i.e. its variables) upon deserialization.")

    def _build_by_running(self, input_shape, shapes_dict):
        """Build the layers by running ``call`` on symbolic inputs of the given shapes; whether that worked."""
        from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
        from vfw.frontends.tensorflow.keras.src.engine.layer import map_shapes

        try:
            if shapes_dict is None:
                infer_output_spec(self.call, map_shapes(KerasTensor, input_shape))
            else:
                infer_output_spec(self.call, **{name.removesuffix("_shape"): KerasTensor(shape)
                                                for name, shape in shapes_dict.items()})
            return True
        except Exception:  # reported by ``build_from_config``'s warning, as Keras does
            return False

    def to_json(self, **kwargs):
        """The model's serialized config as a JSON string (``keras.models.model_from_json`` reads it)."""
        from vfw.frontends.tensorflow.keras.src.utils import serialization

        return json.dumps(serialization.serialize_keras_object(self), default=_json_default, **kwargs)

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Save the model as a ``.keras`` file (``keras.saving.save_model``)."""
        from vfw.frontends.tensorflow.keras.src.saving import api

        return api.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def save_weights(self, filepath, overwrite=True, max_shard_size=None):
        """Save the model's variables to a ``.weights.h5`` file (``keras.saving.save_weights``)."""
        from vfw.frontends.tensorflow.keras.src.saving import api

        return api.save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def quantize(self, mode=None, config=None, filters=None, **kwargs):
        """Quantize every leaf layer that supports it (``"int8"``: Dense, Embedding), see ``layers.quantization``."""
        from vfw.frontends.tensorflow.keras.src.layers import quantization

        quantization.quantize_model(self, mode, config, filters, **kwargs)

    def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs):
        """Export the inference endpoint ``serve`` as a SavedModel directory (vfw's format; see
        ``keras.src.export.saved_model``).  Only ``format="tf_saved_model"`` is supported."""
        from vfw.frontends.tensorflow.keras.src.export.saved_model import export_saved_model

        if format != "tf_saved_model":
            raise ValueError(f"vfw's Keras exports only format='tf_saved_model', got format={format!r}")
        export_saved_model(self, filepath, verbose=verbose, input_signature=input_signature)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Load the model's variables from a ``.weights.h5`` or ``.keras`` file (``keras.saving.load_weights``)."""
        from vfw.frontends.tensorflow.keras.src.saving import api

        return api.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A functional model from a functional config, else ``cls(**config)``."""
        from vfw.frontends.tensorflow.keras.src.engine import functional_config
        from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

        is_functional = all(key in config for key in ("name", "layers", "input_layers", "output_layers"))
        spec = inspect.getfullargspec(cls.__init__)
        revivable = (cls in (Functional, Model) or spec.args[1:] == inspect.getfullargspec(Functional.__init__).args[1:]
                     or (spec.varargs == "args" and spec.varkw == "kwargs"))
        if is_functional and revivable:
            return functional_config.from_config(cls, config, custom_objects=custom_objects)
        try:
            return cls(**config)
        except TypeError as e:
            raise TypeError("Unable to revive model from config. When overriding the `get_config()` method, make sure "
                            "that the returned config contains all items used as arguments in the  constructor to "
                            f"{cls}, which is the default behavior. You can override this default behavior by "
                            "defining a `from_config(cls, config)` class method to specify how to create an instance "
                            f"of {cls.__name__} from its config.\n\nReceived config={config}\n\nError encountered "
                            f"during deserialization: {e}") from None

    def _obj_type(self):
        return "Model"


def _inject_functional(cls):
    """Put ``Functional`` in the bases of a ``Model`` subclass constructed with functional arguments."""
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional

    if cls is Model:
        return Functional
    if cls is object or issubclass(cls, Functional):
        return cls
    cls.__bases__ = tuple(_inject_functional(base) for base in cls.__bases__)
    return cls


def _json_default(value):
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def model_from_json(json_string, custom_objects=None):
    """The model a ``to_json`` string describes (uncompiled)."""
    from vfw.frontends.tensorflow.keras.src.engine.functional_config import internal_objects
    from vfw.frontends.tensorflow.keras.src.utils import object_registration, serialization

    # Scopes do not merge: the objects of a custom_object_scope the caller opened stay known.
    with object_registration.CustomObjectScope({**internal_objects(), **object_registration.scope_objects()}):
        return serialization.deserialize_keras_object(json.loads(json_string), custom_objects=custom_objects)


API = {"keras": ["Model"], "models": ["Model", "model_from_json"]}
