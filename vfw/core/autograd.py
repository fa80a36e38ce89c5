"""Reverse-mode automatic differentiation over engine ops (the gradient mode, no_grad..., is in
:mod:`vfw.core.grad_mode` and re-exported here).

Recording.  When the eager executor runs an op while gradients are enabled and
some input tensor requires grad, it calls :func:`record`, which makes a
:class:`Node` (the op, its input tensors, its output arrays) and sets it as the
``grad_node`` of each differentiable output.  The graph therefore lives on the
tensors and is freed by reference counting, as in PyTorch.  Nodes are numbered
in creation order, which is also a topological order.

Backward.  :func:`gradient` walks the nodes between targets and sources in
reverse creation order and calls each op's *gradient maker*.  Makers are
ordinary functions of engine ops: they call :func:`vfw.core.eager.execute`, so
with ``create_graph=True`` the backward ops are recorded in turn and can be
differentiated again (higher-order gradients), and a graph tracer sees them as
ops like any other.

Tapes.  :class:`~vfw.core.autograd_tape.GradientTape` (TensorFlow's model) is
a window over this graph (``first_seq``/``last_seq`` of :func:`gradient`).
"""

import functools
import itertools
import operator
import threading

import numpy as np

from vfw.core import dtypes as dt
from vfw.core import eager as _eager
from vfw.core.errors import OpInputError, VfwError
from vfw.core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401  (autograd API)
from vfw.core.graph.trace import _active as _tracing
from vfw.core.registry import get_schema
from vfw.core.tensor import Tensor


class GraphReleasedError(VfwError, RuntimeError):
    """Backward through a graph whose saved values were already freed."""


class SavedTensorModifiedError(VfwError, RuntimeError):
    """A tensor saved for backward was modified in place after it was saved."""


class NoGradientError(VfwError, LookupError):
    """An op on the path from targets to sources has no gradient maker."""


def is_differentiable_dtype(dtype):
    """Whether tensors of ``dtype`` carry gradients (floating point and complex types)."""
    return dtype in dt.DIFFERENTIABLE


# -- gradient makers ---------------------------------------------------------------
def register_gradient(*op_types):
    """Decorator: register ``maker(node, *output_grads) -> tuple`` as the gradient of ``op_types``.

    The maker receives the recorded :class:`Node` (``node.inputs``,
    ``node.attrs``, ``node.output(i)``, ``node.needs_input_grad``) and one
    gradient per output (zeros stand in for outputs that got none), and
    returns one gradient per input: a tensor of the input's shape, or ``None``.
    It must compute with engine ops (``execute``) so that its result can be
    recorded for higher-order gradients.
    """

    def wrap(maker):
        for op_type in op_types:
            schema = get_schema(op_type)
            schema.gradient = maker
            schema.differentiable = True
        return maker

    return wrap


def not_differentiable(*op_types):
    """Declare ``op_types`` as having no gradient (their outputs never require grad)."""
    for op_type in op_types:
        schema = get_schema(op_type)
        schema.gradient = None
        schema.differentiable = False


# -- the recorded graph ------------------------------------------------------------
_counter = itertools.count(1)


class Node:
    """One recorded op application: what backward needs of it.

    Attributes
    ----------
    op : Op or None
        The bound op (``None`` for a custom gradient).
    inputs : tuple[Tensor or None, ...]
        The input tensors (saved for the gradient maker; ``None`` once released).
    edges : tuple[tuple or None, ...]
        Per input, where its gradient flows, as it was when the op ran: ``(node, slot)``
        for a recorded tensor, ``(None, tensor)`` for a leaf that requires grad, ``None``
        for anything else.  Kept after release, as the graph's structure.
    seq : int
        Creation number; nodes are created in topological order.
    needs_input_grad : tuple[bool, ...]
        Per input, whether backward must produce its gradient (set during backward).
    hooks : dict[int, list[callable]] or None
        Per output slot, functions ``hook(grad) -> grad or None`` applied to the
        output's gradient before the node's backward uses it (a frontend's
        tensor hooks on non-leaf tensors).
    check_inputs : tuple[int, ...]
        Positions of the inputs the gradient maker reads; backward refuses them if they
        were written in place after this node was recorded: a
        frontend that writes tensors in place keeps ``tensor._version_counter``, a
        ``[version, stamp]`` list shared by a tensor and its views, and sets the stamp
        from :func:`write_stamp` on every write (stamps and node numbers share one
        sequence, so "written after recording" is ``stamp > node.seq``).
    written : set[int] or None
        Output slots whose memory was overwritten since (:meth:`mark_written`); the
        maker may not read them (:meth:`output` raises).
    display_name : str
        A name a frontend gave the node (its ``grad_fn`` name); unset unless given, so
        read it with ``getattr(node, "display_name", None)``.
    backward_hooks : object or None
        A frontend's hooks on the node itself (torch's ``grad_fn`` hooks, saved-tensor unpacking):
        ``before(node, out_grads)`` runs after the tensor hooks and before the gradient maker (it may
        change ``out_grads`` in place and put unpacked saved tensors back into ``inputs``/outputs);
        ``after(node, out_grads, in_grads)`` returns the input gradients to pass on.
    """

    __slots__ = ("op", "inputs", "edges", "_outputs", "n_outputs", "seq", "backward_fn", "needs_input_grad",
                 "hooks", "check_inputs", "written", "display_name", "backward_hooks", "__weakref__")

    def __init__(self, op, inputs, output_arrays, backward_fn=None):
        self.op = op
        self.inputs = inputs
        # Where each input's gradient goes, fixed now: a frontend may later rebind a tensor to a
        # new node (an in-place op), which must not reroute the gradients of earlier consumers.
        edges = []  # (a loop: a comprehension's own frame costs more than it does, once per recorded op)
        for x in inputs:
            if isinstance(x, Tensor) and x.requires_grad:
                source = x.grad_node
                edges.append((None, x) if source is None else (source, x.grad_slot))
            else:
                edges.append(None)
        self.edges = tuple(edges)
        self._outputs = output_arrays
        self.n_outputs = len(output_arrays)
        self.seq = next(_counter)
        self.backward_fn = backward_fn
        self.needs_input_grad = ()
        self.hooks = None
        self.check_inputs = ()
        self.written = None
        self.backward_hooks = None

    def __repr__(self):
        name = self.op.schema.op_type if self.op is not None else "CustomGradient"
        return f"Node({name}, seq={self.seq}{', released' if self.inputs is None else ''})"

    @property
    def attrs(self):
        """dict: the op's bound attributes."""
        return self.op.attrs

    def output(self, i=0):
        """Output ``i`` as a tensor attached to this node (so makers can differentiate through it)."""
        self._check_alive()
        if self.written is not None and i in self.written:
            self._refuse(f"output {i}", "output", i)
        t = Tensor.wrap(self._outputs[i])
        t.requires_grad = True
        t.grad_node = self
        t.grad_slot = i
        return t

    def output_shape(self, i=0):
        """Shape of output ``i``."""
        self._check_alive()
        return self._outputs[i].shape

    def release(self):
        """Free the saved tensors (after a backward that does not retain the graph); the edges stay."""
        self.inputs = None
        self._outputs = None

    def add_hook(self, slot, hook):
        """Apply ``hook`` to the gradient of output ``slot`` during backward."""
        if self.hooks is None:
            self.hooks = {}
        self.hooks.setdefault(slot, []).append(hook)

    def mark_written(self, slot):
        """Note that the memory of output ``slot`` was overwritten (an in-place write by a frontend)."""
        if self.written is None:
            self.written = set()
        self.written.add(slot)

    def _check_inputs(self):
        for i in self.check_inputs:
            counter = getattr(self.inputs[i], "_version_counter", None)
            if counter is not None and counter[1] > self.seq:
                self._refuse(f"input {i} (now at version {counter[0]})", "input", i)

    def _refuse(self, what, kind, index):
        name = self.op.schema.op_type if self.op is not None else "CustomFunction"
        error = SavedTensorModifiedError(
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"{what} of {name}Backward was written after it was saved for backward. Hint: make the inplace "
            "operation out of place, or clone() the tensor before it.")
        # which saved value it was, for a frontend to word its own message
        error.node, error.kind, error.index = self, kind, index
        raise error

    def _run_hooks(self, out_grads):
        for slot, hooks in self.hooks.items():
            for hook in hooks:
                if out_grads[slot] is not None:
                    new = hook(out_grads[slot])
                    if new is not None:
                        out_grads[slot] = new

    def _check_alive(self):
        if self.inputs is None:
            raise GraphReleasedError(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Saved intermediate values of the graph are freed when you "
                "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved tensors after calling backward."
            )


# A frontend's ``hook(node)`` called with every node :func:`record` makes (torch's saved-tensor pack hooks), or None.
record_hook = None


def record(op, inputs, outputs):
    """Attach a :class:`Node` to the differentiable ``outputs`` of ``op`` (called by the executor).

    ``inputs`` is the tuple of inputs as given to the executor (tensors, arrays or None).
    """
    if op.schema.differentiable is False:
        return
    if type(outputs) is not tuple:
        if outputs.array.dtype in dt.DIFFERENTIABLE:
            outputs.requires_grad = True
            outputs.grad_node = node = Node(op, inputs, (outputs.array,))
            outputs.grad_slot = 0
            if record_hook is not None:
                record_hook(node)
        return
    node = Node(op, inputs, tuple([None if o is None else o.array for o in outputs]))
    for i, out in enumerate(outputs):
        if out is not None and out.array.dtype in dt.DIFFERENTIABLE:
            out.requires_grad = True
            out.grad_node = node
            out.grad_slot = i
    if record_hook is not None:
        record_hook(node)


def custom_gradient(fn):
    """Decorator for a function with a user-defined gradient.

    ``fn(*inputs)`` returns ``(outputs, grad_fn)`` where ``outputs`` is a tensor
    or a tuple of tensors and ``grad_fn(*output_grads)`` returns one gradient
    (tensor or ``None``) per input, computed with engine ops.  The forward runs
    without recording; the outputs are attached to one node whose backward is
    ``grad_fn``.
    """

    def wrapper(*inputs):
        with no_grad():
            outputs, grad_fn = fn(*inputs)
        tracked = is_grad_enabled() and any(isinstance(x, Tensor) and x.requires_grad for x in inputs)
        if tracked:
            multi = isinstance(outputs, tuple)
            outs = outputs if multi else (outputs,)
            node = Node(None, tuple(x if isinstance(x, Tensor) else None for x in inputs),
                        tuple(o.array for o in outs), backward_fn=grad_fn)
            for i, out in enumerate(outs):
                if out.array.dtype in dt.DIFFERENTIABLE:
                    out.requires_grad = True
                    out.grad_node = node
                    out.grad_slot = i
        return outputs

    wrapper.__wrapped__ = fn
    return wrapper


def stop_gradient(x):
    """A tensor with the value of ``x`` that is cut from the graph (no gradient flows through it)."""
    return Tensor.wrap(x.array) if isinstance(x, Tensor) else Tensor(x)


# The latest stamp handed out (monotonic: set under the lock). Backward skips the saved-input checks of nodes
# recorded after it: no tensor can carry a later stamp.
_latest_write = [0]
_stamp_lock = threading.Lock()


def write_stamp():
    """A number later than every node recorded so far: the stamp of an in-place write (see ``Node``)."""
    with _stamp_lock:
        stamp = _latest_write[0] = next(_counter)
    return stamp


# -- backward ----------------------------------------------------------------------
def _key(t):
    node = t.grad_node
    return id(t) if node is None else (node.seq, t.grad_slot)


@functools.lru_cache(maxsize=64)
def _scalar_one(dtype):
    one = np.ones((), dtype)
    one.flags.writeable = False
    return one


def _ones(shape, dtype):
    """The seed gradient of a target: a shared read-only 1 for scalar targets (the usual loss)."""
    return _scalar_one(dtype) if shape == () else np.ones(shape, dtype)


def broadcast_scalar(a, shape):
    """The 0-d array ``a`` as a read-only zero-stride view of ``shape``: what Expand gives, without its dispatch.

    Cached for the shared 1 that seeds the backward of a scalar target (neither it nor its views can change):
    the gradient of ``loss = x.sum()`` in every step.
    """
    if a is _scalar_one(a.dtype):
        return _ones_view(shape, a.dtype)
    return _zero_stride_view(a, shape)


@functools.lru_cache(maxsize=256)
def _ones_view(shape, dtype):
    return _zero_stride_view(_scalar_one(dtype), shape)


def _zero_stride_view(a, shape):
    view = np.ndarray(shape, a.dtype, buffer=a, strides=(0,) * len(shape))
    view.flags.writeable = False
    return view


def _zeros(shape, dtype):
    return Tensor.wrap(np.zeros(shape, dtype))


def _accumulate(grads, key, g):
    prev = grads.get(key)
    grads[key] = g if prev is None else _sum_gradients(prev, g)


def _sum_gradients(prev, g):
    """``prev + g``: two gradients of one input.  A frontend tensor the engine's Add cannot read (torch's sparse
    embedding gradients) has a class ``sum_gradients(prev, g)`` that adds them."""
    combine = getattr(type(prev), "sum_gradients", None) or getattr(type(g), "sum_gradients", None)
    return _eager.execute("Add", prev, g) if combine is None else combine(prev, g)


def _reachable(targets, source_keys, first_seq, last_seq, leaves=None, skip=()):
    """Nodes between targets and sources (within [first_seq, last_seq], outside the ``skip`` ranges), newest first.

    Also sets each returned node's ``needs_input_grad``: which inputs lead to a source.
    With ``leaves`` (a dict), every float leaf that requires grad is a source and is added
    to it (keyed by id).  Iterative, so graphs of any depth work.
    """
    found = {}
    stack = [t.grad_node for t in targets]
    windowed = first_seq > 0 or last_seq != float("inf") or skip
    while stack:
        node = stack.pop()
        if node is None:
            continue
        seq = node.seq
        if seq in found:
            continue
        if windowed and (not first_seq <= seq <= last_seq or any(lo <= seq <= hi for lo, hi in skip)):
            continue
        found[seq] = node
        for edge in node.edges:
            if edge is not None and edge[0] is not None:
                stack.append(edge[0])
    leads = set()  # seqs of nodes from which a source is reachable
    result = []
    floats = dt.DIFFERENTIABLE
    for seq in sorted(found):  # creation order: a node's inputs come before it
        node = found[seq]
        needs = []
        for edge in node.edges:
            if edge is None:
                needs.append(False)
            elif edge[0] is None:  # a leaf: needed when it is a (float) source
                leaf = edge[1]
                if leaves is None:
                    needs.append(id(leaf) in source_keys and leaf.array.dtype in floats)
                elif leaf.array.dtype in floats:
                    leaves[id(leaf)] = leaf
                    needs.append(True)
                else:
                    needs.append(False)
            else:  # recorded outputs are always float
                needs.append(edge[0].seq in leads or (edge[0].seq, edge[1]) in source_keys)
        if True in needs:
            leads.add(seq)
            node.needs_input_grad = tuple(needs)
            result.append(node)
    result.reverse()
    return result


def _reachable_to_leaves(targets, leaves):
    """:func:`_reachable` for :func:`leaf_gradients` (no window, every float leaf that requires grad a source).

    Every recorded node then leads to a source (recorded outputs are float), so one traversal sets
    ``needs_input_grad`` without tracking which nodes lead where.  Returns ``None`` (nothing recorded
    in ``leaves``) on meeting a non-float leaf that requires grad or a node without a differentiable input:
    :func:`_reachable` sorts those out.
    """
    found = {}
    stack = list(map(_grad_node_of, targets))  # (map: no comprehension frame, once per backward)
    floats = dt.DIFFERENTIABLE
    while stack:
        node = stack.pop()
        if node is None or node.seq in found:
            continue
        needs = []
        for edge in node.edges:
            if edge is None:
                needs.append(False)
            elif edge[0] is None:
                if edge[1].array.dtype not in floats:
                    return None
                needs.append(True)
            else:
                stack.append(edge[0])
                needs.append(True)
        if True not in needs:  # (a node with no differentiable input, which _reachable leaves out)
            return None
        node.needs_input_grad = tuple(needs)
        found[node.seq] = node
    order = sorted(found)
    for seq in order:  # leaves in creation order of their consumers, as _reachable adds them
        for edge in found[seq].edges:
            if edge is not None and edge[0] is None:
                leaves[id(edge[1])] = edge[1]
    return list(map(found.__getitem__, reversed(order)))


_grad_node_of = operator.attrgetter("grad_node")


def _order_leaves(nodes, leaves):
    """Reorder ``leaves`` (in place) as their gradients become final, the order in which a PyTorch-style backward
    accumulates them (and runs their post-accumulate hooks): nodes run newest first, a leaf is final once its oldest
    consumer ran, the leaves of one node come in input order."""
    for node in nodes:
        for edge in node.edges:
            if edge is not None and edge[0] is None and id(edge[1]) in leaves:
                leaves[id(edge[1])] = leaves.pop(id(edge[1]))


def gradient(targets, sources, output_grads=None, retain_graph=None, create_graph=False,
             first_seq=0, last_seq=None, check=None, skip=()):
    """Gradients of ``sum(targets * output_grads)`` with respect to each source.

    Parameters
    ----------
    targets : Tensor or sequence of Tensor
    sources : sequence of Tensor
    output_grads : sequence of (Tensor or None), optional
        Vector for the vector-Jacobian product; ``None`` entries mean ones.
    retain_graph : bool, optional
        Keep the saved tensors of the traversed nodes (otherwise they are
        freed as soon as the node's gradient is computed); defaults to
        ``create_graph``.
    create_graph : bool
        Record the backward ops, so the result can be differentiated again.
    first_seq, last_seq : int, optional
        Only follow nodes created in this range (a tape's recording window).
    skip : sequence of (int, int), optional
        Inclusive ranges of creation numbers not to follow (while a tape was paused).
    check : callable, optional
        ``check(node, input_grads)``, called after each node's gradient maker (a frontend's
        anomaly detection); it may raise.

    Returns
    -------
    list[Tensor or None]
        One per source; ``None`` where the source does not affect the targets.

    Raises
    ------
    GraphReleasedError
        When a needed node was freed by an earlier backward.
    NoGradientError
        When an op on the path has no gradient maker.
    """
    source_keys = {_key(s): i for i, s in enumerate(sources) if isinstance(s, Tensor)}
    grads = _backward(targets, output_grads, source_keys, None, retain_graph, create_graph, first_seq, last_seq,
                      check, skip)
    return [None if not isinstance(s, Tensor) else grads.get(_key(s)) for s in sources]


def leaf_gradients(targets, output_grads=None, retain_graph=None, create_graph=False, check=None):
    """The gradients of every leaf that requires grad and that ``targets`` were computed from.

    What a PyTorch-style ``backward()`` accumulates into; one traversal finds the leaves and
    the nodes.  Arguments as for :func:`gradient`.

    Returns
    -------
    list[tuple[Tensor, Tensor]]
        ``(leaf, gradient)`` pairs, for the leaves that got a gradient.
    """
    leaves = {}
    grads = _backward(targets, output_grads, (), leaves, retain_graph, create_graph, 0, None, check)
    return [(leaf, grads[key]) for key, leaf in leaves.items() if key in grads]


def _backward(targets, output_grads, source_keys, leaves, retain_graph, create_graph, first_seq, last_seq, check,
              skip=()):
    """The backward pass shared by :func:`gradient` and :func:`leaf_gradients`: the dict of gradients by key."""
    targets = [targets] if isinstance(targets, Tensor) else list(targets)
    if output_grads is None:
        output_grads = [None] * len(targets)
    if len(output_grads) != len(targets):
        raise OpInputError(f"gradient: got {len(output_grads)} output gradients for {len(targets)} targets")
    last_seq = float("inf") if last_seq is None else last_seq
    retain_graph = create_graph if retain_graph is None else retain_graph
    grads = {}
    for t, g in zip(targets, output_grads):
        if not is_differentiable_dtype(t.array.dtype):
            continue
        if g is None:
            g = Tensor.wrap(_ones(t.array.shape, t.array.dtype))
        elif not isinstance(g, Tensor):
            g = Tensor(np.asarray(g, t.array.dtype))
        if g.array.shape != t.array.shape:
            raise OpInputError(f"gradient: output gradient of shape {g.array.shape} for a target of shape "
                               f"{t.array.shape}")
        if leaves is not None and t.grad_node is None and t.requires_grad:
            leaves[id(t)] = t
        _accumulate(grads, _key(t), g)
    nodes = None
    if leaves is not None and not first_seq and last_seq == float("inf") and not skip:
        nodes = _reachable_to_leaves(targets, leaves)
    if nodes is None:
        nodes = _reachable(targets, source_keys, first_seq, last_seq, leaves, skip)
    if leaves:
        _order_leaves(nodes, leaves)
    latest_write = _latest_write
    with set_grad_enabled(create_graph):
        for node in nodes:
            seq = node.seq
            if node.n_outputs == 1 and (seq, 0) not in source_keys:  # the common case, without a list
                g = grads.pop((seq, 0), None)
                if g is None:
                    continue
                out_grads = [g]
            else:
                out_grads = []
                missing = False
                for i in range(node.n_outputs):
                    # Gradients of outputs that are sources stay in ``grads`` for the result.
                    key = (seq, i)
                    g = grads.get(key) if key in source_keys else grads.pop(key, None)
                    if g is None:
                        missing = True
                    out_grads.append(g)
                if missing:
                    if all(g is None for g in out_grads):
                        continue
                    node._check_alive()
                    for i, g in enumerate(out_grads):
                        if g is None and node._outputs[i] is not None:
                            out_grads[i] = _zeros(node._outputs[i].shape, node._outputs[i].dtype)
            if node.inputs is None:
                node._check_alive()  # freed by an earlier backward, yet a gradient needs it
            if node.check_inputs and latest_write[0] > seq:  # something was written since the node was recorded
                node._check_inputs()
            if node.hooks is not None:
                node._run_hooks(out_grads)
            node_hooks = node.backward_hooks
            if node_hooks is not None:
                node_hooks.before(node, out_grads)
            # The usual node (an engine op, no trace) calls its maker here, without _call_maker's checks.
            maker = None if node.backward_fn is not None or _tracing else node.op.schema.gradient
            in_grads = _call_maker(node, out_grads) if maker is None else maker(node, *out_grads)
            if check is not None:
                check(node, in_grads)
            if node_hooks is not None:
                in_grads = node_hooks.after(node, out_grads, in_grads)
            for edge, g, need in zip(node.edges, in_grads, node.needs_input_grad):
                if need and g is not None:
                    key = (edge[0].seq, edge[1]) if edge[0] is not None else id(edge[1])
                    prev = grads.get(key)
                    grads[key] = g if prev is None else _sum_gradients(prev, g)
            if not retain_graph:
                node.inputs = node._outputs = None  # release(), inlined
    return grads


def _call_maker(node, out_grads):
    if node.backward_fn is not None:
        result = node.backward_fn(*out_grads)
        result = result if isinstance(result, (tuple, list)) else (result,)
        if len(result) != len(node.inputs):
            raise OpInputError(f"custom gradient returned {len(result)} gradients for {len(node.inputs)} inputs")
        return tuple(result)
    schema = node.op.schema
    if schema.gradient is None:
        raise NoGradientError(f"{schema.op_type}: no gradient is defined for this op")
    # Makers return one gradient per input (checked by the finite-difference tests, not here).
    if _tracing:  # makers read traced shapes: guarded where they vary from run to run
        from vfw.core.graph import static_shapes  # (it imports the ops, which import this module)
        from vfw.core.graph.trace import current_trace

        trace = current_trace()
        if trace is not None:
            return static_shapes.gradient_made(trace, node, lambda: schema.gradient(node, *out_grads))
    return schema.gradient(node, *out_grads)
