"""Helpers shared by the graph-pass tests: build small GraphDefs, run them, compare."""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.graph import CompiledGraph
from vfw.core.ir import tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo


def graph_of(ops, inputs, outputs, consts=(), infos=()):
    """A GraphDef from OpDefs, input/output names, (name, array) initializers and (name, array) infos."""
    g = GraphDef(name="g", input=list(inputs), output=list(outputs))
    g.op.extend(ops)
    for name, value in consts:
        g.initializer.append(tensor_to_proto(value, name))
    for name, value in list(consts) + list(infos):
        g.value_info.append(ValueInfo(name=name, data_type=dt.onnx_code(np.asarray(value).dtype),
                                      dims=np.shape(value)))
    return g


def types(g):
    """Op types of ``g`` in order."""
    return [op.type for op in g.op]


def run(g, *feeds, extra=()):
    """Outputs (and ``extra`` values) of ``g`` on ``feeds``."""
    return CompiledGraph(g, extra_outputs=list(extra))(*feeds)


def applied(graph_pass, g, keep=None):
    """``graph_pass(g, keep)``, asserting that the pass leaves its input untouched."""
    before = g.SerializeToString(deterministic=True)
    out = graph_pass(g, list(g.output) if keep is None else keep)
    assert g.SerializeToString(deterministic=True) == before, "the pass mutated its input"
    return out


def assert_same_results(g, out, *feeds, extra=()):
    """``g`` and ``out`` give bit-identical results on ``feeds``."""
    for a, b in zip(run(g, *feeds, extra=extra), run(out, *feeds, extra=extra), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
