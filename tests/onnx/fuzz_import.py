"""Fuzzing of the ONNX importer with mutated models (run by ``test_fuzz_import.py`` in a child process).

Valid seed models are mutated at the byte level (flips, truncation, insertions into the protobuf)
and structurally (op types, attribute values and types, initializer dims and element types, names
that create cycles or dangling reads, opset versions and domains).  Each mutant is loaded and, when
that succeeds, run on small random inputs of its declared types.  Loading and running may only
succeed or raise a vfw error (``VfwError``: OnnxModelError, UnknownOpError, DTypeError, ShapeError,
OutOfMemoryError...); anything else is a bug.

The child process runs with a capped address space (a mutant that asks for terabytes must fail
cleanly with a MemoryError-derived vfw error, not take the machine down) and every load and run
has a deadline: loading never may exceed it; a run may only when the graph has a Loop (a loop whose
condition never turns false runs forever, as ONNX defines it).
"""

import argparse
import resource
import signal
import sys

import numpy as np
import onnx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from vfw.core import VfwError
from vfw.core.proto import GraphDef
from vfw.onnx_io import load

F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
DEADLINE_S = 20
OP_TYPES = ["Relu", "Add", "MatMul", "Reshape", "Concat", "Loop", "If", "Scan", "Conv", "Gather", "NoSuchOp",
            "SequenceAt", "Constant", "Split", "Softmax", "", "Resize", "Pad", "Cast", "Attention"]


class _Timeout(BaseException):
    """Raised by the alarm: a BaseException, so that no kernel or error wrapper swallows it."""


def _alarm(signum, frame):
    raise _Timeout()


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _seed_models():
    rng = np.random.default_rng(0)
    models = []
    affine = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"]),
         helper.make_node("Relu", ["y"], ["z"]), helper.make_node("Reshape", ["z", "shape"], ["flat"]),
         helper.make_node("Softmax", ["flat"], ["p"], axis=-1)],
        "affine", [_vi("x", F, [2, 3])], [_vi("p", F, None)],
        [numpy_helper.from_array(rng.standard_normal((3, 4)).astype(np.float32), "w"),
         numpy_helper.from_array(np.ones(4, np.float32), "b"), numpy_helper.from_array(np.array([-1], np.int64),
                                                                                       "shape")])
    models.append(helper.make_model(affine))
    then = helper.make_graph([helper.make_node("Mul", ["acc", "x"], ["t"])], "then", [], [_vi("t", F, None)])
    other = helper.make_graph([helper.make_node("Sub", ["acc", "x"], ["e"])], "else", [], [_vi("e", F, None)])
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Less", ["fi", "one"], ["first"]),
         helper.make_node("If", ["first"], ["acc_out"], then_branch=then, else_branch=other)],
        "body", [_vi("i", I64, []), _vi("c", BOOL, []), _vi("acc", F, None)],
        [_vi("c_out", BOOL, []), _vi("acc_out", F, None)],
        [numpy_helper.from_array(np.float32(1.0), "one")])
    loop = helper.make_graph([helper.make_node("Loop", ["m", "", "x"], ["out"], body=body)], "loop",
                             [_vi("m", I64, []), _vi("x", F, [3])], [_vi("out", F, None)])
    models.append(helper.make_model(loop))
    seq = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x", "two"], ["s"]), helper.make_node("SequenceAt", ["s", "k"], ["a"]),
         helper.make_node("ConcatFromSequence", ["s"], ["c"], axis=0), helper.make_node("Add", ["a", "a"], ["y"])],
        "seq", [_vi("x", F, [4, 2]), _vi("k", I64, [])], [_vi("y", F, None), _vi("c", F, None)],
        [numpy_helper.from_array(np.array(2, np.int64), "two")])
    models.append(helper.make_model(seq))
    conv = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
         helper.make_node("MaxPool", ["y"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Resize", ["p", "", "scales"], ["r"], mode="linear")],
        "conv", [_vi("x", F, [1, 2, 4, 4])], [_vi("r", F, None)],
        [numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w"),
         numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")])
    models.append(helper.make_model(conv, opset_imports=[helper.make_opsetid("", 11)]))
    return [m.SerializeToString() for m in models]


SEEDS = _seed_models()


@st.composite
def byte_mutants(draw):
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif data:
            del data[pos:pos + draw(st.integers(1, 8))]
    return bytes(data)


def _nodes(graph):
    found = list(graph.node)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == AttributeProto.GRAPH:
                found.extend(_nodes(attr.g))
    return found


@st.composite
def structural_mutants(draw):
    m = onnx.ModelProto()
    m.ParseFromString(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        nodes = _nodes(m.graph)
        node = nodes[draw(st.integers(0, len(nodes) - 1))]
        names = [n for x in nodes for n in list(x.input) + list(x.output)] + ["", "nowhere"]
        kind = draw(st.sampled_from(["op", "input", "output", "attr", "attr_type", "init_dims", "init_type",
                                     "input_type", "opset", "domain", "drop_node"]))
        if kind == "op":
            node.op_type = draw(st.sampled_from(OP_TYPES))
        elif kind == "input" and node.input:
            node.input[draw(st.integers(0, len(node.input) - 1))] = draw(st.sampled_from(names))
        elif kind == "output" and node.output:
            node.output[0] = draw(st.sampled_from(names))
        elif kind == "attr" and node.attribute:
            attr = node.attribute[draw(st.integers(0, len(node.attribute) - 1))]
            if attr.type == AttributeProto.INT:
                attr.i = draw(st.integers(-5, 40))
            elif attr.type == AttributeProto.INTS:
                del attr.ints[:]
                attr.ints.extend(draw(st.lists(st.integers(-3, 5), max_size=6)))
            elif attr.type == AttributeProto.FLOAT:
                attr.f = draw(st.floats(allow_nan=True, width=32))
            elif attr.type == AttributeProto.STRING:
                attr.s = draw(st.sampled_from([b"", b"bogus", b"\xff\xfe", b"nearest"]))
        elif kind == "attr_type":
            node.attribute.append(helper.make_attribute(draw(st.sampled_from(["axis", "to", "mode", "perm", "body"])),
                                                        draw(st.sampled_from([3, 1.5, "x", [1, 2], [0.5]]))))
        elif kind == "init_dims" and m.graph.initializer:
            init = m.graph.initializer[draw(st.integers(0, len(m.graph.initializer) - 1))]
            del init.dims[:]
            init.dims.extend(draw(st.lists(st.integers(-2, 1 << 20), max_size=4)))
        elif kind == "init_type" and m.graph.initializer:
            m.graph.initializer[0].data_type = draw(st.integers(0, 30))
        elif kind == "input_type" and m.graph.input:
            tt = m.graph.input[0].type.tensor_type
            tt.elem_type = draw(st.integers(0, 30))
        elif kind == "opset":
            m.opset_import[0].version = draw(st.integers(0, 30))
        elif kind == "domain":
            node.domain = draw(st.sampled_from(["", "ai.onnx", "ai.onnx.ml", "com.unknown"]))
        elif kind == "drop_node" and len(m.graph.node) > 1:
            del m.graph.node[draw(st.integers(0, len(m.graph.node) - 1))]
    return m.SerializeToString()


def _feed(spec, rng):
    shape = tuple(2 if d is None else min(d, 4) for d in (spec.shape or (2,)))
    dtype = spec.dtype if spec.dtype is not None else np.dtype(np.float32)
    if spec.kind == "sequence":
        return [rng.standard_normal(shape).astype(dtype) if dtype.kind == "f" else np.ones(shape, dtype)]
    if dtype.kind == "O":
        return np.full(shape, "a", dtype=object)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 3, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _has_loop(graph):
    return any(op.type == "Loop" or any(arg.WhichOneof("value") == "g" and _has_loop(arg.g) for arg in op.arg)
               for op in graph.op) if isinstance(graph, GraphDef) else False


def check_mutant(data):
    """Load and run one mutant: only success or vfw errors are acceptable."""
    signal.alarm(DEADLINE_S)
    try:
        model = load(data)
    except VfwError:
        return
    except _Timeout:
        raise AssertionError("loading a mutated model did not finish within the deadline") from None
    finally:
        signal.alarm(0)
    feeds = [_feed(spec, np.random.default_rng(1)) for spec in model.inputs]
    signal.alarm(DEADLINE_S)
    try:
        model.run(feeds)
    except VfwError:
        pass
    except _Timeout:
        if not _has_loop(model.graph):
            raise AssertionError("running a mutated model without loops did not finish within the deadline") from None
    finally:
        signal.alarm(0)


def main(examples):
    signal.signal(signal.SIGALRM, _alarm)
    options = settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                       suppress_health_check=list(HealthCheck))

    @options
    @given(st.one_of(byte_mutants(), structural_mutants()))
    def fuzz(data):
        check_mutant(data)

    fuzz()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--address-space-gb", type=float, default=4.0)
    args = parser.parse_args()
    limit = int(args.address_space_gb * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    main(args.examples)
    sys.exit(0)
