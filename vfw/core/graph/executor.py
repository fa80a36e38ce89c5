"""Graph executor: a GraphDef becomes straight-line Python calling kernels.

Compiling binds every OpDef to its kernel once and generates a flat function
``plan(K, B, feeds)`` whose body is one kernel call per op over local
variables (no graph walking, no dict lookups per call).  The generated source
only ever contains integer-indexed names (``v12 = K[3](v4, v7, out=B[1])``),
never text taken from the graph, so compiling a loaded file runs no code from
it.

Memory plans from the graph passes arrive as an int list argument
``buffer`` on OpDefs (one entry per output: a buffer id, or -1): the executor
preallocates one byte pool per buffer id (sized for the largest value
assigned to it) and passes views of it as ``out=``; an op whose output has
the buffer of one of its inputs (an in-place update) gets that input's array
itself as ``out=``.  Graph outputs never live in pooled buffers across calls:
they are copied out when they do.  A graph the memory passes planned (graph
argument ``memory_plan``) also drops every intermediate after its last read
(``del``), so memory outside the pools is freed then rather than when the
run ends.

A value may live at a byte offset in its buffer (argument ``buffer_offset``,
one entry per output): the memory passes place the inputs of a Concat as the
blocks of its output (:mod:`~vfw.core.graph.passes.concat`), so their
producers write straight into the result, and the Concat only copies the
inputs that a kernel did not write there (one that ignored ``out``).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import DTypeError, OpInputError, ShapeError, VfwError
from vfw.core.ir import opdef_attrs, proto_to_tensor
from vfw.core.registry import get_schema
from vfw.core.workspace import current_workspace

PLAN_ARGS = frozenset({"buffer", "buffer_offset"})
"""OpDef arguments of a memory plan (the executor's, not the op's attributes)."""

PLAN_MARK = "memory_plan"
"""Graph-level argument set by the memory passes: the plan then drops intermediates after their last read."""


def value_infos(graph):
    """``{name: (shape or None, dtype)}`` from the graph's value_info (-1 dims become None)."""
    infos = {}
    for vi in graph.value_info:
        shape = tuple(None if d < 0 else d for d in vi.dims)
        infos[vi.name] = (shape, dt.as_dtype(vi.data_type))
    return infos


def plan_kind(graph):
    """The memory plan of ``graph``: ``None``, ``"release"``, ``"inplace"`` or ``"buffers"``."""
    for arg in graph.arg:
        if arg.name == PLAN_MARK:
            return arg.s.decode()
    return None


def returns_tuple(schema):
    """Whether the kernels of ``schema`` return a tuple (several or variadic outputs)."""
    return len(schema.outputs) > 1 or schema.outputs[0].variadic


def buffers_of(opdef, arg_name="buffer"):
    """The ``buffer`` (or ``buffer_offset``) argument of an OpDef as a list of ints (``None`` when absent)."""
    for arg in opdef.arg:
        if arg.name == arg_name:
            return list(arg.ints.values)
    return None


def kernel_attrs(opdef):
    """The attributes of an OpDef's op, without the memory plan's arguments."""
    return {name: value for name, value in opdef_attrs(opdef).items() if name not in PLAN_ARGS}


class ConcatIntoBlocks:
    """A Concat whose output is a fixed pooled array some of whose inputs the plan placed as its blocks.

    Parameters
    ----------
    kernel : callable
        The Concat kernel (for inputs other than the planned ones: it validates and raises its errors).
    blocks : list[numpy.ndarray]
        One C-contiguous view of the output per input, in order (the output's leading dims before the
        axis are all 1, so each input is a contiguous block).
    whole : numpy.ndarray
        The output.

    Calling it with the inputs copies each one into its block unless it is that block already (its
    producer wrote there), and returns the output.
    """

    def __init__(self, kernel, blocks, whole):
        self.kernel, self.blocks, self.whole = kernel, blocks, whole
        self.addresses = [b.__array_interface__["data"][0] for b in blocks]

    def __call__(self, *parts, out=None):
        if len(parts) != len(self.blocks) or any(type(p) is not np.ndarray or p.shape != b.shape or p.dtype != b.dtype
                                                 for p, b in zip(parts, self.blocks)):
            return self.kernel(*parts, out=out)
        for part, block, address in zip(parts, self.blocks, self.addresses):
            if part.__array_interface__["data"][0] != address or not part.flags.c_contiguous:
                np.copyto(block, part)
        return self.whole


class CompiledGraph:
    """A runnable graph.

    Parameters
    ----------
    graph : GraphDef
        Inputs, ops, outputs, initializers and value infos (and optional
        ``buffer`` annotations from the memory passes).
    extra_outputs : list[str], optional
        Further values to fetch after the declared outputs (e.g. state updates).

    Calling it with one numpy array per graph input returns the list of
    output arrays (declared outputs, then ``extra_outputs``).
    """

    def __init__(self, graph, extra_outputs=()):
        self.graph = graph
        self.input_names = list(graph.input)
        self.output_names = list(graph.output) + list(extra_outputs)
        self._infos = value_infos(graph)
        consts = {t.name: proto_to_tensor(t) for t in graph.initializer}
        slot = {}
        for name in self.input_names:
            slot[name] = f"x{len(slot)}"
        const_values = []
        for name, value in consts.items():
            value.flags.writeable = False  # constants are shared by every call
            slot[name] = f"C[{len(const_values)}]"
            const_values.append(value)
        kernels, steps, self._ops = [], [], []
        buffer_sizes = {}
        buffer_views = []
        buffer_of = {}  # value -> (its buffer id, its byte offset there)
        assembled = []  # Concats writing a pooled view: (op index, its view's index, [(byte offset, shape)] per input)
        self._inplace = set()  # values an op overwrites in place
        dynamic = plan_kind(graph) == "inplace"  # in-place chains without preallocated pools
        for k, opdef in enumerate(graph.op):
            schema = get_schema(opdef.type)
            # The workspace's bound op: a seeded random op continues the stream its eager run (the trace) began.
            op = current_workspace().op(opdef.type, kernel_attrs(opdef))
            self._ops.append(op)
            kernels.append(op.kernel)
            args = []
            for name in opdef.input:
                if not name:
                    args.append("None")
                elif name in slot:
                    args.append(slot[name])
                else:
                    raise OpInputError(f"graph {graph.name!r}: op #{k} ({opdef.type}) reads {name!r}, "
                                       "which no earlier op, input or initializer defines")
            outs = []
            for name in opdef.output:
                if name:
                    slot[name] = f"v{len(slot)}"
                outs.append(slot[name] if name else "_")
            buffers = buffers_of(opdef)
            if buffers and buffers[0] >= 0 and not returns_tuple(schema):
                b, info = (buffers[0], (buffers_of(opdef, "buffer_offset") or [0])[0]), self._infos[opdef.output[0]]
                over = next((n for n in opdef.input if n and buffer_of.get(n) == b and self._infos.get(n) == info),
                            None)
                if over is not None:
                    # In place over an input in the same buffer, which holds its array: that very object is
                    # ``out`` (numpy analyses the overlap of two views of one memory, ~0.25 us a call).
                    args.append(f"out={slot[over]}")
                    self._inplace.add(over)
                elif dynamic:
                    pass  # level 2: a chain's first value is allocated by its kernel, later ones write over it
                else:
                    shape, dtype = info
                    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                    buffer_sizes[b[0]] = max(buffer_sizes.get(b[0], 0), b[1] + nbytes)
                    if opdef.type == "Concat":
                        self._concat_blocks(k, opdef, b, buffer_of, len(buffer_views), assembled)
                    args.append(f"out=B[{len(buffer_views)}]")
                    buffer_views.append((b, shape, dtype))
                buffer_of[opdef.output[0]] = b
            call = f"K[{k}]({', '.join(args)})"
            if returns_tuple(schema):
                steps.append(f"    {', '.join(outs)}, *_ = {call}")
            else:
                # A direct kernel call can return a numpy scalar for a 0-d result.
                zero_d = self._infos.get(opdef.output[0], (None,))[0] == ()
                steps.append(f"    {outs[0]} = {'A(' + call + ')' if zero_d else call}")
        for name in self.output_names:
            if name not in slot:
                raise OpInputError(f"graph {graph.name!r}: output {name!r} is not defined")
        source = ["def plan(K, B, C, A, feeds):"]
        if self.input_names:
            source.append(f"    {''.join(slot[n] + ', ' for n in self.input_names)}= feeds")
        if any(arg.name == PLAN_MARK for arg in graph.arg):
            steps = self._with_releases(steps, slot)
        source += steps
        source.append(f"    return [{', '.join(slot[n] for n in self.output_names)}]")
        namespace = {}
        # the graph's name only labels tracebacks: its control characters (a NUL from a file) are escaped
        label = graph.name.encode("unicode_escape").decode("ascii")
        exec(compile("\n".join(source), f"<vfw graph {label}>", "exec"), namespace)  # noqa: S102
        self._plan = namespace["plan"]
        self._kernels = kernels
        self._consts = const_values
        self._pools = {b: np.empty(n, np.uint8) for b, n in buffer_sizes.items()}
        self._buffers = [self._pools[b][at: at + int(np.prod(s, dtype=np.int64)) * d.itemsize].view(d).reshape(s)
                         for (b, at), s, d in buffer_views]
        for k, whole, blocks in assembled:
            flat = self._buffers[whole].reshape(-1).view(np.uint8)
            views = [flat[at:at + int(np.prod(s, dtype=np.int64)) * self._buffers[whole].itemsize]
                     .view(self._buffers[whole].dtype).reshape(s) for at, s in blocks]
            kernels[k] = ConcatIntoBlocks(kernels[k], views, self._buffers[whole])
        pooled = {id(self._pools[b]) for b in self._pools}
        self._pooled = pooled
        self.source = "\n".join(source)
        expected = [self._infos.get(n, (None, None))[::-1] for n in self.input_names]
        fully_known = all(d is not None and s is not None and None not in s for d, s in expected)
        self._expected = expected if fully_known else None
        self._named = any(opdef.name for opdef in graph.op)

    def _concat_blocks(self, k, opdef, place, buffer_of, view, assembled):
        """Record Concat ``k`` (output at ``place``, buffer view ``view``) for :class:`ConcatIntoBlocks` when the
        plan placed one of its inputs as its block (the same buffer, at the block's byte offset)."""
        shape, dtype = self._infos[opdef.output[0]]
        axis = opdef_attrs(opdef).get("axis", 0)
        axis = axis + len(shape) if axis < 0 else axis
        shapes = [self._infos.get(n, (None, None))[0] for n in opdef.input]
        if not 0 <= axis < len(shape) or np.prod(shape[:axis], dtype=np.int64) != 1 or any(
                s is None or None in s for s in shapes):
            return
        blocks, at, placed = [], 0, False
        for name, s in zip(opdef.input, shapes):
            placed |= buffer_of.get(name) == (place[0], place[1] + at) and self._infos[name][1] == dtype
            blocks.append((at, s))
            at += int(np.prod(s, dtype=np.int64)) * dtype.itemsize
        if placed:
            assembled.append((k, view, blocks))

    def _with_releases(self, steps, slot):
        """``steps`` with ``del`` statements dropping each op output after its last read.

        The generated function's locals would otherwise hold every intermediate until it returns
        (memory-planned graphs only: the memory report counts unplanned ones so).  Pooled values
        are dropped too: a kernel may have ignored ``out`` and returned a new array.
        """
        last_read = {}
        for k, opdef in enumerate(self.graph.op):
            for name in opdef.input:
                if name:
                    last_read[name] = k
        fetched = set(self.output_names)
        drops = {}
        for k, opdef in enumerate(self.graph.op):
            for name in opdef.output:
                # A value overwritten in place lives on as the overwriting op's output (the same object),
                # so dropping its own name after that last read frees nothing early.
                if name and name not in fetched:
                    drops.setdefault(last_read.get(name, k), []).append(slot[name])
        out = []
        for k, step in enumerate(steps):
            out.append(step)
            if k in drops:
                out.append(f"    del {', '.join(drops[k])}")
        return out

    @property
    def nbytes(self):
        """int: bytes held by the preallocated buffer pools."""
        return sum(p.nbytes for p in self._pools.values())

    def check_feeds(self, feeds):
        """Raise a clear error when the feeds do not match the graph inputs' dtypes and shapes."""
        expected = self._expected
        if expected is not None and len(feeds) == len(expected):
            for x, (dtype, shape) in zip(feeds, expected):
                if x.dtype != dtype or x.shape != shape:
                    break
            else:
                return  # the common case: exactly the traced dtypes and shapes
        if len(feeds) != len(self.input_names):
            raise OpInputError(f"graph {self.graph.name!r} takes {len(self.input_names)} inputs "
                               f"({', '.join(self.input_names)}), got {len(feeds)}")
        for name, x in zip(self.input_names, feeds):
            shape, dtype = self._infos.get(name, (None, None))
            if dtype is not None and x.dtype != dtype:
                raise DTypeError(f"graph {self.graph.name!r}: input {name!r} must be {dt.type_name(dtype)}, "
                                 f"got {dt.type_name(x.dtype)}")
            if shape is not None and (len(shape) != x.ndim or any(
                    d is not None and d != n for d, n in zip(shape, x.shape))):
                raise ShapeError(f"graph {self.graph.name!r}: input {name!r} must have shape "
                                 f"{tuple('?' if d is None else d for d in shape)}, got {x.shape}")

    def __call__(self, *feeds):
        self.check_feeds(feeds)
        try:
            results = self._plan(self._kernels, self._buffers, self._consts, np.asarray, feeds)
        except VfwError:
            if self._named:
                self._interpret(feeds)  # names the failing op (an imported graph's ops carry node names)
            raise
        except Exception:
            # Re-run op by op through the validating Op wrappers to name the failing op.
            self._interpret(feeds)
            raise
        if self._pools:
            results = [r.copy() if self._in_pool(r) else r for r in results]
        return results

    def _in_pool(self, array):
        base = array
        while base.base is not None:
            base = base.base
        return id(base) in self._pooled

    def _interpret(self, feeds):
        values = dict(zip(self.input_names, feeds))
        values.update({t.name: proto_to_tensor(t) for t in self.graph.initializer})
        for op, opdef in zip(self._ops, self.graph.op):
            try:
                result = op(*[values[n] if n else None for n in opdef.input])
            except VfwError as exc:
                if not opdef.name or str(exc).startswith(opdef.name):
                    raise
                raise type(exc)(f"{opdef.name}: {exc}") from exc
            results = result if isinstance(result, tuple) else (result,)
            values.update({n: r for n, r in zip(opdef.output, results) if n})
