"""In-place updates (O2): an elementwise op writes its result over an input it reads for the last time.

When an op of :data:`INPLACE_OPS` reads an intermediate value ``x`` for the
last time (no later op reads ``x`` or a view of it) and its output ``y`` has
``x``'s shape and dtype, ``y`` takes ``x``'s buffer: the executor passes
``x``'s array itself as the kernel's ``out=``.  Chains of such ops
(``y = Relu(Add(Gemm(...), b))``) share one buffer, which the op starting
the chain writes (as ``out=``, a view of the buffer's pool).

The plan is the OpDef argument ``buffer`` (one entry per output: the chain's
buffer id, or -1), which the executor turns into byte pools.  At O2 only the
chains get buffers; at O3 :func:`~vfw.core.graph.passes.buffers.plan_buffers`
keeps each chain in one buffer and shares buffers between chains too.

Only intermediates in pools are ever overwritten: graph inputs, captures,
initializers, graph outputs, state updates and views of any of them never
are (see :class:`~vfw.core.graph.memory.Liveness`).
"""

from vfw.core.graph.executor import PLAN_ARGS, PLAN_MARK
from vfw.core.graph.memory import Liveness
from vfw.core.ir import make_argument

_EVERY = None  # every input slot may be overwritten

INPLACE_OPS = {
    # arithmetic.py: one ufunc pass each; Div and Pow compute their integer and mixed-type cases in new
    # arrays before copying into ``out``.
    **dict.fromkeys(("Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr",
                     "BitwiseXor", "Neg", "Abs", "Sign", "Reciprocal", "Floor", "Ceil", "Round", "BitwiseNot"),
                    _EVERY),
    # Min/Max/Sum/Mean fold inputs 2.. into ``out`` after writing it from inputs 0 and 1; Clip writes
    # ``out`` from the input and ``min`` before reading ``max``.
    **dict.fromkeys(("Min", "Max", "Sum", "Mean"), (0, 1)),
    "Clip": (0,),
    # math.py: ufuncs; Erf computes into a new array, then copies.
    **dict.fromkeys(("Exp", "Log", "Sqrt", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh",
                     "Asinh", "Acosh", "Atanh", "Erf"), _EVERY),
    # logic.py: ufuncs (only bool inputs match their bool outputs); casts copy (same dtype only here).
    **dict.fromkeys(("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not"),
                    _EVERY),
    **dict.fromkeys(("Cast", "CastLike"), (0,)),
    # activations.py (its docstring: ``out`` may alias the input) and softmax.py (each reads the input
    # in full, a reduction or a pass, before the first write).  PRelu copies X into ``out`` before
    # reading the slope.  ThresholdedRelu and Shrink always return new arrays: nothing to gain.
    **dict.fromkeys(("Relu", "LeakyRelu", "Elu", "Selu", "Celu", "Gelu", "Sigmoid", "HardSigmoid", "HardSwish",
                     "Softplus", "Softsign", "Mish", "Softmax", "LogSoftmax", "Hardmax"), _EVERY),
    "PRelu": (0,),
}
"""Op type -> the input slots its kernels accept ``out`` aliasing (``None``: every slot)."""

OVERLAP_SAFE = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr",
                          "BitwiseXor", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or",
                          "Xor"})
"""Binary ops whose other input may share storage with the overwritten one (numpy ufuncs give the result
of non-overlapping operands whatever the overlap; the integer Div/Pow paths read both inputs first)."""


def inplace_slots(op, step, live):
    """Input slots of ``op`` (the op at ``step``) whose buffer its output may take.

    Parameters
    ----------
    op : OpDef
    step : int
    live : Liveness

    Returns
    -------
    list[int]
    """
    slots = INPLACE_OPS.get(op.type, False)
    if slots is False or len(op.output) != 1 or not live.poolable(op.output[0]):
        return []
    info = live.infos[op.output[0]]
    found = []
    for j, x in enumerate(op.input):
        if not x or (slots is not None and j not in slots) or not live.poolable(x):
            continue
        if live.end[x] != step or live.infos[x] != info:
            continue
        if op.type not in OVERLAP_SAFE and any(
                k != j and other and live.root_of(other) == x for k, other in enumerate(op.input)):
            continue
        found.append(j)
    return found


def set_buffers(op, ids, offsets=()):
    """Replace the memory plan arguments of ``op``: ``buffer`` by ``ids`` (one per output), and ``buffer_offset``
    by ``offsets`` (bytes, one per output) unless they are all 0."""
    kept = [arg for arg in op.arg if arg.name not in PLAN_ARGS]
    del op.arg[:]
    op.arg.extend(kept)
    if ids:
        op.arg.append(make_argument("buffer", [int(i) for i in ids]))
    if any(offsets):
        op.arg.append(make_argument("buffer_offset", [int(i) for i in offsets]))


def mark_planned(graph, kind):
    """Set the graph argument telling the executor that ``graph`` has a memory plan."""
    kept = [arg for arg in graph.arg if arg.name != PLAN_MARK]
    del graph.arg[:]
    graph.arg.extend(kept)
    graph.arg.append(make_argument(PLAN_MARK, kind))


def plan_inplace(graph, keep):
    """Let elementwise ops overwrite an intermediate input they read last (O2).

    Parameters
    ----------
    graph : GraphDef
    keep : list[str]
        Values fetched after the run (graph outputs, state updates): never overwritten.

    Returns
    -------
    GraphDef
        A copy with a ``buffer`` argument on every op: each in-place chain gets its own buffer id,
        every other output -1.
    """
    out = type(graph)()
    out.CopyFrom(graph)
    live = Liveness(out, keep)
    head = {}  # value -> first value of its chain
    for step, op in enumerate(out.op):
        slots = inplace_slots(op, step, live)
        if slots:
            x = op.input[slots[0]]
            head[op.output[0]] = head.get(x, x)
    ids = {}
    for h in head.values():
        ids.setdefault(h, len(ids))
    for op in out.op:
        set_buffers(op, [ids.get(head.get(name, name), -1) if name else -1 for name in op.output])
    mark_planned(out, "inplace")
    return out
