"""Layer wrappers: ``Wrapper`` (the base), ``TimeDistributed`` and ``Bidirectional``.

``Bidirectional`` copies the layer it is given through its config (``forward_<name>``) and makes
the backward copy with ``go_backwards=True`` (``backward_<name>``), as Keras does, so both start
from fresh weights drawn by their own initializers.
"""

import copy

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.utils import serialization

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


class Wrapper(Layer):
    """The base of layers wrapping another layer (``layer``, tracked; built with the wrapper)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure wrapped "
                             "layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True

    def get_config(self):
        return {**super().get_config(), "layer": serialization.serialize_keras_object(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = serialization.deserialize_keras_object(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step (axis 1) of its ``[batch, time, ...]`` input."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    @staticmethod
    def _child_input_shape(input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                             f"received: {input_shape}")
        return (input_shape[0], *input_shape[2:])

    def compute_output_shape(self, input_shape):
        child_output_shape = self.layer.compute_output_shape(self._child_input_shape(input_shape))
        return (child_output_shape[0], input_shape[1], *child_output_shape[1:])

    def build(self, input_shape):
        super().build(self._child_input_shape(input_shape))

    def call(self, inputs, training=None, mask=None):
        if mask is not None:
            _check_time_mask(mask.shape, inputs.shape)
        if not training:
            # In inference a layer treats the samples of its batch alike, so one call on the steps folded into the
            # batch gives what a call per step gives, in one op whatever the number of steps (what an ONNX export
            # of a model with a dynamic time axis needs).
            return self._call_folded(inputs, mask, training)
        steps = tf.unstack(inputs, axis=1)
        step_masks = tf.unstack(mask, axis=1) if mask is not None else None
        outputs = []
        for t, step in enumerate(steps):
            kwargs = {}
            if self.layer._call_has_mask_arg and mask is not None:
                kwargs["mask"] = step_masks[t]
            if self.layer._call_has_training_arg:
                kwargs["training"] = training
            outputs.append(self.layer.call(step, **kwargs))
        return tf.stack(outputs, axis=1)

    def _call_folded(self, inputs, mask, training):
        shape = tf.shape(inputs)
        kwargs = {}
        if self.layer._call_has_mask_arg and mask is not None:
            kwargs["mask"] = tf.reshape(mask, tf.concat([[-1], tf.shape(mask)[2:]], 0))
        if self.layer._call_has_training_arg:
            kwargs["training"] = training
        outputs = self.layer.call(tf.reshape(inputs, tf.concat([[-1], shape[2:]], 0)), **kwargs)
        return tf.reshape(outputs, tf.concat([shape[:2], tf.shape(outputs)[1:]], 0))


def _check_time_mask(mask_shape, input_shape):
    if len(mask_shape) < 2:
        raise ValueError(f"The `mask` passed to the `TimeDistributed` layer must be at least 2D (e.g., `(batch_size, "
                         f"timesteps)`), but it has {len(mask_shape)} dimension(s) with shape {mask_shape}.")
    for i in (0, 1):
        if input_shape[i] is not None and mask_shape[i] is not None and input_shape[i] != mask_shape[i]:
            raise ValueError(f"The `mask` passed to the `TimeDistributed` layer has a shape {mask_shape} that is "
                             f"incompatible with the input shape {input_shape}. The first two dimensions of the mask "
                             "(batch size and timesteps) must match the input's first two dimensions. Expected mask "
                             f"shape prefix: ({input_shape[0]}, {input_shape[1]}).")


def _renamed_copy(layer, prefix, **overrides):
    """A fresh layer from ``layer``'s config, named ``<prefix>_<name>`` (no doubled prefix)."""
    config = serialization.serialize_keras_object(layer)
    name = layer.name[len(prefix) + 1:] if layer.name.startswith(prefix + "_") else layer.name
    config["config"].update(name=f"{prefix}_{name}", **overrides)
    return serialization.deserialize_keras_object(config)


class Bidirectional(Layer):
    """Runs an RNN layer forwards and a copy backwards and merges their outputs.

    Parameters
    ----------
    layer : RNN layer
        Copied (through its config) as the forward layer.
    merge_mode : {"concat", "sum", "mul", "ave", None}
        None returns the two outputs as a list.
    weights : list, optional
        Initial weights: the first half for the forward layer, the rest for the backward one.
    backward_layer : RNN layer, optional
        Used as is (must have the opposite ``go_backwards``); a copy of ``layer`` by default.

    Notes
    -----
    ``call(sequences, initial_state=None, mask=None, training=None)``; ``initial_state`` is split
    in halves between the two layers.  Backward sequence outputs are flipped back in time.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. "
                             f"Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             '{"sum", "mul", "ave", "concat", None}')
        super().__init__(**kwargs)
        self.forward_layer = _renamed_copy(layer, "forward")
        self.backward_layer = (_renamed_copy(layer, "backward", go_backwards=True) if backward_layer is None
                               else backward_layer)
        if hasattr(layer, "use_cudnn"):
            self.forward_layer.use_cudnn = layer.use_cudnn
            self.backward_layer.use_cudnn = layer.use_cudnn
        self._verify_layer_config()
        for sublayer in (self.forward_layer, self.backward_layer):
            if getattr(sublayer, "zero_output_for_mask", None) is not None:
                sublayer.zero_output_for_mask = sublayer.return_sequences
        self.merge_mode = merge_mode
        if weights:
            half = len(weights) // 2
            self.forward_layer.initial_weights = weights[:half]
            self.backward_layer.initial_weights = weights[half:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _verify_layer_config(self):
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(f"Forward layer and backward layer should have different `go_backwards` value. Received: "
                             f"forward_layer.go_backwards {forward.go_backwards}, backward_layer.go_backwards="
                             f"{backward.go_backwards}")
        for attribute in ("stateful", "return_sequences", "return_state"):
            forward_value, backward_value = getattr(forward, attribute), getattr(backward, attribute)
            if forward_value != backward_value:
                raise ValueError(f'Forward layer and backward layer are expected to have the same value for attribute '
                                 f'"{attribute}", got "{forward_value}" for forward layer and "{backward_value}" for '
                                 'backward layer')

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        output_shape = self.forward_layer.compute_output_shape(sequences_shape)
        if self.return_state:
            output_shape, state_shape = output_shape[0], output_shape[1:]
        if self.merge_mode == "concat":
            output_shape = (*output_shape[:-1], output_shape[-1] * 2)
        elif self.merge_mode is None:
            output_shape = [output_shape, output_shape]
        if self.return_state:
            if self.merge_mode is None:
                return tuple(output_shape) + state_shape + state_shape
            return (output_shape,) + state_shape + state_shape
        return tuple(output_shape)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {}
        if self.forward_layer._call_has_training_arg:
            kwargs["training"] = training
        if self.forward_layer._call_has_mask_arg:
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_reversed = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_reversed[1:])
            y, y_reversed = y[0], y_reversed[0]
        y, y_reversed = tf.cast(y, self.compute_dtype), tf.cast(y_reversed, self.compute_dtype)
        if self.return_sequences:
            y_reversed = tf.reverse(y_reversed, [1])
        output = _merge(self.merge_mode, y, y_reversed)
        if self.return_state:
            return (output + states) if self.merge_mode is None else (output,) + states
        return output

    def reset_states(self):
        self.reset_state()

    def reset_state(self):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    @property
    def states(self):
        """The two layers' stateful states (None unless both have them)."""
        if self.forward_layer.states and self.backward_layer.states:
            return tuple(self.forward_layer.states + self.backward_layer.states)
        return None

    def build(self, sequences_shape, initial_state_shape=None):
        for layer in (self.forward_layer, self.backward_layer):
            if not layer.built:
                layer.build(sequences_shape)

    def compute_mask(self, _, mask):
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = (mask, mask) if not self.merge_mode else mask
        else:
            output_mask = (None, None) if not self.merge_mode else None
        if self.return_state and self.states is not None:
            state_mask = tuple(None for _ in self.states)
            return (output_mask,) + state_mask * 2
        return output_mask

    def get_config(self):
        return {**super().get_config(), "merge_mode": self.merge_mode,
                "layer": serialization.serialize_keras_object(self.forward_layer),
                "backward_layer": serialization.serialize_keras_object(self.backward_layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = copy.deepcopy(config)
        config["layer"] = serialization.deserialize_keras_object(config["layer"], custom_objects=custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = serialization.deserialize_keras_object(backward, custom_objects=custom_objects)
        return cls(**config)


def _merge(mode, y, y_reversed):
    if mode == "concat":
        return tf.concat([y, y_reversed], axis=-1)
    if mode == "sum":
        return y + y_reversed
    if mode == "ave":
        return (y + y_reversed) / 2
    if mode == "mul":
        return y * y_reversed
    return (y, y_reversed)


API = {"layers": ["Wrapper", "TimeDistributed", "Bidirectional"]}
