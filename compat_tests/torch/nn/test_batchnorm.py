"""BatchNorm1d/2d/3d, SyncBatchNorm and F.batch_norm against real torch."""

import warnings
from collections import OrderedDict

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, assert_same, check, check_grad, real, to_numpy, vt
from compat_tests.torch.nn.harness import check_init, check_module, check_repr

SHAPES = {"BatchNorm1d": [(6, 3), (4, 3, 5)], "BatchNorm2d": [(4, 3, 5, 6)], "BatchNorm3d": [(2, 3, 2, 3, 4)]}
CASES = [(cls, shape) for cls, shapes in SHAPES.items() for shape in shapes]
CONFIGS = [{}, {"affine": False}, {"momentum": None}, {"track_running_stats": False}, {"bias": False},
           {"eps": 0.5, "momentum": 0.7}]


def randomized(lib, module):
    """``module`` with random affine parameters and running statistics (drawn from lib's seeded generator)."""
    with lib.no_grad():
        for name, t in list(module.named_parameters()) + list(module.named_buffers()):
            if name.endswith("running_var"):
                t.uniform_(0.5, 2.0)
            elif t.is_floating_point():
                t.normal_()
    return module


def three_steps(module, x):
    """Three calls on different batches (the running statistics must follow torch's after each)."""
    return [module(x), module(x * 2 - 1), module(x.flip(0))]


@pytest.mark.parametrize("cls,shape", CASES)
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_modules(cls, shape, config, train):
    x = arrays(shape, seed=1)
    check_module(lambda lib: randomized(lib, getattr(lib.nn, cls)(3, **config)), x, train=train, call=three_steps)


@pytest.mark.parametrize("dtype", ["float64", "float16"])
@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_dtypes(dtype, train):
    x = arrays((5, 3, 4), seed=2, dtype=dtype)

    def make(lib):
        return randomized(lib, lib.nn.BatchNorm1d(3, dtype=getattr(lib, dtype)))

    check_module(make, x, train=train, grad=dtype == "float64", call=three_steps)


@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_float16_gradients_against_float64(train):
    # torch's float16 kernels round intermediates to float16 (errors of a few units in the last place); vfw
    # computes in float32 and rounds once.  The oracle is torch in float64, rounded to float16.
    x = arrays((5, 3, 4), seed=2, dtype="float16")
    weights = np.random.default_rng(0).standard_normal(x.shape).astype(np.float16)

    def grads(lib, dtype):
        m = lib.nn.BatchNorm1d(3, dtype=dtype).train(train)
        xs = lib.from_numpy(x.astype(np.float64 if dtype == lib.float64 else np.float16)).requires_grad_(True)
        y = m(xs)
        (y * lib.from_numpy(weights).to(dtype)).sum().backward()
        return y.detach().to(lib.float16), xs.grad.to(lib.float16), m.weight.grad.to(lib.float16)

    want = to_numpy(grads(real, real.float64))
    got = to_numpy(grads(vt, vt.float16))
    assert_same(want, got)


@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_bfloat16(train):
    x = arrays((5, 3, 4), seed=2)
    check(lambda lib, x: three_steps(lib.nn.BatchNorm1d(3, dtype=lib.bfloat16).train(train), x.bfloat16())
          + [lib.nn.BatchNorm1d(3, dtype=lib.bfloat16).state_dict()], x)


@pytest.mark.parametrize("method", ["half", "bfloat16"])
@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_half_input_with_float_parameters(method, train):
    # torch's CPU kernels take float32 parameters and statistics with half inputs ("mixed type").
    x = arrays((6, 3, 4), seed=3)
    check_module(lambda lib: randomized(lib, lib.nn.BatchNorm1d(3)), x, train=train, grad=False,
                 call=lambda m, x: three_steps(m, getattr(x, method)()))


def test_batchnorm_many_steps_and_cumulative_average():
    x = arrays((8, 4, 3), seed=4)

    def steps(module, x):
        return [module(x * (k + 1) - k) for k in range(6)]

    check_module(lambda lib: lib.nn.BatchNorm1d(4, momentum=None), x, call=steps)
    check_module(lambda lib: lib.nn.BatchNorm1d(4, momentum=1.0), x, call=steps)
    check_module(lambda lib: lib.nn.BatchNorm1d(4, momentum=0.0), x, call=steps)


def test_batchnorm_large_offset_is_accurate():
    x = arrays((16, 2, 8), seed=5, low=1000.0, high=1001.0)
    check_module(lambda lib: lib.nn.BatchNorm1d(2), x, rtol=1e-4, atol=1e-4)
    check_module(lambda lib: lib.nn.BatchNorm1d(2, dtype=lib.float64), x.astype(np.float64))


def test_batchnorm_train_eval_switch():
    x = arrays((4, 3, 5, 5), seed=6)

    def switching(module, x):
        out = [module(x), module(x + 1)]
        module.eval()
        out.append(module(x))
        module.train()
        out.append(module(x * 3))
        return out

    check_module(lambda lib: lib.nn.BatchNorm2d(3), x, call=switching)
    check_module(lambda lib: lib.nn.BatchNorm2d(3, track_running_stats=False), x, call=switching)


@pytest.mark.parametrize("config", CONFIGS + [{"dtype": "float64"}, {"affine": False, "track_running_stats": False}])
def test_batchnorm_init_and_repr(config):
    def make(lib):
        kwargs = dict(config)
        if "dtype" in kwargs:
            kwargs["dtype"] = getattr(lib, kwargs["dtype"])
        return lib.nn.BatchNorm2d(5, **kwargs)

    check_init(make)
    check_repr(make)
    check(lambda lib: ({k: (v.dtype, tuple(v.shape)) for k, v in make(lib).state_dict().items()},
                       [n for n, _ in make(lib).named_buffers()], [n for n, _ in make(lib).named_parameters()]))


def test_batchnorm_attributes_and_buffers():
    def case(lib):
        m = lib.nn.BatchNorm1d(4, eps=1e-3, momentum=0.2)
        n = lib.nn.BatchNorm1d(4, track_running_stats=False, affine=False)
        return (m.num_features, m.eps, m.momentum, m.affine, m.track_running_stats, m.num_batches_tracked,
                m.running_mean, m.running_var, m._version, n.running_mean is None, n.weight is None,
                n.num_batches_tracked is None, isinstance(m, lib.nn.modules.batchnorm._BatchNorm),
                isinstance(m, lib.nn.modules.batchnorm._NormBase))
    check(case)


def test_batchnorm_reset_running_stats_and_parameters():
    def case(lib):
        m = randomized(lib, lib.nn.BatchNorm1d(3))
        m(lib.ones(4, 3) * lib.arange(4.0).reshape(4, 1))
        m.reset_running_stats()
        first = [t.clone() for t in m.state_dict().values()]
        m.reset_parameters()
        return first, list(m.state_dict().values())
    check(case)


def test_running_stats_versions_and_identity():
    # torch's batch norm kernel writes the statistics without counting versions (the module's come from its
    # reset); instance norm copies into them.
    def case(lib):
        m = lib.nn.BatchNorm1d(3)
        mean, var = m.running_mean, m.running_var
        x = lib.ones(4, 3) * lib.arange(4.0).reshape(4, 1)
        m(x)
        stats = lib.zeros(3), lib.ones(3)
        lib.nn.functional.batch_norm(x, *stats, training=True)
        instance_stats = lib.zeros(3), lib.ones(3)
        lib.nn.functional.instance_norm(x.reshape(2, 2, 3).transpose(1, 2), *instance_stats)
        return (mean is m.running_mean, var is m.running_var, mean._version, var._version,
                m.num_batches_tracked._version, [t._version for t in stats + instance_stats])
    check(case)


def test_eval_backward_after_a_training_step():
    # The eval call's node saved the running statistics; training then writes them (torch does not object).
    x = arrays((4, 3), seed=18)

    def case(lib, x):
        m = lib.nn.BatchNorm1d(3)
        m.eval()
        y = m(x)
        m.train()
        m(x * 2)
        y.sum().backward()
        n = lib.nn.InstanceNorm1d(3, track_running_stats=True)
        n.eval()
        z = n(x.reshape(1, 3, 4))
        n.train()
        n(x.reshape(1, 3, 4) * 2)
        z.sum().backward()
        return x.grad
    check_grad(case, x)


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (2, 3, 4, 5)), ("BatchNorm1d", (3,)), ("BatchNorm2d", (2, 3, 4)),
                                       ("BatchNorm3d", (2, 3, 4, 5)), ("BatchNorm2d", (2, 4, 3, 3)),
                                       ("BatchNorm1d", (1, 3)), ("BatchNorm2d", (1, 3, 1, 1)),
                                       ("BatchNorm1d", (1, 3, 2)), ("BatchNorm1d", (0, 3))])
@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_bad_and_edge_inputs(cls, shape, train):
    x = arrays(shape, seed=7)
    check(lambda lib, x: getattr(lib.nn, cls)(3).train(train)(x), x)


def test_batchnorm_integer_and_mixed_dtype_inputs():
    check(lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(4, 3, dtype=lib.int64)))
    check(lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(4, 3, dtype=lib.float64)))
    check(lambda lib: lib.nn.BatchNorm1d(3, dtype=lib.float64)(lib.ones(4, 3)))
    check(lambda lib: lib.nn.BatchNorm1d(3)([1.0, 2.0, 3.0]))


def test_batchnorm_load_version_1_state_dict():
    def case(lib):
        src = randomized(lib, lib.nn.BatchNorm1d(3))
        old = OrderedDict((k, v) for k, v in src.state_dict().items() if k != "num_batches_tracked")
        old._metadata = OrderedDict({"": {"version": 1}})
        m = lib.nn.BatchNorm1d(3)
        m.num_batches_tracked.fill_(5)
        keys = m.load_state_dict(old)
        no_meta = lib.nn.BatchNorm1d(3)
        no_meta.load_state_dict(OrderedDict(old))  # no metadata at all: also supplied
        return keys.missing_keys, keys.unexpected_keys, m.state_dict(), no_meta.num_batches_tracked
    check(case)


def test_batchnorm_version_2_state_dict_without_counter_is_missing():
    def case(lib):
        state = lib.nn.BatchNorm1d(3).state_dict()
        del state["num_batches_tracked"]
        return lib.nn.BatchNorm1d(3).load_state_dict(state)
    check(case)


def test_batchnorm_state_dict_round_trip_and_nesting():
    def case(lib):
        net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3))
        net(lib.ones(5, 4) * lib.arange(5.0).reshape(5, 1))
        copy = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3))
        copy.load_state_dict(net.state_dict())
        return list(net.state_dict()), copy[1].num_batches_tracked, net.state_dict()._metadata["1"]
    check(case)


# -- SyncBatchNorm ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("train", [True, False])
def test_sync_batchnorm_in_one_process(shape, train):
    x = arrays(shape, seed=8)
    check_module(lambda lib: randomized(lib, lib.nn.SyncBatchNorm(3)), x, train=train, call=three_steps)
    check_repr(lambda lib: lib.nn.SyncBatchNorm(3, momentum=None, bias=False))
    check_init(lambda lib: lib.nn.SyncBatchNorm(3, affine=False))


def test_sync_batchnorm_errors():
    check(lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(3)))
    check(lambda lib: lib.nn.SyncBatchNorm(0)(lib.ones(4, 0)))


def test_convert_sync_batchnorm():
    def nested(lib):
        lib.manual_seed(0)  # the Linear's initial weights: the same draws in both libraries whatever ran before
        net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3, momentum=0.3),
                                lib.nn.Sequential(lib.nn.BatchNorm1d(3, affine=False)))
        net[1].eval()
        converted = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        return (converted is net, repr(converted), converted[1].training, type(converted[2][0]).__name__,
                converted.state_dict())
    check(nested)

    def single(lib):
        bn = lib.nn.BatchNorm2d(3, bias=False)
        sync = lib.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
        return (type(sync).__name__, sync is bn, sync.weight is bn.weight, sync.bias,
                sync.running_mean is bn.running_mean)
    check(single)


# -- F.batch_norm -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 3)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_functional_batch_norm_gradients(shape, training, affine):
    x, w, b = arrays(shape, (3,), (3,), seed=9)
    mean, var = arrays((3,), seed=10), arrays((3,), seed=11, low=0.5, high=2.0)
    if affine:
        check_grad(lambda lib, x, w, b: lib.nn.functional.batch_norm(x, lib.from_numpy(mean.copy()),
                                                                      lib.from_numpy(var.copy()), w, b, training),
                   x, w, b)
    else:
        check_grad(lambda lib, x: lib.nn.functional.batch_norm(x, lib.from_numpy(mean.copy()),
                                                                lib.from_numpy(var.copy()), training=training), x)


def test_functional_batch_norm_updates_statistics_in_place():
    x = arrays((5, 3, 4), seed=12)

    def case(lib, x):
        mean, var = lib.zeros(3), lib.ones(3)
        y = lib.nn.functional.batch_norm(x, mean, var, training=True, momentum=0.3)
        z = lib.nn.functional.batch_norm(x, mean, var, training=False)
        w = lib.nn.functional.batch_norm(x, None, None, training=True, eps=0.1)
        return y, z, w, mean, var
    check(case, x)
    check(case, x.astype(np.float64))


@pytest.mark.parametrize("training", [True, False])
def test_functional_batch_norm_refuses_statistics_that_require_grad(training):
    x = arrays((4, 3), seed=13)

    def case(lib, x):
        mean, var = lib.zeros(3, requires_grad=True), lib.ones(3)
        out = [lib.nn.functional.batch_norm(x, mean.detach(), var, training=training)]
        with lib.no_grad():
            out.append(lib.nn.functional.batch_norm(x, mean, var, training=training))
        out.append(lib.nn.functional.batch_norm(x, mean, var, training=training))
        return out
    check(case, x)


def test_functional_batch_norm_double_backward():
    x, w = arrays((5, 3, 2), (3,), seed=16, dtype="float64")

    def case(lib, x, w):
        x.requires_grad_(True)
        w.requires_grad_(True)
        y = lib.nn.functional.batch_norm(x, None, None, w, None, True)
        (gx,) = lib.autograd.grad((y * y * y).sum(), x, create_graph=True)
        return lib.autograd.grad((gx * gx).sum(), [x, w])
    check(case, x, w)


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(4, 3), lib.zeros(4), lib.ones(3)),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), lib.ones(4)),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), lib.ones(3), lib.ones(4)),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), lib.ones(3), None, lib.ones(2)),
    lambda lib: (lib.ones(4, 3), None, None),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), None),
    lambda lib: (lib.ones(4, 3), None, lib.ones(3)),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), None, None, None, True),
    lambda lib: (lib.ones(1, 3), None, None, None, None, True),
    lambda lib: (lib.ones(1, 3), lib.zeros(3), lib.ones(3)),
    lambda lib: (lib.ones(3), lib.zeros(3), lib.ones(3)),
    lambda lib: (lib.ones(3), None, None, None, None, True),
    lambda lib: (lib.ones(()), None, None, None, None, True),
    lambda lib: (lib.ones(4, 3), None, None, None, None, True, 0.1, 0.0),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), lib.ones(3), None, None, False, 0.1, -1.0),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), lib.ones(3), None, None, True, None),
    lambda lib: (lib.ones(4, 3), lib.zeros(3), lib.ones(3), None, None, "yes"),
    lambda lib: (lib.ones(4, 3, dtype=lib.float64), lib.zeros(3), lib.ones(3)),
    lambda lib: (lib.ones(4, 3), lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), None, None, True),
    lambda lib: (lib.ones(4, 3), None, None, lib.ones(3, dtype=lib.float64), None, True),
    lambda lib: (lib.ones(4, 3, dtype=lib.float16), lib.zeros(3), lib.ones(3), lib.ones(3).half()),
    lambda lib: (lib.ones(4, 3, dtype=lib.float16), lib.zeros(3).half(), lib.ones(3).half(), lib.ones(3)),
    lambda lib: (lib.ones(4, 3, dtype=lib.int64), None, None, None, None, True),
    lambda lib: (lib.ones(4, 3), lib.zeros(3, 1), lib.ones(3, 1)),
    lambda lib: (lib.ones(4, 3), None, None, lib.ones(3, 1), None, True),
    lambda lib: (lib.ones(0, 3), lib.zeros(3), lib.ones(3), None, None, True),
    lambda lib: (lib.ones(2, 0), lib.zeros(0), lib.ones(0), None, None, True),
    lambda lib: ([1.0, 2.0], None, None),
    lambda lib: (lib.ones(4, 3), [0.0, 0.0, 0.0], lib.ones(3)),
])
def test_functional_batch_norm_errors_and_edge_cases(args):
    def case(lib):
        a = args(lib)
        y = lib.nn.functional.batch_norm(*a)
        return y, [t for t in a[1:3] if t is not None]
    check(case)


@pytest.mark.parametrize("momentum", [0.5, 1, "tensor"])
def test_functional_batch_norm_momentum_types(momentum):
    x = arrays((4, 3), seed=17)

    def case(lib, x):
        mean, var = lib.zeros(3), lib.ones(3)
        factor = lib.tensor(0.25) if momentum == "tensor" else momentum
        return lib.nn.functional.batch_norm(x, mean, var, training=True, momentum=factor), mean, var
    check(case, x)


def test_batchnorm_module_under_no_grad_and_requires_grad():
    def case(lib):
        m = lib.nn.BatchNorm1d(3)
        with lib.no_grad():
            y = m(lib.ones(4, 3) * lib.arange(4.0).reshape(4, 1))
        z = m(lib.ones(4, 3))
        return y.requires_grad, z.requires_grad, m.running_mean.requires_grad, m.num_batches_tracked

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(case)


def test_batchnorm_module_conversions():
    x = arrays((4, 3), seed=19)

    def case(lib, x):
        m = lib.nn.BatchNorm1d(3).double()
        y = m(x.double())
        h = lib.nn.BatchNorm1d(3).half()
        return {k: v.dtype for k, v in m.state_dict().items()}, y, m.state_dict(), h(x.half()), h.state_dict()
    check(case, x)
