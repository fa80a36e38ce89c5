"""Eager-mode quantization against real torch 2.13: HistogramObserver, fuse -> prepare -> calibrate -> convert of
a Conv-BN-ReLU-Linear model, quantized Linear requantization, dynamic Linear, QAT steps.

Float parts of the model use dyadic weights and inputs so the float convolution is exact in both libraries (their
float accumulation orders differ by an ulp otherwise, which moves observer ranges); the quantized parts are compared
bit for bit (int_repr, scales, zero points)."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
warnings.simplefilter("ignore")


def _dyadic(rng, shape, scale=8):
    return (rng.integers(-scale, scale + 1, shape) / scale).astype(np.float32)


def _model(T):
    nn, tq = T.nn, T.ao.quantization

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant, self.dq = tq.QuantStub(), tq.DeQuantStub()
            self.conv, self.bn, self.relu = nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3, eps=0.0), nn.ReLU()
            self.fc = nn.Linear(48, 4)

        def forward(self, x):
            return self.dq(self.fc(self.relu(self.bn(self.conv(self.quant(x)))).flatten(1)))

    return M()


def _state(rng):
    state = {k: v.numpy().copy() for k, v in _model(torch).state_dict().items()}
    for key in state:
        if state[key].dtype == np.float32:
            state[key] = _dyadic(rng, state[key].shape)
    state["bn.running_var"] = np.ones(3, np.float32)
    state["bn.weight"] = np.array([1, 0.5, 2], np.float32)
    return state


def _load(T, state):
    m = _model(T)
    m.load_state_dict({k: T.from_numpy(v.copy()) for k, v in state.items()})
    return m


@pytest.mark.parametrize("backend", ["x86", "fbgemm", "qnnpack"])
def test_static_workflow(backend):
    rng = np.random.default_rng(0)
    state = _state(rng)
    batches = [_dyadic(rng, (5, 2, 4, 4), 4) * (i + 1) for i in range(3)]
    results = []
    for T in (torch, vt):
        tq = T.ao.quantization
        m = _load(T, state).eval()
        m.qconfig = tq.get_default_qconfig(backend)
        fused = tq.fuse_modules(m, [["conv", "bn", "relu"]])
        prepared = tq.prepare(fused)
        for b in batches:
            prepared(T.from_numpy(b))
        q = tq.convert(prepared)
        out = q(T.from_numpy(batches[1]))
        hidden = q.conv(q.quant(T.from_numpy(batches[0])))
        results.append((repr(fused), repr(prepared), repr(q), out.numpy(), hidden.int_repr().numpy(),
                        q.conv.weight().int_repr().numpy(), q.fc.weight().int_repr().numpy(), q.conv.scale,
                        q.conv.zero_point, q.fc.scale, q.fc.zero_point, sorted(q.state_dict())))
    for ours, theirs in zip(results[1], results[0]):
        if isinstance(theirs, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs


def _quantized_linear(T, rng, per_channel, relu):
    i, o = rng.integers(1, 40), rng.integers(1, 20)
    w = rng.standard_normal((o, i)).astype(np.float32)
    ws = rng.uniform(0.001, 0.05, o)
    x = rng.standard_normal((7, i)).astype(np.float32) * 2
    scale, zp, xs, xz = float(rng.uniform(0.01, 0.5)), int(rng.integers(0, 255)), float(rng.uniform(0.01, 0.1)), \
        int(rng.integers(0, 255))
    b = rng.standard_normal(o).astype(np.float32)
    cls = T.ao.nn.intrinsic.quantized.LinearReLU if relu else T.ao.nn.quantized.Linear
    m = cls(int(i), int(o))
    if per_channel:
        wq = T.quantize_per_channel(T.from_numpy(w), T.from_numpy(ws), T.zeros(int(o), dtype=T.long), 0, T.qint8)
    else:
        wq = T.quantize_per_tensor(T.from_numpy(w), float(ws[0]), 0, T.qint8)
    m.set_weight_bias(wq, T.from_numpy(b))
    m.scale, m.zero_point = scale, zp
    y = m(T.quantize_per_tensor(T.from_numpy(x), xs, xz, T.quint8))
    return y.int_repr().numpy(), repr(m), m.bias().detach().numpy()


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_quantized_linear_random(per_channel, relu):
    for seed in range(40):
        ours = _quantized_linear(vt, np.random.default_rng(seed), per_channel, relu)
        theirs = _quantized_linear(torch, np.random.default_rng(seed), per_channel, relu)
        np.testing.assert_array_equal(ours[0], theirs[0])
        assert ours[1] == theirs[1]
        np.testing.assert_array_equal(ours[2], theirs[2])


def test_dynamic_linear():
    rng = np.random.default_rng(3)
    state = _state(rng)
    x = rng.standard_normal((6, 2, 4, 4)).astype(np.float32)
    results = []
    for T in (torch, vt):
        m = _load(T, state).eval()
        d = T.ao.quantization.quantize_dynamic(m, {T.nn.Linear}, dtype=T.qint8)
        fc = d.fc
        results.append((repr(d), fc(T.from_numpy(np.tile(x.reshape(6, 32), (1, 2))[:, :48])).numpy(),
                        fc.weight().int_repr().numpy(), sorted(d.state_dict())))
    assert results[1][0] == results[0][0]
    np.testing.assert_array_equal(results[1][1], results[0][1])
    np.testing.assert_array_equal(results[1][2], results[0][2])
    assert results[1][3] == results[0][3]


def test_qat_steps():
    rng = np.random.default_rng(5)
    state = _state(rng)
    xs = [_dyadic(rng, (4, 2, 4, 4), 4) for _ in range(3)]
    results = []
    for T in (torch, vt):
        tq = T.ao.quantization
        m = _load(T, state).train()
        m.bn.eps = 2.0 ** -10  # training batch norm needs a positive eps
        m.qconfig = tq.get_default_qat_qconfig("qnnpack", version=0)
        p = tq.prepare_qat(m)
        opt = T.optim.SGD(p.parameters(), lr=0.125)
        losses = []
        for x in xs:
            opt.zero_grad()
            loss = p(T.from_numpy(x)).sum()
            loss.backward()
            opt.step()
            losses.append(float(loss))
        results.append((losses, p.fc.weight.detach().numpy(), type(p.fc).__name__, repr(p.fc.weight_fake_quant)))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6, atol=1e-7)
    assert results[1][2:] == results[0][2:]


@pytest.mark.parametrize("kwargs", [{}, {"reduce_range": True}, {"bins": 64}, {"bins": 256, "reduce_range": True},
                                    {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}])
def test_histogram_observer(kwargs):
    results = []
    for T in (torch, vt):
        kw = {k: getattr(T, v) if k in ("dtype", "qscheme") else v for k, v in kwargs.items()}
        o = T.ao.quantization.HistogramObserver(**kw)
        rng = np.random.default_rng(len(kwargs))
        for i in range(3):
            o(T.from_numpy((rng.standard_normal((50, 20)) * (i + 1) + i * 0.3).astype(np.float32) ** 3))
        s, z = o.calculate_qparams()
        results.append((s.numpy(), z.numpy(), o.histogram.numpy(), repr(o), sorted(o.state_dict())))
    for ours, theirs in zip(*results[::-1]):
        if isinstance(theirs, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs
