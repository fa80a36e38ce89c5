"""tf.nn.RNNCellDropoutWrapper, RNNCellResidualWrapper and RNNCellDeviceWrapper: wrappers around a recurrent
cell (``cell.call(inputs, states, **kwargs) -> (output, new_states)``, e.g. ``tf.keras.layers.LSTMCell``).

* Dropout drops inputs, outputs and new states with keep probabilities.  Without
  ``variational_recurrent`` each tensor gets a fresh ``tf.nn.dropout`` mask whose op seed, when a
  wrapper ``seed`` is given, is TF's: the first 8 hex digits of the MD5 of ``str(seed) + "<kind>_<i>"``
  (``kind`` input/state/output, ``i`` the tensor's position in its structure), below ``2**31``.  With
  it, each tensor's ``[1, size]`` uniform noise is drawn once (at construction, from those seeds)
  and every call keeps ``floor(keep_prob + noise)``.
* Residual adds the inputs to the cell's outputs (or applies ``residual_fn(inputs, outputs)``).
* Device runs the cell unchanged (vfw has one device).
"""

import hashlib
import numbers

from vfw.frontends.tensorflow import _dtypes, nest
from vfw.frontends.tensorflow._creation import zeros
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._math_binary import add, multiply, realdiv
from vfw.frontends.tensorflow._math_unary import floor
from vfw.frontends.tensorflow._random_ops import dropout, uniform


class _Wrapper:
    """What the wrappers share: the wrapped cell, its sizes, zero states, weights and calling."""

    def __init__(self, cell, name=None, **kwargs):
        if not callable(getattr(cell, "call", None)):
            raise TypeError(f"The parameter cell is not RNNCell: {cell!r}")
        self.cell = cell
        self.name = name
        self.built = False

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def weights(self):
        return self.cell.weights

    trainable_weights = trainable_variables = variables = weights

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states shaped ``[batch_size] + size`` for each of the cell's state sizes."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs)
            batch_size, dtype = inputs.shape[0], inputs.dtype
        dtype = _dtypes.float32 if dtype is None else dtype
        sizes = self.state_size
        flat = [zeros([batch_size] + ([s] if isinstance(s, numbers.Integral) else list(s)), dtype)
                for s in nest.flatten(sizes)]
        return flat[0] if not nest.is_nested(sizes) else nest.pack_sequence_as(sizes, flat)

    def build(self, input_shape):
        if not getattr(self.cell, "built", True):
            self.cell.build(input_shape)
        self.built = True

    def __call__(self, inputs, state, **kwargs):
        if not self.built:
            self.build(tuple(convert_to_tensor(nest.flatten(inputs)[0]).shape))
        return self.call(inputs, state, **kwargs)

    def get_config(self):
        return {"cell": {"class_name": type(self.cell).__name__, "config": self.cell.get_config()}}


def _seed_for(seed, kind, index):
    """The op seed of the ``index``-th tensor of ``kind`` (TF hashes the wrapper seed with a salt)."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + f"{kind}_{index}").encode("utf-8")).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


def _checked_keep_prob(value, what):
    if isinstance(value, numbers.Real) and not 0.0 <= value <= 1.0:
        raise ValueError(f"Parameter {what} must be between 0 and 1: {int(value)}")  # TF formats it with %d
    return value


class RNNCellDropoutWrapper(_Wrapper):
    """Dropout on the inputs, outputs and states of ``cell`` (see the module doc).

    Parameters
    ----------
    cell : recurrent cell
    input_keep_prob, output_keep_prob, state_keep_prob : float in [0, 1]
        Probabilities of keeping each value (1: no dropout).
    variational_recurrent : bool
        One mask per wrapper for all calls (needs ``input_size`` for input dropout, and ``dtype``).
    input_size : int or nested ints, optional
    dtype : DType, optional
    seed : int, optional
    dropout_state_filter_visitor : callable, optional
        ``visitor(state) -> bool``: whether to drop that part of the state (default all).
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(f"dropout_state_filter_visitor must be callable. Received: {dropout_state_filter_visitor}")
        self._keep = {"input": _checked_keep_prob(input_keep_prob, "input_keep_prob"),
                      "state": _checked_keep_prob(state_keep_prob, "state_keep_prob"),
                      "output": _checked_keep_prob(output_keep_prob, "output_keep_prob")}
        self._seed = seed
        self._state_filter = dropout_state_filter_visitor or (lambda state: True)
        self._variational = variational_recurrent
        self._noise = {}
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            sizes = {"input": input_size, "state": cell.state_size, "output": cell.output_size}
            for kind, size in sizes.items():
                if self._dropping(kind):
                    if size is None:
                        raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or "
                                         "is unknown, input_size must be provided")
                    self._noise[kind] = self._batch_noise(kind, size, dtype)

    def _dropping(self, kind):
        keep = self._keep[kind]
        return not isinstance(keep, float) or keep < 1

    def _batch_noise(self, kind, sizes, dtype):
        flat = nest.flatten(sizes)
        noise = [uniform([1] + ([s] if isinstance(s, numbers.Integral) else list(s)), dtype=dtype,
                         seed=_seed_for(self._seed, kind, i)) for i, s in enumerate(flat)]
        return nest.pack_sequence_as(sizes, noise) if nest.is_nested(sizes) else noise[0]

    def _dropped(self, values, kind, keep_filter=None):
        keep_prob = self._keep[kind]
        flat = nest.flatten(values)
        chosen = [True] * len(flat) if keep_filter is None else nest.flatten(keep_filter)
        noise = None
        if self._variational:
            if nest.is_nested(values) != nest.is_nested(self._noise[kind]):  # TF maps one onto the other
                raise TypeError("If shallow structure is a sequence, input must also be a sequence. Input has type: "
                                f"{type(values if nest.is_nested(self._noise[kind]) else self._noise[kind]).__name__}.")
            noise = nest.flatten(self._noise[kind])
        out = []
        for i, (v, do_dropout) in enumerate(zip(flat, chosen)):
            if not do_dropout:
                out.append(v)
            elif self._variational:
                out.append(multiply(realdiv(v, keep_prob), floor(add(noise[i], keep_prob))))
            else:
                out.append(dropout(v, rate=1.0 - keep_prob, seed=_seed_for(self._seed, kind, i)))
        return nest.pack_sequence_as(values, out) if nest.is_nested(values) else out[0]

    def call(self, inputs, state, **kwargs):
        """``cell.call`` on the dropped-out inputs; its output and new state dropped out in turn."""
        if self._dropping("input"):
            inputs = self._dropped(inputs, "input")
        output, new_state = self.cell.call(inputs, state, **kwargs)
        if self._dropping("state"):
            keep_filter = [bool(self._state_filter(s)) for s in nest.flatten(new_state)]
            new_state = self._dropped(new_state, "state", keep_filter)
        if self._dropping("output"):
            output = self._dropped(output, "output")
        return output, new_state

    def get_config(self):
        return {"input_keep_prob": self._keep["input"], "output_keep_prob": self._keep["output"],
                "state_keep_prob": self._keep["state"], "variational_recurrent": self._variational,
                "seed": self._seed, **super().get_config()}


class RNNCellResidualWrapper(_Wrapper):
    """``cell``'s outputs plus its inputs (``residual_fn(inputs, outputs)`` when given); states unchanged."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def call(self, inputs, state, **kwargs):
        output, new_state = self.cell.call(inputs, state, **kwargs)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, output), new_state
        nest.assert_same_structure(inputs, output)

        def residual(x, y):
            x, y = convert_to_tensor(x), convert_to_tensor(y)
            if not x.shape.is_compatible_with(y.shape):
                raise ValueError(f"Shapes {x.shape} and {y.shape} are incompatible")
            return add(x, y)
        return nest.map_structure(residual, inputs, output), new_state


class RNNCellDeviceWrapper(_Wrapper):
    """``cell`` placed on ``device`` (vfw has one device: the cell runs unchanged)."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device_name = device

    def call(self, inputs, state, **kwargs):
        return self.cell.call(inputs, state, **kwargs)

    def get_config(self):
        return {"device": self._device_name, **super().get_config()}


NAMESPACES = {"nn": ["RNNCellDropoutWrapper", "RNNCellResidualWrapper", "RNNCellDeviceWrapper"]}
