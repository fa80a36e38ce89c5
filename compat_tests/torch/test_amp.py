"""torch.autocast (CPU) and torch.amp.GradScaler against real torch 2.13."""

import functools
import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


def _autocast(fn, dtype_name="bfloat16"):
    """``fn(torch, *args)`` run inside ``torch.autocast('cpu', dtype=...)``."""
    def run(torch, *args):
        with torch.autocast("cpu", dtype=getattr(torch, dtype_name)):
            return fn(torch, *args)
    return run


# (name, fn(torch, a, b, c), shapes of a, b, c): ops on torch's lower-precision list, the float32 list, and
# ops on neither (which keep their inputs' dtypes).
X, W, V = (4, 3), (5, 3), (3,)
CASES = [
    ("matmul", lambda t, a, b, v: t.matmul(a, b.T), (X, W, V)),
    ("matmul_vec", lambda t, a, b, v: t.matmul(a, v), (X, W, V)),
    ("operator", lambda t, a, b, v: a @ b.T, (X, W, V)),
    ("method", lambda t, a, b, v: a.matmul(b.T), (X, W, V)),
    ("mm", lambda t, a, b, v: t.mm(a, b.T), (X, W, V)),
    ("bmm", lambda t, a, b, v: t.bmm(a[None], b.T[None]), (X, W, V)),
    ("addmm", lambda t, a, b, v: t.addmm(v[:1], a, b.T), (X, W, V)),
    ("baddbmm", lambda t, a, b, v: t.baddbmm(a[None, :, :1], a[None], b.T[None]), (X, W, V)),
    ("addbmm", lambda t, a, b, v: t.addbmm(a[:, :1], a[None], b.T[None]), (X, W, V)),
    ("linear", lambda t, a, b, v: t.nn.functional.linear(a, b, v[:1].expand(5).contiguous()), (X, W, V)),
    ("linear_module", lambda t, a, b, v: _module(t, t.nn.Linear(3, 5), a), (X, W, V)),
    ("float64_stays", lambda t, a, b, v: t.mm(a.double(), b.double().T), (X, W, V)),
    ("int_stays", lambda t, a, b, v: t.mm(a.long(), b.long().T), (X, W, V)),
    ("half_input", lambda t, a, b, v: t.mm(a.half(), b.T), (X, W, V)),
    ("multi_dot", lambda t, a, b, v: t.linalg.multi_dot([a, b.T, b]), (X, W, V)),
    ("vecdot", lambda t, a, b, v: t.linalg.vecdot(a, a), (X, W, V)),
    ("conv1d", lambda t, a, b, v: t.nn.functional.conv1d(a[None], b[:, :4, None]), ((4, 6), (5, 4), V)),
    ("conv2d_module", lambda t, a, b, v: _module(t, t.nn.Conv2d(1, 2, 2), a[None, None]), ((4, 6), W, V)),
    # integer-valued: torch's half conv_transpose2d accumulates in float16 on some CPUs (AMD EPYC) and in float32
    # on others, which rounds differently; on integers both are exact
    ("conv_transpose2d", lambda t, a, b, v: t.nn.functional.conv_transpose2d((4 * a[None, None]).round(),
                                                                             (4 * b[None, None, :2, :2]).round()),
     ((4, 6), W, V)),
    ("prelu", lambda t, a, b, v: t.nn.functional.prelu(a, v[:1]), (X, W, V)),
    ("sdpa", lambda t, a, b, v: t.nn.functional.scaled_dot_product_attention(a[None], a[None], a[None]), (X, W, V)),
    ("mse_loss", lambda t, a, b, v: t.nn.functional.mse_loss(a.bfloat16(), b[:4].bfloat16()), (X, W, V)),
    ("l1_loss_of_linear", lambda t, a, b, v: t.nn.functional.l1_loss(t.mm(a, b.T), t.mm(a, b.T) * 2), (X, W, V)),
    ("cross_entropy", lambda t, a, b, v: t.nn.functional.cross_entropy(t.mm(a, b.T), t.tensor([0, 1, 4, 2])),
     (X, W, V)),
    ("nll_loss", lambda t, a, b, v: t.nn.functional.nll_loss(a.bfloat16(), t.tensor([0, 1, 2, 2])), (X, W, V)),
    ("bce_logits", lambda t, a, b, v: t.nn.functional.binary_cross_entropy_with_logits(a.bfloat16(), a.sigmoid()),
     (X, W, V)),
    ("smooth_l1", lambda t, a, b, v: t.nn.functional.smooth_l1_loss(a.bfloat16(), a), (X, W, V)),
    ("kl_div", lambda t, a, b, v: t.nn.functional.kl_div(a.bfloat16(), a.exp(), reduction="batchmean"), (X, W, V)),
    ("prod", lambda t, a, b, v: t.prod(a.bfloat16()), (X, W, V)),
    ("cdist", lambda t, a, b, v: t.cdist(a.bfloat16(), b.bfloat16()), (X, W, V)),
    ("inverse", lambda t, a, b, v: t.inverse(t.mm(b.T, b).bfloat16()), (X, W, V)),
    ("not_listed_keeps_dtype", lambda t, a, b, v: (t.exp(a.bfloat16()), t.softmax(a.bfloat16(), 0), a.sum()),
     (X, W, V)),
    ("cat_promotes", lambda t, a, b, v: t.cat([t.mm(a, b.T), a], 1), (X, W, V)),
    ("mixed_add", lambda t, a, b, v: t.mm(a, b.T) + 1.5 * b[:4, :1], (X, W, V)),
    ("dot_stays", lambda t, a, b, v: (t.dot(v, v), t.mv(a, v)), (X, W, V)),
]


def _module(torch, layer, x):
    with torch.no_grad():
        for k, p in enumerate(layer.parameters()):
            p.copy_(torch.tensor(arrays(tuple(p.shape), seed=k)))
    return layer(x)


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_autocast_dtypes_and_values(name, fn, shapes, dtype_name):
    check(_autocast(fn, dtype_name), *arrays(*shapes, seed=3))


GRAD_CASES = [
    ("linear", lambda t, a, w: t.nn.functional.linear(a, w).float()),
    ("matmul_loss", lambda t, a, w: t.nn.functional.mse_loss(a @ w.T, t.ones(4, 5))),
    ("conv1d", lambda t, a, w: t.nn.functional.conv1d(a.T[None], w[:2, :, None]).float()),
]


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_autocast_gradients_reach_float32_leaves(name, fn):
    check_grad(_autocast(fn), *arrays(X, W, seed=5))
    for torch in (real, vt):
        a, w = (torch.from_numpy(x).requires_grad_() for x in arrays(X, W, seed=5))
        with torch.autocast("cpu"):
            fn(torch, a, w).sum().backward()
        assert (a.grad.dtype, w.grad.dtype) == (torch.float32, torch.float32)


@pytest.mark.parametrize("layer", ["LSTM", "RNN", "GRU", "LSTMCell", "GRUCell", "RNNCell"])
def test_autocast_recurrent_output_dtypes(layer):
    dtypes = []
    for torch in (real, vt):
        torch.manual_seed(0)
        module = getattr(torch.nn, layer)(3, 4)
        x = torch.ones(2, 3) if layer.endswith("Cell") else torch.ones(1, 2, 3)
        with torch.autocast("cpu"):
            out = module(x)
        out = out if isinstance(out, tuple) else (out,)
        dtypes.append([str(o[0].dtype if isinstance(o, tuple) else o.dtype) for o in out])
    assert dtypes[0] == dtypes[1]


def test_autocast_attention_and_transformer_dtypes():
    dtypes = []
    for torch in (real, vt):
        torch.manual_seed(0)
        q = torch.ones(2, 1, 4)
        mha, layer = torch.nn.MultiheadAttention(4, 2), torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
        with torch.autocast("cpu"):
            dtypes.append([str(t.dtype) for t in (*mha(q, q, q), layer(q))])
    assert dtypes[0] == dtypes[1]


def _state(torch):
    return (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_autocast_enabled())


def test_autocast_state_nesting_and_restoring():
    for torch in (real, vt):
        before = _state(torch)
        assert before == (False, torch.bfloat16, False)
        with torch.autocast("cpu"):
            assert _state(torch) == (True, torch.bfloat16, False)
            with torch.autocast("cpu", dtype=torch.float16):
                assert _state(torch) == (True, torch.float16, False)
                with torch.autocast("cpu", enabled=False):
                    assert _state(torch)[0] is False
                    assert torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype == torch.float32
            assert _state(torch) == (True, torch.bfloat16, False)
        with pytest.raises(KeyError):
            with torch.amp.autocast("cpu"):
                raise KeyError("inside")
        assert _state(torch) == before
        assert torch.get_autocast_dtype("cuda") == torch.float16 and torch.is_autocast_cache_enabled()


def test_autocast_as_decorator():
    for torch in (real, vt):
        product = torch.autocast("cpu")(lambda a, lib=torch: (lib.is_autocast_enabled("cpu"), lib.mm(a, a).dtype))
        assert product(torch.ones(2, 2)) == (True, torch.bfloat16)
        assert torch.is_autocast_enabled("cpu") is False


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category, str(w.message)) for w in caught]


def test_autocast_disabled_variants_warn_as_torch():
    for make in (lambda t: t.autocast("cpu", dtype=t.float32), lambda t: t.autocast("cuda"),
                 lambda t: t.cuda.amp.autocast(), lambda t: t.cpu.amp.autocast()):
        results = []
        for torch in (real, vt):
            context, caught = _warnings(functools.partial(make, torch))
            with context:
                enabled = torch.is_autocast_enabled("cpu")
            results.append((enabled, str(context.fast_dtype), caught))
        assert results[0] == results[1]


@pytest.mark.parametrize("call", [lambda t: t.autocast(1), lambda t: t.autocast("tpu"),
                                  lambda t: t.get_autocast_dtype("tpu"), lambda t: t.is_autocast_enabled("gpu")])
def test_autocast_errors(call):
    check(lambda torch: call(torch))


def test_deprecated_state_functions():
    for torch in (real, vt):
        value, caught = _warnings(lambda lib=torch: (lib.is_autocast_cpu_enabled(), lib.get_autocast_cpu_dtype()))
        assert value == (False, torch.bfloat16) and caught and all(c[0] is DeprecationWarning for c in caught)
        torch.set_autocast_enabled("cpu", True)
        try:
            assert torch.is_autocast_enabled("cpu") and torch.mm(torch.ones(1, 1), torch.ones(1, 1)).dtype == \
                torch.bfloat16
        finally:
            torch.set_autocast_enabled("cpu", False)


# --- GradScaler ---------------------------------------------------------------------------------------------------

def _train(torch, scaler_args, steps=7, poison=(2, 3)):
    """A few scaled SGD steps of a linear model; gradients of the steps in ``poison`` hold an inf."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.5, -0.25, 1.0], [0.75, 0.125, -0.5]]))
        model.bias.copy_(torch.tensor([0.1, -0.2]))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", **scaler_args)
    x, y = torch.tensor(arrays((4, 3), seed=1)), torch.tensor(arrays((4, 2), seed=2))
    log = []
    for step in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu"):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaled = scaler.scale(loss)
        log.append((str(scaled.dtype), float(scaled.detach())))
        scaled.backward()
        if step in poison:
            model.bias.grad[0] = float("inf")
        if step % 2:
            scaler.unscale_(opt)
            log.append(("unscaled", model.weight.grad.numpy().copy()))
        log.append(("step", scaler.step(opt)))
        scaler.update()
        log.append(("scale", scaler.get_scale(), scaler._get_growth_tracker()))
    log.append(("state", scaler.state_dict(), model.weight.detach().numpy().copy()))
    return log


def _assert_logs_equal(want, got):
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert len(w) == len(g) and w[0] == g[0]
        for a, b in zip(w[1:], g[1:]):
            if isinstance(a, np.ndarray):
                np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
            elif isinstance(a, float):
                np.testing.assert_allclose(b, a, rtol=1e-2)  # the loss was computed in bfloat16
            else:
                assert a == b


@pytest.mark.parametrize("args", [{}, {"init_scale": 8.0, "growth_interval": 2, "growth_factor": 4.0},
                                  {"init_scale": 2.0 ** 127, "growth_interval": 1}, {"enabled": False}])
def test_grad_scaler_training_matches_torch(args):
    _assert_logs_equal(_train(real, args), _train(vt, args))


def test_grad_scaler_state_dict_round_trip_and_errors():
    results = []
    for torch in (real, vt):
        scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=3)
        out = [scaler.get_scale(), scaler.is_enabled(), scaler.state_dict()]
        other = torch.amp.GradScaler("cpu")
        other.load_state_dict({"scale": 32.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5,
                               "_growth_tracker": 2})
        out.append(other.state_dict())
        param = torch.nn.Parameter(torch.ones(2))
        opt = torch.optim.SGD([param], lr=1.0)
        calls = ((other.load_state_dict, {}), (other.step, opt), (functools.partial(other.step, closure=None), opt),
                 (functools.partial(torch.amp.GradScaler, "cpu", 1.0), 0.5))
        for call, arg in calls:
            try:
                call(arg)
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        other.scale(param.sum()).backward()
        other.step(opt)
        other.update(torch.tensor(8.0))
        out.append((other.get_scale(), param.detach().tolist()))
        out.append(torch.amp.GradScaler("cpu", enabled=False).state_dict())
        results.append(out)
    assert results[0] == results[1]


def test_grad_scaler_variants_and_scaling_containers():
    results = []
    for torch in (real, vt):
        made = []
        for make in (torch.amp.GradScaler, torch.cuda.amp.GradScaler, torch.cpu.amp.GradScaler,
                     functools.partial(torch.GradScaler, "cpu", init_scale=2.0)):
            scaler, caught = _warnings(make)
            made.append((scaler.is_enabled(), scaler.get_scale(), caught))
        scaler = torch.GradScaler("cpu", init_scale=2.0)
        scaled = scaler.scale([torch.ones(2), (torch.ones(1).bfloat16(),)])
        made.append([scaled[0].tolist(), scaled[1][0].tolist(), str(scaled[1][0].dtype)])
        made.append([t.tolist() for t in scaler.scale(iter([torch.ones(1)]))])
        results.append(made)
    assert results[0] == results[1]
