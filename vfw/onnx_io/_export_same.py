"""TensorFlow's ``"same"`` padding of strided windows under dynamic axes.

TF pads a ``"same"`` convolution or pooling by ``max((ceil(n / s) - 1) * s + (k - 1) * d + 1 - n, 0)`` along
each spatial axis, the odd one at the end: with strides above one that total changes with ``n`` (by parity for
stride 2), so the channels-last window ops a trace records (``ChannelsLastConv``, ``ChannelsLastMaxPool``,
``ChannelsLastAveragePool``) carry ``pads`` that differ from trace to trace, and no formula of the sizes fits a
constant attribute.  ONNX says the same thing with ``auto_pad="SAME_UPPER"`` (the extra pad at the end, the
output ``ceil(n / s)``), which the engine's ONNX-named ``Conv`` / ``MaxPool`` / ``AveragePool`` run too.

:func:`same_padded` rewrites, in every trace alike, each such op whose pads vary between the traces and are
TF's ``"same"`` pads of its input in each of them: a ``Transpose`` to channels first, the ONNX op with
``auto_pad="SAME_UPPER"`` (average pools not counting the padding, as TF), and a ``Transpose`` back (the
channels-last ops export as that anyway); a convolution's filter is transposed to ONNX's layout by a
``Transpose`` that constant folding bakes.
"""

from vfw.core.ir import make_opdef, opdef_attrs
from vfw.core.proto import GraphDef, ValueInfo

_ONNX_FORMS = {"ChannelsLastConv": "Conv", "ChannelsLastMaxPool": "MaxPool",
               "ChannelsLastAveragePool": "AveragePool"}


def same_pads(spatial, kernel, strides, dilations):
    """ONNX ``pads`` (all begins, then all ends) of TF's ``"same"`` padding of an input of ``spatial`` sizes."""
    begins, ends = [], []
    for n, k, s, d in zip(spatial, kernel, strides, dilations):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return begins + ends


def _dims(graph):
    table = {vi.name: list(vi.dims) for vi in graph.value_info}
    for proto in graph.initializer:
        table.setdefault(proto.name, list(proto.dims))
    return table


def _geometry(op, dims):
    """``(x dims, kernel, strides, dilations, pads)`` of a channels-last window op, or None where not known."""
    x = dims.get(op.input[0])
    if not x or len(x) < 3 or any(d < 0 for d in x):
        return None
    nd = len(x) - 2
    attrs = opdef_attrs(op)
    if op.type == "ChannelsLastConv":
        w = dims.get(op.input[1])
        if not w or len(w) != nd + 2:
            return None
        kernel = w[:nd]
    else:
        kernel = list(attrs["kernel_shape"])
    strides = list(attrs.get("strides") or [1] * nd)
    dilations = list(attrs.get("dilations") or [1] * nd)
    return x, kernel, strides, dilations, list(attrs.get("pads") or [0] * (2 * nd))


def _varying_same(graphs, k):
    """Whether op ``k`` is a channels-last window whose pads differ between ``graphs`` and are TF's ``"same"`` pads
    in each of them."""
    ops = [g.op[k] if k < len(g.op) else None for g in graphs]
    first = ops[0]
    if first.type not in _ONNX_FORMS or any(o is None or (o.type, list(o.input), list(o.output)) !=
                                            (first.type, list(first.input), list(first.output)) for o in ops):
        return False
    geometries = [_geometry(o, _dims(g)) for o, g in zip(ops, graphs)]
    if any(g is None for g in geometries) or len({tuple(g[4]) for g in geometries}) < 2:
        return False
    return all(pads == same_pads(x[1:-1], kernel, strides, dilations)
               for x, kernel, strides, dilations, pads in geometries)


def _rewritten(graph, k):
    """``graph`` (a copy) with its op ``k`` as Transpose, the ONNX op with ``auto_pad="SAME_UPPER"``, Transpose."""
    op = graph.op[k]
    dims = _dims(graph)
    dtypes = {vi.name: vi.data_type for vi in graph.value_info}
    x, kernel, strides, dilations, _ = _geometry(op, dims)
    nd = len(x) - 2
    out = op.output[0]
    attrs = dict(strides=strides, dilations=dilations, auto_pad="SAME_UPPER")
    dtype = dtypes.get(op.input[0], dtypes.get(out))
    first = f"{out}/channels_first"
    inputs = [first]
    ops = [make_opdef("Transpose", [op.input[0]], [first], perm=[0, nd + 1] + list(range(1, nd + 1)))]
    infos = [ValueInfo(name=first, data_type=dtype, dims=[x[0], x[-1]] + x[1:-1])]
    if op.type == "ChannelsLastConv":
        w = dims[op.input[1]]
        filters = f"{out}/filters"
        ops.append(make_opdef("Transpose", [op.input[1]], [filters], perm=[nd + 1, nd] + list(range(nd))))
        infos.append(ValueInfo(name=filters, data_type=dtype, dims=[w[-1], w[-2]] + w[:nd]))
        inputs += [filters] + [n for n in op.input[2:3] if n]
        attrs["group"] = opdef_attrs(op).get("group", 1)
        channels = w[-1]
    else:
        attrs["kernel_shape"] = kernel
        if op.type == "ChannelsLastAveragePool":
            attrs["count_include_pad"] = 0  # TF's average counts only the taps reading the input
        channels = x[-1]
    windowed = f"{out}/channels_first_out"
    spatial = [-(-n // s) for n, s in zip(x[1:-1], strides)]
    ops.append(make_opdef(_ONNX_FORMS[op.type], inputs, [windowed], name=op.name, **attrs))
    infos.append(ValueInfo(name=windowed, data_type=dtype, dims=[x[0], channels] + spatial))
    ops.append(make_opdef("Transpose", [windowed], [out], perm=[0] + list(range(2, nd + 2)) + [1]))
    rewritten = GraphDef()
    rewritten.CopyFrom(graph)
    del rewritten.op[:]
    rewritten.op.extend(list(graph.op[:k]) + ops + list(graph.op[k + 1:]))
    rewritten.value_info.extend(infos)
    return rewritten


def same_padded(base, variants):
    """``(base, variants)`` with the channels-last windows of TF ``"same"`` padding whose pads vary between the
    traces rewritten in each (see the module docstring); the graphs themselves are left as they are.

    Parameters
    ----------
    base : GraphDef
        The trace at the example's sizes.
    variants : list[tuple[GraphDef, dict[str, int]]]
        Traces at other sizes, with the sizes.
    """
    graphs = [base] + [g for g, _ in variants]
    if len({len(g.op) for g in graphs}) != 1:
        return base, variants  # other ops: generalize refuses them, naming the first that differs
    k = 0
    while k < len(graphs[0].op):
        if _varying_same(graphs, k):
            graphs = [_rewritten(g, k) for g in graphs]
            k += 3  # the Transpose before, the window op (and a filter Transpose) and the Transpose after
        k += 1
    return graphs[0], [(g, sizes) for g, (_, sizes) in zip(graphs[1:], variants)]
