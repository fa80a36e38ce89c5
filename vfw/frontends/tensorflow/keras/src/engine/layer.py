"""``keras.Layer``: the base class of layers and models (Keras 3 semantics over vfw.tensorflow).

Contract for layer authors (the other layer modules)
----------------------------------------------------
- ``__init__(self, ..., **kwargs)`` calls ``super().__init__(**kwargs)`` first (``name``, ``dtype``,
  ``trainable``, ``autocast``, ``activity_regularizer``; ``input_shape``/``input_dim`` are noted for
  Sequential).  Sublayers and variables assigned to attributes (also in lists, dicts, tuples) are
  tracked automatically, in assignment order.
- ``build(self, input_shape)`` creates the weights with ``self.add_weight(shape=..., initializer=...,
  dtype=None, trainable=True, regularizer=None, constraint=None, name=...)`` (initializers,
  regularizers and constraints resolved with ``keras.initializers.get`` etc.; the default
  initializer is ``glorot_uniform`` for floats, ``zeros`` otherwise) and builds sublayers.  It runs
  once, on the first call, under the layer's name scope (weight paths ``<layer>/<weight>``); the
  shapes it got are the ``build_config``.  Layers without state need no ``build``.
- ``call(self, inputs, training=None, mask=None)`` computes with vfw.tensorflow ops; ``training``
  and ``mask`` are passed only when ``call`` takes them (``training`` flows from outer calls;
  ``mask`` is the ``_keras_mask`` of the input).  Set ``self.supports_masking = True`` to pass masks
  through, or override ``compute_mask(inputs, mask=None)``: it also runs on KerasTensors in
  functional graphs, so write it with ``keras.ops`` (which record graph operations), as Keras does.
  State updates go through Keras variables' ``assign*`` (graph updates under tf.function; dropped
  during shape inference, which runs inside a StatelessScope).
- ``compute_output_shape(self, input_shape)`` (recommended for built-in layers): used for calls on
  KerasTensors instead of running ``call`` on zeros (``Operation.compute_output_spec``: twice, with
  two sizes for None dims, when a layer has no ``compute_output_shape``).
- ``get_config()`` returns ``{**super().get_config(), <constructor arguments>}`` (initializers etc.
  through their modules' ``serialize``); ``from_config`` defaults to ``cls(**config)``.
- ``self.input_spec = InputSpec(...)`` makes every call check its first argument.
- Saving (``saving/object_state.py``): ``save_own_variables``/``load_own_variables`` write and read a
  layer's own variables (trainable then non-trainable, in creation order; override both for other
  state), and its sublayers are found through its attributes: keep the attribute names Keras uses
  (``self.cell``, ``self._query_dense``...) so that weights files are exchangeable with Keras.
- Inputs are converted to tensors and float inputs cast to ``compute_dtype`` (``autocast``); with a
  mixed policy (``"mixed_float16"``), float variables read as the compute dtype inside ``call``.

Other objects a layer tracks: classes with ``_keras_tracked_as = "metrics"`` (Keras metrics) and
``_keras_tracked_as = "seed_generators"`` (``keras.random.SeedGenerator``, whose ``state`` variable
is then in ``layer.variables`` and ``non_trainable_variables``, not in ``weights``).
"""

import collections
import inspect

import vfw.frontends.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow._tensor import Tensor as EagerTensor
from vfw.frontends.tensorflow.keras.src.engine import dtype_policy as policies
from vfw.frontends.tensorflow.keras.src.engine import input_spec as input_specs
from vfw.frontends.tensorflow.keras.src.engine import layer_call, naming, tracking
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor, Node, any_symbolic_tensors
from vfw.frontends.tensorflow.keras.src.engine.layer_losses import LayerLosses
from vfw.frontends.tensorflow.keras.src.engine.operation import (
    Operation,
    call_reporting_arguments,
    default,
    infer_output_spec,
    is_default,
)
from vfw.frontends.tensorflow.keras.src.engine.stateless import StatelessLayer
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable
from vfw.frontends.tensorflow.keras.src.engine.weights import LayerWeights

_UNTRACKED = (bool, int, float, str)  # plain attribute values: nothing to track
_LOCKED_MESSAGE = ("You cannot add new elements of state (variables or sub-layers) to a layer that is already built. "
                   "All state must be created in the `__init__()` method or in the `build()` method.")


class Layer(LayerLosses, LayerWeights, StatelessLayer, Operation):
    """The base class of Keras layers (see the module docstring for the contract)."""

    def __new__(cls, *args, **kwargs):
        layer = super().__new__(cls, *args, **kwargs)
        build = layer.build

        def build_wrapper(*args, **kwargs):
            with layer._open_name_scope():
                layer._path = naming.current_path()
                build(*args, **kwargs)
            layer._build_shapes_dict = inspect.signature(build).bind(*args, **kwargs).arguments
            layer.built = True
            layer._post_build()
            layer._lock_state()

        build_wrapper.__wrapped__ = build
        build_wrapper.__name__ = "build"
        build_wrapper._keras_default = is_default(build)
        object.__setattr__(layer, "build", build_wrapper)
        return layer

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None, autocast=True, name=None, **kwargs):
        self._lock = False
        Operation.__init__(self, name=name)
        self._dtype_policy = policies.get(dtype)
        from vfw.frontends.tensorflow.keras.src import regularizers

        self.activity_regularizer = regularizers.get(activity_regularizer)
        input_dim = kwargs.pop("input_dim", None)
        input_shape = (input_dim,) if input_dim is not None else kwargs.pop("input_shape", None)
        if input_shape is not None:
            warn_for_user("Do not pass an `input_shape`/`input_dim` argument to a layer. When using Sequential "
                          "models, prefer using an `Input(shape)` object as the first layer in the model instead.")
            self._input_shape_arg = input_shape
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        self._path = None
        self.built = False
        self.autocast = autocast
        self._input_spec = None
        self._called = False
        self.supports_jit = True
        if not isinstance(trainable, bool):
            raise ValueError(f"Expected `trainable` to be a boolean. Received: trainable={trainable} (of type "
                             f"{type(trainable)})")
        self._trainable = trainable
        self._losses = []
        self._loss_ids = set()
        self._losses_override = []
        self._call_signature = inspect.signature(self.call)
        self.call_signature_parameters = list(self._call_signature.parameters)
        self._call_has_training_arg = "training" in self.call_signature_parameters
        training = self._call_signature.parameters["training"].default if self._call_has_training_arg else None
        self._training_default = None if training is inspect.Parameter.empty else training
        self._call_has_mask_arg = "mask" in self.call_signature_parameters
        self._call_context_args = {"training"}
        self._call_has_context_arg = {"training": self._call_has_training_arg}
        self._supports_masking = not is_default(self.compute_mask)
        self._convert_input_args = True
        self._allow_non_tensor_positional_args = False
        self._build_shapes_dict = None
        self._parent_path = None
        self._initialize_tracker()

    def _initialize_tracker(self):
        if "_tracker" in self.__dict__:
            return
        stores = {"trainable_variables": [], "non_trainable_variables": [], "metrics": [], "layers": [],
                  "seed_generators": []}
        tracker = tracking.Tracker({
            "trainable_variables": (lambda x: isinstance(x, Variable) and x.trainable, stores["trainable_variables"]),
            "non_trainable_variables": (lambda x: isinstance(x, Variable) and not x.trainable,
                                        stores["non_trainable_variables"]),
            "metrics": (lambda x: tracking.tracked_kind(x) == "metrics", stores["metrics"]),
            "layers": (lambda x: isinstance(x, Layer) and tracking.tracked_kind(x) != "metrics", stores["layers"]),
            "seed_generators": (lambda x: tracking.tracked_kind(x) == "seed_generators", stores["seed_generators"]),
        }, exclusions={"non_trainable_variables": ["trainable_variables"]})
        with tracking.no_tracking():
            self._tracker = tracker
            self._trainable_variables = stores["trainable_variables"]
            self._non_trainable_variables = stores["non_trainable_variables"]
            self._metrics = stores["metrics"]
            self._layers = stores["layers"]
            self._seed_generators = stores["seed_generators"]

    def __setattr__(self, name, value):
        if value is None or type(value) in _UNTRACKED:
            object.__setattr__(self, name, value)
            return
        if name != "_tracker":
            if "_tracker" not in self.__dict__:
                self._initialize_tracker()
            value = self._tracker.track(value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        value = getattr(self, name)
        if isinstance(value, Variable):
            self._untrack_variable(value)
        object.__delattr__(self, name)

    def _check_super_called(self):
        if self.__dict__.get("_lock", True):
            raise RuntimeError(f"In layer '{type(self).__name__}', you forgot to call `super().__init__()` as the "
                               "first statement in the `__init__()` method. Go add it!")

    # -- building -----------------------------------------------------------------------------------------
    @default
    def build(self, input_shape):
        """Create the layer's state for inputs of ``input_shape`` (the base marks the layer built)."""
        self._check_super_called()
        self.built = True

    def _build_at_init(self):
        """Mark a layer without a ``build`` of its own as built at construction."""
        if is_default(self.build):
            self.built = True
            self._post_build()
            self._lock_state()

    def _post_build(self):
        """Hook run after ``build``."""

    def _lock_state(self):
        """Refuse new variables and sublayers once built."""
        if not self._tracker.locked:
            self._tracker.lock(_LOCKED_MESSAGE)

    def get_build_config(self):
        """``{"input_shape": shape}`` (or ``{"shapes_dict": ...}``) the layer was built with; None if unbuilt."""
        if self._build_shapes_dict is not None:
            if len(self._build_shapes_dict) == 1:
                return {"input_shape": tuple(self._build_shapes_dict.values())[0]}
            return {"shapes_dict": self._build_shapes_dict}
        return None

    def build_from_config(self, config):
        """Build from a ``get_build_config()`` dict."""
        if config:
            if "input_shape" in config:
                self.build(config["input_shape"])
            elif "shapes_dict" in config:
                self.build(**config["shapes_dict"])

    def _maybe_build(self, call_spec):
        if self.built:
            return
        shapes = layer_call.shapes_dict(call_spec)
        first_shape = next(iter(shapes.values()), None)
        if not is_default(self.build):
            self.build(**layer_call.shapes_for(self.build, shapes, call_spec, type(self).__name__))
            self._assert_input_compatibility(call_spec.first_arg)
            return
        if any(not layer.built for layer in self._layers):
            try:  # build the sublayers by running call symbolically
                infer_output_spec(self.call, **call_spec.arguments_dict)
            except Exception as e:
                if call_spec.eager:
                    return  # the eager call builds them
                warn_for_user(f"Layer '{self.name}' looks like it has unbuilt state, but Keras is not able to trace "
                              f"the layer `call()` in order to build it automatically. Exception encountered: "
                              f"''{e}''")
        self.build(first_shape)

    def _open_name_scope(self):
        if self._parent_path is None:
            self._parent_path = naming.current_path()
        return naming.name_scope(self.name, caller=self)

    @property
    def path(self):
        """str or None: the layer's path (its name under the scopes it was built in)."""
        return self._path

    # -- calling -----------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        self._check_super_called()
        if not self._called:
            self._called = True
        if not kwargs and len(args) == 1 and self.built and type(args[0]) is EagerTensor and \
                args[0].array.dtype == self._input_np_dtype() and len(self._call_context_args) == 1:
            return self._call_one_tensor(args[0])
        original_args, original_kwargs = args, kwargs
        if self._convert_input_args and (kwargs or len(args) != 1 or not layer_call.is_tensor_or_symbolic(args[0])
                                         or policies.standardize_dtype(args[0].dtype) != self.input_dtype):
            args = nest.map_structure(self._convert_input, args)
            kwargs = nest.map_structure(self._convert_input, kwargs)
        if not self._allow_non_tensor_positional_args:
            for arg in nest.flatten(args):
                if not layer_call.is_tensor_or_symbolic(arg, allow_none=True):
                    raise ValueError("Only input tensors may be passed as positional arguments. The following "
                                     f"argument value should be passed as a keyword argument: {arg} (of type "
                                     f"{type(arg)})")
        call_spec = layer_call.CallSpec(self._call_signature, self._call_context_args, args, kwargs)
        self._assert_input_compatibility(call_spec.first_arg)
        if not self.built:
            with self._open_name_scope():
                self._maybe_build(call_spec)
        context, opened = layer_call.enter_context(self)
        if opened:
            self._clear_losses()
        try:
            for name in self._call_context_args:
                layer_call.resolve_context_arg(name, call_spec, context, self._call_has_context_arg.get(name, False),
                                               kwargs)
            previous_mask = self._populate_masks(call_spec, kwargs)
            symbolic = any_symbolic_tensors(args, kwargs)
            outputs = self._run_call(self.symbolic_call if symbolic else self.call, args, kwargs, symbolic)
            self._finish_masks(call_spec.first_arg, outputs, previous_mask)
        finally:
            if opened:
                layer_call.exit_context()
        if any_symbolic_tensors(original_args, original_kwargs):
            Node(self, original_args, original_kwargs, outputs)
        return outputs

    def _call_one_tensor(self, x):
        """``__call__`` on one eager tensor of the input dtype, for a built layer (the common case, made short)."""
        self._assert_input_compatibility(x)
        context, opened = layer_call.enter_context(self)
        if opened:
            self._clear_losses()
        try:
            training = context.values.get("training")
            if training is None:
                training = self._training_default
            context.values["training"] = training
            kwargs = {}
            if self._call_has_training_arg and training is not None:
                kwargs["training"] = training
            mask = getattr(x, "_keras_mask", None)
            if self._call_has_mask_arg:
                kwargs["mask"] = mask
            outputs = self._run_call(self.call, (x,), kwargs, False)
            self._finish_masks(x, outputs, mask)
        finally:
            if opened:
                layer_call.exit_context()
        return outputs

    def _input_np_dtype(self):
        """The numpy dtype of inputs that need no cast (for the one-tensor shortcut)."""
        dtype = self.input_dtype
        cached = self.__dict__.get("_input_np_dtype_cache")
        if cached is None or cached[0] != dtype:
            cached = (dtype, tf.as_dtype(dtype).as_numpy_dtype if dtype != "string" else None)
            object.__setattr__(self, "_input_np_dtype_cache", cached)
        return cached[1]

    def _run_call(self, fn, args, kwargs, symbolic):
        """``fn`` (``call`` or ``symbolic_call``) in the layer's name and autocast scopes, with errors reported."""
        with self._open_name_scope(), self._autocast_scope():
            outputs = call_reporting_arguments(fn, f"{type(self).__name__}.call()", args, kwargs)
            if not self.built:
                self.built = True
            if self.activity_regularizer is not None and not symbolic:
                self._add_activity_losses(outputs)
        return outputs

    def _finish_masks(self, first_arg, outputs, previous_mask):
        if self.supports_masking:
            self._set_mask_metadata(first_arg, outputs, previous_mask)
        elif previous_mask is not None and any(m is not None for m in nest.flatten(previous_mask)):
            warn_for_user(f"Layer '{self.name}' (of type {type(self).__name__}) was passed an input with a mask "
                          "attached to it. However, this layer does not support masking and will therefore "
                          "destroy the mask information. Downstream layers will not see the mask.")

    def _convert_input(self, x):
        mask = layer_call.get_keras_mask(x)
        y = self._dtype_policy.convert_input(x, self.autocast, self.input_dtype)
        if mask is not None and y is not x:
            layer_call.set_keras_mask(y, mask)
        return y

    def _autocast_scope(self):
        current = policies.get_autocast_scope()
        if current is not None:
            if not self.autocast or not policies.is_float_dtype(self.compute_dtype):
                return policies.AutocastScope(None)
            if current.dtype != self.compute_dtype:
                return policies.AutocastScope(self.compute_dtype)
        elif self.compute_dtype != self.variable_dtype:
            return policies.AutocastScope(self.compute_dtype)
        return _NO_SCOPE

    def _populate_masks(self, call_spec, kwargs):
        """Pass the inputs' masks to ``call`` (``mask`` / ``<arg>_mask``); returns the mask of the first input."""
        tensors = call_spec.tensor_arguments_dict
        if len(tensors) == 1:
            if "mask" in call_spec.argument_names and call_spec.arguments_dict["mask"] is None:
                kwargs["mask"] = nest.map_structure(layer_call.get_keras_mask, next(iter(tensors.values())))
        elif len(tensors) > 1:
            for name, value in tensors.items():
                mask_name = f"{name}_mask"
                if mask_name in call_spec.argument_names and call_spec.arguments_dict[mask_name] is None:
                    kwargs[mask_name] = nest.map_structure(layer_call.get_keras_mask, value)
        if kwargs.get("mask") is not None:
            return kwargs["mask"]
        return nest.map_structure(layer_call.get_keras_mask, call_spec.first_arg)

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        flat_outputs = nest.flatten(outputs)
        if all(layer_call.get_keras_mask(x) is not None for x in flat_outputs):
            return
        masks = self.compute_mask(inputs, previous_mask)  # on KerasTensors: keras.ops record the mask's graph
        if masks is None:
            return
        for tensor, mask in zip(flat_outputs, nest.flatten(masks)):
            if layer_call.get_keras_mask(tensor) is None and mask is not None:
                layer_call.set_keras_mask(tensor, mask)

    def _assert_input_compatibility(self, first_arg):
        if self.input_spec:
            input_specs.assert_input_compatibility(self.input_spec, first_arg, layer_name=self.name)

    def call(self, *args, **kwargs):
        raise self._not_implemented_error(self.call)

    def compute_output_spec(self, *args, **kwargs):
        """KerasTensors for the outputs on the given arguments: from ``compute_output_shape`` when defined."""
        if is_default(self.compute_output_shape):
            return Operation.compute_output_spec(self, *args, **kwargs)
        call_spec = layer_call.CallSpec(self._call_signature, self._call_context_args, args, dict(kwargs))
        shapes = layer_call.shapes_dict(call_spec)
        shape = self.compute_output_shape(**layer_call.shapes_for(self.compute_output_shape, shapes, call_spec,
                                                                  type(self).__name__))
        if isinstance(shape, list) and shape and isinstance(shape[0], (int, type(None))):
            shape = tuple(shape)
        if not isinstance(shape, (list, tuple, dict)):
            try:
                shape = tuple(shape)
            except TypeError:
                raise ValueError(f"Method `compute_output_shape()` of layer {type(self).__name__} is returning a type "
                                 f"that cannot be interpreted as a shape. It should return a shape tuple. Received: "
                                 f"{shape}") from None
        return map_shapes(lambda s: KerasTensor(s, dtype=self.compute_dtype), shape)

    @default
    def compute_output_shape(self, *args, **kwargs):
        raise self._not_implemented_error(self.compute_output_shape,
                                          "Should implement `def compute_output_shape(self, input_shape)`.")

    @default
    def compute_mask(self, inputs, previous_mask):
        """The mask of the outputs (the base passes the input's mask on)."""
        return previous_mask

    @property
    def supports_masking(self):
        """bool: whether the layer passes masks on (``compute_mask``)."""
        return self._supports_masking

    @supports_masking.setter
    def supports_masking(self, value):
        self._supports_masking = value

    def symbolic_call(self, *args, **kwargs):
        return self.compute_output_spec(*args, **kwargs)

    def _not_implemented_error(self, attribute, message=None):
        what = "method" if callable(attribute) else "attribute"
        name = attribute.__name__ if callable(attribute) else str(attribute)
        suffix = f" {message}" if message is not None else ""
        return NotImplementedError(f"Layer {type(self).__name__} does not have a `{name}` {what} implemented.{suffix}")

    @property
    def input_spec(self):
        """InputSpec (or structure of them) checked on the first argument of each call."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value

    # -- dtypes ------------------------------------------------------------------------------------------
    @property
    def dtype_policy(self):
        """DTypePolicy: the layer's compute and variable dtypes."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._dtype_policy = policies.get(value)

    @property
    def dtype(self):
        """str: the variable dtype."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self):
        """str: the dtype computations run in."""
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self):
        """str: the dtype of the layer's variables."""
        return self._dtype_policy.variable_dtype

    @property
    def input_dtype(self):
        """str: the dtype float inputs are cast to."""
        return self.compute_dtype

    @property
    def quantization_mode(self):
        """str or None: the quantization mode of the layer's dtype policy ("int8"...)."""
        return self._dtype_policy.quantization_mode

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the built layer's weights (``"int8"``; Dense and Embedding, see ``layers.quantization``)."""
        from vfw.frontends.tensorflow.keras.src.layers import quantization

        quantization.quantize_layer(self, mode, config, type_check)

    # -- configs --------------------------------------------------------------------------------------------
    @default
    def get_config(self):
        """``name``, ``trainable``, ``dtype`` (serialized policy) and ``activity_regularizer`` when set."""
        self._check_super_called()
        config = Operation.get_config(self)
        config.update({"trainable": self.trainable, "dtype": policies.serialize(self._dtype_policy)})
        if self.activity_regularizer is not None:
            from vfw.frontends.tensorflow.keras.src import regularizers

            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return config

    def _obj_type(self):
        return "Layer"

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    __str__ = __repr__

    def _flatten_layers(self, include_self=True, recursive=True):
        """This layer (optionally) and its sublayers, in Keras' traversal order, each once."""
        layers = [self] if include_self else []
        seen = set()
        queue = collections.deque(self._layers)
        while queue:
            layer = queue.popleft()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            layers.append(layer)
            if recursive:
                queue.extendleft(layer._layers)
        return layers

    def _register_call_context_args(self, *names):
        """Pass the context arguments ``names`` from outer calls to this layer's ``call`` and its sublayers."""
        if self._called:
            raise RuntimeError("Cannot add call-context args after the layer has been called.")
        self._call_context_args = self._call_context_args | set(names)
        self._call_has_context_arg.update({name: name in self.call_signature_parameters for name in names})


class _NoScope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NO_SCOPE = _NoScope()


def map_shapes(fn, shape):
    """Apply ``fn`` to each shape tuple in a structure of shapes (a tuple of ints/None is one shape)."""
    if isinstance(shape, (tuple, list)) and all(d is None or isinstance(d, int) for d in shape):
        return fn(tuple(shape))
    if isinstance(shape, dict):
        return {k: map_shapes(fn, v) for k, v in shape.items()}
    if isinstance(shape, (tuple, list)):
        return type(shape)(map_shapes(fn, s) for s in shape)
    return fn(shape)


def serialize(layer):
    """A layer's serialized config (``keras.layers.serialize``)."""
    from vfw.frontends.tensorflow.keras.src.utils import serialization

    return serialization.serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """The layer a serialized config describes (``keras.layers.deserialize``; ValueError for other objects)."""
    from vfw.frontends.tensorflow.keras.src.utils import serialization

    layer = serialization.deserialize_keras_object(config, custom_objects=custom_objects)
    if not isinstance(layer, Layer):
        raise ValueError("`keras.layers.deserialize` was passed a `config` object that is not a `keras.layers.Layer`. "
                         f"Received: {config}")
    return layer


API = {"keras": ["Layer"], "layers": ["Layer", "serialize", "deserialize"]}
