"""The official ONNX backend test cases, and the one commented list of what vfw leaves out.

Cases: every node case of the installed onnx (``collect_testcases``: the wheel ships no node data,
so the models and their inputs/outputs are generated in memory), and the model cases shipped in
``onnx/backend/test/data``: ``simple``, ``pytorch-converted``, ``pytorch-operator`` (model files with
test data sets) and ``light`` (models whose inputs are generated as ONNX's runner generates them and
compared with the shipped outputs).  ``real`` holds only download links: not run.

Outputs are compared as ONNX's runner compares them (``Runner.assert_similar_outputs``: same
count, shapes, dtypes, values within the case's rtol/atol, sequences element by element), except
that a sequence of 0-d tensors is compared element by element too (the runner's recursion calls
``len()`` on the 0-d elements, which fails for every backend: ``test_loop16_seq_none``).
"""

import functools
import glob
import os

import numpy as np
import onnx
from onnx import AttributeProto, numpy_helper

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
MODEL_KINDS = ("simple", "pytorch-converted", "pytorch-operator")

# -- exclusions: cases vfw does not run, each for a stated reason -----------------------------------------------
UNSUPPORTED_TYPES = {14: "complex64", 15: "complex128", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2",
                     20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2",
                     26: "int2", 27: "float6e2m3", 28: "float6e3m2"}
"""Element types that are not engine dtypes (numpy has no native float8/float4/float6/int4/int2/complex tensors
in the engine): a case whose model declares, stores or casts to one is excluded."""

EXCLUDED_OPS = {
    # Decoding JPEG/PNG/TIFF/WebP/... images needs an image codec library, outside a numpy engine.
    "ImageDecoder": "image decoding needs an image codec library",
}

RANDOM_CASES = {
    # Their expected outputs are draws of ONNX's reference generator (numpy's), which no other generator
    # reproduces, seeded or not: only the distribution could be checked, not the values.
    "test_bernoulli", "test_bernoulli_double", "test_bernoulli_double_expanded", "test_bernoulli_expanded",
    "test_bernoulli_seed", "test_bernoulli_seed_expanded", "test_training_dropout", "test_training_dropout_default",
    "test_training_dropout_default_mask", "test_training_dropout_mask",
}

LIGHT_EXCLUDED = {
    # Passing, but its fully connected layers' light weights (ConstantOfShape, 0.5 GB) are materialized on
    # every run: seconds and half a gigabyte, too heavy for the CI run.
    "light_vgg19",
}

EXPECTED_FAILURES = {
    # Resize with align_corners and downscaling scales: ONNX's reference maps coordinates with the unrounded
    # output length (scale * length, 2.4 here) where vfw's Resize uses the output size (2), as onnxruntime.
    "test_resize_downsample_scales_cubic_align_corners": "Resize align_corners uses the integer output size",
    "test_resize_downsample_scales_linear_align_corners": "Resize align_corners uses the integer output size",
    # MaxUnpool with output_shape: the expected output places the values at their indices in the default
    # (4x4) output and pads it to 5x5; vfw's MaxUnpool reads the indices as positions in the given 5x5 output,
    # as the spec states.
    "test_maxunpool_export_with_output_shape": "MaxUnpool indices index the given output_shape",
    # Attention's ONNX function body in float16: each of its ops rounds to float16 (as the body specifies), which
    # moves two values by 2 float16 ulps from the single-op result the case expects (rtol 1e-3); the Attention
    # op itself (test_attention_4d_causal_fp16) passes.
    "test_attention_4d_causal_fp16_expanded": "float16 rounding after each op of the expanded body",
    # Gradient (ai.onnx.preview.training) differentiates part of the graph by name; vfw's importer does not
    # build gradient graphs.
    "simple/test_gradient_of_add": "Gradient (ai.onnx.preview.training) is not imported",
    "simple/test_gradient_of_add_and_mul": "Gradient (ai.onnx.preview.training) is not imported",
}


def _types_in_graph(graph):
    """Element type codes a graph declares or stores (its subgraphs included)."""
    codes = set()
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        codes |= _types_in_type(vi.type)
    codes |= {t.data_type for t in graph.initializer}
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == AttributeProto.TENSOR:
                codes.add(attr.t.data_type)
            elif attr.type == AttributeProto.GRAPH:
                codes |= _types_in_graph(attr.g)
            elif attr.type == AttributeProto.GRAPHS:
                for g in attr.graphs:
                    codes |= _types_in_graph(g)
            elif attr.type == AttributeProto.INT and attr.name in ("to", "output_dtype", "dtype", "stash_type"):
                codes.add(attr.i)
    return codes


def _types_in_type(type_proto):
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        return {type_proto.tensor_type.elem_type}
    if which == "sequence_type":
        return _types_in_type(type_proto.sequence_type.elem_type)
    if which == "optional_type":
        return _types_in_type(type_proto.optional_type.elem_type)
    return set()


def _ops_in_graph(graph):
    ops = set()
    for node in graph.node:
        ops.add(node.op_type)
        for attr in node.attribute:
            for g in ([attr.g] if attr.type == AttributeProto.GRAPH else list(attr.graphs)):
                ops |= _ops_in_graph(g)
    return ops


def exclusion(name, model):
    """Why case ``name`` is left out of the run, or None."""
    if name in RANDOM_CASES:
        return "random outputs: draws of ONNX's reference generator"
    if name in LIGHT_EXCLUDED:
        return "light model with 0.5 GB of weights materialized per run (passes; too heavy for CI)"
    graphs = [model.graph] + [onnx.GraphProto(node=f.node) for f in model.functions]
    for graph in graphs:
        unsupported = sorted(UNSUPPORTED_TYPES[c] for c in _types_in_graph(graph) if c in UNSUPPORTED_TYPES)
        if unsupported:
            return f"element type {unsupported[0]} is not an engine dtype"
        for op in _ops_in_graph(graph):
            if op in EXCLUDED_OPS:
                return EXCLUDED_OPS[op]
    return None


# -- the cases --------------------------------------------------------------------------------------------------
class Case:
    """One backend test: a model, its data sets ``[(inputs, expected outputs)]`` and tolerances."""

    def __init__(self, name, kind, model, data_sets, rtol=1e-3, atol=1e-7):
        self.name = name
        self.kind = kind
        self.model = model
        self._data_sets = data_sets
        self.rtol = rtol
        self.atol = atol

    @property
    def data_sets(self):
        """list of (inputs, expected outputs) pairs (loaded when first asked for)."""
        return self._data_sets() if callable(self._data_sets) else self._data_sets


def _to_array(value):
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else value


def _node_cases():
    from onnx.backend.test.case.node import collect_testcases

    with np.errstate(all="ignore"):
        found = collect_testcases(None)
    return [Case(t.name, "node", t.model,
                 [([_to_array(x) for x in inputs], [_to_array(y) for y in outputs]) for inputs, outputs in t.data_sets],
                 t.rtol, t.atol) for t in found]


def _load_value(path, type_proto):
    with open(path, "rb") as f:
        data = f.read()
    which = type_proto.WhichOneof("value")
    if which == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if which == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    return numpy_helper.to_array(onnx.load_tensor_from_string(data))


def _folder_data_sets(folder, model):
    sets = []
    for data_dir in sorted(glob.glob(os.path.join(folder, "test_data_set*"))):
        inputs = [_load_value(os.path.join(data_dir, f"input_{i}.pb"), model.graph.input[i].type)
                  for i in range(len(glob.glob(os.path.join(data_dir, "input_*.pb"))))]
        outputs = [_load_value(os.path.join(data_dir, f"output_{i}.pb"), model.graph.output[i].type)
                   for i in range(len(glob.glob(os.path.join(data_dir, "output_*.pb"))))]
        sets.append((inputs, outputs))
    return sets


def _model_cases():
    cases = []
    for kind in MODEL_KINDS:
        for folder in sorted(glob.glob(os.path.join(DATA, kind, "*"))):
            path = os.path.join(folder, "model.onnx")
            if os.path.exists(path):
                model = onnx.load(path)
                cases.append(Case(f"{kind}/{os.path.basename(folder)}", kind, model,
                                  functools.partial(_folder_data_sets, folder, model)))
    return cases


def _light_data_set(path, model, name):
    from onnx.backend.test.runner import Runner

    initializers = {t.name for t in model.graph.initializer}
    inputs = [Runner.generate_dummy_data(vi, seed=0, name=name, random=False) for vi in model.graph.input
              if vi.name not in initializers]
    outputs = [numpy_helper.to_array(onnx.load_tensor(f"{path[:-5]}_output_{i}.pb"))
               for i in range(len(model.graph.output))]
    return [(inputs, outputs)]


def _light_cases():
    cases = []
    for path in sorted(glob.glob(os.path.join(DATA, "light", "*.onnx"))):
        name = os.path.basename(path)[:-5]
        model = onnx.load(path)
        cases.append(Case(name, "light", model, functools.partial(_light_data_set, path, model, name)))
    return cases


@functools.cache
def all_cases():
    """Every case: node cases, then model cases, then light models."""
    return _node_cases() + _model_cases() + _light_cases()


# -- comparison -------------------------------------------------------------------------------------------------
def assert_similar(expected, actual, rtol, atol, where="output"):
    """Assert that ``actual`` matches ``expected`` as ONNX's backend runner checks it (see the module docstring)."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)), f"{where}: expected a sequence, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"{where}: {len(actual)} values, expected {len(expected)}"
        for k, (e, a) in enumerate(zip(expected, actual)):
            assert_similar(e, a, rtol, atol, f"{where}[{k}]")
        return
    if expected is None:
        assert actual is None, f"{where}: expected an empty optional, got {type(actual).__name__}"
        return
    expected = np.asarray(expected)
    assert isinstance(actual, np.ndarray), f"{where}: expected an array, got {type(actual).__name__}"
    np.testing.assert_array_equal(actual.shape, expected.shape, err_msg=f"{where} has incorrect shape")
    if expected.dtype == object:
        np.testing.assert_array_equal(actual, expected, err_msg=where)
        return
    assert actual.dtype == expected.dtype, f"{where}: dtype {actual.dtype}, expected {expected.dtype}"
    if actual.dtype.name == "bfloat16":  # as the runner: compare in float32 within two bfloat16 ULPs
        rtol = max(rtol, 2 ** -6)
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=where)
