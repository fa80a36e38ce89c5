"""torch.lstm_cell / gru_cell / rnn_*_cell, native_layer_norm, native_batch_norm and embedding_bag vs torch 2.13."""

import pytest

from compat_tests.torch.harness import arrays, check, check_grad

X, H, C = arrays((2, 3), (2, 4), (2, 4), seed=21)
W_IH4, W_HH4, B4 = arrays((16, 3), (16, 4), (16,), seed=22)


@pytest.mark.parametrize("fn", [
    lambda t, x, h, c, wi, wh, b: t.lstm_cell(x, (h, c), wi, wh, b, b * 0.5),
    lambda t, x, h, c, wi, wh, b: t.lstm_cell(x, (h, c), wi, wh),
    lambda t, x, h, c, wi, wh, b: t.gru_cell(x, h, wi[:12], wh[:12], b[:12], b[4:]),
    lambda t, x, h, c, wi, wh, b: t.rnn_tanh_cell(x, h, wi[:4], wh[:4], b[:4], b[4:8]),
    lambda t, x, h, c, wi, wh, b: t.rnn_relu_cell(x, h, wi[:4], wh[:4]),
], ids=["lstm", "lstm_no_bias", "gru", "rnn_tanh", "rnn_relu"])
def test_cells_values_and_gradients(fn):
    check_grad(fn, X, H, C, W_IH4, W_HH4, B4, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda t, x: t.native_layer_norm(x, [3], t.ones(3) * 2, t.zeros(3) + 0.5, 1e-5),
    lambda t, x: t.native_layer_norm(x.reshape(1, 2, 3), [2, 3], None, None, 1e-3),
    lambda t, x: t.native_batch_norm(x, t.ones(3), t.zeros(3), None, None, True, 0.1, 1e-5),
    lambda t, x: t.native_batch_norm(x.reshape(2, 3, 1), None, None, None, None, True, 0.1, 1e-5),
    lambda t, x: _with_running(t, x, True),
    lambda t, x: _with_running(t, x, False),
], ids=["layer_affine", "layer_2d", "batch_train", "batch_3d", "batch_running_train", "batch_running_eval"])
def test_native_norms(fn):
    check(fn, X * 3 + 1)


def _with_running(torch, x, training):
    mean, var = torch.zeros(3) + 0.5, torch.ones(3) * 2
    out = torch.native_batch_norm(x, torch.ones(3), torch.zeros(3), mean, var, training, 0.2, 1e-5)
    return out, mean, var


def test_native_layer_norm_gradient():
    check_grad(lambda t, x, w, b: t.native_layer_norm(x, [3], w, b, 1e-5)[0], X, *arrays((3,), (3,), seed=3))


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_outputs(mode, padding_idx):
    def run(t, weight):
        return t.embedding_bag(weight, t.tensor([1, 2, 4, 5, 4, 3, 7]), t.tensor([0, 3, 3]), False, mode, False,
                               None, False, padding_idx)

    check(run, arrays((10, 3), seed=5))
