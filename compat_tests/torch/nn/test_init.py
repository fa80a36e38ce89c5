"""torch.nn.init against real torch: with the same seed every initializer fills the same numbers;
gains, fans, modes, generators, errors, warnings and the deprecated aliases; Linear and Bilinear
initial weights."""

import math
import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check
from compat_tests.torch.nn.harness import check_init

SHAPES = [(5, 3), (3, 5), (4, 3, 2), (6, 2, 3, 3), (2, 3, 2, 2, 2)]


def _filled(init_call, shape, dtype="float32", seed=0):
    """``init_call(lib, t)`` on a fresh tensor after ``manual_seed(seed)``: the result, whether the same tensor
    came back, and the generator's next draws (the initializer consumed what torch's does)."""

    def run(lib):
        lib.manual_seed(seed)
        t = lib.empty(shape, dtype=getattr(lib, dtype))
        out = init_call(lib, t)
        return t, out is t, lib.rand(3)

    return run


@pytest.mark.parametrize("nonlinearity", ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                          "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                                          "leaky_relu", "selu", "softmax", "Relu"])
def test_calculate_gain(nonlinearity):
    check(lambda lib: lib.nn.init.calculate_gain(nonlinearity))
    for param in (None, 0.2, 1, 3.0, True, "x", [1]):
        check(lambda lib, p=param: lib.nn.init.calculate_gain(nonlinearity, p))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_uniform_and_normal(shape, dtype):
    for call in (lambda lib, t: lib.nn.init.uniform_(t), lambda lib, t: lib.nn.init.uniform_(t, -2.5, 0.5),
                 lambda lib, t: lib.nn.init.normal_(t), lambda lib, t: lib.nn.init.normal_(t, mean=1.0, std=0.1),
                 lambda lib, t: lib.nn.init.constant_(t, 0.3), lambda lib, t: lib.nn.init.ones_(t),
                 lambda lib, t: lib.nn.init.zeros_(t)):
        check(_filled(call, shape, dtype))


@pytest.mark.parametrize("gain", [1.0, 0.5, math.sqrt(2.0)])
@pytest.mark.parametrize("shape", SHAPES)
def test_xavier(shape, gain):
    check(_filled(lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=gain), shape, seed=1))
    check(_filled(lambda lib, t: lib.nn.init.xavier_normal_(t, gain), shape, seed=2))


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "FAN_OUT"])
@pytest.mark.parametrize("nonlinearity", ["leaky_relu", "relu", "tanh", "linear", "selu", "sigmoid", "conv2d"])
def test_kaiming(mode, nonlinearity):
    for shape in SHAPES:
        for a in (0, math.sqrt(5), 0.2):
            check(_filled(lambda lib, t, s=a: lib.nn.init.kaiming_uniform_(t, s, mode, nonlinearity), shape, seed=3))
            check(_filled(lambda lib, t, s=a: lib.nn.init.kaiming_normal_(t, a=s, mode=mode, nonlinearity=nonlinearity),
                          shape, "float64", seed=4))


# Wide intervals redraw normals outside them; narrow ones (< 30% of the mass) accept uniform proposals.
@pytest.mark.parametrize("args", [(), (0.5, 2.0), (0.0, 1.0, -1.0, 0.5), (1.0, 0.5, 0.0, 3.0), (-1.0, 0.3, -1.5, -0.5),
                                  (0.0, 1.0, 2.0, 3.0), (0.0, 1.0, -0.2, 0.1), (3.0, 0.5, -1.0, 1.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.filterwarnings("ignore:mean is more than 2 std")
def test_trunc_normal(args, dtype):
    check(_filled(lambda lib, t: lib.nn.init.trunc_normal_(t, *args), (40, 30), dtype, seed=5))


def test_trunc_normal_warns_when_the_mean_is_far_from_the_interval():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.manual_seed(0)
            t = lib.nn.init.trunc_normal_(lib.empty(4, 4), mean=5.0, std=1.0, a=-1.0, b=1.0)
        return t, [(w.category.__name__, str(w.message)) for w in caught]

    check(run)


@pytest.mark.parametrize("gain", [1, 2.0])
@pytest.mark.parametrize("shape", SHAPES + [(1, 4), (4, 1), (3, 3)])
def test_orthogonal(shape, gain):
    check(_filled(lambda lib, t: lib.nn.init.orthogonal_(t, gain=gain), shape, seed=6), rtol=1e-4, atol=1e-5)
    check(_filled(lambda lib, t: lib.nn.init.orthogonal_(t, gain), shape, "float64", seed=6))


def test_orthogonal_is_orthogonal():
    import vfw.torch as vt

    for rows, cols in ((6, 4), (4, 6)):
        w = vt.nn.init.orthogonal_(vt.empty(rows, cols, dtype=vt.float64)).numpy()
        small = w.T @ w if rows >= cols else w @ w.T
        np.testing.assert_allclose(small, np.eye(min(rows, cols)), atol=1e-12)


@pytest.mark.parametrize("sparsity", [0.0, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("shape", [(10, 4), (3, 7)])
def test_sparse(shape, sparsity):
    check(_filled(lambda lib, t: lib.nn.init.sparse_(t, sparsity), shape, seed=7))
    check(_filled(lambda lib, t: lib.nn.init.sparse_(t, sparsity, std=2.0), shape, "float64", seed=8))


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2)])
def test_eye(shape):
    check(_filled(lambda lib, t: lib.nn.init.eye_(t), shape))


@pytest.mark.parametrize("groups", [1, 2, 3])
@pytest.mark.parametrize("shape", [(6, 2, 3), (6, 4, 3, 3), (6, 3, 2, 3, 3), (12, 1, 5)])
def test_dirac(shape, groups):
    check(_filled(lambda lib, t: lib.nn.init.dirac_(t, groups), shape))


@pytest.mark.parametrize("name", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                                  "kaiming_normal_", "trunc_normal_", "orthogonal_"])
def test_generators(name):
    def run(lib):
        g = lib.Generator().manual_seed(42)
        lib.manual_seed(1)
        t = getattr(lib.nn.init, name)(lib.empty(6, 5), generator=g)
        return t, lib.rand(2)  # the default generator is untouched

    check(run, rtol=1e-4, atol=1e-5)


def test_sparse_with_a_generator():
    def run(lib):
        g = lib.Generator().manual_seed(3)
        lib.manual_seed(1)
        t = lib.nn.init.sparse_(lib.empty(8, 3), 0.5, generator=g)
        return t, lib.rand(2)

    check(run)


def test_parameters_that_require_grad_are_filled_without_recording():
    def run(lib):
        lib.manual_seed(0)
        p = lib.nn.Parameter(lib.empty(4, 3))
        for name in ("uniform_", "normal_", "xavier_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_",
                     "zeros_", "ones_", "eye_"):
            getattr(lib.nn.init, name)(p)
        lib.nn.init.constant_(p, 2.0)
        return p, p.requires_grad, p.grad_fn is None, p.is_leaf

    check(run)


ERRORS = [
    lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
    lambda lib: lib.nn.init.xavier_normal_(lib.empty(())),
    lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3)),
    lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 2), mode="fan_avg"),
    lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 2), nonlinearity="softmax"),
    lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 2), a="x"),
    lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)),
    lambda lib: lib.nn.init.dirac_(lib.empty(2, 2)),
    lambda lib: lib.nn.init.dirac_(lib.empty(5, 2, 3), groups=2),
    lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
    lambda lib: lib.nn.init.sparse_(lib.empty(3, 2, 2), 0.5),
    lambda lib: lib.nn.init.xavier_uniform_(lib.empty(0, 0)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors(k):
    check(ERRORS[k])


def test_zero_element_tensors():
    def run(lib, name):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.manual_seed(0)
            t = getattr(lib.nn.init, name)(lib.empty(0, 3))
        assert all(w.filename == __file__ for w in caught)
        return t, [(w.category.__name__, str(w.message)) for w in caught], lib.rand(2)

    for name in ("kaiming_uniform_", "kaiming_normal_", "orthogonal_", "uniform_", "normal_", "xavier_normal_",
                 "zeros_", "trunc_normal_"):
        check(lambda lib, n=name: run(lib, n))


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                                  "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_aliases(name):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(name, ())
    shape = (4, 2, 3) if name == "dirac" else (4, 3)

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.manual_seed(0)
            t = getattr(lib.nn.init, name)(lib.empty(shape), *args)
        assert [w.filename for w in caught] == [__file__]
        return t, [(w.category.__name__, str(w.message)) for w in caught], getattr(lib.nn.init, name).__name__

    check(run)


@pytest.mark.parametrize("seed", [0, 1, 123])
@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
def test_linear_and_bilinear_initial_weights(seed):
    for make in (lambda lib: lib.nn.Linear(5, 3), lambda lib: lib.nn.Linear(7, 2, bias=False),
                 lambda lib: lib.nn.Linear(1, 4, dtype=lib.float64), lambda lib: lib.nn.Linear(0, 3),
                 lambda lib: lib.nn.Bilinear(4, 3, 2), lambda lib: lib.nn.Bilinear(2, 5, 3, bias=False),
                 lambda lib: lib.nn.Bilinear(3, 3, 3, dtype=lib.float64)):
        check_init(make, seed=seed)


def test_reset_parameters_redraws_like_torch():
    def run(lib):
        lib.manual_seed(9)
        m = lib.nn.Linear(6, 4)
        m.reset_parameters()
        b = lib.nn.Bilinear(3, 2, 4)
        b.reset_parameters()
        return dict(m.state_dict()), dict(b.state_dict())

    check(run)
