"""torch.autograd.Function: user-defined forward and backward."""

import functools

import numpy as np

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch


class FunctionCtx:
    """The ``ctx`` of a custom Function: what forward leaves for backward."""

    def __init__(self):
        self._saved = ()
        self._versions = ()
        self._node = None
        self.needs_input_grad = ()
        self.materialize_grads = True
        self._non_differentiable = set()
        self._dirty = set()

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward, as ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, CoreTensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._saved = tuple(tensors)
        self._versions = tuple(_dispatch.version_counter(t)[0] if t is not None else None for t in tensors)

    @property
    def saved_tensors(self):
        """tuple: the tensors given to ``save_for_backward`` (refused after the graph was freed)."""
        if self._node is not None and self._node.inputs is None:  # freed by a backward
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                               "tensors after they have already been freed). Saved intermediate values of the "
                               "graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or if "
                               "you need to access saved tensors after calling backward.")
        for t, v in zip(self._saved, self._versions):
            if t is not None and _dispatch.version_counter(t)[0] != v:
                raise RuntimeError("one of the variables needed for gradient computation has been modified by an "
                                   f"inplace operation: [{t.type()} {list(t.shape)}] is at version "
                                   f"{_dispatch.version_counter(t)[0]}; expected version {v} instead.")
        return self._saved

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors):
        """Outputs that never carry a gradient."""
        self._non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        """Inputs that forward modified in place."""
        self._dirty.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        """Whether backward receives zeros (True, default) or None for outputs without a gradient."""
        self.materialize_grads = bool(value)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_name = f"{name}Backward"


class Function(metaclass=_FunctionMeta):
    """Base class of user-defined differentiable operations.

    Subclasses define ``forward(ctx, *args)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)``
    as static methods, and are called with ``MyFunction.apply(*args)``.
    ``backward`` returns one gradient (or None) per forward argument.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, CoreTensor) and a.requires_grad for a in args)
        separate = cls.setup_context is not Function.setup_context
        with autograd.no_grad():
            outputs = cls.forward(*args, **kwargs) if separate else cls.forward(ctx, *args, **kwargs)
            if separate:
                cls.setup_context(ctx, args, outputs)
        multi = isinstance(outputs, tuple)
        outs = list(outputs) if multi else [outputs]
        inputs = tuple(a if isinstance(a, CoreTensor) else None for a in args)
        for i, o in enumerate(outs):
            if isinstance(o, CoreTensor):
                o = _dispatch.as_torch(o)
                if any(o is x for x in inputs) and id(o) not in ctx._dirty:
                    o = _dispatch.wrap(o.array)  # an input returned as is becomes a new tensor (a view in torch)
                outs[i] = o
        if autograd.is_grad_enabled() and any(ctx.needs_input_grad):
            slots = [i for i, o in enumerate(outs) if isinstance(o, CoreTensor)]
            node = autograd.Node(None, inputs, tuple(outs[i].array for i in slots),
                                 backward_fn=_Backward(cls, ctx, len(args), slots, len(outs)))
            ctx._node = node
            for k, i in enumerate(slots):
                o = outs[i]
                differentiable = id(o) not in ctx._non_differentiable and (
                    o.array.dtype.kind in "fc" or o.array.dtype == np.dtype("bfloat16"))
                if differentiable:
                    o.requires_grad = True
                    o.grad_node = node
                    o.grad_slot = k
        return tuple(outs) if multi else outs[0]


class _Backward:
    """The engine-side backward of one ``Function.apply`` call."""

    def __init__(self, cls, ctx, n_args, slots, n_outputs):
        self.cls, self.ctx, self.n_args, self.slots, self.n_outputs = cls, ctx, n_args, slots, n_outputs
        self.function_name = cls.__name__

    def __call__(self, *out_grads):
        grads = [None] * self.n_outputs
        for i, g in zip(self.slots, out_grads):
            grads[i] = _dispatch.as_torch(g)
        if not self.ctx.materialize_grads:
            grads = [None if g is not None and not g.array.any() and g.grad_node is None else g for g in grads]
        result = self.cls.backward(self.ctx, *grads)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) != self.n_args:
            if len(result) > self.n_args and all(r is None for r in result[self.n_args:]):
                result = result[:self.n_args]
            else:
                raise RuntimeError(f"function {self.cls._backward_name} returned an incorrect number of gradients "
                                   f"(expected {self.n_args}, got {len(result)})")
        out = []
        for r, x, need in zip(result, self.ctx._node.inputs if self.ctx._node else (), self.ctx.needs_input_grad):
            if r is not None and not isinstance(r, CoreTensor):
                raise TypeError(f"function {self.cls._backward_name} returned a gradient of type "
                                f"{type(r).__name__}, expected a Tensor or None")
            if r is not None and x is not None and r.array.shape != x.array.shape:
                try:
                    r = _dispatch.call("Expand", r, np.asarray(x.array.shape, np.int64)) \
                        if np.broadcast_shapes(r.array.shape, x.array.shape) == x.array.shape else None
                except ValueError:
                    r = None
                if r is None:
                    raise RuntimeError(f"Function {self.cls._backward_name} returned an invalid gradient at index "
                                       f"{len(out)} - got {list(result[len(out)].shape)} but expected shape "
                                       f"compatible with {list(x.array.shape)}")
            out.append(r if need else None)
        return tuple(out)


class once_differentiable:  # noqa: N801
    """Decorator for a backward that is not itself differentiable.

    The backward runs without recording. Where the graph of the gradient is being built (``create_graph=True``
    with gradients that require grad), its tensor results require grad through a node that raises when a
    later backward reaches it, as torch's do: differentiating them would otherwise silently miss this term.
    """

    def __new__(cls, fn):
        @functools.wraps(fn)
        def wrapper(ctx, *args):
            with autograd.no_grad():
                result = fn(ctx, *args)
            if not (autograd.is_grad_enabled() and any(isinstance(a, CoreTensor) and a.requires_grad for a in args)):
                return result
            if isinstance(result, tuple):
                return tuple(_fails_when_differentiated(r) for r in result)
            return _fails_when_differentiated(result)
        return wrapper


def _differentiated_twice(*_grads):
    raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def _fails_when_differentiated(t):
    """``t``'s values in a tensor that requires grad through a node whose backward raises."""
    if not isinstance(t, CoreTensor):
        return t
    stand_in_leaf = _dispatch.wrap(t.array, requires_grad=True)  # a leaf, so that the node has an edge to reach
    node = autograd.Node(None, (stand_in_leaf,), (t.array,), backward_fn=_differentiated_twice)
    out = _dispatch.wrap(t.array, requires_grad=True)
    out.grad_node = node
    out.grad_slot = 0
    return out
