"""Python source for a Graph, in torch's text: ``GraphModule.code`` and the ``forward`` it runs."""

import builtins
import math
import operator

from vfw.frontends.torch.fx._names import Namespace, public_name
from vfw.frontends.torch.fx.node import Node

# operator functions written inline, as torch writes them
_BINARY = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/", operator.floordiv: "//",
    operator.mod: "%", operator.pow: "**", operator.matmul: "@", operator.lshift: "<<", operator.rshift: ">>",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.eq: "==", operator.ne: "!=",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def format_target(base, path):
    """``self.layer.conv`` for ``layer.conv``; ``getattr(self.layer, "0")`` for parts that are no identifier."""
    expr = base
    for part in path.split("."):
        expr = f"{expr}.{part}" if part.isidentifier() else f'getattr({expr}, "{part}")'
    return expr


class _CodeTorch:
    """``torch`` in generated code: vfw.torch, plus ``torch._C._nn`` for the names torch prints there."""

    def __init__(self, torch):
        from types import SimpleNamespace

        from vfw.frontends.torch.fx._names import C_NN_FUNCTIONS

        functional = torch.nn.functional
        self._torch = torch
        self._C = SimpleNamespace(_nn=SimpleNamespace(**{n: getattr(functional, n) for n in C_NN_FUNCTIONS}))

    def __getattr__(self, name):
        return getattr(self._torch, name)


class _Globals:
    """The globals of the generated code and how the code names each object it needs."""

    def __init__(self, namespace):
        import vfw.frontends.torch as torch

        self.namespace = namespace
        self.values = {"torch": _CodeTorch(torch), "inf": math.inf, "nan": math.nan, "NoneType": type(None)}
        self.wrapped = []

    def name_of(self, obj):
        name = public_name(obj)
        if name is not None:
            return name
        if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
            return obj.__name__
        from vfw.frontends.torch.fx._symbolic_trace import is_wrapped

        hint = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', type(obj).__name__)}"
        name = self.namespace.create_name(hint)
        self.values[name] = obj
        if is_wrapped(obj):
            self.wrapped.append(name)
        return name


def _repr_arg(arg, names):
    """``arg`` as Python source."""
    from vfw.frontends.torch._dtype import dtype

    if isinstance(arg, Node):
        return arg.name
    if isinstance(arg, list):
        return "[" + ", ".join(_repr_arg(a, names) for a in arg) + "]"
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = ", ".join(_repr_arg(a, names) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_repr_arg(v, names)}" for k, v in arg.items()) + "}"
    if isinstance(arg, slice):
        return f"slice({_repr_arg(arg.start, names)}, {_repr_arg(arg.stop, names)}, {_repr_arg(arg.step, names)})"
    if isinstance(arg, dtype):
        return f"torch.{str(arg).split('.')[-1]}"
    if isinstance(arg, float) and not math.isfinite(arg):
        return "nan" if math.isnan(arg) else ("inf" if arg > 0 else "-inf")
    if callable(arg) or hasattr(arg, "_fields"):
        return names.name_of(arg)
    return repr(arg)


def _call_args(args, kwargs, names):
    parts = [_repr_arg(a, names) for a in args] + [f"{k} = {_repr_arg(v, names)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _statement(node, names):
    """The assignment computing ``node`` (without the trailing frees)."""
    args, kwargs = node.args, node.kwargs
    if node.op == "placeholder":
        parameter = node.target.lstrip("*")  # a *args placeholder stands for the tuple
        return f"{node.name} = {parameter}" if node.name != parameter else None
    if node.op == "get_attr":
        return f"{node.name} = {format_target('self', node.target)}"
    if node.op == "call_module":
        return f"{node.name} = {format_target('self', node.target)}({_call_args(args, kwargs, names)})"
    if node.op == "call_method":
        receiver = _repr_arg(args[0], names)
        return f"{node.name} = {receiver}.{node.target}({_call_args(args[1:], kwargs, names)})"
    if node.op == "output":
        return f"return {_repr_arg(args[0], names)}"
    target = node.target
    if not kwargs:
        if target in _BINARY and len(args) == 2:
            return f"{node.name} = {_repr_arg(args[0], names)} {_BINARY[target]} {_repr_arg(args[1], names)}"
        if target is operator.abs and len(args) == 1:
            return f"{node.name} = abs({_repr_arg(args[0], names)})"
        if target in _UNARY and len(args) == 1:
            return f"{node.name} = {_UNARY[target]}{_repr_arg(args[0], names)}"
        if target is operator.getitem and len(args) == 2:
            return f"{node.name} = {_repr_arg(args[0], names)}[{_repr_arg(args[1], names)}]"
        if target is builtins.getattr and len(args) == 2 and isinstance(args[1], str) and args[1].isidentifier():
            return f"{node.name} = {_repr_arg(args[0], names)}.{args[1]}"
    return f"{node.name} = {names.name_of(target)}({_call_args(args, kwargs, names)})"


def _last_uses(nodes):
    """For each node, the values whose last reader it is (freed after its statement), in torch's order."""
    seen = set()
    freed_after = {}
    for node in reversed(nodes):
        for used in node.all_input_nodes:
            if used not in seen:
                seen.add(used)
                freed_after.setdefault(node, []).append(used)
    return freed_after


def python_code(graph):
    """``(source, globals)`` of the ``forward`` function torch generates for ``graph``."""
    nodes = list(graph.nodes)
    namespace = Namespace()
    for node in nodes:
        namespace.create_name(node.name)
    names = _Globals(namespace)
    freed_after = _last_uses(nodes)
    signature = ["self"]
    body = []
    for node in nodes:
        if node.op == "placeholder":
            signature.append(f"{node.target} = {_repr_arg(node.args[0], names)}" if node.args else node.target)
        statement = _statement(node, names)
        if statement is None:
            continue
        body.append(statement)
        if node.op in ("placeholder", "output"):
            body.append("\n")
            continue
        freed = freed_after.get(node, []) + ([node] if not node.users else [])
        body.append(f";  {' = '.join(n.name for n in freed)} = None\n" if freed else "\n")
    if not any(node.op == "output" for node in nodes):
        body.append("pass\n")
    code = "".join(body).lstrip("\n")
    code = "\n".join("    " + line for line in code.split("\n"))
    wrap_statements = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in names.wrapped)
    source = f"\n{wrap_statements}\n\ndef forward({', '.join(signature)}):\n{code}"
    return source, names.values
