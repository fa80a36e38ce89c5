"""What torch shows of the tensors a ``grad_fn`` saved for backward, and the hooks on a node itself.

The engine keeps every input and output of a recorded op; torch saves per function a known subset (``x * y``
saves ``self`` and ``other``, ``x.exp()`` its ``result``...).  :data:`_SAVED_FIELDS` maps an engine op to torch's
saved fields, so ``grad_fn._saved_self``, ``grad_fn._raw_saved_self`` (a :class:`SavedTensor`) and the
pack-hook calls of ``torch.autograd.graph.saved_tensors_hooks`` follow torch for those ops; other ops pack each
tensor input the engine keeps.  A packed tensor is unpacked just before the node's gradient maker runs and put back
where the maker reads it, so what the unpack hook returns is what backward computes with (the engine still holds
its own reference: packing frees no memory).

:class:`NodeState` also carries ``grad_fn.metadata`` and the hooks of ``grad_fn.register_hook`` /
``register_prehook``; it is attached to the engine node as its ``backward_hooks`` when there is one to run.
"""

import collections
import weakref

import numpy as np

from vfw.core import autograd
from vfw.frontends.torch import _dispatch

# _dispatch.Tensor is the torch Tensor once _tensor.py is loaded (this module is used only after that).

_FREED_HOOKS = ("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
                "to backward through the graph a second time or if you need to access saved variables after calling "
                "backward.")
_HOOKS_SET = ("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of "
              "hooks is allowed at a time.")


class _Field:
    """One saved field: ``name``, where it lives (``kind`` "input" or "output", ``index``), and whether torch
    saves the transpose (``transposed``: ``Gemm``'s ``transA``/``transB`` operands, torch's ``t()`` of them)."""

    __slots__ = ("name", "kind", "index", "transposed")

    def __init__(self, name, kind, index, transposed=False):
        self.name, self.kind, self.index, self.transposed = name, kind, index, transposed


def _requires(node, index):
    return node.edges[index] is not None


def _is_tensor(node, index):
    return isinstance(node.inputs[index], autograd.Tensor)


# A spec lists torch's tensor fields of the node; a field is None (not saved) where torch skips it.
def _mul_fields(node):
    # d(self) needs other and d(other) needs self: torch saves each only when the other side needs a gradient.
    return [_Field("self", "input", 0) if _requires(node, 1) else "self",
            _Field("other", "input", 1) if _requires(node, 0) else "other"]


def _mm_fields(node, self_index, mat2_index, self_name, trans_self=False, trans_mat2=False):
    return [_Field(self_name, "input", self_index, trans_self) if _requires(node, mat2_index) else self_name,
            _Field("mat2", "input", mat2_index, trans_mat2) if _requires(node, self_index) else "mat2"]


def _gemm_fields(node):
    attrs = node.attrs
    if len(node.inputs) == 3 and node.inputs[2] is not None:  # torch's addmm: mat1 then mat2
        return _mm_fields(node, 0, 1, "mat1", attrs.get("transA", 0), attrs.get("transB", 0))
    return _mm_fields(node, 0, 1, "self", attrs.get("transA", 0), attrs.get("transB", 0))[::-1]


def _matmul_fields(node):
    if all(x is not None and np.ndim(x.array if _is_tensor(node, i) else x) == 2 for i, x in enumerate(node.inputs)):
        return _mm_fields(node, 0, 1, "self")[::-1]  # torch's mm packs mat2 before self
    return None


def _unary_self(node):
    return [_Field("self", "input", 0)]


def _unary_result(node):
    return [_Field("result", "output", 0)]


# Engine op -> the fields torch's node saves for it (None: unknown, every tensor input is packed).
_SAVED_FIELDS = {"Mul": _mul_fields, "Gemm": _gemm_fields, "MatMul": _matmul_fields, "Pow": _unary_self}
_SAVED_FIELDS.update(dict.fromkeys(("Sin", "Cos", "Tan", "Log", "Log1p", "Abs", "Sign", "Erf", "Atan", "Asin",
                                    "Acos", "Sinh", "Cosh", "Softplus", "Asinh", "Acosh", "Atanh"), _unary_self))
_SAVED_FIELDS.update(dict.fromkeys(("Exp", "Sigmoid", "Tanh", "Relu", "Sqrt", "Reciprocal", "Expm1"), _unary_result))
_SAVED_FIELDS.update(dict.fromkeys(("Add", "Sub", "Neg", "ReduceSum", "ReduceMean", "Reshape", "Transpose", "Expand",
                                    "Identity", "Cast", "Unsqueeze", "Squeeze", "Concat", "Slice", "Flatten"),
                                   lambda node: []))


def _fields(node):
    """The saved tensor fields of ``node`` (name -> :class:`_Field`, or None for one torch did not save)."""
    if node.op is None or node.inputs is None:
        return {}
    make = _SAVED_FIELDS.get(node.op.schema.op_type)
    fields = None if make is None else make(node)
    if fields is None:
        return {f"input{i}": _Field(f"input{i}", "input", i) for i in range(len(node.inputs)) if _is_tensor(node, i)}
    return {field if isinstance(field, str) else field.name: None if isinstance(field, str) else field
            for field in fields
            if isinstance(field, str) or field.kind == "output" or _is_tensor(node, field.index)}


def _value_fields(node):
    """The non-tensor fields torch shows for ``node``: name -> value."""
    op_type = node.op.schema.op_type if node.op is not None and node.inputs is not None else None
    if op_type == "Pow" and not _is_tensor(node, 1):
        exponent = np.asarray(node.inputs[1])
        return {"exponent": _number(exponent.item()) if exponent.ndim == 0 else _wrap(exponent)}
    if op_type in ("ReduceSum", "ReduceMean") and node.inputs is not None:
        return {"self_sym_sizes": tuple(node.inputs[0].array.shape)}
    if op_type == "Mul" and not _is_tensor(node, 1) and _requires(node, 0):
        return {"other": _wrap(node.inputs[1])}
    if op_type == "Gemm":
        return {"alpha": _number(node.attrs.get("alpha", 1.0)), "beta": _number(node.attrs.get("beta", 1.0))}
    return {}


def _wrap(array):
    """A torch tensor (no autograd history) of ``array``."""
    return _dispatch.as_torch(autograd.Tensor.wrap(np.asarray(array)))


def _number(value):
    return int(value) if float(value).is_integer() else value


class SavedTensor:
    """``torch._C._autograd.SavedTensor``: one tensor a node saved for backward (``grad_fn._raw_saved_<name>``)."""

    __slots__ = ("_node_ref", "_field", "_packed", "_unpack_hook")

    def __init__(self, node, field):
        self._node_ref = weakref.ref(node)
        self._field = field
        self._packed = None
        self._unpack_hook = None

    def _stored(self):
        """The tensor as the node holds it (torch's view of it: transposed where torch saves ``t()``)."""
        node = self._node_ref()
        field = self._field
        if field.kind == "output":
            return _dispatch.as_torch(node.output(field.index))
        value = node.inputs[field.index]
        if field.transposed:
            return _wrap(value.array.T)
        return _dispatch.as_torch(value)

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack this saved tensor now with ``pack_hook``; backward will read ``unpack_hook(packed)``.

        Raises
        ------
        TypeError
            When a hook is not callable.
        RuntimeError
            When the graph was freed or hooks were already set.
        """
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: Callable, arg1: "
                            f"Callable) -> None\n\nInvoked with: {self!r}, {pack_hook!r}, {unpack_hook!r}")
        node = self._node_ref()
        if node is None or node.inputs is None:
            raise RuntimeError(_FREED_HOOKS)
        if self._unpack_hook is not None:
            raise RuntimeError(_HOOKS_SET)
        self._pack(pack_hook, unpack_hook)
        node_state(node).attach()

    def _pack(self, pack_hook, unpack_hook):
        with autograd.no_grad():  # as torch: what a hook computes is not recorded (nor packed again)
            self._packed = pack_hook(self._stored())
        self._unpack_hook = unpack_hook

    def value(self):
        """The saved tensor (what the unpack hook returns when hooks are set); torch's RuntimeError once freed."""
        node = self._node_ref()
        if node is None:
            raise RuntimeError(_FREED_HOOKS)
        node._check_alive()
        if self._unpack_hook is None:
            return self._stored()
        with autograd.no_grad():
            unpacked = self._unpack_hook(self._packed)
        if not isinstance(unpacked, autograd.Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(unpacked).__name__}")
        return unpacked

    def restore(self, node):
        """Put the unpacked tensor back where the node's gradient maker reads it (a no-op without hooks)."""
        if self._unpack_hook is None:
            return
        field = self._field
        unpacked = self.value()
        array = unpacked.array.T if field.transposed else unpacked.array
        held = node._outputs[field.index] if field.kind == "output" else node.inputs[field.index].array
        if array.shape != held.shape or array.dtype != held.dtype:
            raise RuntimeError(f"saved tensor unpack_hook returned a tensor of shape {tuple(array.shape)} and dtype "
                               f"{array.dtype} for a saved tensor of shape {tuple(held.shape)} and dtype {held.dtype}")
        if field.kind == "output":
            node._outputs = node._outputs[:field.index] + (array,) + node._outputs[field.index + 1:]
        else:
            replaced = node.inputs[field.index]
            tensor = _wrap(array)  # the unpacked value, where the saved input's gradient flows
            tensor.requires_grad, tensor.grad_node = replaced.requires_grad, replaced.grad_node
            tensor.grad_slot = getattr(replaced, "grad_slot", 0)
            node.inputs = node.inputs[:field.index] + (tensor,) + node.inputs[field.index + 1:]

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


SavedTensor.__module__ = "torch._C._autograd"


class NodeState:
    """The frontend's state of one engine node: saved tensors, ``metadata``, ``grad_fn`` hooks."""

    __slots__ = ("_node_ref", "saved", "metadata", "pre_hooks", "post_hooks", "__weakref__")

    def __init__(self, node):
        self._node_ref = weakref.ref(node)
        self.saved = {name: None if field is None else SavedTensor(node, field)
                      for name, field in _fields(node).items()}
        self.metadata = {}
        self.pre_hooks = collections.OrderedDict()  # (RemovableHandle keeps a weak reference: a dict has none)
        self.post_hooks = collections.OrderedDict()

    def attach(self):
        """Make the engine run :meth:`before`/:meth:`after` for the node."""
        self._node_ref().backward_hooks = self

    def before(self, node, out_grads):
        for saved in self.saved.values():
            if saved is not None:
                saved.restore(node)
        for hook in tuple(self.pre_hooks.values()):
            new = hook(tuple(map(_dispatch.as_torch, out_grads)))
            if new is not None:
                out_grads[:] = list(new)

    def after(self, node, out_grads, in_grads):
        if any(saved is not None and saved._unpack_hook is not None for saved in self.saved.values()):
            from vfw.frontends.torch.autograd import _engine  # (imports the frontend: bound on use)
            _engine.queue_callback(self._drop_packed_if_released)
        if not self.post_hooks:
            return in_grads
        grads = tuple(_dispatch.as_torch(g) if need else None for g, need in zip(in_grads, node.needs_input_grad))
        for hook in tuple(self.post_hooks.values()):
            new = hook(grads, tuple(map(_dispatch.as_torch, out_grads)))
            if new is not None:
                grads = tuple(new)
        return grads


    def _drop_packed_if_released(self):
        """After a backward that freed the graph, let go of what the pack hooks returned (as torch frees it)."""
        node = self._node_ref()
        if node is None or node.inputs is None:
            for saved in self.saved.values():
                if saved is not None:
                    saved._packed = None


_STATES = weakref.WeakKeyDictionary()  # engine node -> NodeState


def node_state(node):
    """The :class:`NodeState` of ``node`` (made on first use)."""
    state = _STATES.get(node)
    if state is None:
        state = _STATES[node] = NodeState(node)
    return state


def saved_attribute(node, name):
    """``grad_fn._saved_<field>`` / ``grad_fn._raw_saved_<field>``; AttributeError for a field torch lacks."""
    raw = name.startswith("_raw_saved_")
    field = name[len("_raw_saved_"):] if raw else name[len("_saved_"):]
    state = node_state(node)
    if field in state.saved:
        saved = state.saved[field]
        return saved if raw or saved is None else saved.value()
    if not raw:
        values = _value_fields(node)
        if field in values:
            return values[field]
    node._check_alive()  # (a released node's fields are unknown: torch's error for reading them)
    raise AttributeError(f"'{node_name_of(node)}' object has no attribute '{name}'")


def attribute_names(node):
    """The ``_saved_*`` / ``_raw_saved_*`` names of ``node`` (for ``dir(grad_fn)``)."""
    tensors = node_state(node).saved
    return ([f"_saved_{name}" for name in (*tensors, *_value_fields(node))] +
            [f"_raw_saved_{name}" for name in tensors])


def node_name_of(node):
    from vfw.frontends.torch._grad_fn import node_name  # (_grad_fn imports this module)
    return node_name(node)


def pack_node(node, pack_hook, unpack_hook):
    """Pack the tensors ``node`` saves with a ``saved_tensors_hooks`` pair (called as the node is recorded)."""
    state = node_state(node)
    packed = [saved for saved in state.saved.values() if saved is not None]
    for saved in packed:
        saved._pack(pack_hook, unpack_hook)
    if packed:
        state.attach()
