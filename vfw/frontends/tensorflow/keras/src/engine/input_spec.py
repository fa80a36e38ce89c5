"""``keras.InputSpec`` and the input checks layers run on the first argument of each call."""

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_dtype, standardize_shape


class InputSpec:
    """The rank, dtype and shape a layer expects of an input (None dims match anything).

    Parameters
    ----------
    dtype : str, optional
    shape : tuple, optional
        Including the batch dim.
    ndim, max_ndim, min_ndim : int, optional
    axes : dict, optional
        ``{axis: size}`` for particular axes.
    allow_last_axis_squeeze : bool
        Accept one more trailing dim of size 1, or one less when the spec's last dim is 1.
    name : str, optional
        The key of this input when inputs come as a dict.
    optional : bool
        Whether None is accepted.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = standardize_dtype(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = standardize_shape(shape)
            self.ndim = len(shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self):
        parts = [f"dtype={self.dtype}" if self.dtype else "", f"shape={self.shape}" if self.shape else "",
                 f"ndim={self.ndim}" if self.ndim else "", f"max_ndim={self.max_ndim}" if self.max_ndim else "",
                 f"min_ndim={self.min_ndim}" if self.min_ndim else "", f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(p for p in parts if p)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raise Keras' ValueError when ``inputs`` do not match ``input_spec`` (a spec or a structure of specs)."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in specs]
        if all(names):
            for name in names:
                if name not in inputs:
                    raise ValueError(f'Missing data for input "{name}". You passed a data dictionary with keys '
                                     f"{list(inputs.keys())}. Expected the following keys: {names}")
            inputs = [inputs[name] for name in names]
    inputs = nest.flatten(inputs)
    if len(inputs) != len(specs):
        names = [spec.name for spec in specs if spec is not None]
        if len(names) == len(specs) and all(names):
            keys = ", ".join(f"'{n}': ..." for n in names)
            raise ValueError(f'Layer "{layer_name}" expects {len(specs)} named input(s) with keys {names}, but it '
                             f"received {len(inputs)} input tensors. Pass inputs as a dict, e.g. `layer({{{keys}}})`.")
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it received {len(inputs)} input '
                         f"tensors. Inputs received: {inputs}")
    for index, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        _check_one(x, spec, index, layer_name)


def _check_one(x, spec, index, layer_name):
    if not hasattr(x, "shape"):
        raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for layer "
                         f"'{layer_name}'.")
    array = getattr(x, "array", None)  # a tf tensor: its numpy array's shape, without building a TensorShape
    shape = array.shape if array is not None and hasattr(array, "shape") else standardize_shape(x.shape)
    ndim = len(shape)
    prefix = f"Input {index} with name '{spec.name}' of layer '{layer_name}' is incompatible with the layer: "
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(prefix + f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(prefix + f"expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(prefix + f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: "
                         f"{shape}")
    if spec.dtype is not None:
        dtype = standardize_dtype(x.dtype)
        if dtype != spec.dtype:
            raise ValueError(prefix + f"expected dtype={spec.dtype}, found dtype={dtype}")
    for axis, value in (spec.axes or {}).items():
        if value is not None and shape[axis] not in {value, None}:
            raise ValueError(prefix + f"expected axis {axis} of input shape to have value {value}, but received "
                             f"input with shape {shape}")
    if spec.shape is not None:
        spec_shape = spec.shape
        if spec.allow_last_axis_squeeze:
            if shape and shape[-1] == 1:
                shape = shape[:-1]
            if spec_shape and spec_shape[-1] == 1:
                spec_shape = spec_shape[:-1]
        for spec_dim, dim in zip(spec_shape, shape):
            if spec_dim is not None and dim is not None and spec_dim != dim:
                raise ValueError(prefix + f"expected shape={spec.shape}, found shape={shape}")


API = {"keras": ["InputSpec"], "layers": ["InputSpec"]}
