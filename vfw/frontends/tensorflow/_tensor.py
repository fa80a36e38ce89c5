"""tf.Tensor over the engine tensor: properties, conversions, repr; its eager and symbolic value classes.

Operators and math methods are bound from the op family modules (their ``TENSOR_METHODS``) by
``_families.install``; this file holds what is specific to the tensor object itself.
"""

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, _symbolic_names
from vfw.frontends.tensorflow._shape import TensorShape

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _traced_shapes():
    from vfw.frontends.tensorflow import _traced_shapes as module  # it imports the ops, which import this module

    return module


class TensorBase(CoreTensor):
    """A multi-dimensional array with TensorFlow semantics (TF's dtypes, no implicit promotion): ``tf.Tensor``.

    Tensors are immutable values; create them with ``tf.constant`` / ``tf.convert_to_tensor``
    or as results of ops. Every value is an instance of a subclass, as in TF: :class:`Tensor` (TF's EagerTensor)
    outside tf.function traces, :class:`SymbolicTensor` inside them.
    """

    __slots__ = ("__dict__",)  # attributes may be attached (Keras attaches masks)
    __array_priority__ = 100  # numpy defers binary operators to the tensor's
    # The operators TF's ``tf.Tensor`` lets other types overload (its public class attribute).
    OVERLOADABLE_OPERATORS = {
        "__abs__", "__add__", "__and__", "__div__", "__eq__", "__floordiv__", "__ge__", "__getitem__", "__gt__",
        "__invert__", "__le__", "__lt__", "__matmul__", "__mod__", "__mul__", "__ne__", "__neg__", "__or__",
        "__pow__", "__radd__", "__rand__", "__rdiv__", "__rfloordiv__", "__rmatmul__", "__rmod__", "__rmul__",
        "__ror__", "__rpow__", "__rsub__", "__rtruediv__", "__rxor__", "__sub__", "__truediv__", "__xor__"}

    def __init__(self, *args, **kwargs):
        raise TypeError("Tensors are created with tf.constant or tf.convert_to_tensor, not tf.Tensor(...)")

    # -- what it is --------------------------------------------------------------------------------
    @property
    def shape(self):
        """TensorShape: the shape; inside a tf.function, the static shape (``None`` for the dims that follow each
        call's values, as TF: ``tf.shape(x)`` gives the dynamic one)."""
        if _tracing:
            return TensorShape(_traced_shapes().shown_shape(self))
        return TensorShape(self.array.shape)

    def get_shape(self):
        """TensorShape: the shape (``tensor.shape``)."""
        return self.shape

    def set_shape(self, shape):
        """Check ``shape`` is compatible with the tensor's; inside a tf.function, its dims refine the static shape."""
        known = self.shape
        if not known.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {known} is not compatible with supplied shape {TensorShape(shape)}.")
        if _tracing and (known.rank is None or None in known.as_list()) and TensorShape(shape).rank is not None:
            _traced_shapes().refine_static_shape(self, TensorShape(shape).as_list())

    @property
    def dtype(self):
        """DType: the element type."""
        return _dtypes.of_array(self.array)

    @property
    def ndim(self):
        """int: the number of dimensions."""
        return self.array.ndim

    @property
    def device(self):
        """str: the device name (always the CPU)."""
        return DEVICE

    backing_device = device

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def value_index(self):
        raise AttributeError("Tensor.value_index is undefined when eager execution is enabled.")

    @property
    def is_packed(self):
        """bool: False (a packed tensor spans several devices; vfw has one)."""
        return False

    def consumers(self):
        raise NotImplementedError("Tensor.consumers is undefined when eager execution is enabled.")

    def eval(self, feed_dict=None, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, is .numpy() what you're "
                                  "looking for?")

    def cpu(self):
        """A copy of this tensor on the CPU (deprecated in TF for ``tf.identity``; differentiable)."""
        from vfw.frontends.tensorflow._creation import identity  # the ops import this module

        return identity(self)

    def gpu(self, gpu_index=0):
        """Refused: vfw has no GPU device (TF's error on a machine without one)."""
        raise RuntimeError(f"GPU:{gpu_index} unknown device.")

    def numpy(self):
        """A numpy copy of the values (strings as bytes objects)."""
        return self.array.copy() if self.array.ndim else self.array.reshape(()).copy()[()]

    def __array__(self, dtype=None, copy=None):
        if _tracing:
            _traced_shapes().refuse_python_value(self, "array")
        array = self.array if dtype is None else self.array.astype(dtype)
        return array.copy() if copy else array

    def ref(self):
        """A hashable reference to this tensor (tensors themselves are unhashable)."""
        return _Reference(self)

    experimental_ref = ref

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    # -- Python protocol -----------------------------------------------------------------------------
    def __repr__(self):
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={_numpy_text(self, True)}>"

    def __str__(self):
        return f"tf.Tensor({_numpy_text(self, False)}, shape={self.shape}, dtype={self.dtype.name})"

    def __format__(self, spec):
        # as TF: the numpy value's format (f"{loss:.4f}", f"{tf.constant(0.1)}" -> "0.1", arrays as numpy prints)
        return self.array.__format__(spec)

    def __len__(self):
        if self.array.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        if _tracing:
            _traced_shapes().refuse_varying_length(self, iterating=False)
        return self.array.shape[0]

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        if _tracing:
            _traced_shapes().refuse_varying_length(self, iterating=True)
        return (_dispatch.wrap(self.array[i]) for i in range(self.array.shape[0]))

    def __bool__(self):
        return bool(self.array)

    # Under a graph trace, a Python value read from a tensor that varies between runs would be frozen: refused.
    def __int__(self):
        if _tracing:
            _traced_shapes().refuse_python_value(self, "int")
        return int(self.array)

    def __float__(self):
        if _tracing:
            _traced_shapes().refuse_python_value(self, "float")
        return float(self.array)

    def __complex__(self):
        if _tracing:
            _traced_shapes().refuse_python_value(self, "complex")
        return complex(self.array)

    def __index__(self):
        if _tracing:
            _traced_shapes().refuse_python_value(self, "index")
        if self.array.ndim:  # TF's errors come from the numpy value
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        if self.array.dtype.kind not in "iu":
            raise AttributeError(f"'numpy.{self.array.dtype.name}' object has no attribute '__index__' (only integer "
                                 "scalar tensors can be used as an index)")
        return int(self.array)

    def __reduce__(self):
        return (_rebuild, (self.array,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self  # tensors are immutable values


def _rebuild(array):
    return _dispatch.wrap(array)


def _numpy_text(t, is_repr):
    array = t.array
    if array.ndim == 0:
        value = array.item()
        text = repr(value) if is_repr else str(array)
    else:
        text = repr(array) if is_repr else str(array)
    return "\n" + text if "\n" in text else text


class _Reference:
    """``tensor.ref()``: hashable by identity, ``deref()`` gives the tensor back."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def deref(self):
        return self._tensor

    def __hash__(self):
        return id(self._tensor)

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._tensor is self._tensor

    def __repr__(self):
        return f"<Reference wrapping {self._tensor!r}>"


class Tensor(TensorBase):
    """An eager tensor (TF's ``EagerTensor``): the class of tensor values outside tf.function traces.

    The frontend's modules create and test for this class (``x.__class__ is Tensor`` is their fast path).
    """

    __slots__ = ()


class SymbolicTensor(Tensor):
    """A tensor of a tf.function trace (TF's ``SymbolicTensor``): its arguments, results and constants.

    It holds the trace's example values as any tensor; a subclass of :class:`Tensor` so that the frontend's
    ``isinstance(x, Tensor)`` tests take it, while the eager fast paths (``x.__class__ is Tensor``) leave it to the
    executor, which records it in the trace.
    """

    __slots__ = ()
    # What graph runs make of the arrays of outputs traced as symbolic tensors: eager tensors.
    wrap = Tensor.wrap

    @property
    def name(self):
        """str: TF's name of the tensor in the traced graph (``"add:0"``; the argument's name for an argument)."""
        return _symbolic_names.name_of(self)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self):
        shape = self.shape
        shown = "" if shape.rank is None else f", shape={shape}"
        return f'Tensor("{self.name}"{shown}, dtype={self.dtype.name})'


def as_symbolic(tensors):
    """Make the eager tensors among ``tensors`` (an iterable) symbolic; returns them, to be given to
    :func:`as_eager` when the trace ends."""
    retyped = [t for t in tensors if t.__class__ is Tensor]
    for t in retyped:
        t.__class__ = SymbolicTensor
    return retyped


def as_eager(tensors):
    """Make ``tensors`` (from :func:`as_symbolic`) eager again."""
    for t in tensors:
        t.__class__ = Tensor


Tensor.result_class = Tensor
SymbolicTensor.result_class = SymbolicTensor
_dispatch.Tensor = Tensor
_dispatch.SymbolicTensor = SymbolicTensor
