"""Keras dtype names, shapes and dtype policies (``keras.DTypePolicy``, mixed precision, autocasting).

- ``standardize_shape``: Keras' canonical shapes (tuples of ints and None) with Keras' errors
  (``standardize_dtype`` & co. come from ``backend.dtypes``).
- ``DTypePolicy(name)``: a layer's compute dtype and variable dtype (``"mixed_float16"``: compute in
  float16, keep variables in float32).  ``get`` / ``serialize`` / ``deserialize`` convert policies
  from and to layer ``dtype`` arguments and configs; the global policy (``keras.config.dtype_policy``)
  defaults to ``DTypePolicy(floatx())`` and is forgotten by ``clear_session``.
- ``AutocastScope(dtype)``: while open, float Keras variables read as ``dtype`` (a layer whose compute
  dtype differs from its variable dtype opens one around ``call``).
"""

import numpy as np

from vfw.frontends.tensorflow.keras.src.backend import global_state
from vfw.frontends.tensorflow.keras.src.backend.config import floatx
from vfw.frontends.tensorflow.keras.src.backend.dtypes import (  # noqa: F401  (re-exported for the engine)
    is_float_dtype,
    is_int_dtype,
    standardize_dtype,
)


def standardize_shape(shape):
    """A shape as a tuple of non-negative ints and None, with Keras' errors."""
    if not isinstance(shape, tuple):
        if shape is None:
            raise ValueError("Undefined shapes are not supported.")
        if not hasattr(shape, "__iter__"):
            raise ValueError(f"Cannot convert '{shape}' to a shape.")
        if hasattr(shape, "as_list"):  # a TensorShape
            shape = shape.as_list()
    dims = []
    for d in shape:
        if d is None:
            dims.append(None)
            continue
        if isinstance(d, (str, float)):
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension '{d}' of type "
                             f"'{type(d)}'. ")
        try:
            d = int(d)
        except Exception as e:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension '{d}' of type "
                             f"'{type(d)}'. ") from e
        if d < 0:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Negative dimensions are not allowed.")
        dims.append(d)
    return tuple(dims)


def dtype_size_bits(dtype):
    """The size in bits of one element of ``dtype`` (``summary``'s memory sizes)."""
    dtype = standardize_dtype(dtype)
    if dtype == "bool":
        return 1
    if dtype == "bfloat16":
        return 16
    if dtype.startswith("float8"):
        return 8
    return np.dtype(dtype).itemsize * 8


# -- policies ------------------------------------------------------------------------------------------
class DTypePolicy:
    """A layer's dtype policy: the dtype it computes in and the dtype of its variables.

    Parameters
    ----------
    name : str, optional
        A dtype name (``"float32"``: both dtypes), ``"mixed_float16"`` or ``"mixed_bfloat16"``
        (compute in float16/bfloat16, variables in float32).  Defaults to the global policy's name.
    """

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        self._quantization_mode = None

    @staticmethod
    def _parse_name(name):
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: name={name} "
                            f"(of type {type(name)})")
        if name == "mixed_float16":
            return "float16", "float32"
        if name == "mixed_bfloat16":
            return "bfloat16", "float32"
        try:
            dtype = standardize_dtype(name)
        except ValueError:
            raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include "
                             "'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as "
                             "'float32'.") from None
        return dtype, dtype

    @property
    def name(self):
        """str: the policy's name."""
        return self._name

    @property
    def compute_dtype(self):
        """str: the dtype layer computations run in (inputs are cast to it)."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """str: the dtype of layer variables."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """None (quantized policies are in ``dtype_policy_quantized``)."""
        return self._quantization_mode

    def convert_input(self, x, autocast, dtype):
        """``x`` as a tensor (arrays converted), float tensors cast to ``dtype`` when ``autocast``."""
        from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor, symbolic_cast

        if isinstance(x, KerasTensor):
            return symbolic_cast(x, dtype) if self._should_cast(x.dtype, autocast, dtype) else x
        if hasattr(x, "_as_tensor") or hasattr(x, "__array__") or _is_tf_tensor(x):
            import vfw.frontends.tensorflow as tf

            if not _is_tf_tensor(x):
                try:
                    x = tf.convert_to_tensor(x)
                except TypeError:
                    x = tf.convert_to_tensor(x, dtype=dtype)
            if self._should_cast(x.dtype.name, autocast, dtype):
                x = tf.cast(x, dtype)
        return x

    @staticmethod
    def _should_cast(x_dtype, autocast, dtype):
        x_dtype = standardize_dtype(x_dtype)
        return bool(autocast) and is_float_dtype(x_dtype) and x_dtype != dtype

    def get_config(self):
        """``{"name": name}``."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        """The policy described by ``config``."""
        return cls(**config)

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other):
        if not isinstance(other, DTypePolicy) or type(other) not in (DTypePolicy, FloatDTypePolicy):
            return False
        return self._name == other.name and self._quantization_mode == other.quantization_mode

    __hash__ = None


class FloatDTypePolicy(DTypePolicy):
    """A float dtype policy (the same as ``DTypePolicy``; Keras keeps the name)."""


def _is_tf_tensor(x):
    from vfw.frontends.tensorflow._tensor import Tensor

    return isinstance(x, Tensor)


def dtype_policy():
    """The global dtype policy (``DTypePolicy(floatx())`` unless set; ``clear_session`` forgets it)."""
    policy = global_state.get_global_attribute("dtype_policy")
    return DTypePolicy(floatx()) if policy is None else policy


def set_dtype_policy(policy):
    """Set the global dtype policy (a policy or its name) that layers created later use by default."""
    if not isinstance(policy, DTypePolicy):
        if isinstance(policy, str):
            policy = DTypePolicy(policy)
        else:
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy (such as "
                             f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} "
                             f"(of type {type(policy)})")
    global_state.set_global_attribute("dtype_policy", policy)


def get(identifier):
    """A policy from a layer's ``dtype`` argument: None (the global policy), a name, a config or a policy."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        from vfw.frontends.tensorflow.keras.src.engine import dtype_policy_quantized as quantized

        if identifier.startswith(quantized.QUANTIZATION_MODES):
            return quantized.policy_from_string(identifier)
        return DTypePolicy(identifier)
    try:
        return DTypePolicy(standardize_dtype(identifier))
    except Exception:
        raise ValueError("Cannot interpret `dtype` argument. Expected a string or an instance of DTypePolicy. "
                         f"Received: dtype={identifier}") from None


def serialize(policy):
    """A policy's config as Keras serializes it (``{"module": "keras", "class_name": "DTypePolicy", ...}``)."""
    if not isinstance(policy, DTypePolicy):
        raise ValueError("Invalid `dtype_policy` argument. Expected an instance of DTypePolicy. "
                         f"Received: dtype_policy={policy} (of type {type(policy)})")
    from vfw.frontends.tensorflow.keras.src.utils.serialization import serialize_keras_object

    return serialize_keras_object(policy)


def deserialize(config, custom_objects=None):
    """The policy a serialized config (or a policy name) describes."""
    if isinstance(config, str):
        return DTypePolicy(config)
    if isinstance(config, DTypePolicy):
        return config
    from vfw.frontends.tensorflow.keras.src.engine.dtype_policy_quantized import POLICY_CLASSES

    policy_classes = {"DTypePolicy": DTypePolicy, "FloatDTypePolicy": FloatDTypePolicy, **POLICY_CLASSES}
    class_name = config.get("class_name") if isinstance(config, dict) else None
    if class_name not in policy_classes:
        raise ValueError(f"Cannot deserialize a dtype policy from {config}")
    return policy_classes[class_name].from_config(config["config"])


# -- autocasting -------------------------------------------------------------------------------------------
def get_autocast_scope():
    """The open AutocastScope, or None."""
    return global_state.get_global_attribute("autocast_scope")


class AutocastScope:
    """While open, float Keras variables (with ``autocast=True``) read as ``dtype`` (None: as stored).

    Parameters
    ----------
    dtype : str or None
        A float dtype.
    """

    def __init__(self, dtype):
        if dtype is not None:
            dtype = standardize_dtype(dtype)
            if not is_float_dtype(dtype):
                raise ValueError("`AutocastScope` can only be used with a floating-point target dtype, such as "
                                 f"'float16'. Received: dtype={dtype}")
        self.dtype = dtype
        self._saved = []

    def maybe_cast(self, value):
        """``value`` (a tf tensor) cast to the scope's dtype when both are floats."""
        if self.dtype is not None and is_float_dtype(value.dtype.name) and value.dtype.name != self.dtype:
            import vfw.frontends.tensorflow as tf

            return tf.cast(value, self.dtype)
        return value

    def __enter__(self):
        self._saved.append(get_autocast_scope())
        global_state.set_global_attribute("autocast_scope", self)
        return self

    def __exit__(self, *exc):
        global_state.set_global_attribute("autocast_scope", self._saved.pop())
        return False


# keras.mixed_precision serves the policy class and the global-policy functions under older names too.
Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy

API = {"keras": ["DTypePolicy", "FloatDTypePolicy"], "config": ["dtype_policy", "set_dtype_policy"],
       "dtype_policies": ["DTypePolicy", "FloatDTypePolicy", "get", "serialize", "deserialize"],
       "mixed_precision": ["DTypePolicy", "Policy", "dtype_policy", "global_policy", "set_dtype_policy",
                           "set_global_policy"]}
