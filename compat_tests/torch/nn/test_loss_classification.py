"""Classification losses (nll_loss, cross_entropy, multi_margin_loss, multilabel_margin_loss) and their modules,
against real torch 2.13: results, input gradients, errors and warnings."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt
from compat_tests.torch.nn.harness import check_module, check_repr

REDUCTIONS = ["none", "mean", "sum"]
DTYPES = ["float32", "float64"]
# (input shape, target shape): batched, K-dimensional, unbatched
SHAPES = [((6, 5), (6,)), ((3, 4, 2), (3, 2)), ((2, 3, 2, 3), (2, 2, 3)), ((5,), ())]


def labels(shape, classes, seed, ignore=None):
    """int64 class indices, with ``ignore`` planted at every third position."""
    t = np.random.default_rng(seed).integers(0, classes, shape).astype("int64")
    if ignore is not None and t.ndim:
        t.flat[::3] = ignore
    return t


def const(lib, a):
    return None if a is None else lib.from_numpy(a.copy())


def tensors(lib, kwargs):
    """Keyword arguments with numpy arrays made tensors of ``lib`` (``check`` converts positional ones only)."""
    return {k: const(lib, v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


def log_probs(shape, dtype, seed):
    x = arrays(shape, dtype=dtype, seed=seed)
    axis = 0 if len(shape) == 1 else 1
    return (x - np.log(np.exp(x).sum(axis=axis, keepdims=True))).astype(dtype)


def classes_of(shape):
    return shape[0] if len(shape) == 1 else shape[1]


# -- nll_loss ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_nll_loss(shapes, reduction, weighted, dtype):
    xs, ts = shapes
    c = classes_of(xs)
    x, t = log_probs(xs, dtype, 1), labels(ts, c, 2)
    w = arrays((c,), dtype=dtype, seed=3, low=0.2, high=2.0) if weighted else None
    check_grad(lambda lib, a: lib.nn.functional.nll_loss(a, const(lib, t), const(lib, w), reduction=reduction), x)
    check_module(lambda lib: lib.nn.NLLLoss(const(lib, w), reduction=reduction), x, t)


@pytest.mark.parametrize("ignore_index", [-100, 1, 7, -1])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_ignore_index(ignore_index, reduction, weighted):
    x = log_probs((7, 4, 2), "float64", 4)
    t = labels((7, 2), 4, 5, ignore=ignore_index)
    w = arrays((4,), dtype="float64", seed=6, low=0.2, high=2.0) if weighted else None

    def fn(lib, a):
        return lib.nn.functional.nll_loss(a, const(lib, t), const(lib, w), ignore_index=ignore_index,
                                          reduction=reduction)

    check_grad(fn, x)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_everything_ignored_and_empty(reduction):
    x = log_probs((3, 4), "float32", 7)
    t = np.full(3, -100, "int64")
    w = np.ones(4, "float32")
    check(lambda lib, a: lib.nn.functional.nll_loss(a, const(lib, t), reduction=reduction), x)
    check(lambda lib, a: lib.nn.functional.nll_loss(a, const(lib, t), const(lib, w), reduction=reduction), x)
    check(lambda lib, a: lib.nn.functional.nll_loss(a, const(lib, t[:0]), reduction=reduction), x[:0])


def test_nll_loss_errors():
    x = log_probs((3, 4), "float32", 8)
    f = "nll_loss"

    def nll(lib, a, b, **kw):
        return getattr(lib.nn.functional, f)(a, b, **tensors(lib, kw))

    check(nll, x, np.array([0, 1, 2, 3]))  # batch sizes differ
    check(nll, x, np.array([0, 1, 4]))  # class out of range
    check(nll, x, np.array([0, 1, -5]))
    check(nll, x, np.array([0.0, 1.0, 2.0]))  # float targets
    check(nll, x, np.array([0, 1, 2], "int32"))
    check(nll, x, np.array([0, 1, 2], "uint8"))  # Byte targets are accepted
    check(nll, x, np.zeros((3, 1), "int64"))
    check(nll, x, np.array(0))
    check(nll, np.array(1.0, "float32"), np.array(0))
    check(nll, x[0], np.array([1, 2, 3]))
    check(nll, x[0], np.array([1]))
    check(nll, x[0], np.array([1]), reduction="none")
    check(nll, log_probs((2, 3, 4), "float32", 9), np.zeros((2, 5), "int64"))
    check(nll, log_probs((2, 3, 4, 5), "float32", 9), np.zeros((2, 4), "int64"))
    check(nll, log_probs((2, 3, 4), "float32", 9), np.zeros((3, 4), "int64"))
    check(nll, arrays((3, 4), dtype="int64", seed=1), np.array([0, 1, 2]))
    check(nll, x, np.array([0, 1, 2]), weight=np.ones(3, "float32"))
    check(nll, x, np.array([0, 1, 2]), weight=np.ones(4, "float64"))
    check(nll, x, np.array([0, 1, 2]), reduction="bad")
    check(lambda lib, a, b, w: nll(lib, a, b, weight=w.requires_grad_()), x, np.array([0, 1, 2]),
          np.ones(4, "float32"))


def test_nll_loss_half_precision():
    x = log_probs((4, 5), "float32", 10).astype("float16")
    t = labels((4,), 5, 11)
    check(lambda lib, a, b: lib.nn.functional.nll_loss(a, b), x, t)
    check(lambda lib, a, b: lib.nn.functional.cross_entropy(a, b), x, t)


# -- cross_entropy -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy(shapes, reduction, weighted, dtype):
    xs, ts = shapes
    c = classes_of(xs)
    x, t = arrays(xs, dtype=dtype, seed=12, low=-4, high=4), labels(ts, c, 13)
    w = arrays((c,), dtype=dtype, seed=14, low=0.2, high=2.0) if weighted else None
    check_grad(lambda lib, a: lib.nn.functional.cross_entropy(a, const(lib, t), const(lib, w), reduction=reduction),
               x)
    check_module(lambda lib: lib.nn.CrossEntropyLoss(const(lib, w), reduction=reduction), x, t)


@pytest.mark.parametrize("ignore_index", [-100, 2, -1])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_ignore_index_and_smoothing(ignore_index, reduction, smoothing, weighted):
    x = arrays((7, 4, 2), dtype="float64", seed=15, low=-3, high=3)
    t = labels((7, 2), 4, 16, ignore=ignore_index)
    w = arrays((4,), dtype="float64", seed=17, low=0.2, high=2.0) if weighted else None

    def fn(lib, a):
        return lib.nn.functional.cross_entropy(a, const(lib, t), const(lib, w), ignore_index=ignore_index,
                                               reduction=reduction, label_smoothing=smoothing)

    check_grad(fn, x)


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("smoothing", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_label_smoothing(shapes, smoothing, reduction):
    xs, ts = shapes
    c = classes_of(xs)
    x, t = arrays(xs, dtype="float64", seed=18, low=-3, high=3), labels(ts, c, 19)
    w = arrays((c,), dtype="float64", seed=20, low=0.2, high=2.0)
    check_grad(lambda lib, a: lib.nn.functional.cross_entropy(a, const(lib, t), reduction=reduction,
                                                              label_smoothing=smoothing), x)
    check_module(lambda lib: lib.nn.CrossEntropyLoss(const(lib, w), reduction=reduction, label_smoothing=smoothing),
                 x, t)


@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 2), (4,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_probabilities(shape, reduction, smoothing, weighted):
    x = arrays(shape, dtype="float64", seed=21, low=-3, high=3)
    axis = 0 if len(shape) == 1 else 1
    p = arrays(shape, dtype="float64", seed=22, low=0.0, high=1.0)
    p /= p.sum(axis=axis, keepdims=True)
    w = arrays((shape[axis],), dtype="float64", seed=23, low=0.2, high=2.0)

    def fn(lib, a, b, c):
        return lib.nn.functional.cross_entropy(a, b, c if weighted else None, reduction=reduction,
                                               label_smoothing=smoothing)

    check_grad(fn, x, p, w)  # the target and the weights get gradients too
    check_module(lambda lib: lib.nn.CrossEntropyLoss(const(lib, w), reduction=reduction, label_smoothing=smoothing),
                 x, p)


def test_cross_entropy_probabilities_promotion_and_errors():
    x = arrays((3, 4), seed=24)
    p = arrays((3, 4), seed=25, low=0, high=1)

    def ce(lib, a, b, **kw):
        return lib.nn.functional.cross_entropy(a, b, **tensors(lib, kw))

    check(ce, x, p.astype("float64"))
    check(ce, x, p.astype("float16"))
    check(ce, x, p, weight=np.ones(4, "float64"))
    check(ce, x, np.zeros((3, 4), "int64"))
    check(ce, x, p, ignore_index=1)
    check(ce, x, p, weight=np.ones(3, "float32"))
    check(ce, np.array(1.0, "float32"), np.array(0))


def test_cross_entropy_errors_and_warnings():
    x = arrays((3, 4), seed=26)

    def ce(lib, a, b, **kw):
        return lib.nn.functional.cross_entropy(a, b, **tensors(lib, kw))

    check(ce, x, np.array([0, 1, 2, 3]))
    check(ce, x, np.array([0, 1, 5]))
    check(ce, x, np.array([0, 1, -3]), label_smoothing=0.2)
    check(ce, x, np.array([0, 1, 2], "int32"))
    check(ce, x, np.ones((3, 5), "float32"))
    check(ce, x, np.array([0, 1, 2]), label_smoothing=1.5)
    check(ce, x, np.array([0, 1, 2]), label_smoothing=-0.1)  # torch treats it as no smoothing
    check(ce, x, np.array([0, 1, 2]), weight=np.ones(4, "int64"))
    check(lambda lib, a, b, w: ce(lib, a, b, weight=w), x, np.array([0, 1, 2]), np.ones((1, 4), "float32"))
    check(ce, x, np.array([0, 1, 2]), reduction="bad")
    check(ce, np.arange(12).reshape(3, 4), np.array([0, 1, 2]))
    check(lambda lib, a: ce(lib, a, [0, 1, 2]), x)
    check(lambda lib, a: ce(lib, [1.0, 2.0], a), np.array(0))
    check(lambda lib, a, b, w: ce(lib, a, b, weight=w.requires_grad_()), x, np.array([0, 1, 2]),
          np.ones(4, "float32"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for legacy in [(False, None), (None, False), (True, True)]:
            check_grad(lambda lib, a, legacy: ce(lib, a, lib.tensor([0, 1, 2]), size_average=legacy[0],
                                                 reduce=legacy[1]), x, legacy=legacy)
            check_module(lambda lib, legacy=legacy: lib.nn.CrossEntropyLoss(size_average=legacy[0], reduce=legacy[1]),
                         x, np.array([0, 1, 2]))
    for lib in (real, vt):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            lib.nn.CrossEntropyLoss(reduce=False)
        with pytest.warns(FutureWarning, match="NLLLoss2d"):
            lib.nn.NLLLoss2d()


@pytest.mark.parametrize("name", ["CrossEntropyLoss", "NLLLoss", "MultiMarginLoss", "MultiLabelMarginLoss"])
def test_modules_repr_and_weight_buffer(name):
    check_repr(lambda lib: getattr(lib.nn, name)())
    if name != "MultiLabelMarginLoss":
        states = [getattr(lib.nn, name)(weight=lib.ones(4)).state_dict() for lib in (real, vt)]
        assert list(states[0]) == list(states[1]) == ["weight"]
    got, want = getattr(vt.nn, name)(), getattr(real.nn, name)()
    for attr in ("reduction", "ignore_index", "label_smoothing", "p", "margin"):
        assert getattr(got, attr, None) == getattr(want, attr, None), attr


def test_cross_entropy_graph_and_double_backward():
    # The loss's gradient is differentiable again (create_graph): the second derivative matches torch's.
    x = arrays((4, 5), dtype="float64", seed=27)
    t = labels((4,), 5, 28)
    w = arrays((5,), dtype="float64", seed=29, low=0.2, high=2.0)
    results = []
    for lib in (real, vt):
        a = lib.from_numpy(x.copy()).requires_grad_()
        for through_nll in (False, True):
            weight = lib.from_numpy(w.copy())
            loss = lib.nn.functional.nll_loss(lib.log_softmax(a, 1), lib.from_numpy(t), weight) if through_nll \
                else lib.nn.functional.cross_entropy(a, lib.from_numpy(t), weight)
            (g,) = lib.autograd.grad(loss, a, create_graph=True)
            (h,) = lib.autograd.grad((g * g).sum(), a)
            results.append((g.detach().numpy(), h.numpy()))
    for got, want in zip(results[2:], results[:2]):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)


# -- margin losses -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("margin", [1.0, 0.3])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin(p, margin, reduction, weighted):
    x = arrays((6, 4), dtype="float64", seed=30)
    t = labels((6,), 4, 31)
    w = arrays((4,), dtype="float64", seed=32, low=0.2, high=2.0) if weighted else None

    def fn(lib, a):
        return lib.nn.functional.multi_margin_loss(a, const(lib, t), p, margin, const(lib, w), reduction=reduction)

    check_grad(fn, x)
    check_grad(lambda lib, a: lib.nn.functional.multi_margin_loss(a, lib.tensor(2), p, margin, reduction=reduction),
               x[0])
    check_grad(lambda lib, a: lib.nn.functional.multi_margin_loss(a, lib.tensor([2]), p, margin, reduction=reduction),
               x[0])
    check_module(lambda lib: lib.nn.MultiMarginLoss(p, margin, const(lib, w), reduction=reduction), x, t)


def test_multi_margin_errors():
    x = arrays((3, 4), seed=33)

    def mm(lib, a, b, **kw):
        return lib.nn.functional.multi_margin_loss(a, b, **tensors(lib, kw))

    for target in ([0, 1, 4], [0, 1, -1], [0, 1], np.zeros((3, 1), "int64"), np.array([0, 1, 2], "int32"),
                   np.array([0.0, 1.0, 2.0])):
        check(mm, x, np.asarray(target))
    check(mm, x, np.array([0, 1, 3]), p=3)
    check(lambda lib, a, b, w: mm(lib, a, b, weight=w), x, np.array([0, 1, 3]), np.ones((1, 4), "float32"))
    check(mm, x, np.array([0, 1, 3]), weight=np.ones(3, "float32"))
    check(mm, x, np.array([0, 1, 3]), weight=np.ones(4, "float64"))
    check(mm, arrays((2, 3, 4), seed=34), np.array([0, 1]))
    check(mm, np.zeros((3, 0), "float32"), np.array([0, 0, 0]))
    check(mm, np.arange(12).reshape(3, 4), np.array([0, 1, 3]))
    check(lambda lib, a, b, w: mm(lib, a, b, weight=w.requires_grad_()), x, np.array([0, 1, 3]),
          np.ones(4, "float32"))
    check(lambda lib: lib.nn.MultiMarginLoss(p=3))
    check(lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_multilabel_margin(reduction, dtype):
    x = arrays((4, 5), dtype=dtype, seed=35)
    t = np.array([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [-1, 1, 2, 3, 4], [4, 4, 1, -1, 0]], "int64")  # 4 twice
    check_grad(lambda lib, a: lib.nn.functional.multilabel_margin_loss(a, const(lib, t), reduction=reduction), x)
    check_grad(lambda lib, a: lib.nn.functional.multilabel_margin_loss(a, const(lib, t[0]), reduction=reduction),
               x[0])
    check_module(lambda lib: lib.nn.MultiLabelMarginLoss(reduction=reduction), x, t)


def test_multilabel_margin_errors():
    x = arrays((1, 4), seed=36)

    def mlm(lib, a, b, **kw):
        return lib.nn.functional.multilabel_margin_loss(a, b, **tensors(lib, kw))

    for target in ([[3, -1, -2, 1]], [[3, -1, 7, 1]], [[3, 0, -1]]):
        check(mlm, x, np.array(target))
    check(mlm, x, np.array([[3, 0, -1, 1]], "int32"))
    check(mlm, arrays((2, 3, 4), seed=37), np.zeros((2, 3, 4), "int64"))
    check(mlm, np.arange(4).reshape(1, 4), np.zeros((1, 4), "int64"))
    check(mlm, np.array(1.0, "float32"), np.array(0), reduction="none")
    check(mlm, np.array(1.0, "float32"), np.array(-1))
