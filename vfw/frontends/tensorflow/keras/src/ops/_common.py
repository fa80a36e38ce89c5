"""What the keras.ops modules share: Keras' tensor conversion, dtype promotion and symbolic dispatch.

Keras ops promote dtypes numpy-style (``backend.result_type``): a Python ``int``/``float`` operand
of an arithmetic op is a *weak* type that takes the other operand's kind and width; lists and
numpy values convert as TF converts them (float32/int32, numpy dtypes kept).  Ops called on
KerasTensors (``keras.Input``) record an Operation in the functional graph instead of computing.
"""

import functools
import inspect

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._tensor import Tensor
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import ALLOWED_DTYPES, result_type, standardize_dtype
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import any_symbolic_tensors
from vfw.frontends.tensorflow.keras.src.engine.operation import Operation

_DTYPE_NAMES = frozenset(ALLOWED_DTYPES)


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a tf tensor (Keras variables read), cast to ``dtype`` when given.

    Integer and bool targets convert ``x`` with TF's own inference first, then cast (so
    ``convert_to_tensor(1.7, "int32")`` truncates rather than failing as TF's conversion would).
    """
    if dtype is not None and dtype not in _DTYPE_NAMES:
        dtype = standardize_dtype(dtype)
    if not tf.is_tensor(x):
        if dtype == "bool" or (dtype is not None and "int" in dtype):
            return tf.cast(tf.convert_to_tensor(x), dtype)
        return tf.convert_to_tensor(x, dtype=dtype)
    if not isinstance(x, tf.Tensor):  # a variable (Keras' dtype is a string): its value
        x = tf.convert_to_tensor(x)
    if dtype is not None and x.dtype.name != dtype:
        return tf.cast(x, dtype)
    return x


def cast_to(x, dtype):
    """Tensor ``x`` cast to the dtype named ``dtype`` (``x`` itself when it has it)."""
    return x if x.dtype.name == dtype else tf.cast(x, dtype)


def operand(x):
    """A binary op's operand: Python ints/floats stay (weak types), anything else becomes a tensor."""
    return x if isinstance(x, (int, float)) else convert_to_tensor(x)


def operand_dtype(x):
    """``x``'s dtype for promotion: the Python type of a scalar operand, else the tensor's dtype."""
    return type(x) if isinstance(x, (int, float)) else x.dtype.name


def promoted(*xs, extra=()):
    """``xs`` (``operand`` values) converted to their promoted dtype (with ``extra`` dtypes joining)."""
    dtype = result_type(*(operand_dtype(x) for x in xs), *extra)
    return [convert_to_tensor(x, dtype) for x in xs]


def promoted_tensors(*xs, extra=()):
    """``xs`` converted to tensors (no weak types: scalars convert as TF converts them), then to their
    common dtype (with ``extra`` dtypes joining): comparisons and most non-arithmetic binary ops
    promote this way."""
    tensors = [convert_to_tensor(x) for x in xs]
    dtype = result_type(*(t.dtype.name for t in tensors), *extra)
    return [cast_to(t, dtype) for t in tensors]


def float_of(x):
    """``x`` as a tensor cast to the float type Keras' elementwise math uses for it: int64 -> floatx,
    other ints and bool -> their float promotion (``result_type(dtype, float)``), floats unchanged."""
    x = convert_to_tensor(x)
    return cast_to(x, config.floatx() if x.dtype.name == "int64" else result_type(x.dtype.name, float))


def to_floatx_if_integer(x):
    """``x`` as a tensor, ints and bools cast to ``floatx()`` (floats unchanged)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    return tf.cast(x, config.floatx()) if "int" in dtype or dtype == "bool" else x


def axis_tuple(axis):
    """None, an int or a sequence of ints as None or a list."""
    if axis is None:
        return None
    return list(axis) if isinstance(axis, (list, tuple)) else [axis]


def canonicalize_axis(axis, ndim):
    """``axis`` in ``[0, ndim)`` (negative axes count from the end), ValueError (Keras' message) when out of
    range."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array with dimension {ndim}.")
    return axis % ndim if ndim else 0


# Keras class name ("Mean", "TopK") -> the Operation class of that keras.ops function: functional model configs
# name the operations recorded on KerasTensors by these classes, and deserialization resolves them here.
OPERATION_CLASSES = {}


class FunctionOperation(Operation):
    """The Operation a keras.ops function records when called on KerasTensors (one subclass per function).

    As in Keras, the call's non-tensor arguments (``axis``, ``keepdims``, einsum's ``subscripts``...) are the
    constructor arguments, hence the config, and the arguments holding KerasTensors are the node's inputs.
    """

    function = None

    def __init__(self, name=None, **attributes):
        super().__init__(name=name)
        self.attributes = attributes

    def call(self, *tensors):
        args, kwargs = _merged_arguments(inspect.signature(type(self).function), tensors, self.attributes)
        return type(self).function(*args, **kwargs)


# Parameters Keras' operations take in ``call`` (node inputs) even when given a constant (``ops.where(c, x, 0.5)``).
_TENSOR_PARAMETERS = frozenset({"x", "x1", "x2", "condition"})


def _split_arguments(signature, args, kwargs):
    """``(tensors, attributes)``: the values of the parameters holding KerasTensors (or named as Keras' tensor
    inputs), in signature order, and
    the other parameters by name (defaults included, as Keras' operation configs list them)."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    tensors, attributes = [], {}
    for parameter in signature.parameters.values():
        value = bound.arguments.get(parameter.name)
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            tensors.extend(value)
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            attributes.update(value)
        elif parameter.name in _TENSOR_PARAMETERS or any_symbolic_tensors((value,)):
            tensors.append(value)
        else:
            attributes[parameter.name] = value
    return tensors, attributes


def _merged_arguments(signature, tensors, attributes):
    """The ``(args, kwargs)`` that call the function again: ``tensors`` fill, in order, the parameters
    ``attributes`` does not name (a variadic parameter takes the rest)."""
    args, kwargs, remaining = [], dict(attributes), list(tensors)
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(remaining)
            remaining = []
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        elif parameter.name in kwargs:
            if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
                args.append(kwargs.pop(parameter.name))
        elif remaining:
            args.append(remaining.pop(0))
    return args, kwargs


# Keras' operation classes whose names are not the function's name in camel case, and the Keras modules of the
# functions vfw's ops modules group differently (products with linalg, logdet with numpy...).
_KERAS_CLASS_NAMES = {"searchsorted": "SearchSorted", "svd": "SVD", "cdist": "CDist", "psnr": "PSNR",
                      "ctc_loss": "CTCLoss", "ctc_decode": "CTCDecode", "allclose": "AllClose", "isin": "IsIn",
                      "fft": "FFT", "fft2": "FFT2", "ifft2": "IFFT2", "rfft": "RFFT", "irfft": "IRFFT", "stft": "STFT",
                      "istft": "ISTFT"}
_KERAS_FAMILIES = {"matmul": "numpy", "dot": "numpy", "tensordot": "numpy", "outer": "numpy", "inner": "numpy",
                   "vdot": "numpy", "einsum": "numpy", "cross": "numpy", "slogdet": "numpy", "logdet": "math",
                   "lu_factor": "linalg", "eig": "linalg", "angle": "numpy", "polar": "nn"}


def _operation_class(function):
    """The Operation subclass recording ``function`` (Keras' class name and module, e.g.
    ``keras.src.ops.numpy.Mean``), registered in ``OPERATION_CLASSES``."""
    name = function.__name__
    class_name = _KERAS_CLASS_NAMES.get(name) or "".join(part[:1].upper() + part[1:] for part in name.split("_"))
    # numpy_reduce -> numpy, nn_conv -> nn
    family = _KERAS_FAMILIES.get(name) or function.__module__.rpartition(".")[2].split("_")[0]
    cls = type(class_name, (FunctionOperation,), {"function": staticmethod(function),
                                                  "__module__": f"keras.src.ops.{family}"})
    OPERATION_CLASSES.setdefault(class_name, cls)
    return cls


# Argument types that cannot be or hold a KerasTensor: calls made only of them skip the full search.
_CONCRETE = (Tensor, np.ndarray, np.generic, int, float, str, type(None))


def keras_op(function):
    """Make ``function`` a keras.ops function: on KerasTensors it records an Operation node (its output
    spec inferred by running it on zeros), on anything else it computes."""

    operation_class = _operation_class(function)
    signature = inspect.signature(function)

    @functools.wraps(function)
    def op(*args, **kwargs):
        concrete = all(isinstance(a, _CONCRETE) for a in args) and all(
            isinstance(v, _CONCRETE) for v in kwargs.values())
        if not concrete and any_symbolic_tensors(args, kwargs):
            tensors, attributes = _split_arguments(signature, args, kwargs)
            return operation_class(**attributes)(*tensors)
        return function(*args, **kwargs)

    op.eager = function
    return op
