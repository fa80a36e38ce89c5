"""TF's names of the symbolic tensors of a tf.function trace (``Tensor("add:0", ...)``, ``x.name``).

TF names each graph node after its op (the raw op type, or the Python function's scope name for
the operators and a few functions: ``add``, ``mul``, ``concat``, ``stack``, ``strided_slice``...),
made unique within the graph by ``_1``, ``_2``... suffixes (case-insensitively: ``Add`` after
``add`` is ``Add_1``); a tensor is ``<node>:<output index>``; arguments are named after their
parameters (``xs``, ``xs_1`` for the tensors of a nested argument, ``rest_0`` for ``*rest``).
vfw names an op's results when ``_dispatch.call`` runs it under a trace, one node per engine op: a TF
function that vfw composes from several engine ops takes several names (see docs/TENSORFLOW.md).
Constants are named ``Const`` when first shown (TF names the constants it converts inside an op after
that op, so they do not take ``Const`` names).
"""

from vfw.core.graph.trace import current_trace

_SCOPE_NAMES = {
    "AddV2": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "truediv", "FloorDiv": "floordiv", "FloorMod": "mod",
    "ConcatV2": "concat", "Pack": "stack", "Unpack": "unstack", "StridedSlice": "strided_slice",
    "Transpose": "transpose", "Range": "range", "ZerosLike": "zeros_like", "OnesLike": "ones_like",
}
"""Raw op type -> the node name TF's Python API gives it (where it is not the op type)."""


def unique_name(trace, base):
    """``base`` made unique among the node names of ``trace``'s graph, as TF's ``Graph.unique_name``."""
    used = trace.__dict__.setdefault("_tf_node_names", {})
    key = base.lower()
    count = used.get(key, 0)
    if not count:
        used[key] = 1
        return base
    candidate = f"{key}_{count}"
    while candidate in used:
        count += 1
        candidate = f"{key}_{count}"
    used[key] = count + 1
    used[candidate] = 1
    return f"{base}_{count}"


def name_results(results, tf_op):
    """Name the symbolic tensors ``results`` (a tensor or a tuple) of one op of TF type ``tf_op``."""
    trace = current_trace()
    if trace is None:
        return
    outputs = results if results.__class__ is tuple else (results,)
    node = None
    for k, t in enumerate(outputs):
        if t is not None and "_tf_name" not in t.__dict__:
            if node is None:
                node = unique_name(trace, _SCOPE_NAMES.get(tf_op, tf_op))
            t.__dict__["_tf_name"] = f"{node}:{k}"


def name_argument(t, parameter):
    """Name ``t``, a tensor argument of the function being traced, after its ``parameter``."""
    trace = current_trace()
    if trace is not None:
        t.__dict__["_tf_name"] = f"{unique_name(trace, parameter)}:0"


def name_of(t):
    """TF's name of the symbolic tensor ``t`` (a tensor made without a named op: a ``Const``)."""
    name = t.__dict__.get("_tf_name")
    if name is None:
        trace = current_trace()
        name = t.__dict__["_tf_name"] = f"{'Const' if trace is None else unique_name(trace, 'Const')}:0"
    return name
