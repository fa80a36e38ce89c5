"""Register your own engine op from user code, without touching vfw.

The op below, ``Swish`` (x * sigmoid(beta * x)), gets a schema (inputs,
outputs, dtype constraint, a validated attribute), a numpy kernel and shape
inference, and is then run through the same executor as the built-in ops.
Frontends reach registered ops by name, so both can call it once they exist.
"""

import numpy as np

import vfw
from vfw.core import dtypes
from vfw.core.ops._common import same_as_first


@vfw.defop("Swish", inputs="X:T", outputs="Y:T", types={"T": dtypes.FLOATS},
           attrs={"beta": vfw.Attr("float", 1.0, check=lambda b: None if b > 0 else "must be positive")},
           infer=same_as_first)
def swish(beta):
    """Y = X * sigmoid(beta * X)."""

    def kernel(x, out=None):
        # 0.5 * (1 + tanh(z / 2)) is sigmoid(z) without overflow for large |z|.
        gate = np.tanh(x * (0.5 * beta))
        gate += 1
        gate *= 0.5
        return np.multiply(x, gate, out=out)

    return kernel


def main():
    x = np.linspace(-4, 4, 9, dtype=np.float32)
    y = vfw.run("Swish", x, beta=1.5)
    expected = x / (1 + np.exp(-1.5 * x))
    print("x          ", np.round(x, 3))
    print("Swish(x)   ", np.round(y, 3))
    print("max |error|", float(np.abs(y - expected).max()))
    try:
        vfw.run("Swish", x, beta=-1.0)
    except vfw.VfwError as err:
        print("bad beta ->", type(err).__name__ + ":", err)
    return y, expected


if __name__ == "__main__":
    main()
