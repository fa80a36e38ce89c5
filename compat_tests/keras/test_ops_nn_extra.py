"""keras.ops.nn adaptive pooling, unfold/fold and CTC against real Keras 3.15.1 (values, gradients).

(Real Keras' adaptive pooling needs tensor inputs: it fails on numpy arrays.)"""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same
from compat_tests.keras.test_ops import check, sample

X1 = sample("float32", (2, 7, 3), seed=1)
X2 = sample("float32", (2, 9, 6, 3), seed=2)
X3 = sample("float32", (1, 5, 6, 4, 2), seed=3)
IMG = sample("float32", (2, 3, 6, 5), seed=4)
RNG = np.random.default_rng(0)
LOGITS = RNG.normal(size=(3, 7, 5)).astype("float32")
LABELS = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 3, 4, 4]], "int32")

POOLS = ("adaptive_average_pool", "adaptive_max_pool")
CASES = [
    *(lambda ops, f=f, x=x, size=size, fmt=fmt: getattr(ops, f)(ops.convert_to_tensor(x), size, data_format=fmt)
      for f in POOLS for x, size, fmt in ((X1, 3, None), (X1, 10, None), (X2, (4, 5), None),
                                          (X2, 2, "channels_first"), (X3, (2, 4, 3), None))),
    lambda ops: ops.adaptive_average_pool(X1[0], 2),
    lambda ops: ops.unfold(IMG, 2), lambda ops: ops.unfold(IMG, (3, 2), dilation=(1, 2), padding=1, stride=(2, 1)),
    lambda ops: ops.unfold(IMG, 3, stride=2),
    lambda ops: ops.fold(np.asarray(sample("float32", (2, 12, 20), seed=6)), (6, 5), 2),
    lambda ops: ops.fold(np.asarray(sample("float32", (2, 18, 4), seed=7)), (6, 5), 3, stride=2),
    lambda ops: ops.fold(np.asarray(sample("float32", (1, 12, 15), seed=8)), (6, 5), (3, 2), dilation=(1, 2),
                         padding=1, stride=(2, 1)),
    lambda ops: ops.fold(np.asarray(sample("float32", (1, 12, 20), seed=8)), (6, 5), (3, 2), stride=(2, 1)),
    lambda ops: ops.ctc_loss(LABELS, LOGITS, np.array([3, 2, 4]), np.array([7, 4, 7])),
    lambda ops: ops.ctc_loss(LABELS, LOGITS, np.array([3, 2, 4]), np.array([7, 4, 7]), mask_index=4),
    lambda ops: ops.ctc_loss(LABELS, LOGITS.astype("float64"), np.array([3, 2, 4]), np.array([7, 7, 7])),
    lambda ops: ops.ctc_decode(LOGITS, np.array([7, 4, 6])),
    lambda ops: ops.ctc_decode(LOGITS, np.array([7, 4, 6]), merge_repeated=False),
    lambda ops: ops.ctc_decode(LOGITS, np.array([7, 7, 7]), mask_index=2),
    lambda ops: ops.ctc_decode(np.repeat(LOGITS, 2, axis=1), np.array([14, 3, 9])),
    lambda ops: ops.ctc_decode(LOGITS, np.array([7, 4, 6]), strategy="bad"),
]


@pytest.mark.parametrize("make", CASES)
def test_nn_extra(make):
    check(make, rtol=1e-5, atol=1e-5)


def test_gradients():
    def fn(lib):
        ops = lib.keras.ops
        x1, x2, img, logits = (lib.tf.constant(v) for v in (X1, X2, IMG, LOGITS))
        weights = lib.tf.constant(sample("float32", (2, 3, 6, 5), seed=9))
        with lib.tf.GradientTape() as tape:
            tape.watch([x1, x2, img, logits])
            out = (ops.sum(ops.adaptive_average_pool(x1, 3) ** 2) + ops.sum(ops.adaptive_max_pool(x2, (4, 5)) ** 2)
                   + ops.sum(ops.adaptive_average_pool(x2, (4, 5)) * 3.0)
                   + ops.sum(ops.fold(ops.unfold(img, 2, padding=1) ** 2, (6, 5), 2, padding=1) * weights)
                   + ops.sum(ops.ctc_loss(LABELS, logits, np.array([3, 2, 4]), np.array([7, 4, 7]))))
        return tape.gradient(out, [x1, x2, img, logits])

    same(fn, rtol=1e-4, atol=1e-4)
