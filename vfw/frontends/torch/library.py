"""torch.library: user-defined operators (``custom_op``, ``Library``), reachable as ``torch.ops.<ns>.<name>``.

An operator runs its kernel eagerly on vfw tensors. With ``register_autograd`` it is differentiable through
``torch.autograd.Function`` (the kernel runs without recording, the registered backward gives the gradients);
without it, outputs of inputs that require grad carry a node whose backward raises torch's error.
"""

import inspect

from vfw.frontends.torch import _ops
from vfw.frontends.torch.autograd.function import Function

__all__ = ["Library", "custom_op", "define", "impl", "opcheck", "register_autograd", "register_fake",
           "register_kernel"]


def _split_name(qualname):
    namespace, sep, name = qualname.partition("::")
    if not sep:
        raise ValueError("not enough values to unpack (expected 2, got 1)")
    return namespace, name


def _check_annotations(fn):
    signature = inspect.signature(fn)
    for parameter in signature.parameters.values():
        if parameter.annotation is inspect.Parameter.empty:
            raise ValueError(f"infer_schema(func): Parameter {parameter.name} must have a type annotation. "
                             f"Got func with signature {signature})")
    return signature


def _tensors(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


class CustomOpDef:
    """What ``custom_op`` returns: callable, and the place to register fake/autograd/device kernels."""

    def __init__(self, namespace, name, fn, mutates_args):
        self._namespace, self._name = namespace, name
        self._init_fn = fn
        self._signature = _check_annotations(fn)
        self._mutates_args = mutates_args
        self._kernels = {}
        self._abstract_fn = None
        self._backward_fn = None
        self._setup_context_fn = None
        self._function = self._make_function()
        _ops.register(namespace, name, self)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def _make_function(self):
        op = self

        def forward(*args):
            return op._run_kernel(args)

        def setup_context(ctx, inputs, output):
            if op._setup_context_fn is not None:
                op._setup_context_fn(ctx, inputs, output)

        def backward(ctx, *grads):
            if op._backward_fn is None:
                raise RuntimeError(f"Trying to backward through {op._namespace}.{op._name}.default but no autograd "
                                   "formula was registered. Please use register_autograd to add one.")
            return op._backward_fn(ctx, *grads)

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        return type(name, (Function,), {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
                                        "backward": staticmethod(backward)})

    def _run_kernel(self, args):
        kernel = self._kernels.get("cpu", self._kernels.get(None, self._init_fn))
        result = kernel(*args)
        inputs = [id(a) for a in args]
        if any(id(out) in inputs for out in _tensors(result) if out is not None):
            raise RuntimeError(f"{self._name} (with implementation in {inspect.getmodule(kernel)}): The output of "
                               "this custom operator (1) must not also be an input to this custom operator and (2) "
                               "may not alias any inputs to this custom operator or other returns. The most common "
                               "way to trigger this error is if we have y = custom_op(x) and y and x are the same "
                               "Tensor. Please instead return a clone of the offending output tensor(s) (e.g. "
                               "return x.clone()) or refactor the custom operator to not return y.")
        return result

    def __call__(self, *args, **kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        args = tuple(bound.arguments.values())
        if self._mutates_args or not any(getattr(a, "requires_grad", False) for a in args):
            return self._run_kernel(args)
        return self._function.apply(*args)

    def register_fake(self, fn, /):
        """Register the shape function used by tracing compilers (vfw keeps it; eager calls use the kernel)."""
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """Make the op differentiable: ``setup_context(ctx, inputs, output)`` saves what ``backward(ctx,
        *grads)`` needs; backward returns one gradient (or None) per input."""
        self._backward_fn, self._setup_context_fn = backward, setup_context

    def register_kernel(self, device_types, fn=None, /):
        """Use ``fn`` on ``device_types`` (vfw runs the ``"cpu"`` one, or one registered for all devices)."""
        def register(kernel):
            for device in [device_types] if device_types is None or isinstance(device_types, str) else device_types:
                self._kernels[device] = kernel
            return kernel
        return register if fn is None else register(fn)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Define operator ``name`` (``"namespace::name"``) from the annotated Python function ``fn``; without
    ``fn``, a decorator. Returns a ``CustomOpDef``."""
    namespace, op_name = _split_name(name)
    mutated = (mutates_args,) if isinstance(mutates_args, str) else tuple(mutates_args)

    def define_op(function):
        op = CustomOpDef(namespace, op_name, function, mutated)
        if device_types is not None:
            op.register_kernel(device_types, function)
        return op
    return define_op if fn is None else define_op(fn)


def _custom_op(qualname):
    op = _ops.lookup(*_split_name(qualname))
    if not isinstance(op, CustomOpDef):
        raise ValueError(f"{qualname}: not a custom operator defined with torch.library.custom_op")
    return op


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """``op.register_fake`` for an op given by name or ``CustomOpDef``; without ``fn``, a decorator."""
    target = op if isinstance(op, CustomOpDef) else _custom_op(op)
    return target.register_fake if fn is None else target.register_fake(fn)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """``op.register_autograd`` for an op given by name or ``CustomOpDef``."""
    target = op if isinstance(op, CustomOpDef) else _custom_op(op)
    target.register_autograd(backward, setup_context=setup_context)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """``op.register_kernel`` for an op given by name or ``CustomOpDef``."""
    target = op if isinstance(op, CustomOpDef) else _custom_op(op)
    return target.register_kernel(device_types, func)


_KINDS = ("DEF", "IMPL", "FRAGMENT")


class Library:
    """A namespace of operators defined by schema strings (``define``) and implemented by functions (``impl``)."""

    _defined_namespaces = set()

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF":
            if ns in Library._defined_namespaces:
                raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please "
                                   "put all of your definitions in a single TORCH_LIBRARY block.  If you were trying "
                                   "to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be "
                                   "duplicated).  If you really intended to define operators for a single namespace "
                                   "in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate "
                                   "this.")
            Library._defined_namespaces.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declare ``"name(Tensor x, ...) -> Tensor"``; returns the operator's name."""
        name = schema.split("(", 1)[0].strip()
        _ops.register(self.ns, name, _SchemaOp(self.ns, name, schema))
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        """Implement a defined operator with the Python function ``fn``."""
        name = op_name if isinstance(op_name, str) else op_name._name
        op = _ops.lookup(self.ns, name.split("::")[-1])
        op.fn = fn


class _SchemaOp:
    """An operator defined by ``Library.define``: it calls what ``impl`` registered."""

    def __init__(self, namespace, name, schema):
        self._namespace, self._name, self.schema, self.fn = namespace, name, schema, None

    def __call__(self, *args, **kwargs):
        if self.fn is None:
            raise NotImplementedError(f"Could not run '{self._namespace}::{self._name}' with arguments from the "
                                      "'CPU' backend: no kernel registered with torch.library's impl")
        return self.fn(*args, **kwargs)


def define(qualname, schema, *, lib=None, tags=()):
    """Declare operator ``qualname`` with the schema ``"(Tensor x) -> Tensor"``."""
    namespace, name = _split_name(qualname)
    _ops.register(namespace, name, _SchemaOp(namespace, name, name + schema))


def impl(qualname, types, func=None, *, lib=None):
    """Implement operator ``qualname`` for ``types`` (device names); without ``func``, a decorator."""
    def register(fn):
        op = _ops.lookup(*_split_name(qualname))
        if isinstance(op, CustomOpDef):
            op.register_kernel(types, fn)
        else:
            op.fn = fn
        return fn
    return register if func is None else register(func)


def opcheck(op, args, kwargs=None, *, test_utils=("test_schema", "test_autograd_registration", "test_faketensor",
                                                  "test_aot_dispatch_dynamic"), raise_exception=True, atol=None,
            rtol=None):
    """Run ``op`` on ``args`` and report each test as torch does (``"SUCCESS"``); vfw checks that the op runs
    and that a differentiable op with inputs requiring grad has a registered backward."""
    test_utils = (test_utils,) if isinstance(test_utils, str) else tuple(test_utils)
    results = {}
    for test in test_utils:
        try:
            op(*args, **(kwargs or {}))
            if test == "test_autograd_registration" and isinstance(op, CustomOpDef) and op._backward_fn is None \
                    and any(getattr(a, "requires_grad", False) for a in args):
                raise RuntimeError(f"{op._namespace}::{op._name}: an input requires grad but no autograd formula "
                                   "was registered. Please use register_autograd to add one.")
            results[test] = "SUCCESS"
        except Exception as error:
            if raise_exception:
                raise RuntimeError(f"opcheck(op, ...): {test} failed with {error}") from error
            results[test] = error
    return results


