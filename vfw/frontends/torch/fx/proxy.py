"""``torch.fx.Proxy``: the stand-in values a Tracer passes through ``forward`` to record nodes."""

import builtins
import operator

from vfw.frontends.torch.fx.node import map_aggregate

__all__ = ["Proxy", "Attribute", "TraceError"]


class TraceError(ValueError):
    """A program cannot be traced symbolically (control flow or iteration on a traced value)."""


class Proxy:
    """A value under symbolic tracing: every operation on it records a node in the tracer's graph.

    Parameters
    ----------
    node : Node
        The node whose value this proxy stands for.
    tracer : Tracer
        The tracer recording operations.
    """

    def __init__(self, node, tracer=None):
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        # Special names (copy, pickle probes) are no tensor attributes.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        raise TraceError(
            "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a "
            "*args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed "
            "explanation of what types of control flow can be traced, and check out the Proxy docstring for "
            "help troubleshooting Proxy iteration errors")

    def __bool__(self):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    def __index__(self):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def keys(self):
        """``**proxy`` unpacking: recorded as a ``keys`` method call."""
        return self.tracer.create_proxy("call_method", "keys", (self,), {})


class Attribute(Proxy):
    """``proxy.name``: becomes a ``getattr`` node when used as a value, a ``call_method`` node when called."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        # Created on first use, so that a method call records no getattr node.
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", builtins.getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def find_tracer(args):
    """The tracer of the first Proxy inside ``args`` (nested structures searched), or None."""
    found = []
    map_aggregate(args, lambda v: found.append(v.tracer) if isinstance(v, Proxy) else None)
    return found[0] if found else None


def _binary(function, reflected=False):
    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return self.tracer.create_proxy("call_function", function, args, {})
    return method


def _unary(function):
    def method(self):
        return self.tracer.create_proxy("call_function", function, (self,), {})
    return method


_BINARY_MAGIC = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "matmul": operator.matmul,
    "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_, "or": operator.or_,
    "xor": operator.xor,
}
for _name, _function in _BINARY_MAGIC.items():
    setattr(Proxy, f"__{_name}__", _binary(_function))
    setattr(Proxy, f"__r{_name}__", _binary(_function, reflected=True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "getitem"):
    setattr(Proxy, f"__{_name}__", _binary(getattr(operator, _name)))
for _name in ("neg", "pos", "invert", "abs"):
    setattr(Proxy, f"__{_name}__", _unary(getattr(operator, _name)))
# Proxies are hashable by identity although they define __eq__ (dict keys in tracers and user code).
Proxy.__hash__ = object.__hash__
del _name, _function
