"""``keras.export.ExportArchive``: serving endpoints and variable collections written as a vfw SavedModel.

As Keras 3 on the TF backend: ``track`` a layer or model (its variables join the archive's ``variables``,
``trainable_variables`` and ``non_trainable_variables``), ``add_endpoint(name, fn, input_signature)`` makes ``fn``
a ``tf.function`` with that signature (an attribute of the saved root), ``add_variable_collection`` saves a named
list of variables, ``write_out`` saves the root with the signatures ``<endpoint>`` for each endpoint and
``serving_default`` (the first endpoint unless one has that name).  The directory is in vfw's SavedModel format
(``tf.saved_model.load`` and ``keras.layers.TFSMLayer`` of vfw read it; TensorFlow cannot).
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _saved_model_save
from vfw.frontends.tensorflow._function import Function as TFFunction
from vfw.frontends.tensorflow._module import Module
from vfw.frontends.tensorflow.keras.src import tree
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable as KerasVariable

DEFAULT_ENDPOINT_NAME = "serve"


class _ArchiveRoot(Module):
    """The saved root object: endpoints and variable collections are its attributes; the tracked variables are
    saved as the lists ``variables``, ``trainable_variables`` and ``non_trainable_variables`` (names the Module
    properties take, hence kept in ``tracked``)."""

    _TF_MODULE_IGNORED_PROPERTIES = Module._TF_MODULE_IGNORED_PROPERTIES | {"tracked"}

    def __init__(self):
        super().__init__(name="export_archive")
        self.tracked = {"variables": [], "trainable_variables": [], "non_trainable_variables": []}

    def _saved_model_children(self):
        return dict(self.tracked)


class ExportArchive:
    """An archive of endpoints (serving functions) and variables to write as a SavedModel.

    Parameters
    ----------
    format : str, default "saved_model"
        Only "saved_model" (vfw's format) is provided.
    """

    def __init__(self, format="saved_model"):
        if format != "saved_model":
            raise ValueError(f"Unsupported format: {format}")
        self._root = _ArchiveRoot()
        self._endpoint_names = []
        self._endpoint_signatures = {}
        self.tensorflow_version = tf.__version__

    @property
    def variables(self):
        return self._root.tracked["variables"]

    @property
    def trainable_variables(self):
        return self._root.tracked["trainable_variables"]

    @property
    def non_trainable_variables(self):
        return self._root.tracked["non_trainable_variables"]

    def track(self, resource):
        """Add a built layer's (or model's) variables to the archive's variable lists."""
        if not isinstance(resource, (Layer, Module)):
            raise ValueError("Invalid resource type. Expected a Keras `Layer` or `Model` or a TensorFlow `Trackable` "
                             f"object. Received object {resource} of type '{type(resource)}'. ")
        if isinstance(resource, Layer):
            if not resource.built:
                raise ValueError("The layer provided has not yet been built. It must be built before export.")
            for key in self._root.tracked:
                self._root.tracked[key] += getattr(resource, key)

    def add_endpoint(self, name, fn, input_signature=None, **kwargs):
        """Make ``fn`` the endpoint ``name``: a tf.function with ``input_signature`` (returned).

        Parameters
        ----------
        name : str
        fn : callable
            Without ``input_signature``, a ``tf.function`` already called at least once.
        input_signature : list of tf.TensorSpec, keras.InputSpec or KerasTensor (nested allowed), optional
        """
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if "jax2tf_kwargs" in kwargs or "is_static" in kwargs:
            raise ValueError("'jax2tf_kwargs' and 'is_static' are only supported with the jax backend. Current "
                             "backend: tensorflow")
        if input_signature is None:
            if not isinstance(fn, TFFunction):
                raise ValueError(
                    "If the `fn` argument provided is not a `tf.function`, you must provide an `input_signature` "
                    "argument to specify the shape and dtype of the function arguments. Example:\n\n"
                    "export_archive.add_endpoint(\n    name='call',\n    fn=model.call,\n    input_signature=[\n"
                    "        keras.InputSpec(\n            shape=(None, 224, 224, 3),\n            dtype='float32',\n"
                    "        )\n    ],\n)")
            if not fn.experimental_get_tracing_count():
                raise ValueError(
                    f"The provided tf.function '{fn}' has never been called. To specify the expected shape and dtype "
                    "of the function's arguments, you must either provide a function that has been called at least "
                    "once, or alternatively pass an `input_signature` argument in `add_endpoint()`.")
            endpoint = fn
        else:
            input_signature = tree.map_structure(tensor_spec, input_signature)
            endpoint = tf.function(fn, input_signature=input_signature, autograph=False)
            self._endpoint_signatures[name] = input_signature
        setattr(self._root, name, endpoint)
        self._endpoint_names.append(name)
        return endpoint

    def track_and_add_endpoint(self, name, resource, input_signature, **kwargs):
        """``track(resource)`` then ``add_endpoint(name, resource.__call__, input_signature)``."""
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name, variables):
        """Save the list ``variables`` (tf or Keras variables) as the root attribute ``name``."""
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(f"Expected `variables` to be a list/tuple/set. Received instead object of type "
                             f"'{type(variables)}'.")
        if not all(isinstance(v, (tf.Variable, KerasVariable)) for v in variables):
            raise ValueError("Expected all elements in `variables` to be `tf.Variable` instances. Found instead the "
                             f"following types: {list(set(type(v) for v in variables))}")
        setattr(self._root, name, list(variables))

    def write_out(self, filepath, options=None, verbose=True):
        """Write the archive to the directory ``filepath`` (vfw's SavedModel format)."""
        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        signatures = {name: self._signature_function(name) for name in self._endpoint_names}
        signatures.setdefault("serving_default", signatures[self._endpoint_names[0]])
        tf.saved_model.save(self._root, filepath, signatures=signatures, options=options)
        if verbose:
            endpoints = "\n\n".join(f"* Endpoint '{name}'\n  args_0 (POSITIONAL_ONLY): "
                                    f"{self._endpoint_signatures.get(name)!r}" for name in self._endpoint_names)
            print(f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n{endpoints}")

    def _signature_function(self, name):
        """What serves endpoint ``name`` as a signature: the function, or its first trace's concrete function."""
        endpoint = getattr(self._root, name)
        if name in self._endpoint_signatures:
            return endpoint
        args, kwargs = _saved_model_save._templates(endpoint)[0]
        return endpoint.get_concrete_function(*args, **kwargs)


def tensor_spec(x):
    """A tf.TensorSpec for a tf.TensorSpec, keras.InputSpec, KerasTensor or tensor (the latter two: batch dim None)."""
    if isinstance(x, tf.TensorSpec):
        return x
    if isinstance(x, InputSpec):
        if x.shape is None or x.dtype is None:
            raise ValueError(f"The `shape` and `dtype` must be provided. Received: x={x}")
        return tf.TensorSpec(x.shape, x.dtype, getattr(x, "name", None))
    if isinstance(x, (KerasTensor, tf.Tensor)):
        shape = (None,) + tuple(x.shape)[1:]
        return tf.TensorSpec(shape, x.dtype, x.name if isinstance(x, KerasTensor) else None)
    raise TypeError(f"Unsupported x={x} of the type ({type(x)}). Supported types are: `keras.InputSpec`, "
                    "`keras.KerasTensor` and backend tensor.")


API = {"export": ["ExportArchive"]}
