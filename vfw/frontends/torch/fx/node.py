"""``torch.fx.Node``: one operation of a :class:`~vfw.torch.fx.Graph` and its argument helpers."""

import builtins
import operator

__all__ = ["Node", "map_arg", "map_aggregate"]

_OPCODES = ("placeholder", "get_attr", "call_function", "call_method", "call_module", "output", "root")


def map_aggregate(value, fn):
    """Apply ``fn`` to every leaf of ``value``, rebuilding tuples, lists, dicts and slices around the results."""
    if isinstance(value, tuple):
        mapped = tuple(map_aggregate(v, fn) for v in value)
        # Named tuples are rebuilt with their own class (positional fields).
        return type(value)(*mapped) if hasattr(value, "_fields") else mapped
    if isinstance(value, list):
        return [map_aggregate(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_aggregate(v, fn) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(map_aggregate(value.start, fn), map_aggregate(value.stop, fn), map_aggregate(value.step, fn))
    return fn(value)


def map_arg(value, fn):
    """Apply ``fn`` to every :class:`Node` inside ``value`` (nested tuples, lists, dicts, slices)."""
    return map_aggregate(value, lambda v: fn(v) if isinstance(v, Node) else v)


def _qualified_name(target):
    """The dotted public name of a callable target (``torch.relu``, ``operator.add``, ``builtins.getattr``)."""
    from vfw.frontends.torch.fx._names import public_name

    name = public_name(target)
    if name is not None:
        return name
    if getattr(target, "__module__", None) == "_operator" or target in vars(operator).values():
        return f"operator.{target.__name__}"
    if getattr(builtins, getattr(target, "__name__", ""), None) is target:
        return f"builtins.{target.__name__}"
    return f"{getattr(target, '__module__', None)}.{getattr(target, '__qualname__', repr(target))}"


def _format_arg(arg):
    """``arg`` as torch prints it inside a node line: nodes as ``%name``, dict keys bare."""
    if isinstance(arg, Node):
        return f"%{arg.name}"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return str(arg)


class Node:
    """One operation of a Graph.

    Attributes
    ----------
    graph : Graph
        The graph holding the node.
    name : str
        Unique name in the graph (the variable name of the generated code).
    op : str
        One of ``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module``, ``output``.
    target : str or callable
        Argument name, attribute path, function, method name or module path, per ``op``.
    args, kwargs : tuple, dict
        Arguments; other nodes appear in them as :class:`Node` objects.
    users : dict
        The nodes reading this node's value (keys; values are None).
    meta : dict
        Free-form metadata (``tensor_meta`` from ShapeProp, ``nn_module_stack``...).
    """

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPCODES:
            raise ValueError(f"Node: unknown opcode {op!r}, expected one of {_OPCODES}")
        if op in ("call_method", "call_module", "get_attr", "placeholder") and not isinstance(target, str):
            raise ValueError(f"Node target for {op} must be a string, got {type(target).__name__}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a Callable is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self.users = {}
        self.meta = {}
        self._input_nodes = {}
        self._args = ()
        self._kwargs = {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(tuple(args), dict(kwargs))

    # -- arguments and use lists -------------------------------------------------------------------
    @property
    def args(self):
        """The positional arguments (a tuple); assigning updates the users of the nodes involved."""
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(tuple(value), self._kwargs)

    @property
    def kwargs(self):
        """The keyword arguments (a dict); assigning updates the users of the nodes involved."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, dict(value))

    def _update_args_kwargs(self, args, kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        found = {}
        map_arg((args, kwargs), lambda n: found.setdefault(n, None))
        self._input_nodes = found
        for new in found:
            new.users.setdefault(self, None)

    @property
    def all_input_nodes(self):
        """The distinct nodes among ``args`` and ``kwargs``, in order of first appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        """Set positional argument ``idx`` to ``arg``."""
        args = list(self._args)
        args[idx] = arg
        self.args = args

    def update_kwarg(self, key, arg):
        """Set keyword argument ``key`` to ``arg``."""
        self.kwargs = {**self._kwargs, key: arg}

    def replace_all_uses_with(self, replace_with, delete_user_cb=None, *, propagate_meta=False):
        """Make every user of this node read ``replace_with`` instead; returns the users changed.

        ``delete_user_cb(user)`` returning False keeps that user on this node.
        """
        if propagate_meta:
            for key, value in self.meta.items():
                replace_with.meta.setdefault(key, value)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            user.replace_input_with(self, replace_with)
            changed.append(user)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Replace every occurrence of ``old_input`` among this node's arguments with ``new_input``."""
        def swap(n):
            return new_input if n is old_input else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # -- position in the graph ---------------------------------------------------------------------
    @property
    def next(self):
        """The node after this one (the graph's root sentinel after the last)."""
        return self._next

    @property
    def prev(self):
        """The node before this one (the graph's root sentinel before the first)."""
        return self._prev

    def _unlink(self):
        self._prev._next, self._next._prev = self._next, self._prev
        self._prev = self._next = self

    def _link_before(self, other):
        """Insert this node just before ``other`` in ``other``'s list."""
        self._prev, self._next = other._prev, other
        other._prev._next = self
        other._prev = self

    def prepend(self, x):
        """Move node ``x`` just before this node."""
        x._unlink()
        x._link_before(self)

    def append(self, x):
        """Move node ``x`` just after this node."""
        self._next.prepend(x)

    def is_impure(self, impure_random=True):
        """Whether dead-code elimination must keep this node (placeholders, outputs, in-place calls)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_method":
            return self.target.endswith("_") and not self.target.endswith("__")
        if self.op == "call_function":
            name = getattr(self.target, "__name__", "")
            return name in ("_assert",) or (name.endswith("_") and not name.endswith("__"))
        return False

    # -- printing ----------------------------------------------------------------------------------
    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The node's line in ``str(graph)``; None for the root sentinel."""
        if self.op == "placeholder":
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : [num_users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : [num_users={len(self.users)}] = get_attr[target={self.target}]"
        if self.op == "output":
            return f"return {self.args[0]}"
        if self.op == "root":
            return None
        target = _qualified_name(self.target) if self.op == "call_function" else self.target
        return (f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target}]"
                f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def __repr__(self):
        return self.name

    __str__ = __repr__
