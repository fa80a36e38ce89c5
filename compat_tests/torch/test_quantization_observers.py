"""torch.ao.quantization observers, FakeQuantize and QConfig against real torch 2.13: running ranges,
``calculate_qparams`` for every scheme/dtype/range option, reprs, state dicts, errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _batches(seed=0, shape=(6, 5)):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) * s + o for s, o in ((1, 0), (3, 1), (0.5, -2))]


def _observe(torch, observer, batches):
    """Run the batches through the observer: its qparams after each, its buffers and repr at the end."""
    seen = [observer(b) is b for b in batches]
    params = observer.calculate_qparams()
    return seen, params, dict(observer.state_dict()), repr(observer), observer.quant_min, observer.quant_max


_KWARGS = [
    {}, {"dtype": "qint8"}, {"qscheme": "per_tensor_symmetric", "dtype": "qint8"},
    {"qscheme": "per_tensor_symmetric"}, {"reduce_range": True}, {"dtype": "qint8", "reduce_range": True},
    {"quant_min": 0, "quant_max": 15}, {"quant_min": -8, "quant_max": 7, "dtype": "qint8"},
    {"quant_min": 0, "quant_max": 15, "qscheme": "per_tensor_symmetric"}, {"dtype": "qint32"},
    {"eps": 0.5}, {"quant_min": 0, "quant_max": 255, "reduce_range": True},
]


def _resolve(torch, kwargs):
    return {k: getattr(torch, v) if k in ("dtype", "qscheme") else v for k, v in kwargs.items()}


def _per_channel(kwargs):
    return {k: v.replace("per_tensor", "per_channel") if k == "qscheme" else v for k, v in kwargs.items()}


@pytest.mark.parametrize("name", ["MinMaxObserver", "MovingAverageMinMaxObserver"])
@pytest.mark.parametrize("kwargs", _KWARGS, ids=str)
def test_per_tensor_observers(name, kwargs):
    def fn(torch, *batches):
        cls = getattr(torch.ao.quantization, name)
        return _observe(torch, cls(**_resolve(torch, kwargs)), batches)
    check(fn, *_batches())


_PER_CHANNEL_KWARGS = [_per_channel(k) for k in _KWARGS] + [
    {"ch_axis": 1}, {"ch_axis": -1}, {"qscheme": "per_channel_affine_float_qparams"}]


@pytest.mark.parametrize("name", ["PerChannelMinMaxObserver", "MovingAveragePerChannelMinMaxObserver"])
@pytest.mark.parametrize("kwargs", _PER_CHANNEL_KWARGS, ids=str)
def test_per_channel_observers(name, kwargs):
    def fn(torch, *batches):
        cls = getattr(torch.ao.quantization, name)
        return _observe(torch, cls(**_resolve(torch, kwargs)), batches)
    check(fn, *_batches(1, (4, 3, 5)))


def test_moving_average_constant_and_reset():
    def fn(torch, *batches):
        q = torch.ao.quantization
        observer = q.MovingAverageMinMaxObserver(averaging_constant=0.3)
        first = _observe(torch, observer, batches)
        observer.reset_min_max_vals()
        return first, repr(observer), observer.calculate_qparams()
    check(fn, *_batches(2))


def test_unobserved_and_placeholders():
    def fn(torch):
        q = torch.ao.quantization
        placeholder = q.PlaceholderObserver(dtype=torch.float16)
        x = torch.ones(2)
        return (q.MinMaxObserver().calculate_qparams(), q.PerChannelMinMaxObserver().calculate_qparams(),
                placeholder(x) is x, repr(placeholder), q.NoopObserver()(x) is x, str(q.NoopObserver().dtype))
    check(fn)


@pytest.mark.parametrize("expr", [
    "q.MinMaxObserver(qscheme=torch.per_channel_affine)", "q.MinMaxObserver(quant_min=1, quant_max=10)",
    "q.MinMaxObserver(quant_min=0, quant_max=0)", "q.MinMaxObserver(dtype=torch.float32)",
    "q.MinMaxObserver(qscheme=torch.per_tensor_symmetric, reduce_range=True)",
    "q.QConfig(q.MinMaxObserver(), q.MinMaxObserver)", "q.get_default_qconfig('bogus')",
    "q.get_default_qat_qconfig('bogus')", "q.FakeQuantize(quant_min=0, quant_max=300)",
    "q.PerChannelMinMaxObserver(qscheme=torch.per_tensor_affine)", "q.PlaceholderObserver().calculate_qparams()",
    "q.NoopObserver().calculate_qparams()",
])
def test_errors(expr):
    def fn(torch):
        q = torch.ao.quantization  # noqa: F841  (used by expr)
        return eval(expr)
    check(fn)


def test_with_args_and_qconfigs():
    def fn(torch):
        q = torch.quantization
        made = q.MinMaxObserver.with_args(dtype=torch.qint8).with_args(reduce_range=True)()
        configs = [q.default_qconfig, q.default_qat_qconfig]
        built = [(repr(c.activation()), repr(c.weight())) for c in configs]
        return repr(made), (made.dtype == torch.qint8, made.reduce_range), built, isinstance(configs[0], tuple)
    check(fn)


@pytest.mark.parametrize("backend", ["x86", "fbgemm", "qnnpack", "onednn"])
@pytest.mark.parametrize("version", [0, 1])
def test_default_qat_qconfig(backend, version):
    def fn(torch, *batches):
        config = torch.ao.quantization.get_default_qat_qconfig(backend, version)
        activation, weight = config.activation(), config.weight()
        outs = [(activation(b), weight(b)) for b in batches]
        return (repr(config), outs, dict(activation.state_dict()), dict(weight.state_dict()), repr(activation),
                repr(weight), activation.calculate_qparams(), weight.calculate_qparams())
    check(fn, *_batches(5, (4, 6)))


@pytest.mark.parametrize("qscheme", ["per_tensor_affine", "per_tensor_symmetric"])
@pytest.mark.parametrize("dtype,quant_min,quant_max", [("quint8", 0, 255), ("qint8", -128, 127), ("quint8", 0, 15)])
@pytest.mark.parametrize("scale", [1.0, 1e-6])
def test_fused_fake_quantize_qparams(qscheme, dtype, quant_min, quant_max, scale):
    def fn(torch, *batches):
        q = torch.ao.quantization
        fq = q.FusedMovingAvgObsFakeQuantize(quant_min=quant_min, quant_max=quant_max, dtype=getattr(torch, dtype),
                                             qscheme=getattr(torch, qscheme), averaging_constant=0.3)
        return [(fq(b * scale), fq.scale.clone(), fq.zero_point.clone()) for b in batches]
    check(fn, *_batches(6, (5, 7)))


@pytest.mark.parametrize("factory", ["default_fake_quant", "default_weight_fake_quant",
                                     "default_per_channel_weight_fake_quant", "FakeQuantize"])
def test_fake_quantize_module(factory):
    def fn(torch, *batches):
        fq = getattr(torch.ao.quantization, factory)()
        outs = [fq(b) for b in batches]
        fq.disable_observer()
        frozen = fq(batches[0] * 2)
        fq.disable_fake_quant()
        passed = fq(batches[1])
        fq.apply(torch.ao.quantization.enable_fake_quant)
        again = fq(batches[2])
        return outs, frozen, passed, again, dict(fq.state_dict()), repr(fq), fq.calculate_qparams()
    check(fn, *_batches(3, (4, 6)))


def test_fake_quantize_module_gradient():
    def fn(torch, x):
        fq = torch.ao.quantization.FakeQuantize(quant_min=0, quant_max=15)
        return fq(x * 3)
    check_grad(fn, _batches(4)[0])
