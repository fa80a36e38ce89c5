"""ONNX model inference: vfw.onnx_io (imported graph, graph executor) against onnxruntime, in one run.

Issue 9's target: at most 2x onnxruntime's latency on the CNNs and 1.5x on the MLP.  The models are the
light CNNs shipped with onnx (``onnx/backend/test/data/light``, batch 1 at 224x224) and models exported by
``vfw.torch.onnx.export`` (an MLP 784-512-512-10, the small CNN on 1x28x28, a 2-layer Transformer encoder).
``python -m benchmarks onnx_runtime`` runs the library defaults; ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``
gives onnxruntime one intra-op thread too (one thread each).  ``ONNX_BENCH_LARGE=1`` adds vgg19, AlexNet and
ZFNet-512 (seconds per call on one thread).
"""

import io
import os

import numpy as np

from benchmarks.timing import interleaved_medians, print_table

try:
    import onnxruntime
except ImportError:
    onnxruntime = None

LIGHT_MODELS = ("resnet50", "densenet121", "inception_v1", "inception_v2", "squeezenet", "shufflenet")
LARGE_MODELS = ("vgg19", "bvlc_alexnet", "zfnet512")


_SETTLE = 0.2
"""Seconds between vfw's and onnxruntime's rounds: with several threads vfw's OpenBLAS workers spin after each call
and slowed onnxruntime's next round (the exported CNN at default threads: 3.9 ms right after vfw, 2.6-2.8 ms
after a pause; see ``interleaved_medians``)."""


def _one_thread():
    return os.environ.get("OMP_NUM_THREADS") == "1" or os.environ.get("OPENBLAS_NUM_THREADS") == "1"


def _light_model(name):
    """``(model bytes, input array)`` of an onnx light model."""
    import onnx

    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", f"light_{name}.onnx")
    with open(path, "rb") as f:
        data = f.read()
    graph = onnx.load_from_string(data).graph
    weights = {t.name for t in graph.initializer}
    data_input = next(i for i in graph.input if i.name not in weights)  # older models list weights as inputs
    shape = [d.dim_value for d in data_input.type.tensor_type.shape.dim]
    return data, np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def _exported(build, example):
    """``(model bytes, input array)``: the module ``build(vfw.torch)`` makes, exported by vfw (eval mode)."""
    import vfw.torch as torch

    torch.manual_seed(0)
    module = build(torch).eval()
    buffer = io.BytesIO()
    torch.onnx.export(module, (torch.from_numpy(example),), buffer, input_names=["x"], output_names=["y"])
    return buffer.getvalue(), example


def _mlp(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def _cnn(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 5 * 5, 10))


def _transformer(torch):
    nn = torch.nn
    layer = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def _cases(quick=False):
    """name -> thunk giving ``(model bytes, input array)`` (``quick``: squeezenet is the only light model)."""
    rng = np.random.default_rng(0)
    light = ("squeezenet",) if quick else LIGHT_MODELS + (LARGE_MODELS if os.environ.get("ONNX_BENCH_LARGE") == "1"
                                                          else ())
    cases = {f"{name} (light, 1x3x224x224)": (lambda n=name: _light_model(n)) for name in light}
    cases["MLP 784-512-512-10, batch 128 (vfw export)"] = lambda: _exported(
        _mlp, rng.random((128, 784), dtype=np.float32))
    cases["CNN Conv-Pool x2 + Linear, 64x1x28x28 (vfw export)"] = lambda: _exported(
        _cnn, rng.random((64, 1, 28, 28), dtype=np.float32))
    cases["Transformer encoder 2 layers d128, 8x32 tokens (vfw export)"] = lambda: _exported(
        _transformer, rng.standard_normal((8, 32, 128)).astype(np.float32))
    return cases


def _session(data):
    options = onnxruntime.SessionOptions()
    # onnxruntime's pool threads spin after each run and take the second core from the next candidate's BLAS
    # thread (the exported CNN at default threads: vfw 4.1 ms alone, 6-8.5 ms right after a spinning session, 4.3
    # ms after a passive one, whose own time stays 1.4 ms); passive waiting, as OMP_WAIT_POLICY does for torch
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if _one_thread():
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def run_benchmark(rounds=15, quick=False):
    """Rows ``[model, vfw ms, onnxruntime ms, vfw/ort, max |vfw - ort|]`` (``quick``: fewer models, shorter rounds)."""
    import vfw.onnx_io

    rows = []
    for name, make in _cases(quick).items():
        data, x = make()
        model = vfw.onnx_io.load(data)
        candidates = {"vfw": lambda m=model, a=x: m(a)}
        diff = float("nan")
        if onnxruntime is not None:
            session = _session(data)
            feeds = {model.input_names[0]: x}
            candidates["ort"] = lambda s=session, f=feeds: s.run(None, f)
            diff = float(np.max(np.abs(model(x) - candidates["ort"]()[0])))
        times = interleaved_medians(candidates, rounds=rounds, target=0.01 if quick else 0.05,
                                    settle=0.0 if quick else _SETTLE)
        vfw_ms, ort_ms = times["vfw"] * 1e3, times.get("ort", float("nan")) * 1e3
        rows.append([name, round(vfw_ms, 2), round(ort_ms, 2), round(vfw_ms / ort_ms, 2), f"{diff:.1e}"])
    return ["model", "vfw ms", "ort ms", "vfw/ort", "max abs diff"], rows


if __name__ == "__main__":
    print_table("ONNX inference: vfw.onnx_io vs onnxruntime", *run_benchmark(rounds=5))
