"""Workspace: the container of named tensors, graphs and cached op instances.

A workspace is the analogue of ``tf.Graph`` and of Caffe2's Workspace.  There
is a default one per thread; ``with Workspace().as_default():`` makes another
current, so what is created inside is invisible outside.
"""

import contextlib
import threading

import numpy as np

from vfw.core.errors import OpInputError
from vfw.core.registry import make_op, op_key
from vfw.core.tensor import Tensor


class Workspace:
    """Named tensors, graphs and cached :class:`~vfw.core.registry.Op` instances.

    Parameters
    ----------
    name : str, optional
        A label shown in ``repr`` and memory reports.
    """

    def __init__(self, name="workspace"):
        self.name = name
        self._tensors = {}
        self._graphs = {}
        self._ops = {}
        self._plain_ops = {}
        self._bound = {}

    def __repr__(self):
        return f"Workspace({self.name!r}, tensors={len(self._tensors)}, graphs={len(self._graphs)})"

    # -- tensors ----------------------------------------------------------------
    def create_tensor(self, name, shape=(), dtype=np.float32, fill=0):
        """Create (or replace) tensor ``name`` filled with ``fill`` and return it."""
        tensor = Tensor(np.full(shape, fill, dtype=dtype))
        self._tensors[name] = tensor
        return tensor

    def feed(self, name, value):
        """Store ``value`` (array-like or :class:`Tensor`) under ``name`` and return the tensor."""
        tensor = value if isinstance(value, Tensor) else Tensor(np.array(value))
        self._tensors[name] = tensor
        return tensor

    def fetch(self, name):
        """Return the array stored under ``name``.

        Raises
        ------
        OpInputError
            If there is no such tensor.
        """
        return self.get_tensor(name).array

    def get_tensor(self, name):
        """Return the :class:`Tensor` stored under ``name``."""
        try:
            return self._tensors[name]
        except KeyError:
            raise OpInputError(f"workspace {self.name!r} has no tensor named {name!r}") from None

    def has(self, name):
        """Whether a tensor named ``name`` exists."""
        return name in self._tensors

    def delete(self, name):
        """Remove tensor ``name`` (no error if absent)."""
        self._tensors.pop(name, None)

    def tensor_names(self):
        """Names of the stored tensors, sorted."""
        return sorted(self._tensors)

    # -- graphs -----------------------------------------------------------------
    def add_graph(self, name, graph):
        """Store a graph (GraphDef or compiled graph) under ``name``."""
        self._graphs[name] = graph
        return graph

    def get_graph(self, name):
        """Return the graph stored under ``name``."""
        try:
            return self._graphs[name]
        except KeyError:
            raise OpInputError(f"workspace {self.name!r} has no graph named {name!r}") from None

    def has_graph(self, name):
        """Whether a graph named ``name`` exists."""
        return name in self._graphs

    # -- ops --------------------------------------------------------------------
    def op(self, op_type, attrs=None, device="cpu"):
        """Return the cached :class:`~vfw.core.registry.Op` for ``op_type`` with ``attrs``.

        Attributes are validated the first time a combination is seen.
        """
        if not attrs and device == "cpu":  # the common case, without building a key
            op = self._plain_ops.get(op_type)
            if op is None:
                op = self._plain_ops[op_type] = self._bind(op_type, None, device)
            return op
        key = (op_type, device, tuple(attrs.items()))
        try:
            op = self._ops.get(key)
        except TypeError:  # unhashable values (lists, arrays): freeze them
            key = op_key(op_type, attrs, device)
            op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = self._bind(op_type, attrs, device)
        return op

    def _bind(self, op_type, attrs, device):
        # Spellings of the same attributes (defaults given or not, 1 vs 1.0) share one bound op,
        # so stateful ops (seeded random streams) are one instance per workspace.
        op = make_op(op_type, attrs, device)
        return self._bound.setdefault(op_key(op_type, op.attrs, device), op)

    # -- lifetime ---------------------------------------------------------------
    def reset(self):
        """Free every tensor, graph and cached op."""
        self._tensors.clear()
        self._graphs.clear()
        self._ops.clear()
        self._plain_ops.clear()
        self._bound.clear()

    def memory_report(self):
        """Bytes held by this workspace.

        Returns
        -------
        dict
            ``{"tensors": int, "graphs": int, "total": int, "by_name": dict[str, int]}``;
            graphs count the buffers of compiled graphs that report ``nbytes``.
        """
        by_name = {name: t.array.nbytes for name, t in self._tensors.items()}
        graphs = sum(int(getattr(g, "nbytes", 0)) for g in self._graphs.values())
        tensors = sum(by_name.values())
        return {"tensors": tensors, "graphs": graphs, "total": tensors + graphs, "by_name": by_name}

    @contextlib.contextmanager
    def as_default(self):
        """Make this workspace current inside a ``with`` block (per thread)."""
        stack = _stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()


_local = threading.local()
_root = Workspace("default")


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = [_root]
    return stack


def current_workspace():
    """The workspace in effect for this thread (the default one outside any ``as_default``)."""
    try:
        return _local.stack[-1]
    except AttributeError:
        return _stack()[-1]


def default_workspace():
    """The process-wide default workspace."""
    return _root
