"""ONNX control flow onto the engine's ``If`` and ``Loop`` ops; ``Scan`` and ``SequenceMap`` become Loops.

ONNX subgraphs read outer values by name; the engine's take them as explicit inputs.  A converted
subgraph lists the outer values it read (:attr:`~vfw.onnx_io._import_graph.Builder.free`), which
become extra inputs of the op: both branches of an ``If`` take the union of what either reads,
and a ``Loop`` body carries them unchanged (returned as they came, before the scan outputs).

``Scan`` (opset 9 and later) is a Loop over the scanned axis: the body takes row ``i`` (or
``count - 1 - i`` for a reverse direction) of each scan input with a Gather, and the loop's stacked
scan outputs are reversed and moved to their axis afterwards.  Opset 8's batched Scan is a Loop over
the batch whose body is such a Scan.  ``SequenceMap`` is a Loop over the sequence's positions
that appends each result to the output sequences.
"""

import numpy as np
import onnx

from vfw.core.errors import OpAttributeError, ShapeError, UnknownOpError
from vfw.core.graph.passes import optimize
from vfw.core.graph.subgraph import SUBGRAPH_OPT_LEVEL
from vfw.onnx_io._import_graph import SEQUENCE, TENSOR, Builder, define_outputs, element_type, kind_of, tensor_type

INT64_MIN = np.iinfo(np.int64).min


def _graph_attr(spec, name):
    graph = spec.attrs.get(name)
    if not isinstance(graph, onnx.GraphProto):
        raise spec.error(f"needs a graph attribute {name!r}", OpAttributeError)
    return graph


def _finish(sub):
    """The optimized GraphDef of a converted subgraph (inputs kept in place: they are the op's calling
    convention)."""
    return optimize(sub.graph, SUBGRAPH_OPT_LEVEL)


def _set_outputs(sub, names):
    del sub.graph.output[:]
    sub.graph.output.extend(names)


def _output_infos(sub, declared, names, where):
    """Record the declared dtype/dims (``declared`` value infos) of the body outputs ``names``: what a loop that
    runs no iteration stacks."""
    for vi, name in zip(declared, names):
        dtype, shape = tensor_type(vi.type, f"{where} output {vi.name!r}")
        if dtype is not None and not any(info.name == name for info in sub.graph.value_info):
            sub.set_info(name, dtype, shape)


def convert_if(conv, b, spec):
    """ONNX If: both branches take the union of the outer values either reads."""
    branches = [conv.graph_level(_graph_attr(spec, attr), b, spec.opsets, f"{spec.where} {attr}")
                for attr in ("then_branch", "else_branch")]
    count = len(spec.proto.output)
    for sub, attr in zip(branches, ("then_branch", "else_branch")):
        if len(sub.graph.output) != count:
            raise spec.error(f"{attr} has {len(sub.graph.output)} outputs, the node {count}")
    free = list(dict.fromkeys(branches[0].free + branches[1].free))
    for sub in branches:
        del sub.graph.input[:]
        sub.graph.input.extend(free)
    then = branches[0]
    define_outputs(b, spec, [then.kinds.get(name, TENSOR) for name in then.graph.output])
    outer = [b.read(name, spec.where) for name in free]
    b.op("If", [spec.input(0), *outer], [spec.output(i) for i in range(count)], spec.where,
         then_branch=_finish(branches[0]), else_branch=_finish(branches[1]))


def convert_loop(conv, b, spec):
    """ONNX Loop: the body carries the outer values it reads after the loop-carried values."""
    body = _graph_attr(spec, "body")
    n = max(0, len(spec.proto.input) - 2)
    if len(body.input) != 2 + n:
        raise spec.error(f"the body takes {len(body.input)} inputs; with {n} loop-carried values it must take "
                         f"{2 + n} (iteration_num, cond, values...)")
    sub = conv.graph_level(body, b, spec.opsets, f"{spec.where} body")
    outputs = list(sub.graph.output)
    scans = len(outputs) - 1 - n
    if scans < 0 or len(spec.proto.output) > n + scans:
        raise spec.error(f"the body returns {len(outputs)} values; with {n} loop-carried values it must return "
                         f"cond, the values and the scan outputs (the node has {len(spec.proto.output)} outputs)")
    free = list(sub.free)
    _set_outputs(sub, outputs[:1 + n] + free + outputs[1 + n:])
    _output_infos(sub, body.output[1 + n:], outputs[1 + n:], f"{spec.where} body")
    define_outputs(b, spec, [sub.kinds.get(name, TENSOR) for name in outputs[1:]])
    outer = [b.read(name, spec.where) for name in free]
    results = [spec.output(i) for i in range(n)] + [""] * len(free) + [spec.output(n + j) for j in range(scans)]
    inputs = [spec.input(0), spec.input(1), *[spec.input(2 + i) for i in range(n)], *outer]
    b.op("Loop", inputs, results, spec.where, body=_finish(sub))


# -- Scan -------------------------------------------------------------------------------------------------------
def _int_list(spec, name, count, default=0):
    values = spec.attrs.get(name)
    if values is None:
        return [default] * count
    if len(values) != count:
        raise spec.error(f"attribute {name!r} needs {count} entries, got {len(values)}", OpAttributeError)
    return list(values)


def convert_scan(conv, b, spec):
    """ONNX Scan (opset 8 batched, 9 and later unbatched)."""
    body = _graph_attr(spec, "body")
    k = spec.attrs.get("num_scan_inputs")
    if not isinstance(k, int) or k < 1:
        raise spec.error("needs num_scan_inputs >= 1", OpAttributeError)
    if spec.since < 9:
        _convert_scan_8(conv, b, spec, body, k)
        return
    names = list(spec.proto.input)
    n = len(names) - k
    m = len(body.output) - n
    if n < 0 or len(body.input) != n + k or m < 0:
        raise spec.error(f"the body takes {len(body.input)} inputs and returns {len(body.output)}; the node has "
                         f"{n} states and {k} scan inputs")
    define_outputs(b, spec)
    outputs = [spec.output(i) for i in range(n + m)]
    _scan_loop(conv, b, spec, body, spec.inputs[:n], [spec.input(n + j) for j in range(k)],
               _int_list(spec, "scan_input_axes", k), _int_list(spec, "scan_input_directions", k),
               _int_list(spec, "scan_output_axes", m), _int_list(spec, "scan_output_directions", m), outputs)


def _scan_loop(conv, b, spec, body, states, scans, in_axes, in_dirs, out_axes, out_dirs, outputs):
    """Emit into ``b`` the Loop computing a Scan of ``body``; ``outputs`` names the final states then the
    scan outputs ('' for unused ones)."""
    n, k = len(states), len(scans)
    count = b.op1("Gather", [b.op1("Shape", [scans[0]], spec.where), b.const(np.int64(in_axes[0]))], spec.where)
    carried = {}

    def declare(sub):
        step, cond = sub.fresh("i"), sub.fresh("cond")
        sub.graph.input.extend([step, cond])
        for vi in body.input[:n]:
            sub.graph.input.append(sub.define(vi.name, kind_of(vi.type), spec.where))
        carried["whole"] = [sub.fresh("scan_input") for _ in range(k)]
        carried["count"] = sub.fresh("count")
        sub.graph.input.extend(carried["whole"] + [carried["count"]])
        back = sub.op1("Sub", [sub.op1("Sub", [carried["count"], sub.const(np.int64(1))], spec.where), step],
                       spec.where)
        for j, vi in enumerate(body.input[n:]):
            row = sub.define(vi.name, where=spec.where)
            sub.op("Gather", [carried["whole"][j], back if in_dirs[j] else step], [row], spec.where, axis=in_axes[j])

    sub = conv.graph_level(body, b, spec.opsets, f"{spec.where} body", declare)
    results = list(sub.graph.output)
    free = list(sub.free)
    true = sub.const(np.bool_(True))
    _set_outputs(sub, [true, *results[:n], *carried["whole"], carried["count"], *free, *results[n:]])
    _output_infos(sub, body.output[n:], results[n:], f"{spec.where} body")
    # A scan output that is neither reversed nor moved is the loop's own output.
    direct = [not out_dirs[j] and out_axes[j] == 0 for j in range(len(results) - n)]
    stacked = [target if keep else b.fresh("scan_output") for keep, target in zip(direct, outputs[n:])]
    outer = [b.read(name, spec.where) for name in free]
    b.op("Loop", [count, "", *states, *scans, count, *outer],
         outputs[:n] + [""] * (k + 1 + len(free)) + stacked, spec.where, body=_finish(sub))
    for j, (value, target) in enumerate(zip(stacked, outputs[n:])):
        if not target or direct[j]:
            continue
        if out_dirs[j]:
            value = b.op1("Slice", [value, b.const(np.asarray([-1], np.int64)),
                                    b.const(np.asarray([INT64_MIN], np.int64)), b.const(np.asarray([0], np.int64)),
                                    b.const(np.asarray([-1], np.int64))], spec.where)
        axis = out_axes[j]
        if axis == 0:
            b.op("Identity", [value], [target], spec.where)
            continue
        vi = body.output[n + j]
        shape = tensor_type(vi.type, spec.where)[1]
        if shape is None:
            raise spec.error(f"scan_output_axes needs the rank of body output {vi.name!r}, which the model does "
                             "not declare", ShapeError)
        rank = len(shape) + 1
        axis %= rank
        perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank))
        b.op("Transpose", [value], [target], spec.where, perm=perm)


def _convert_scan_8(conv, b, spec, body, k):
    """Opset 8: inputs (sequence_lens, states..., scans...) with a batch axis 0 (scan axis 1): a Loop over the
    batch whose body scans one batch item."""
    if spec.input(0):
        raise spec.error("Scan (opset 8) with sequence_lens is not supported", UnknownOpError)
    names = list(spec.proto.input)[1:]
    n = len(names) - k
    m = len(body.output) - n
    if n < 0 or m < 0 or len(body.input) != n + k:
        raise spec.error(f"the body takes {len(body.input)} inputs and returns {len(body.output)}; the node has "
                         f"{n} states and {k} scan inputs")
    directions = _int_list(spec, "directions", k)
    outer = Builder(conv, f"{spec.name or 'scan'}_batch", b)
    item, cond = outer.fresh("b"), outer.fresh("cond")
    outer.graph.input.extend([item, cond])
    rows = [outer.op1("Gather", [outer.read(name, spec.where), item], spec.where, axis=0) for name in names]
    results = [outer.fresh("scan_result") for _ in range(n + m)]
    _scan_loop(conv, outer, spec, body, rows[:n], rows[n:], [0] * k, directions, [0] * m, [0] * m, results)
    free = list(outer.free)
    _set_outputs(outer, [outer.const(np.bool_(True)), *free, *results])
    define_outputs(b, spec)
    batch = b.op1("Gather", [b.op1("Shape", [spec.input(1 + n)], spec.where), b.const(np.int64(0))], spec.where)
    b.op("Loop", [batch, "", *[b.read(name, spec.where) for name in free]],
         [""] * len(free) + [spec.output(i) for i in range(n + m)], spec.where, body=_finish(outer))


# -- SequenceMap --------------------------------------------------------------------------------------------------
def convert_sequence_map(conv, b, spec):
    """ONNX SequenceMap: the body runs on position ``i`` of each sequence input (tensor inputs whole) and its
    outputs are appended to the output sequences."""
    body = _graph_attr(spec, "body")
    names = list(spec.proto.input)
    if len(body.input) != len(names):
        raise spec.error(f"the body takes {len(body.input)} inputs, the node has {len(names)}")
    kinds = [b.kind(name) for name in names]
    count = b.op1("SequenceLength", [spec.inputs[0]], spec.where)
    empties = []
    for k, vi in enumerate(body.output):
        declared = conv.type_of(spec.proto.output[k]) if k < len(spec.proto.output) else None
        dtype = (element_type(vi.type, spec.where) or
                 (element_type(declared, spec.where) if declared is not None else None) or np.dtype(np.float32))
        empties.append(b.op1("SequenceEmpty", [], spec.where, dtype=dtype))
        b.kinds[empties[-1]] = SEQUENCE
    accumulators = []

    def declare(sub):
        step, cond = sub.fresh("i"), sub.fresh("cond")
        sub.graph.input.extend([step, cond])
        accumulators.extend(sub.fresh("sequence") for _ in body.output)
        sub.graph.input.extend(accumulators)
        for acc in accumulators:
            sub.kinds[acc] = SEQUENCE
        for name, kind, vi in zip(names, kinds, body.input):
            source = sub.capture(name, spec.where)
            if kind == SEQUENCE:
                sub.op("SequenceAt", [source, step], [sub.define(vi.name, where=spec.where)], spec.where)
            else:
                sub.alias(vi.name, source, spec.where)

    sub = conv.graph_level(body, b, spec.opsets, f"{spec.where} body", declare)
    grown = [sub.op1("SequenceInsert", [acc, y], spec.where) for acc, y in zip(accumulators, sub.graph.output)]
    free = list(sub.free)
    carried = list(sub.graph.input)[2 + len(accumulators):]  # the captured inputs, returned as they came
    _set_outputs(sub, [sub.const(np.bool_(True)), *grown, *carried])
    define_outputs(b, spec, [SEQUENCE] * len(body.output))
    b.op("Loop", [count, "", *empties, *[b.read(name, spec.where) for name in free]],
         [spec.output(i) for i in range(len(body.output))] + [""] * len(free), spec.where, body=_finish(sub))
