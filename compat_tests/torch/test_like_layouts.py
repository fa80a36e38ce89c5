"""Layouts of new tensors made like a permuted tensor, and the memory order of their random draws (real torch 2.13
as the oracle): the ``*_like`` factories keep a permuted input's dim order (``preserve_format``), so ``rand_like`` /
``randn_like`` / ``randint_like`` draw in that order; a batch-first RNN returns a transposed view of a time-major
buffer, so dropout between its layers (and on its output) draws masks in time-major order."""

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

# A permuted (dense), a strided (not dense) and a permuted-then-sliced input.
VIEWS = {"transposed": lambda t: t.transpose(0, 2), "strided": lambda t: t[:, ::2],
         "permuted_slice": lambda t: t.permute(2, 0, 1)[1:]}
FACTORIES = {
    "empty_like": lambda lib, x: lib.empty_like(x).fill_(1.5),
    "zeros_like": lambda lib, x: lib.zeros_like(x),
    "ones_like": lambda lib, x: lib.ones_like(x, dtype=lib.float64),
    "full_like": lambda lib, x: lib.full_like(x, 3, dtype=lib.int64),
    "rand_like": lambda lib, x: lib.rand_like(x),
    "randn_like": lambda lib, x: lib.randn_like(x),  # 80+ values: torch's serial path for a non-contiguous layout
    "randint_like": lambda lib, x: lib.randint_like(x, 3, 50),
    "rand_like_generator": lambda lib, x: lib.rand_like(x, generator=lib.Generator().manual_seed(4)),
    "bernoulli_of_empty_like": lambda lib, x: lib.empty_like(x).bernoulli_(0.3),
}


def _run(lib, view, factory):
    lib.manual_seed(0)
    x = VIEWS[view](lib.zeros(4, 6, 5))
    out = FACTORIES[factory](lib, x)
    return out.stride(), out.is_contiguous(), out.numpy()


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_like_factories_keep_layout_and_draw_order(view, factory):
    want, got = _run(real, view, factory), _run(vt, view, factory)
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6, atol=1e-7)


def _rnn_run(lib, mode, batch_first, dropout_on_output):
    lib.manual_seed(3)
    rnn = getattr(lib.nn, mode)(3, 4, num_layers=3, batch_first=batch_first, dropout=0.4)
    x = lib.randn(5, 6, 3, requires_grad=True)
    lib.manual_seed(5)
    y, _ = rnn(x)
    if dropout_on_output:
        y = lib.nn.functional.dropout(y, 0.5)
    (y * lib.arange(y.numel()).reshape(y.shape)).sum().backward()
    return y.stride(), y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("mode", ["GRU", "LSTM", "RNN"])
@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("dropout_on_output", [False, True])
def test_rnn_output_layout_and_dropout_masks(mode, batch_first, dropout_on_output):
    want, got = _rnn_run(real, mode, batch_first, dropout_on_output), _rnn_run(vt, mode, batch_first,
                                                                              dropout_on_output)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-5)


def test_projected_lstm_batch_first_dropout():
    def run(lib):
        lib.manual_seed(1)
        lstm = lib.nn.LSTM(3, 6, num_layers=2, batch_first=True, dropout=0.5, proj_size=2)
        x = lib.randn(4, 5, 3)
        lib.manual_seed(2)
        y, (h, c) = lstm(x)
        return y.stride(), y.detach().numpy(), h.detach().numpy(), c.detach().numpy()
    want, got = run(real), run(vt)
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _layouts(lib):
    base = lib.arange(120.0)
    return {"nchw": base.reshape(2, 3, 4, 5), "nhwc": base.reshape(2, 4, 5, 3).permute(0, 3, 1, 2),
            "c1": base[:50].reshape(2, 1, 5, 5), "h1": base[:30].reshape(2, 3, 1, 5),
            "n111": base[:2].reshape(2, 1, 1, 1),
            "sliced": base.reshape(2, 3, 4, 5)[..., ::2], "ncdhw": base.reshape(2, 3, 2, 2, 5),
            "ndhwc": base.reshape(2, 2, 2, 5, 3).permute(0, 4, 1, 2, 3), "rank2": base[:6].reshape(2, 3)}


FORMATS = ["channels_last", "channels_last_3d", "contiguous_format", "preserve_format"]


def _format_results(lib, layout, fmt_name):
    x = _layouts(lib)[layout]
    fmt = getattr(lib, fmt_name)
    out = {}
    for name, fn in {"is_contiguous": lambda: x.is_contiguous(memory_format=fmt),
                     "to": lambda: x.to(memory_format=fmt), "to_float64": lambda: x.to(lib.float64, memory_format=fmt),
                     "contiguous": lambda: x.contiguous(memory_format=fmt),
                     "clone": lambda: x.clone(memory_format=fmt)}.items():
        try:
            r = fn()
        except RuntimeError:
            out[name] = "RuntimeError"
            continue
        out[name] = r if isinstance(r, bool) else (r is x, r.stride(), r.is_contiguous(), r.tolist())
    return out


@pytest.mark.parametrize("layout", sorted(_layouts(vt)))
@pytest.mark.parametrize("fmt_name", FORMATS)
def test_memory_format_conversions(layout, fmt_name):
    assert _format_results(vt, layout, fmt_name) == _format_results(real, layout, fmt_name)
