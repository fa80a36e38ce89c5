"""channels_last through modules and convolutions: layouts, values and gradients against real torch 2.13."""

import numpy as np
import pytest
import vfw.torch as vt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def _pair(shape, fmt_name=None):
    """The same random float64 values as a real and a vfw tensor, laid out in ``fmt_name`` (or contiguous)."""
    a = RNG.standard_normal(shape)
    real, ours = torch.tensor(a), vt.tensor(a)
    if fmt_name is not None:
        real = real.contiguous(memory_format=getattr(torch, fmt_name))
        ours = ours.contiguous(memory_format=getattr(vt, fmt_name))
    return real, ours


def _same_layout(ours, real):
    assert tuple(ours.shape) == tuple(real.shape)
    for name in ("contiguous_format", "channels_last", "channels_last_3d"):
        assert ours.is_contiguous(memory_format=getattr(vt, name)) == \
            real.is_contiguous(memory_format=getattr(torch, name)), name


def _close(ours, real):
    np.testing.assert_allclose(ours.detach().numpy(), real.detach().numpy(), rtol=1e-9, atol=1e-9)


CONV_CASES = [  # (nd, C_in, C_out, kernel, kwargs)
    (2, 3, 4, 3, {}),
    (2, 4, 6, 3, dict(stride=2, padding=1)),
    (2, 4, 4, 3, dict(dilation=2, padding=2, groups=2)),
    (2, 4, 8, 3, dict(groups=4, padding="same")),  # depthwise
    (2, 2, 3, (2, 3), dict(stride=(2, 1), padding=(1, 0))),
    (3, 2, 4, 2, dict(stride=1, padding=1)),  # float64 3-d convolutions return C order in torch
]


@pytest.mark.parametrize("nd,cin,cout,k,kwargs", CONV_CASES)
@pytest.mark.parametrize("where", ["input", "weight", "both"])
def test_conv_follows_channels_last_with_torch_gradients(nd, cin, cout, k, kwargs, where):
    fmt = "channels_last" if nd == 2 else "channels_last_3d"
    ks = (k,) * nd if isinstance(k, int) else k
    rx, vx = _pair((2, cin) + (6,) * nd, fmt if where != "weight" else None)
    rw, vw = _pair((cout, cin // kwargs.get("groups", 1)) + ks, fmt if where != "input" else None)
    rb, vb = _pair((cout,))
    for t in (rx, vx, rw, vw, rb, vb):
        t.requires_grad_()
    real_fn, our_fn = getattr(torch.nn.functional, f"conv{nd}d"), getattr(vt.nn.functional, f"conv{nd}d")
    ry, vy = real_fn(rx, rw, rb, **kwargs), our_fn(vx, vw, vb, **kwargs)
    _same_layout(vy, ry)
    _close(vy, ry)
    rg, vg = _pair(tuple(ry.shape))
    (ry * rg).sum().backward()
    (vy * vg).sum().backward()
    for ours, real in ((vx, rx), (vw, rw), (vb, rb)):
        _close(ours.grad, real.grad)
        _same_layout(ours.grad, real.grad)
        assert ours.grad.stride() == real.grad.stride()


@pytest.mark.parametrize("nd,kwargs", [(2, {}), (2, dict(stride=2, padding=1, output_padding=1)),
                                       (2, dict(groups=2, dilation=2)),
                                       (2, dict(stride=2, dilation=3, output_padding=2)),  # no ChannelsLast op fits
                                       (3, dict(stride=2))])
def test_conv_transpose_follows_channels_last(nd, kwargs):
    fmt = "channels_last" if nd == 2 else "channels_last_3d"
    rx, vx = _pair((2, 4) + (5,) * nd, fmt)
    rw, vw = _pair((4, 3) + (3,) * nd)
    rb, vb = _pair((3 * kwargs.get("groups", 1),))
    for t in (rx, vx, rw, vw, rb, vb):
        t.requires_grad_()
    real_fn = getattr(torch.nn.functional, f"conv_transpose{nd}d")
    our_fn = getattr(vt.nn.functional, f"conv_transpose{nd}d")
    ry, vy = real_fn(rx, rw, rb, **kwargs), our_fn(vx, vw, vb, **kwargs)
    _same_layout(vy, ry)
    _close(vy, ry)
    ry.sum().backward()
    vy.sum().backward()
    for ours, real in ((vx, rx), (vw, rw), (vb, rb)):
        _close(ours.grad, real.grad)
        _same_layout(ours.grad, real.grad)


def test_unbatched_conv_with_channels_last_weight():
    rx, vx = _pair((3, 6, 6))
    rw, vw = _pair((4, 3, 3, 3), "channels_last")
    ry, vy = torch.nn.functional.conv2d(rx, rw), vt.nn.functional.conv2d(vx, vw)
    _close(vy, ry)
    assert vy.stride() == ry.stride()


def test_conv_grad_fn_name():
    _, vx = _pair((1, 2, 5, 5), "channels_last")
    vx.requires_grad_()
    assert type(vt.nn.functional.conv2d(vx, vt.ones(3, 2, 3, 3, dtype=vt.float64)).grad_fn).__name__ == \
        "ConvolutionBackward0"


def _module_pair(build):
    torch.manual_seed(0)
    real = build(torch.nn).double()
    ours = build(vt.nn).double()
    ours.load_state_dict({k: vt.tensor(v.numpy()) for k, v in real.state_dict().items()})
    return real, ours


def _block(nn):
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(2), nn.Upsample(scale_factor=2, mode="bilinear"),
                         nn.ConvTranspose2d(4, 2, 2, stride=2), nn.GroupNorm(1, 2))


def test_module_to_channels_last_lays_out_parameters_and_trains_as_torch():
    real, ours = _module_pair(_block)
    assert ours.to(memory_format=vt.channels_last) is ours
    real.to(memory_format=torch.channels_last)
    for (name, rp), (_, vp) in zip(real.named_parameters(), ours.named_parameters()):
        assert vp.stride() == rp.stride(), name
        assert vp.data.stride() == rp.data.stride(), name
    for (name, rt), (_, vt_) in zip(real.state_dict().items(), ours.state_dict().items()):
        assert vt_.stride() == rt.stride(), name
    real_opt = torch.optim.SGD(real.parameters(), lr=0.1, momentum=0.9)
    our_opt = vt.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    rx, vx = _pair((2, 3, 8, 8), "channels_last")
    for _ in range(2):
        ry, vy = real(rx), ours(vx)
        _same_layout(vy, ry)
        _close(vy, ry)
        real_opt.zero_grad()
        our_opt.zero_grad()
        (ry ** 2).mean().backward()
        (vy ** 2).mean().backward()
        for (name, rp), (_, vp) in zip(real.named_parameters(), ours.named_parameters()):
            assert vp.grad.stride() == rp.grad.stride(), name
            _close(vp.grad, rp.grad)
        real_opt.step()
        our_opt.step()
    for (name, rp), (_, vp) in zip(real.named_parameters(), ours.named_parameters()):
        assert vp.stride() == rp.stride(), name
        _close(vp, rp)


@pytest.mark.parametrize("layer", [lambda nn: nn.MaxPool2d(3, 2, 1), lambda nn: nn.AvgPool2d(2),
                                   lambda nn: nn.AdaptiveAvgPool2d(3), lambda nn: nn.AdaptiveMaxPool2d((2, 3)),
                                   lambda nn: nn.BatchNorm2d(3), lambda nn: nn.BatchNorm2d(3).eval(),
                                   lambda nn: nn.Upsample(scale_factor=2), lambda nn: nn.ReLU(),
                                   lambda nn: nn.Upsample(size=(5, 7), mode="bicubic")])
def test_layers_keep_channels_last_input_layout_and_gradient(layer):
    real, ours = _module_pair(layer)
    rx, vx = _pair((2, 3, 8, 8), "channels_last")
    rx.requires_grad_()
    vx.requires_grad_()
    ry, vy = real(rx), ours(vx)
    _same_layout(vy, ry)
    _close(vy, ry)
    (ry ** 2).sum().backward()
    (vy ** 2).sum().backward()
    _close(vx.grad, rx.grad)
    assert vx.grad.stride() == rx.grad.stride()


def test_module_to_errors_as_torch():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        vt.nn.Conv3d(2, 3, 2).to(memory_format=vt.channels_last)
    with pytest.raises(TypeError, match="memory_format"):
        vt.nn.Conv2d(2, 3, 2).to(memory_format="channels_last")
    conv = vt.nn.Conv2d(2, 3, 2).to(vt.float64, memory_format=vt.channels_last)
    real = torch.nn.Conv2d(2, 3, 2).to(torch.float64, memory_format=torch.channels_last)
    assert conv.weight.dtype == vt.float64 and conv.weight.stride() == real.weight.stride()
    conv.to(memory_format=vt.contiguous_format)
    assert conv.weight.is_contiguous()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_reduced_precision_conv_in_channels_last(dtype):
    rx, vx = _pair((2, 4, 6, 6), "channels_last")
    rw, vw = _pair((4, 2, 3, 3))
    ry = torch.nn.functional.conv2d(rx.to(getattr(torch, dtype)), rw.to(getattr(torch, dtype)), groups=2, padding=1)
    vy = vt.nn.functional.conv2d(vx.to(getattr(vt, dtype)), vw.to(getattr(vt, dtype)), groups=2, padding=1)
    assert vy.dtype == getattr(vt, dtype)
    _same_layout(vy, ry)
    tol = 1e-5 if dtype == "float32" else 2e-2
    np.testing.assert_allclose(vy.float().numpy(), ry.float().numpy(), rtol=tol, atol=tol)


def test_second_order_gradients_through_channels_last_conv():
    results = []
    rx, vx = _pair((2, 4, 7, 7), "channels_last")
    rw, vw = _pair((4, 2, 3, 3))
    for lib, x, w in ((torch, rx, rw), (vt, vx, vw)):
        x.requires_grad_()
        w.requires_grad_()
        y = lib.nn.functional.conv2d(x, w, groups=2, stride=2)
        gx, gw = lib.autograd.grad((y ** 2).sum(), (x, w), create_graph=True)
        (gx.sum() + (gw ** 2).sum()).backward()
        results.append((gx, x.grad, w.grad))
    for real, ours in zip(*results):
        _close(ours, real)
        _same_layout(ours, real)


def test_load_state_dict_and_adam_keep_channels_last():
    real, ours = _module_pair(lambda nn: nn.Conv2d(4, 3, 3))
    for module, lib in ((real, torch), (ours, vt)):
        module.to(memory_format=lib.channels_last)
        module.load_state_dict({k: v.contiguous() for k, v in module.state_dict().items()})
    assert ours.weight.stride() == real.weight.stride()
    rx, vx = _pair((2, 4, 6, 6))
    real_opt, our_opt = torch.optim.Adam(real.parameters(), lr=0.01), vt.optim.Adam(ours.parameters(), lr=0.01)
    for model, opt, x in ((real, real_opt, rx), (ours, our_opt, vx)):
        (model(x) ** 2).mean().backward()
        opt.step()
    assert ours.weight.stride() == real.weight.stride()
    assert our_opt.state[ours.weight]["exp_avg"].stride() == real_opt.state[real.weight]["exp_avg"].stride()
    _close(ours.weight, real.weight)
