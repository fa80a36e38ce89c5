"""InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, LocalResponseNorm, RMSNorm and their functionals, F.normalize,
against real torch."""

import warnings
from collections import OrderedDict

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt
from compat_tests.torch.nn.harness import check_init, check_module, check_repr
from compat_tests.torch.nn.test_batchnorm import randomized, three_steps


def quiet(fn):
    """``fn`` with warnings silenced (the cases compare results; warnings are tested separately)."""
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    return run


# -- InstanceNorm -----------------------------------------------------------------------------------------------

IN_CASES = [("InstanceNorm1d", (4, 3, 5)), ("InstanceNorm1d", (3, 5)), ("InstanceNorm2d", (2, 3, 4, 5)),
            ("InstanceNorm2d", (3, 4, 5)), ("InstanceNorm3d", (2, 3, 2, 3, 4)), ("InstanceNorm3d", (3, 2, 3, 2))]
IN_CONFIGS = [{}, {"affine": True}, {"track_running_stats": True}, {"affine": True, "track_running_stats": True,
                                                                   "momentum": 0.4}, {"affine": True, "bias": False}]


@pytest.mark.parametrize("cls,shape", IN_CASES)
@pytest.mark.parametrize("config", IN_CONFIGS)
@pytest.mark.parametrize("train", [True, False])
def test_instancenorm_modules(cls, shape, config, train):
    x = arrays(shape, seed=1)
    check_module(lambda lib: randomized(lib, getattr(lib.nn, cls)(3, **config)), x, train=train, call=three_steps)


@pytest.mark.parametrize("config", IN_CONFIGS + [{"momentum": None, "track_running_stats": True}])
def test_instancenorm_init_and_repr(config):
    check_init(lambda lib: lib.nn.InstanceNorm2d(4, **config))
    check_repr(lambda lib: lib.nn.InstanceNorm2d(4, **config))


def test_instancenorm_float64_and_half():
    x = arrays((2, 3, 6), seed=2)
    check_module(lambda lib: randomized(lib, lib.nn.InstanceNorm1d(3, affine=True, dtype=lib.float64)),
                 x.astype(np.float64))
    check_module(lambda lib: lib.nn.InstanceNorm1d(3, affine=True, track_running_stats=True), x, grad=False,
                 call=lambda m, x: m(x.half()))
    check_module(lambda lib: lib.nn.InstanceNorm1d(3, affine=True, dtype=lib.float16), x.astype(np.float16),
                 grad=False)


@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (2, 3)), ("InstanceNorm1d", (2, 3, 4, 5)),
                                       ("InstanceNorm2d", (3, 4)), ("InstanceNorm3d", (2, 3, 4)),
                                       ("InstanceNorm1d", (2, 3, 1)), ("InstanceNorm2d", (2, 3, 1, 1))])
def test_instancenorm_bad_inputs(cls, shape):
    check(quiet(lambda lib, x: getattr(lib.nn, cls)(3)(x)), arrays(shape))


def test_instancenorm_channel_mismatch():
    x = arrays((2, 4, 5), seed=3)
    check(lambda lib, x: lib.nn.InstanceNorm1d(3, affine=True)(x), x)

    def warned(lib, x):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.nn.InstanceNorm1d(3)(x)
        return y, [str(w.message) for w in caught], [w.category.__name__ for w in caught]
    check(warned, x)


def test_instancenorm_load_unversioned_state_dict_with_statistics():
    def case(lib):
        state = OrderedDict(running_mean=lib.zeros(3), running_var=lib.ones(3))
        try:
            lib.nn.InstanceNorm1d(3).load_state_dict(state)
        except RuntimeError as e:
            return str(e)
        return None
    check(case)


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_functional_instance_norm(use_input_stats):
    x, w, b = arrays((2, 3, 5), (3,), (3,), seed=4)
    mean, var = arrays((3,), seed=5), arrays((3,), seed=6, low=0.5, high=2.0)

    def case(lib, x, w, b):
        m, v = lib.from_numpy(mean.copy()), lib.from_numpy(var.copy())
        y = lib.nn.functional.instance_norm(x, m, v, w, b, use_input_stats, 0.3, 1e-3)
        return y, m, v
    check_grad(case, x, w, b)
    check_grad(lambda lib, x: lib.nn.functional.instance_norm(x), x)


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2, 3, 1),),
    lambda lib: (lib.ones(2, 3),),
    lambda lib: (lib.ones(3),),
    lambda lib: (lib.ones(2, 3, 4), None, None, None, None, False),
    lambda lib: (lib.ones(2, 3, 4), lib.zeros(3)),
    lambda lib: (lib.ones(2, 3, 4), lib.zeros(4), lib.ones(4)),
    lambda lib: (lib.ones(2, 3, 4), None, None, lib.ones(4)),
    lambda lib: (lib.ones(2, 3, 4), None, None, None, None, True, None),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.int64),),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.float64), None, None, lib.ones(3)),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.float16), None, None, lib.ones(3), lib.zeros(3)),
    lambda lib: (lib.ones(2, 3, 4), lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)),
    lambda lib: (lib.ones(0, 3, 4), lib.zeros(3), lib.ones(3)),
    lambda lib: ([1.0, 2.0],),
])
def test_functional_instance_norm_errors_and_edge_cases(args):
    def case(lib):
        a = args(lib)
        return lib.nn.functional.instance_norm(*a), list(a[1:3])
    check(case)


# -- LayerNorm --------------------------------------------------------------------------------------------------

LN_CASES = [(5, (4, 5)), ((4, 5), (2, 4, 5)), ([3, 4, 5], (2, 3, 4, 5)), (6, (6,)), ((2, 3), (2, 3))]


@pytest.mark.parametrize("normalized,shape", LN_CASES)
@pytest.mark.parametrize("config", [{}, {"elementwise_affine": False}, {"bias": False}, {"eps": 0.3}])
def test_layernorm_modules(normalized, shape, config):
    x = arrays(shape, seed=7)
    check_module(lambda lib: randomized(lib, lib.nn.LayerNorm(normalized, **config)), x)
    check_init(lambda lib: lib.nn.LayerNorm(normalized, **config))
    check_repr(lambda lib: lib.nn.LayerNorm(normalized, **config))


def test_layernorm_dtypes_and_size_argument():
    x = arrays((3, 4, 5), seed=8)
    check_module(lambda lib: randomized(lib, lib.nn.LayerNorm(lib.Size([4, 5]), dtype=lib.float64)),
                 x.astype(np.float64))
    check_module(lambda lib: randomized(lib, lib.nn.LayerNorm(5, dtype=lib.float16)), x.astype(np.float16),
                 grad=False)
    check_module(lambda lib: randomized(lib, lib.nn.LayerNorm(5)), x, grad=False, call=lambda m, x: m(x.half()))
    check_module(lambda lib: randomized(lib, lib.nn.LayerNorm(5)), x, grad=False, call=lambda m, x: m(x.bfloat16()))
    check_init(lambda lib: lib.nn.LayerNorm([4, 5], dtype=lib.float64))
    check(lambda lib: (lib.nn.LayerNorm(lib.Size([4, 5])).normalized_shape, lib.nn.LayerNorm(3).normalized_shape))


def test_functional_layer_norm_gradients():
    x, w, b = arrays((3, 4, 5), (4, 5), (4, 5), seed=9)
    check_grad(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, [4, 5], w, b, 1e-3), x, w, b)
    check_grad(lambda lib, x: lib.nn.functional.layer_norm(x, (5,)), x)
    check_grad(lambda lib, x, b: lib.nn.functional.layer_norm(x, (4, 5), None, b), x, b)


@pytest.mark.parametrize("make", [lambda lib, dtype: lib.nn.LayerNorm(64, dtype=dtype),
                                  lambda lib, dtype: lib.nn.GroupNorm(2, 4, dtype=dtype),
                                  lambda lib, dtype: lib.nn.InstanceNorm1d(4, affine=True, dtype=dtype)])
def test_large_offsets_keep_float64_accuracy(make):
    # Values far from zero next to their spread: torch's float32 kernels lose digits here (about 3e-4 in
    # LayerNorm's output); the oracle is torch in float64, and vfw's float32 results must stay close to it.
    x = arrays((4, 4, 16), seed=10, low=1000.0, high=1001.0)
    weights = np.random.default_rng(0).standard_normal(x.shape)

    def run(lib, dtype):
        m = make(lib, dtype)
        xs = lib.from_numpy(x.reshape(4, 64) if isinstance(m, lib.nn.LayerNorm) else x).to(dtype).requires_grad_(True)
        y = m(xs)
        (y * lib.from_numpy(weights.reshape(y.shape)).to(dtype)).sum().backward()
        return [t.detach().double().numpy() for t in (y, xs.grad, m.weight.grad)]

    for got, want in zip(run(vt, vt.float32), run(real, real.float64)):
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * np.abs(want).max())


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2, 3, 4), [3]),
    lambda lib: (lib.ones(2, 3, 4), (2, 4)),
    lambda lib: (lib.ones(2, 3, 4), 4),
    lambda lib: (lib.ones(2, 3, 4), [4.0]),
    lambda lib: (lib.ones(2, 3, 4), []),
    lambda lib: (lib.ones(4), [2, 4]),
    lambda lib: (lib.ones(2, 3, 4), [4], lib.ones(3)),
    lambda lib: (lib.ones(2, 3, 4), [4], None, lib.ones(3)),
    lambda lib: (lib.ones(2, 3, 4), [3, 4], lib.ones(12)),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.float64), [4], lib.ones(4)),
    lambda lib: (lib.ones(2, 3, 4), [4], lib.ones(4, dtype=lib.float64)),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.float16), [4], lib.ones(4).half(), lib.ones(4)),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.float16), [4], None, lib.ones(4)),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.int64), [4]),
    lambda lib: (lib.ones(0, 4), [4]),
    lambda lib: (lib.ones(2, 4), [4], None, None, -0.5),
    lambda lib: ([1.0, 2.0], [2]),
])
def test_functional_layer_norm_errors_and_edge_cases(args):
    check(lambda lib: lib.nn.functional.layer_norm(*args(lib)))


# -- GroupNorm --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("groups,shape", [(2, (3, 6, 4)), (3, (2, 6, 3)), (1, (2, 6)), (1, (2, 6, 2, 3)),
                                          (6, (2, 6, 5)), (2, (2, 6, 2, 2, 2))])
@pytest.mark.parametrize("config", [{}, {"affine": False}, {"bias": False}, {"eps": 0.2}])
def test_groupnorm_modules(groups, shape, config):
    x = arrays(shape, seed=11)
    check_module(lambda lib: randomized(lib, lib.nn.GroupNorm(groups, 6, **config)), x)
    check_init(lambda lib: lib.nn.GroupNorm(groups, 6, **config))
    check_repr(lambda lib: lib.nn.GroupNorm(groups, 6, **config))


def test_groupnorm_dtypes():
    x = arrays((2, 4, 5), seed=12)
    check_module(lambda lib: randomized(lib, lib.nn.GroupNorm(2, 4, dtype=lib.float64)), x.astype(np.float64))
    check_module(lambda lib: randomized(lib, lib.nn.GroupNorm(2, 4)), x, grad=False, call=lambda m, x: m(x.half()))
    check_module(lambda lib: randomized(lib, lib.nn.GroupNorm(2, 4, dtype=lib.float16)), x.astype(np.float16),
                 grad=False)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.GroupNorm(4, 6),
    lambda lib: lib.nn.GroupNorm(0, 6),
    lambda lib: lib.nn.GroupNorm(2, 4)(lib.ones(2, 6, 3)),
    lambda lib: lib.nn.GroupNorm(2, 4)(lib.ones(4)),
    lambda lib: lib.nn.GroupNorm(4, 4)(lib.ones(1, 4)),
    lambda lib: lib.nn.GroupNorm(4, 4)(lib.ones(1, 4, 2)),
])
def test_groupnorm_errors(make):
    check(make)


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2, 6, 4), 4),
    lambda lib: (lib.ones(6), 3),
    lambda lib: (lib.ones(1, 3), 3),
    lambda lib: (lib.ones(2, 6, 4), 3, lib.ones(5)),
    lambda lib: (lib.ones(2, 6, 4), 3, None, lib.ones(5)),
    lambda lib: (lib.ones(2, 6, 4), 3, lib.ones(6, 1)),
    lambda lib: (lib.ones(2, 6, 4), 0),
    lambda lib: (lib.ones(2, 6, 4), -3),
    lambda lib: (lib.ones(2, 6, 4), 3.0),
    lambda lib: (lib.ones(2, 6, 4, dtype=lib.float64), 3, lib.ones(6)),
    lambda lib: (lib.ones(2, 6, 4), 3, lib.ones(6, dtype=lib.float64)),
    lambda lib: (lib.ones(2, 6, 4, dtype=lib.int64), 3),
    lambda lib: (lib.ones(0, 6, 3), 3),
    lambda lib: (lib.ones(2, 0, 3), 1),
])
def test_functional_group_norm_errors_and_edge_cases(args):
    check(lambda lib: lib.nn.functional.group_norm(*args(lib)))


def test_functional_group_norm_gradients():
    x, w, b = arrays((3, 6, 4), (6,), (6,), seed=13)
    check_grad(lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b, 1e-3), x, w, b)
    check_grad(lambda lib, x: lib.nn.functional.group_norm(x, 2), x)


# -- LocalResponseNorm ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("shape", [(2, 6, 5), (2, 6, 3, 4), (1, 6, 2, 2, 3)])
def test_local_response_norm(size, shape):
    x = arrays(shape, seed=14)
    check_module(lambda lib: lib.nn.LocalResponseNorm(size, alpha=0.5, beta=0.7, k=1.5), x)
    check_repr(lambda lib: lib.nn.LocalResponseNorm(size, alpha=0.5, beta=0.7, k=1.5))


def test_local_response_norm_dtypes():
    x = arrays((2, 5, 4), seed=15)
    check_grad(lambda lib, x: lib.nn.functional.local_response_norm(x, 3), x.astype(np.float64))
    check(lambda lib, x: lib.nn.functional.local_response_norm(x, 2, alpha=0.5), x.astype(np.float16))


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_local_response_norm_of_integers(size):
    # torch averages the integer squares with an integer division before going to floats.
    ints = arrays((2, 5, 4), seed=16, dtype="int64", low=-5, high=5)
    check(lambda lib, x: lib.nn.functional.local_response_norm(x, size, alpha=0.5, k=2.0), ints)


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2, 3), 2),
    lambda lib: (lib.ones(0, 3, 4), 2),
    lambda lib: (lib.ones(2, 3, 4), 0),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.bool), 2),
    lambda lib: ([1.0], 2),
])
def test_functional_local_response_norm_errors_and_edge_cases(args):
    check(lambda lib: lib.nn.functional.local_response_norm(*args(lib)))


def test_local_response_norm_of_empty_input_is_the_input():
    check(lambda lib: (lambda x: lib.nn.functional.local_response_norm(x, 2) is x)(lib.ones(0, 3, 4)))


# -- RMSNorm ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("normalized,shape", LN_CASES)
@pytest.mark.parametrize("config", [{}, {"elementwise_affine": False}, {"eps": 0.3}])
def test_rmsnorm_modules(normalized, shape, config):
    x = arrays(shape, seed=17)
    check_module(lambda lib: randomized(lib, lib.nn.RMSNorm(normalized, **config)), x)
    check_init(lambda lib: lib.nn.RMSNorm(normalized, **config))
    check_repr(lambda lib: lib.nn.RMSNorm(normalized, **config))


def test_rmsnorm_default_eps_per_dtype():
    # eps=None is the machine epsilon of the dtype the input is computed in (float32 for half inputs).
    x = np.full((2, 3), 1e-2, np.float32)
    for dtype in (np.float16, np.float32, np.float64):
        check(lambda lib, x: lib.nn.functional.rms_norm(x, [3]), x.astype(dtype))
    check(lambda lib, x: lib.nn.functional.rms_norm(x, [3]), np.full((2, 3), 1e-4, np.float32))
    check(lambda lib, x: lib.nn.functional.rms_norm(x, [3]), np.zeros((2, 3), np.float32))


def test_rmsnorm_dtypes_and_gradients():
    x, w = arrays((3, 4, 5), (5,), seed=18)
    check_grad(lambda lib, x, w: lib.nn.functional.rms_norm(x, [5], w, 1e-3), x, w)
    check_grad(lambda lib, x, w: lib.nn.functional.rms_norm(x, [5], w), x.astype(np.float64), w.astype(np.float64))
    check_module(lambda lib: randomized(lib, lib.nn.RMSNorm([4, 5], dtype=lib.float16)), x.astype(np.float16),
                 grad=False)
    check_module(lambda lib: randomized(lib, lib.nn.RMSNorm(5)), x, grad=False,
                 call=quiet(lambda m, x: m(x.bfloat16())))


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float16", "float32"),
                                    ("float32", "float16"), ("float16", "float16")])
def test_rms_norm_mixed_dtypes_warn_and_keep_the_input_dtype(dtypes):
    x, w = arrays((3, 5), (5,), seed=19)

    def case(lib, x, w):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.nn.functional.rms_norm(x, [5], w)
        return y, [str(c.message).split(" (Triggered")[0] for c in caught]
    check(case, x.astype(dtypes[0]), w.astype(dtypes[1]))


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2, 3, 4), [3]),
    lambda lib: (lib.ones(2, 3, 4), 4),
    lambda lib: (lib.ones(2, 3, 4), []),
    lambda lib: (lib.ones(2, 3, 4), [4], lib.ones(3)),
    lambda lib: (lib.ones(2, 3, 4, dtype=lib.int64), [4]),
    lambda lib: (lib.ones(0, 4), [4]),
])
def test_functional_rms_norm_errors_and_edge_cases(args):
    check(quiet(lambda lib: lib.nn.functional.rms_norm(*args(lib))))


# -- normalize --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1, 0), (3.5, -1), (float("inf"), 1), (0.5, 1)])
def test_functional_normalize(p, dim):
    x = arrays((3, 4), seed=20)
    check_grad(lambda lib, x: lib.nn.functional.normalize(x, p, dim), x)
    check(lambda lib, x: lib.nn.functional.normalize(x, p, dim, eps=10.0), x)


def test_functional_normalize_out_and_errors():
    x = arrays((3, 4), seed=21)

    def with_out(lib, x):
        out = lib.empty(3, 4)
        y = lib.nn.functional.normalize(x, out=out)
        return y is out, out
    check(with_out, x)
    check(lambda lib, x: lib.nn.functional.normalize(x), np.zeros((2, 3), np.float32))
    check(lambda lib, x: lib.nn.functional.normalize(x, dim=0), x[0])
    check(lambda lib, x: lib.nn.functional.normalize(x), x[0])
    check(lambda lib: lib.nn.functional.normalize(lib.arange(6).reshape(2, 3)))
