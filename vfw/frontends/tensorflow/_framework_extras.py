"""Top-level framework utilities of TF: ``tf.DeviceSpec``, ``tf.AggregationMethod``, ``tf.timestamp``,
``tf.grad_pass_through``, ``tf.hessians``, ``tf.register_tensor_conversion_function``, ``tf.TypeSpec`` and
``tf.type_spec_from_value``.

vfw runs on one host CPU, so a DeviceSpec is only the parsed, printable description TF gives
(``/job:worker/replica:0/task:1/device:GPU:3``); ``tf.hessians``, like ``tf.gradients``, is graph-only in TF and
raises TF's RuntimeError in eager code. Registered conversion functions are consulted by ``convert_to_tensor`` for
values it cannot convert itself (``_dispatch.CONVERSION_FUNCTIONS``, highest priority first). ``tf.TypeSpec`` is an
abstract base class with the existing spec classes (TensorSpec, SparseTensorSpec, RaggedTensorSpec,
TensorArraySpec) registered as virtual subclasses, so ``isinstance(spec, tf.TypeSpec)`` holds as in TF.
"""

import abc
import numbers
import time

import numpy as np

from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow._custom_gradient import custom_gradient
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._ragged_spec import RaggedTensorSpec
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, SparseTensorSpec
from vfw.frontends.tensorflow._tensor_array import TensorArraySpec
from vfw.frontends.tensorflow._tensor_spec import TensorSpec


class AggregationMethod:
    """How gradients of one tensor from several consumers are summed (vfw always adds them: every method gives the
    same sums)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


# -- DeviceSpec ---------------------------------------------------------------------------------------------
_FIELDS = ("job", "replica", "task", "device_type", "device_index")


def _device_type(value):
    """TF spells the legacy ``cpu``/``gpu`` in capitals; other device types are kept as given."""
    return value.upper() if value in ("cpu", "gpu") else value


class DeviceSpec:
    """An immutable device description ``/job:<job>/replica:<r>/task:<t>/device:<type>:<index>``.

    Parameters
    ----------
    job : str, optional
    replica, task, device_index : int, optional
    device_type : str, optional
        ``"CPU"``, ``"GPU"``... (``"cpu"``/``"gpu"`` are capitalised).
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_string")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = None if device_type is None else _device_type(str(device_type))
        self._device_index = None if device_index is None else int(device_index)
        self._string = self._render()

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def _render(self):
        parts = [f"/{field}:{value}" for field, value in (("job", self._job), ("replica", self._replica),
                                                          ("task", self._task)) if value is not None]
        if self._device_type is not None:
            index = "*" if self._device_index is None else self._device_index
            parts.append(f"/device:{self._device_type}:{index}")
        return "".join(parts)

    @classmethod
    def from_string(cls, spec):
        """The DeviceSpec of a string such as ``/job:w/task:0/device:GPU:1`` (or the legacy ``/gpu:1``).

        Raises
        ------
        ValueError
            For an unknown field, a second device, or a non-integer replica/task/index.
        """
        return cls(**_parse(spec))

    def parse_from_string(self, spec):
        """The DeviceSpec of ``spec`` alone, whatever this one holds (TF's deprecated form of ``from_string``)."""
        return DeviceSpec(**_parse(spec))

    def to_string(self):
        """The string form, e.g. ``/job:worker/replica:0/task:1/device:GPU:3``."""
        return self._string

    def replace(self, **kwargs):
        """A copy with the given fields (``job=``, ``replica=``, ``task=``, ``device_type=``, ``device_index=``)."""
        fields = {name: getattr(self, name) for name in _FIELDS}
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def make_merged_spec(self, dev):
        """A copy whose fields are ``dev``'s where ``dev`` sets them."""
        return self.replace(**{name: getattr(dev, name) for name in _FIELDS if getattr(dev, name) is not None})

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._string == other._string

    def __hash__(self):
        return hash(self._string)

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in _FIELDS)
        return f"<DeviceSpec({fields})>"


def _parse(spec):
    fields = dict.fromkeys(_FIELDS)
    device_seen = False
    for part in spec.split("/"):
        if not part:
            continue
        pieces = part.split(":")
        head = pieces[0]
        if len(pieces) == 2 and head in ("job", "replica", "task"):
            fields[head] = pieces[1] if head == "job" else int(pieces[1])
            continue
        legacy = head.lower() in ("cpu", "gpu") and len(pieces) <= 2
        if not legacy and not (head == "device" and len(pieces) == 3):
            raise ValueError(f"Unknown attribute '{head}' is encountered while parsing the device spec: '{spec}'.")
        if device_seen:
            raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
        device_seen = True
        kind, index = (head.upper(), pieces[1:]) if legacy else (pieces[1], pieces[2:])
        fields["device_type"] = kind
        fields["device_index"] = int(index[0]) if index and index[0] != "*" else None
    return fields


# -- TypeSpec ------------------------------------------------------------------------------------------------
class TypeSpec(abc.ABC):
    """Base class of the type descriptions of tensor-like values (``tf.TensorSpec``, ``tf.RaggedTensorSpec``...).

    A subclass describes how its values decompose into tensors: ``value_type``, ``_component_specs``,
    ``_to_components(value)``, ``_from_components(components)`` and ``_serialize()`` (the constructor arguments that
    identify the spec: equal specs serialize equally).
    """

    @property
    @abc.abstractmethod
    def value_type(self):
        """The Python type of the values this spec describes."""

    @property
    @abc.abstractmethod
    def _component_specs(self):
        """The (nested) specs of the tensors a value decomposes into."""

    @abc.abstractmethod
    def _to_components(self, value):
        """The (nested) tensors of ``value``."""

    @abc.abstractmethod
    def _from_components(self, components):
        """The value rebuilt from ``_to_components``' output."""

    @abc.abstractmethod
    def _serialize(self):
        """A tuple of the constructor arguments."""

    def __eq__(self, other):
        return type(self) is type(other) and self._serialize() == other._serialize()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self), self._serialize()))


for _spec_class in (TensorSpec, SparseTensorSpec, RaggedTensorSpec, TensorArraySpec):
    TypeSpec.register(_spec_class)


def type_spec_from_value(value):
    """The TypeSpec of ``value``: a composite's own spec (SparseTensor, RaggedTensor, TensorArray), else the
    TensorSpec of ``value`` converted to a tensor.

    Raises
    ------
    TypeError
        When ``value`` converts to no tensor (a dict...).
    """
    if isinstance(value, SparseTensor):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    spec = getattr(value, "_type_spec", None)
    if spec is not None:
        return spec
    try:
        tensor = _dispatch.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type {type(value)}.") from None
    return TensorSpec.from_tensor(tensor)


# -- functions ----------------------------------------------------------------------------------------------
def timestamp(name=None):
    """The current time in seconds since the epoch, as a float64 scalar tensor."""
    return _dispatch.wrap(np.asarray(time.time(), np.float64))


def grad_pass_through(f):
    """``f`` whose gradient is the identity: the upstream gradient passes to ``f``'s inputs unchanged (for
    non-differentiable steps such as rounding or assignments).

    Parameters
    ----------
    f : callable
        Takes tensors and returns tensors shaped as its inputs.

    Returns
    -------
    callable
    """
    @custom_gradient
    def passed_through(*args, **kwargs):
        def grad(*upstream, variables=None):
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream

        return f(*args, **kwargs), grad

    return passed_through


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """Symbolic Hessians: graph-only in TF (built on ``tf.gradients``), so TF's RuntimeError in eager code; take
    nested ``tf.GradientTape``\\ s (``tape.jacobian`` of a gradient) instead."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.")


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Make ``convert_to_tensor`` (and so every op) accept instances of ``base_type``.

    Parameters
    ----------
    base_type : type or tuple of types
        Not a Python number or numpy type (TypeError, as TF).
    conversion_func : callable
        ``conversion_func(value, dtype=None, name=None, as_ref=False)`` returning a tensor (or NotImplemented to
        leave the value to the next function).
    priority : int
        Lower runs first among the functions that accept a value.
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types):
        raise TypeError(f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}")
    if any(issubclass(t, (numbers.Number, np.generic, np.ndarray)) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")
    _dispatch.CONVERSION_FUNCTIONS.append((priority, types, conversion_func))
    _dispatch.CONVERSION_FUNCTIONS.sort(key=lambda entry: entry[0])  # stable: same priority, registration order


NAMESPACES = {"tf": ["AggregationMethod", "DeviceSpec", "timestamp", "grad_pass_through", "hessians",
                     "register_tensor_conversion_function", "TypeSpec", "type_spec_from_value"]}
TENSOR_METHODS = {}
