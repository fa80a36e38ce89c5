"""torch.nn.Parameter and torch.nn.Buffer: tensors a Module registers on assignment."""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._tensor import Tensor

_new = object.__new__


def _differentiable_dtype(array):
    return array.dtype.kind in "fc" or array.dtype.name == "bfloat16"


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a ``Module`` attribute registers it.

    ``Parameter(data)`` shares ``data``'s memory as a new leaf (detached from any graph);
    operations on a parameter give plain tensors.

    Parameters
    ----------
    data : Tensor, optional
        The values (an empty float tensor when omitted).
    requires_grad : bool
        Whether the parameter requires grad (default True; floating point and complex dtypes only).
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _dispatch.wrap(_empty())
        if not isinstance(data, CoreTensor):  # torch fails on the missing tensor method
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach' (Parameter() needs a "
                                 "Tensor)")
        if requires_grad and not _differentiable_dtype(data.array):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        p = _new(cls)
        p.array = data.array
        p.requires_grad = bool(requires_grad)
        p.grad_node = None
        p._hooks = None
        if isinstance(data, Tensor) and data.__dict__:
            p.__dict__.update(data.__dict__)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__ (Tensor.__init__ would re-read ``data``)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        # torch copies the values and requires_grad only (no grad, no extra attributes).
        if id(self) not in memo:
            memo[id(self)] = type(self)(_dispatch.wrap(self.array.copy()), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.array, self.requires_grad, dict(self.__dict__)))


def _empty():
    return np.empty(0, _dtype.default_float_np())


def _rebuild_parameter(array, requires_grad, attributes):
    p = Parameter(_dispatch.wrap(array), requires_grad)
    p.__dict__.update(attributes)
    return p


class _BufferMeta(type):
    # ``isinstance(t, Buffer)`` is true for tensors made by ``Buffer(...)``, which are plain tensors.
    def __instancecheck__(cls, instance):
        return isinstance(instance, CoreTensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor that a ``Module`` registers as a buffer when it is assigned to an attribute.

    ``Buffer(data)`` returns a plain tensor (detached from ``data``'s graph, same memory) marked
    as a buffer.

    Parameters
    ----------
    data : Tensor, optional
        The values (an empty float tensor when omitted).
    persistent : bool
        Whether the buffer is part of the module's ``state_dict``.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _dispatch.wrap(_empty())
        t = _dispatch.wrap(data.array, data.requires_grad and data.grad_node is None)
        t._is_buffer = True
        t.persistent = persistent
        return t


class UninitializedTensorMixin:
    """A tensor of a lazy module whose shape is not known yet (it holds no values until ``materialize``)."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor ``shape`` (uninitialized values, the dtype it was made with unless ``dtype``) and
        turn it into a ``cls_to_become``."""
        np_dtype = self.array.dtype if dtype is None else _dtype.to_np(dtype)
        self.array = np.empty(tuple(shape), np_dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__


def _uninitialized(cls, requires_grad, dtype):
    t = _new(cls)
    t.array = np.empty(0, _dtype.default_float_np() if dtype is None else _dtype.to_np(dtype))
    t.requires_grad = bool(requires_grad)
    t.grad_node = None
    t._hooks = None
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module, materialized (as a ``Parameter``) at the module's first forward."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module, materialized (as a plain tensor) at the module's first forward."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _uninitialized(cls, requires_grad, dtype)
        t._is_buffer = True
        t.persistent = persistent
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


def is_lazy(param):
    """bool: whether ``param`` is an uninitialized (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
