"""Losses in graph mode: traced on one batch, run on another with different targets, masks and lengths, the
results (``torch.jit.trace`` in both libraries) and the gradients (vfw's traced training step) are torch's.

Anything a loss derives from target values must be an engine op, not a numpy constant frozen at trace time.
"""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import assert_same, real, to_numpy, vt
from vfw.core import autograd
from vfw.core.graph import function


def rng(seed):
    return np.random.default_rng(seed)


def floats(shape, seed, low=-2.0, high=2.0):
    return rng(seed).uniform(low, high, shape).astype("float32")


def signs(shape, seed):
    return np.where(rng(seed).random(shape) > 0.5, 1.0, -1.0).astype("float32")


def labels(shape, classes, seed, ignore=None):
    t = rng(seed).integers(0, classes, shape)
    if ignore is not None:
        t[rng(seed + 1).random(shape) < 0.3] = ignore
    return t.astype("int64")


def listed(seed):
    """multilabel_margin targets: class lists ended by -1 at varying places."""
    t = np.stack([rng(seed + i).permutation(5) for i in range(4)])
    for i, end in enumerate(rng(seed).integers(0, 5, 4)):
        t[i, end] = -1
    return t.astype("int64")


def ctc_batch(seed):
    x = rng(seed).standard_normal((10, 3, 5))
    lp = (x - np.log(np.exp(x).sum(axis=2, keepdims=True))).astype("float32")
    return [lp, rng(seed).integers(1, 5, (3, 4)), rng(seed).integers(5, 11, 3), rng(seed + 1).integers(0, 5, 3)]


def F(lib):
    return lib.nn.functional


# name -> (loss(lib, x, *rest), batch(seed) -> [x, *rest]); x is the differentiated input
CASES = {
    "cross_entropy": (lambda lib, x, t: F(lib).cross_entropy(x, t), lambda s: [floats((6, 4), s), labels(6, 4, s)]),
    "cross_entropy_ignore_smoothing": (
        lambda lib, x, t, w: F(lib).cross_entropy(x, t, w, ignore_index=1, label_smoothing=0.2),
        lambda s: [floats((6, 4, 2), s), labels((6, 2), 4, s, ignore=1), floats(4, s, 0.5, 2.0)]),
    "cross_entropy_uint8": (lambda lib, x, t: F(lib).cross_entropy(x, t),
                            lambda s: [floats((6, 4), s), labels(6, 4, s).astype("uint8")]),
    "nll_loss": (lambda lib, x, t, w: F(lib).nll_loss(x, t, w, ignore_index=0),
                 lambda s: [floats((6, 4), s), labels(6, 4, s), floats(4, s, 0.5, 2.0)]),
    "multi_margin": (lambda lib, x, t, w: F(lib).multi_margin_loss(x, t, p=2, weight=w),
                     lambda s: [floats((6, 4), s), labels(6, 4, s), floats(4, s, 0.5, 2.0)]),
    "multilabel_margin": (lambda lib, x, t: F(lib).multilabel_margin_loss(x, t),
                          lambda s: [floats((4, 5), s), listed(s)]),
    "hinge_embedding": (lambda lib, x, t: F(lib).hinge_embedding_loss(x, t),
                        lambda s: [floats((4, 5), s), signs((4, 5), s)]),
    "cosine_embedding": (lambda lib, x, y, t: F(lib).cosine_embedding_loss(x, y, t, margin=0.1),
                         lambda s: [floats((5, 3), s), floats((5, 3), s + 1), signs(5, s)]),
    "gaussian_nll": (lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v, eps=0.5),
                     lambda s: [floats((4, 3), s), floats((4, 3), s + 1), floats((4, 3), s + 2, 0.0, 1.0)]),
    "ctc": (lambda lib, x, t, il, tl: F(lib).ctc_loss(x, t, il, tl), ctc_batch),
    "ctc_int32_lengths": (lambda lib, x, t, il, tl: F(lib).ctc_loss(x, t, il.int(), tl.int(), reduction="sum"),
                          ctc_batch),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_forward_follows_new_targets(name):
    loss, batch = CASES[name]
    results = []
    for lib in (real, vt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if lib is vt:  # vfw must replay the graph, not fall back to eager code
                warnings.simplefilter("error", vt.jit.TracerWarning)
            traced = lib.jit.trace(lambda *ts, lib=lib: loss(lib, *ts), tuple(lib.from_numpy(a) for a in batch(0)),
                                   check_trace=False)
            results.append(traced(*[lib.from_numpy(a) for a in batch(10)]))
    assert_same(to_numpy(results[0]), to_numpy(results[1]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_training_step_gradients(name):
    loss, batch = CASES[name]

    def step(x, *rest):
        value = loss(vt, x, *rest)
        return value, autograd.gradient([value], [x])[0]

    traced = function(step)
    first = batch(0)
    traced(vt.from_numpy(first[0]).requires_grad_(), *[vt.from_numpy(a) for a in first[1:]])
    second = batch(10)
    value, grad = traced(vt.from_numpy(second[0]).requires_grad_(), *[vt.from_numpy(a) for a in second[1:]])
    x = real.from_numpy(second[0]).requires_grad_()
    want = loss(real, x, *[real.from_numpy(a) for a in second[1:]])
    want.backward()
    assert isinstance(value, vt.Tensor)
    assert_same(to_numpy(want.detach()), to_numpy(value))
    np.testing.assert_allclose(grad.array, x.grad.numpy(), rtol=1e-4, atol=1e-6)
