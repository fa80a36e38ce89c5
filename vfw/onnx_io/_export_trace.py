"""Tracing a model into the self-contained inference GraphDef an ONNX file holds.

:func:`traced_graph` runs the model under the engine's tracer
(:class:`~vfw.core.graph.function.ConcreteFunction`, which runs it eagerly once), turns the
tensors it read (weights, buffers) into initializers named after the model's parameters, drops
the state updates (an inference snapshot: running statistics stay what they are), generalizes
dynamic axes by tracing again at other sizes (:mod:`vfw.onnx_io._export_dynamic`), and runs the
engine's pruning, common-subexpression and constant-folding passes.  Frontends (``torch.onnx``,
``vfw.onnx_io.export``) only prepare the inputs and the names.
"""

import numpy as np

from vfw.core.errors import TraceError
from vfw.core.graph.executor import CompiledGraph
from vfw.core.graph.function import Function
from vfw.core.graph.passes import eliminate_common_subexpressions, fold_constants, prune
from vfw.core.graph.trace import current_trace
from vfw.core.ir import tensor_to_proto
from vfw.core.proto import GraphDef
from vfw.onnx_io._export import ExportError
from vfw.onnx_io._export_dynamic import (
    check_value_independent,
    generalize,
    global_pools,
    perturbed_sizes,
    symbol_dims,
)
from vfw.onnx_io._export_floor import EXTENDED_STEPS


def rename(graph, mapping):
    """Rename values of ``graph`` in place (ops, inputs, outputs, initializers, value infos)."""
    if not mapping:
        return graph
    for op in graph.op:
        op.input[:] = [mapping.get(n, n) for n in op.input]
        op.output[:] = [mapping.get(n, n) for n in op.output]
    graph.input[:] = [mapping.get(n, n) for n in graph.input]
    graph.output[:] = [mapping.get(n, n) for n in graph.output]
    for t in graph.initializer:
        t.name = mapping.get(t.name, t.name)
    for vi in graph.value_info:
        vi.name = mapping.get(vi.name, vi.name)
    return graph


class _Tracer:
    """Traces ``fn`` on inputs, leaving the program state (``state`` tensors) as it found it.

    Parameters
    ----------
    fn, name, weight_names, weights_as_inputs
        See :func:`traced_graph`.
    state : list[Tensor]
        Tensors the model may write while it runs (running statistics...): their arrays and
        contents are restored after every trace, so each trace (and the weights exported) starts
        from the model's state before the export.
    """

    def __init__(self, fn, name, weight_names, weights_as_inputs, state):
        self.fn = fn
        self.name = name
        self.weight_names = weight_names
        self.weights_as_inputs = weights_as_inputs
        self.state = [(t, t.array, t.array.copy()) for t in state]

    def __call__(self, tensors):
        """``(graph, weights)``: one trace of ``fn(*tensors)``; the tensors it read (``weights``: name -> array)
        are initializers, or inputs after the arguments with ``weights_as_inputs``."""
        def body(*inputs):
            result = self.fn(*inputs)
            # Values whose shapes follow run-time values (a sequence_mask to the largest length) get unknown dims:
            # the traced ones would be declared in the file, and onnxruntime holds other runs to them.
            current_trace().forget_varying_shapes()
            return result

        body.__name__ = self.name
        try:
            concrete = Function(body, opt_level=0).get_concrete_function(*tensors)
        except TraceError as e:
            raise ExportError(f"ONNX export: the model cannot be traced into a graph: {e}") from None
        finally:
            for tensor, array, content in self.state:
                tensor.array = array
                if array.flags.writeable:  # read-only storage (a tf.Variable's) is replaced, never written
                    np.copyto(array, content)
        raw = concrete.raw_graph
        graph = GraphDef()
        graph.CopyFrom(raw)
        captured = {n for n, _ in concrete.captures}
        del graph.input[:]
        graph.input.extend(n for n in raw.input if n not in captured)
        used = {n for op in raw.op for n in list(op.input) + list(op.output)} | set(raw.input)
        renames, weights = {}, {}
        for capture, tensor in concrete.captures:
            if self.weights_as_inputs:
                graph.input.append(capture)
            else:
                graph.initializer.append(tensor_to_proto(tensor.array, capture))
            wanted = self.weight_names.get(id(tensor))
            if wanted and wanted not in used and wanted not in renames.values():
                renames[capture] = wanted
            weights[renames.get(capture, capture)] = tensor.array
        # what no output needs goes first: the trace re-reads views of memory written in place by positions of the
        # traced sizes, which the dynamic-axes pass would have to generalize even where nothing reads them
        return prune(global_pools(rename(graph, renames)), list(graph.output)), weights


def _resized(tensor, axes, size):
    """``tensor`` with each axis in ``axes`` resized to ``size`` (its entries repeated cyclically)."""
    array = tensor.array
    for axis in axes:
        array = np.take(array, np.arange(size) % array.shape[axis], axis=axis)
    return tensor.result_class.wrap(np.ascontiguousarray(array))


def _traces_with_symbol_changed(trace, tensors, dynamic, sizes, symbol, candidate_sizes=None):
    """``[(graph, size), ...]``: traces of the model with the dim ``symbol`` at other sizes, the first candidate
    sizes (default: :func:`perturbed_sizes`) the model accepts; raises ExportError with the model's first error."""
    first_failure = None
    for candidates in candidate_sizes or perturbed_sizes(sizes[symbol]):
        traces = []
        try:
            for size in candidates:
                traces.append((trace([_resized(t, [a % t.array.ndim for a, s in dynamic.get(i, {}).items()
                                                   if s == symbol], size) for i, t in enumerate(tensors)])[0], size))
            return traces
        except Exception as e:  # noqa: BLE001 - the model's own error, reported with the size that caused it
            first_failure = first_failure or (candidates[len(traces)], e)
    size, error = first_failure
    raise ExportError(f"ONNX export: tracing the model again with dynamic axis {symbol!r} = {size} (the example "
                      f"has {sizes[symbol]}) failed: {type(error).__name__}: {error}") from error


_RANDOM_OPS = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
                         "Multinomial", "Dropout"})
_CONTROL_FLOW_OPS = frozenset({"If", "Loop", "Scan", "While"})


def _feeds(graph, tensors, weights):
    return [t.array for t in tensors] + [weights[n] for n in graph.input[len(tensors):]]


def _check_generalized(trace, graph, weights, tensors, dynamic, sizes):
    """Run the generalized ``graph`` at sizes no trace used (every symbol at twice its size plus 3, or four times
    it where the model refuses those) against a trace made at those sizes: the message saying how they differ, or
    None.

    The traces fit each size-dependent constant from sizes one and two apart, which cannot tell a size the model
    computes with a floor division (a strided convolution's output size read in Python, ``(n - k) // s + 1``)
    from a constant: the exported graph would silently give wrong results (or fail) at other sizes.
    """
    if any(op.type in _RANDOM_OPS or op.type in _CONTROL_FLOW_OPS for op in graph.op):
        return None  # draws differ from run to run; subgraphs keep the traced shapes in their signatures
    for factor, step in ((2, 3), (4, 0)):
        other = {symbol: size * factor + step for symbol, size in sizes.items()}
        resized = list(tensors)
        for symbol, size in other.items():
            axes = [[a % t.array.ndim for a, s in dynamic.get(i, {}).items() if s == symbol]
                    for i, t in enumerate(resized)]
            resized = [_resized(t, a, size) if a else t for t, a in zip(resized, axes)]
        try:
            reference, reference_weights = trace(resized)
            reference = _without_unread_callbacks(reference)
            want = CompiledGraph(reference)(*_feeds(reference, resized, reference_weights))
        except Exception:  # noqa: BLE001 - the model refuses these sizes (a U-Net's multiples): try the next ones
            continue
        break
    else:
        return None
    where = ", ".join(f"{s}={n}" for s, n in other.items())
    advice = ("a size computed in Python that changes where the traced sizes (one to eight more than the example's) "
              "do not show it, and that no formula of floor divisions by up to 8 of the sizes reproduces (a "
              "strided convolution's or pooling's output size...); export with these axes static")
    try:
        graph = _without_unread_callbacks(graph)
        got = CompiledGraph(graph)(*_feeds(graph, resized, weights))
    except Exception as e:  # noqa: BLE001 - reported with the sizes that exposed it
        return (f"ONNX export: the graph generalized for the dynamic axes fails with {where} "
                f"({type(e).__name__}: {e}): the model holds {advice}")
    for name, g, w in zip(graph.output, got, want):
        g, w = np.asarray(g), np.asarray(w)
        same = g.shape == w.shape and (np.array_equal(g, w) if w.dtype.kind not in "fc" else
                                       np.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True))
        if not same:
            return (f"ONNX export: the graph generalized for the dynamic axes computes output {name!r} "
                    f"differently from the model with {where} (shape {list(g.shape)}, the model's "
                    f"{list(w.shape)}): the model holds {advice}")
    return None


def _without_unread_callbacks(graph):
    """``graph`` without the PyFunc ops nothing reads (run-time checks such as tf.gather's index check, which the
    export drops too): their callbacks are gone once the trace is, and running them would fail the check run."""
    read = {n for op in graph.op for n in op.input} | set(graph.output)
    dropped = [k for k, op in enumerate(graph.op) if op.type == "PyFunc" and not any(n in read for n in op.output if n)]
    if not dropped:
        return graph
    kept = GraphDef()
    kept.CopyFrom(graph)
    for k in reversed(dropped):
        del kept.op[k]
    return kept


def _symbol_sizes(tensors, dynamic):
    """``(sources, sizes)``: where each symbol is read (first input and axis naming it) and its example size."""
    sources, sizes = {}, {}
    for index, axes in sorted(dynamic.items()):
        shape = tensors[index].array.shape
        for axis, symbol in sorted(axes.items()):
            if not -len(shape) <= axis < len(shape):
                raise ExportError(f"ONNX export: dynamic axis {axis} ({symbol!r}) is out of range for input {index} "
                                  f"of shape {list(shape)}")
            axis %= len(shape)
            if symbol in sizes and sizes[symbol] != shape[axis]:
                raise ExportError(f"ONNX export: dynamic axis {symbol!r} names dims of different sizes "
                                  f"({sizes[symbol]} and {shape[axis]}) in the example inputs")
            sources.setdefault(symbol, (index, axis))
            sizes[symbol] = shape[axis]
    return sources, sizes


def _check_values(trace, tensors, base):
    """Trace again with the float inputs' elements shuffled and scaled by 3/4 (same shapes and signs, within the
    same range): refuse constants that changed (values computed outside the graph, which it would replay frozen).
    Then with the integer and bool inputs' elements shuffled (the same values, so still valid token ids, lengths
    or masks): a model that reads them in Python (``pack_padded_sequence``'s lengths) is refused too; where the
    model refuses the shuffled values (lengths that must stay sorted), that check is skipped."""
    rng = np.random.default_rng(0)
    shuffled, changed = [], False
    for t in tensors:
        array = t.array
        if array.dtype.kind == "f" and array.size > 1:
            array = (rng.permutation(array.reshape(-1)) * array.dtype.type(0.75)).reshape(array.shape)
            changed = True
        shuffled.append(t.result_class.wrap(np.asarray(array, order="C")))  # 0-d stays 0-d
    if changed:
        other, _ = trace(shuffled)
        check_value_independent(base, other)
    discrete, changed = [], False
    for t in tensors:
        array = t.array
        if array.dtype.kind in "iub" and array.size > 1 and not (array == array.reshape(-1)[0]).all():
            flat = array.reshape(-1)
            # a rotation by one moves every run of equal values: a permutation that always changes the array
            array = np.roll(flat, 1).reshape(array.shape)
            changed = True
        discrete.append(t.result_class.wrap(np.asarray(array, order="C")))  # 0-d stays 0-d
    if changed:
        try:
            other, _ = trace(discrete)
        except Exception:  # noqa: BLE001 - the model refuses these values: nothing to compare
            return
        check_value_independent(base, other)


def _weight_sources(graph, weights):
    """``(sources, producers)``: for each value computed from constants alone, the named ``weights`` among them
    (a set, empty for other constants); the type of the op making each value."""
    constants = {t.name for t in graph.initializer}
    sources = {n: ({n} if n in weights else set()) for n in constants}
    producers = {}
    for op in graph.op:
        inputs = [n for n in op.input if n]
        for out in op.output:
            producers[out] = op.type
        if all(n in sources for n in inputs) and op.type not in _RANDOM_OPS:
            merged = set().union(*(sources[n] for n in inputs))
            sources.update((out, merged) for out in op.output if out)
    return sources, producers


def _name_folded(graph, before, sources, producers):
    """Rename (in place) the constants folding made from named weights after the layer holding them (the weights'
    common path, ``bn/gamma`` and ``bn/moving_variance`` -> ``bn``): ``<layer>/scale`` where Mul reads it,
    ``<layer>/offset`` where Add or Sub do, else ``<layer>/<the op that made it>`` (a batch norm's folded
    statistics, a re-laid-out kernel), rather than the value names (``v13``) of a trace."""
    readers = {}
    for op in graph.op:
        for n in op.input:
            readers.setdefault(n, set()).add(op.type)
    taken = {n for op in graph.op for n in list(op.input) + list(op.output)} | set(graph.input) | \
        {t.name for t in graph.initializer}
    mapping = {}
    for proto in graph.initializer:
        paths = [w.split("/")[:-1] for w in sources.get(proto.name, ())]
        if proto.name in before or not paths:
            continue
        common = []
        for parts in zip(*paths):
            if len(set(parts)) != 1:
                break
            common.append(parts[0])
        if not common:
            continue
        kinds = readers.get(proto.name, set())
        role = "scale" if kinds == {"Mul"} else "offset" if kinds and kinds <= {"Add", "Sub"} else \
            producers.get(proto.name, "folded").lower()
        wanted, k = "/".join(common) + "/" + role, 0
        while (wanted if not k else f"{wanted}_{k}") in taken:
            k += 1
        mapping[proto.name] = wanted if not k else f"{wanted}_{k}"
        taken.add(mapping[proto.name])
    rename(graph, mapping)


def traced_graph(fn, tensors, dynamic=None, weight_names=None, fold=True, name="main_graph", weights_as_inputs=False,
                 state=(), folded_names=False):
    """Trace ``fn(*tensors)`` into a self-contained inference GraphDef.

    Parameters
    ----------
    fn : callable
        Takes the tensors positionally; returns a tensor or a nested tuple/list/dict of them.
    tensors : list[Tensor]
        Example inputs (engine or frontend tensors); each is a graph input of its own, a tensor passed twice
        too (traced as a copy).
    dynamic : dict[int, dict[int, str]], optional
        Symbolic dims: ``{input index: {axis: symbol}}``.
    weight_names : dict[int, str], optional
        ``id(tensor) -> name`` for the tensors the model reads (parameters and buffers): their
        initializers take these names.
    fold : bool
        Fold ops whose inputs are all constants (and prune, and merge common subexpressions).
    name : str
    weights_as_inputs : bool
        Make the tensors the model reads graph inputs (after the arguments) instead of constants.
    state : iterable of Tensor
        Tensors the model may write (buffers, variables): restored after each trace.
    folded_names : bool
        Name the constants folded from named weights after the weights' common path (``bn/scale``...).

    Returns
    -------
    graph : GraphDef
        Inputs in the order of ``tensors`` (one per tensor), outputs the flattened
        tensor results.
    dim_names : dict[str, dict[int, str]]
        The symbolic dims of the graph's inputs and outputs.
    weights : dict[str, numpy.ndarray]
        The tensors the model reads, by their name in the graph (initializers, or inputs with
        ``weights_as_inputs``), those the passes pruned left out.
    """
    dynamic = {k: v for k, v in (dynamic or {}).items() if v}
    weight_names = weight_names or {}
    seen, tensors = set(), list(tensors)
    for k, t in enumerate(tensors):  # one input per argument, as torch makes (``mha(x, x, x)``: query, key, value)
        if id(t) in seen:
            tensors[k] = t.result_class.wrap(t.array.copy())
        seen.add(id(tensors[k]))
    trace = _Tracer(fn, name, weight_names, weights_as_inputs, state)
    base, weights = trace(tensors)
    _check_values(trace, tensors, base)
    dim_names = {base.input[i]: dict(axes) for i, axes in dynamic.items()}
    if dynamic:
        sources, sizes = _symbol_sizes(tensors, dynamic)
        traces, all_sizes = [], [sizes]
        for symbol in sizes:
            for graph, size in _traces_with_symbol_changed(trace, tensors, dynamic, sizes, symbol):
                traces.append((graph, dict(sizes, **{symbol: size})))
                all_sizes.append(traces[-1][1])
        found = symbol_dims(base, [g for g, _ in traces], sizes, all_sizes, list(base.output))
        for output, axes in found.items():
            dim_names.setdefault(output, {}).update(axes)
        traced_sources = {s: (base.input[i], a) for s, (i, a) in sources.items()}
        generalized = generalize(base, traces, traced_sources, sizes)
        problem = _check_generalized(trace, generalized, weights, tensors, dynamic, sizes)
        if problem is not None:  # a size hidden by a floor division? eight consecutive sizes per axis tell
            traces, all_sizes = [], [sizes]
            for symbol in sizes:
                for graph, size in _traces_with_symbol_changed(trace, tensors, dynamic, sizes, symbol,
                                                               [tuple(sizes[symbol] + k for k in EXTENDED_STEPS)]):
                    traces.append((graph, dict(sizes, **{symbol: size})))
                    all_sizes.append(traces[-1][1])
            try:
                generalized = generalize(base, traces, traced_sources, sizes)
            except ExportError:
                raise ExportError(problem) from None
            if _check_generalized(trace, generalized, weights, tensors, dynamic, sizes) is not None:
                raise ExportError(problem)
            found = symbol_dims(base, [g for g, _ in traces], sizes, all_sizes, list(base.output))
            for output, axes in found.items():
                dim_names.setdefault(output, {}).update(axes)
        base = generalized
    keep = list(base.output)
    if fold:  # named weights stay distinct initializers (CSE would merge equal ones, such as zero biases)
        base = eliminate_common_subexpressions(prune(base, keep), keep + list(weights))
        before, (sources, producers) = {t.name for t in base.initializer}, _weight_sources(base, weights)
        base = fold_constants(base, keep)
        if folded_names:
            _name_folded(base, before, sources, producers)
    base = prune(base, keep)
    read = {n for op in base.op for n in op.input} | set(base.output)
    if weights_as_inputs:  # inputs nothing reads any more are dropped (the user's arguments stay)
        n_args = len(tensors)
        base.input[:] = list(base.input[:n_args]) + [n for n in base.input[n_args:] if n in read]
    return base, dim_names, {n: a for n, a in weights.items() if n in read}


def _assign_names(graph, wanted, reserved=()):
    """Rename values to the names in ``wanted`` (old -> new), moving any other value that holds a wanted or
    ``reserved`` name (one an Identity will produce); returns the renaming done."""
    taken = {n for op in graph.op for n in list(op.input) + list(op.output) if n} | set(graph.input) | \
        {t.name for t in graph.initializer}
    targets = set(wanted.values())
    if len(targets) != len(wanted) or targets & set(reserved):
        raise ValueError(f"ONNX export: input and output names must be distinct, got "
                         f"{sorted(list(wanted.values()) + list(reserved))}")
    targets |= set(reserved)
    mapping = dict(wanted)
    for name in sorted(taken):  # a copy: the loop adds the new names
        if name in targets and name not in wanted:
            k = 0
            while f"{name}_{k}" in taken or f"{name}_{k}" in targets:
                k += 1
            mapping[name] = f"{name}_{k}"
            taken.add(mapping[name])
    mapping = {k: v for k, v in mapping.items() if k != v}
    rename(graph, mapping)
    return mapping


def export_function(fn, tensors, input_names, output_names=None, dynamic=None, output_dims=None, weight_names=None,
                    opset=None, fold=True, weights="constant", doc_string="", name="main_graph", state=(),
                    folded_names=False):
    """Trace ``fn(*tensors)`` and write it as an ONNX ModelProto.

    Parameters
    ----------
    fn : callable
    tensors : list[Tensor]
        The example inputs, one per graph input.
    input_names : list[str]
        One name per tensor.
    output_names : list[str], optional
        Names of the first outputs (the others: ``output_<k>``).
    dynamic : dict[int, dict[int, str]], optional
        Symbolic dims of the inputs: ``{input index: {axis: name}}``.
    output_dims : dict[str, dict[int, str]], optional
        Symbolic dim names to declare for outputs (by output name).
    weight_names : dict[int, str], optional
        ``id(tensor) -> name`` for the weights the model reads.
    opset : int, optional
    fold : bool
        Constant folding.
    weights : str
        ``"constant"`` (initializers), ``"default"`` (graph inputs with their values as
        initializers) or ``"input"`` (graph inputs only, values left out of the file).
    doc_string, name : str
    state : iterable of Tensor
        Tensors the model may write while it runs, restored after each trace.
    folded_names : bool
        See :func:`traced_graph`.

    Returns
    -------
    onnx.ModelProto
    """
    from vfw.onnx_io._export import graph_to_model

    graph, dim_names, values = traced_graph(fn, tensors, dynamic, weight_names, fold=fold and weights == "constant",
                                            name=name, weights_as_inputs=weights != "constant", state=state,
                                            folded_names=folded_names)
    n_outputs = len(graph.output)
    output_names = list(output_names or [])
    if len(output_names) > n_outputs:
        raise ValueError(f"ONNX export: {len(output_names)} output names given for {n_outputs} outputs")
    outputs = output_names + [("output" if n_outputs == 1 else f"output_{k}") for k in
                              range(len(output_names), n_outputs)]
    wanted = dict(zip(graph.input[:len(tensors)], input_names))
    # an output that is an input, repeats another or no op makes (a returned buffer, a constant): an Identity
    # gives it the output's name, and a weight holding that name is renamed (torch renames it too: 'anchors.1')
    produced = {n for op in graph.op for n in op.output}
    duplicated = [k for k, o in enumerate(graph.output) if o in wanted or list(graph.output).index(o) != k
                  or o not in produced]
    for k, o in enumerate(graph.output):
        if k not in duplicated:
            wanted[o] = outputs[k]
    mapping = _assign_names(graph, wanted, reserved=[outputs[k] for k in duplicated])
    dim_names = {mapping.get(n, n): axes for n, axes in dim_names.items()}
    if weights == "default":
        values = {mapping.get(n, n): a for n, a in values.items()}
    if duplicated:  # an output that is an input, or repeats another: an Identity of its own
        for k in duplicated:
            graph.op.add().CopyFrom(_identity(graph.output[k], outputs[k]))
            _copy_value_info(graph, graph.output[k], outputs[k])
            graph.output[k] = outputs[k]
    for output, axes in (output_dims or {}).items():
        dim_names.setdefault(output, {}).update(axes)
    return graph_to_model(graph, opset, dim_names, defaults=values if weights == "default" else None,
                          doc_string=doc_string)


def _identity(source, target):
    from vfw.core.ir import make_opdef

    return make_opdef("Identity", [source], [target])


def _copy_value_info(graph, source, target):
    for vi in list(graph.value_info):
        if vi.name == source:
            graph.value_info.add(name=target, data_type=vi.data_type, dims=list(vi.dims))
            return
