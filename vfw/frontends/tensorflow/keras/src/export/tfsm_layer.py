"""``keras.layers.TFSMLayer``: an endpoint of a (vfw) SavedModel used as a Keras layer.

The layer loads the directory with ``tf.saved_model.load`` and calls the endpoint (an attribute of the loaded
root, such as ``serve`` written by ``model.export`` or ``ExportArchive``, or a signature key). Its weights are
the variables the endpoint reads, trainable ones first, so that training the layer changes what the endpoint
computes (as Keras on TF).
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._saved_model_load import SignatureFunction
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable
from vfw.frontends.tensorflow.keras.src.utils import serialization


class TFSMLayer(Layer):
    """A layer calling an endpoint of a SavedModel.

    Parameters
    ----------
    filepath : str or os.PathLike
        A SavedModel directory in vfw's format.
    call_endpoint : str, default "serve"
        The endpoint called (an attribute of the loaded object, else a signature key).
    call_training_endpoint : str, optional
        The endpoint called with ``training=True``.
    trainable : bool, default True
    name : str, optional
    dtype : optional
    """

    def __init__(self, filepath, call_endpoint="serve", call_training_endpoint=None, trainable=True, name=None,
                 dtype=None):
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self._reloaded_obj = tf.saved_model.load(filepath)
        self.filepath = filepath
        self.call_endpoint = call_endpoint
        self.call_training_endpoint = call_training_endpoint
        self.call_endpoint_fn = self._endpoint(call_endpoint, "Select another endpoint via the `call_endpoint` "
                                                              "argument. ")
        functions = [self.call_endpoint_fn]
        if call_training_endpoint:
            self.call_training_endpoint_fn = self._endpoint(call_training_endpoint, "")
            functions.append(self.call_training_endpoint_fn)
        for variable in _variables_used_by(functions):
            self._add_existing_weight(variable)
        self._build_at_init()

    def _endpoint(self, name, hint):
        loaded = self._reloaded_obj
        if hasattr(loaded, name):
            return getattr(loaded, name)
        if name in loaded.signatures:
            return loaded.signatures[name]
        raise ValueError(f"The endpoint '{name}' is neither an attribute of the reloaded SavedModel, nor an entry in "
                         f"the `signatures` field of the reloaded SavedModel. {hint}Available endpoints for this "
                         f"SavedModel: {list(loaded.signatures.keys())}")

    def _add_existing_weight(self, loaded_variable):
        """Track ``loaded_variable`` (a tf.Variable the endpoints read) as a Keras weight of this layer."""
        variable = Variable(initializer=loaded_variable.read_value(), trainable=loaded_variable.trainable,
                            dtype=loaded_variable.dtype.name, name=loaded_variable.name.replace("/", "_"))
        variable._value = loaded_variable  # share the endpoint's variable: training the layer trains the endpoint
        self._track_variable(variable)

    def call(self, inputs, training=False, **kwargs):
        if training and self.call_training_endpoint:
            return self.call_training_endpoint_fn(inputs, **kwargs)
        return self.call_endpoint_fn(inputs, **kwargs)

    def get_config(self):
        return {**super().get_config(), "filepath": self.filepath, "call_endpoint": self.call_endpoint,
                "call_training_endpoint": self.call_training_endpoint}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """Refused in safe mode (loading a SavedModel from a config), as Keras."""
        if (safe_mode if safe_mode is not None else serialization.in_safe_mode()) is not False:
            raise ValueError(
                "Requested the deserialization of a `TFSMLayer`, which loads an external SavedModel. This carries a "
                "potential risk of arbitrary code execution and thus it is disallowed by default. If you trust the "
                "source of the artifact, you can override this error by passing `safe_mode=False` to the loading "
                "function, or calling `keras.config.enable_unsafe_deserialization().")
        return cls(**config)


def _variables_used_by(functions):
    """The distinct variables the loaded functions read: the trainable ones, then the others."""
    captured = []
    for fn in functions:
        concretes = [fn._concrete] if isinstance(fn, SignatureFunction) else getattr(fn, "concretes", [])
        for concrete in concretes:
            captured.extend(concrete.captures)
    unique = list({id(v): v for v in captured}.values())
    return [v for v in unique if v.trainable] + [v for v in unique if not v.trainable]


API = {"layers": ["TFSMLayer"]}
