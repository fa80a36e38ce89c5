"""A first look at the vfw engine: run ops eagerly, inspect schemas, see an error.

A two-layer MLP and a small convolution run on numpy through the op registry;
results are checked against plain numpy.  The PyTorch- and TensorFlow-style
frontends (``vfw.torch``, ``vfw.tensorflow``) are built on exactly these ops.
"""

import numpy as np

import vfw
from vfw.core import TensorInfo, Workspace


def mlp(x, w1, b1, w2, b2):
    """Gemm -> Relu -> Gemm -> Softmax, all engine ops."""
    h = vfw.run("Relu", vfw.run("Gemm", x, w1, b1, transB=1))
    return vfw.run("Softmax", vfw.run("Gemm", h, w2, b2, transB=1), axis=-1)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w1, b1 = rng.standard_normal((16, 8)).astype(np.float32), np.zeros(16, np.float32)
    w2, b2 = rng.standard_normal((3, 16)).astype(np.float32), np.zeros(3, np.float32)
    probs = mlp(x, w1, b1, w2, b2)
    logits = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    reference = np.exp(logits - logits.max(-1, keepdims=True))
    reference /= reference.sum(-1, keepdims=True)
    print(f"registered ops: {len(vfw.op_types())}")
    print("MLP class probabilities:\n", np.round(probs, 4))
    print("max |engine - numpy|:", float(np.abs(probs - reference).max()))

    image = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    kernel = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    feature = vfw.run("Conv", image, kernel, pads=[1, 1, 1, 1], strides=[2, 2])
    print("Conv 1x3x8x8 (4 filters, stride 2, pad 1) ->", feature.shape)

    schema = vfw.get_schema("Conv")
    inferred = schema.infer(schema.bind_attrs({"pads": [1, 1, 1, 1], "strides": [2, 2]}),
                            [TensorInfo((None, 3, 8, 8), np.float32), TensorInfo((4, 3, 3, 3), np.float32), None])
    print("shape inference for a batch of unknown size:", inferred[0])

    with Workspace("demo").as_default() as ws:
        ws.feed("weights", w1)
        print("workspace memory report:", ws.memory_report()["by_name"])
    try:
        vfw.run("MatMul", x, w2)
    except vfw.VfwError as err:
        print(f"a bad call raises {type(err).__name__}: {err}")


if __name__ == "__main__":
    main()
